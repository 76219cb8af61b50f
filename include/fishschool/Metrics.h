#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <glm/vec3.hpp>

#include "fishschool/Fish.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// The measures of collective motion used in the fish-schooling literature, and the counts the
/// benchmark reports. All O(N) on a grid.
struct SchoolMetrics {
    /// |mean of unit velocities|: 1 when all swim the same way, ~0 when disordered.
    double polarization = 0.0;
    /// |mean of unit angular momenta about the school's centre|: 1 for a perfect mill (torus).
    double milling = 0.0;
    /// Mean distance to the nearest other fish, m (0 with fewer than two fish).
    double meanNearestNeighborDistance = 0.0;
    /// Mean number of other fish within rCohesion.
    double meanNeighbors = 0.0;
    /// The angle, radians in [0, pi], between the group's direction (the mean of the unit
    /// headings) and the informed fish's preferred direction (informedDirection); NaN when no
    /// fish of the school is informed.
    double directionError = 0.0;
};

SchoolMetrics measureSchool(std::span<const Fish> school, const SimParams& params);

/// The informed fish's preferred direction g, unit length: that of the first species with
/// kPreferred != 0 and a fish in `school`, or, without species, the config's when kPreferred != 0
/// and the school has a fish. nullopt when no fish is informed.
std::optional<glm::vec3> informedDirection(std::span<const Fish> school, const SimParams& params);

/// The angle, radians in [0, pi], between the mean of `unitHeadingSum`'s headings and the unit
/// vector `g`: pi / 2 for a zero sum (no direction, so none along g).
double directionErrorOf(const glm::dvec3& unitHeadingSum, const glm::vec3& g);

/// Couzin et al. 2005's accuracy of a group's direction over replicates, from each replicate's
/// direction error: 1 - S / pi, S = sqrt(2 (1 - mean cos(error))) the angular deviation of the
/// directions about g (Batschelet's, about g rather than about their mean). 1 when every
/// replicate goes along g, 1 - sqrt(2) / pi (0.55) for directions at random, 1 - 2 / pi (0.36)
/// when all go against it. NaN without replicates.
double directionAccuracy(std::span<const double> directionErrors);
/// The same from the mean of cos(error) over the replicates.
double accuracyOfMeanCosine(double meanCosine);

/// The header of a measures CSV (`fishschool-cli simulate --metrics`), without its newline.
inline constexpr std::string_view kMetricsCsvHeader =
    "step,time_s,polarization,milling,nearest_neighbor_m,neighbors,direction_error";

/// One row of that CSV, newline included; numbers to 9 significant digits, an absent (NaN)
/// direction error as an empty field.
std::string metricsCsvRow(std::int64_t step, double timeSeconds, const SchoolMetrics& metrics);

/// How many (i, j) distance tests one step makes with the given neighbour search:
/// N(N-1) for all-pairs, the candidates of the 27 grid cells around each fish for grid.
std::uint64_t pairsTestedPerStep(std::span<const Fish> school, const SimParams& params);

}  // namespace fishschool
