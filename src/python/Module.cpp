// `import fishschool`: the public API (include/fishschool/Simulation.h, Trajectory.h) for Python,
// with NumPy views of the school and of a trajectory's frames (docs/python.md). Every error of the
// library becomes a Python exception: ValueError for bad input (the library's message names the
// key, the value and what is allowed), TypeError for a wrong type, RuntimeError where the machine
// failed (a GPU that cannot run the school) or the simulation is closed or busy, OSError for files
// that cannot be written or read.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/BackendRegistry.h"
#include "fishschool/Trajectory.h"
#include "fishschool/fishschool.h"
#include "io/ConfigIO.h"
#include "io/OutputFiles.h"

namespace py = pybind11;

namespace fishschool::python {
namespace {

static_assert(sizeof(Fish) == 40 && std::is_standard_layout_v<Fish>,
              "the NumPy views assume 9 packed floats and a species index a fish");
constexpr py::ssize_t kFishStride = sizeof(Fish);

// ---- errors ----------------------------------------------------------------------------------

[[noreturn]] void raise(PyObject* type, const std::string& message) {
    PyErr_SetString(type, message.c_str());
    throw py::error_already_set();
}

/// A message of the library about the machine rather than the input: the GPU backend's (its
/// limits, its memory, its context) start so.
bool isMachineFailure(std::string_view message) {
    return message.starts_with("gpu") || message.starts_with("GL ");
}

/// The error of a call given user input: ValueError, or RuntimeError when the machine failed.
[[noreturn]] void raiseInputError(const std::string& message) {
    raise(isMachineFailure(message) ? PyExc_RuntimeError : PyExc_ValueError, message);
}

/// FileNotFoundError, as open() raises it, for a file to read that is not there.
void requireExistingFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) return;
    const py::object error = py::reinterpret_borrow<py::object>(PyExc_FileNotFoundError)(
        ENOENT, "No such file or directory", path);
    PyErr_SetObject(PyExc_FileNotFoundError, error.ptr());
    throw py::error_already_set();
}

std::string pathText(const py::handle& path) {
    const py::object fspath = py::module_::import("os").attr("fspath");
    const py::object text = fspath(path);
    if (!py::isinstance<py::str>(text))
        raise(PyExc_TypeError, "path: must be a str or os.PathLike of str, got bytes");
    std::string chars = text.cast<std::string>();
    // As open() refuses it: the C library would read the path up to the NUL, another file.
    if (chars.find('\0') != std::string::npos) raise(PyExc_ValueError, "path: embedded null byte");
    return chars;
}

std::string text(const py::handle& object) {
    return py::str(object).cast<std::string>();
}

std::string typeName(const py::handle& object) {
    return py::str(py::type::handle_of(object).attr("__name__")).cast<std::string>();
}

// ---- JSON ------------------------------------------------------------------------------------

/// `json.dumps` of config keys, with NumPy scalars and arrays as their Python values; NaN and the
/// infinities are refused (JSON has none) with a ValueError.
std::string toJson(const py::handle& object) {
    const py::object json = py::module_::import("json");
    const py::cpp_function plain([](const py::handle& value) -> py::object {
        if (py::hasattr(value, "tolist")) return value.attr("tolist")();
        raise(PyExc_TypeError, "config: a value of type " + typeName(value) +
                                   " is not allowed; must be a number, a bool, a str, a list "
                                   "or a dict");
    });
    return json.attr("dumps")(object, py::arg("allow_nan") = false, py::arg("default") = plain)
        .cast<std::string>();
}

py::object fromJson(const std::string& text) {
    return py::module_::import("json").attr("loads")(text);
}

// ---- whole numbers ---------------------------------------------------------------------------

/// A Python int (or anything with __index__) as a signed 64-bit number; TypeError otherwise.
std::int64_t toInt64(const py::handle& value, const char* name) {
    if (py::isinstance<py::bool_>(value) || !PyIndex_Check(value.ptr()))
        raise(PyExc_TypeError,
              std::string(name) + ": must be a whole number (int), got " + typeName(value));
    const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
    if (!index) throw py::error_already_set();
    int overflow = 0;
    const long long number = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow != 0)
        raise(PyExc_ValueError, std::string(name) + ": " + text(index) +
                                    " is not allowed; must be from -2^63 to 2^63 - 1");
    if (number == -1 && PyErr_Occurred()) throw py::error_already_set();
    return number;
}

std::uint64_t toSeed(const py::handle& value) {
    if (py::isinstance<py::bool_>(value) || !PyIndex_Check(value.ptr()))
        raise(PyExc_TypeError, "seed: must be a whole number (int), got " + typeName(value));
    const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
    if (!index) throw py::error_already_set();
    const unsigned long long seed = PyLong_AsUnsignedLongLong(index.ptr());
    if (seed == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        raise(PyExc_ValueError,
              "seed: " + text(index) + " is not allowed; must be from 0 to 18446744073709551615");
    }
    return seed;
}

// ---- arrays of fish --------------------------------------------------------------------------

/// `value` as an (N, 3) array of float32 or float64; TypeError for another dtype, ValueError for
/// another shape.
py::array vectorArray(const py::handle& value, const char* name) {
    const py::array array = py::module_::import("numpy").attr("asarray")(value);
    const py::dtype dtype = array.dtype();
    if (dtype.kind() != 'f' || (dtype.itemsize() != 4 && dtype.itemsize() != 8))
        raise(PyExc_TypeError, std::string(name) + ": dtype " + text(dtype) +
                                   " is not allowed; must be float32 or float64");
    if (array.ndim() != 2 || array.shape(1) != 3)
        raise(PyExc_ValueError, std::string(name) + ": shape " + text(array.attr("shape")) +
                                    " is not allowed; must be (N, 3)");
    return array;
}

template <class T>
void copyVectors(const py::array& array, std::vector<Fish>& fish, glm::vec3 Fish::*member) {
    const auto typed = py::array_t<T>::ensure(array);
    if (!typed) throw py::error_already_set();
    const auto view = typed.template unchecked<2>();
    for (py::ssize_t i = 0; i < view.shape(0); ++i)
        fish[static_cast<std::size_t>(i)].*member = {static_cast<float>(view(i, 0)),
                                                     static_cast<float>(view(i, 1)),
                                                     static_cast<float>(view(i, 2))};
}

void copyVectors(const py::array& array, std::vector<Fish>& fish, glm::vec3 Fish::*member) {
    if (array.dtype().itemsize() == 4)
        copyVectors<float>(array, fish, member);
    else
        copyVectors<double>(array, fish, member);
}

/// Fish from positions and velocities (zero velocities when None); accelerations are zero.
School fishFrom(const py::handle& positions, const py::handle& velocities) {
    const py::array p = vectorArray(positions, "positions");
    School fish(static_cast<std::size_t>(p.shape(0)));
    copyVectors(p, fish, &Fish::position);
    if (!velocities.is_none()) {
        const py::array v = vectorArray(velocities, "velocities");
        if (v.shape(0) != p.shape(0))
            raise(PyExc_ValueError, "velocities: " + std::to_string(v.shape(0)) +
                                        " rows is not allowed; must be as many as positions (" +
                                        std::to_string(p.shape(0)) + ")");
        copyVectors(v, fish, &Fish::velocity);
    }
    return fish;
}

/// Gives `fish` the species of `species` (None: keep 0): whole numbers, one a fish, each below the
/// config's count of species `kinds` (1 without species).
void setSpeciesFrom(School& fish, const py::handle& species, std::size_t kinds) {
    if (species.is_none()) return;
    const py::module_ numpy = py::module_::import("numpy");
    const py::array array = numpy.attr("asarray")(species);
    const char kind = array.dtype().kind();
    if (array.size() > 0 && kind != 'i' && kind != 'u')
        raise(PyExc_TypeError, "species: dtype " + text(array.dtype()) +
                                   " is not allowed; must be whole numbers (int)");
    if (array.ndim() != 1 || static_cast<std::size_t>(array.size()) != fish.size())
        raise(PyExc_ValueError, "species: shape " + text(array.attr("shape")) +
                                    " is not allowed; must be (" + std::to_string(fish.size()) +
                                    ",), one a fish");
    const auto typed = py::array_t<std::int64_t>::ensure(array);
    if (!typed) throw py::error_already_set();
    const auto view = typed.unchecked<1>();
    for (py::ssize_t i = 0; i < view.shape(0); ++i) {
        if (view(i) < 0 || static_cast<std::uint64_t>(view(i)) >= kinds)
            raise(PyExc_ValueError, "species: " + std::to_string(view(i)) + " (fish " +
                                        std::to_string(i) + ") is not allowed; must be from 0 to " +
                                        std::to_string(kinds - 1) +
                                        ", an index into "
                                        "params['species']");
        fish[static_cast<std::size_t>(i)].species = static_cast<std::uint32_t>(view(i));
    }
}

std::vector<std::size_t> indicesFrom(const py::handle& value) {
    const py::module_ numpy = py::module_::import("numpy");
    const py::array array = numpy.attr("asarray")(value);
    if (array.size() == 0) return {};
    const char kind = array.dtype().kind();
    if (kind != 'i' && kind != 'u')
        raise(PyExc_TypeError, "indices: dtype " + text(array.dtype()) +
                                   " is not allowed; must be whole numbers (int)");
    if (array.ndim() > 1)
        raise(PyExc_ValueError, "indices: shape " + text(array.attr("shape")) +
                                    " is not allowed; must be one index or a list of them");
    std::vector<std::size_t> indices;
    indices.reserve(static_cast<std::size_t>(array.size()));
    if (kind == 'u') {
        const auto typed = py::array_t<std::uint64_t>::ensure(array.attr("ravel")());
        if (!typed) throw py::error_already_set();
        const auto view = typed.unchecked<1>();
        for (py::ssize_t i = 0; i < view.shape(0); ++i)
            indices.push_back(static_cast<std::size_t>(view(i)));
    } else {
        const auto typed = py::array_t<std::int64_t>::ensure(array.attr("ravel")());
        if (!typed) throw py::error_already_set();
        const auto view = typed.unchecked<1>();
        for (py::ssize_t i = 0; i < view.shape(0); ++i) {
            if (view(i) < 0)
                raise(PyExc_ValueError, "fish " + std::to_string(view(i)) +
                                            ": no such fish; indices must be 0 or more");
            indices.push_back(static_cast<std::size_t>(view(i)));
        }
    }
    return indices;
}

/// An (N, 3) float32 read-only view of one vector of every fish of `school`, no copy: its base
/// holds the school, which then lives as long as the array.
py::array fishView(std::shared_ptr<const School> school, glm::vec3 Fish::*member) {
    const auto n = static_cast<py::ssize_t>(school->size());
    if (n == 0) {
        py::array empty(py::dtype::of<float>(), {py::ssize_t{0}, py::ssize_t{3}});
        py::detail::array_proxy(empty.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
        return empty;
    }
    const float* first = &(school->front().*member).x;
    py::capsule holder(new std::shared_ptr<const School>(std::move(school)), [](void* held) {
        delete static_cast<std::shared_ptr<const School>*>(held);
    });
    py::array array(py::dtype::of<float>(), {n, py::ssize_t{3}},
                    {kFishStride, static_cast<py::ssize_t>(sizeof(float))}, first, holder);
    py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return array;
}

/// An (N,) uint32 read-only view of the species of every fish of `school`, no copy.
py::array speciesView(std::shared_ptr<const School> school) {
    const auto n = static_cast<py::ssize_t>(school->size());
    const std::uint32_t* first = n == 0 ? nullptr : &school->front().species;
    py::array array;
    if (n == 0) {
        array = py::array(py::dtype::of<std::uint32_t>(), std::vector<py::ssize_t>{0});
    } else {
        py::capsule holder(new std::shared_ptr<const School>(std::move(school)), [](void* held) {
            delete static_cast<std::shared_ptr<const School>*>(held);
        });
        array = py::array(py::dtype::of<std::uint32_t>(), {n}, {kFishStride}, first, holder);
    }
    py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return array;
}

// ---- the simulation --------------------------------------------------------------------------

BackendKind backendKind(std::string_view name) {
    auto kind = parseBackendFlag("backend", name);
    if (!kind) raise(PyExc_ValueError, kind.error());
    return *kind;
}

/// The Python Simulation: a fishschool::Simulation, or none once closed.
class PySimulation {
  public:
    explicit PySimulation(Simulation simulation) : sim_(std::move(simulation)) { noteThread(); }

    /// The simulation for a call, or RuntimeError: closed, stepping in another thread, or a gpu
    /// simulation called from another thread than its GL context's.
    Simulation& get() {
        if (!sim_) raise(PyExc_RuntimeError, "the simulation is closed");
        if (stepping_)
            raise(PyExc_RuntimeError,
                  "the simulation is busy: step() is running on another thread");
        if (glThread_ && *glThread_ != std::this_thread::get_id())
            raise(PyExc_RuntimeError,
                  "this simulation runs on the gpu backend, whose GL context belongs to the "
                  "thread that made it: call it from that thread");
        return *sim_;
    }

    bool closed() const { return !sim_; }

    void step(const py::handle& count) {
        Simulation& sim = get();
        const std::int64_t n = toInt64(count, "n");
        if (n < 0) {
            auto refused = sim.step(n);  // the library's message
            raiseInputError(refused ? "n: must be 0 or more" : refused.error());
        }
        // Stepped in chunks that grow while they take under 50 ms, the GIL released during each,
        // so that Ctrl-C (a signal, handled between chunks) stops a long run.
        stepping_ = true;
        struct Done {
            bool& flag;
            ~Done() { flag = false; }
        } done{stepping_};
        std::int64_t left = n;
        std::int64_t chunk = 1;
        while (left > 0) {
            const std::int64_t k = std::min(chunk, left);
            const auto start = std::chrono::steady_clock::now();
            Result<void> ok;
            const bool recording = sim.recording();
            {
                const py::gil_scoped_release release;
                ok = sim.step(k);
            }
            // A recording that could not write (a full disk) was dropped: the file's error.
            if (!ok)
                raise(recording && !sim.recording() ? PyExc_OSError : PyExc_RuntimeError,
                      ok.error());
            left -= k;
            if (left == 0) break;
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
            if (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(50) &&
                chunk < (std::int64_t{1} << 40))
                chunk *= 2;
        }
    }

    /// An (N, 3) float32 view of one vector of every fish in the school's buffer: no copy, read
    /// only. Its base holds the buffer (Simulation::sharedSchool), which then stays as it was
    /// read whatever the simulation does next, closed or stepped or resized.
    py::array view(glm::vec3 Fish::*member) {
        auto school = get().sharedSchool();
        return fishView(std::move(school), member);
    }

    /// The species of every fish: an (N,) uint32 view of the same buffer.
    py::array speciesOfFish() { return speciesView(get().sharedSchool()); }

    /// Releases the backend (a GPU's memory and context go now); arrays read before keep the
    /// buffers they view.
    void close() {
        if (!sim_) return;
        (void)get();  // not while another thread steps
        // A recording still running keeps what it recorded, as the end of a with block does.
        Result<RecordingSummary> recorded = RecordingSummary{};
        if (sim_->recording()) recorded = sim_->finishRecording();
        sim_.reset();
        glThread_.reset();
        if (!recorded) raise(PyExc_OSError, recorded.error());
    }

    /// Where the backend changed: a gpu one belongs to this thread.
    void noteThread() {
        if (sim_ && sim_->backendName() == "gpu")
            glThread_ = std::this_thread::get_id();
        else
            glThread_.reset();
    }

    bool stepping() const { return stepping_; }

  private:
    std::optional<Simulation> sim_;
    bool stepping_ = false;
    std::optional<std::thread::id> glThread_;
};

/// A simulation from parameters already read, on a backend already named: what fails now is
/// the machine (RuntimeError).
Simulation makeSimulation(const SimParams& params, std::string_view backend) {
    auto made = Simulation::create(params, backend);
    if (!made) raise(PyExc_RuntimeError, made.error());
    return std::move(*made);
}

SimParams parseOrRaise(const std::string& json, std::string_view source) {
    auto params = parseConfig(json, source);
    if (!params) raise(PyExc_ValueError, params.error());
    return std::move(*params);
}

/// Simulation(config=None, backend="cpu", **keys).
PySimulation construct(const py::object& config, const std::string& backend,
                       const py::kwargs& keys) {
    (void)backendKind(backend);  // a bad name is a ValueError before anything is read
    SimParams base;
    if (config.is_none()) {
    } else if (py::isinstance(config, py::module_::import("collections.abc").attr("Mapping"))) {
        base = parseOrRaise(toJson(py::dict(config)), "config");
    } else if (py::isinstance<py::str>(config) || py::hasattr(config, "__fspath__")) {
        const std::string path = pathText(config);
        requireExistingFile(path);
        auto params = loadConfig(path);
        if (!params) raise(PyExc_ValueError, params.error());
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
    if (!params) raise(PyExc_ValueError, params.error());
    return PySimulation(makeSimulation(*params, backend));
}

py::dict measuresDict(const SchoolMetrics& m) {
    py::dict d;
    for (const SchoolMeasure& measure : kSchoolMeasures) d[measure.column] = m.*measure.member;
    if (!m.largestGroupShareBySpecies.empty())
        d["largest_group_share_by_species"] = m.largestGroupShareBySpecies;
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
    if (!measured) raise(PyExc_ValueError, measured.error());
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
    if (auto ok = sim.startRecording(outputs); !ok) raise(PyExc_OSError, ok.error());
}

py::dict summaryDict(const RecordingSummary& summary) {
    py::dict d;
    d["frames"] = summary.frames;
    d["rows"] = summary.rows;
    d["last_frame_step"] = summary.lastFrameStep;
    return d;
}

/// fishschool.run_ensemble: the library's runEnsembleFile with the GIL released while it runs;
/// `progress(done, total, failed)` is called with the GIL taken, after each run.
py::dict runEnsemble(const py::handle& file, const py::handle& out, const py::handle& jobs,
                     const py::object& shard, const py::object& only, bool retryFailed,
                     const py::object& progress) {
    EnsembleRunOptions options;
    const std::int64_t jobCount = toInt64(jobs, "jobs");
    if (jobCount < 0 || jobCount > 1024)
        raise(PyExc_ValueError, "jobs: " + std::to_string(jobCount) +
                                    " is not allowed; must be 0 (one per CPU thread) to 1024");
    options.jobs = static_cast<std::size_t>(jobCount);
    if (!shard.is_none()) {
        const auto pair = shard.cast<py::tuple>();
        if (pair.size() != 2) raise(PyExc_ValueError, "shard: must be a pair (K, N)");
        options.shardIndex = toInt64(pair[0], "shard");
        options.shardCount = toInt64(pair[1], "shard");
    }
    if (!only.is_none())
        for (const py::handle& run : only) options.only.push_back(toInt64(run, "only"));
    options.retryFailed = retryFailed;
    std::optional<py::error_already_set> callbackError;
    if (!progress.is_none()) {
        if (!PyCallable_Check(progress.ptr())) raise(PyExc_TypeError, "progress: must be callable");
        options.onProgress = [&](const EnsembleProgress& now) {
            const py::gil_scoped_acquire gil;
            if (callbackError) return;
            try {
                progress(now.done, now.total, now.failed);
            } catch (py::error_already_set& error) {
                callbackError = std::move(error);  // raised once the runs are done
            }
        };
    }
    const std::string filePath = pathText(file), outPath = pathText(out);
    std::expected<EnsembleOutcome, EnsembleFailure> outcome;
    {
        const py::gil_scoped_release release;
        outcome = runEnsembleFile(filePath, outPath, options);
    }
    if (callbackError) throw *callbackError;
    if (!outcome)
        raise(outcome.error().badInput ? PyExc_ValueError : PyExc_RuntimeError,
              outcome.error().message);
    py::dict result;
    result["total"] = outcome->total;
    result["ran"] = outcome->ran;
    result["failed"] = outcome->failed;
    return result;
}

// ---- trajectories ----------------------------------------------------------------------------

/// The Python Trajectory: a TrajectoryReader (fishschool/Trajectory.h), or none once closed.
/// Every call holds the GIL, which keeps the reader to one thread at a time as it asks (a frame
/// of 100,000 fish reads in about 0.5 ms).
class PyTrajectory {
  public:
    explicit PyTrajectory(const py::object& path) {
        const std::string file = pathText(path);
        requireExistingFile(file);
        auto opened = TrajectoryReader::open(file);
        if (!opened) raise(PyExc_ValueError, opened.error());
        reader_ = std::move(*opened);
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
        if (auto ok = get().readFrame(k, *school); !ok) raise(PyExc_ValueError, ok.error());
        std::shared_ptr<const School> held = std::move(school);
        return py::make_tuple(fishView(held, &Fish::position), fishView(held, &Fish::velocity));
    }

  private:
    std::unique_ptr<TrajectoryReader> reader_;
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
        if (auto ok = sim.startRecording(outputs); !ok) raise(PyExc_OSError, ok.error());
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
        if (auto ok = sim.recordFrame(); !ok) raise(PyExc_OSError, ok.error());
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
        if (!ok) raise(PyExc_OSError, ok.error());
    }

  private:
    py::object simulation_;  ///< the PySimulation recorded, kept alive
    bool open_ = false;
};

template <class T, class Value>
py::array_t<T> arrayOf(std::size_t n, Value&& value) {
    py::array_t<T> array(static_cast<py::ssize_t>(n));
    auto out = array.template mutable_unchecked<1>();
    for (std::size_t i = 0; i < n; ++i) out(static_cast<py::ssize_t>(i)) = value(i);
    return array;
}

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
}  // namespace fishschool::python

PYBIND11_MODULE(fishschool, m) {
    using namespace fishschool;
    using namespace fishschool::python;

    m.doc() = "FishSchool: a fish-school simulator (docs/python.md).";
    m.attr("__version__") = std::string(version());

    m.def(
        "backends",
        [] {
            py::list list;
            for (const BackendInfo& info : backends()) {
                py::dict d;
                d["name"] = info.name;
                d["label"] = info.label;
                d["built"] = info.built;
                list.append(d);
            }
            return list;
        },
        "Every kind of backend: a list of dicts {name, label, built}.");
    m.def(
        "run_ensemble", &runEnsemble, py::arg("file"), py::arg("out"), py::arg("jobs") = 0,
        py::arg("shard") = py::none(), py::arg("only") = py::none(),
        py::arg("retry_failed") = false, py::arg("progress") = py::none(),
        R"doc(Runs an ensemble file's runs (docs/ensembles.md) into the folder `out`, or resumes them
there, as `fishschool-cli ensemble run FILE --out OUT` does. jobs: runs at once (0: one per CPU
thread); shard: (K, N), the runs whose index % N is K; only: a list of run indices to run (again);
progress(done, total, failed) is called after each run. Returns {total, ran, failed}. ValueError
when the file, the folder or an option is refused, RuntimeError when the machine failed.)doc");
    m.def("measure", &measureOf, py::arg("positions"), py::arg("velocities"),
          py::arg("rCohesion") = SimParams{}.rCohesion, py::arg("groupDistance") = 0.0,
          py::arg("box") = py::none(),
          R"doc(The measures of any school, without a simulation: positions and velocities are
(N, 3) float arrays (m, m/s), e.g. a tracked school's frame. rCohesion: the radius within which a
fish counts as a neighbour; groupDistance: the distance that links fish into one group (0:
rCohesion); box: a periodic box's three edges, centred on the origin, or None for open water.
Returns the dict Simulation.measures() returns. ValueError names what is wrong.)doc");
    m.def(
        "default_params", [] { return fromJson(configToJson(SimParams{})); },
        "Every config key with its default value (docs/config.md), as a dict.");

    py::class_<PySimulation>(m, "Simulation", R"doc(
One school and the backend that steps it.

Simulation(config=None, backend="cpu", **keys): config is a path to a config JSON or a dict of
config keys (docs/config.md); keyword arguments are config keys that override it, e.g.
Simulation("school.json", fishCount=500, seed=3). backend is "cpu", "tbb" or "gpu".

positions, velocities and accelerations are read-only float32 (N, 3) NumPy arrays that view the
simulation's buffer of the school without a copy: each access returns the current school. An
array read earlier keeps the school it viewed, unchanged, for as long as it lives (the next read
then goes into a new buffer); with none alive, a step's school is read into the same buffer.)doc")
        .def(py::init(&construct), py::arg("config") = py::none(), py::arg("backend") = "cpu")
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
                if (!done) raise(PyExc_OSError, done.error());
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
            "params", [](PySimulation& self) { return fromJson(self.get().configJson()); },
            "Every config key of the running parameters, as a dict (fishCount is the school's).")
        .def(
            "set_params",
            [](PySimulation& self, const py::kwargs& keys) {
                Simulation& sim = self.get();
                const std::string json = toJson(keys);
                // Checked first as the library checks it, so that what is refused is a
                // ValueError and what fails after (the backend) a RuntimeError.
                if (auto next = withConfigKeys(sim.params(), json); !next)
                    raise(PyExc_ValueError, next.error());
                if (auto ok = sim.setConfigJson(json); !ok) raiseInputError(ok.error());
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
                if (auto ok = sim.saveState(pathText(path)); !ok) raise(PyExc_OSError, ok.error());
            },
            py::arg("path"), "Writes the school as a state CSV (docs/config.md, State).")
        .def(
            "load_state",
            [](PySimulation& self, const py::object& path) {
                Simulation& sim = self.get();
                const std::string text = pathText(path);
                requireExistingFile(text);
                if (auto ok = sim.loadState(text); !ok) raiseInputError(ok.error());
            },
            py::arg("path"),
            "Replaces the school with a state CSV's, checked against the running parameters.")
        .def(
            "save_config",
            [](PySimulation& self, const py::object& path) {
                Simulation& sim = self.get();
                if (auto ok = sim.saveConfig(pathText(path)); !ok) raise(PyExc_OSError, ok.error());
            },
            py::arg("path"), "Writes the running parameters as a config JSON.")
        .def_property(
            "backend", [](PySimulation& self) { return std::string(self.get().backendName()); },
            [](PySimulation& self, const std::string& name) {
                Simulation& sim = self.get();
                (void)backendKind(name);
                if (auto ok = sim.setBackend(name); !ok) raise(PyExc_RuntimeError, ok.error());
                self.noteThread();
            },
            "\"cpu\", \"tbb\" or \"gpu\"; setting it hands the school to a backend of that kind.")
        .def_property_readonly("fish_count",
                               [](PySimulation& self) { return self.get().fishCount(); })
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
                    raise(PyExc_ValueError, ok.error());
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
                if (auto ok = sim.setSchool(school); !ok) raiseInputError(ok.error());
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
                if (auto ok = sim.addFish(fish); !ok) raiseInputError(ok.error());
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
                if (auto ok = sim.removeFish(list); !ok) raiseInputError(ok.error());
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
            "config", [](const PyTrajectory& self) { return fromJson(self.get().configJson()); },
            "The config the run started with, as a dict (every key of docs/config.md).")
        .def(
            "config_at",
            [](const PyTrajectory& self, const py::object& frame) {
                return fromJson(self.get().configJsonAt(self.frameIndex(frame)));
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
            "nearest_neighbor_m, neighbors, direction_error, groups, largest_group_share}, one "
            "value a time they were taken; NaN for a measure the file lacks.")
        .def("frame", &PyTrajectory::frame, py::arg("k"),
             "(positions, velocities) of frame k: read-only float32 (N, 3) arrays, m and m/s.")
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
