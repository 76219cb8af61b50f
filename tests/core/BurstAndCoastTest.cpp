// docs/model.md "Burst-and-coast swimming": the glide between kicks, kicks at their instants, the
// turns of a kick (their mirror symmetry, the neighbours each selection heeds), the wall, the
// rules in validate(), and cpu, tbb and gpu on one school.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "core/ParamTable.h"
#include "core/Scenario.h"
#include "core/StepRule.h"

namespace fishschool {
namespace {

using test::expectVec;

/// Lone fish in open water, no neighbour heeded, no random turn: a kick keeps the heading.
SimParams lone() {
    SimParams p;
    p.steering = Steering::BurstAndCoast;
    p.boundary = Boundary::Open;
    p.rocks.clear();
    p.dimensions = 2;
    p.dt = 0.01f;
    p.gammaRandom = 0.0f;
    p.rCohesion = 0.0f;
    return p;
}

/// The rummy-nose tank: five fish in a round tank of radius 0.25 m, flat.
SimParams roundTank() {
    return rummyNoseParams();
}

class BurstAndCoast : public test::PerBackend {};

TEST_P(BurstAndCoast, BetweenKicksAFishGlidesStraightItsSpeedDecaying) {
    SimParams p = lone();
    p.neighborSearch = GetParam().search;
    ASSERT_TRUE(validate(p)) << validate(p).error();
    Fish fish{{1, 0, 2}, {0.3f, 0, 0.4f}, {}};
    fish.kickClock = 100.0f;
    const School next = step(p, {fish});
    const float decay = std::exp(-p.dt / p.kickTau0);
    const float glide = p.kickTau0 * (1.0f - decay);
    expectVec(next[0].velocity, fish.velocity * decay, 1e-6f);
    expectVec(next[0].position, fish.position + fish.velocity * glide, 1e-6f);
    EXPECT_NEAR(next[0].kickClock, 100.0f - p.dt, 1e-5f);
    // The acceleration of the step: the change of velocity over dt.
    expectVec(next[0].acceleration, (next[0].velocity - fish.velocity) / p.dt, 1e-4f);
}

TEST_P(BurstAndCoast, AKickInsideAStepComesAtItsInstantWithTheTimeToTheNext) {
    SimParams p = lone();
    p.neighborSearch = GetParam().search;
    Fish fish{{0, 0, 0}, {0.1f, 0, 0}, {}};
    fish.kickClock = 0.3f * p.dt;
    const School next = step(p, {fish});
    // Kicked along its heading (no turn), at a speed drawn within the limits, then glided on.
    const float speed = glm::length(next[0].velocity);
    const float restDecay = std::exp(-0.7f * p.dt / p.kickTau0);
    EXPECT_GE(speed, p.kickSpeedMin * restDecay * 0.999f);
    EXPECT_LE(speed, p.kickSpeedMax * 1.0001f);
    EXPECT_NEAR(next[0].velocity.z, 0.0f, 1e-6f);
    EXPECT_GT(next[0].velocity.x, 0.0f);
    // The next kick at least kickDurationMin after this one.
    EXPECT_GE(next[0].kickClock, p.kickDurationMin - 0.7f * p.dt - 1e-6f);
    // It glided 0.3 dt at 0.1 m/s before the kick, then 0.7 dt at its new speed.
    const float before = 0.1f * p.kickTau0 * (1.0f - std::exp(-0.3f * p.dt / p.kickTau0));
    EXPECT_GT(next[0].position.x, before);
}

TEST_P(BurstAndCoast, AFreshSchoolKicksAtScatteredInstantsAndStaysInItsRoundTank) {
    SimParams p = roundTank();
    p.neighborSearch = GetParam().search;
    p.fishCount = 12;
    ASSERT_TRUE(validate(p)) << validate(p).error();
    const School start = makeInitialSchool(p);
    for (const Fish& fish : start) {
        EXPECT_EQ(fish.velocity.y, 0.0f);
        EXPECT_EQ(fish.kickClock, 0.0f);
    }
    School school = test::afterSteps(GetParam().backend, p.neighborSearch, p, start, 1);
    // The first kicks are drawn within a kick's duration, each fish its own.
    std::vector<float> clocks;
    for (const Fish& fish : school) {
        EXPECT_GT(fish.kickClock, 0.0f);
        clocks.push_back(fish.kickClock);
    }
    std::sort(clocks.begin(), clocks.end());
    EXPECT_EQ(std::unique(clocks.begin(), clocks.end()), clocks.end());
    EXPECT_LT(clocks.front(), 0.5f * clocks.back());
    school = test::afterSteps(GetParam().backend, p.neighborSearch, p, school, 1000);
    for (const Fish& fish : school) {
        EXPECT_LT(std::hypot(fish.position.x, fish.position.z), 0.25f);
        EXPECT_EQ(fish.position.y, 0.0f);
        EXPECT_LE(glm::length(fish.velocity), p.kickSpeedMax * 1.0001f);
        EXPECT_GT(fish.kickClock, 0.0f);
        EXPECT_LE(fish.kickClock, 60.0f);
    }
}

TEST_P(BurstAndCoast, EachSelectionAgreesWithCpu) {
    SimParams p = roundTank();
    p.neighborSearch = GetParam().search;
    p.fishCount = 30;
    const School school = makeInitialSchool(p);
    for (NeighborSelection selection : {NeighborSelection::Metric, NeighborSelection::Topological,
                                        NeighborSelection::Influential}) {
        p.neighborSelection = selection;
        p.neighborCount = 2;
        EXPECT_LT(test::errorAgainstCpu(GetParam().backend, p, school, 5), 1e-4)
            << toString(selection);
    }
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, BurstAndCoast,
                         ::testing::ValuesIn(test::everyBuiltBackend()), test::setupName);

/// The rule of one fish, with a school to read.
struct RuleOf {
    SimParams params;
    glsl::StepParamsData pack;
    std::vector<float> px, py, pz, vx, vy, vz;
    std::vector<std::uint32_t> ids;

    explicit RuleOf(SimParams p) : params(std::move(p)), pack(makeStepParams(params, nullptr)) {}
    void add(glm::vec3 position, glm::vec3 velocity) {
        px.push_back(position.x);
        py.push_back(position.y);
        pz.push_back(position.z);
        vx.push_back(velocity.x);
        vy.push_back(velocity.y);
        vz.push_back(velocity.z);
        ids.push_back(static_cast<std::uint32_t>(ids.size()));
    }
    glsl::StepRule<glsl::kFeatureBurst> rule() const {
        glsl::StepRule<glsl::kFeatureBurst> r(pack, nullptr, nullptr);
        r.school = {px.data(), py.data(), pz.data(), vx.data(), vy.data(), vz.data(), ids.data(),
                    static_cast<std::uint32_t>(ids.size())};
        return r;
    }
};

TEST(BurstAndCoastRule, EveryTurnChangesSignInTheMirror) {
    RuleOf of(roundTank());
    auto rule = of.rule();
    for (float d : {0.01f, 0.03f, 0.1f, 0.3f})
        for (float psi : {0.3f, 1.2f, 2.5f})
            for (float dphi : {-2.0f, 0.4f, 1.7f})
                EXPECT_FLOAT_EQ(rule.neighbourTurn(d, -psi, -dphi), -rule.neighbourTurn(d, psi, dphi));
    // Attraction changes sign at attractionD0: closer, the fish turns away.
    EXPECT_LT(rule.neighbourTurn(0.01f, 1.0f, 0.0f), 0.0f);
    EXPECT_GT(rule.neighbourTurn(0.1f, 1.0f, 0.0f), 0.0f);
    // Alignment: toward the neighbour's heading.
    EXPECT_GT(rule.neighbourTurn(0.03f, 0.0f, 1.0f), 0.0f);
}

TEST(BurstAndCoastRule, EachSelectionHeedsItsNeighbours) {
    SimParams p = roundTank();
    p.neighborCount = 1;
    // Fish 0 at the centre heading +x; fish 1 near it, fish 2 farther, turning it much more.
    const auto turnWith = [&](NeighborSelection selection) {
        p.neighborSelection = selection;
        RuleOf of(p);
        of.add({0, 0, 0}, {0.1f, 0, 0});
        of.add({0.02f, 0, 0.001f}, {0.1f, 0, 0});
        of.add({0.0f, 0, 0.12f}, {0, 0, 0.1f});
        return of.rule().neighboursTurn(glm::vec3(0.0f), 0.0f, 0u, 0.0f);
    };
    RuleOf of(p);
    auto rule = of.rule();
    const float near = rule.neighbourTurn(std::hypot(0.02f, 0.001f), std::atan2(0.001f, 0.02f), 0.0f);
    const float far = rule.neighbourTurn(0.12f, 1.5707964f, 1.5707964f);
    ASSERT_GT(std::abs(far), std::abs(near));
    const float tolerance = 1e-6f;
    EXPECT_NEAR(turnWith(NeighborSelection::Metric), near + far, tolerance);
    EXPECT_NEAR(turnWith(NeighborSelection::Topological), near, tolerance);
    EXPECT_NEAR(turnWith(NeighborSelection::Influential), far, tolerance);
    p.neighborCount = 2;
    EXPECT_NEAR(turnWith(NeighborSelection::Influential), far + near, tolerance);
    // Beyond rCohesion no fish is heeded.
    p.rCohesion = 0.05f;
    EXPECT_NEAR(turnWith(NeighborSelection::Metric), near, tolerance);
}

TEST(BurstAndCoastRule, AKickNeverEndsOutsideTheWall) {
    SimParams p = roundTank();
    p.gammaWall = 0.0f;  // nothing but the redraws keeps it in
    RuleOf of(p);
    auto rule = of.rule();
    // At the wall, heading straight out: every draw ends outside, so it turns along the wall.
    const glm::vec4 kicked = rule.kickOf({0.245f, 0, 0}, {0.1f, 0, 0}, 0u, 0.0f, 0u);
    EXPECT_NEAR(kicked.x, 0.0f, 1e-6f);
    EXPECT_GT(std::abs(kicked.z), 0.0f);
    // Near the wall heading in: kicked inward, its glide inside.
    for (std::uint32_t id = 0; id < 50; ++id) {
        const glm::vec4 in = rule.kickOf({0.2f, 0, 0}, {-0.1f, 0, 0.05f}, id, 0.0f, 0u);
        const float reach = glm::length(glm::vec3(in)) * p.kickTau0 *
                                (1.0f - std::exp(-in.w / p.kickTau0)) +
                            0.01f;
        const glm::vec3 end = glm::vec3(0.2f, 0, 0) + reach * glm::normalize(glm::vec3(in));
        EXPECT_LT(std::hypot(end.x, end.z), 0.25f) << "fish " << id;
        EXPECT_GE(in.w, p.kickDurationMin);
    }
}

TEST(BurstAndCoastRule, TheStartingSpeedIsHalfTheFastestKickInThePlane) {
    SimParams p = roundTank();
    p.dimensions = 3;
    for (const Fish& fish : makeInitialSchool(p)) {
        EXPECT_EQ(fish.velocity.y, 0.0f);
        EXPECT_NEAR(glm::length(fish.velocity), 0.5f * p.kickSpeedMax, 1e-6f);
    }
}

TEST(BurstAndCoastRule, CpuAndTbbGiveTheSameBitsAndTheSearchesAgree) {
    SimParams p = roundTank();
    p.neighborSelection = NeighborSelection::Influential;
    p.neighborCount = 2;
    p.fishCount = 40;
    test::expectTbbMatchesCpuAndSearchesAgree(p);
}

TEST(BurstAndCoastRule, ValidateRefusesWhatCannotRun) {
    SimParams p = roundTank();
    ASSERT_TRUE(validate(p));
    SimParams slow = p;
    slow.kickSpeedMax = 0.005f;
    EXPECT_NE(validate(slow).error().find("kickSpeedMax: 0.005 is not allowed"), std::string::npos);
    SimParams short_ = p;
    short_.kickDurationMean = 0.1f;
    EXPECT_NE(validate(short_).error().find("kickDurationMean"), std::string::npos);
    SimParams influential = p;
    influential.steering = Steering::Article;
    influential.neighborSelection = NeighborSelection::Influential;
    EXPECT_NE(validate(influential).error().find("\"influential\" with steering \"article\""),
              std::string::npos);
    SimParams crowd = p;
    crowd.fishCount = 5001;
    EXPECT_NE(validate(crowd).error().find("fishCount: 5001 is not allowed"), std::string::npos);
    crowd.fishCount = 5000;
    EXPECT_TRUE(validate(crowd));
    SimParams endless = p;
    endless.steering = Steering::Article;  // refused whatever the steering
    endless.kickSpeedMax = INFINITY;
    EXPECT_NE(validate(endless).error().find("kickSpeedMax: inf is not allowed; must be finite"),
              std::string::npos)
        << validate(endless).error();
    SimParams fast = p;
    fast.kickSpeedMax = 2.0f * p.maxVelocity;
    EXPECT_NE(validate(fast).error().find("must be at most maxVelocity"), std::string::npos);
    SimParams leaders = p;
    leaders.leaders = 1;
    EXPECT_NE(validate(leaders).error().find("leaders or predators"), std::string::npos);
}

}  // namespace
}  // namespace fishschool
