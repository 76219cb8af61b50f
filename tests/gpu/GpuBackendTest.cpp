// The GL compute backend against the cpu backend, on whatever GL this machine has (Mesa's
// llvmpipe in CI). Skipped, with the reason, only where no GL 4.3 context can be made at all.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include <glm/geometric.hpp>

#include "core/CpuBackends.h"
#include "core/Scenario.h"
#include "gpu/GpuBackend.h"
#include "gpu/HeadlessGlContext.h"

namespace fishschool {
namespace {

class Gpu : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        auto made = gpu::HeadlessGlContext::create();
        if (made) {
            context_ = std::move(*made).release();
            std::printf("GL renderer: %s\n", context_->renderer().c_str());
        } else {
            skipReason_ = new std::string(made.error());
        }
    }
    void SetUp() override {
        if (context_ == nullptr) GTEST_SKIP() << "no GL 4.3 context: " << *skipReason_;
    }

    static std::unique_ptr<gpu::GpuBackend> makeGpu(const SimParams& p) {
        auto backend = gpu::GpuBackend::create(p);
        EXPECT_TRUE(backend) << backend.error();
        return backend ? std::move(*backend) : nullptr;
    }

    static gpu::HeadlessGlContext* context_;
    static std::string* skipReason_;
};
gpu::HeadlessGlContext* Gpu::context_ = nullptr;
std::string* Gpu::skipReason_ = nullptr;

/// A random scene with rocks, and fish pressed against every wall.
std::pair<SimParams, School> randomScene(std::uint32_t seed, NeighborSearch search) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    SimParams p;
    p.fishCount = 1000 + static_cast<std::int64_t>(3000 * unit(rng));
    p.seed = seed;
    p.neighborSearch = search;
    p.bounds = {25.0f + 10 * unit(rng), 12.0f + 5 * unit(rng), 25.0f + 10 * unit(rng)};
    p.rocks = {{{-8.0f, -4.0f, 3.0f}, 3.0f}, {{9.0f, 2.0f, -6.0f}, 2.0f}};
    p.dt = 0.05f;
    School school = makeInitialSchool(p);
    for (std::size_t i = 0; i < 60; ++i) {
        Fish& f = school[i];
        const int axis = static_cast<int>(i % 3);
        const float side = (i / 3) % 2 ? 1.0f : -1.0f;
        f.position[axis] = side * p.bounds[axis];  // on the wall, heading out
        f.velocity[axis] = side * p.maxVelocity * 0.9f;
    }
    return {p, school};
}

/// |a - b| relative to the size of the quantity, for every component of every fish.
double maxRelativeError(const School& a, const School& b, float positionScale,
                        float velocityScale) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (int k = 0; k < 3; ++k) {
            worst = std::max(worst,
                             std::abs(double(a[i].position[k]) - b[i].position[k]) / positionScale);
            worst = std::max(worst,
                             std::abs(double(a[i].velocity[k]) - b[i].velocity[k]) / velocityScale);
        }
    }
    return worst;
}

void expectOneStepAgrees(NeighborSearch search) {
    for (std::uint32_t seed : {1u, 2u, 3u}) {
        const auto [p, school] = randomScene(seed, search);
        auto gpu = gpu::GpuBackend::create(p);
        ASSERT_TRUE(gpu) << gpu.error();
        auto cpu = makeCpuBackend();
        cpu->setParams(p);
        ASSERT_TRUE(cpu->upload(school));
        ASSERT_TRUE((*gpu)->upload(school));
        cpu->step();
        (*gpu)->step();
        const School expected = cpu->download(), actual = (*gpu)->download();
        ASSERT_EQ(actual.size(), expected.size());
        // Positions relative to the tank, velocities relative to the speed limit.
        const double error =
            maxRelativeError(actual, expected, glm::length(p.bounds), p.maxVelocity);
        EXPECT_LT(error, 1e-4) << "seed " << seed << ", " << school.size() << " fish";
    }
}

TEST_F(Gpu, OneAllPairsStepAgreesWithCpu) {
    expectOneStepAgrees(NeighborSearch::AllPairs);
}
TEST_F(Gpu, OneGridStepAgreesWithCpu) {
    expectOneStepAgrees(NeighborSearch::Grid);
}

TEST_F(Gpu, EveryFishStaysInTheSceneFor500Steps) {
    for (NeighborSearch search : {NeighborSearch::AllPairs, NeighborSearch::Grid}) {
        auto [p, school] = randomScene(7, search);
        school.resize(1500);
        auto gpu = makeGpu(p);
        ASSERT_TRUE(gpu);
        ASSERT_TRUE(gpu->upload(school));
        for (int s = 0; s < 500; ++s) gpu->step();
        const School after = gpu->download();
        ASSERT_EQ(after.size(), school.size());
        for (const Fish& f : after) {
            for (int k = 0; k < 3; ++k)
                ASSERT_TRUE(std::isfinite(f.position[k]) && std::isfinite(f.velocity[k]));
            ASSERT_TRUE(isInScene(f.position, p))
                << f.position.x << " " << f.position.y << " " << f.position.z;
        }
        EXPECT_NE(after, school);
    }
}

TEST_F(Gpu, UploadThenDownloadIsBitIdentical) {
    SimParams p;
    p.fishCount = 2345;
    School school = makeInitialSchool(p);
    for (std::size_t i = 0; i < school.size(); ++i)
        school[i].acceleration = {float(i), -1.5f, 0.25f};
    auto gpu = makeGpu(p);
    ASSERT_TRUE(gpu);
    ASSERT_TRUE(gpu->upload(school));
    const School back = gpu->download();
    ASSERT_EQ(back.size(), school.size());
    EXPECT_EQ(std::memcmp(back.data(), school.data(), school.size() * sizeof(Fish)), 0);
    EXPECT_EQ(gpu->fishCount(), school.size());
}

TEST_F(Gpu, GridKeepsDownloadInUploadOrder) {
    const auto [p, school] = randomScene(11, NeighborSearch::Grid);
    auto gpu = makeGpu(p);
    ASSERT_TRUE(gpu);
    ASSERT_TRUE(gpu->upload(school));
    gpu->step();
    const School after = gpu->download();
    // A fish moves at most maxVelocity * dt in a step (plus a reflection): it is still near
    // where it was uploaded, so the order is the upload order.
    for (std::size_t i = 0; i < school.size(); ++i)
        ASSERT_LT(glm::distance(after[i].position, school[i].position),
                  2.0f * p.maxVelocity * p.dt + 1e-3f)
            << i;
}

TEST_F(Gpu, ABrokenShaderGivesTheGlLogAndTheProgramGoesOn) {
    gpu::GpuBackend::ShaderOverrides broken;
    broken.allPairsSource =
        "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { undeclaredThing = 1; }\n";
    auto failed = gpu::GpuBackend::create(SimParams{}, broken);
    ASSERT_FALSE(failed);
    EXPECT_THAT(failed.error(), ::testing::HasSubstr("failed to compile"));
    EXPECT_THAT(failed.error(), ::testing::HasSubstr("undeclaredThing"));
    // The context is still usable.
    auto working = makeGpu(SimParams{});
    ASSERT_TRUE(working);
    ASSERT_TRUE(working->upload(School{{{0, 0, 0}, {1, 0, 0}, {}}}));
    working->step();
    EXPECT_EQ(working->download().size(), 1u);
}

TEST_F(Gpu, AnEmptySchoolSteps) {
    auto gpu = makeGpu(SimParams{});
    ASSERT_TRUE(gpu);
    ASSERT_TRUE(gpu->upload({}));
    gpu->step();
    EXPECT_TRUE(gpu->download().empty());
}

}  // namespace
}  // namespace fishschool
