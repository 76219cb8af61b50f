// Angular noise: its statistics over many draws on every backend this build has, the same bits on
// cpu and tbb, and draws that follow the seed, the fish and the step count.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "core/CpuBackends.h"
#include "core/Scenario.h"
#include "io/ConfigIO.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;

constexpr int kDraws = 4000;

/// kDraws fish well apart, each swimming along +x at 1 m/s, with no rule on: only the noise turns
/// them.
School fishAlongX() {
    School school;
    for (int i = 0; i < kDraws; ++i) {
        const glm::vec3 position(-40.0f + 1.25f * float(i % 64), -40.0f + 1.25f * float(i / 64),
                                 0.0f);
        school.push_back({position, {1.0f, 0.0f, 0.0f}, {}});
    }
    return school;
}

bool sameBits(const School& a, const School& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Fish)) == 0;
}

class Noise : public test::PerBackend {
  protected:
    SimParams quiet(float noise) const {
        SimParams p = PerBackend::quiet();
        p.noise = noise;
        return p;
    }
};

TEST_P(Noise, TheTurnInTheHorizontalPlaneHasMeanZeroAndTheGivenSpread) {
    SimParams p = quiet(0.1f);
    p.lockVerticalSteering = true;
    const School next = test::stepOnce(GetParam().backend, p, fishAlongX());
    double sum = 0.0, sumSquares = 0.0;
    for (const Fish& f : next) {
        ASSERT_NEAR(glm::length(f.velocity), 1.0f, 1e-5f);
        ASSERT_EQ(f.velocity.y, 0.0f);
        const double angle = std::atan2(-double(f.velocity.z), double(f.velocity.x));
        sum += angle;
        sumSquares += angle * angle;
    }
    const double mean = sum / kDraws;
    const double spread = std::sqrt(sumSquares / kDraws - mean * mean);
    // The mean's standard error is 0.1 / sqrt(4000) = 0.0016; the spread's about 1.1 %.
    EXPECT_NEAR(mean, 0.0, 0.0064);
    EXPECT_NEAR(spread, 0.1, 0.005);
}

TEST_P(Noise, InThreeDimensionsTheAngleHasTheGivenSpreadAndAnyAxis) {
    const SimParams p = quiet(0.2f);
    const School next = test::stepOnce(GetParam().backend, p, fishAlongX());
    double squares = 0.0;
    glm::dvec3 across(0.0);
    for (const Fish& f : next) {
        ASSERT_NEAR(glm::length(f.velocity), 1.0f, 1e-5f);
        const double angle = std::atan2(std::hypot(double(f.velocity.y), double(f.velocity.z)),
                                        double(f.velocity.x));
        squares += angle * angle;
        across += glm::dvec3(f.velocity) / std::max(std::sin(angle), 1e-9);
    }
    // E[angle^2] = 0.04, its estimate within about 2.2 % (one standard error).
    EXPECT_NEAR(squares / kDraws, 0.04, 0.04 * 0.1);
    // The axis is uniform round the heading: the unit vectors across it average to about 0.
    EXPECT_NEAR(across.y / kDraws, 0.0, 0.05);
    EXPECT_NEAR(across.z / kDraws, 0.0, 0.05);
}

TEST_P(Noise, ZeroNoiseLeavesTheVelocityAsItWas) {
    const School next = test::stepOnce(GetParam().backend, quiet(0.0f), fishAlongX());
    for (const Fish& f : next) ASSERT_EQ(f.velocity, glm::vec3(1.0f, 0.0f, 0.0f));
}

TEST_P(Noise, EveryBackendDrawsTheSameNoiseAsCpu) {
    SimParams p;
    p.fishCount = 300;
    p.seed = 3;
    p.noise = 0.3f;
    p.neighborSearch = GetParam().search;
    EXPECT_LT(test::errorAgainstCpu(GetParam().backend, p, makeInitialSchool(p), 5), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Noise, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

SimParams noisySchool() {
    SimParams p;
    p.fishCount = 500;
    p.seed = 11;
    p.noise = 0.3f;
    return p;
}

School run(Backend& backend, const SimParams& p, const School& school, int steps) {
    EXPECT_TRUE(backend.setParams(p));
    EXPECT_TRUE(backend.upload(school));
    for (int s = 0; s < steps; ++s) backend.step();
    return backend.download();
}

TEST(NoiseBits, CpuAndTbbAreBitIdenticalWithNoise) {
    for (NeighborSearch search : {NeighborSearch::AllPairs, NeighborSearch::Grid}) {
        SimParams p = noisySchool();
        p.neighborSearch = search;
        const School start = makeInitialSchool(p);
        const School cpu = run(*makeCpuBackend(), p, start, 60);
        const School tbb = run(*makeTbbBackend(), p, start, 60);
        EXPECT_TRUE(sameBits(cpu, tbb)) << toString(search);
        p.noise = 0.0f;
        EXPECT_FALSE(sameBits(cpu, run(*makeCpuBackend(), p, start, 60))) << "the noise did act";
    }
}

TEST(NoiseBits, TheDrawsFollowTheSeedAndTheStepCount) {
    const SimParams p = noisySchool();
    const School start = makeInitialSchool(p);
    auto backend = makeCpuBackend();
    const School afterTwo = run(*backend, p, start, 2);
    backend->step();
    const School afterThree = backend->download();
    EXPECT_EQ(backend->stepCount(), 3u);

    // A school handed on with its count steps on as if it had stayed.
    auto handedOn = makeCpuBackend();
    handedOn->setStepCount(2);
    EXPECT_TRUE(sameBits(run(*handedOn, p, afterTwo, 1), afterThree));
    // From step 0 again the draws differ, and so they do with another seed.
    EXPECT_FALSE(sameBits(run(*makeCpuBackend(), p, afterTwo, 1), afterThree));
    SimParams otherSeed = p;
    otherSeed.seed = 12;
    auto reseeded = makeCpuBackend();
    reseeded->setStepCount(2);
    EXPECT_FALSE(sameBits(run(*reseeded, otherSeed, afterTwo, 1), afterThree));
}

TEST(NoiseBits, TheKeyIsCheckedAndSaved) {
    SimParams p;
    p.noise = -0.5f;
    ASSERT_FALSE(validate(p));
    EXPECT_THAT(validate(p).error(), HasSubstr("noise: -0.5 is not allowed"));
    p.noise = NAN;
    EXPECT_FALSE(validate(p));
    p.noise = 0.25f;
    EXPECT_TRUE(validate(p));
    const auto loaded = parseConfig(configToJson(p));
    ASSERT_TRUE(loaded) << loaded.error();
    EXPECT_EQ(loaded->noise, 0.25f);
    const auto refused = parseConfig(R"({"noise": 11})");
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("noise"));
}

}  // namespace
}  // namespace fishschool
