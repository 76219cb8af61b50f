// The "Default" preset, the school the app opens with, forms a school quickly: from its random
// start it reaches a polarization of 0.7 within 20 simulated seconds, on the default (tbb)
// backend, as the app runs it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "app_model/Presets.h"
#include "core/CpuBackends.h"
#include "core/Scenario.h"
#include "fishschool/Metrics.h"

namespace fishschool {
namespace {

const SimParams& defaultPreset() {
    const auto all = presets();
    const auto it = std::find_if(all.begin(), all.end(),
                                 [](const Preset& preset) { return preset.name == "Default"; });
    EXPECT_NE(it, all.end());
    return it->params;
}

/// The first step (a multiple of `every`) at which the school's polarization is >= 0.7, or -1.
int stepsToPolarise(SimParams params, std::uint64_t seed, int maxSteps, int every) {
    params.seed = seed;
    auto backend = makeTbbBackend();
    EXPECT_TRUE(backend->setParams(params));
    EXPECT_TRUE(backend->upload(makeInitialSchool(params)));
    for (int step = every; step <= maxSteps; step += every) {
        for (int k = 0; k < every; ++k) backend->step();
        if (measureSchool(backend->download(), params).polarization >= 0.7) return step;
    }
    return -1;
}

TEST(DefaultSchool, PolarisesWithinTwentySimulatedSeconds) {
    const SimParams& params = defaultPreset();
    EXPECT_EQ(params, SimParams{});  // the app and the CLI start from the same school
    EXPECT_EQ(params.fishCount, 2000);
    const int steps = static_cast<int>(std::lround(20.0 / params.dt));
    EXPECT_EQ(steps, 1200);
    for (std::uint64_t seed : {1u, 2u, 3u})
        EXPECT_NE(stepsToPolarise(params, seed, steps, 20), -1) << "seed " << seed;
}

TEST(DefaultSchool, TheArticlePresetKeepsTheArticlesValues) {
    const auto all = presets();
    const auto article = std::find_if(
        all.begin(), all.end(), [](const Preset& preset) { return preset.name == "Article"; });
    ASSERT_NE(article, all.end());
    const SimParams& p = article->params;
    EXPECT_EQ(p.kCohesion, 1.0f);
    EXPECT_EQ(p.kSeparation, 1.5f);
    EXPECT_EQ(p.kAlignment, 1.0f);
    EXPECT_EQ(p.rCohesion, 10.0f);
    EXPECT_EQ(p.rSeparation, 2.5f);
    EXPECT_EQ(p.rAlignment, 6.0f);
    EXPECT_EQ(p.maxAcceleration, 3.0f);
    EXPECT_EQ(p.maxVelocity, 5.0f);
    EXPECT_EQ(p.neighborSearch, NeighborSearch::AllPairs);
    EXPECT_TRUE(p.lockVerticalSteering);
}

}  // namespace
}  // namespace fishschool
