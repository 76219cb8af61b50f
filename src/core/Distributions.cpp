#include "fishschool/Distributions.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <glm/geometric.hpp>

#include "core/NearestNeighbours.h"
#include "core/WallGeometry.h"

namespace fishschool {

Histograms emptyHistograms() {
    Histograms h;
    for (std::size_t k = 0; k < kDistributions.size(); ++k) h[k] = Histogram(kDistributions[k]);
    return h;
}

namespace {

/// Where a fish at p heading along v sees a neighbour at q, in the x-z plane: 0 ahead, +-pi
/// behind; NaN for a fish that does not move in the plane.
double viewingAngle(const glm::vec3& p, const glm::vec3& v, const glm::vec3& q) {
    if (v.x == 0.0f && v.z == 0.0f) return std::numeric_limits<double>::quiet_NaN();
    const double toward = std::atan2(double(q.z) - p.z, double(q.x) - p.x);
    return wrapAngle(toward - std::atan2(double(v.z), double(v.x)));
}

/// The angle, radians in [0, pi], between two velocities; NaN when either is zero.
double headingAngle(const glm::vec3& a, const glm::vec3& b) {
    const glm::dvec3 u(a), v(b);
    if (u == glm::dvec3(0.0) || v == glm::dvec3(0.0))
        return std::numeric_limits<double>::quiet_NaN();
    return std::atan2(glm::length(glm::cross(u, v)), glm::dot(u, v));
}

/// The angle, radians in [0, pi], between the axes of the turn from a to b and the turn from b
/// to c (velocities one frame apart); NaN where either turn is none.
double turnAxisChange(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) {
    const glm::dvec3 first = glm::cross(glm::dvec3(a), glm::dvec3(b));
    const glm::dvec3 second = glm::cross(glm::dvec3(b), glm::dvec3(c));
    if (first == glm::dvec3(0.0) || second == glm::dvec3(0.0))
        return std::numeric_limits<double>::quiet_NaN();
    return std::atan2(glm::length(glm::cross(first, second)), glm::dot(first, second));
}

bool presentIn(std::span<const std::uint8_t> present, std::size_t i) {
    return present.empty() || (i < present.size() && present[i]);
}

constexpr std::size_t kWall = distributionIndex("wall_distance");
constexpr std::size_t kWallAngle = distributionIndex("wall_angle");
constexpr std::size_t kViewing = distributionIndex("viewing_angle");
constexpr std::size_t kNearest = distributionIndex("nearest_neighbor");
constexpr std::size_t kHeading = distributionIndex("neighbor_heading");
constexpr std::size_t kSpeed = distributionIndex("speed");
constexpr std::size_t kPolarization = distributionIndex("polarization");
constexpr std::size_t kMilling = distributionIndex("milling");
constexpr std::size_t kTurning = distributionIndex("turning_angle");
constexpr std::size_t kTurnAxis = distributionIndex("turn_axis_change");
static_assert(kMilling < kDistributions.size() && kTurnAxis < kDistributions.size());

}  // namespace

FrameMeasures measureFrame(std::span<const Fish> school, std::span<const std::uint8_t> present,
                           const SimParams& params, Histograms& histograms, EarlierFrame previous,
                           EarlierFrame beforePrevious) {
    // Each fish's turns since the frames before, fish by index: present in each (an empty mask:
    // every fish present), moving in each (else NaN, not counted).
    const std::size_t n = school.size();
    const bool turns = !previous.school.empty() && previous.school.size() == n;
    const bool axes = turns && beforePrevious.school.size() == n;
    for (std::size_t i = 0; turns && i < n; ++i) {
        if (!presentIn(present, i) || !presentIn(previous.present, i)) continue;
        const glm::vec3& before = previous.school[i].velocity;
        histograms[kTurning].add(headingAngle(before, school[i].velocity));
        if (axes && presentIn(beforePrevious.present, i))
            histograms[kTurnAxis].add(
                turnAxisChange(beforePrevious.school[i].velocity, before, school[i].velocity));
    }
    // The fish present, in their order: a missing fish is nobody's neighbour.
    School kept;
    std::span<const Fish> fish = school;
    if (!present.empty()) {
        kept.reserve(school.size());
        for (std::size_t i = 0; i < school.size() && i < present.size(); ++i)
            if (present[i]) kept.push_back(school[i]);
        fish = kept;
    }
    FrameMeasures out;
    out.fish = fish.size();
    // Each fish's nearest neighbour once, on cells of the school's spacing: the mean distance
    // of the school's measures is the same sum of the same distances.
    std::vector<std::uint32_t> nearest(fish.size());
    std::vector<double> distance(fish.size());
    nearestNeighbours(fish, params, nearest, distance);
    out.measures = measureSchoolGiven(fish, params, distance);
    if (fish.empty()) return out;
    for (std::size_t i = 0; i < fish.size(); ++i) {
        const Fish& f = fish[i];
        // NaN without walls: not counted.
        histograms[kWall].add(wallDistanceOf(f.position, params));
        histograms[kWallAngle].add(wallAngleOf(f.position, f.velocity, params));
        histograms[kSpeed].add(glm::length(glm::dvec3(f.velocity)));
        if (fish.size() < 2) continue;
        const Fish& other = fish[nearest[i]];
        histograms[kNearest].add(distance[i]);
        histograms[kHeading].add(headingAngle(f.velocity, other.velocity));
        histograms[kViewing].add(viewingAngle(f.position, f.velocity, other.position));
    }
    histograms[kPolarization].add(out.measures.polarization);
    histograms[kMilling].add(out.measures.milling);
    return out;
}

double hellingerDistance(const Histogram& a, const Histogram& b) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (a.counts.size() != b.counts.size() || a.low != b.low || a.high != b.high) return nan;
    const double totalA = static_cast<double>(a.total()), totalB = static_cast<double>(b.total());
    if (totalA == 0.0 || totalB == 0.0) return nan;
    // 1 - sum sqrt(p q) written as half the sum of (sqrt p - sqrt q)^2, equal for histograms
    // that sum to 1: exactly 0 for proportional counts (equal ratios round alike), where the
    // first form leaves the rounding of the sum.
    double sum = 0.0;
    const auto add = [&](std::uint64_t p, std::uint64_t q) {
        const double d =
            std::sqrt(static_cast<double>(p) / totalA) - std::sqrt(static_cast<double>(q) / totalB);
        sum += d * d;
    };
    add(a.below, b.below);
    add(a.above, b.above);
    for (std::size_t k = 0; k < a.counts.size(); ++k) add(a.counts[k], b.counts[k]);
    return std::sqrt(std::clamp(0.5 * sum, 0.0, 1.0));
}

double histogramQuantile(const Histogram& h, double p) {
    const std::uint64_t total = h.total();
    if (total == 0 || !(p >= 0.0 && p <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
    const double rank = p * static_cast<double>(total);
    double below = static_cast<double>(h.below);
    if (rank <= below) return h.low;
    const double width = (h.high - h.low) / static_cast<double>(h.counts.size());
    for (std::size_t k = 0; k < h.counts.size(); ++k) {
        const double count = static_cast<double>(h.counts[k]);
        if (count > 0.0 && rank <= below + count)
            return h.low + width * (static_cast<double>(k) + (rank - below) / count);
        below += count;
    }
    return h.high;
}

std::string frameMeasuresCsv(const TrajectoryMeasurement& m) {
    std::string csv = metricsCsvHeader() + ",fish\n";
    for (std::size_t k = 0; k < m.measures.size(); ++k) {
        std::string row = metricsCsvRow(m.step[k], m.time[k], m.measures[k]);
        row.back() = ',';  // its newline
        row += std::to_string(m.fish[k]);
        row += '\n';
        csv += row;
    }
    return csv;
}

std::string histogramsCsv(std::span<const Histograms* const> histograms,
                          std::span<const std::string> columns) {
    std::string csv = "distribution,unit,bin_low,bin_high";
    for (const std::string& column : columns) csv += "," + column;
    csv += "\n";
    char number[64];
    const auto format = [&](double value) {
        std::snprintf(number, sizeof number, "%.9g", value);
        return std::string(number);
    };
    for (std::size_t d = 0; d < kDistributions.size(); ++d) {
        const DistributionSpec& spec = kDistributions[d];
        const std::string head = std::string(spec.name) + "," + spec.unit + ",";
        const std::vector<double> edges = Histogram(spec).edges();
        const auto counts = [&](auto&& countOf) {
            std::string fields;
            for (std::size_t c = 0; c < columns.size() && c < histograms.size(); ++c) {
                fields += ',';
                fields += std::to_string(countOf((*histograms[c])[d]));
            }
            fields += '\n';
            return fields;
        };
        for (std::size_t k = 0; k < spec.bins; ++k)
            csv += head + format(edges[k]) + "," + format(edges[k + 1]) +
                   counts([&](const Histogram& h) { return h.counts[k]; });
        csv +=
            head + "-inf," + format(spec.low) + counts([](const Histogram& h) { return h.below; });
        csv +=
            head + format(spec.high) + ",inf" + counts([](const Histogram& h) { return h.above; });
    }
    return csv;
}

}  // namespace fishschool
