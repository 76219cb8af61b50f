#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

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
};

SchoolMetrics measureSchool(std::span<const Fish> school, const SimParams& params);

/// The header of a measures CSV (`fishschool-cli simulate --metrics`), without its newline.
inline constexpr std::string_view kMetricsCsvHeader =
    "step,time_s,polarization,milling,nearest_neighbor_m,neighbors";

/// One row of that CSV, newline included; numbers to 9 significant digits.
std::string metricsCsvRow(std::int64_t step, double timeSeconds, const SchoolMetrics& metrics);

/// How many (i, j) distance tests one step makes with the given neighbour search:
/// N(N-1) for all-pairs, the candidates of the 27 grid cells around each fish for grid.
std::uint64_t pairsTestedPerStep(std::span<const Fish> school, const SimParams& params);

}  // namespace fishschool
