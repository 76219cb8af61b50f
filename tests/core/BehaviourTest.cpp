// The behaviours beyond docs/model.md's "One step", taken from the other source documents: seeking
// a target and steering away from rocks before touching them. Hand-built scenes through every
// backend this build has, with both searches; their config keys and rules.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "core/FlowField.h"
#include "core/Scenario.h"
#include "io/ConfigIO.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;

using test::BackendSetup;
using test::expectVec;

/// quiet(): no neighbour rule and no rock, so only the behaviour under test steers.
class Behaviours : public test::PerBackend {};

TEST_P(Behaviours, SeekingSteersStraightAtTheTarget) {
    SimParams p = quiet();
    p.kTarget = 2.0f;
    p.target = {10.0f, 0.0f, 0.0f};
    const School school{{{0, 0, 0}, {}, {}}, {{10, 10, -10}, {}, {}}, {{10, 0, 0}, {}, {}}};
    const School next = step(p, school);
    expectVec(next[0].acceleration, {2, 0, 0});
    expectVec(next[1].acceleration, {0, -2.0f / std::sqrt(2.0f), 2.0f / std::sqrt(2.0f)});
    expectVec(next[2].acceleration, {0, 0, 0});  // at the target: no direction, no steer
    // A negative weight flees.
    p.kTarget = -1.0f;
    expectVec(step(p, school)[0].acceleration, {-1, 0, 0});
}

// A length whose square overflows a float (past about 1.8e19) still has its direction.
TEST_P(Behaviours, ATargetFarBeyondTheRangeOfASquareIsStillSought) {
    SimParams p = quiet();
    p.kTarget = 2.0f;
    p.target = {3e38f, 0.0f, 0.0f};
    const School school{{{0, 0, 0}, {}, {}}};
    expectVec(step(p, school)[0].acceleration, {2, 0, 0});
    p.target = {-2e19f, 2e19f, 0.0f};
    expectVec(step(p, school)[0].acceleration,
              {-2.0f / std::sqrt(2.0f), 2.0f / std::sqrt(2.0f), 0});
}

// dt so large that a * dt overflows a float, with a speed limit small enough that the tank
// still allows it: the fish moves at its top speed along its acceleration, and nothing is NaN.
TEST_P(Behaviours, AStepTooLargeForAFloatStillClampsTheSpeed) {
    SimParams p = quiet();
    p.dt = 1e38f;
    p.maxVelocity = 1e-37f;
    p.kTarget = 1000.0f;
    p.target = {0.0f, 0.0f, 40.0f};
    ASSERT_TRUE(validate(p)) << validate(p).error();
    const School next = step(p, {{{0, 0, 0}, {0, 0, 0}, {}}});
    ASSERT_TRUE(std::isfinite(next[0].velocity.z)) << next[0].velocity.z;
    EXPECT_FLOAT_EQ(next[0].velocity.z, 1e-37f);
    EXPECT_EQ(next[0].velocity.x, 0.0f);
    EXPECT_NEAR(next[0].position.z, 10.0f, 1e-4f);
}

// Two rocks a step apart, the fish between them heading into one: the bounce back would land it
// in the other, so it waits where it is, turned about (found by scripts/soak.sh, steering couzin).
TEST_P(Behaviours, ABounceThatWouldLandInAnotherRockWaitsInstead) {
    SimParams p = quiet();
    p.dt = 1.0f;
    p.maxVelocity = 12.0f;
    p.rocks = {{{-10.0f, 0.0f, 0.0f}, 4.0f}, {{10.0f, 0.0f, 0.0f}, 4.0f}};  // gap 12: one step
    ASSERT_TRUE(validate(p)) << validate(p).error();
    const School school{{{0, 0, 0}, {-12, 0, 0}, {}}};
    School next = step(p, school);
    expectVec(next[0].position, {0, 0, 0});
    expectVec(next[0].velocity, {12, 0, 0});
    next = step(p, next);  // and back the other way
    expectVec(next[0].position, {0, 0, 0});
    expectVec(next[0].velocity, {-12, 0, 0});
    // With room behind it, the plain bounce of docs/model.md's step 6.
    p.rocks.pop_back();
    next = step(p, school);
    expectVec(next[0].position, {12, 0, 0});
    expectVec(next[0].velocity, {12, 0, 0});
}

TEST_P(Behaviours, AvoidanceGrowsFromTheEdgeOfItsReachToTheRock) {
    SimParams p = quiet();
    p.kAvoidance = 4.0f;
    p.avoidanceDistance = 4.0f;
    p.rocks = {{{0.0f, 0.0f, 0.0f}, 5.0f}, {{0.0f, 0.0f, 30.0f}, 2.0f}};
    const School school{
        {{8, 0, 0}, {}, {}},      // 3 m from the first rock's surface: weight 1/4
        {{0, -6, 0}, {}, {}},     // 1 m below it: weight 3/4
        {{0, 10, 0}, {}, {}},     // 5 m away: out of reach
        {{0, 0, 25.5f}, {}, {}},  // 2.5 m from the second rock: weight 3/8
    };
    const School next = step(p, school);
    expectVec(next[0].acceleration, {1, 0, 0});
    expectVec(next[1].acceleration, {0, -3, 0});
    expectVec(next[2].acceleration, {0, 0, 0});
    expectVec(next[3].acceleration, {0, 0, -1.5f});
}

TEST_P(Behaviours, AvoidanceOfSeveralRocksIsAtMostItsWeight) {
    SimParams p = quiet();
    p.kAvoidance = 2.0f;
    p.avoidanceDistance = 10.0f;
    // A fish between two rocks that push it from both sides, and two below that lift it by more
    // than 1 together.
    p.rocks = {{{-3.0f, 0.0f, 0.0f}, 2.0f},
               {{3.0f, 0.0f, 0.0f}, 2.0f},
               {{-2.0f, -2.0f, 0.0f}, 1.0f},
               {{2.0f, -2.0f, 0.0f}, 1.0f}};
    const School next = step(p, {{{0, 0, 0}, {}, {}}});
    EXPECT_NEAR(glm::length(next[0].acceleration), 2.0f, 1e-5f);
    expectVec(next[0].acceleration, {0, 2, 0});  // the side pushes cancel
}

TEST_P(Behaviours, AtWeightZeroTheyChangeNoBit) {
    SimParams off;
    off.fishCount = 400;
    off.neighborSearch = GetParam().search;
    SimParams placed = off;
    placed.target = {5.0f, -3.0f, 2.0f};
    placed.avoidanceDistance = 12.0f;
    const School school = makeInitialSchool(off);
    School a = school, b = school;
    for (int s = 0; s < 20; ++s) {
        a = step(off, a);
        b = step(placed, b);
    }
    if (backendEntry(GetParam().backend).reproducible) {
        EXPECT_EQ(a, b);
    } else {
        // Its sums come in a different order each run: the same school to within rounding.
        EXPECT_LT(test::maxRelativeError(b, a, off), 1e-4);
    }
}

/// One fish that only seeks, from behind a rock that stands between it and the target: how
/// close it comes to the target, and how far it gets along the way, in `steps` steps. Fish, rock
/// and target lie on one line of the flow field's lattice, the rock's centre midway between two
/// nodes, so that a field that let its ways pass through a rock would lead straight into it.
struct SeekRun {
    float closest = 1e9f;
    float furthest = -1e9f;  ///< along the line, from the rock's centre
};
SeekRun seekPastARock(const BackendSetup& setup, TargetPath path, int steps, float rockRadius) {
    SimParams p = test::quietScene(setup.search);
    p.rSeparation = 0.01f;  // at weight 0: only so that the grid search runs
    p.bounds = {40.0f, 20.0f, 40.0f};
    p.rocks.clear();
    const auto lattice = FlowField::build(p);
    const float spacing = lattice->spacing();
    auto node = [&](float x) { return lattice->origin() + spacing * glm::vec3(x, 12.0f, 25.0f); };
    const glm::vec3 start = node(12.0f), centre = node(25.5f);
    p.rocks.assign(1, Rock{centre, rockRadius});
    p.kTarget = 5.0f;
    p.target = node(38.0f);
    p.targetPath = path;
    p.maxAcceleration = 5.0f;
    p.maxVelocity = 5.0f;
    p.dt = 0.05f;
    EXPECT_TRUE(validate(p)) << validate(p).error();
    SeekRun run;
    auto backend = test::makeBackend(setup.backend, p);
    if (!backend) return run;
    const auto uploaded = backend->upload(School{{start, {}, {}}});
    EXPECT_TRUE(uploaded) << uploaded.error();
    if (!uploaded) return run;
    for (int s = 0; s < steps; ++s) {
        backend->step();
        const glm::vec3 at = backend->download()[0].position;
        EXPECT_TRUE(isInScene(at, p)) << "step " << s;
        run.closest = std::min(run.closest, glm::length(at - p.target));
        run.furthest = std::max(run.furthest, at.x - centre.x);
    }
    return run;
}

TEST_P(Behaviours, AFlowFieldLeadsAroundTheRockThatTheStraightWayHits) {
    // A big rock, and one so thin (radius under half the node spacing, about 1.6 m here) that
    // no node lies inside it: only the steps between nodes can tell it is there.
    for (const float radius : {6.0f, 0.6f}) {
        // Straight at the target, the fish bounces off the rock again and again.
        const SeekRun straight = seekPastARock(GetParam(), TargetPath::Straight, 600, radius);
        EXPECT_LT(straight.furthest, 0.0f) << "rock radius " << radius;
        // Along the flow field it swims round the rock and reaches the target.
        const SeekRun flow = seekPastARock(GetParam(), TargetPath::FlowField, 600, radius);
        EXPECT_LT(flow.closest, 1.5f) << "rock radius " << radius;
    }
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Behaviours, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

TEST(FlowField, InOpenWaterItPointsStraightAtTheTarget) {
    SimParams p;
    p.rocks.clear();
    p.target = {12.0f, -5.0f, 20.0f};
    const auto field = FlowField::build(p);
    for (const glm::vec3 at : {glm::vec3(-30, 10, -30), glm::vec3(35, -15, 0), glm::vec3(0, 0, 0),
                               glm::vec3(12, -5, 5)}) {
        const glm::vec3 expected = glm::normalize(p.target - at);
        EXPECT_GT(glm::dot(glm::normalize(field->sample(at)), expected), 0.999f)
            << at.x << " " << at.y << " " << at.z;
    }
}

/// Any position, NaN and infinities included, samples nodes of the field: never memory outside it
/// (AddressSanitizer watches this test), and a point beyond the lattice takes its border's value.
TEST(FlowField, ASampleNeverLeavesTheField) {
    SimParams p;
    const auto field = FlowField::build(p);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    for (const glm::vec3 at : {glm::vec3(nan), glm::vec3(inf, -inf, nan), glm::vec3(-inf),
                               glm::vec3(3e38f, -3e38f, 1e30f), glm::vec3(nan, 0.0f, 0.0f)}) {
        const glm::vec3 direction = field->sample(at);
        EXPECT_TRUE(std::isfinite(direction.x) && std::isfinite(direction.y) &&
                    std::isfinite(direction.z))
            << at.x << " " << at.y << " " << at.z;
    }
    EXPECT_EQ(field->sample(glm::vec3(-inf)), field->sample(-p.bounds - 100.0f));
    EXPECT_EQ(field->sample(glm::vec3(inf)), field->sample(p.bounds + 100.0f));
}

TEST(FlowField, BehindARockItTurnsAsideAndInsideItPointsOut) {
    SimParams p;
    p.rocks = {{{0.0f, 0.0f, 0.0f}, 8.0f}};
    p.target = {25.0f, 0.0f, 0.0f};
    const auto field = FlowField::build(p);
    // Right behind the rock, straight ahead is blocked: the way leads sideways round it.
    const glm::vec3 behind = glm::normalize(field->sample({-12.0f, 0.5f, 0.5f}));
    EXPECT_LT(behind.x, 0.9f);
    EXPECT_GT(behind.x, 0.3f);  // still on toward the target's side
    // Inside the rock, out of it.
    const glm::vec3 inside = glm::normalize(field->sample({0.0f, 6.5f, 0.0f}));
    EXPECT_GT(inside.y, 0.9f);
    // Every node is a unit direction or zero.
    for (const glm::vec4& node : field->nodes()) {
        const float length = glm::length(glm::vec3(node));
        EXPECT_TRUE(length == 0.0f || std::abs(length - 1.0f) < 1e-5f);
    }
}

TEST(FlowField, ATargetFarOutsideTheTankIsSoughtFromItsNearestSide) {
    SimParams p;
    p.target = {1e6f, 0.0f, -1e6f};
    const glm::vec3 at = glm::normalize(FlowField::build(p)->sample({0.0f, 5.0f, 0.0f}));
    EXPECT_GT(at.x, 0.5f);
    EXPECT_LT(at.z, -0.5f);
    // So far that distances overflow a float: still a field of finite directions (under UBSan
    // too: the target's cell is clamped before it becomes an integer).
    p.target = {1e30f, 0.0f, -1e30f};
    const auto far = FlowField::build(p);  // held: a temporary would die before the loop
    for (const glm::vec4& node : far->nodes())
        for (int k = 0; k < 3; ++k) ASSERT_TRUE(std::isfinite(node[k]));
}

TEST(FlowField, ItIsBuiltOnlyWhenNeededAndKeptWhileItMatches) {
    SimParams p;
    EXPECT_EQ(FlowField::forParams(p, nullptr), nullptr);  // no seeking
    p.kTarget = 1.0f;
    EXPECT_EQ(FlowField::forParams(p, nullptr), nullptr);  // seeking straight
    p.targetPath = TargetPath::FlowField;
    const auto first = FlowField::forParams(p, nullptr);
    ASSERT_NE(first, nullptr);
    p.kCohesion = 3.0f;  // nothing the field depends on
    EXPECT_EQ(FlowField::forParams(p, first), first);
    p.target.x = 5.0f;
    EXPECT_NE(FlowField::forParams(p, first), first);
    // A big tank gets coarser nodes, not more of them.
    p.bounds = {2000.0f, 500.0f, 2000.0f};
    p.rocks.clear();
    const auto big = FlowField::build(p);
    const glm::ivec3 d = big->dims();
    EXPECT_LT(std::size_t(d.x) * d.y * d.z, 2 * FlowField::kTargetNodes);
}

TEST(BehaviourConfig, KeysRoundTripAndAreChecked) {
    const auto loaded = parseConfig(
        R"({"kTarget": 1.5, "target": [3, -2, 7.25], "targetPath": "flow-field",
            "kAvoidance": 2, "avoidanceDistance": 8})",
        "test.json");
    ASSERT_TRUE(loaded) << loaded.error();
    EXPECT_EQ(loaded->kTarget, 1.5f);
    EXPECT_EQ(loaded->target, glm::vec3(3.0f, -2.0f, 7.25f));
    EXPECT_EQ(loaded->targetPath, TargetPath::FlowField);
    EXPECT_EQ(loaded->kAvoidance, 2.0f);
    EXPECT_EQ(loaded->avoidanceDistance, 8.0f);
    const auto again = parseConfig(configToJson(*loaded), "again.json");
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(*again, *loaded);

    const std::pair<const char*, std::vector<const char*>> bad[] = {
        {R"({"avoidanceDistance": -1})", {"avoidanceDistance", ">= 0"}},
        {R"({"target": [1, 2]})", {"'target'", "3 numbers"}},
        {R"({"target": [1, 2, "x"]})", {"'target[2]'", "number"}},
        {R"({"kTarget": "strong"})", {"'kTarget'", "number"}},
        {R"({"targetPath": "bee-line"})", {"'targetPath'", "bee-line", "\"flow-field\""}},
        {R"({"kAvoidance": 1e39})", {"'kAvoidance'", "range of a float"}},
    };
    for (const auto& [json, mustSay] : bad) {
        const auto refused = parseConfig(json, "test.json");
        ASSERT_FALSE(refused) << json;
        for (const char* text : mustSay) EXPECT_THAT(refused.error(), HasSubstr(text)) << json;
    }
    SimParams p;
    p.target.y = std::numeric_limits<float>::infinity();
    const auto infinite = validate(p);
    ASSERT_FALSE(infinite);
    EXPECT_THAT(infinite.error(), HasSubstr("target"));
}

}  // namespace
}  // namespace fishschool
