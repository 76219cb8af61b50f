// fishschool.Simulation (docs/python.md): a school, its steps, its changes and its recording.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "PySimulation.h"

namespace fishschool::python {
namespace {

/// A ValueError unless `name` is a kind of backend of this build.
void checkBackend(std::string_view name) {
    if (auto ok = checkBackendName(name); !ok) raiseError(ok.error());
}

/// A simulation from parameters already read, on a backend already named: what fails now is
/// the machine (RuntimeError).
Simulation makeSimulation(const SimParams& params, std::string_view backend) {
    auto made = Simulation::create(params, backend);
    if (!made) raiseError(made.error(), PyExc_RuntimeError);
    return std::move(*made);
}

SimParams parseOrRaise(const std::string& json, std::string_view source) {
    auto params = parseConfig(json, source);
    if (!params) raiseError(params.error());
    return std::move(*params);
}

/// Simulation(config=None, backend="tbb", **keys).
PySimulation construct(const py::object& config, const std::string& backend,
                       const py::kwargs& keys) {
    checkBackend(backend);  // a bad name is a ValueError before anything is read
    SimParams base;
    if (config.is_none()) {
    } else if (py::isinstance(config, py::module_::import("collections.abc").attr("Mapping"))) {
        base = parseOrRaise(toJson(py::dict(config)), "config");
    } else if (py::isinstance<py::str>(config) || py::hasattr(config, "__fspath__")) {
        const std::string path = pathText(config);
        requireExistingFile(path);
        auto params = loadConfig(path);
        if (!params) raiseError(params.error());
        base = *params;
    } else {
        raise(PyExc_TypeError,
              "config: must be a path (str or os.PathLike) to a config JSON, a "
              "dict of config keys, or None; got " +
                  typeName(config));
    }
    if (keys.empty()) return PySimulation(makeSimulation(base, backend));
    // The keys over the config, a fishCount shared among its species as every front end does.
    py::dict merged;
    for (const auto& [key, value] : keys) merged[key] = value;
    auto params = withConfigKeys(base, toJson(merged));
    if (!params) raiseError(params.error());
    return PySimulation(makeSimulation(*params, backend));
}

/// Simulation.from_trajectory(path, frame=None, backend="tbb"): the run's start from a frame.
PySimulation fromTrajectory(const py::object& path, const py::object& frame,
                            const std::string& backend) {
    checkBackend(backend);
    RunStart start;
    start.state = pathText(path);
    requireExistingFile(start.state.string());
    start.names.frame = "frame";
    start.names.state = "path";
    if (!frame.is_none()) {
        std::int64_t k = toInt64(frame, "frame");
        // Negative counts from the end, as a list's index does.
        if (k < 0) {
            auto reader = TrajectoryReader::open(start.state);
            if (!reader) raiseError(reader.error());
            k += static_cast<std::int64_t>((*reader)->frameCount());
            if (k < 0)
                raise(PyExc_IndexError,
                      "frame " +
                          std::to_string(k - static_cast<std::int64_t>((*reader)->frameCount())) +
                          ": no such frame; the file has " +
                          std::to_string((*reader)->frameCount()));
        }
        start.frame = k;
    }
    auto read = readStart(start);
    if (!read) raiseError(read.error());
    auto made = Simulation::create(*read, backend);
    if (!made) raiseError(made.error(), PyExc_RuntimeError);
    return PySimulation(std::move(*made));
}

/// Simulation.run(steps, every=1): the measures at the start and every `every` steps, as arrays.
py::object runCollecting(PySimulation& self, const py::handle& stepsGiven,
                         const py::handle& everyGiven) {
    const std::int64_t steps = toInt64(stepsGiven, "steps");
    const std::int64_t every = toInt64(everyGiven, "every");
    if (steps < 0)
        raise(PyExc_ValueError,
              "steps: " + std::to_string(steps) + " is not allowed; must be 0 or more");
    if (every < 1)
        raise(PyExc_ValueError,
              "every: " + std::to_string(every) + " is not allowed; must be 1 or more");
    std::vector<std::int64_t> step;
    std::vector<double> time;
    std::vector<SchoolMetrics> values;
    const auto take = [&] {
        Simulation& sim = self.get();
        step.push_back(static_cast<std::int64_t>(sim.stepCount()));
        time.push_back(sim.time());
        values.push_back(sim.measures());
    };
    take();
    for (std::int64_t done = 0; done < steps;) {
        const std::int64_t k = std::min(every, steps - done);
        self.step(py::int_(k));  // the GIL released, Ctrl-C between chunks
        done += k;
        if (k == every) take();
    }
    py::dict d;
    d["step"] = arrayOf<std::int64_t>(step.size(), [&](std::size_t i) { return step[i]; });
    d["time"] = arrayOf<double>(time.size(), [&](std::size_t i) { return time[i]; });
    for (const SchoolMeasure& measure : kSchoolMeasures)
        d[measure.column] = arrayOf<double>(
            values.size(), [&](std::size_t i) { return values[i].*measure.member; });
    // A table where pandas is there, as the users of data collectors expect; else the arrays.
    try {
        return py::module_::import("pandas").attr("DataFrame")(d);
    } catch (const py::error_already_set& error) {
        if (!error.matches(PyExc_ImportError)) throw;
    }
    return d;
}

/// fishschool.measure(positions, velocities, rCohesion, groupDistance, box).
py::dict measureOf(const py::object& positions, const py::object& velocities, double rCohesion,
                   double groupDistance, const py::object& box) {
    // Whole numbers are coordinates too here (a tracked file's pixels).
    const py::module_ numpy = py::module_::import("numpy");
    const auto floats = [&](const py::object& value) -> py::object {
        if (value.is_none()) return value;
        const py::array array = numpy.attr("asarray")(value);
        const char kind = array.dtype().kind();
        return kind == 'i' || kind == 'u' ? py::object(array.attr("astype")("float64"))
                                          : py::object(array);
    };
    const School fish = fishFrom(floats(positions), floats(velocities));
    std::vector<float> p(3 * fish.size()), v(3 * fish.size());
    copyFrame(fish, p, v);
    MeasureOptions options;
    options.rCohesion = static_cast<float>(rCohesion);
    options.groupDistance = static_cast<float>(groupDistance);
    if (!box.is_none()) {
        const py::array edges = py::module_::import("numpy").attr("asarray")(box, "float64");
        if (edges.ndim() != 1 || edges.size() != 3)
            raise(PyExc_ValueError, "box: shape " + text(edges.attr("shape")) +
                                        " is not allowed; must be three edges (x, y, z), m");
        const auto typed = py::array_t<double>::ensure(edges);
        const auto view = typed.unchecked<1>();
        options.periodicBox = glm::vec3(float(view(0)), float(view(1)), float(view(2)));
    }
    auto measured = measureArrays(p, v, options);
    if (!measured) raiseError(measured.error());
    return measuresDict(*measured);
}

/// Simulation.record(trajectory=None, metrics=None, state=None, every=1).
void record(PySimulation& self, const py::object& trajectory, const py::object& metrics,
            const py::object& state, const py::handle& every) {
    Simulation& sim = self.get();
    const std::int64_t k = toInt64(every, "every");
    if (k < 1)
        raise(PyExc_ValueError,
              "every: " + std::to_string(k) + " is not allowed; must be 1 or more");
    std::vector<RunOutput> outputs;
    const auto add = [&](const py::object& path, OutputKind kind, const char* name) {
        if (path.is_none()) return;
        RunOutput output;
        output.kind = kind;
        output.path = pathText(path);
        output.every = k;
        output.measured = true;
        output.name = name;
        outputs.push_back(std::move(output));
    };
    add(trajectory, OutputKind::Trajectory, "trajectory");
    add(metrics, OutputKind::Measures, "metrics");
    add(state, OutputKind::State, "state");
    if (outputs.empty())
        raise(PyExc_ValueError, "record: give trajectory, metrics or state (a path each)");
    if (auto ok = sim.startRecording(outputs); !ok) raiseError(ok.error(), PyExc_OSError);
}

py::dict summaryDict(const RecordingSummary& summary) {
    py::dict d;
    d["frames"] = summary.frames;
    d["rows"] = summary.rows;
    d["last_frame_step"] = summary.lastFrameStep;
    return d;
}

}  // namespace

void bindSimulation(py::module_& m) {
    m.def("measure", &measureOf, py::arg("positions"), py::arg("velocities"),
          py::arg("rCohesion") = SimParams{}.rCohesion, py::arg("groupDistance") = 0.0,
          py::arg("box") = py::none(),
          R"doc(The measures of any school, without a simulation: positions and velocities are
(N, 3) float arrays (m, m/s), e.g. a tracked school's frame. rCohesion: the radius within which a
fish counts as a neighbour; groupDistance: the distance that links fish into one group (0:
rCohesion); box: a periodic box's three edges, centred on the origin, or None for open water.
Returns the dict Simulation.measures() returns. ValueError names what is wrong.)doc");
    py::class_<PySimulation>(m, "Simulation", R"doc(
One school and the backend that steps it.

Simulation(config=None, backend="tbb", **keys): config is a path to a config JSON or a dict of
config keys (docs/config.md); keyword arguments are config keys that override it, e.g.
Simulation("school.json", fishCount=500, seed=3). backend is "cpu", "tbb" or "gpu".

positions, velocities and accelerations are read-only float32 (N, 3) NumPy arrays that view the
simulation's buffer of the school without a copy: each access returns the current school. An
array read earlier keeps the school it viewed, unchanged, for as long as it lives (the next read
then goes into a new buffer); with none alive, a step's school is read into the same buffer.)doc")
        .def(py::init(&construct), py::arg("config") = py::none(), py::arg("backend") = "tbb")
        .def(
            "step", [](PySimulation& self, const py::object& n) { self.step(n); }, py::arg("n") = 1,
            "Runs n steps (0 or more), with the GIL released. RuntimeError when the backend "
            "failed mid-run.")
        .def(
            "record", &record, py::arg("trajectory") = py::none(), py::arg("metrics") = py::none(),
            py::arg("state") = py::none(), py::arg("every") = 1,
            R"doc(Records the school from now on, as fishschool-cli simulate does: a trajectory (.h5
H5MD or .xyz extended XYZ, by its extension), the measures as CSV, the end state as CSV. A frame
and a row now, then every `every` steps; each change of parameters at its step. Every file is
written under a temporary name and put into place by finish_recording(), all or none. OSError
when a path is refused.)doc")
        .def(
            "finish_recording",
            [](PySimulation& self) {
                Simulation& sim = self.get();
                Result<RecordingSummary> done = RecordingSummary{};
                {
                    const py::gil_scoped_release release;
                    done = sim.finishRecording();
                }
                if (!done) raiseError(done.error(), PyExc_OSError);
                return summaryDict(*done);
            },
            "Ends the recording and puts its files into place; returns {frames, rows, "
            "last_frame_step}. OSError when a file could not be written (none is replaced).")
        .def(
            "drop_recording", [](PySimulation& self) { self.get().dropRecording(); },
            "Ends the recording without writing: no file is replaced.")
        .def_property_readonly(
            "recording", [](PySimulation& self) { return self.get().recording(); },
            "Whether a recording runs (record(), TrajectoryWriter).")
        .def_property_readonly(
            "positions", [](PySimulation& self) { return self.view(&Fish::position); },
            "(N, 3) float32, m: a read-only view of the school's buffer (see the class doc).")
        .def_property_readonly(
            "velocities", [](PySimulation& self) { return self.view(&Fish::velocity); },
            "(N, 3) float32, m/s: a read-only view of the school's buffer.")
        .def_property_readonly(
            "accelerations", [](PySimulation& self) { return self.view(&Fish::acceleration); },
            "(N, 3) float32, m/s^2, the last step's: a read-only view of the school's buffer.")
        .def_property_readonly(
            "species", [](PySimulation& self) { return self.speciesOfFish(); },
            "(N,) uint32: each fish's species, the index into params['species'] (0 for all "
            "without species); a read-only view of the school's buffer.")
        .def_property_readonly(
            "kick_clocks",
            [](PySimulation& self) { return kickClockView(self.get().sharedSchool()); },
            "(N,) float32, s: each fish's time to its next kick under steering "
            "burst-and-coast (0: drawn at its next step; 0 under other steerings); a read-only "
            "view of the school's buffer.")
        .def_property_readonly(
            "params", [](PySimulation& self) { return fromJson(self.get().configJson()); },
            "Every config key of the running parameters, as a dict (fishCount is the school's).")
        .def(
            "set_params",
            [](PySimulation& self, const py::kwargs& keys) {
                Simulation& sim = self.get();
                const std::string json = toJson(keys);
                // Read once, as setConfigJson reads it: what is refused is a ValueError, what
                // fails after (the backend) by its kind.
                auto next = withConfigKeys(sim.params(), json);
                if (!next) raiseError(next.error());
                if (auto ok = sim.setParams(*next); !ok) raiseError(ok.error());
            },
            "Replaces the named config keys, e.g. set_params(rCohesion=10, fishCount=500); the "
            "others stay. ValueError naming the key, the value and what is allowed.")
        .def(
            "measures", [](PySimulation& self) { return measuresDict(self.get().measures()); },
            "The school's measures now: {polarization, milling, nearest_neighbor_m, neighbors, "
            "direction_error (NaN: none informed), groups, largest_group_share}, and with species "
            "largest_group_share_by_species, a list in the species' order.")
        .def(
            "save_state",
            [](PySimulation& self, const py::object& path) {
                Simulation& sim = self.get();
                if (auto ok = sim.saveState(pathText(path)); !ok)
                    raiseError(ok.error(), PyExc_OSError);
            },
            py::arg("path"), "Writes the school as a state CSV (docs/config.md, State).")
        .def(
            "load_state",
            [](PySimulation& self, const py::object& path) {
                Simulation& sim = self.get();
                const std::string text = pathText(path);
                requireExistingFile(text);
                if (auto ok = sim.loadState(text); !ok) raiseError(ok.error());
            },
            py::arg("path"),
            "Replaces the school with a state CSV's, checked against the running parameters.")
        .def(
            "save_config",
            [](PySimulation& self, const py::object& path) {
                Simulation& sim = self.get();
                if (auto ok = sim.saveConfig(pathText(path)); !ok)
                    raiseError(ok.error(), PyExc_OSError);
            },
            py::arg("path"), "Writes the running parameters as a config JSON.")
        .def_property(
            "backend", [](PySimulation& self) { return std::string(self.get().backendName()); },
            [](PySimulation& self, const std::string& name) {
                Simulation& sim = self.get();
                checkBackend(name);
                if (auto ok = sim.setBackend(name); !ok) raiseError(ok.error(), PyExc_RuntimeError);
                self.noteThread();
            },
            "\"cpu\", \"tbb\" or \"gpu\"; setting it hands the school to a backend of that kind.")
        .def_property_readonly("fish_count",
                               [](PySimulation& self) { return self.get().fishCount(); })
        .def_static("from_trajectory", &fromTrajectory, py::arg("path"),
                    py::arg("frame") = py::none(), py::arg("backend") = "tbb",
                    "A simulation that goes on from frame `frame` of a trajectory (default the "
                    "last; negative counts from the end), with the file's config at that frame, "
                    "its step count and time: stepping it gives the recorded run's next frames, "
                    "bit for bit.")
        .def("run", &runCollecting, py::arg("steps"), py::arg("every") = 1,
             "Runs `steps` steps and returns the school's measures at the start and after every "
             "`every` steps: {step, time, polarization, milling, ...}, NumPy arrays (a pandas "
             "DataFrame when pandas is installed).")
        .def_property_readonly(
            "kinds",
            [](PySimulation& self) {
                Simulation& sim = self.get();
                const auto kinds = fishKinds(sim.params(), sim.fishCount());
                return arrayOf<std::int32_t>(kinds.size(), [&](std::size_t i) {
                    return static_cast<std::int32_t>(kinds[i]);
                });
            },
            "(N,) int32: each fish's kind, 0 fish, 1 leader, 2 predator (the first `leaders` "
            "lead, the next `predators` hunt).")
        .def_property_readonly(
            "step_count", [](PySimulation& self) { return self.get().stepCount(); },
            "Steps taken since the school was first made (the noise's counter).")
        .def_property_readonly(
            "time", [](PySimulation& self) { return self.get().time(); },
            "Simulated seconds since the school was made, replaced or loaded.")
        .def_property_readonly("closed", &PySimulation::closed)
        .def(
            "reset",
            [](PySimulation& self, const py::object& seed) {
                Simulation& sim = self.get();
                if (auto ok = sim.reset(seed.is_none() ? sim.params().seed : toSeed(seed)); !ok)
                    raiseError(ok.error());
            },
            py::arg("seed") = py::none(),
            "A fresh school of the same size from seed (default: the running seed).")
        .def(
            "set_school",
            [](PySimulation& self, const py::object& positions, const py::object& velocities,
               const py::object& species) {
                Simulation& sim = self.get();
                School school = fishFrom(positions, velocities);
                setSpeciesFrom(school, species, speciesCount(sim.params()));
                if (auto ok = sim.setSchool(school); !ok) raiseError(ok.error());
            },
            py::arg("positions"), py::arg("velocities") = py::none(),
            py::arg("species") = py::none(),
            "Replaces the school: float32 or float64 arrays of shape (N, 3) (velocities zero "
            "when None), and each fish's species, an int array (N,) (all 0 when None); the "
            "species' counts become the fish of each. time starts again from 0.")
        .def(
            "add_fish",
            [](PySimulation& self, const py::object& positions, const py::object& velocities,
               const py::object& species) {
                Simulation& sim = self.get();
                School fish = fishFrom(positions, velocities);
                setSpeciesFrom(fish, species, speciesCount(sim.params()));
                if (auto ok = sim.addFish(fish); !ok) raiseError(ok.error());
            },
            py::arg("positions"), py::arg("velocities") = py::none(),
            py::arg("species") = py::none(),
            "Adds fish at the end of the school: arrays of shape (N, 3), and their species, an "
            "int array (N,) (all 0 when None).")
        .def(
            "remove_fish",
            [](PySimulation& self, const py::object& indices) {
                Simulation& sim = self.get();
                const std::vector<std::size_t> list = indicesFrom(indices);
                if (auto ok = sim.removeFish(list); !ok) raiseError(ok.error());
            },
            py::arg("indices"), "Removes the fish at these indices (each once, in any order).")
        .def("close", &PySimulation::close,
             "Releases the backend; any later call raises RuntimeError. Arrays read before stay "
             "readable (the buffer they view is kept while they live).")
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__",
             [](PySimulation& self, const py::handle&, const py::handle&, const py::handle&) {
                 self.close();
                 return false;
             })
        .def("__repr__", [](PySimulation& self) -> std::string {
            if (self.closed()) return "<fishschool.Simulation (closed)>";
            if (self.stepping()) return "<fishschool.Simulation (stepping)>";
            Simulation& sim = self.get();
            return "<fishschool.Simulation " + std::to_string(sim.fishCount()) + " fish on " +
                   std::string(sim.backendName()) + ", step " + std::to_string(sim.stepCount()) +
                   ">";
        });
}

}  // namespace fishschool::python
