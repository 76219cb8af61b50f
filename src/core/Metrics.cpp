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

#include "core/Messages.h"
#include "core/NearestNeighbours.h"

#include "GridShape.h"
#include "WallGeometry.h"

namespace fishschool {
namespace {

/// The school's fish sorted by grid cell (CellSort, on this thread), for neighbour queries. In a
/// periodic tank the cells wrap round it and offsets are taken to the nearest image; in open water
/// they are the box of cells the school spans or, for a school spread wider, hashed
/// (GridShape::forSchoolWithin), wherever the fish are.
struct CellIndex {
    GridShape shape;
    CellSort sorted;
    bool periodic = false;
    glm::dvec3 tankSize{0.0};  ///< periodic: the tank's size on each axis
    /// A tank's grid: the rings of cells around a fish that hold every fish within cellWidth.
    int reach = 1;

    /// Cells `cellWidth` wide, or in a tank 1 / `cellsPerRadius` of it (fewer fish a query).
    CellIndex(std::span<const Fish> school, const SimParams& params, float cellWidth,
              int cellsPerRadius = 1)
        : periodic(params.boundary == Boundary::Periodic),
          tankSize(2.0 * glm::dvec3(params.bounds)) {
        if (params.boundary == Boundary::Open) {
            // As the step searches it: in the box of cells the school spans while it fits.
            constexpr float kInf = std::numeric_limits<float>::infinity();
            glm::vec3 low(kInf), high(-kInf);
            for (const Fish& f : school) {
                // A NaN compares false and is left out.
                for (int k = 0; k < 3; ++k) {
                    low[k] = f.position[k] < low[k] ? f.position[k] : low[k];
                    high[k] = f.position[k] > high[k] ? f.position[k] : high[k];
                }
            }
            shape = GridShape::forOpenWater(cellWidth, 2 * school.size() + 64)
                        .forSchoolWithin(low, high);
        } else {
            reach = cellsPerRadius;
            shape = GridShape::forTank(params.bounds, cellWidth, 2 * school.size() + 64,
                                       cellsPerRadius, periodic);
        }
        sorted.build(
            school.size(), shape.cellCount(),
            [&](std::size_t i) {
                const glm::vec3& p = school[i].position;
                return shape.slotOf(p.x, p.y, p.z);
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

    glm::ivec3 cellOf(const glm::vec3& p) const {
        return shape.hashed ? shape.openCellOf(p.x, p.y, p.z) : shape.cellOf(p.x, p.y, p.z);
    }

    /// Calls visit(j) for every fish in the cells within `reach` of `cell` (the 27 around it in
    /// open water), each cell once (in open water each bucket once, with whatever other cells
    /// share it).
    template <class Visit>
    void forNeighborCells(const glm::ivec3& cell, Visit&& visit) const {
        if (!shape.hashed) {
            forTankCellsAround(cell, reach, visit);
            return;
        }
        // On the stack: no allocation a fish.
        std::array<std::uint32_t, 27> buckets;
        std::size_t count = 0;
        for (int z = -1; z <= 1; ++z)
            for (int y = -1; y <= 1; ++y)
                for (int x = -1; x <= 1; ++x)
                    buckets[count++] = shape.bucket(cell + glm::ivec3(x, y, z));
        std::sort(buckets.begin(), buckets.end());
        const auto distinct = std::unique(buckets.begin(), buckets.end());
        for (auto it = buckets.begin(); it != distinct; ++it)
            for (std::uint32_t k = sorted.cellStart[*it]; k < sorted.cellStart[*it + 1]; ++k)
                visit(sorted.order[k]);
    }

    /// A tank's grid (not open water's): calls visit(j) for every fish in the cells within `ring`
    /// cells of `cell` (a cube), each cell once: in a periodic tank the cube wraps round, and
    /// covers an axis whole once it is as wide as the grid.
    template <class Visit>
    void forTankCellsAround(const glm::ivec3& cell, int ring, Visit&& visit) const {
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
/// fish can remain; `nearest`, when given, gets that fish (of two as near, the first seen).
double nearestDistance(std::span<const Fish> school, const CellIndex& index, std::size_t i,
                       std::uint32_t* nearest = nullptr) {
    const glm::vec3 p = school[i].position;
    const glm::ivec3 cell = index.cellOf(p);
    double best2 = std::numeric_limits<double>::infinity();
    std::uint32_t bestFish = static_cast<std::uint32_t>(i);
    const auto consider = [&](std::uint32_t j) {
        if (j == i) return;
        const glm::dvec3 d = index.offset(p, school[j].position);
        const double d2 = glm::dot(d, d);
        if (d2 < best2) {
            best2 = d2;
            bestFish = j;
        }
    };
    if (index.shape.hashed) {
        // Hashed open water: the 27 cells around, then, for a fish with none closer than a cell
        // (alone in open water), every fish.
        index.forNeighborCells(cell, consider);
        if (best2 > index.shape.cellSize * index.shape.cellSize)
            for (std::size_t j = 0; j < school.size(); ++j) consider(static_cast<std::uint32_t>(j));
    } else {
        const int maxRing = std::max({index.shape.dimX, index.shape.dimY, index.shape.dimZ});
        for (int ring = 1; ring <= maxRing; ++ring) {
            index.forTankCellsAround(cell, ring, consider);
            // Every fish not yet seen lies at least `ring` whole cells away.
            const double reach = ring * index.shape.cellSize;
            if (best2 <= reach * reach) break;
        }
    }
    if (nearest) *nearest = bestFish;
    return std::sqrt(best2);
}

/// Disjoint sets of fish (union by size, path halving): the groups of measureSchool.
class FishGroups {
  public:
    explicit FishGroups(std::size_t n) : parent_(n), size_(n, 1) {
        std::iota(parent_.begin(), parent_.end(), std::uint32_t{0});
    }

    std::uint32_t root(std::uint32_t i) {
        while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
        return i;
    }

    void unite(std::uint32_t a, std::uint32_t b) {
        a = root(a);
        b = root(b);
        if (a == b) return;
        if (size_[a] < size_[b]) std::swap(a, b);
        parent_[b] = a;
        size_[a] += size_[b];
    }

    /// The groups' count, the largest group's share of the fish and, per species of `kinds`, the
    /// share of its fish in that group (ties: the group of the lowest fish).
    void measure(std::span<const Fish> school, std::size_t kinds, SchoolMetrics& m) {
        const std::size_t n = parent_.size();
        std::size_t groups = 0;
        std::uint32_t largest = root(0);
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t group = root(i);
            if (group == i) ++groups;
            if (size_[group] > size_[largest]) largest = group;
        }
        m.groups = static_cast<double>(groups);
        m.largestGroupShare = static_cast<double>(size_[largest]) / static_cast<double>(n);
        glm::dvec3 position(0.0), velocity(0.0);
        for (std::uint32_t i = 0; i < n; ++i)
            if (root(i) == largest) {
                position += glm::dvec3(school[i].position);
                velocity += glm::dvec3(school[i].velocity);
            }
        m.largestGroupCentre = position / static_cast<double>(size_[largest]);
        m.largestGroupVelocity = velocity / static_cast<double>(size_[largest]);
        if (kinds == 0) return;
        std::vector<double> members(kinds, 0.0), inLargest(kinds, 0.0);
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t s = school[i].species;
            if (s >= kinds) continue;
            members[s] += 1.0;
            if (root(i) == largest) inLargest[s] += 1.0;
        }
        m.largestGroupShareBySpecies.resize(kinds);
        for (std::size_t s = 0; s < kinds; ++s)
            m.largestGroupShareBySpecies[s] = members[s] > 0.0 ? inLargest[s] / members[s] : 0.0;
    }

  private:
    std::vector<std::uint32_t> parent_;
    std::vector<std::uint32_t> size_;
};

}  // namespace

float groupDistance(const SimParams& params) {
    return params.groupDistance > 0.0f ? params.groupDistance : params.rCohesion;
}

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

bool hasInformedFish(const SimParams& params) {
    if (params.species.empty()) return params.kPreferred != 0.0f;
    for (std::size_t s = 0; s < params.species.size(); ++s)
        if (paramsOfSpecies(params, s).kPreferred != 0.0f) return true;
    return false;
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
    return measureSchoolGiven(school, params, {});
}

double schoolState(double polarization, double rotation, const SimParams& params) {
    const double high = params.stateHigh, low = params.stateLow;
    if (polarization < low && rotation < low) return 0.0;
    if (rotation > high && polarization < low) return 1.0;
    if (polarization > high && rotation < low) return 2.0;
    return 3.0;
}

SchoolMetrics measureSchoolGiven(std::span<const Fish> school, const SimParams& params,
                                 std::span<const double> nearestDistances) {
    SchoolMetrics m;
    const std::size_t n = school.size();
    m.directionError = std::numeric_limits<double>::quiet_NaN();  // no fish, none informed
    if (n == 0) return m;

    glm::dvec3 centre(0.0), meanHeading(0.0), velocity(0.0);
    for (const Fish& f : school) {
        centre += glm::dvec3(f.position);
        velocity += glm::dvec3(f.velocity);
        const double speed = glm::length(glm::dvec3(f.velocity));
        if (speed > 0.0) meanHeading += glm::dvec3(f.velocity) / speed;
    }
    centre /= static_cast<double>(n);
    m.centre = m.largestGroupCentre = centre;
    m.velocity = m.largestGroupVelocity = velocity / static_cast<double>(n);
    m.polarization = glm::length(meanHeading / static_cast<double>(n));
    const std::optional<glm::vec3> g = informedDirection(school, params);
    m.directionError =
        g ? directionErrorOf(meanHeading, *g) : std::numeric_limits<double>::quiet_NaN();

    glm::dvec3 meanMomentum(0.0);
    double spread = 0.0, wallDistance = 0.0, wallAngle = 0.0;
    std::size_t angled = 0;
    for (const Fish& f : school) {
        const glm::dvec3 r = glm::dvec3(f.position) - centre;
        const glm::dvec3 v(f.velocity);
        const double rl = glm::length(r), vl = glm::length(v);
        if (rl > 0.0 && vl > 0.0) meanMomentum += glm::cross(r / rl, v / vl);
        spread += glm::dot(r, r);
        wallDistance += wallDistanceOf(f.position, params);
        if (const double angle = wallAngleOf(f.position, f.velocity, params); !std::isnan(angle)) {
            wallAngle += std::abs(angle);
            ++angled;
        }
    }
    const double count = static_cast<double>(n);
    m.milling = glm::length(meanMomentum / count);
    m.rotation = std::abs(meanMomentum.y / count);
    m.state = schoolState(m.polarization, m.rotation, params);
    m.dispersion = std::sqrt(spread / count);
    m.meanWallDistance = wallDistance / count;
    m.meanWallAngle = angled > 0 ? wallAngle / static_cast<double>(angled)
                                 : std::numeric_limits<double>::quiet_NaN();
    m.centreWallDistance = wallDistanceOf(glm::vec3(centre), params);
    m.centreWallAngle = std::abs(wallAngleOf(glm::vec3(centre), glm::vec3(m.velocity), params));

    m.groups = 1.0;
    m.largestGroupShare = 1.0;
    m.largestGroupShareBySpecies.assign(params.species.size(), 0.0);
    if (n == 1 && school[0].species < params.species.size())
        m.largestGroupShareBySpecies[school[0].species] = 1.0;
    if (n < 2) return m;
    const float radius = params.rCohesion;
    const float linking = groupDistance(params);
    // One grid for both when they are the same distance (the default): the groups cost a union
    // per pair of neighbours.
    const auto cellWidth = [&](float r) { return std::max(r, 1e-3f * params.bounds.x); };
    // In a tank, cells of half the radius: the 5 x 5 x 5 around a fish span 2.5 radii rather
    // than 3, half the fish tested where the radius is a large part of the tank.
    const CellIndex index(school, params, cellWidth(radius), 2);
    const double r2 = static_cast<double>(radius) * radius;
    const double linking2 = static_cast<double>(linking) * linking;
    const bool sameDistance = linking == radius;
    // |pj - pi|^2: to the nearest image in a periodic tank, else in float as the step tests it.
    const auto distance2 = [&](const CellIndex& cells, std::size_t i, std::uint32_t j) {
        if (cells.periodic) {
            const glm::dvec3 d = cells.offset(school[i].position, school[j].position);
            return glm::dot(d, d);
        }
        const glm::vec3 d = school[j].position - school[i].position;
        return static_cast<double>(glm::dot(d, d));
    };
    FishGroups groups(n);
    double neighbors = 0.0, nearestSum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        // Each pair once, from its lower fish: a neighbour of each other (the distance is the
        // same both ways, and a fish within reach is in the cells around the other's).
        index.forNeighborCells(index.cellOf(school[i].position), [&](std::uint32_t j) {
            if (j <= i) return;
            const double d2 = distance2(index, i, j);
            if (d2 < r2) neighbors += 2.0;
            if (sameDistance && d2 < linking2) groups.unite(static_cast<std::uint32_t>(i), j);
        });
        nearestSum +=
            nearestDistances.empty() ? nearestDistance(school, index, i) : nearestDistances[i];
    }
    if (!sameDistance) {
        const CellIndex linkIndex(school, params, cellWidth(linking), 2);
        for (std::size_t i = 0; i < n; ++i)
            linkIndex.forNeighborCells(linkIndex.cellOf(school[i].position), [&](std::uint32_t j) {
                if (j > i && distance2(linkIndex, i, j) < linking2)
                    groups.unite(static_cast<std::uint32_t>(i), j);
            });
    }
    groups.measure(school, params.species.size(), m);
    m.meanNeighbors = neighbors / static_cast<double>(n);
    m.meanNearestNeighborDistance = nearestSum / static_cast<double>(n);
    return m;
}

std::string metricsCsvHeader() {
    std::string header = "step,time_s";
    for (const SchoolMeasure& measure : kSchoolMeasures) header.append(",").append(measure.column);
    return header;
}

std::string metricsCsvRow(std::int64_t step, double timeSeconds, const SchoolMetrics& m) {
    char field[64];
    std::snprintf(field, sizeof field, "%" PRId64 ",%.9g", step, timeSeconds);
    std::string row = field;
    for (const SchoolMeasure& measure : kSchoolMeasures) {
        row += ',';
        // An absent measure (a direction error with no informed fish) is an empty field, as CSV
        // readers take NaN.
        const double value = m.*measure.member;
        if (std::isnan(value)) continue;
        std::snprintf(field, sizeof field, "%.9g", value);
        row += field;
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
        index.forNeighborCells(index.cellOf(p), [&](std::uint32_t) { ++pairs; });
        --pairs;
    }
    return pairs;
}

void nearestNeighbours(std::span<const Fish> school, const SimParams& params,
                       std::span<std::uint32_t> nearest, std::span<double> distance) {
    const std::size_t n = school.size();
    if (n < 2) {
        for (std::size_t i = 0; i < n; ++i) {
            nearest[i] = static_cast<std::uint32_t>(i);
            distance[i] = std::numeric_limits<double>::infinity();
        }
        return;
    }
    // Cells about a spacing of the school wide, so that the first ring holds a few fish:
    // the spacing from the volume (area, length) the school spans, over its fish.
    glm::dvec3 low(std::numeric_limits<double>::infinity()), high(-low);
    for (const Fish& f : school) {
        low = glm::min(low, glm::dvec3(f.position));
        high = glm::max(high, glm::dvec3(f.position));
    }
    const glm::dvec3 extent = high - low;
    const double widest = std::max({extent.x, extent.y, extent.z});
    double volume = 1.0;
    int spanned = 0;
    for (int k = 0; k < 3; ++k)
        if (extent[k] > 1e-6 * widest) {
            volume *= extent[k];
            ++spanned;
        }
    const double spacing =
        spanned == 0 ? 0.0 : std::pow(volume / static_cast<double>(n), 1.0 / spanned);
    const double floor = 1e-3 * std::max<double>(params.bounds.x, widest);
    const float cellWidth = static_cast<float>(std::max({spacing, floor, 1e-6}));
    const CellIndex index(school, params, cellWidth);
    for (std::size_t i = 0; i < n; ++i)
        distance[i] = nearestDistance(school, index, i, &nearest[i]);
}

}  // namespace fishschool

namespace fishschool {

Result<SchoolMetrics> measureArrays(std::span<const float> positions,
                                    std::span<const float> velocities,
                                    const MeasureOptions& options) {
    if (positions.size() != velocities.size() || positions.size() % 3 != 0)
        return fail("positions and velocities: " + std::to_string(positions.size()) + " and " +
                    std::to_string(velocities.size()) +
                    " numbers; both must hold 3 a fish, the same fish");
    if (!(options.rCohesion > 0.0f) || !std::isfinite(options.rCohesion))
        return fail("rCohesion: " + formatNumber(options.rCohesion) +
                    " is not allowed; must be finite and > 0");
    if (!(options.groupDistance >= 0.0f) || !std::isfinite(options.groupDistance))
        return fail("groupDistance: " + formatNumber(options.groupDistance) +
                    " is not allowed; must be finite and >= 0 (0: rCohesion)");
    SimParams params;
    params.rCohesion = options.rCohesion;
    params.groupDistance = options.groupDistance;
    params.rocks.clear();
    params.boundary = Boundary::Open;
    if (options.periodicBox) {
        const glm::vec3 box = *options.periodicBox;
        for (int k = 0; k < 3; ++k)
            if (!(box[k] > 0.0f) || !std::isfinite(box[k]))
                return fail("box: " + formatPoint(box) +
                            " is not allowed; each edge must be finite and > 0");
        params.boundary = Boundary::Periodic;
        params.bounds = 0.5f * box;
    }
    School school(positions.size() / 3);
    for (std::size_t i = 0; i < school.size(); ++i) {
        for (int k = 0; k < 3; ++k) {
            const float p = positions[3 * i + k], v = velocities[3 * i + k];
            if (!std::isfinite(p) || !std::isfinite(v))
                return fail("fish " + std::to_string(i) +
                            ": a position or velocity that is not a finite number");
            if (options.periodicBox && std::abs(p) > params.bounds[k])
                return fail("fish " + std::to_string(i) + ": position " + formatNumber(p) +
                            " on axis " + std::to_string(k) +
                            " is outside the periodic box; must be within +-" +
                            formatNumber(params.bounds[k]));
            school[i].position[k] = p;
            school[i].velocity[k] = v;
        }
    }
    return measureSchool(school, params);
}

}  // namespace fishschool
