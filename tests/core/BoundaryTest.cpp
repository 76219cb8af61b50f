// docs/model.md "The school and the tank": the boundary of the tank, on every backend this build
// has and both searches. boundary "periodic": neighbours, rocks and the measures across a face,
// and a fish that crosses one.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "core/CpuBackends.h"
#include "core/GridShape.h"
#include "core/Invariants.h"
#include "core/Scenario.h"
#include "core/StepRule.h"
#include "fishschool/Metrics.h"

namespace fishschool {
namespace {

using test::expectVec;

class Boundaries : public test::PerBackend {
  protected:
    /// A periodic tank 20 m wide: radius 2 m gives 9 grid cells a side, so the grid wraps.
    SimParams periodic() const {
        SimParams p = test::quietScene(GetParam().search);
        p.boundary = Boundary::Periodic;
        p.bounds = {10.0f, 10.0f, 10.0f};
        return p;
    }
};

TEST_P(Boundaries, TwoFishEitherSideOfAPeriodicFaceAreNeighbours) {
    SimParams p = periodic();
    p.kCohesion = 1.0f;
    p.rCohesion = 2.0f;
    // 1 m apart through the x face (and 0.5 m through the z face for the second pair).
    const School school{{{9.5f, 0, 0}, {}, {}},
                        {{-9.5f, 0, 0}, {}, {}},
                        {{0, 3, 9.8f}, {}, {}},
                        {{0, 3, -9.7f}, {}, {}}};
    const School next = step(p, school);
    expectVec(next[0].acceleration, {1, 0, 0});   // toward the other's image at 10.5
    expectVec(next[1].acceleration, {-1, 0, 0});  // toward the other's image at -10.5
    expectVec(next[2].acceleration, {0, 0, 1});
    expectVec(next[3].acceleration, {0, 0, -1});

    // Their sums see each other: separation pushes apart, alignment follows the other.
    p.kCohesion = 0.0f;
    p.kSeparation = 1.0f;
    p.rSeparation = 2.0f;
    p.kAlignment = 1.0f;
    p.rAlignment = 2.0f;
    const School moving{{{9.5f, 0, 0}, {0, 0, 1}, {}}, {{-9.5f, 0, 0}, {0, 1, 0}, {}}};
    const School after = step(p, moving);
    expectVec(after[0].acceleration, {-1, 1, 0});
    expectVec(after[1].acceleration, {1, 0, 1});

    // Between walls they are 19 m apart: no neighbours.
    p.boundary = Boundary::Walls;
    EXPECT_EQ(step(p, moving)[0].acceleration, glm::vec3(0.0f));
}

TEST_P(Boundaries, APeriodicTankTooSmallForTheWrappedGridStillFindsTheNearestImage) {
    SimParams p = periodic();
    p.bounds = {2.0f, 2.0f, 2.0f};  // 4 m wide: cells of 1.5 m fit twice, fewer than 3
    p.kCohesion = 1.0f;
    p.rCohesion = 1.5f;
    // The grid says that it searches every pair instead.
    EXPECT_EQ(searchNotice(p, 2).empty(), GetParam().search == NeighborSearch::AllPairs);
    const School school{{{1.5f, 0, 0}, {}, {}}, {{-1.5f, 0, 0}, {}, {}}};
    const School next = step(p, school);
    expectVec(next[0].acceleration, {1, 0, 0});
    expectVec(next[1].acceleration, {-1, 0, 0});
    EXPECT_EQ(searchNotice(periodic(), 2), "");
}

TEST_P(Boundaries, AFishCrossingAPeriodicFaceComesOutTheOtherSideWithItsVelocity) {
    SimParams p = periodic();
    const School school{{{9.99f, 0, 0}, {3, 0, 0}, {}},
                        {{0, -9.99f, 0}, {0, -2, 0}, {}},
                        {{1, 2, -9.995f}, {0, 0, -1}, {}}};
    const School next = step(p, school);
    expectVec(next[0].position, {-9.98f, 0, 0});
    expectVec(next[0].velocity, {3, 0, 0});
    expectVec(next[1].position, {0, 9.99f, 0});
    expectVec(next[1].velocity, {0, -2, 0});
    expectVec(next[2].position, {1, 2, 9.995f});
    expectVec(next[2].velocity, {0, 0, -1});
    // Walls reflect the first instead.
    p.boundary = Boundary::Walls;
    const School reflected = step(p, school);
    expectVec(reflected[0].position, {9.98f, 0, 0});
    expectVec(reflected[0].velocity, {-3, 0, 0});
}

TEST_P(Boundaries, ARockIsAvoidedAcrossAPeriodicFace) {
    SimParams p = periodic();
    p.rocks = {{{8.0f, 0.0f, 0.0f}, 1.0f}};
    p.kAvoidance = 1.0f;
    p.avoidanceDistance = 3.0f;
    // The rock's image at x = -12 is 2.5 m from the fish's centre, its surface 1.5 m away.
    const School school{{{-9.5f, 0, 0}, {}, {}}};
    expectVec(step(p, school)[0].acceleration, {0.5f, 0, 0});
    p.boundary = Boundary::Walls;
    EXPECT_EQ(step(p, school)[0].acceleration, glm::vec3(0.0f));
}

TEST_P(Boundaries, ASchoolInAPeriodicTankStaysInsideAndAgreesWithCpu) {
    SimParams p;
    p.boundary = Boundary::Periodic;
    p.neighborSearch = GetParam().search;
    p.bounds = {15.0f, 10.0f, 15.0f};
    p.rCohesion = p.rAlignment = 4.0f;
    p.fishCount = 400;
    p.rocks = {{{10.0f, 0.0f, 0.0f}, 2.0f}};
    p.kAvoidance = 1.0f;
    p.dt = 0.05f;
    ASSERT_TRUE(validate(p)) << validate(p).error();
    School school = makeInitialSchool(p);
    // Fish on every face, heading out.
    for (std::size_t i = 0; i < 60; ++i) {
        const int axis = static_cast<int>(i % 3);
        const float side = (i / 3) % 2 ? 1.0f : -1.0f;
        school[i].position[axis] = side * p.bounds[axis] * 0.999f;
        school[i].velocity[axis] = side * p.maxVelocity * 0.9f;
    }
    auto backend = test::makeBackend(GetParam().backend, p);
    ASSERT_TRUE(backend);
    ASSERT_TRUE(backend->upload(school));
    School after;
    for (int s = 0; s < 3; ++s) {
        backend->step();
        after = backend->download();
        ASSERT_TRUE(checkInvariants(after, p))
            << "step " << s << ": " << checkInvariants(after, p).error();
    }
    // The fish heading out came in by the opposite face.
    for (std::size_t i = 0; i < 60; ++i) {
        const int axis = static_cast<int>(i % 3);
        const float side = (i / 3) % 2 ? 1.0f : -1.0f;
        EXPECT_LT(side * after[i].position[axis], 0.0f) << "fish " << i;
    }
    EXPECT_LT(test::errorAgainstCpu(GetParam().backend, p, school, 3), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Boundaries, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

/// cpu and tbb give the same bits in a periodic tank, and both searches find the same
/// neighbours (to the last bits of the sums).
TEST(PeriodicTank, TbbMatchesCpuToTheBitAndTheSearchesAgree) {
    SimParams p;
    p.boundary = Boundary::Periodic;
    p.bounds = {20.0f, 10.0f, 20.0f};
    p.rCohesion = p.rAlignment = 5.0f;
    p.fishCount = 3000;
    test::expectTbbMatchesCpuAndSearchesAgree(p);
}

TEST(PeriodicTank, TheMeasuresTakeTheNearestImage) {
    SimParams p;
    p.rocks.clear();
    p.bounds = {10.0f, 10.0f, 10.0f};
    p.rCohesion = 2.0f;
    const School school{{{9.5f, 0, 0}, {1, 0, 0}, {}}, {{-9.5f, 0, 0}, {1, 0, 0}, {}}};
    const SchoolMetrics walls = measureSchool(school, p);
    EXPECT_NEAR(walls.meanNearestNeighborDistance, 19.0, 1e-5);
    EXPECT_EQ(walls.meanNeighbors, 0.0);
    p.boundary = Boundary::Periodic;
    const SchoolMetrics periodic = measureSchool(school, p);
    EXPECT_NEAR(periodic.meanNearestNeighborDistance, 1.0, 1e-5);
    EXPECT_EQ(periodic.meanNeighbors, 1.0);
    EXPECT_EQ(periodic.polarization, 1.0);
    // In a tank too small for the wrapped grid as well.
    p.bounds = {1.0f, 1.0f, 1.0f};
    const School small{{{0.9f, 0, 0}, {1, 0, 0}, {}}, {{-0.9f, 0, 0}, {1, 0, 0}, {}}};
    EXPECT_NEAR(measureSchool(small, p).meanNearestNeighborDistance, 0.2, 1e-5);
    EXPECT_EQ(measureSchool(small, p).meanNeighbors, 1.0);
}

/// boundary "open": no walls, on every backend and both searches.
class OpenWater : public test::PerBackend {
  protected:
    SimParams open() const {
        SimParams p = test::quietScene(GetParam().search);
        p.boundary = Boundary::Open;
        p.bounds = {10.0f, 10.0f, 10.0f};
        return p;
    }
};

TEST_P(OpenWater, AFishPastTheTankSwimsOn) {
    SimParams p = open();
    p.kCohesion = 1.0f;
    p.rCohesion = 2.0f;
    const School school{{{9.99f, 0, 0}, {3, 0, 0}, {}}, {{-30, 5, 40}, {0, 0, -1}, {}}};
    const School next = step(p, school);
    expectVec(next[0].position, {10.02f, 0, 0});
    expectVec(next[0].velocity, {3, 0, 0});
    expectVec(next[1].position, {-30, 5, 39.99f});
    EXPECT_TRUE(checkInvariants(next, p));
    // Neighbours far outside the tank still find each other.
    const School far{{{500, -700, 900}, {}, {}}, {{501, -700, 900}, {}, {}}};
    expectVec(step(p, far)[0].acceleration, {1, 0, 0});
}

TEST_P(OpenWater, ASchoolFarFromTheOriginStepsAsAtTheOrigin) {
    SimParams p;
    p.boundary = Boundary::Open;
    p.neighborSearch = GetParam().search;
    p.rocks.clear();
    p.bounds = {15.0f, 10.0f, 15.0f};
    p.rCohesion = p.rAlignment = 4.0f;
    p.fishCount = 300;
    p.dt = 0.05f;
    const School school = makeInitialSchool(p);
    const glm::vec3 offset{5000.0f, -5000.0f, 5000.0f};
    School far = school;
    for (Fish& f : far) f.position += offset;
    auto atOrigin = test::makeBackend(GetParam().backend, p);
    auto faraway = test::makeBackend(GetParam().backend, p);
    ASSERT_TRUE(atOrigin && faraway);
    ASSERT_TRUE(atOrigin->upload(school));
    ASSERT_TRUE(faraway->upload(far));
    for (int s = 0; s < 3; ++s) {
        atOrigin->step();
        faraway->step();
    }
    School back = faraway->download();
    for (Fish& f : back) f.position -= offset;
    // A float at 5 km holds its position to about 0.5 mm.
    const School expected = atOrigin->download();
    ASSERT_EQ(back.size(), expected.size());
    for (std::size_t i = 0; i < back.size(); ++i) {
        expectVec(back[i].position, expected[i].position, 2e-3f);
        expectVec(back[i].velocity, expected[i].velocity, 2e-2f);
    }
    EXPECT_NE(expected, school);
}

TEST_P(OpenWater, TwoGroupsFarApartStepAsEachAlone) {
    SimParams p;
    p.boundary = Boundary::Open;
    p.neighborSearch = GetParam().search;
    p.rocks.clear();
    p.bounds = {15.0f, 10.0f, 15.0f};
    p.rCohesion = p.rAlignment = 4.0f;
    p.fishCount = 200;
    const School group = makeInitialSchool(p);
    School both = group;
    for (Fish f : group) {
        f.position += glm::vec3(10000.0f, 0.0f, 0.0f);
        both.push_back(f);
    }
    const School alone = step(p, group);
    const School together = step(p, both);
    for (std::size_t i = 0; i < group.size(); ++i) {
        expectVec(together[i].position, alone[i].position);
        expectVec(together[i].velocity, alone[i].velocity);
        expectVec(together[group.size() + i].velocity, alone[i].velocity, 1e-3f);
    }
}

/// Open water promises any position within its reach: a school of hundreds of fish on one point
/// at a corner of it (their positions' sum past 1e36 would overflow a float), another at the
/// opposite corner, rocks and the measures too, stays finite step after step.
TEST_P(OpenWater, ASchoolAtTheEdgeOfItsReachStaysFinite) {
    SimParams p;  // the default scene: rocks, avoidance, every default behaviour
    p.boundary = Boundary::Open;
    p.neighborSearch = GetParam().search;
    p.fishCount = 1000;
    const float r = kOpenWaterReach;
    School school = makeInitialSchool(p);
    for (std::size_t i = 0; i < school.size(); ++i)
        school[i].position = i % 2 == 0 ? glm::vec3(r, -r, r) : glm::vec3(-r, r, -r);
    auto backend = test::makeBackend(GetParam().backend, p);
    ASSERT_TRUE(backend);
    ASSERT_TRUE(backend->upload(school));
    for (int s = 0; s < 5; ++s) backend->step();
    const School after = backend->download();
    const auto broken = checkInvariants(after, p);
    EXPECT_TRUE(broken) << broken.error();
    for (const Fish& fish : after)
        for (int k = 0; k < 3; ++k) ASSERT_LE(std::abs(fish.position[k]), r);
    const SchoolMetrics m = measureSchool(after, p);
    EXPECT_TRUE(std::isfinite(m.polarization) && std::isfinite(m.milling) &&
                std::isfinite(m.meanNearestNeighborDistance) && std::isfinite(m.meanNeighbors));
    // Past its reach a fish is not in the scene: a start there is refused.
    EXPECT_TRUE(isInScene({r, 0, 0}, p));
    EXPECT_FALSE(isInScene({2 * r, 0, 0}, p));
    School beyond{{{0, 0, -2 * r}, {}, {}}};
    EXPECT_EQ(moveIntoScene(beyond, p), 1u);
    EXPECT_EQ(beyond[0].position.z, -r);
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, OpenWater, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

TEST(OpenWaterGrid, HoldsTwoToFourBucketsAFishWhereverTheFishAre) {
    const GridShape shape = GridShape::forOpenWater(20.0f, 2 * 1000 + 64);
    EXPECT_EQ(shape.cellCount(), 4096u);
    // Cells 10 km apart are found, each row of a cell's neighbours in consecutive buckets.
    const glm::ivec3 cell = shape.openCellOf(10000.0f, -5.0f, 3.0f);
    EXPECT_EQ(cell, glm::ivec3(499, -1, 0));
    EXPECT_EQ(shape.bucket(cell + glm::ivec3(1, 0, 0)), (shape.bucket(cell) + 1u) & 4095u);
    EXPECT_EQ(shape.openCellOf(NAN, 1e30f, -1e30f), glm::ivec3(0, 1 << 30, -(1 << 30)));
}

}  // namespace
}  // namespace fishschool
