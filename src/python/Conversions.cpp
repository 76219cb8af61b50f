#include "Conversions.h"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>

namespace fishschool::python {

static_assert(sizeof(Fish) == 44 && std::is_standard_layout_v<Fish>,
              "the NumPy views assume 9 packed floats, a species index and a kick clock a fish");

// ---- errors ----------------------------------------------------------------------------------

[[noreturn]] void raise(PyObject* type, const std::string& message) {
    PyErr_SetString(type, message.c_str());
    throw py::error_already_set();
}

/// The one place an error of the library becomes a Python exception, by its kind: bad input is
/// ValueError (or `badInputAs`: OSError for a path a call writes, as open() raises it; RuntimeError
/// where no input was given), a file or the system OSError, the program or the device RuntimeError.
[[noreturn]] void raiseError(const Error& error, PyObject* badInputAs) {
    switch (error.kind()) {
        case ErrorKind::BadInput:
            raise(badInputAs, error);
        case ErrorKind::System:
            raise(PyExc_OSError, error);
        case ErrorKind::Internal:
            break;
    }
    raise(PyExc_RuntimeError, error);
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

namespace {

/// As the library reads a config's text (io/JsonText.h): deeper is refused there too.
constexpr int kMaxJsonDepth = 16;

/// `value`, the config key `key` ("dt", "bounds[1]", "species[0].maxVelocity"), appended to `out`
/// as JSON at nesting `depth` (the keys' object is 1).
void appendJson(std::string& out, const py::handle& value, const std::string& key, int depth) {
    const auto refuse = [&](PyObject* type, const std::string& why) {
        raise(type, "config: key '" + key + "': " + why);
    };
    if (value.is_none()) {
        out += "null";
    } else if (py::isinstance<py::bool_>(value)) {
        out += value.ptr() == Py_True ? "true" : "false";
    } else if (py::isinstance<py::int_>(value)) {
        out += text(py::int_(py::reinterpret_borrow<py::object>(value)));
    } else if (py::isinstance<py::float_>(value)) {
        const double number = value.cast<double>();
        if (!std::isfinite(number))
            refuse(PyExc_ValueError, text(py::float_(number)) +
                                         " is not allowed; a config's numbers are finite (JSON "
                                         "has no NaN or infinity)");
        out += py::repr(py::float_(number)).cast<std::string>();  // as json.dumps writes it
    } else if (py::isinstance<py::str>(value)) {
        out += py::module_::import("json").attr("dumps")(value).cast<std::string>();
    } else if (py::isinstance<py::dict>(value) || py::isinstance<py::list>(value) ||
               py::isinstance<py::tuple>(value)) {
        if (depth >= kMaxJsonDepth)
            refuse(PyExc_ValueError, "arrays and objects nest more than " +
                                         std::to_string(kMaxJsonDepth) +
                                         " deep; a config nests 4 deep at most (rocks[0].center)");
        if (py::isinstance<py::dict>(value)) {
            out += '{';
            bool first = true;
            for (const auto& [name, item] : py::reinterpret_borrow<py::dict>(value)) {
                if (!py::isinstance<py::str>(name))
                    refuse(PyExc_TypeError,
                           "a key of type " + typeName(name) + " is not allowed; keys must be str");
                if (!first) out += ',';
                first = false;
                appendJson(out, name, key, depth + 1);
                out += ':';
                appendJson(out, item, key + "." + text(name), depth + 1);
            }
            out += '}';
        } else {
            out += '[';
            const py::sequence items = py::reinterpret_borrow<py::sequence>(value);
            for (std::size_t i = 0; i < items.size(); ++i) {
                if (i > 0) out += ',';
                appendJson(out, items[i], key + "[" + std::to_string(i) + "]", depth + 1);
            }
            out += ']';
        }
    } else if (py::hasattr(value, "tolist")) {
        // NumPy scalars and arrays, as their Python values.
        appendJson(out, value.attr("tolist")(), key, depth);
    } else {
        refuse(PyExc_TypeError, "a value of type " + typeName(value) +
                                    " is not allowed; must be a number, a bool, a str, a list or "
                                    "a dict");
    }
}

}  // namespace

/// Config keys (a dict whose keys are str) as JSON, with NumPy scalars and arrays as their Python
/// values; what JSON or a config cannot hold (NaN, the infinities, another type, a key not a str,
/// nesting deeper than a config's 16) is refused with an error naming the key.
std::string configKeyOf(const std::string& name) {
    std::string key;
    key.reserve(name.size());
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '_' && i > 0 && i + 1 < name.size() && name[i + 1] != '_') {
            key += static_cast<char>(std::toupper(static_cast<unsigned char>(name[++i])));
            continue;
        }
        key += name[i];
    }
    return key;
}

std::string toJson(const py::handle& keys) {
    std::string out = "{";
    bool first = true;
    for (const auto& [name, value] : py::reinterpret_borrow<py::dict>(keys)) {
        if (!py::isinstance<py::str>(name))
            raise(PyExc_TypeError, "config: a key of type " + typeName(name) + " (" +
                                       text(py::repr(name)) + ") is not allowed; keys must be str");
        if (!first) out += ',';
        first = false;
        // snake_case as Python writes names (fish_count) is the config's camelCase (fishCount).
        const std::string key = configKeyOf(name.cast<std::string>());
        appendJson(out, py::str(key), "", 1);
        out += ':';
        appendJson(out, value, key, 1);
    }
    return out + "}";
}

py::object fromJson(const std::string& text) {
    return py::module_::import("json").attr("loads")(text);
}

py::object fromJson(const std::string& json, const std::string& source) {
    // Nesting a config never has is refused before json.loads, which would recurse into it.
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if ((c == '[' || c == '{') && ++depth > kMaxJsonDepth) {
            raise(PyExc_ValueError, source + ": arrays and objects nest more than " +
                                        std::to_string(kMaxJsonDepth) +
                                        " deep; a config nests 4 deep at most (rocks[0].center)");
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    try {
        return fromJson(json);
    } catch (py::error_already_set& error) {
        if (!error.matches(PyExc_ValueError) && !error.matches(PyExc_RecursionError)) throw;
        raise(PyExc_ValueError, source + ": not a config's JSON: " + text(error.value()));
    }
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

namespace {

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

}  // namespace

/// Fish from positions and velocities (zero velocities when None); accelerations are zero.
School fishFrom(const py::handle& positions, const py::handle& velocities) {
    const py::array p = vectorArray(positions, "positions");
    // Before a fish is made: a view of many rows costs NumPy nothing (np.broadcast_to).
    if (p.shape(0) > kMaxFishCount)
        raise(PyExc_ValueError, "positions: " + std::to_string(p.shape(0)) +
                                    " rows is not allowed; a school holds at most " +
                                    std::to_string(kMaxFishCount) + " fish");
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
    if (array.size() > kMaxFishCount)
        raise(PyExc_ValueError, "indices: " + std::to_string(array.size()) +
                                    " is not allowed; a school holds at most " +
                                    std::to_string(kMaxFishCount) +
                                    " fish, each named once at most");
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

py::array kickClockView(std::shared_ptr<const School> school) {
    const auto n = static_cast<py::ssize_t>(school->size());
    const float* first = n == 0 ? nullptr : &school->front().kickClock;
    py::array array;
    if (n == 0) {
        array = py::array(py::dtype::of<float>(), std::vector<py::ssize_t>{0});
    } else {
        py::capsule holder(new std::shared_ptr<const School>(std::move(school)), [](void* held) {
            delete static_cast<std::shared_ptr<const School>*>(held);
        });
        array = py::array(py::dtype::of<float>(), {n}, {kFishStride}, first, holder);
    }
    py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return array;
}

py::dict measuresDict(const SchoolMetrics& m) {
    py::dict d;
    for (const SchoolMeasure& measure : kSchoolMeasures) d[measure.column] = m.*measure.member;
    if (!m.largestGroupShareBySpecies.empty())
        d["largest_group_share_by_species"] = m.largestGroupShareBySpecies;
    return d;
}

void runStoppable(const std::function<void(std::stop_token)>& work) {
    std::stop_source stop;
    std::optional<py::error_already_set> interrupted;
    {
        const py::gil_scoped_release release;
        std::mutex mutex;
        std::condition_variable finished;
        bool done = false;
        std::exception_ptr thrown;
        std::thread runs([&] {
            try {
                work(stop.get_token());
            } catch (...) {
                thrown = std::current_exception();
            }
            const std::lock_guard lock(mutex);
            done = true;
            finished.notify_all();
        });
        std::unique_lock lock(mutex);
        while (!finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) {
            if (interrupted) continue;
            lock.unlock();
            {
                const py::gil_scoped_acquire gil;
                if (PyErr_CheckSignals() != 0) {
                    interrupted.emplace();  // takes the exception the handler raised
                    stop.request_stop();
                }
            }
            lock.lock();
        }
        lock.unlock();
        runs.join();
        if (thrown) std::rethrow_exception(thrown);
    }
    if (interrupted) throw *interrupted;
}

}  // namespace fishschool::python
