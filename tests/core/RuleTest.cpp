// docs/model.md's step on small hand-built scenes, through every backend this build has (the gpu
// one on whatever GL the machine has), with both searches. Expected values come from
// docs/model.md's formulas written out here.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "core/StepRule.h"

namespace fishschool {
namespace {

using test::expectVec;

class Rules : public test::PerBackend {
  protected:
    /// Every radius 0: a test sets the ones it checks.
    SimParams quiet() const { return test::quietScene(GetParam().search); }
};

TEST_P(Rules, CohesionSteersTowardTheCentreOfTheNeighbours) {
    SimParams p = quiet();
    p.kCohesion = 2.0f;
    p.rCohesion = 5.0f;
    const School school{{{0, 0, 0}, {}, {}},
                        {{3, 0, 0}, {}, {}},
                        {{0, 4, 0}, {}, {}},
                        {{20, 0, 0}, {}, {}}};  // the last is out of range of fish 0
    const School next = step(p, school);
    const glm::vec3 centre = (school[1].position + school[2].position) / 2.0f;
    expectVec(next[0].acceleration, 2.0f * glm::normalize(centre));
    expectVec(next[0].velocity, next[0].acceleration * p.dt);
    expectVec(next[0].position, next[0].velocity * p.dt);
}

TEST_P(Rules, SeparationSteersAwayFromTheNeighbours) {
    SimParams p = quiet();
    p.kSeparation = 3.0f;
    p.rSeparation = 2.0f;
    const School school{{{0, 0, 0}, {}, {}}, {{1, 0, 0}, {}, {}}, {{0, 0, 1.5f}, {}, {}}};
    const School next = step(p, school);
    const glm::vec3 sum = school[1].position + school[2].position;  // sum of p_j - p_i
    expectVec(next[0].acceleration, 3.0f * glm::normalize(-sum / 2.0f));
}

TEST_P(Rules, AlignmentSteersAlongTheMeanVelocity) {
    SimParams p = quiet();
    p.kAlignment = 1.5f;
    p.rAlignment = 3.0f;
    const School school{
        {{0, 0, 0}, {0, 0, 1}, {}}, {{1, 0, 0}, {2, 0, 0}, {}}, {{0, 1, 0}, {0, 4, 0}, {}}};
    const School next = step(p, school);
    expectVec(next[0].acceleration, 1.5f * glm::normalize(glm::vec3(2, 4, 0) / 2.0f));
}

TEST_P(Rules, ANeighbourExactlyAtTheRadiusIsNotCounted) {
    for (int rule = 0; rule < 3; ++rule) {
        SimParams p = quiet();
        float* weight[] = {&p.kCohesion, &p.kSeparation, &p.kAlignment};
        float* radius[] = {&p.rCohesion, &p.rSeparation, &p.rAlignment};
        *weight[rule] = 1.0f;
        *radius[rule] = 2.0f;
        const School school{{{0, 0, 0}, {1, 0, 0}, {}}, {{2, 0, 0}, {0, 1, 0}, {}}};
        EXPECT_EQ(step(p, school)[0].acceleration, glm::vec3(0.0f)) << "rule " << rule;
        *radius[rule] = 2.0001f;
        EXPECT_NE(step(p, school)[0].acceleration, glm::vec3(0.0f)) << "rule " << rule;
    }
}

TEST_P(Rules, AFishIsNotItsOwnNeighbour) {
    SimParams p = quiet();
    p.kCohesion = p.kSeparation = p.kAlignment = 1.0f;
    p.rCohesion = p.rSeparation = p.rAlignment = 5.0f;
    const School alone{{{1, 2, 3}, {0.5f, 0, 0}, {}}};
    const School next = step(p, alone);
    EXPECT_EQ(next[0].acceleration, glm::vec3(0.0f));
    expectVec(next[0].velocity, {0.5f, 0, 0});
}

TEST_P(Rules, NoNeighboursGivesZeroAcceleration) {
    SimParams p = quiet();
    p.kCohesion = p.kSeparation = p.kAlignment = 1.0f;
    p.rCohesion = p.rSeparation = p.rAlignment = 1.0f;
    const School school{{{0, 0, 0}, {1, 0, 0}, {}}, {{10, 0, 0}, {0, 1, 0}, {}}};
    for (const Fish& f : step(p, school)) EXPECT_EQ(f.acceleration, glm::vec3(0.0f));
}

TEST_P(Rules, NormalizeOfZeroIsZero) {
    // Fish 0 sits at the centre of its two neighbours (cohesion direction zero), one neighbour
    // shares its position (separation sum zero), and their velocities cancel (alignment zero).
    SimParams p = quiet();
    p.kCohesion = p.kSeparation = p.kAlignment = 1.0f;
    p.rCohesion = p.rAlignment = 3.0f;
    p.rSeparation = 0.5f;
    const School school{{{0, 0, 0}, {0, 0, 1}, {}},
                        {{-1, 0, 0}, {1, 0, 0}, {}},
                        {{1, 0, 0}, {-1, 0, 0}, {}},
                        {{0, 0, 0}, {0, 0, 1}, {}}};
    // Fish 3 is a neighbour too: centre (0,0,0), separation sum 0, velocities sum (0,0,1).
    const School next = step(p, school);
    expectVec(next[0].acceleration, {0.0f, 0.0f, 1.0f});
    EXPECT_TRUE(std::isfinite(next[0].position.x));
    // Without fish 3 every direction is normalize(0) = 0.
    const School alone = step(p, {school[0], school[1], school[2]});
    EXPECT_EQ(alone[0].acceleration, glm::vec3(0.0f));
}

TEST_P(Rules, AccelerationAndVelocityAreClampedByLength) {
    SimParams p = quiet();
    p.kCohesion = 10.0f;
    p.rCohesion = 5.0f;
    p.maxAcceleration = 2.0f;
    p.maxVelocity = 3.0f;
    p.dt = 0.5f;
    const School school{{{0, 0, 0}, {2, 2, 0}, {}}, {{1, 1, 1}, {}, {}}};
    const School next = step(p, school);
    const glm::vec3 a = 2.0f * glm::normalize(glm::vec3(1, 1, 1));  // length 10 clamped to 2
    expectVec(next[0].acceleration, a);
    const glm::vec3 v = glm::vec3(2, 2, 0) + a * 0.5f;  // length > 3: clamped by length
    expectVec(next[0].velocity, v * (3.0f / glm::length(v)));
    EXPECT_NEAR(glm::length(next[0].velocity), 3.0f, 1e-5f);
}

TEST_P(Rules, LockVerticalSteeringZeroesTheVerticalAcceleration) {
    SimParams p = quiet();
    p.kCohesion = 1.0f;
    p.rCohesion = 5.0f;
    p.lockVerticalSteering = true;
    const School school{{{0, 0, 0}, {0, 1, 0}, {}}, {{1, 2, 0}, {}, {}}};
    const School next = step(p, school);
    const glm::vec3 direction = glm::normalize(glm::vec3(1, 2, 0));
    expectVec(next[0].acceleration, {direction.x, 0.0f, 0.0f});
    EXPECT_FLOAT_EQ(next[0].velocity.y, 1.0f);
}

TEST_P(Rules, EachWallReflectsPositionAndVelocity) {
    SimParams p = quiet();
    p.bounds = {10.0f, 5.0f, 8.0f};
    p.dt = 0.1f;
    for (int axis = 0; axis < 3; ++axis) {
        for (float side : {1.0f, -1.0f}) {
            Fish f;
            f.position[axis] = side * (p.bounds[axis] - 0.05f);
            f.velocity[axis] = side * 2.0f;  // crosses the wall by 0.15 this step
            const Fish next = step(p, {f})[0];
            EXPECT_NEAR(next.position[axis], side * (p.bounds[axis] - 0.15f), 1e-5f)
                << "axis " << axis << " side " << side;
            EXPECT_FLOAT_EQ(next.velocity[axis], -side * 2.0f);
        }
    }
}

TEST_P(Rules, ARockBouncesTheFishBack) {
    SimParams p = quiet();
    p.rocks = {{{5.0f, 0.0f, 0.0f}, 2.0f}};
    p.dt = 0.5f;
    const Fish f{{2.5f, 0.0f, 0.0f}, {2.0f, 0.0f, 0.0f}, {}};  // would end at 3.5, inside
    const Fish next = step(p, {f})[0];
    expectVec(next.position, {1.5f, 0.0f, 0.0f});
    expectVec(next.velocity, {-2.0f, 0.0f, 0.0f});
    // A segment that only grazes past the rock does not bounce.
    const Fish past{{2.5f, 2.5f, 0.0f}, {2.0f, 0.0f, 0.0f}, {}};
    expectVec(step(p, {past})[0].position, {3.5f, 2.5f, 0.0f});
}

TEST_P(Rules, OnlyTheFirstRockOnThePathBouncesTheFish) {
    // The step's segment (2.5 -> 3.5 along x) enters both `big` and `small`; the bounced one
    // (2.5 -> 1.5) passes through `behind`. One bounce, whatever the order: a second bounce, from
    // the other rock ahead or from the one behind, would undo the first.
    SimParams p = quiet();
    p.dt = 0.5f;
    const Rock big{{5.0f, 0.0f, 0.0f}, 2.0f}, small{{3.6f, 0.0f, 0.0f}, 0.8f};
    const Rock behind{{2.0f, 0.3f, 0.0f}, 0.35f};
    const Rock elsewhere{{-20.0f, 10.0f, 0.0f}, 2.0f};  // not on the path
    const Fish f{{2.5f, 0.0f, 0.0f}, {2.0f, 0.0f, 0.0f}, {}};
    const std::vector<std::vector<Rock>> orders = {
        {big, small, behind}, {small, big, behind}, {elsewhere, behind, big, small}};
    for (const std::vector<Rock>& rocks : orders) {
        p.rocks = rocks;
        const Fish next = step(p, {f})[0];
        expectVec(next.position, {1.5f, 0.0f, 0.0f});   // p - v'dt
        expectVec(next.velocity, {-2.0f, 0.0f, 0.0f});  // v' = -v'
    }
}

TEST_P(Rules, AFishSeesOnlyInsideItsFieldOfView) {
    // Fish 0 swims along +x. Neighbours: ahead (0 deg), 60 deg off, 120 deg off, behind.
    SimParams p = quiet();
    p.kCohesion = 1.0f;
    p.rCohesion = 5.0f;
    const glm::vec3 ahead(2, 0, 0), sixty(1, 1.7320508f, 0), oneTwenty(-1, 0, 1.7320508f),
        behind(-2, 0, 0);
    auto seen = [&](float viewAngle, const glm::vec3& offset) {
        p.viewAngle = viewAngle;
        const School next = step(p, {{{0, 0, 0}, {1, 0, 0}, {}}, {offset, {}, {}}});
        return next[0].acceleration != glm::vec3(0.0f);
    };
    for (const glm::vec3& offset : {ahead, sixty, oneTwenty, behind})
        EXPECT_TRUE(seen(360.0f, offset));
    EXPECT_TRUE(seen(150.0f, ahead));  // half-angle 75 deg
    EXPECT_TRUE(seen(150.0f, sixty));
    EXPECT_FALSE(seen(150.0f, oneTwenty));
    EXPECT_FALSE(seen(150.0f, behind));
    EXPECT_TRUE(seen(300.0f, oneTwenty));  // half-angle 150 deg: a blind spot behind
    EXPECT_FALSE(seen(300.0f, behind));
    EXPECT_FALSE(seen(90.0f, sixty));  // half-angle 45 deg
    // What it sees steers it: the one ahead only.
    p.viewAngle = 180.0f;
    const School next =
        step(p, {{{0, 0, 0}, {1, 0, 0}, {}}, {ahead, {}, {}}, {behind * 0.5f, {}, {}}});
    expectVec(next[0].acceleration, {1.0f, 0.0f, 0.0f});
    // A fish standing still sees all around.
    p.viewAngle = 90.0f;
    const School still = step(p, {{{0, 0, 0}, {0, 0, 0}, {}}, {behind, {}, {}}});
    expectVec(still[0].acceleration, {-1.0f, 0.0f, 0.0f});
}

/// Neighbours whose sums cancel give zero directions (docs/model.md, One step, step 2), never NaN,
/// in a scene of the default weights and radii.
TEST_P(Rules, CancellingNeighboursGiveNoSteering) {
    SimParams p;
    p.neighborSearch = GetParam().search;
    p.rocks.clear();
    const School school = {
        {{0, 0, 0}, {1, 0, 0}, {}}, {{1, 0, 0}, {0, 0, 1}, {}}, {{-1, 0, 0}, {0, 0, -1}, {}}};
    const Fish middle = step(p, school)[0];
    EXPECT_EQ(middle.acceleration, glm::vec3(0.0f));
    EXPECT_EQ(middle.velocity, glm::vec3(1, 0, 0));
    EXPECT_EQ(middle.position, glm::vec3(p.dt, 0, 0));
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Rules, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

/// Every set of behaviours that parameters can ask for is one the CPU compiles (usedFeatureSet):
/// a set left out would have no step. Every behaviour on and off, in every combination.
TEST(FeatureSets, EveryCombinationOfBehavioursIsACompiledSet) {
    for (int bits = 0; bits < 128; ++bits) {
        SimParams p;
        p.viewAngle = (bits & 1) ? 270.0f : 360.0f;
        p.steering = (bits & 2) ? Steering::Couzin : Steering::Article;
        p.kTarget = (bits & 4) ? 1.0f : 0.0f;
        p.targetPath = (bits & 8) ? TargetPath::FlowField : TargetPath::Straight;
        p.kAvoidance = (bits & 16) ? 1.0f : 0.0f;
        p.separationFalloff =
            (bits & 32) ? SeparationFalloff::InverseSquare : SeparationFalloff::None;
        p.leaders = (bits & 64) ? 1 : 0;
        EXPECT_TRUE(usedFeatureSet(stepFeatures(p)))
            << "parameters " << bits << " ask for set " << stepFeatures(p) << ", not compiled";
    }
}

}  // namespace
}  // namespace fishschool
