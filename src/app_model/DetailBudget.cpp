#include "DetailBudget.h"

#include <algorithm>
#include <cmath>

namespace fishschool::app {

std::array<float, 2> DetailBudget::add(double drawMilliseconds,
                                       const std::array<float, 2>& levels) {
    if (std::isfinite(drawMilliseconds) && drawMilliseconds >= 0.0) {
        sum_ += drawMilliseconds;
        if (++frames_ == kFramesPerChange) {
            const double mean = sum_ / frames_;
            // Between half the budget and the budget the scale stays: no flicker between levels.
            if (mean > kBudgetMilliseconds)
                scale_ = std::min(scale_ * kStep, kMostScale);
            else if (mean < 0.5 * kBudgetMilliseconds)
                scale_ = std::max(scale_ / kStep, 1.0f);
            sum_ = 0.0;
            frames_ = 0;
        }
    }
    return {levels[0] * scale_, levels[1] * scale_};
}

}  // namespace fishschool::app
