// fishschool.Trajectory and fishschool.TrajectoryWriter (docs/trajectories.md).

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "PySimulation.h"

namespace fishschool::python {
namespace {

/// The Python Trajectory: a TrajectoryReader (fishschool/Trajectory.h), or none once closed.
/// Every call holds the GIL, which keeps the reader to one thread at a time as it asks (a frame
/// of 100,000 fish reads in about 0.5 ms).
class PyTrajectory {
  public:
    explicit PyTrajectory(const py::object& path) {
        const std::string file = pathText(path);
        requireExistingFile(file);
        auto opened = TrajectoryReader::open(file);
        if (!opened) raiseError(opened.error());
        reader_ = std::move(*opened);
        file_ = file;
    }

    /// The config the run started with (`frame` none) or in force at a frame, as Python values;
    /// a file's text that is not a config's JSON is a ValueError naming the file and its object.
    py::object config(const std::optional<std::size_t>& frame) const {
        const TrajectoryReader& reader = get();
        const std::string& json = frame ? reader.configJsonAt(*frame) : reader.configJson();
        return fromJson(json,
                        file_ + (&json == &reader.configJson() ? ": parameters/config"
                                                               : ": parameters/changes/value"));
    }

    TrajectoryReader& get() const {
        if (!reader_) raise(PyExc_RuntimeError, "the trajectory is closed");
        return *reader_;
    }

    bool closed() const { return !reader_; }

    void close() { reader_.reset(); }

    /// Frame `index` (negative: from the end, as a list's) as a frame number; IndexError outside.
    std::size_t frameIndex(const py::handle& index) const {
        const std::int64_t frames = static_cast<std::int64_t>(get().frameCount());
        const std::int64_t k = toInt64(index, "frame");
        if (k < -frames || k >= frames)
            raise(PyExc_IndexError, "frame " + std::to_string(k) +
                                        ": no such frame; the file has " + std::to_string(frames) +
                                        " (0 to " + std::to_string(frames - 1) +
                                        ", or -1 for the last)");
        return static_cast<std::size_t>(k < 0 ? k + frames : k);
    }

    /// (positions, velocities) of a frame: read-only float32 (N, 3) views of one buffer.
    py::tuple frame(const py::handle& index) {
        const std::size_t k = frameIndex(index);
        auto school = std::make_shared<School>();
        if (auto ok = get().readFrame(k, *school); !ok) raiseError(ok.error());
        std::shared_ptr<const School> held = std::move(school);
        return py::make_tuple(fishView(held, &Fish::position), fishView(held, &Fish::velocity));
    }

    /// The kick clocks of a frame: a read-only float32 (N,) view; None in a file without them.
    py::object kickClocks(const py::handle& index) {
        const std::size_t k = frameIndex(index);
        if (!get().hasKickClocks()) return py::none();
        auto school = std::make_shared<School>();
        if (auto ok = get().readFrame(k, *school); !ok) raiseError(ok.error());
        return kickClockView(std::move(school));
    }

  private:
    std::unique_ptr<TrajectoryReader> reader_;
    std::string file_;
};

/// The Python TrajectoryWriter: a recording of a Simulation's school (Simulation::startRecording)
/// whose frames are taken when add_frame() asks, with their measures; the changes of parameters
/// are recorded at their steps, the file written under a temporary name and put into place by
/// close().
class PyTrajectoryWriter {
  public:
    PyTrajectoryWriter(const py::object& path, const py::object& simulation)
        : simulation_(simulation) {
        Simulation& sim = simulation_.cast<PySimulation&>().get();
        RunOutput output;
        output.kind = OutputKind::Trajectory;
        output.path = pathText(path);
        output.every = 0;  // only when add_frame asks
        output.measured = true;
        output.name = "trajectory";
        const std::vector<RunOutput> outputs{output};
        if (auto ok = sim.startRecording(outputs); !ok) raiseError(ok.error(), PyExc_OSError);
        open_ = true;
    }

    Simulation& get() {
        if (!open_) raise(PyExc_RuntimeError, "the trajectory writer is closed");
        Simulation& sim = simulation_.cast<PySimulation&>().get();
        if (!sim.recording()) {
            open_ = false;
            raise(PyExc_RuntimeError, "the trajectory writer is closed: its recording ended");
        }
        return sim;
    }

    bool closed() const { return !open_; }

    std::size_t frameCount() { return get().recordingProgress().frames; }

    /// The simulation's school now as the next frame, with its measures.
    void addFrame(const py::object& simulation) {
        Simulation& sim = get();
        if (!simulation.is(simulation_))
            raise(PyExc_ValueError,
                  "sim: this writer records the Simulation it was made with; give that one");
        const RecordingSummary done = sim.recordingProgress();
        const auto step = static_cast<std::int64_t>(sim.stepCount());
        if (done.frames > 0 && step <= done.lastFrameStep)
            raise(PyExc_ValueError, "step " + std::to_string(step) +
                                        ": the last frame recorded is of step " +
                                        std::to_string(done.lastFrameStep) +
                                        "; frames go forward (step the simulation first)");
        if (auto ok = sim.recordFrame(); !ok) raiseError(ok.error(), PyExc_OSError);
    }

    /// Ends the file and puts it into place; nothing to do once closed.
    void close() {
        if (!open_) return;
        open_ = false;
        auto& owner = simulation_.cast<PySimulation&>();
        if (owner.closed()) return;  // its close() finished the recording
        Simulation& sim = owner.get();
        if (!sim.recording()) return;
        Result<RecordingSummary> ok = RecordingSummary{};
        {
            const py::gil_scoped_release release;
            ok = sim.finishRecording();
        }
        if (!ok) raiseError(ok.error(), PyExc_OSError);
    }

  private:
    py::object simulation_;  ///< the PySimulation recorded, kept alive
    bool open_ = false;
};

py::dict trajectoryMeasures(const TrajectoryMeasures& m) {
    const std::size_t n = m.values.size();
    py::dict d;
    d["step"] = arrayOf<std::int64_t>(n, [&](std::size_t i) { return m.step[i]; });
    d["time"] = arrayOf<double>(n, [&](std::size_t i) { return m.time[i]; });
    for (const SchoolMeasure& measure : kSchoolMeasures)
        d[measure.column] =
            arrayOf<double>(n, [&](std::size_t i) { return m.values[i].*measure.member; });
    return d;
}

}  // namespace

void bindTrajectories(py::module_& m) {
    py::class_<PyTrajectory>(m, "Trajectory", R"doc(
A trajectory file (docs/trajectories.md): an H5MD file that `fishschool-cli simulate --trajectory`
or the app wrote, read frame by frame.

Trajectory(path): ValueError, naming the object, for a file that is not a trajectory or breaks
its layout; FileNotFoundError when there is none. frame(k) returns (positions, velocities) of
frame k, read-only float32 (N, 3) arrays; k may be negative, as a list's index.)doc")
        .def(py::init<const py::object&>(), py::arg("path"))
        .def_property_readonly("frame_count",
                               [](const PyTrajectory& self) { return self.get().frameCount(); })
        .def("__len__", [](const PyTrajectory& self) { return self.get().frameCount(); })
        .def_property_readonly("fish_count",
                               [](const PyTrajectory& self) { return self.get().fishCount(); })
        .def_property_readonly(
            "steps",
            [](const PyTrajectory& self) {
                const TrajectoryReader& r = self.get();
                return arrayOf<std::int64_t>(r.frameCount(),
                                             [&](std::size_t k) { return r.frameStep(k); });
            },
            "The step of each frame: int64 array [frames].")
        .def_property_readonly(
            "times",
            [](const PyTrajectory& self) {
                const TrajectoryReader& r = self.get();
                return arrayOf<double>(r.frameCount(),
                                       [&](std::size_t k) { return r.frameTime(k); });
            },
            "The simulated time of each frame, s: float64 array [frames].")
        .def_property_readonly(
            "missing",
            [](const PyTrajectory& self) -> py::object {
                const TrajectoryReader& r = self.get();
                if (!r.hasMissing()) return py::none();
                py::array_t<bool> out({r.frameCount(), r.fishCount()});
                bool* data = out.mutable_data();
                for (std::size_t f = 0; f < r.frameCount(); ++f) {
                    const auto flags = r.missingAt(f);
                    for (std::size_t i = 0; i < flags.size(); ++i)
                        data[f * r.fishCount() + i] = flags[i] != 0;
                }
                return out;
            },
            "Where a fish was not found (an imported file's, particles/school/missing): bool "
            "array [frames][fish], True where missing (its position and velocity are 0 there); "
            "None for a file without the mask.")
        .def_property_readonly(
            "config", [](const PyTrajectory& self) { return self.config(std::nullopt); },
            "The config the run started with, as a dict (every key of docs/config.md).")
        .def(
            "config_at",
            [](const PyTrajectory& self, const py::object& frame) {
                return self.config(self.frameIndex(frame));
            },
            py::arg("frame"),
            "The config in force at a frame: the last change recorded at or before its step.")
        .def_property_readonly(
            "kinds",
            [](const PyTrajectory& self) {
                const auto kinds = self.get().kinds();
                return arrayOf<std::int32_t>(kinds.size(), [&](std::size_t i) {
                    return static_cast<std::int32_t>(kinds[i]);
                });
            },
            "Each fish's kind: int32 array [fish], 0 fish, 1 leader, 2 predator.")
        .def_property_readonly(
            "measures",
            [](const PyTrajectory& self) { return trajectoryMeasures(self.get().measures()); },
            "The measures recorded: a dict of arrays {step, time, polarization, milling, "
            "nearest_neighbor_m, neighbors, direction_error, groups, largest_group_share, "
            "rotation, "
            "state, ...}: every measure of the school, one "
            "value a time they were taken; NaN for a measure the file lacks.")
        .def("frame", &PyTrajectory::frame, py::arg("k"),
             "(positions, velocities) of frame k: read-only float32 (N, 3) arrays, m and m/s.")
        .def("kick_clocks", &PyTrajectory::kickClocks, py::arg("k"),
             "Each fish's time to its next kick at frame k (steering burst-and-coast, "
             "particles/school/kick_clock): a read-only float32 (N,) array, s; None for a file "
             "without them.")
        .def("close", &PyTrajectory::close, "Closes the file; arrays read before stay readable.")
        .def_property_readonly("closed", &PyTrajectory::closed)
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__",
             [](PyTrajectory& self, const py::handle&, const py::handle&, const py::handle&) {
                 self.close();
                 return false;
             })
        .def("__repr__", [](const PyTrajectory& self) -> std::string {
            if (self.closed()) return "<fishschool.Trajectory (closed)>";
            const TrajectoryReader& r = self.get();
            return "<fishschool.Trajectory " + std::to_string(r.frameCount()) + " frames of " +
                   std::to_string(r.fishCount()) + " fish>";
        });

    m.def(
        "import_tracks",
        [](const py::object& path, const py::object& out, const py::object& pixelsPerMetre,
           const py::object& bodyLengthMetres, const py::object& fps, const py::object& arena,
           const std::string& format) {
            ImportOptions options;
            options.format = format;
            const auto number = [](const py::object& v) -> std::optional<double> {
                if (v.is_none()) return std::nullopt;
                return v.cast<double>();
            };
            options.pixelsPerMetre = number(pixelsPerMetre);
            options.bodyLengthMetres = number(bodyLengthMetres);
            options.fps = number(fps);
            if (!arena.is_none()) {
                const auto t = arena.cast<py::tuple>();
                if (t.size() != 4)
                    throw py::value_error(
                        "arena: a tuple (shape, centre_x, centre_y, radius), shape 'box' or "
                        "'circle'");
                const auto shape = t[0].cast<std::string>();
                if (shape != "box" && shape != "circle")
                    throw py::value_error("arena: the shape is 'box' or 'circle'");
                options.arena.shape =
                    shape == "box" ? ImportArena::Shape::Box : ImportArena::Shape::Circle;
                options.arena.centreX = t[1].cast<double>();
                options.arena.centreY = t[2].cast<double>();
                options.arena.radius = t[3].cast<double>();
            }
            const auto input =
                py::str(py::module_::import("os").attr("fspath")(path)).cast<std::string>();
            const auto output =
                py::str(py::module_::import("os").attr("fspath")(out)).cast<std::string>();
            Result<ImportSummary> summary = [&] {
                py::gil_scoped_release release;
                return importTracks(input, output, options);
            }();
            if (!summary) raiseError(summary.error());
            py::dict d;
            d["format"] = summary->format;
            d["sources"] = summary->sources;
            d["frames"] = summary->frames;
            d["fish"] = summary->fish;
            d["missing"] = summary->missing;
            d["first_frame"] = summary->firstFrame;
            d["fps"] = summary->fps;
            d["pixels_per_metre"] = summary->pixelsPerMetre;
            return d;
        },
        py::arg("path"), py::arg("out"), py::kw_only(), py::arg("pixels_per_metre") = py::none(),
        py::arg("body_length_metres") = py::none(), py::arg("fps") = py::none(),
        py::arg("arena") = py::none(), py::arg("format") = "",
        R"doc(Reads a tracker's file (idtracker.ai's trajectories.npy, TRex's *_fish0.npz or .csv,
a CSV of frame,id,x,y[,z]) and writes it as a trajectory at `out` (docs/data.md). arena:
('box' or 'circle', centre_x, centre_y, radius) in the file's units. Returns what was read:
a dict of format, sources, frames, fish, missing, first_frame, fps, pixels_per_metre.
ValueError names the file and what is wrong.)doc");

    py::class_<PyTrajectoryWriter>(m, "TrajectoryWriter", R"doc(
Records a Simulation to a trajectory file (docs/trajectories.md), frame by frame.

TrajectoryWriter(path, sim): the file's config and fish count are the simulation's now. Each
add_frame(sim) records its school and its measures at sim.step_count and sim.time; a change of
parameters since the last frame is recorded with it. close(), or the end of a with block (an
exception included), ends the file and puts it at `path`; until then `path` is unchanged (the
file is written under a temporary name beside it).)doc")
        .def(py::init<const py::object&, const py::object&>(), py::arg("path"), py::arg("sim"))
        .def("add_frame", &PyTrajectoryWriter::addFrame, py::arg("sim"),
             "Records the simulation's school now as the next frame, with its measures.")
        .def_property_readonly("frame_count", &PyTrajectoryWriter::frameCount)
        .def("close", &PyTrajectoryWriter::close,
             "Ends the file and puts it into place. OSError when the disk failed.")
        .def_property_readonly("closed", &PyTrajectoryWriter::closed)
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__",
             [](PyTrajectoryWriter& self, const py::handle&, const py::handle&, const py::handle&) {
                 self.close();
                 return false;
             });
}

}  // namespace fishschool::python
