// Steering "couzin" (Couzin et al. 2002): repulsion first, then the mean of orientation and
// attraction, a turn of at most maxTurnRate * dt, a constant speed. Hand-built scenes through
// every backend this build has, with both searches; expected values from docs/model.md.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "app_model/Presets.h"
#include "core/Scenario.h"
#include "fishschool/Metrics.h"
#include "io/ConfigIO.h"

namespace fishschool {
namespace {

using test::expectVec;
using ::testing::HasSubstr;

constexpr float kDegree = 0.017453292519943295f;

/// The "Couzin 2002" preset: the paper's settings.
SimParams couzinPreset() {
    const auto all = presets();
    const auto preset = std::find_if(all.begin(), all.end(),
                                     [](const Preset& p) { return p.name == "Couzin 2002"; });
    EXPECT_NE(preset, all.end());
    return preset == all.end() ? SimParams{} : preset->params;
}

class Couzin : public test::PerBackend {
  protected:
    /// Zones 1, 5 and 20 m; speed 3 m/s; turns unlimited unless a test limits them.
    SimParams zones() const {
        SimParams p = test::quietScene(GetParam().search);
        p.steering = Steering::Couzin;
        p.rSeparation = 1.0f;
        p.rAlignment = 5.0f;
        p.rCohesion = 20.0f;
        p.maxVelocity = 3.0f;
        p.maxTurnRate = 1e6f;
        p.dt = 0.1f;
        return p;
    }
};

TEST_P(Couzin, RepulsionOverridesOrientationAndAttraction) {
    const School school{{{0, 0, 0}, {3, 0, 0}, {}},
                        {{0.6f, 0, 0}, {3, 0, 0}, {}},   // repulsion zone
                        {{0, 3, 0}, {0, 0, 3}, {}},      // orientation zone
                        {{0, 0, -12}, {0, 0, -3}, {}}};  // attraction zone
    const School next = step(zones(), school);
    expectVec(next[0].velocity, {-3, 0, 0});
}

// The paper's zones: orientation counts the fish's own velocity too; attraction sums the unit
// offsets to the neighbours beyond the orientation zone only, near and far alike.
TEST_P(Couzin, WithoutRepulsionTheMeanOfOrientationAndAttraction) {
    const School school{{{0, 0, 0}, {3, 0, 0}, {}},
                        {{0, 3, 0}, {0, 0, 2}, {}},      // fish 0's orientation zone
                        {{0, 0, -12}, {0, 0, -3}, {}}};  // fish 0's attraction zone
    const School next = step(zones(), school);
    const glm::vec3 orientation = glm::normalize(glm::vec3(3, 0, 2));
    const glm::vec3 attraction(0, 0, -1);
    expectVec(next[0].velocity, 3.0f * glm::normalize(orientation + attraction));
    // Fish 2 has both others in its attraction zone, at 12 and 12.4 m: the mean of the two unit
    // offsets (the direction to their centre would be (0, 1.5, 12)).
    expectVec(next[2].velocity,
              3.0f * glm::normalize(glm::vec3(0, 0, 1) + glm::normalize(glm::vec3(0, 3, 12))));
}

// A neighbour in the orientation zone is not attracted to: a fish with one neighbour there, and
// none beyond, only aligns (with its own velocity counted).
TEST_P(Couzin, TheOrientationZoneIsNotPartOfTheAttractionZone) {
    const School school{{{0, 0, 0}, {3, 0, 0}, {}}, {{0, 4, 0}, {0, 0, 3}, {}}};
    const School next = step(zones(), school);
    expectVec(next[0].velocity, 3.0f * glm::normalize(glm::vec3(1, 0, 1)));
}

TEST_P(Couzin, TheTurnIsLimitedToMaxTurnRateTimesDt) {
    SimParams p = zones();
    p.maxTurnRate = 90.0f;  // 9 degrees in a step of 0.1 s
    const School school{{{0, 0, 0}, {2, 0, 0}, {}}, {{0, 0.5f, 0}, {0, 0, 3}, {}}};
    const School next = step(p, school);
    // Away from the neighbour is -y, 90 degrees off: the heading turns by 9 degrees only, and
    // the speed becomes maxVelocity.
    expectVec(next[0].velocity, 3.0f * glm::vec3(std::cos(9 * kDegree), -std::sin(9 * kDegree), 0));
    // A turn within the limit is taken whole.
    p.maxTurnRate = 900.0f;
    expectVec(step(p, school)[0].velocity, {0, -3, 0});
}

TEST_P(Couzin, StraightBackTurnsByTheLimitAndAFishAloneSwimsOn) {
    SimParams p = zones();
    p.maxTurnRate = 300.0f;  // 30 degrees a step
    const School school{
        {{0, 0, 0}, {3, 0, 0}, {}}, {{0.5f, 0, 0}, {3, 0, 0}, {}}, {{30, 30, 30}, {0, 1, 0}, {}}};
    const School next = step(p, school);
    EXPECT_NEAR(glm::length(next[0].velocity), 3.0f, 1e-5f);
    EXPECT_NEAR(glm::dot(next[0].velocity, {1, 0, 0}) / 3.0f, std::cos(30 * kDegree), 1e-5f);
    expectVec(next[2].velocity, {0, 3, 0});
}

TEST_P(Couzin, TheBlindAngleHidesANeighbourBehind) {
    SimParams p = zones();
    p.viewAngle = 270.0f;
    const School school{{{0, 0, 0}, {3, 0, 0}, {}}, {{-0.5f, 0.1f, 0}, {3, 0, 0}, {}}};
    // Behind fish 0: unseen, so it swims on; fish 1 sees fish 0 ahead and turns away.
    const School next = step(p, school);
    expectVec(next[0].velocity, {3, 0, 0});
    expectVec(next[1].velocity, -3.0f * glm::normalize(glm::vec3(0.5f, -0.1f, 0)));
}

TEST_P(Couzin, EveryFishKeepsTheSpeedEveryStep) {
    SimParams p = couzinPreset();
    p.fishCount = 200;
    p.neighborSearch = GetParam().search;
    auto backend = test::makeBackend(GetParam().backend, p);
    ASSERT_NE(backend, nullptr);
    ASSERT_TRUE(backend->upload(makeInitialSchool(p)));
    for (int s = 0; s < 40; ++s) {
        backend->step();
        for (const Fish& f : backend->download())
            ASSERT_NEAR(glm::length(f.velocity), p.maxVelocity, 1e-5f * p.maxVelocity)
                << "step " << s;
    }
}

TEST_P(Couzin, EveryBackendAgreesWithCpu) {
    SimParams p = couzinPreset();
    p.fishCount = 300;
    p.seed = 4;
    p.neighborSearch = GetParam().search;
    p.rAlignment = 4.0f;  // a wider orientation zone than the preset's: all three zones in use
    p.rCohesion = 18.0f;
    EXPECT_LT(test::errorAgainstCpu(GetParam().backend, p, makeInitialSchool(p), 5), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Couzin, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

/// The preset's school after `steps` steps with the orientation zone `orientationWidth` wide,
/// Δr_a held: polarization and milling.
std::pair<double, double> presetAfter(float orientationWidth, int steps) {
    SimParams p = couzinPreset();
    p.rAlignment = p.rSeparation + orientationWidth;
    p.rCohesion = p.rAlignment + 14.0f;
    auto backend = test::makeBackend(BackendKind::Tbb, p);
    EXPECT_TRUE(backend->upload(makeInitialSchool(p)));
    for (int s = 0; s < steps; ++s) backend->step();
    const SchoolMetrics m = measureSchool(backend->download(), p);
    return {m.polarization, m.milling};
}

TEST(CouzinPreset, TheFourPhasesAsTheOrientationZoneWidens) {
    const auto [swarmPolarization, swarmMilling] = presetAfter(0.0f, 2000);
    EXPECT_LT(swarmPolarization, 0.35);
    EXPECT_LT(swarmMilling, 0.35);
    const auto [torusPolarization, torusMilling] = presetAfter(1.0f, 2000);
    EXPECT_LT(torusPolarization, 0.5);
    EXPECT_GT(torusMilling, 0.5);
    const auto [dynamicPolarization, dynamicMilling] = presetAfter(4.0f, 2000);
    EXPECT_GT(dynamicPolarization, 0.75);
    EXPECT_LT(dynamicPolarization, 0.92);
    EXPECT_LT(dynamicMilling, 0.35);
    const auto [parallelPolarization, parallelMilling] = presetAfter(12.0f, 2000);
    EXPECT_GT(parallelPolarization, 0.92);
    EXPECT_LT(parallelMilling, 0.35);
}

TEST(CouzinConfig, SteeringAndMaxTurnRateAreReadCheckedAndSaved) {
    auto p = parseConfig(R"({"steering": "couzin", "maxTurnRate": 40})");
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p->steering, Steering::Couzin);
    EXPECT_EQ(p->maxTurnRate, 40.0f);
    EXPECT_EQ(*parseConfig(configToJson(*p)), *p);
    auto bad = parseConfig(R"({"steering": "boids"})");
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr(R"("article", "reynolds", "couzin", "vicsek" or "burst-and-coast")"));
    bad = parseConfig(R"({"maxTurnRate": 0})");
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr("maxTurnRate: 0 is not allowed"));
}

}  // namespace
}  // namespace fishschool
