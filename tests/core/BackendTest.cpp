// The cpu and tbb backends over many steps: invariants and bit-identical results.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include <glm/geometric.hpp>

#include "core/CpuBackends.h"
#include "core/Scenario.h"

namespace fishschool {
namespace {

School run(std::unique_ptr<Backend> backend, const SimParams& p, int steps) {
    backend->setParams(p);
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

/// Random scenes with rocks well apart: the guarantees of SPEC.md hold at every step.
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
        backend->setParams(p);
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

TEST(Backend, UploadDownloadRoundTripsAndKeepsOrder) {
    SimParams p;
    p.fishCount = 500;
    const School school = makeInitialSchool(p);
    for (auto make : {makeCpuBackend, makeTbbBackend}) {
        auto backend = make();
        backend->setParams(p);
        ASSERT_TRUE(backend->upload(school));
        EXPECT_EQ(backend->fishCount(), 500u);
        EXPECT_EQ(backend->download(), school);
    }
}

TEST(Backend, ParseAndNameKinds) {
    for (BackendKind kind : {BackendKind::Cpu, BackendKind::Tbb, BackendKind::Gpu})
        EXPECT_EQ(parseBackendKind(toString(kind)), kind);
    EXPECT_FALSE(parseBackendKind("cuda"));
    EXPECT_EQ(makeCpuBackend()->kind(), BackendKind::Cpu);
    EXPECT_EQ(makeTbbBackend()->kind(), BackendKind::Tbb);
}

TEST(Backend, AnEmptySchoolSteps) {
    auto backend = makeTbbBackend();
    backend->setParams(SimParams{});
    ASSERT_TRUE(backend->upload({}));
    backend->step();
    EXPECT_TRUE(backend->download().empty());
}

}  // namespace
}  // namespace fishschool
