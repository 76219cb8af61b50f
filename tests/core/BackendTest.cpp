// The cpu and tbb backends over many steps: invariants and bit-identical results. The registry
// of backends, and what every backend in it does.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "core/CpuBackends.h"
#include "core/Scenario.h"

namespace fishschool {
namespace {

School run(std::unique_ptr<Backend> backend, const SimParams& p, int steps) {
    EXPECT_TRUE(backend->setParams(p));
    EXPECT_TRUE(backend->upload(makeInitialSchool(p)));
    for (int s = 0; s < steps; ++s) backend->step();
    return backend->download();
}

bool sameBits(const School& a, const School& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Fish)) == 0;
}

class BothSearches : public ::testing::TestWithParam<NeighborSearch> {};

TEST_P(BothSearches, CpuAndTbbAreBitIdenticalAfter200Steps) {
    SimParams p;
    p.fishCount = 3000;
    p.seed = 5;
    p.neighborSearch = GetParam();
    const School cpu = run(makeCpuBackend(), p, 200);
    const School tbb = run(makeTbbBackend(), p, 200);
    ASSERT_TRUE(sameBits(cpu, tbb));
    EXPECT_NE(cpu, makeInitialSchool(p));  // the school did move
}

/// Random scenes with rocks well apart: the guarantees of docs/model.md hold at every step.
TEST_P(BothSearches, EveryFishStaysInTheTankOutsideTheRocksAndFinite) {
    std::mt19937 rng(99);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (int scene = 0; scene < 3; ++scene) {
        SimParams p;
        p.fishCount = 300;
        p.seed = 1000 + scene;
        p.neighborSearch = GetParam();
        p.bounds = {15.0f + 10.0f * unit(rng), 8.0f + 6.0f * unit(rng), 15.0f + 10.0f * unit(rng)};
        p.maxVelocity = 4.0f + 4.0f * unit(rng);
        p.kSeparation = 1.0f + 2.0f * unit(rng);
        p.rocks = {{{-0.5f * p.bounds.x, -0.3f * p.bounds.y, 0.0f}, 3.0f},
                   {{0.5f * p.bounds.x, 0.2f * p.bounds.y, 0.3f * p.bounds.z}, 2.5f}};
        ASSERT_TRUE(validate(p)) << validate(p).error();
        auto backend = makeTbbBackend();
        ASSERT_TRUE(backend->setParams(p));
        ASSERT_TRUE(backend->upload(makeInitialSchool(p)));
        for (int s = 0; s < 1000; ++s) {
            backend->step();
            for (const Fish& f : backend->download()) {
                for (int k = 0; k < 3; ++k)
                    ASSERT_TRUE(std::isfinite(f.position[k]) && std::isfinite(f.velocity[k]));
                ASSERT_TRUE(isInScene(f.position, p)) << "scene " << scene << " step " << s;
                ASSERT_LE(glm::length(f.velocity), p.maxVelocity * 1.0001f);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Search, BothSearches,
                         ::testing::Values(NeighborSearch::AllPairs, NeighborSearch::Grid),
                         [](const auto& info) {
                             return info.param == NeighborSearch::Grid ? "Grid" : "AllPairs";
                         });

class EveryBackend : public ::testing::TestWithParam<BackendKind> {
  protected:
    void SetUp() override { test::requireAvailable(GetParam()); }
};

TEST_P(EveryBackend, UploadDownloadRoundTripsAndKeepsOrder) {
    SimParams p;
    p.fishCount = 500;
    School school = makeInitialSchool(p);
    for (std::size_t i = 0; i < school.size(); ++i)
        school[i].acceleration = {float(i), -1.5f, 0.25f};
    auto backend = test::makeBackend(GetParam(), p);
    ASSERT_TRUE(backend);
    EXPECT_EQ(backend->kind(), GetParam());
    EXPECT_FALSE(backend->description().empty());
    ASSERT_TRUE(backend->upload(school));
    EXPECT_EQ(backend->fishCount(), 500u);
    EXPECT_EQ(backend->download(), school);
}

/// A trajectory's frame, taken straight from the backend: after grid steps the backend's own
/// order is the cells', and the frame must still be in upload order.
TEST_P(EveryBackend, AFrameHoldsThePositionsAndVelocitiesOfTheDownloadInUploadOrder) {
    SimParams p;
    p.fishCount = 20000;  // more than one chunk of a parallel copy
    p.neighborSearch = NeighborSearch::Grid;
    auto backend = test::makeBackend(GetParam(), p);
    ASSERT_TRUE(backend);
    ASSERT_TRUE(backend->upload(makeInitialSchool(p)));
    backend->step();
    const School school = backend->download();
    std::vector<float> expectedPositions(3 * school.size()), expectedVelocities(3 * school.size());
    copyFrame(school, expectedPositions, expectedVelocities);
    std::vector<float> positions(3 * school.size(), -1.0f), velocities(3 * school.size(), -1.0f);
    backend->downloadFrame(positions, velocities);
    EXPECT_EQ(positions, expectedPositions);
    EXPECT_EQ(velocities, expectedVelocities);
    EXPECT_EQ(positions[3], school[1].position.x);  // fish 1's triple, in that order
    EXPECT_EQ(velocities[5], school[1].velocity.z);
}

/// A step that copies the frame of the school it steps from: the frame is the school before
/// the step, and the step's result is step()'s, to the bit where a backend is reproducible (the
/// CPU's; two GPU schools need not agree to the bit).
TEST_P(EveryBackend, AStepCopyingTheFrameStepsAsAStepAndCopiesTheSchoolItSteppedFrom) {
    SimParams p;
    p.fishCount = 3000;
    p.neighborSearch = NeighborSearch::Grid;
    const bool reproducible = !backendEntry(GetParam()).onGpu;
    auto plain = test::makeBackend(GetParam(), p);
    auto copying = test::makeBackend(GetParam(), p);
    ASSERT_TRUE(plain && copying);
    ASSERT_TRUE(plain->upload(makeInitialSchool(p)));
    ASSERT_TRUE(copying->upload(makeInitialSchool(p)));
    std::vector<float> positions(3 * 3000), velocities(3 * 3000);
    for (int s = 0; s < 3; ++s) {
        std::vector<float> expectedPositions(3 * 3000), expectedVelocities(3 * 3000);
        copyFrame(copying->download(), expectedPositions, expectedVelocities);
        plain->step();
        copying->stepCopyingFrame(positions, velocities);
        EXPECT_EQ(positions, expectedPositions) << "step " << s;
        EXPECT_EQ(velocities, expectedVelocities) << "step " << s;
        if (reproducible) {
            EXPECT_TRUE(sameBits(copying->download(), plain->download())) << "step " << s;
        }
        EXPECT_NE(copying->download(), makeInitialSchool(p));  // it did step
        EXPECT_EQ(copying->stepCount(), plain->stepCount());
    }
}

TEST_P(EveryBackend, AnEmptySchoolSteps) {
    auto backend = test::makeBackend(GetParam(), SimParams{});
    ASSERT_TRUE(backend);
    ASSERT_TRUE(backend->upload({}));
    backend->step();
    EXPECT_TRUE(backend->download().empty());
    EXPECT_EQ(backend->fishCount(), 0u);
}

/// A backend drawn from GPU memory says where its school lies there; the others are drawn from
/// a download.
TEST_P(EveryBackend, ItSaysHowItIsDrawn) {
    SimParams p;
    p.fishCount = 300;
    auto backend = test::makeBackend(GetParam(), p);
    ASSERT_TRUE(backend);
    ASSERT_TRUE(backend->upload(makeInitialSchool(p)));
    backend->step();
    const auto source = backend->drawSource();
    EXPECT_EQ(source.has_value(), backendEntry(GetParam()).onGpu);
    if (source) {
        EXPECT_NE(source->buffer, 0u);
        EXPECT_EQ(source->fishCount, 300u);
        EXPECT_TRUE(source->firstFish == 0 || source->firstFish == 300) << source->firstFish;
    }
}

std::vector<BackendKind> everyBuiltKind() {
    std::vector<BackendKind> kinds;
    for (const BackendEntry& entry : backendRegistry())
        if (entry.built) kinds.push_back(entry.kind);
    return kinds;
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryBackend, ::testing::ValuesIn(everyBuiltKind()),
                         [](const auto& info) { return std::string(toString(info.param)); });

}  // namespace
}  // namespace fishschool
