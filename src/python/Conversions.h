#pragma once

// What every part of the module shares: Python values to the library's and back, and the one
// place a library error becomes a Python exception (raiseError).

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
// Every file of the module sees the same type casters (std::vector, std::optional, ...).
#include <pybind11/stl.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "fishschool/fishschool.h"

namespace fishschool::python {

namespace py = pybind11;

/// The bytes of a fish in the NumPy views of a school (9 packed floats and a species index).
inline constexpr py::ssize_t kFishStride = sizeof(Fish);

[[noreturn]] void raise(PyObject* type, const std::string& message);

/// The one place an error of the library becomes a Python exception, by its kind: bad input is
/// ValueError (or `badInputAs`: OSError for a path a call writes, as open() raises it; RuntimeError
/// where no input was given), a file or the system OSError, the program or the device RuntimeError.
[[noreturn]] void raiseError(const Error& error, PyObject* badInputAs = PyExc_ValueError);

/// FileNotFoundError, as open() raises it, for a file to read that is not there.
void requireExistingFile(const std::string& path);

std::string pathText(const py::handle& path);

std::string text(const py::handle& object);

std::string typeName(const py::handle& object);

/// Config keys (a dict whose keys are str) as JSON, with NumPy scalars and arrays as their Python
/// values: the one way a config value goes from Python to the library. What JSON or a config
/// cannot hold (NaN, the infinities, nesting deeper than a config's 16, a key not a str, another
/// type) is refused with an error naming the key, "config: key 'bounds[0]': ...".
std::string toJson(const py::handle& keys);

/// JSON text the library wrote, as Python values.
py::object fromJson(const std::string& text);
/// JSON text a file holds, as Python values; text that is not JSON, or nests deeper than a
/// config's 16, is a ValueError naming `source` (the file and its object).
py::object fromJson(const std::string& text, const std::string& source);

/// A Python int (or anything with __index__) as a signed 64-bit number; TypeError otherwise.
std::int64_t toInt64(const py::handle& value, const char* name);

std::uint64_t toSeed(const py::handle& value);

/// `value` as an (N, 3) array of float32 or float64; TypeError for another dtype, ValueError for
/// another shape.
py::array vectorArray(const py::handle& value, const char* name);

/// Fish from positions and velocities (zero velocities when None); accelerations are zero.
School fishFrom(const py::handle& positions, const py::handle& velocities);

/// Gives `fish` the species of `species` (None: keep 0): whole numbers, one a fish, each below the
/// config's count of species `kinds` (1 without species).
void setSpeciesFrom(School& fish, const py::handle& species, std::size_t kinds);

std::vector<std::size_t> indicesFrom(const py::handle& value);

/// An (N, 3) float32 read-only view of one vector of every fish of `school`, no copy: its base
/// holds the school, which then lives as long as the array.
py::array fishView(std::shared_ptr<const School> school, glm::vec3 Fish::*member);

/// An (N,) uint32 read-only view of the species of every fish of `school`, no copy.
py::array speciesView(std::shared_ptr<const School> school);
/// An (N,) float32 read-only view of the kick clock of every fish of `school` (Fish::kickClock,
/// s), no copy.
py::array kickClockView(std::shared_ptr<const School> school);

py::dict measuresDict(const SchoolMetrics& m);

/// Runs `work` on a thread of its own with the GIL released while this thread, every 50 ms,
/// looks for a signal: Ctrl-C asks `work` to stop through its token, and the KeyboardInterrupt is
/// raised once `work` has returned (what it finished stays), as between the chunks of
/// Simulation.step. An exception `work` throws is thrown again here.
void runStoppable(const std::function<void(std::stop_token)>& work);

/// A new one-dimensional array of `n` elements of T, element i `value(i)`.
template <class T, class Value>
py::array_t<T> arrayOf(std::size_t n, Value&& value) {
    py::array_t<T> array(static_cast<py::ssize_t>(n));
    auto out = array.template mutable_unchecked<1>();
    for (std::size_t i = 0; i < n; ++i) out(static_cast<py::ssize_t>(i)) = value(i);
    return array;
}

/// The config key a Python name stands for: snake_case (fish_count, r_cohesion) as the config's
/// camelCase (fishCount, rCohesion); a camelCase name as it is.
std::string configKeyOf(const std::string& name);

}  // namespace fishschool::python
