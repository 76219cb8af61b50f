#pragma once

#include <span>

#include "fishschool/Fish.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// How far, relative to the tank's half extent or the rock's radius, a fish may lie past a wall
/// or inside a rock's surface and still count as touching it: the backends round differently.
inline constexpr double kInvariantTolerance = 1e-5;

/// docs/model.md's guarantees after a step (What a step guarantees): every position, velocity and
/// acceleration finite, every fish inside the tank and outside every rock (a fish on a wall or a
/// rock's surface is fine). The error names the first fish that breaks one, its index and position,
/// and what it breaks, e.g. "fish 12 at (3.1, -2, 4.5): inside rock 1 (centre (3, -2, 4), radius
/// 1): 0.51 from its centre".
[[nodiscard]] Result<void> checkInvariants(std::span<const Fish> school, const SimParams& params);

}  // namespace fishschool
