// The app's simulation driver on a headless GL context: backends switched mid-run keep the
// school, parameter changes keep it valid, the fixed step does not spiral.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "app/SimulationController.h"
#include "app_model/AppLimits.h"
#include "backends/BackendRegistry.h"
#include "core/CpuBackends.h"
#include "core/Scenario.h"
#include "fishschool/Metrics.h"
#include "gpu/HeadlessGlContext.h"

namespace fishschool::app {
namespace {

class Controller : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        auto made = gpu::HeadlessGlContext::create();
        if (made) context_ = std::move(*made).release();
    }
    std::unique_ptr<SimulationController> make(std::int64_t fish,
                                               BackendKind kind = BackendKind::Tbb) {
        SimParams p;
        p.fishCount = fish;
        auto controller = SimulationController::create(p, kind);
        EXPECT_TRUE(controller) << controller.error();
        return controller ? std::move(*controller) : nullptr;
    }
    static bool gpuAvailable() { return context_ != nullptr; }
    static gpu::HeadlessGlContext* context_;
};
gpu::HeadlessGlContext* Controller::context_ = nullptr;

void expectAllInScene(SimulationController& sim) {
    for (const Fish& f : sim.backend().download()) ASSERT_TRUE(isInScene(f.position, sim.params()));
}

TEST_F(Controller, SwitchingBackendsMidRunKeepsTheSchool) {
    auto sim = make(1500);
    ASSERT_TRUE(sim);
    std::vector<BackendKind> order = {BackendKind::Cpu, BackendKind::Tbb};
    if (gpuAvailable())
        order = {BackendKind::Gpu, BackendKind::Cpu, BackendKind::Gpu, BackendKind::Tbb};
    for (BackendKind kind : order) {
        for (int s = 0; s < 10; ++s) sim->stepOnce();
        const School before = sim->backend().download();
        ASSERT_TRUE(sim->switchBackend(kind));
        EXPECT_EQ(sim->backendKind(), kind);
        EXPECT_EQ(sim->fishCount(), 1500u);
        EXPECT_EQ(sim->backend().download(), before);  // handed over exactly
        expectAllInScene(*sim);
    }
}

TEST_F(Controller, ChangingTheFishCountKeepsTheOtherFish) {
    auto sim = make(500);
    ASSERT_TRUE(sim);
    for (int s = 0; s < 5; ++s) sim->stepOnce();
    const School before = sim->backend().download();
    SimParams p = sim->params();
    p.fishCount = 800;
    ASSERT_TRUE(sim->applyParams(p));
    const School grown = sim->backend().download();
    ASSERT_EQ(grown.size(), 800u);
    EXPECT_TRUE(std::equal(before.begin(), before.end(), grown.begin()));
    p.fishCount = 200;
    ASSERT_TRUE(sim->applyParams(p));
    const School shrunk = sim->backend().download();
    ASSERT_EQ(shrunk.size(), 200u);
    EXPECT_TRUE(std::equal(shrunk.begin(), shrunk.end(), before.begin()));
}

/// The fish of `school` whose species is named `name` in `params`, in order.
School fishOf(const School& school, const SimParams& params, const std::string& name) {
    School kept;
    for (const Fish& fish : school)
        if (fish.species < params.species.size() && params.species[fish.species].name == name)
            kept.push_back(fish);
    return kept;
}

// What the panel's Species section asks for (Panel::drawSpeciesList), carried out through
// applyParams: a count, a new species, a rename and a removal keep every other fish as it was.
TEST_F(Controller, ChangingTheSpeciesKeepsTheOtherFish) {
    SimParams p;
    p.fishCount = 600;
    p.species = {{"sardine", 500, {0.25f, 0.5f, 1.0f}, {{"bodyLength", 1.0f}}},
                 {"tuna", 100, {1.0f, 0.5f, 0.1f}, {{"maxVelocity", 6.0f}}}};
    auto made = SimulationController::create(p, BackendKind::Cpu);
    ASSERT_TRUE(made) << made.error();
    auto& sim = *made;
    for (int s = 0; s < 5; ++s) sim->stepOnce();
    const School start = sim->backend().download();
    const School sardines = fishOf(start, p, "sardine"), tuna = fishOf(start, p, "tuna");
    ASSERT_EQ(sardines.size(), 500u);
    ASSERT_EQ(tuna.size(), 100u);

    // More tuna: the sardines stay, the tuna keep theirs and gain new ones.
    SimParams more = sim->params();
    more.species[1].count = 150;
    more.fishCount = 650;
    ASSERT_TRUE(sim->applyParams(more));
    School now = sim->backend().download();
    EXPECT_EQ(fishOf(now, more, "sardine"), sardines);
    School moreTuna = fishOf(now, more, "tuna");
    ASSERT_EQ(moreTuna.size(), 150u);
    EXPECT_TRUE(std::equal(tuna.begin(), tuna.end(), moreTuna.begin()));

    // A new species: new fish, the others as they were.
    SimParams added = sim->params();
    added.species.push_back({"cod", 50, {0.3f, 0.8f, 0.35f}, {}});
    added.fishCount = 700;
    ASSERT_TRUE(sim->applyParams(added));
    now = sim->backend().download();
    EXPECT_EQ(fishOf(now, added, "sardine"), sardines);
    EXPECT_EQ(fishOf(now, added, "tuna"), moreTuna);
    EXPECT_EQ(fishOf(now, added, "cod").size(), 50u);

    // Renamed where it stands: the same fish.
    SimParams renamed = sim->params();
    renamed.species[1].name = "bluefin";
    ASSERT_TRUE(sim->applyParams(renamed));
    now = sim->backend().download();
    EXPECT_EQ(fishOf(now, renamed, "bluefin"), moreTuna);
    EXPECT_EQ(fishOf(now, renamed, "sardine"), sardines);

    // Removed: its fish go, the others stay.
    SimParams removed = sim->params();
    removed.species.erase(removed.species.begin() + 1);
    removed.fishCount = 550;
    ASSERT_TRUE(sim->applyParams(removed));
    now = sim->backend().download();
    EXPECT_EQ(sim->fishCount(), 550u);
    EXPECT_EQ(fishOf(now, removed, "sardine"), sardines);
    EXPECT_EQ(fishOf(now, removed, "cod").size(), 50u);

    // A repeated name is refused with the rule's reason, and nothing changes.
    SimParams twice = sim->params();
    twice.species[1].name = "sardine";
    const auto refused = sim->applyParams(twice);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("give each species its own name"), std::string::npos)
        << refused.error();
    EXPECT_EQ(sim->params().species[1].name, "cod");
    EXPECT_EQ(sim->backend().download(), now);
}

// The sweep's counts (and the panel's fish count) are shared among the species.
TEST_F(Controller, ANewFishCountIsSharedAmongTheSpecies) {
    SimParams p;
    p.fishCount = 1000;
    p.species = {{"a", 900, {0.25f, 0.5f, 1.0f}, {}}, {"b", 100, {1.0f, 0.5f, 0.1f}, {}}};
    auto made = SimulationController::create(p, BackendKind::Tbb);
    ASSERT_TRUE(made) << made.error();
    auto& sim = *made;
    sim->setDensity(Density::Fixed);
    ASSERT_TRUE(sim->setScene(BackendKind::Cpu, 3001));
    EXPECT_EQ(sim->fishCount(), 3001u);
    EXPECT_EQ(sim->params().species[0].count, 2701);  // 2700.9: the larger remainder
    EXPECT_EQ(sim->params().species[1].count, 300);
    EXPECT_EQ(sim->params().rocks.size(), SimParams{}.rocks.size()) << "a rock was left out";
    expectAllInScene(*sim);
}

TEST_F(Controller, ShrinkingTheTankMovesFishInsideAndABadValueIsRefused) {
    auto sim = make(2000);
    ASSERT_TRUE(sim);
    SimParams p = sim->params();
    p.bounds = {20.0f, 15.0f, 20.0f};
    p.rocks = {{{0.0f, -8.0f, 0.0f}, 4.0f}};
    ASSERT_TRUE(sim->applyParams(p));
    expectAllInScene(*sim);
    sim->stepOnce();
    expectAllInScene(*sim);

    SimParams bad = sim->params();
    bad.rSeparation = -1.0f;
    const auto refused = sim->applyParams(bad);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), ::testing::HasSubstr("rSeparation"));
    EXPECT_EQ(sim->params(), p);
}

void expectScaled(const SimParams& scaled, const SimParams& base, double factor) {
    for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(scaled.bounds[k], base.bounds[k] * factor, 1e-4 * base.bounds[k]) << k;
        EXPECT_NEAR(scaled.target[k], base.target[k] * factor,
                    1e-4 + 1e-4 * std::abs(base.target[k]));
    }
    ASSERT_EQ(scaled.rocks.size(), base.rocks.size());
    for (std::size_t r = 0; r < base.rocks.size(); ++r) {
        EXPECT_NEAR(scaled.rocks[r].radius, base.rocks[r].radius * factor, 1e-4) << r;
        for (int k = 0; k < 3; ++k)
            EXPECT_NEAR(scaled.rocks[r].center[k], base.rocks[r].center[k] * factor, 1e-3) << r;
    }
}

TEST_F(Controller, AtFixedDensityANewCountScalesTheTankByTheCubeRootAndKeepsEveryFishInside) {
    auto sim = make(2000, BackendKind::Cpu);
    ASSERT_TRUE(sim);
    sim->setDensity(Density::Fixed);
    SimParams base = sim->params();
    base.target = {5.0f, -3.0f, 8.0f};
    ASSERT_TRUE(sim->applyParams(base));  // a new target moves nothing else
    for (int s = 0; s < 5; ++s) sim->stepOnce();
    const School before = sim->backend().download();

    // Eight times the fish: twice the tank, rocks and target, as the CLI's --density fixed.
    SimParams p = sim->params();
    p.fishCount = 16'000;
    ASSERT_TRUE(sim->applyParams(p));
    EXPECT_EQ(sim->params(), fixedDensityParams(16'000, base));
    expectScaled(sim->params(), base, 2.0);
    const School grown = sim->backend().download();
    ASSERT_EQ(grown.size(), 16'000u);
    // Kept where they were, but those that a grown rock now covers: moved out of it, keeping
    // their velocity.
    std::size_t moved = 0;
    for (std::size_t i = 0; i < before.size(); ++i) {
        EXPECT_EQ(grown[i].velocity, before[i].velocity) << i;
        if (grown[i].position == before[i].position) continue;
        EXPECT_FALSE(isInScene(before[i].position, sim->params())) << i;
        ++moved;
    }
    EXPECT_LT(moved, before.size() / 4);
    expectAllInScene(*sim);

    // A sweep's case (setScene) scales alike; an eighth of the fish, half the tank: the fish
    // the smaller tank leaves outside, or that a rock now covers, are moved inside.
    ASSERT_TRUE(sim->setScene(BackendKind::Tbb, 250));
    EXPECT_EQ(sim->params(), fixedDensityParams(250, base));
    EXPECT_NEAR(sim->params().bounds.x, base.bounds.x * 0.5f, 1e-4f);
    expectAllInScene(*sim);

    // Back at the base's count: the base scene itself.
    ASSERT_TRUE(sim->setScene(BackendKind::Cpu, 2000));
    EXPECT_EQ(sim->params(), base);
    expectAllInScene(*sim);

    // A tank set by hand becomes the base: its density is the one kept from then on.
    p = sim->params();
    p.bounds = {60.0f, 30.0f, 60.0f};
    ASSERT_TRUE(sim->applyParams(p));
    const SimParams handSet = sim->params();
    p.fishCount = 2000 * 27;
    ASSERT_TRUE(sim->applyParams(p));
    expectScaled(sim->params(), handSet, 3.0);
    expectAllInScene(*sim);

    // The tank mode keeps the tank; switching back to fixed moves nothing.
    sim->setDensity(Density::Tank);
    const SimParams tankMode = sim->params();
    p = tankMode;
    p.fishCount = 1000;
    ASSERT_TRUE(sim->applyParams(p));
    EXPECT_EQ(sim->params().bounds, tankMode.bounds);
    EXPECT_EQ(sim->params().rocks, tankMode.rocks);
    sim->setDensity(Density::Fixed);
    EXPECT_EQ(sim->params().bounds, tankMode.bounds);
    p.fishCount = 8000;
    ASSERT_TRUE(sim->applyParams(p));
    expectScaled(sim->params(), tankMode, 2.0);
    expectAllInScene(*sim);
}

// Issue 33: a base of no fish was taken for one fish's density, and the first count scaled the
// tank by its cube root (1,000 fish: ten times the tank).
TEST_F(Controller, AtFixedDensityABaseOfNoFishScalesNothingAndTheSceneInViewBecomesTheBase) {
    auto sim = make(0, BackendKind::Cpu);
    ASSERT_TRUE(sim);
    sim->setDensity(Density::Fixed);
    const SimParams empty = sim->params();
    ASSERT_EQ(sim->densityBase().fishCount, 0);
    EXPECT_EQ(fixedDensityParams(1000, empty).bounds, empty.bounds);

    SimParams p = empty;
    p.fishCount = 1000;
    ASSERT_TRUE(sim->applyParams(p));
    EXPECT_EQ(sim->params(), p);  // the tank, rocks and target as they were
    EXPECT_EQ(sim->fishCount(), 1000u);
    EXPECT_EQ(sim->densityBase(), p);
    expectAllInScene(*sim);

    // From then on the density in view is the one kept.
    p.fishCount = 8000;
    ASSERT_TRUE(sim->applyParams(p));
    expectScaled(sim->params(), empty, 2.0);
    expectAllInScene(*sim);

    // A base of no fish set from outside (the app's --fish N over a config of 0 fish) alike.
    SimParams none = sim->params();
    none.fishCount = 0;
    sim->setDensityBase(none);
    const SimParams running = sim->params();
    p = running;
    p.fishCount = 500;
    ASSERT_TRUE(sim->applyParams(p));
    EXPECT_EQ(sim->params().bounds, running.bounds);
    EXPECT_EQ(sim->densityBase().fishCount, 500);
}

TEST_F(Controller, TheMeasuresOfABigSchoolAreTakenOnAWorkerAndStillArrive) {
    // At the default school's density, as the app keeps it (in the default tank 200,000 fish
    // would have a hundred times the neighbours).
    auto made = SimulationController::create(fixedDensityParams(200'000), BackendKind::Tbb);
    ASSERT_TRUE(made) << made.error();
    auto& sim = *made;
    sim->maxMeasureShare = 1.0;  // the next measure as soon as the last is done
    sim->stepOnce();
    // What the frame used to do: read the school back and measure it, waiting.
    const auto syncStart = std::chrono::steady_clock::now();
    const SchoolMetrics expected = measureSchool(sim->backend().download(), sim->params());
    const double syncMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - syncStart)
            .count();

    // Frames of 5 ms that ask for a measure each time: the first hands the school over, the
    // others only look whether the worker is done.
    std::vector<double> frameMs;
    double now = 0.0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (sim->measureCount() == 0 && std::chrono::steady_clock::now() < deadline) {
        (void)sim->metrics(now, 0.0);
        frameMs.push_back(sim->lastMeasureMilliseconds());
        now += 0.005;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(sim->measureCount(), 1u) << "no measure within a minute";
    const SchoolMetrics got = sim->metrics(now, 1e9);
    // The snapshot holds the fish in the backend's order, not the upload order: the sums may
    // round differently in their last bits.
    EXPECT_NEAR(got.polarization, expected.polarization, 1e-12);
    EXPECT_EQ(got.meanNeighbors, expected.meanNeighbors);
    EXPECT_NEAR(got.meanNearestNeighborDistance, expected.meanNearestNeighborDistance,
                1e-12 * expected.meanNearestNeighborDistance);
    EXPECT_EQ(sim->measuredFishCount(), 200'000);
    // The frame did not wait for the measure: frames went on while the worker measured. (How
    // long each took is printed, not checked: speed is for benchmarks, not tests.)
    ASSERT_GE(frameMs.size(), 2u);
    std::vector<double> waits(frameMs.begin() + 1, frameMs.end());
    std::sort(waits.begin(), waits.end());
    std::printf(
        "measuring in the frame: %.1f ms; the hand-over: %.2f ms; the %zu frames after: "
        "median %.4f ms, max %.2f ms\n",
        syncMs, frameMs.front(), waits.size(), waits[waits.size() / 2], waits.back());

    // The school moves on: a later measure is of it (one of the school before may come first).
    sim->stepOnce();
    const double firstSeconds = sim->measuredSeconds();
    while (sim->measuredSeconds() <= firstSeconds && std::chrono::steady_clock::now() < deadline) {
        (void)sim->metrics(now, 0.0);
        now += 0.005;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_GT(sim->measuredSeconds(), firstSeconds);
    EXPECT_LE(sim->measureCount(), 3u);
}

TEST_F(Controller, SpeedScalesTheClockAndFastForwardRunsWhilePaused) {
    auto sim = make(50, BackendKind::Cpu);
    ASSERT_TRUE(sim);
    const double dt = sim->params().dt;
    sim->speed = 2.0;
    EXPECT_EQ(sim->advance(dt * 2.0), 4);
    sim->speed = 0.25;
    EXPECT_EQ(sim->advance(dt * 2.0), 0);  // half a step
    EXPECT_EQ(sim->advance(dt * 2.0), 1);
    EXPECT_NEAR(sim->simulatedSeconds(), 5 * dt, 1e-9);

    sim->paused = true;
    sim->fastForward(0.5);  // 30 steps at dt = 1/60
    EXPECT_NEAR(sim->fastForwardLeft(), 0.5, 1e-6);
    int steps = 0;
    for (int frame = 0; frame < 100 && sim->fastForwardLeft() > 0.0; ++frame)
        steps += sim->advance(1.0 / 60.0);
    EXPECT_EQ(steps, 30);
    EXPECT_EQ(sim->advance(1.0), 0);  // paused again once it is done
    EXPECT_NEAR(sim->simulatedSeconds(), 35 * dt, 1e-6);
    sim->reset(3);
    EXPECT_EQ(sim->simulatedSeconds(), 0.0);

    sim->paused = false;
    sim->asFastAsItCan = true;
    EXPECT_GE(sim->advance(0.0), 1);  // steps whatever the wall clock says
}

TEST_F(Controller, AFixedStepCountAFrameStepsTheSameSchoolWhateverTheClock) {
    // Two controllers whose frames last very differently step through the same schools, frame by
    // frame: what a sweep's measured frames rely on to measure the same scene on any machine.
    auto fast = make(200, BackendKind::Cpu);
    auto slow = make(200, BackendKind::Cpu);
    ASSERT_TRUE(fast && slow);
    fast->stepsPerFrame = slow->stepsPerFrame = 1;
    for (int frame = 0; frame < 5; ++frame) {
        EXPECT_EQ(fast->advance(0.001), 1);
        EXPECT_EQ(slow->advance(0.5), 1);
        ASSERT_EQ(fast->backend().download(), slow->backend().download()) << "frame " << frame;
    }
    // A fast-forward still comes first, and pausing still stops.
    fast->fastForward(10 * fast->params().dt);
    int steps = 0;
    while (fast->fastForwardLeft() > 0.0) steps += fast->advance(0.001);
    EXPECT_EQ(steps, 10);
    fast->paused = true;
    EXPECT_EQ(fast->advance(1.0), 0);
    fast->paused = false;
    fast->stepsPerFrame.reset();
    EXPECT_EQ(fast->advance(0.0), 0);  // back on the clock
}

TEST_F(Controller, TheFixedStepIsClampedAndPauseStops) {
    auto sim = make(100, BackendKind::Cpu);
    ASSERT_TRUE(sim);
    const double dt = sim->params().dt;
    EXPECT_EQ(sim->advance(dt * 2.5), 2);
    EXPECT_EQ(sim->advance(dt * 0.6), 1);  // the half step left over, plus this one
    EXPECT_EQ(sim->advance(10.0), SimulationController::kMaxStepsPerFrame);
    EXPECT_EQ(sim->advance(dt * 0.5), 0);  // nothing carried over from the long frame
    sim->paused = true;
    const School before = sim->backend().download();
    EXPECT_EQ(sim->advance(1.0), 0);
    EXPECT_EQ(sim->backend().download(), before);
    sim->stepOnce();
    EXPECT_NE(sim->backend().download(), before);
}

TEST_F(Controller, AllPairsOnTheCpuIsRefusedForSchoolsTooBigToAnimate) {
    auto sim = make(1000, BackendKind::Cpu);
    ASSERT_TRUE(sim);
    SimParams p = sim->params();
    p.neighborSearch = NeighborSearch::AllPairs;
    p.fishCount = kMaxCpuAllPairsFish + 1;
    const auto refused = sim->applyParams(p);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), ::testing::HasSubstr("neighborSearch"));
    EXPECT_EQ(sim->fishCount(), 1000u);
    p.fishCount = 2000;
    EXPECT_TRUE(sim->applyParams(p));
    EXPECT_EQ(sim->fishCount(), 2000u);
}

TEST_F(Controller, SetSceneReachesAnAllowedSceneWhateverTheOrder) {
    SimParams p;
    p.neighborSearch = NeighborSearch::AllPairs;
    p.fishCount = 1000;
    auto made = SimulationController::create(p, BackendKind::Tbb);
    ASSERT_TRUE(made) << made.error();
    auto& sim = *made;
    // More fish than all-pairs allows on the CPU, but fine on the GPU: switching backend first
    // and growing the school last gets there; the other order would be refused on the way.
    if (gpuAvailable()) {
        const std::int64_t big = kMaxCpuAllPairsFish + 1000;
        ASSERT_TRUE(sim->setScene(BackendKind::Gpu, big));
        EXPECT_EQ(sim->backendKind(), BackendKind::Gpu);
        EXPECT_EQ(sim->fishCount(), static_cast<std::size_t>(big));
        // And back: the school shrinks first, then moves to the CPU.
        ASSERT_TRUE(sim->setScene(BackendKind::Cpu, 500));
        EXPECT_EQ(sim->backendKind(), BackendKind::Cpu);
        EXPECT_EQ(sim->fishCount(), 500u);
    }
    // A scene refused in itself is refused whole, with the key named.
    const auto refused = sim->setScene(BackendKind::Cpu, kMaxCpuAllPairsFish + 1);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), ::testing::HasSubstr("neighborSearch"));
    const auto tooMany = sim->setScene(BackendKind::Tbb, kMaxFishCount + 1);
    ASSERT_FALSE(tooMany);
    EXPECT_THAT(tooMany.error(), ::testing::HasSubstr("fishCount"));
    expectAllInScene(*sim);
}

TEST_F(Controller, AllPairsOnTheGpuHasItsOwnLimit) {
    SimParams p;
    p.neighborSearch = NeighborSearch::AllPairs;
    p.fishCount = kMaxGpuAllPairsFish + 1;
    const auto refused = SimulationController::checkInteractive(p, BackendKind::Gpu);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), ::testing::HasSubstr("on the GPU"));
    p.fishCount = kMaxGpuAllPairsFish;
    EXPECT_TRUE(SimulationController::checkInteractive(p, BackendKind::Gpu));
    p.neighborSearch = NeighborSearch::Grid;
    p.fishCount = kMaxAppFishCount;
    EXPECT_TRUE(SimulationController::checkInteractive(p, BackendKind::Gpu));
}

// The overlay kept the last step's time while paused.
TEST_F(Controller, APausedFrameHasNoStepTime) {
    auto sim = make(500, BackendKind::Cpu);
    ASSERT_TRUE(sim);
    sim->stepOnce();
    ASSERT_GT(sim->lastStepsMilliseconds(), 0.0);
    sim->paused = true;
    EXPECT_EQ(sim->advance(0.1), 0);
    EXPECT_EQ(sim->lastStepsMilliseconds(), 0.0);
}

// All-pairs at 1,000,000 fish on the CPU suggested the GPU, which refused it too.
TEST_F(Controller, AnAllPairsRefusalSuggestsOnlyWhatWouldRun) {
    SimParams p;
    p.neighborSearch = NeighborSearch::AllPairs;
    p.fishCount = kMaxGpuAllPairsFish + 1;
    const auto beyondBoth = SimulationController::checkInteractive(p, BackendKind::Tbb);
    ASSERT_FALSE(beyondBoth);
    EXPECT_THAT(beyondBoth.error(), ::testing::HasSubstr("choose grid"));
    EXPECT_THAT(beyondBoth.error(), ::testing::Not(::testing::HasSubstr("GPU")));
    p.fishCount = kMaxCpuAllPairsFish + 1;
    const auto gpuWould = SimulationController::checkInteractive(p, BackendKind::Tbb);
    ASSERT_FALSE(gpuWould);
    if (backendEntry(BackendKind::Gpu).built) {
        EXPECT_THAT(gpuWould.error(), ::testing::HasSubstr("the GPU (all-pairs up to 200000"));
    }
    const auto cpuWould = SimulationController::checkInteractive(
        [&] {
            SimParams q = p;
            q.fishCount = kMaxGpuAllPairsFish + 1;
            return q;
        }(),
        BackendKind::Gpu);
    ASSERT_FALSE(cpuWould);
    EXPECT_THAT(cpuWould.error(), ::testing::Not(::testing::HasSubstr("the CPU (")));
}

// 5,000,000 fish from a config file or a state file ran at a frame a minute; the app
// refuses what its panel and flags refuse, naming the limit.
TEST_F(Controller, TheAppsFishLimitHoldsWhereverACountComesFrom) {
    SimParams p;
    p.fishCount = kMaxAppFishCount + 1;
    const auto fromConfig = SimulationController::create(p, BackendKind::Tbb);
    ASSERT_FALSE(fromConfig);
    EXPECT_THAT(
        fromConfig.error(),
        ::testing::HasSubstr("fishCount: 1000001 is not allowed; the app runs 0 to 1000000"));
    auto sim = make(1000, BackendKind::Tbb);
    ASSERT_TRUE(sim);
    SimParams more = sim->params();
    more.fishCount = kMaxAppFishCount + 1;
    EXPECT_FALSE(sim->applyParams(more));
    EXPECT_EQ(sim->fishCount(), 1000u);
}

TEST_F(Controller, ItCanStartFromALoadedSchoolOfItsOwnSize) {
    SimParams p;
    p.fishCount = 700;
    p.seed = 5;
    const School loaded = makeInitialSchool(p);
    SimParams config;  // 2,000 fish: the file's 700 win
    auto sim = SimulationController::create(config, BackendKind::Tbb, &loaded);
    ASSERT_TRUE(sim) << sim.error();
    EXPECT_EQ((*sim)->params().fishCount, 700);
    EXPECT_EQ((*sim)->backend().download(), loaded);
}

TEST_F(Controller, ALoadedSchoolReplacesTheRunningOneWhateverItsSize) {
    auto sim = make(500);
    ASSERT_TRUE(sim);
    SimParams other = sim->params();
    other.fishCount = 1200;
    other.seed = 99;
    const School loaded = makeInitialSchool(other);
    ASSERT_TRUE(sim->replaceSchool(loaded));
    EXPECT_EQ(sim->fishCount(), 1200u);
    EXPECT_EQ(sim->params().fishCount, 1200);
    EXPECT_EQ(sim->backend().download(), loaded);
    sim->stepOnce();
    expectAllInScene(*sim);

    // Too many fish for all-pairs on the CPU: refused, and the school kept.
    SimParams p = sim->params();
    p.neighborSearch = NeighborSearch::AllPairs;
    ASSERT_TRUE(sim->applyParams(p));
    const School before = sim->backend().download();
    School huge = before;
    huge.resize(kMaxCpuAllPairsFish + 1, before.front());
    const auto refused = sim->replaceSchool(huge);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), ::testing::HasSubstr("neighborSearch"));
    EXPECT_EQ(sim->backend().download(), before);
    EXPECT_EQ(sim->params().fishCount, 1200);
}

TEST_F(Controller, StepTimesAreThisFramesAndStartAgainOnANewBackend) {
    auto sim = make(3000, BackendKind::Cpu);
    ASSERT_TRUE(sim);
    const double dt = sim->params().dt;
    EXPECT_EQ(sim->advance(dt * 2.5), 2);
    EXPECT_GT(sim->lastStepsMilliseconds(), 0.0);
    EXPECT_EQ(sim->advance(dt * 0.1), 0);
    EXPECT_EQ(sim->lastStepsMilliseconds(), 0.0);  // no step this frame: no simulation time
    ASSERT_GT(sim->stepMilliseconds(), 0.0);
    ASSERT_TRUE(sim->switchBackend(BackendKind::Tbb));
    EXPECT_EQ(sim->stepMilliseconds(), 0.0);  // the cpu's step times say nothing of tbb's
}

TEST_F(Controller, ALateFrameRunsOnlyTheStepsItsBudgetAffords) {
    auto sim = make(1000, BackendKind::Cpu);
    ASSERT_TRUE(sim);
    sim->stepOnce();  // measures the step cost
    const double stepMs = sim->stepMilliseconds();
    ASSERT_GT(stepMs, 0.0);
    const int expected =
        std::clamp(static_cast<int>(SimulationController::kStepBudgetMilliseconds / stepMs), 1,
                   SimulationController::kMaxStepsPerFrame);
    EXPECT_EQ(sim->advance(10.0), expected);
}

/// A cpu backend that counts what the controller asks of it.
class CountingBackend final : public Backend {
  public:
    struct Calls {
        int setParams = 0, upload = 0, download = 0;
    };
    explicit CountingBackend(Calls& calls) : calls_(calls), inner_(makeCpuBackend()) {}

    BackendKind kind() const override { return inner_->kind(); }
    std::string description() const override { return "counting " + inner_->description(); }
    Result<void> setParams(const SimParams& params) override {
        ++calls_.setParams;
        return inner_->setParams(params);
    }
    Result<void> upload(std::span<const Fish> school) override {
        ++calls_.upload;
        return inner_->upload(school);
    }
    School download() override {
        ++calls_.download;
        return inner_->download();
    }
    std::size_t fishCount() const override { return inner_->fishCount(); }

  protected:
    void stepImpl() override { inner_->step(); }

  private:
    Calls& calls_;
    std::unique_ptr<Backend> inner_;
};

std::unique_ptr<SimulationController> makeCounted(const SimParams& p,
                                                  CountingBackend::Calls& calls) {
    auto backend = std::make_unique<CountingBackend>(calls);
    EXPECT_TRUE(backend->setParams(p));  // as the registry makes every backend: with its parameters
    calls = {};
    auto controller = SimulationController::create(p, std::move(backend));
    EXPECT_TRUE(controller) << controller.error();
    return controller ? std::move(*controller) : nullptr;
}

TEST_F(Controller, ASliderSetsTheParametersOnceAndLeavesTheSchoolWhereItIs) {
    SimParams p;
    p.fishCount = 300;
    CountingBackend::Calls calls;
    auto sim = makeCounted(p, calls);
    ASSERT_TRUE(sim);
    // Starting uploads the school and sets nothing again: the backend came with its parameters.
    EXPECT_EQ(calls.setParams, 0);
    EXPECT_EQ(calls.upload, 1);
    calls = {};
    const std::uint64_t version = sim->schoolVersion();
    SimParams changed = sim->params();
    changed.kCohesion = 2.5f;
    changed.rAlignment = 7.0f;
    ASSERT_TRUE(sim->applyParams(changed));
    EXPECT_EQ(calls.setParams, 1);
    EXPECT_EQ(calls.download, 0);
    EXPECT_EQ(calls.upload, 0);
    EXPECT_EQ(sim->params(), changed);
    EXPECT_EQ(sim->schoolVersion(), version);  // nothing to copy again for drawing

    // A refused value reaches the backend not at all.
    calls = {};
    SimParams bad = changed;
    bad.dt = -1.0f;
    ASSERT_FALSE(sim->applyParams(bad));
    EXPECT_EQ(calls.setParams, 0);
    EXPECT_EQ(calls.download, 0);
}

TEST_F(Controller, ANewCountOrSceneReadsTheSchoolBackOnce) {
    SimParams p;
    p.fishCount = 300;
    CountingBackend::Calls calls;
    auto sim = makeCounted(p, calls);
    ASSERT_TRUE(sim);
    calls = {};
    SimParams grown = sim->params();
    grown.fishCount = 400;
    ASSERT_TRUE(sim->applyParams(grown));
    EXPECT_EQ(calls.download, 1);
    EXPECT_EQ(calls.upload, 1);
    EXPECT_EQ(calls.setParams, 1);
    EXPECT_EQ(sim->fishCount(), 400u);

    calls = {};
    SimParams smaller = sim->params();
    smaller.bounds = {30.0f, 15.0f, 30.0f};
    smaller.rocks.clear();
    ASSERT_TRUE(sim->applyParams(smaller));
    EXPECT_EQ(calls.download, 1);
    EXPECT_EQ(calls.upload, 1);
    EXPECT_EQ(calls.setParams, 1);
    expectAllInScene(*sim);
}

/// The fish count has one source: the running school. params() reports it, whatever count the
/// parameters were created with.
TEST_F(Controller, TheFishCountIsTheSchools) {
    auto sim = make(500);
    ASSERT_TRUE(sim);
    EXPECT_EQ(sim->params().fishCount, 500);
    SimParams other = sim->params();
    other.fishCount = 50;
    ASSERT_TRUE(sim->replaceSchool(makeInitialSchool(other)));
    EXPECT_EQ(sim->fishCount(), 50u);
    EXPECT_EQ(sim->params().fishCount, 50);
    sim->reset(7);
    EXPECT_EQ(sim->fishCount(), 50u);
    EXPECT_EQ(sim->params().fishCount, 50);
    EXPECT_EQ(sim->params().seed, 7u);
}

}  // namespace
}  // namespace fishschool::app
