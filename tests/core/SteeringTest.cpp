// The steering of the other source documents: a minimum speed, inverse-square separation,
// Reynolds' steer-towards, the prioritised sum of forces and avoidance by rays. Hand-built scenes
// through every backend this build has, with both searches; expected values come from the
// formulas of docs/model.md written out here.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "core/ConfigIO.h"
#include "core/Scenario.h"

namespace fishschool {
namespace {

using test::expectVec;
using ::testing::HasSubstr;

class Steering : public ::testing::TestWithParam<test::BackendSetup> {
  protected:
    void SetUp() override { test::requireAvailable(GetParam().backend); }
    /// No rule on: a test switches on what it checks. A tiny radius at weight 0 makes the grid
    /// search run.
    SimParams quiet() const {
        SimParams p = test::quietScene(GetParam().search);
        p.rSeparation = 0.01f;
        return p;
    }
    School step(const SimParams& p, const School& school) const {
        return test::stepOnce(GetParam().backend, p, school);
    }
};

TEST_P(Steering, SpeedsStayBetweenMinAndMaxVelocityAfterEveryStep) {
    SimParams p;
    p.fishCount = 300;
    p.neighborSearch = GetParam().search;
    p.minVelocity = 2.0f;
    p.maxVelocity = 4.0f;
    p.kSeparation = 4.0f;  // hard braking and turning: many fish would slow below 2 m/s
    School school = makeInitialSchool(p);
    school[0].velocity = glm::vec3(0.0f);  // standing still: sped up along its acceleration
    school[1].velocity = {0.1f, 0.0f, 0.0f};
    auto backend = test::makeBackend(GetParam().backend, p);
    ASSERT_NE(backend, nullptr);
    ASSERT_TRUE(backend->upload(school));
    for (int s = 0; s < 60; ++s) {
        backend->step();
        for (const Fish& f : backend->download()) {
            const float speed = glm::length(f.velocity);
            ASSERT_GE(speed, p.minVelocity * (1.0f - 1e-5f)) << "step " << s;
            ASSERT_LE(speed, p.maxVelocity * (1.0f + 1e-5f)) << "step " << s;
        }
    }
}

TEST_P(Steering, MinVelocitySpeedsUpAlongTheVelocityOrTheAcceleration) {
    SimParams p = quiet();
    p.minVelocity = 3.0f;
    p.kTarget = 2.0f;
    p.target = {0.0f, 0.0f, -30.0f};
    const School school{{{0, 0, 0}, {1, 0, 0}, {}},       // slow: along its new velocity
                        {{0, 0, 10}, {0, 0, 0.02f}, {}},  // v + a dt = 0: along a
                        {{0, 5, 0}, {5, 0, 0}, {}}};      // fast enough: untouched
    const School next = step(p, school);
    const glm::vec3 v0 = school[0].velocity + glm::vec3(0, 0, -2) * p.dt;
    expectVec(next[0].velocity, 3.0f * glm::normalize(v0));
    expectVec(next[1].velocity, {0, 0, -3});
    expectVec(next[2].velocity, school[2].velocity + next[2].acceleration * p.dt);
}

TEST_P(Steering, InverseSquareSeparationWeighsTheNearestMost) {
    SimParams p = quiet();
    p.kSeparation = 2.0f;
    p.rSeparation = 3.0f;
    // One neighbour 1 m to the right, one 2 m to the left: summed plainly the left one weighs
    // more (offsets 1 and -2), by 1/d^2 the right one does (1 and -1/2).
    const School school{{{0, 0, 0}, {}, {}}, {{1, 0, 0}, {}, {}}, {{-2, 0, 0}, {}, {}}};
    expectVec(step(p, school)[0].acceleration, {2, 0, 0});
    p.separationFalloff = SeparationFalloff::InverseSquare;
    expectVec(step(p, school)[0].acceleration, {-2, 0, 0});
    // Off the axis too: (1, 1, 0) / 2 + (0, 0, -2) / 4 = (0.5, 0.5, -0.5).
    const School other{{{0, 0, 0}, {}, {}}, {{1, 1, 0}, {}, {}}, {{0, 0, -2}, {}, {}}};
    expectVec(step(p, other)[0].acceleration, -2.0f * glm::normalize(glm::vec3(0.5f, 0.5f, -0.5f)));
}

TEST_P(Steering, ReynoldsSteersFromTheVelocityToTheDesiredOne) {
    SimParams p = quiet();
    p.steering = fishschool::Steering::Reynolds;
    p.maxVelocity = 4.0f;
    p.maxAcceleration = 10.0f;
    p.kTarget = 0.5f;
    p.target = {0.0f, 20.0f, 0.0f};
    const School school{{{0, 0, 0}, {1, 0, 0}, {}}};
    // Desired (0, 4, 0) minus the velocity (1, 0, 0), within maxAcceleration, times 0.5.
    expectVec(step(p, school)[0].acceleration, {-0.5f, 2.0f, 0.0f});
    // The force is clamped to maxAcceleration before its weight.
    p.maxAcceleration = 2.0f;
    expectVec(step(p, school)[0].acceleration,
              0.5f * 2.0f * glm::normalize(glm::vec3(-1.0f, 4.0f, 0.0f)));
    // A rule without a direction (no neighbours) gives no force: the fish does not brake.
    p.kTarget = 0.0f;
    p.kCohesion = p.kAlignment = 1.0f;
    p.rCohesion = p.rAlignment = 5.0f;
    expectVec(step(p, school)[0].acceleration, {0, 0, 0});
}

TEST_P(Steering, PrioritizedDropsTheLowestPriorityForceWhenTheBudgetIsSpent) {
    SimParams p = quiet();
    p.combine = Combine::Prioritized;
    p.maxAcceleration = 3.0f;
    p.rSeparation = 1.5f;
    p.rCohesion = 6.0f;
    p.kSeparation = 3.0f;
    p.kCohesion = 2.0f;
    const School school{{{0, 0, 0}, {}, {}}, {{1, 0, 0}, {}, {}}, {{0, 0, 5}, {}, {}}};
    const glm::vec3 cohesion = glm::normalize(glm::vec3(0.5f, 0.0f, 2.5f));
    // Separation spends the whole budget: cohesion is dropped.
    expectVec(step(p, school)[0].acceleration, {-3, 0, 0});
    // Summed instead, cohesion pulls the fish round.
    p.combine = Combine::Sum;
    const glm::vec3 sum = glm::vec3(-3, 0, 0) + 2.0f * cohesion;
    expectVec(step(p, school)[0].acceleration, 3.0f * glm::normalize(sum));
    // Separation leaves 1 of the budget: cohesion is cut to that length.
    p.combine = Combine::Prioritized;
    p.kSeparation = 2.0f;
    expectVec(step(p, school)[0].acceleration, glm::vec3(-2, 0, 0) + cohesion);
}

TEST_P(Steering, PrioritizedPutsAvoidanceFirst) {
    SimParams p = quiet();
    p.combine = Combine::Prioritized;
    p.maxAcceleration = 2.0f;
    p.kAvoidance = 2.0f;
    p.avoidanceDistance = 4.0f;
    p.rocks = {{{0.0f, 0.0f, 0.0f}, 5.0f}};
    p.kTarget = 5.0f;  // toward the rock, but after avoidance
    p.target = {0.0f, 0.0f, 0.0f};
    // 1 m from the surface: avoidance 2 * 3/4 = 1.5 outward, then 0.5 of the target's pull.
    const School school{{{0, -6, 0}, {}, {}}};
    expectVec(step(p, school)[0].acceleration, {0, -1.0f, 0});
}

/// One fish swimming straight at a rock's centre, with avoidance `mode`: how far past the rock's
/// centre it gets in 200 steps (x from the centre), and whether it ever stood inside the rock.
float headOnPast(const test::BackendSetup& setup, Avoidance mode) {
    SimParams p = test::quietScene(setup.search);
    p.rSeparation = 0.01f;
    p.rocks = {{{0.0f, 0.0f, 0.0f}, 3.0f}};
    p.kAvoidance = 10.0f;
    p.avoidanceDistance = 6.0f;
    p.avoidance = mode;
    p.maxVelocity = 5.0f;
    p.maxAcceleration = 10.0f;
    p.dt = 0.05f;
    auto backend = test::makeBackend(setup.backend, p);
    if (!backend) return -1e9f;
    EXPECT_TRUE(backend->upload(School{{{-15, 0, 0}, {5, 0, 0}, {}}}));
    float furthest = -1e9f;
    for (int s = 0; s < 200; ++s) {
        backend->step();
        const glm::vec3 at = backend->download()[0].position;
        EXPECT_GT(glm::length(at), 3.0f) << "step " << s;
        furthest = std::max(furthest, at.x);
    }
    return furthest;
}

TEST_P(Steering, RaysSteerRoundARockThatRepelWouldHit) {
    // Repel pushes straight back along the line: the fish never gets past the rock.
    EXPECT_LT(headOnPast(GetParam(), Avoidance::Repel), -3.0f);
    // Rays turn it aside, and it swims on past.
    EXPECT_GT(headOnPast(GetParam(), Avoidance::Rays), 10.0f);
}

TEST_P(Steering, RaysTakeTheFirstFreeDirectionOfTheFixedSet) {
    SimParams p = quiet();
    p.avoidance = Avoidance::Rays;
    p.kAvoidance = 1.0f;
    p.avoidanceDistance = 10.0f;
    p.rocks = {{{0.0f, 0.0f, 0.0f}, 1.0f}};
    // Heading +z at a rock of radius 1, 5 m ahead: the 20-degree ring clears it (the ray passes
    // 5 sin 20 = 1.7 m from the centre). Its first direction lies toward the heading's side,
    // cross((0, 1, 0), heading) = +x.
    const School ahead{{{0, 0, -5}, {0, 0, 1}, {}}};
    expectVec(step(p, ahead)[0].acceleration, {0.34202014f, 0.0f, 0.93969262f});
    // The way ahead is free: no steer.
    const School clear{{{3, 0, -5}, {0, 0, 1}, {}}};
    expectVec(step(p, clear)[0].acceleration, {0, 0, 0});
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Steering, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

TEST(SteeringConfig, KeysRoundTripAndAreChecked) {
    const auto loaded = parseConfig(
        R"({"minVelocity": 2, "steering": "reynolds", "separationFalloff": "inverse-square",
            "combine": "prioritized", "avoidance": "rays"})",
        "test.json");
    ASSERT_TRUE(loaded) << loaded.error();
    EXPECT_EQ(loaded->minVelocity, 2.0f);
    EXPECT_EQ(loaded->steering, fishschool::Steering::Reynolds);
    EXPECT_EQ(loaded->separationFalloff, SeparationFalloff::InverseSquare);
    EXPECT_EQ(loaded->combine, Combine::Prioritized);
    EXPECT_EQ(loaded->avoidance, Avoidance::Rays);
    const auto again = parseConfig(configToJson(*loaded), "again.json");
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(*again, *loaded);

    const std::pair<const char*, std::vector<const char*>> bad[] = {
        {R"({"minVelocity": -1})", {"minVelocity", "-1", ">= 0"}},
        {R"({"minVelocity": 6})", {"minVelocity", "6", "<= maxVelocity (5)"}},
        {R"({"minVelocity": "fast"})", {"'minVelocity'", "number"}},
        {R"({"steering": "boids"})", {"'steering'", "boids", R"("article" or "reynolds")"}},
        {R"({"separationFalloff": 2})", {"'separationFalloff'", R"("inverse-square")"}},
        {R"({"combine": "max"})", {"'combine'", "max", R"("sum" or "prioritized")"}},
        {R"({"avoidance": "sonar"})", {"'avoidance'", "sonar", R"("repel" or "rays")"}},
    };
    for (const auto& [json, mustSay] : bad) {
        const auto refused = parseConfig(json, "test.json");
        ASSERT_FALSE(refused) << json;
        for (const char* text : mustSay) EXPECT_THAT(refused.error(), HasSubstr(text)) << json;
    }
}

}  // namespace
}  // namespace fishschool
