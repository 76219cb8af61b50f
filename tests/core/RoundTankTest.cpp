// docs/model.md "The round tank": arena "cylinder" on every backend this build has and both
// searches, its rules in validate(), where a new school starts, and the measures against its wall.

#include <gtest/gtest.h>

#include <cmath>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "core/Invariants.h"
#include "core/ParamTable.h"
#include "core/Scenario.h"
#include "core/WallGeometry.h"
#include "fishschool/Metrics.h"

namespace fishschool {
namespace {

using test::expectVec;

double fromAxis(const glm::vec3& p) {
    return std::hypot(double(p.x), double(p.z));
}

class RoundTank : public test::PerBackend {
  protected:
    /// A round tank of radius 5 m in a box of 10 x 4 x 10 m, no rules, no rocks.
    SimParams round() const {
        SimParams p = quiet();
        p.bounds = {5.0f, 2.0f, 5.0f};
        p.arena = Arena::Cylinder;
        p.dt = 0.05f;
        p.maxVelocity = 10.0f;
        return p;
    }
};

TEST_P(RoundTank, AFishCrossingTheWallIsMirroredInsideWithItsOutwardPartReversed) {
    const SimParams p = round();
    ASSERT_TRUE(validate(p)) << validate(p).error();
    // Out through the wall at an angle, and one straight out along z; one well inside.
    const School school{{{4.95f, 0, 0}, {2, 0, 1}, {}},
                        {{0, 1, -4.9f}, {0, 0, -4}, {}},
                        {{1, 0, 1}, {2, 0, 1}, {}}};
    const School next = step(p, school);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_LE(fromAxis(next[i].position), 5.0) << "fish " << i;
        // Speed kept, now heading inward at the point of return.
        EXPECT_NEAR(glm::length(next[i].velocity), glm::length(school[i].velocity), 1e-5);
        const glm::vec3 n = glm::normalize(glm::vec3(next[i].position.x, 0, next[i].position.z));
        EXPECT_LT(glm::dot(next[i].velocity, n), 0.0f) << "fish " << i;
    }
    // The first came 0.1 m past the wall (r = 5.0502...), so it stands as far inside.
    EXPECT_NEAR(fromAxis(next[0].position), 10.0 - std::hypot(5.05, 0.05), 1e-5);
    // Its part along the wall (anticlockwise seen from above) is kept: the tangent at its point.
    const glm::vec3 n0 = glm::normalize(glm::vec3(5.05f, 0, 0.05f));
    const glm::vec3 t0(-n0.z, 0, n0.x);
    EXPECT_NEAR(glm::dot(next[0].velocity, t0), glm::dot(school[0].velocity, t0), 1e-5);
    expectVec(next[1].position, {0, 1, -4.9f});  // 0.2 out, 0.2 back
    expectVec(next[1].velocity, {0, 0, 4});
    // Inside, nothing happens: the box's own step.
    expectVec(next[2].position, {1.1f, 0, 1.05f});
    expectVec(next[2].velocity, {2, 0, 1});
}

TEST_P(RoundTank, ASchoolStaysInsideAndAgreesWithCpu) {
    SimParams p;
    p.neighborSearch = GetParam().search;
    p.arena = Arena::Cylinder;
    p.bounds = {12.0f, 4.0f, 15.0f};  // radius 12: the smaller of x and z
    p.rCohesion = p.rAlignment = 4.0f;
    p.fishCount = 400;
    p.rocks = {{{6.0f, 0.0f, 0.0f}, 1.5f}};
    p.dt = 0.05f;
    ASSERT_TRUE(validate(p)) << validate(p).error();
    EXPECT_EQ(arenaRadiusOf(p), 12.0f);
    School school = makeInitialSchool(p);
    for (const Fish& fish : school) ASSERT_LE(fromAxis(fish.position), 12.0);
    // Fish at the wall, heading out.
    for (std::size_t i = 0; i < 40; ++i) {
        const float angle = 0.157f * static_cast<float>(i);
        const glm::vec3 out(std::cos(angle), 0.0f, std::sin(angle));
        school[i].position = out * 11.99f;
        school[i].velocity = out * (0.9f * p.maxVelocity);
    }
    auto backend = test::makeBackend(GetParam().backend, p);
    ASSERT_TRUE(backend);
    ASSERT_TRUE(backend->upload(school));
    for (int s = 0; s < 60; ++s) {
        backend->step();
        const School after = backend->download();
        ASSERT_TRUE(checkInvariants(after, p))
            << "step " << s << ": " << checkInvariants(after, p).error();
    }
    EXPECT_LT(test::errorAgainstCpu(GetParam().backend, p, school, 3), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, RoundTank, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

TEST(RoundTankRules, ValidateNamesWhatIsWrong) {
    SimParams p;
    p.arena = Arena::Cylinder;
    p.rocks.clear();
    EXPECT_TRUE(validate(p)) << validate(p).error();

    SimParams periodic = p;
    periodic.boundary = Boundary::Periodic;
    ASSERT_FALSE(validate(periodic));
    EXPECT_EQ(validate(periodic).error(),
              "arena: \"cylinder\" with boundary \"periodic\" is not allowed; a round tank has "
              "walls (boundary \"walls\")");

    SimParams wide = p;
    wide.arenaRadius = 41.0f;
    ASSERT_FALSE(validate(wide));
    EXPECT_NE(validate(wide).error().find("arenaRadius: 41 is not allowed"), std::string::npos)
        << validate(wide).error();

    SimParams negative = p;
    negative.arenaRadius = -1.0f;
    EXPECT_FALSE(validate(negative));
    negative.arenaRadius = NAN;
    EXPECT_FALSE(validate(negative));

    // A rock inside the box but across the round wall.
    SimParams rock = p;
    rock.rocks = {{{36.0f, 0.0f, 12.0f}, 3.0f}};  // 37.9 m from the axis
    ASSERT_FALSE(validate(rock));
    EXPECT_NE(validate(rock).error().find("inside the round tank of radius 40"), std::string::npos)
        << validate(rock).error();
    rock.arena = Arena::Box;
    EXPECT_TRUE(validate(rock)) << validate(rock).error();

    // A step longer than the radius could carry a fish across the tank.
    SimParams tiny = p;
    tiny.arenaRadius = 0.04f;
    EXPECT_FALSE(validate(tiny));
}

TEST(RoundTankRules, ANewSchoolStartsInsideTheDiscAndMovedFishLandInside) {
    SimParams p;
    p.arena = Arena::Cylinder;
    p.arenaRadius = 10.0f;
    p.dimensions = 2;
    p.rocks.clear();
    p.fishCount = 2000;
    ASSERT_TRUE(validate(p)) << validate(p).error();
    School school = makeInitialSchool(p);
    double farthest = 0.0;
    for (const Fish& fish : school) {
        EXPECT_EQ(fish.position.y, 0.0f);
        farthest = std::max(farthest, fromAxis(fish.position));
    }
    EXPECT_LE(farthest, 9.5);  // 5 % kept free at the wall, as in a box
    EXPECT_GT(farthest, 9.0);
    School outside{{{30.0f, 0, 30.0f}, {1, 0, 0}, {}}};
    EXPECT_EQ(moveIntoScene(outside, p), 1u);
    EXPECT_LE(fromAxis(outside[0].position), 10.0);
    EXPECT_GT(fromAxis(outside[0].position), 9.99);
    EXPECT_TRUE(isInScene(outside[0].position, p));
}

TEST(RoundTankMeasures, WallDistanceAndAngle) {
    SimParams p;
    p.arena = Arena::Cylinder;
    p.arenaRadius = 0.25f;
    p.bounds = {0.3f, 0.05f, 0.3f};
    // At 0.2 m from the axis on +x: 0.05 m from the wall.
    EXPECT_NEAR(wallDistanceOf({0.2f, 0, 0}, p), 0.05, 1e-7);
    // Straight at the wall, along it, away from it.
    EXPECT_NEAR(wallAngleOf({0.2f, 0, 0}, {1, 0, 0}, p), 0.0, 1e-12);
    EXPECT_NEAR(wallAngleOf({0.2f, 0, 0}, {0, 0, 1}, p), M_PI / 2, 1e-12);
    EXPECT_NEAR(std::abs(wallAngleOf({0.2f, 0, 0}, {-1, 0, 0}, p)), M_PI, 1e-12);
    // On -z, heading +x: along the wall, the other way round.
    EXPECT_NEAR(wallAngleOf({0, 0, -0.2f}, {1, 0, 0}, p), M_PI / 2, 1e-12);
    // The box: the nearest side wall's normal.
    p.arena = Arena::Box;
    EXPECT_NEAR(wallDistanceOf({0.25f, 0, 0}, p), 0.05, 1e-7);
    EXPECT_NEAR(wallAngleOf({0, 0, 0.25f}, {0, 0, 1}, p), 0.0, 1e-12);
    p.boundary = Boundary::Open;
    EXPECT_TRUE(std::isnan(wallDistanceOf({0, 0, 0}, p)));
}

TEST(RoundTankMeasures, RotationStateAndDispersion) {
    SimParams p;
    p.arena = Arena::Cylinder;
    p.rocks.clear();
    // Eight fish on a circle of 2 m, swimming anticlockwise round it: a mill.
    School mill;
    for (int k = 0; k < 8; ++k) {
        const float a = 0.785398f * static_cast<float>(k);
        mill.push_back({{2 * std::cos(a), 0, 2 * std::sin(a)}, {-std::sin(a), 0, std::cos(a)}, {}});
    }
    const SchoolMetrics milling = measureSchool(mill, p);
    EXPECT_NEAR(milling.rotation, 1.0, 1e-6);
    EXPECT_LT(milling.polarization, 1e-6);
    EXPECT_EQ(milling.state, 1.0);
    EXPECT_NEAR(milling.dispersion, 2.0, 1e-6);
    EXPECT_NEAR(milling.meanWallDistance, 38.0, 1e-5);
    EXPECT_NEAR(milling.meanWallAngle, M_PI / 2, 1e-6);  // along the wall
    EXPECT_NEAR(milling.centreWallDistance, 40.0, 1e-5);

    // The same fish all heading +x: polarized; half of them reversed: neither (swarm).
    School polarized = mill, mixed = mill;
    for (std::size_t i = 0; i < mill.size(); ++i) {
        polarized[i].velocity = {1, 0, 0};
        mixed[i].velocity = {i % 2 ? 1.0f : -1.0f, 0, 0};
    }
    EXPECT_EQ(measureSchool(polarized, p).state, 2.0);
    EXPECT_EQ(measureSchool(mixed, p).state, 0.0);
    EXPECT_EQ(schoolState(0.5, 0.5, p), 3.0);  // transitional
    p.stateLow = 0.6f;
    EXPECT_EQ(schoolState(0.5, 0.5, p), 0.0);  // the thresholds are the config's
    p.stateLow = 0.7f;
    EXPECT_FALSE(validate(p));  // stateLow must be below stateHigh
}

}  // namespace
}  // namespace fishschool
