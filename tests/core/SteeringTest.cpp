// The steering of the other source documents: a minimum speed, inverse-square separation,
// Reynolds' steer-towards, the prioritised sum of forces and avoidance by rays. Hand-built scenes
// through every backend this build has, with both searches; expected values come from the
// formulas of docs/model.md written out here.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "app_model/Presets.h"
#include "core/Scenario.h"
#include "io/ConfigIO.h"
#include "io/StateIO.h"

namespace fishschool {
namespace {

using test::expectVec;
using ::testing::HasSubstr;

/// quiet(): no rule on; a test switches on what it checks.
class Steering : public test::PerBackend {};

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

TEST_P(Steering, FollowersThatSeeALeaderCloseOnItAndLeadersIgnoreTheFlock) {
    SimParams p = quiet();
    p.leaders = 1;
    p.kLeader = 2.0f;
    p.rCohesion = 10.0f;
    p.kCohesion = 1.0f;
    const School school{
        {{0, 0, 0}, {1, 0, 0}, {}},   // the leader: with a neighbour in reach, it still ignores it
        {{5, 0, 0}, {0, 0, 1}, {}},   // sees the leader 5 m away: leader plus cohesion
        {{30, 0, 0}, {0, 0, 1}, {}},  // sees none: no leader term, and nobody to flock with
    };
    const School next = step(p, school);
    expectVec(next[0].acceleration, {0, 0, 0});
    // Cohesion toward the leader (its only neighbour) plus 2 toward the leader.
    expectVec(next[1].acceleration, {-3, 0, 0});
    expectVec(next[2].acceleration, {0, 0, 0});
    // With a target, the leader seeks it (and only it).
    p.kTarget = 1.5f;
    p.target = {0.0f, 0.0f, 20.0f};
    expectVec(step(p, school)[0].acceleration, {0, 0, 1.5f});
    // A leader outside the field of view is not seen: only cohesion is left (the leader is still
    // a neighbour of the flock, but not in view either).
    p.kTarget = 0.0f;
    p.viewAngle = 90.0f;
    const School behind{{{0, 0, 0}, {1, 0, 0}, {}}, {{5, 0, 0}, {1, 0, 0}, {}}};
    expectVec(step(p, behind)[1].acceleration, {0, 0, 0});
}

TEST_P(Steering, FollowersThatSeeNoLeaderStillFlock) {
    SimParams p = quiet();
    p.kCohesion = 1.0f;
    p.kAlignment = 1.0f;
    p.rCohesion = 6.0f;
    p.rAlignment = 6.0f;
    // A group of four far from the leader (fish 0).
    const School school{{{-40, 0, 0}, {1, 0, 0}, {}},
                        {{20, 0, 0}, {0, 1, 0}, {}},
                        {{22, 1, 0}, {1, 0, 0}, {}},
                        {{21, -2, 1}, {0, 0, 1}, {}},
                        {{19, 0, 2}, {1, 1, 0}, {}}};
    const School without = step(p, school);
    p.leaders = 1;
    p.kLeader = 5.0f;
    const School with = step(p, school);
    for (std::size_t i = 1; i < school.size(); ++i) {
        EXPECT_NE(with[i].acceleration, glm::vec3(0.0f)) << "fish " << i;
        expectVec(with[i].acceleration, without[i].acceleration);
    }
}

TEST_P(Steering, FollowersGatherOnTheLeaderOverTime) {
    SimParams p = quiet();
    p.leaders = 1;
    p.kLeader = 3.0f;
    p.rCohesion = 30.0f;
    p.maxVelocity = 4.0f;
    p.maxAcceleration = 3.0f;
    p.dt = 0.05f;
    // Twelve followers on a ring 15 m round the leader, standing still.
    School school{{{0, 0, 0}, {0, 0, 0}, {}}};
    for (int i = 0; i < 12; ++i) {
        const float angle = 0.5235988f * float(i);
        school.push_back({{15.0f * std::cos(angle), 2.0f, 15.0f * std::sin(angle)}, {}, {}});
    }
    auto backend = test::makeBackend(GetParam().backend, p);
    ASSERT_NE(backend, nullptr);
    ASSERT_TRUE(backend->upload(school));
    for (int s = 0; s < 20; ++s) backend->step();
    const School after = backend->download();
    // After 1 s at 3 m/s^2 toward the leader, each has come 1.5 m closer.
    for (std::size_t i = 1; i < school.size(); ++i) {
        const float before = glm::length(school[i].position - school[0].position);
        EXPECT_NEAR(glm::length(after[i].position - after[0].position), before - 1.5f, 0.1f)
            << "follower " << i;
    }
    EXPECT_EQ(after[0].position, glm::vec3(0.0f));  // the leader, with nothing to seek, stays
}

TEST_P(Steering, PredatorsChaseTheNearestFishWhichFleeThem) {
    SimParams p = quiet();
    p.predators = 1;
    p.maxAcceleration = 6.0f;
    p.kFlee = 4.0f;
    p.fleeRadius = 10.0f;
    const School school{{{0, 0, 0}, {}, {}},    // the predator
                        {{3, 0, 0}, {}, {}},    // nearest: chased; flees with weight 0.7
                        {{-5, 0, 0}, {}, {}},   // flees with weight 0.5
                        {{0, 0, 12}, {}, {}}};  // out of reach
    const School next = step(p, school);
    expectVec(next[0].acceleration, {6, 0, 0});
    expectVec(next[1].acceleration, {2.8f, 0, 0});
    expectVec(next[2].acceleration, {-2, 0, 0});
    expectVec(next[3].acceleration, {0, 0, 0});
}

TEST_P(Steering, PredatorsKeepToTheirOwnSpeedLimit) {
    SimParams p = quiet();
    p.predators = 1;
    p.maxVelocity = 2.0f;
    p.predatorMaxVelocity = 3.0f;
    p.maxAcceleration = 50.0f;
    p.kFlee = 50.0f;
    const School school{{{0, 0, 0}, {}, {}}, {{4, 0, 0}, {}, {}}};
    auto backend = test::makeBackend(GetParam().backend, p);
    ASSERT_NE(backend, nullptr);
    ASSERT_TRUE(backend->upload(school));
    for (int s = 0; s < 20; ++s) backend->step();
    const School after = backend->download();
    EXPECT_NEAR(glm::length(after[0].velocity), 3.0f, 1e-4f);
    EXPECT_NEAR(glm::length(after[1].velocity), 2.0f, 1e-4f);
}

/// The mean over `steps` steps of the distance from each predator to its nearest fish.
float meanPredatorGap(const test::BackendSetup& setup, float kFlee) {
    SimParams p = articleParams();  // a loose school, so that the chase can be seen
    p.fishCount = 300;
    p.seed = 3;
    p.neighborSearch = setup.search;
    p.predators = 2;
    p.predatorMaxVelocity = 6.0f;
    p.kFlee = kFlee;
    p.fleeRadius = 12.0f;
    auto backend = test::makeBackend(setup.backend, p);
    if (!backend) return 0.0f;
    EXPECT_TRUE(backend->upload(makeInitialSchool(p)));
    double sum = 0.0;
    int count = 0;
    for (int s = 0; s < 300; ++s) {
        backend->step();
        if (s < 100) continue;  // the chase first has to begin
        const School school = backend->download();
        for (std::size_t q = 0; q < 2; ++q) {
            float nearest = 1e9f;
            for (std::size_t i = 2; i < school.size(); ++i)
                nearest = std::min(nearest, glm::length(school[i].position - school[q].position));
            sum += nearest;
            ++count;
        }
    }
    return static_cast<float>(sum / count);
}

TEST_P(Steering, FleeingKeepsThePredatorsFurtherFromTheirPrey) {
    const float without = meanPredatorGap(GetParam(), 0.0f);
    const float with = meanPredatorGap(GetParam(), 6.0f);
    EXPECT_GT(with, without * 1.2f) << "with " << with << " m, without " << without << " m";
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Steering, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

TEST(SteeringConfig, KeysRoundTripAndAreChecked) {
    const auto loaded = parseConfig(
        R"({"minVelocity": 2, "steering": "reynolds", "separationFalloff": "inverse-square",
            "combine": "prioritized", "avoidance": "rays", "leaders": 2, "kLeader": 1.5,
            "predators": 3, "predatorMaxVelocity": 6.5, "kFlee": 2.25, "fleeRadius": 7})",
        "test.json");
    ASSERT_TRUE(loaded) << loaded.error();
    EXPECT_EQ(loaded->minVelocity, 2.0f);
    EXPECT_EQ(loaded->steering, fishschool::Steering::Reynolds);
    EXPECT_EQ(loaded->separationFalloff, SeparationFalloff::InverseSquare);
    EXPECT_EQ(loaded->combine, Combine::Prioritized);
    EXPECT_EQ(loaded->avoidance, Avoidance::Rays);
    EXPECT_EQ(loaded->leaders, 2);
    EXPECT_EQ(loaded->kLeader, 1.5f);
    EXPECT_EQ(loaded->predators, 3);
    EXPECT_EQ(loaded->predatorMaxVelocity, 6.5f);
    EXPECT_EQ(loaded->kFlee, 2.25f);
    EXPECT_EQ(loaded->fleeRadius, 7.0f);
    const auto again = parseConfig(configToJson(*loaded), "again.json");
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(*again, *loaded);

    const std::pair<const char*, std::vector<const char*>> bad[] = {
        {R"({"minVelocity": -1})", {"minVelocity", "-1", ">= 0"}},
        {R"({"maxVelocity": 5, "minVelocity": 6})", {"minVelocity", "6", "<= maxVelocity (5)"}},
        {R"({"minVelocity": "fast"})", {"'minVelocity'", "number"}},
        {R"({"steering": "boids"})",
         {"'steering'", "boids", R"("article", "reynolds", "couzin", "vicsek" or "burst-and-coast")"}},
        {R"({"separationFalloff": 2})", {"'separationFalloff'", R"("inverse-square")"}},
        {R"({"combine": "max"})", {"'combine'", "max", R"("sum" or "prioritized")"}},
        {R"({"avoidance": "sonar"})", {"'avoidance'", "sonar", R"("repel" or "rays")"}},
        {R"({"leaders": -1})", {"'leaders'", "-1", "whole number from 0"}},
        {R"({"leaders": 1.5})", {"'leaders'", "1.5", "whole number from 0"}},
        {R"({"fishCount": 10, "leaders": 6, "predators": 5})",
         {"leaders + predators", "fishCount (10)"}},
        {R"({"predators": 1, "predatorMaxVelocity": 0})", {"predatorMaxVelocity", "> 0"}},
        {R"({"predators": 1, "predatorMaxVelocity": 3000})", {"predatorMaxVelocity * dt"}},
        {R"({"fleeRadius": -2})", {"fleeRadius", "-2", ">= 0"}},
        {R"({"kFlee": "run"})", {"'kFlee'", "number"}},
        {R"({"kLeader": 2e6})", {"kLeader", "1e6"}},
    };
    for (const auto& [json, mustSay] : bad) {
        const auto refused = parseConfig(json, "test.json");
        ASSERT_FALSE(refused) << json;
        for (const char* text : mustSay) EXPECT_THAT(refused.error(), HasSubstr(text)) << json;
    }
}

}  // namespace
}  // namespace fishschool

namespace fishschool {
namespace {

/// The example configs of docs/config.md are the presets of the same names.
TEST(SteeringPresets, EachExampleConfigIsItsPreset) {
    const std::pair<const char*, const char*> pairs[] = {{"unity_boids.json", "Unity boids"},
                                                         {"leader.json", "Leader and followers"},
                                                         {"predator.json", "Predator"},
                                                         {"couzin2002.json", "Couzin 2002"}};
    for (const auto& [file, name] : pairs) {
        const auto loaded =
            loadConfig(std::filesystem::path(FISHSCHOOL_SOURCE_DIR) / "docs" / "examples" / file);
        ASSERT_TRUE(loaded) << loaded.error();
        const auto all = presets();
        const auto preset =
            std::find_if(all.begin(), all.end(), [&](const Preset& p) { return p.name == name; });
        ASSERT_NE(preset, all.end()) << name;
        EXPECT_EQ(*loaded, preset->params) << file;
    }
}

TEST(KindsInState, WithoutLeadersOrPredatorsTheStateFileIsTheSame) {
    SimParams p;
    const School school{{{1.5f, -2, 3}, {0.25f, 0, -1}, {}}, {{0, 0, 0}, {1, 2, 3}, {}}};
    EXPECT_EQ(stateToCsv(school, p), stateToCsv(school));
    EXPECT_EQ(stateToCsv(school, p), "x,y,z,vx,vy,vz\n1.5,-2,3,0.25,0,-1\n0,0,0,1,2,3\n");
}

TEST(KindsInState, LeadersAndPredatorsAreSavedAndLoadedWithTheSchool) {
    SimParams p;
    p.rocks.clear();
    p.leaders = 1;
    p.predators = 2;
    School school(5);
    for (std::size_t i = 0; i < school.size(); ++i)
        school[i] = {{float(i), 0.5f, -1.0f}, {0.0f, float(i), 0.0f}, {}};
    const std::string csv = stateToCsv(school, p);
    EXPECT_EQ(csv,
              "x,y,z,vx,vy,vz,kind\n0,0.5,-1,0,0,0,leader\n1,0.5,-1,0,1,0,predator\n"
              "2,0.5,-1,0,2,0,predator\n3,0.5,-1,0,3,0,fish\n4,0.5,-1,0,4,0,fish\n");
    const auto loaded = parseStateCsv(csv, p, "s.csv");
    ASSERT_TRUE(loaded) << loaded.error();
    EXPECT_EQ(*loaded, school);
    // A row whose kind is not the one the configuration gives it is refused, naming it.
    SimParams other = p;
    other.leaders = 2;
    other.predators = 1;
    const auto refused = parseStateCsv(csv, other, "s.csv");
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("s.csv:3: kind 'predator'"));
    EXPECT_THAT(refused.error(), HasSubstr("a leader"));
    const auto unknown = parseStateCsv("x,y,z,vx,vy,vz,kind\n0,0,0,0,0,0,shark\n", p, "s.csv");
    ASSERT_FALSE(unknown);
    EXPECT_THAT(unknown.error(), HasSubstr("s.csv:2: kind 'shark'"));
}

}  // namespace
}  // namespace fishschool
