#pragma once

// How the panel and the overlay write numbers: shares as percentages that never round a part up
// to the whole, and the height of a plot of frame times.

#include <span>
#include <string>

namespace fishschool::app {

/// `share` (0 to 1) as a percentage, "99%": a part below the whole never shows 100% (0.996 is
/// "99.6%", 0.99996 ">99.99%"), nor a part above none 0% (0.003 is "0.3%"); NaN is "n/a".
std::string formatPercent(double share);

/// The top of a plot of frame times, ms: a quarter above the 95th percentile of the last
/// kRecentFrames, so that one slow frame (the first frames compile shaders and fill caches) does
/// not flatten the rest; at least 1 ms. 20 ms without frames.
float frameTimeScale(std::span<const float> frameMs);
inline constexpr std::size_t kRecentFrames = 120;

}  // namespace fishschool::app
