#pragma once

// What the desktop app runs, one limit each, read by its flags (parseAppOptions), its panel, and
// every school it makes (SimulationController: a config file, a state file, a sweep's case).
// The model allows more (kMaxFishCount, which fishschool-cli runs without a window); the app
// stops where a frame would take seconds and the window would stop answering.

#include <cstdint>
#include <string_view>

#include "core/Backend.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// The most fish the app runs: 1,000,000 take about a second a step on a CPU backend.
inline constexpr std::int64_t kMaxAppFishCount = 1'000'000;
/// The most fish the app runs with all-pairs search on a CPU backend: beyond, a step takes
/// seconds.
inline constexpr std::int64_t kMaxCpuAllPairsFish = 50'000;
/// The same on the GPU: 200,000 fish all-pairs take tens of ms a step on a fast GPU, and
/// seconds on a software one.
inline constexpr std::int64_t kMaxGpuAllPairsFish = 200'000;

/// A fish count given as `what` (a flag, "fishCount" of a config, a state file's rows), refused
/// beyond kMaxAppFishCount: "--fish: 5000000 is not allowed; the app runs 0 to 1000000 fish
/// (fishschool-cli runs up to 16000000 without a window)".
[[nodiscard]] Result<void> checkAppFishCount(std::string_view what, std::int64_t fish);

/// The parameters the app cannot run on backend `kind`: too many fish, or all-pairs search with
/// more fish than that backend steps in a frame. The error names the key and suggests only what
/// would run (grid, a backend of this build whose limit takes the count, fewer fish).
[[nodiscard]] Result<void> checkAppLimits(const SimParams& params, BackendKind kind);

}  // namespace fishschool
