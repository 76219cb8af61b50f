// fishschool.measure_trajectory and fishschool.compare_trajectories (fishschool/Distributions.h,
// docs/data.md): a trajectory's measures at every frame and its histograms as NumPy arrays.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "Conversions.h"

namespace fishschool::python {
namespace {

py::dict histogramsDict(const Histograms& histograms) {
    py::dict d;
    for (std::size_t k = 0; k < kDistributions.size(); ++k) {
        const Histogram& h = histograms[k];
        const std::vector<double> edges = h.edges();
        py::dict one;
        one["counts"] = arrayOf<std::int64_t>(
            h.counts.size(), [&](std::size_t i) { return static_cast<std::int64_t>(h.counts[i]); });
        one["edges"] = arrayOf<double>(edges.size(), [&](std::size_t i) { return edges[i]; });
        one["below"] = h.below;
        one["above"] = h.above;
        one["unit"] = kDistributions[k].unit;
        d[kDistributions[k].name] = one;
    }
    return d;
}

py::dict measurementDict(const TrajectoryMeasurement& m) {
    const std::size_t n = m.step.size();
    py::dict d;
    d["step"] = arrayOf<std::int64_t>(n, [&](std::size_t i) { return m.step[i]; });
    d["time"] = arrayOf<double>(n, [&](std::size_t i) { return m.time[i]; });
    d["fish"] = arrayOf<std::int64_t>(
        n, [&](std::size_t i) { return static_cast<std::int64_t>(m.fish[i]); });
    for (const SchoolMeasure& measure : kSchoolMeasures)
        d[measure.column] =
            arrayOf<double>(n, [&](std::size_t i) { return m.measures[i].*measure.member; });
    d["histograms"] = histogramsDict(m.histograms);
    d["walls"] = m.walls;
    return d;
}

}  // namespace

void bindMeasures(py::module_& m) {
    m.def(
        "measure_trajectory",
        [](const py::object& path) {
            const std::string file = pathText(path);
            requireExistingFile(file);
            Result<TrajectoryMeasurement> measured = TrajectoryMeasurement{};
            {
                const py::gil_scoped_release release;
                measured = measureTrajectory(file);
            }
            if (!measured) raiseError(measured.error());
            return measurementDict(*measured);
        },
        py::arg("path"),
        R"doc(The measures of every frame of a trajectory and its distributions (docs/data.md).

Returns a dict of NumPy arrays, one value a frame: step, time, fish (the fish measured) and each
measure of the school (polarization, milling, nearest_neighbor_m, ...); "histograms", a dict by
distribution (nearest_neighbor, turning_angle, ...: docs/data.md's table of distributions) of
{"counts": int64 [bins], "edges": float64 [bins + 1], "below", "above", "unit"}; and "walls",
whether every frame's tank has walls. A file that is not a trajectory is a ValueError naming it.)doc");
    m.def(
        "compare_trajectories",
        [](const py::object& a, const py::object& b) {
            const std::string first = pathText(a), second = pathText(b);
            requireExistingFile(first);
            requireExistingFile(second);
            Result<TrajectoryComparison> compared = TrajectoryComparison{};
            {
                const py::gil_scoped_release release;
                compared = compareTrajectories(first, second);
            }
            if (!compared) raiseError(compared.error());
            py::dict hellinger;
            for (std::size_t k = 0; k < kDistributions.size(); ++k)
                hellinger[kDistributions[k].name] = compared->hellinger[k];
            py::dict d;
            d["hellinger"] = hellinger;
            d["a"] = measurementDict(compared->a);
            d["b"] = measurementDict(compared->b);
            return d;
        },
        py::arg("a"), py::arg("b"),
        R"doc(Two trajectories' distributions compared (docs/data.md).

Returns a dict: "hellinger", the Hellinger distance of each distribution (0 the same, 1 disjoint,
NaN where a file has no value), and "a" and "b", each file's measure_trajectory() dict.)doc");
    m.def(
        "anisotropy",
        [](const py::object& path, std::int64_t neighbours, std::int64_t first,
           std::optional<std::int64_t> last) {
            const std::string file = pathText(path);
            requireExistingFile(file);
            if (first < 0)
                raiseError(Error{"first: " + std::to_string(first) +
                                 " is not allowed; a frame index, 0 or more"});
            if (last && *last < 0)
                raiseError(Error{"last: " + std::to_string(*last) +
                                 " is not allowed; a frame index, 0 or more, or None"});
            if (neighbours < 1)
                raiseError(Error{"neighbours: " + std::to_string(neighbours) +
                                 " is not allowed; from 1 to " +
                                 std::to_string(kMaxAnisotropyNeighbours)});
            Result<Anisotropy> result = Anisotropy{};
            {
                const py::gil_scoped_release release;
                result = trajectoryAnisotropy(
                    file, static_cast<std::size_t>(neighbours), static_cast<std::size_t>(first),
                    last ? static_cast<std::size_t>(*last) : static_cast<std::size_t>(-1));
            }
            if (!result) raiseError(result.error());
            const Anisotropy& a = *result;
            py::dict d;
            d["n"] = arrayOf<std::int64_t>(
                a.gamma.size(), [](std::size_t k) { return static_cast<std::int64_t>(k + 1); });
            d["gamma"] = arrayOf<double>(a.gamma.size(), [&](std::size_t k) { return a.gamma[k]; });
            d["error"] = arrayOf<double>(a.error.size(), [&](std::size_t k) { return a.error[k]; });
            d["frames"] = arrayOf<std::int64_t>(a.frames.size(), [&](std::size_t k) {
                return static_cast<std::int64_t>(a.frames[k]);
            });
            d["isotropic"] = a.isotropic;
            d["nc"] = a.nc;
            return d;
        },
        py::arg("path"), py::arg("neighbours") = 10, py::arg("first") = 0,
        py::arg("last") = py::none(),
        R"doc(Ballerini et al. 2008's anisotropy gamma(n) over a trajectory's frames (docs/data.md).

Returns a dict: "n" (1 to neighbours), "gamma" (the mean over frames of (W(n) . V)^2), "error"
(its standard error), "frames" (the frames with a value), "isotropic" (1/3 in 3D, 1/2 in 2D) and
"nc" (the first n within two errors of the isotropic value; 0 when none). Frames first to last,
inclusive (None: to the end).)doc");
}

}  // namespace fishschool::python
