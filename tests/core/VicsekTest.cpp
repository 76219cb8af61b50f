// Steering "vicsek" (Vicsek et al. 1995) and dimensions 2: the mean heading within rAlignment, the
// fish's own included, each fish's unit heading weighing the same, at constant speed; the uniform
// random angle; a flat school that stays in the plane y = 0. Hand-built scenes through every
// backend this build has, with both searches; expected values from docs/model.md.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "core/Scenario.h"
#include "io/ConfigIO.h"
#include "io/StateIO.h"

namespace fishschool {
namespace {

using test::expectVec;
using ::testing::HasSubstr;

constexpr int kFishApart = 4096;

class Vicsek : public test::PerBackend {
  protected:
    /// Vicsek's rule within 1 m at 2 m/s, no noise unless a test sets it.
    SimParams vicsek(int dimensions) const {
        SimParams p = PerBackend::quiet();
        p.steering = Steering::Vicsek;
        p.dimensions = dimensions;
        p.rAlignment = 1.0f;
        p.maxVelocity = 2.0f;
        p.dt = 0.1f;
        return p;
    }
};

/// kFishApart fish 1.25 m apart in the plane y = 0 (no neighbour within 1 m), each at 2 m/s
/// along +x.
School fishApartAlongX() {
    School school;
    for (int i = 0; i < kFishApart; ++i) {
        const glm::vec3 position(-40.0f + 1.25f * float(i % 64), 0.0f,
                                 -40.0f + 1.25f * float(i / 64));
        school.push_back({position, {2.0f, 0.0f, 0.0f}, {}});
    }
    return school;
}

TEST_P(Vicsek, WithoutNoiseAFishTakesTheMeanHeadingOfItsNeighboursAndItself) {
    const School school{{{0, 0, 0}, {2, 0, 0}, {}},
                        {{0.5f, 0, 0}, {0, 0, 2}, {}},     // within rAlignment of fish 0
                        {{0, 0.8f, 0}, {0, 2, 0}, {}},     // within rAlignment of fish 0
                        {{-1.5f, 0, 0}, {-2, 0, 0}, {}}};  // beyond it
    const SimParams p = vicsek(3);
    const School next = step(p, school);
    const glm::vec3 mean =
        glm::normalize(glm::vec3(2, 0, 0) + glm::vec3(0, 0, 2) + glm::vec3(0, 2, 0));
    expectVec(next[0].velocity, 2.0f * mean);
    expectVec(next[0].position, 2.0f * mean * p.dt);
    expectVec(next[0].acceleration, (2.0f * mean - glm::vec3(2, 0, 0)) / p.dt, 1e-4f);
    // Fish 1 sees fish 0 (0.5 m) and fish 2 (0.94 m); fish 3 sees nobody and goes straight on.
    expectVec(next[1].velocity, 2.0f * mean);
    expectVec(next[3].velocity, {-2, 0, 0});
    for (const Fish& fish : next) EXPECT_NEAR(glm::length(fish.velocity), 2.0f, 1e-5f);
}

// The mean heading sums unit headings: a fast fish weighs no more than a slow one, and a fish
// standing still adds nothing.
TEST_P(Vicsek, EveryNeighbourWeighsTheSameWhateverItsSpeed) {
    const School school{{{0, 0, 0}, {2, 0, 0}, {}},
                        {{0.5f, 0, 0}, {0, 0, 0.25f}, {}},  // slow, within rAlignment of fish 0
                        {{0, 0, 0.5f}, {0, 0, 0}, {}}};     // standing still, within it too
    const SimParams p = vicsek(3);
    const School next = step(p, school);
    const glm::vec3 mean = glm::normalize(glm::vec3(1, 0, 1));
    expectVec(next[0].velocity, 2.0f * mean);
    expectVec(next[1].velocity, 2.0f * mean);
    expectVec(next[2].velocity, 2.0f * mean);
}

// Two species of different maxVelocity: each swims at its own speed along the same mean heading,
// to which each fish adds its unit heading.
TEST_P(Vicsek, TwoSpeciesOfDifferentMaxVelocityWeighEquallyInTheMeanHeading) {
    SimParams p = vicsek(3);
    p.maxVelocity = 1.0f;
    Species slow{"slow", 1, {0.5f, 0.5f, 0.5f}, {}};
    Species fast{"fast", 1, {0.5f, 0.5f, 0.5f}, {{"maxVelocity", 4.0f}}};
    p.species = {slow, fast};
    p.fishCount = 2;
    ASSERT_TRUE(validate(p)) << validate(p).error();
    School school{{{0, 0, 0}, {1, 0, 0}, {}}, {{0.5f, 0, 0}, {0, 0, 4}, {}}};
    school[1].species = 1;
    const School next = step(p, school);
    const glm::vec3 mean = glm::normalize(glm::vec3(1, 0, 1));
    expectVec(next[0].velocity, 1.0f * mean);
    expectVec(next[1].velocity, 4.0f * mean);
    EXPECT_EQ(next[1].species, 1u);
}

TEST_P(Vicsek, InTwoDimensionsTheMeanHeadingStaysInThePlane) {
    const School school{
        {{0, 0, 0}, {2, 0, 0}, {}}, {{0.6f, 0, 0}, {0, 0, -2}, {}}, {{0, 0, 0.9f}, {-2, 0, 0}, {}}};
    const School next = step(vicsek(2), school);
    // Fish 0 sees both: the sum of the three headings is (0, 0, -1).
    expectVec(next[0].velocity, {0, 0, -2});
    // Fish 1 and fish 2 are 1.08 m apart: each sees fish 0 only.
    expectVec(next[1].velocity, 2.0f * glm::normalize(glm::vec3(1, 0, -1)));
    // Fish 2 sees fish 0 only, head on: the headings cancel, and it keeps its own.
    expectVec(next[2].velocity, {-2, 0, 0});
    for (const Fish& fish : next) EXPECT_EQ(fish.position.y, 0.0f);
}

// The angle between the new heading and the mean (here the fish's own, +x) is uniform in
// [-noise/2, noise/2]: mean 0, variance noise^2 / 12, a quarter of the fish in each quarter of
// the interval.
TEST_P(Vicsek, InTwoDimensionsTheNoiseIsAUniformAngleOfTheGivenWidth) {
    SimParams p = vicsek(2);
    p.noise = 2.0f;
    const School next = step(p, fishApartAlongX());
    double sum = 0.0, sumSquares = 0.0;
    std::array<int, 4> quarters{};
    for (const Fish& fish : next) {
        ASSERT_EQ(fish.velocity.y, 0.0f);
        ASSERT_EQ(fish.position.y, 0.0f);
        ASSERT_NEAR(glm::length(fish.velocity), 2.0f, 1e-5f);
        const double angle = std::atan2(-double(fish.velocity.z), double(fish.velocity.x));
        ASSERT_LE(std::abs(angle), 0.5 * p.noise + 1e-5);
        sum += angle;
        sumSquares += angle * angle;
        ++quarters[std::min(3, static_cast<int>((angle / p.noise + 0.5) * 4.0))];
    }
    const double mean = sum / kFishApart;
    const double variance = sumSquares / kFishApart - mean * mean;
    EXPECT_NEAR(mean, 0.0, 0.03);  // its standard error: 0.009
    EXPECT_NEAR(variance, p.noise * p.noise / 12.0, 0.03);
    for (int count : quarters) EXPECT_NEAR(count, kFishApart / 4, 150);
}

// In 3D the new heading is uniform on the cap of half-angle noise/2 about the mean: the cosine of
// the angle to it is uniform in [cos(noise/2), 1], the angle round it uniform too.
TEST_P(Vicsek, InThreeDimensionsTheNoiseIsUniformOnTheCap) {
    SimParams p = vicsek(3);
    p.noise = 1.0f;
    const School next = step(p, fishApartAlongX());
    const double lowestCos = std::cos(0.5 * p.noise);
    double sumCos = 0.0, sumY = 0.0, sumZ = 0.0;
    for (const Fish& fish : next) {
        ASSERT_NEAR(glm::length(fish.velocity), 2.0f, 1e-5f);
        const glm::vec3 heading = fish.velocity / 2.0f;
        ASSERT_GE(heading.x, lowestCos - 1e-5);
        sumCos += heading.x;
        sumY += heading.y;
        sumZ += heading.z;
    }
    EXPECT_NEAR(sumCos / kFishApart, 0.5 * (1.0 + lowestCos), 0.002);
    EXPECT_NEAR(sumY / kFishApart, 0.0, 0.01);
    EXPECT_NEAR(sumZ / kFishApart, 0.0, 0.01);
}

// Dimensions 2: positions and velocities keep y exactly 0 after many steps, with noise and rocks
// (one centred off the plane), on every steering; the gpu follows the cpu.
TEST_P(Vicsek, AFlatSchoolStaysInThePlaneOnEverySteering) {
    for (Steering steering :
         {Steering::Article, Steering::Reynolds, Steering::Couzin, Steering::Vicsek}) {
        SCOPED_TRACE(toString(steering));
        SimParams p = vicsek(2);
        p.steering = steering;
        p.fishCount = 300;
        p.bounds = {20.0f, 5.0f, 20.0f};
        p.rocks = {{{5.0f, 0.0f, 5.0f}, 3.0f}, {{-6.0f, 2.0f, -4.0f}, 3.0f}};
        p.rCohesion = 4.0f;
        p.rSeparation = 1.0f;
        p.rAlignment = 3.0f;
        p.kCohesion = 1.0f;
        p.kSeparation = 2.0f;
        p.kAlignment = 1.0f;
        p.maxAcceleration = 5.0f;
        p.maxTurnRate = 200.0f;
        p.noise = 0.5f;
        p.kAvoidance = 1.0f;
        p.avoidanceDistance = 2.0f;
        const School start = makeInitialSchool(p);
        for (const Fish& fish : start) {
            ASSERT_EQ(fish.position.y, 0.0f);
            ASSERT_EQ(fish.velocity.y, 0.0f);
            ASSERT_GT(glm::length(fish.velocity), 0.0f);
        }
        auto backend = test::makeBackend(GetParam().backend, p);
        ASSERT_TRUE(backend);
        ASSERT_TRUE(backend->upload(start));
        for (int s = 0; s < 300; ++s) backend->step();
        for (const Fish& fish : backend->download()) {
            ASSERT_EQ(fish.position.y, 0.0f);
            ASSERT_EQ(fish.velocity.y, 0.0f);
            ASSERT_EQ(fish.acceleration.y, 0.0f);
        }
        if (GetParam().backend != BackendKind::Cpu) {
            EXPECT_LT(test::errorAgainstCpu(GetParam().backend, p, start, 3), 1e-3);
        }
    }
}

// A flat school in a periodic square (Vicsek et al. 1995's set-up): the grid is one layer in y,
// searched wrapped in x and z only, so a neighbour across a face counts once.
TEST_P(Vicsek, InAPeriodicSquareANeighbourAcrossAFaceCountsOnce) {
    SimParams p = vicsek(2);
    p.boundary = Boundary::Periodic;
    p.bounds = {5.0f, 1.0f, 5.0f};
    const School school{{{4.8f, 0, 0}, {2, 0, 0}, {}},
                        {{-4.7f, 0, 0}, {0, 0, 2}, {}},  // 0.5 m from fish 0 across the face
                        {{0, 0, 2}, {0, 0, -2}, {}}};
    const School next = step(p, school);
    const glm::vec3 mean = glm::normalize(glm::vec3(1, 0, 1));
    expectVec(next[0].velocity, 2.0f * mean);
    expectVec(next[1].velocity, 2.0f * mean);
    expectVec(next[2].velocity, {0, 0, -2});
    // Fish 0 leaves by the face x = 5 and comes in by x = -5, in the plane.
    const glm::vec3 moved = glm::vec3(4.8f, 0, 0) + 2.0f * mean * p.dt;
    EXPECT_NEAR(next[0].position.x, moved.x - 10.0f * (moved.x > 5.0f), 1e-5f);
    EXPECT_EQ(next[0].position.y, 0.0f);
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Vicsek, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

TEST(Dimensions, ReadCheckedAndSaved) {
    auto p = parseConfig(R"({"dimensions": 2, "steering": "vicsek"})");
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p->dimensions, 2);
    EXPECT_EQ(p->steering, Steering::Vicsek);
    EXPECT_EQ(*parseConfig(configToJson(*p)), *p);
    EXPECT_EQ(SimParams{}.dimensions, 3);
    for (const char* bad : {R"({"dimensions": 4})", R"({"dimensions": 1})", R"({"dimensions": -2})",
                            R"({"dimensions": 2.5})"}) {
        const auto refused = parseConfig(bad);
        ASSERT_FALSE(refused) << bad;
        EXPECT_THAT(refused.error(), HasSubstr("dimensions"));
        EXPECT_THAT(refused.error(), HasSubstr("must be a whole number from 2 to 3"));
    }
    SimParams direct;
    direct.dimensions = 4;
    const auto invalid = validate(direct);
    ASSERT_FALSE(invalid);
    EXPECT_THAT(invalid.error(), HasSubstr("dimensions: 4 is not allowed"));
}

TEST(Dimensions, AFlatSchoolStartsInThePlaneAndOnlyThereIsLoaded) {
    SimParams p;
    p.fishCount = 500;
    p.dimensions = 2;
    p.rocks = {{{0.0f, 3.0f, 0.0f}, 10.0f}};
    const School school = makeInitialSchool(p);
    double spreadX = 0.0;
    for (const Fish& fish : school) {
        ASSERT_EQ(fish.position.y, 0.0f);
        ASSERT_EQ(fish.velocity.y, 0.0f);
        ASSERT_TRUE(isInScene(fish.position, p));
        spreadX = std::max(spreadX, double(std::abs(fish.position.x)));
    }
    EXPECT_GT(spreadX, 0.5 * p.bounds.x);
    EXPECT_FALSE(whyNotInScene(school[0], p));
    Fish lifted = school[0];
    lifted.velocity.y = 0.5f;
    const auto why = whyNotInScene(lifted, p);
    ASSERT_TRUE(why);
    EXPECT_THAT(*why, HasSubstr("with dimensions 2 every fish lies and moves in the plane"));
    // A school moved into a 2D scene lands in the plane, out of the rock's circle there.
    School moved{{{1.0f, 4.0f, 1.0f}, {1.0f, 1.0f, 0.0f}, {}}};
    EXPECT_EQ(moveIntoScene(moved, p), 1u);
    EXPECT_EQ(moved[0].position.y, 0.0f);
    EXPECT_EQ(moved[0].velocity.y, 0.0f);
    EXPECT_TRUE(isInScene(moved[0].position, p));
}

}  // namespace
}  // namespace fishschool
