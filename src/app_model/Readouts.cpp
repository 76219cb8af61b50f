#include "Readouts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace fishschool::app {

std::string formatPercent(double share) {
    if (std::isnan(share)) return "n/a";
    const double percent = 100.0 * std::clamp(share, 0.0, 1.0);
    // More digits until the part reads as a part: 99.6%, not 100%; 0.4%, not 0%.
    for (int digits = 0; digits <= 2; ++digits) {
        char text[32];
        std::snprintf(text, sizeof text, "%.*f", digits, percent);
        const double shown = std::atof(text);
        const bool wholeButNot = shown >= 100.0 && share < 1.0;
        const bool noneButSome = shown <= 0.0 && share > 0.0;
        if (!wholeButNot && !noneButSome) return std::string(text) + "%";
    }
    return share > 0.5 ? ">99.99%" : "<0.01%";
}

float frameTimeScale(std::span<const float> frameMs) {
    if (frameMs.empty()) return 20.0f;
    const std::size_t recent = std::min(frameMs.size(), kRecentFrames);
    std::vector<float> last(frameMs.end() - static_cast<std::ptrdiff_t>(recent), frameMs.end());
    const auto at = last.begin() + static_cast<std::ptrdiff_t>((recent - 1) * 95 / 100);
    std::nth_element(last.begin(), at, last.end());
    return std::max(1.25f * *at, 1.0f);
}

}  // namespace fishschool::app
