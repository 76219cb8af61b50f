#include "Conversions.h"

#include <cerrno>
#include <filesystem>
#include <type_traits>
#include <utility>

namespace fishschool::python {

static_assert(sizeof(Fish) == 40 && std::is_standard_layout_v<Fish>,
              "the NumPy views assume 9 packed floats and a species index a fish");

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

py::dict measuresDict(const SchoolMetrics& m) {
    py::dict d;
    for (const SchoolMeasure& measure : kSchoolMeasures) d[measure.column] = m.*measure.member;
    if (!m.largestGroupShareBySpecies.empty())
        d["largest_group_share_by_species"] = m.largestGroupShareBySpecies;
    return d;
}

}  // namespace fishschool::python
