// The same school steps to the same bits on one thread or many, and on every build: the cpu and
// tbb backends against each other, across thread counts, and against a golden hash. The hash
// holds with -march=native and without (the core is built with -ffp-contract=off).

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>

#include <tbb/global_control.h>
#include <tbb/info.h>

#include "core/CpuBackends.h"
#include "core/Scenario.h"

namespace fishschool {
namespace {

/// FNV-1a over the bytes of the position, velocity and acceleration of every fish, in upload
/// order (the species, which a step never changes, is left out: the hashes predate it).
std::uint64_t hashOf(const School& school) {
    std::uint64_t hash = 14695981039346656037ull;
    constexpr std::size_t kStateBytes = offsetof(Fish, species);
    static_assert(kStateBytes == 9 * sizeof(float));
    for (const Fish& fish : school) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(&fish);
        for (std::size_t k = 0; k < kStateBytes; ++k) {
            hash ^= bytes[k];
            hash *= 1099511628211ull;
        }
    }
    return hash;
}

School run(std::unique_ptr<Backend> backend, const SimParams& p, int steps) {
    EXPECT_TRUE(backend->setParams(p));
    EXPECT_TRUE(backend->upload(makeInitialSchool(p)));
    for (int s = 0; s < steps; ++s) backend->step();
    return backend->download();
}

struct Scene {
    const char* name;
    SimParams params;
    std::uint64_t goldenHash;
};

SimParams defaultScene() {
    SimParams p;
    p.fishCount = 2000;
    p.seed = 7;
    return p;
}

/// Every behaviour that has a step of its own compiled in: the field of view, seeking and
/// avoidance.
SimParams everyBehaviour() {
    SimParams p = defaultScene();
    p.viewAngle = 270.0f;
    p.kTarget = 0.5f;
    p.target = {10.0f, -5.0f, 0.0f};
    p.kAvoidance = 2.0f;
    return p;
}

/// Every steering mode of the other sources on top of those: a minimum speed, Reynolds steering,
/// inverse-square separation, the prioritised sum, avoidance by rays, leaders and predators.
SimParams everySteeringMode() {
    SimParams p = everyBehaviour();
    p.minVelocity = 1.5f;
    p.steering = Steering::Reynolds;
    p.separationFalloff = SeparationFalloff::InverseSquare;
    p.combine = Combine::Prioritized;
    p.avoidance = Avoidance::Rays;
    p.leaders = 3;
    p.predators = 2;
    p.predatorMaxVelocity = 7.0f;
    return p;
}

SimParams allPairs() {
    SimParams p = defaultScene();
    p.fishCount = 1000;
    p.neighborSearch = NeighborSearch::AllPairs;
    return p;
}

void PrintTo(const Scene& scene, std::ostream* out) {
    *out << scene.name;
}

class Determinism : public ::testing::TestWithParam<Scene> {};

TEST_P(Determinism, OneThreadManyThreadsAndTheGoldenHashAgree) {
    const Scene& scene = GetParam();
    constexpr int kSteps = 120;
    const School cpu = run(makeCpuBackend(), scene.params, kSteps);
    ASSERT_NE(hashOf(cpu), hashOf(makeInitialSchool(scene.params)));  // the school did move
    for (int threads : {1, 2, tbb::info::default_concurrency()}) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                  static_cast<std::size_t>(threads));
        const School tbb = run(makeTbbBackend(), scene.params, kSteps);
        ASSERT_EQ(tbb.size(), cpu.size());
        EXPECT_EQ(std::memcmp(tbb.data(), cpu.data(), cpu.size() * sizeof(Fish)), 0)
            << "tbb on " << threads << " threads differs from cpu";
    }
    // A change here means the step now computes other bits: a change of the model, or of the
    // order of its floating-point operations. Update the hash only for such a change.
    EXPECT_EQ(hashOf(cpu), scene.goldenHash) << std::hex << "0x" << hashOf(cpu);
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, Determinism,
    ::testing::Values(Scene{"Default", defaultScene(), 0x1b0d20942b821b6bull},
                      Scene{"EveryBehaviour", everyBehaviour(), 0xdd1e74a4e77a6771ull},
                      Scene{"AllPairs", allPairs(), 0x90d9566d0874f617ull},
                      Scene{"EverySteeringMode", everySteeringMode(), 0x4250f72f817b5acbull}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace fishschool
