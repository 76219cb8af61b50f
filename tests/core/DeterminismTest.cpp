// The same school steps to the same bits on one thread or many, and on every build: the cpu and
// tbb backends against each other, across thread counts, and against a golden hash. The hash
// holds with -march=native and without (the core is built with -ffp-contract=off).

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <random>
#include <string>

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include "core/CpuBackends.h"
#include "core/GridShape.h"
#include "core/NeighbourSumsAvx512.h"
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
    ::testing::Values(Scene{"Default", defaultScene(), 0xac069b2adf91d182ull},
                      Scene{"EveryBehaviour", everyBehaviour(), 0x36ccf93307a9513aull},
                      Scene{"AllPairs", allPairs(), 0x90d9566d0874f617ull},
                      Scene{"EverySteeringMode", everySteeringMode(), 0x007092cfd3a0bf82ull}),
    [](const auto& info) { return std::string(info.param.name); });

/// The default school and the article's, each with the grid and with all-pairs, at a size that
/// TBB cuts into many chunks (grains of 256 fish on the grid, 64 for all-pairs).
struct SplitScene {
    const char* name;
    SimParams params;
};

SimParams splitScene(SimParams p, NeighborSearch search) {
    p.fishCount = search == NeighborSearch::Grid ? 4000 : 1500;
    p.seed = 11;
    p.neighborSearch = search;
    return p;
}

void PrintTo(const SplitScene& scene, std::ostream* out) {
    *out << scene.name;
}

class ThreadCounts : public ::testing::TestWithParam<SplitScene> {};

// Every thread count splits the fish into other chunks, run in another order: the bytes stay
// those of one thread. 16 threads on a machine of fewer cores take turns, which splits the work
// differently again.
TEST_P(ThreadCounts, TbbOnAnyThreadCountStepsTheBytesOfCpu) {
    const SimParams& p = GetParam().params;
    ASSERT_TRUE(validate(p)) << validate(p).error();
    constexpr int kSteps = 6;
    const School cpu = run(makeCpuBackend(), p, kSteps);
    ASSERT_NE(hashOf(cpu), hashOf(makeInitialSchool(p)));
    for (int threads : {1, 2, 3, 16}) {
        // The global limit lets TBB start that many threads even past the cores; the arena's
        // concurrency is what the step's parallel_for then gets.
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                  static_cast<std::size_t>(threads));
        tbb::task_arena arena(threads);
        School tbb;
        arena.execute([&] {
            EXPECT_EQ(tbb::this_task_arena::max_concurrency(), threads);
            tbb = run(makeTbbBackend(), p, kSteps);
        });
        ASSERT_EQ(tbb.size(), cpu.size());
        EXPECT_EQ(std::memcmp(tbb.data(), cpu.data(), cpu.size() * sizeof(Fish)), 0)
            << "tbb on " << threads << " threads differs from cpu";
    }
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, ThreadCounts,
    ::testing::Values(
        SplitScene{"DefaultGrid", splitScene(SimParams{}, NeighborSearch::Grid)},
        SplitScene{"DefaultAllPairs", splitScene(SimParams{}, NeighborSearch::AllPairs)},
        SplitScene{"ArticleGrid", splitScene(articleParams(), NeighborSearch::Grid)},
        SplitScene{"ArticleAllPairs", splitScene(articleParams(), NeighborSearch::AllPairs)}),
    [](const auto& info) { return std::string(info.param.name); });

/// A school of more fish a cell than a group holds, so that cells are cut into half-cells.
SimParams crowded() {
    SimParams p = defaultScene();
    p.fishCount = 6000;
    p.bounds = {15.0f, 10.0f, 15.0f};
    p.rocks.clear();
    p.rCohesion = 4.0f;
    p.rAlignment = 3.0f;
    p.rSeparation = 1.0f;
    return p;
}

SimParams withBoundary(SimParams p, Boundary boundary) {
    p.boundary = boundary;
    return p;
}

/// Species of other radii, weights and masses: each fish searches with its own radii, and the
/// candidates are packed for the largest.
SimParams withSpecies() {
    SimParams p = defaultScene();
    p.species = {Species{"small", 1500, {0.5f, 0.5f, 0.5f}, {{"rCohesion", 5.0f}}},
                 Species{"large", 500, {0.5f, 0.5f, 0.5f}, {{"rCohesion", 25.0f}, {"mass", 3.0f}}}};
    return p;
}

class WideLanes : public ::testing::TestWithParam<Scene> {
  protected:
    void TearDown() override { avx512::setEnabled(true); }
};

// The AVX-512 search and packing stand in for the eight-lane code only where they compute the
// same bits: the same school steps to the same state with them and without.
TEST_P(WideLanes, StepTheSameBitsAsTheEightLaneCode) {
    if (!avx512::available()) GTEST_SKIP() << "this processor has no AVX-512";
    const SimParams& p = GetParam().params;
    ASSERT_TRUE(validate(p)) << validate(p).error();
    constexpr int kSteps = 60;
    const School wide = run(makeTbbBackend(), p, kSteps);
    avx512::setEnabled(false);
    ASSERT_FALSE(avx512::available());
    const School narrow = run(makeTbbBackend(), p, kSteps);
    ASSERT_EQ(wide.size(), narrow.size());
    EXPECT_EQ(hashOf(wide), hashOf(narrow));
    EXPECT_EQ(std::memcmp(wide.data(), narrow.data(), wide.size() * sizeof(Fish)), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, WideLanes,
    ::testing::Values(Scene{"Walls", crowded(), 0},
                      Scene{"Periodic", withBoundary(crowded(), Boundary::Periodic), 0},
                      Scene{"OpenWater", withBoundary(crowded(), Boundary::Open), 0},
                      Scene{"Species", withSpecies(), 0},
                      Scene{"EverySteeringMode", everySteeringMode(), 0}),
    [](const auto& info) { return std::string(info.param.name); });

/// Steps `school` on cpu and tbb, each step beside the same school uploaded afresh: the bytes
/// must agree at every step.
void expectEveryStepAsAfterAFreshSort(const SimParams& p, const School& school, int steps) {
    for (auto make : {&makeCpuBackend, &makeTbbBackend}) {
        const std::unique_ptr<Backend> kept = make();
        ASSERT_TRUE(kept->setParams(p));
        ASSERT_TRUE(kept->upload(school));
        for (int s = 0; s < steps; ++s) {
            const std::unique_ptr<Backend> fresh = make();
            ASSERT_TRUE(fresh->setParams(p));
            ASSERT_TRUE(fresh->upload(kept->download()));
            fresh->setStepCount(kept->stepCount());
            kept->step();
            fresh->step();
            const School a = kept->download(), b = fresh->download();
            ASSERT_EQ(a.size(), b.size());
            ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(Fish)), 0)
                << "step " << s << " of " << kept->description();
        }
    }
}

class MendedOrder : public ::testing::TestWithParam<Scene> {};

// Each step sorts the fish by cell, half-cell and id, mending the last step's order where few
// fish changed cell: a school that steps on from the order it kept steps to the bytes of the same
// school uploaded afresh, whose first sort sorts every fish anew, at every step.
TEST_P(MendedOrder, StepsTheBytesOfAFreshSort) {
    const SimParams& p = GetParam().params;
    ASSERT_TRUE(validate(p)) << validate(p).error();
    expectEveryStepAsAfterAFreshSort(p, makeInitialSchool(p), 40);
}

// The sort is mended in chunks of 2,048 slots. Here the first chunk's fish all cross a half-cell
// together, and sort before every fish that stayed: a chunk with none that stayed, and movers
// placed before the first chunk that has some.
TEST(MendedOrder, AWholeChunkOfFishCrossingAHalfCell) {
    SimParams p;
    p.bounds = {40.0f, 40.0f, 40.0f};
    p.rocks.clear();
    p.rCohesion = p.rAlignment = 10.0f;
    p.rSeparation = 2.0f;
    p.fishCount = 40000;
    ASSERT_TRUE(validate(p)) << validate(p).error();
    const GridShape grid = GridShape::forTank(p.bounds, 10.0f, 2 * 40000 + 64);
    ASSERT_EQ(grid.dimX, 8);
    const float cell = static_cast<float>(grid.cellSize);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> within(-1.0f, 1.0f);
    School school(40000);
    for (std::size_t i = 0; i < school.size(); ++i) {
        Fish& f = school[i];
        if (i < 2100) {
            // Just below the middle of the first cell in x, swimming across it; the lower halves
            // in y and z.
            f.position = {-40.0f + 0.5f * cell - 0.02f, -40.0f + 0.25f * cell + within(rng),
                          -40.0f + 0.25f * cell + within(rng)};
            f.velocity = {3.0f, 0.0f, 0.0f};
        } else {
            // At rest a quarter of a cell from every face and middle, in the other cells.
            const std::size_t k = i % 511 + 1;
            const glm::vec3 cellAt(static_cast<float>(k % 8), static_cast<float>(k / 8 % 8),
                                   static_cast<float>(k / 64));
            const glm::vec3 quarter(0.25f + 0.5f * static_cast<float>(i / 511 % 2),
                                    0.25f + 0.5f * static_cast<float>(i / 1022 % 2), 0.25f);
            f.position = -p.bounds + (cellAt + quarter) * cell +
                         glm::vec3(within(rng), within(rng), within(rng));
            f.velocity = {};
        }
    }
    expectEveryStepAsAfterAFreshSort(p, school, 3);
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, MendedOrder,
    ::testing::Values(Scene{"Walls", crowded(), 0},
                      Scene{"Periodic", withBoundary(crowded(), Boundary::Periodic), 0},
                      Scene{"OpenWater", withBoundary(crowded(), Boundary::Open), 0},
                      Scene{"Species", withSpecies(), 0},
                      Scene{"Article", splitScene(articleParams(), NeighborSearch::Grid), 0}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace fishschool
