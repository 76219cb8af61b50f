#pragma once

#include <cstdint>
#include <span>

#include "fishschool/Fish.h"
#include "fishschool/Metrics.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// Each fish's nearest other fish of `school` and the distance to it, m (in a periodic tank
/// `params`' to its nearest image), on a grid of cells sized to the school's spacing: as
/// measureSchool's nearest-neighbour distance, one fish at a time. A fish alone gets itself and
/// infinity. `nearest` and `distance` hold school.size() values.
void nearestNeighbours(std::span<const Fish> school, const SimParams& params,
                       std::span<std::uint32_t> nearest, std::span<double> distance);

/// measureSchool with each fish's nearest-neighbour distance given (nearestNeighbours'), one a
/// fish, rather than searched again; empty: searched.
SchoolMetrics measureSchoolGiven(std::span<const Fish> school, const SimParams& params,
                                 std::span<const double> nearestDistances);

}  // namespace fishschool
