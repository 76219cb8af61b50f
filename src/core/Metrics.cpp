#include "fishschool/Metrics.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numeric>

#include <glm/geometric.hpp>

#include "GridShape.h"

namespace fishschool {
namespace {

/// The school's fish sorted by grid cell (CellSort, on this thread), for neighbour queries. In a
/// periodic tank the cells wrap round it and offsets are taken to the nearest image.
struct CellIndex {
    GridShape shape;
    CellSort sorted;
    bool periodic = false;
    glm::dvec3 tankSize{0.0};  ///< periodic: the tank's size on each axis

    CellIndex(std::span<const Fish> school, const SimParams& params, float cellWidth)
        : periodic(params.boundary == Boundary::Periodic),
          tankSize(2.0 * glm::dvec3(params.bounds)) {
        shape = GridShape::forTank(params.bounds, cellWidth, 2 * school.size() + 64, 1, periodic);
        sorted.build(
            school.size(), shape.cellCount(),
            [&](std::size_t i) {
                const glm::vec3& p = school[i].position;
                return shape.index(shape.cellOf(p.x, p.y, p.z));
            },
            std::less<std::uint32_t>(),
            [](std::size_t count, std::size_t, auto&& body) {
                if (count > 0) body(std::size_t{0}, count);
            });
    }

    /// The offset from a to b: to b's nearest image in a periodic tank (docs/model.md "The school
    /// and the tank").
    glm::dvec3 offset(const glm::vec3& a, const glm::vec3& b) const {
        glm::dvec3 d = glm::dvec3(b) - glm::dvec3(a);
        if (periodic) d -= tankSize * glm::floor(d / tankSize + 0.5);
        return d;
    }

    /// Calls visit(j) for every fish in the cells within `ring` cells of `cell` (a cube), each
    /// cell once: in a periodic tank the cube wraps round, and covers an axis whole once it is as
    /// wide as the grid.
    template <class Visit>
    void forCellsAround(const glm::ivec3& cell, int ring, Visit&& visit) const {
        if (periodic) {
            const auto span = [&](int c, int dim) {
                return 2 * ring + 1 >= dim ? std::pair{0, dim - 1} : std::pair{c - ring, c + ring};
            };
            const auto wrap = [](int c, int dim) { return ((c % dim) + dim) % dim; };
            const auto [z0, z1] = span(cell.z, shape.dimZ);
            const auto [y0, y1] = span(cell.y, shape.dimY);
            const auto [x0, x1] = span(cell.x, shape.dimX);
            for (int z = z0; z <= z1; ++z)
                for (int y = y0; y <= y1; ++y)
                    for (int x = x0; x <= x1; ++x) {
                        const std::uint32_t c = shape.index(
                            {wrap(x, shape.dimX), wrap(y, shape.dimY), wrap(z, shape.dimZ)});
                        for (std::uint32_t k = sorted.cellStart[c]; k < sorted.cellStart[c + 1];
                             ++k)
                            visit(sorted.order[k]);
                    }
            return;
        }
        for (int z = std::max(cell.z - ring, 0); z <= std::min(cell.z + ring, shape.dimZ - 1); ++z)
            for (int y = std::max(cell.y - ring, 0); y <= std::min(cell.y + ring, shape.dimY - 1);
                 ++y) {
                const int x0 = std::max(cell.x - ring, 0),
                          x1 = std::min(cell.x + ring, shape.dimX - 1);
                for (std::uint32_t k = sorted.cellStart[shape.index({x0, y, z})];
                     k < sorted.cellStart[shape.index({x1, y, z}) + 1]; ++k)
                    visit(sorted.order[k]);
            }
    }
};

/// Distance to the nearest other fish, searching cube rings of cells outward until no closer
/// fish can remain.
double nearestDistance(std::span<const Fish> school, const CellIndex& index, std::size_t i) {
    const glm::vec3 p = school[i].position;
    const glm::ivec3 cell = index.shape.cellOf(p.x, p.y, p.z);
    const int maxRing = std::max({index.shape.dimX, index.shape.dimY, index.shape.dimZ});
    double best2 = std::numeric_limits<double>::infinity();
    for (int ring = 1; ring <= maxRing; ++ring) {
        index.forCellsAround(cell, ring, [&](std::uint32_t j) {
            if (j == i) return;
            const glm::dvec3 d = index.offset(p, school[j].position);
            best2 = std::min(best2, glm::dot(d, d));
        });
        // Every fish not yet seen lies at least `ring` whole cells away.
        const double reach = ring * index.shape.cellSize;
        if (best2 <= reach * reach) break;
    }
    return std::sqrt(best2);
}

}  // namespace

std::optional<glm::vec3> informedDirection(std::span<const Fish> school, const SimParams& params) {
    if (params.species.empty()) {
        if (params.kPreferred == 0.0f || school.empty()) return std::nullopt;
        return glm::normalize(params.preferredDirection);
    }
    // Which species have a fish: a species of kPreferred != 0 but no fish informs nobody.
    std::array<bool, kMaxSpecies> present{};
    for (const Fish& f : school)
        if (f.species < present.size()) present[f.species] = true;
    for (std::size_t s = 0; s < params.species.size() && s < present.size(); ++s) {
        if (!present[s]) continue;
        const SimParams own = paramsOfSpecies(params, s);
        if (own.kPreferred != 0.0f) return glm::normalize(own.preferredDirection);
    }
    return std::nullopt;
}

double directionErrorOf(const glm::dvec3& unitHeadingSum, const glm::vec3& g) {
    const glm::dvec3 unitG = glm::normalize(glm::dvec3(g));
    if (unitHeadingSum == glm::dvec3(0.0)) return std::acos(0.0);
    // atan2 rather than acos: exact at 0 and pi, where acos loses half the digits.
    return std::atan2(glm::length(glm::cross(unitHeadingSum, unitG)),
                      glm::dot(unitHeadingSum, unitG));
}

double directionAccuracy(std::span<const double> directionErrors) {
    if (directionErrors.empty()) return std::numeric_limits<double>::quiet_NaN();
    double cosines = 0.0;
    for (double error : directionErrors) cosines += std::cos(error);
    return accuracyOfMeanCosine(cosines / static_cast<double>(directionErrors.size()));
}

double accuracyOfMeanCosine(double meanCosine) {
    const double deviation = std::sqrt(std::max(0.0, 2.0 * (1.0 - meanCosine)));
    return 1.0 - deviation / std::acos(-1.0);
}

SchoolMetrics measureSchool(std::span<const Fish> school, const SimParams& params) {
    SchoolMetrics m;
    const std::size_t n = school.size();
    m.directionError = std::numeric_limits<double>::quiet_NaN();  // no fish, none informed
    if (n == 0) return m;

    glm::dvec3 centre(0.0), meanHeading(0.0);
    for (const Fish& f : school) {
        centre += glm::dvec3(f.position);
        const double speed = glm::length(glm::dvec3(f.velocity));
        if (speed > 0.0) meanHeading += glm::dvec3(f.velocity) / speed;
    }
    centre /= static_cast<double>(n);
    m.polarization = glm::length(meanHeading / static_cast<double>(n));
    const std::optional<glm::vec3> g = informedDirection(school, params);
    m.directionError =
        g ? directionErrorOf(meanHeading, *g) : std::numeric_limits<double>::quiet_NaN();

    glm::dvec3 meanMomentum(0.0);
    for (const Fish& f : school) {
        const glm::dvec3 r = glm::dvec3(f.position) - centre;
        const glm::dvec3 v(f.velocity);
        const double rl = glm::length(r), vl = glm::length(v);
        if (rl > 0.0 && vl > 0.0) meanMomentum += glm::cross(r / rl, v / vl);
    }
    m.milling = glm::length(meanMomentum / static_cast<double>(n));

    if (n < 2) return m;
    const float radius = params.rCohesion;
    const CellIndex index(school, params, std::max(radius, 1e-3f * params.bounds.x));
    const double r2 = static_cast<double>(radius) * radius;
    double neighbors = 0.0, nearestSum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const glm::vec3 p = school[i].position;
        index.forCellsAround(index.shape.cellOf(p.x, p.y, p.z), 1, [&](std::uint32_t j) {
            if (j == i) return;
            if (index.periodic) {
                const glm::dvec3 d = index.offset(p, school[j].position);
                if (glm::dot(d, d) < r2) neighbors += 1.0;
                return;
            }
            const glm::vec3 d = school[j].position - p;
            if (glm::dot(d, d) < r2) neighbors += 1.0;
        });
        nearestSum += nearestDistance(school, index, i);
    }
    m.meanNeighbors = neighbors / static_cast<double>(n);
    m.meanNearestNeighborDistance = nearestSum / static_cast<double>(n);
    return m;
}

std::string metricsCsvRow(std::int64_t step, double timeSeconds, const SchoolMetrics& m) {
    char line[256];
    std::snprintf(line, sizeof line, "%" PRId64 ",%.9g,%.9g,%.9g,%.9g,%.9g,", step, timeSeconds,
                  m.polarization, m.milling, m.meanNearestNeighborDistance, m.meanNeighbors);
    std::string row = line;
    // An absent direction error (no informed fish) is an empty field, as CSV readers take NaN.
    if (!std::isnan(m.directionError)) {
        std::snprintf(line, sizeof line, "%.9g", m.directionError);
        row += line;
    }
    return row + "\n";
}

std::uint64_t pairsTestedPerStep(std::span<const Fish> school, const SimParams& params) {
    const std::uint64_t n = school.size();
    if (n == 0) return 0;
    if (params.neighborSearch == NeighborSearch::AllPairs) return n * (n - 1);
    if (maxRadius(params) <= 0.0f) return 0;  // the grid search is skipped
    // The grid search tests every fish of the 27 cells around a fish, itself excluded.
    const CellIndex index(school, params, maxRadius(params));
    // A periodic tank too small for the wrapped grid search is searched pair by pair.
    if (index.periodic && !index.shape.holdsWrappedSearch()) return n * (n - 1);
    std::uint64_t pairs = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const glm::vec3 p = school[i].position;
        index.forCellsAround(index.shape.cellOf(p.x, p.y, p.z), 1, [&](std::uint32_t) { ++pairs; });
        --pairs;
    }
    return pairs;
}

}  // namespace fishschool
