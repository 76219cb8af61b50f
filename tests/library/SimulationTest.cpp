// The public API as a user of the library meets it: only include/fishschool/ headers, and the
// same school, step for step, as the backends give when driven directly.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fishschool/fishschool.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;

SimParams smallSchool(std::int64_t fish = 200) {
    SimParams p;
    p.fishCount = fish;
    p.seed = 7;
    return p;
}

std::filesystem::path scratch(const std::string& name) {
    return std::filesystem::temp_directory_path() /
           ("fishschool-api-" + std::to_string(::getpid()) + "-" + name);
}

TEST(Simulation, StepsAFreshSchoolAndCountsTimeAndSteps) {
    auto sim = Simulation::create(smallSchool(), "cpu");
    ASSERT_TRUE(sim) << sim.error();
    EXPECT_EQ(sim->fishCount(), 200u);
    EXPECT_EQ(sim->backendName(), "cpu");
    const std::vector<Fish> before(sim->school().begin(), sim->school().end());
    ASSERT_TRUE(sim->step(10));
    EXPECT_EQ(sim->stepCount(), 10u);
    EXPECT_DOUBLE_EQ(sim->time(), 10.0 * static_cast<double>(sim->params().dt));
    const std::span<const Fish> after = sim->school();
    ASSERT_EQ(after.size(), 200u);
    EXPECT_NE(after[0].position, before[0].position);
    EXPECT_FALSE(sim->step(-1));
}

TEST(Simulation, EveryBackendGivesTheSameSchoolAsTheCpuWhereItIsReproducible) {
    auto cpu = Simulation::create(smallSchool(), "cpu");
    auto tbb = Simulation::create(smallSchool(), "tbb");
    ASSERT_TRUE(cpu && tbb);
    ASSERT_TRUE(cpu->step(20) && tbb->step(20));
    const std::span<const Fish> a = cpu->school(), b = tbb->school();
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
}

TEST(Simulation, ASwitchOfBackendKeepsTheSchoolAndItsStepCount) {
    auto sim = Simulation::create(smallSchool(), "cpu");
    auto straight = Simulation::create(smallSchool(), "cpu");
    ASSERT_TRUE(sim && straight);
    ASSERT_TRUE(sim->step(5));
    ASSERT_TRUE(sim->setBackend("tbb"));
    EXPECT_EQ(sim->backendName(), "tbb");
    EXPECT_EQ(sim->stepCount(), 5u);
    ASSERT_TRUE(sim->step(5) && straight->step(10));
    const std::span<const Fish> a = sim->school(), b = straight->school();
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
    const auto refused = sim->setBackend("cuda");
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("'cuda' is not allowed"));
    EXPECT_EQ(sim->backendName(), "tbb");
}

TEST(Simulation, ChangesAreCheckedAsAConfigsAndARefusedOneChangesNothing) {
    auto sim = Simulation::create(smallSchool(), "cpu");
    ASSERT_TRUE(sim);
    ASSERT_TRUE(sim->setParam("rCohesion", 12.0));
    EXPECT_EQ(sim->params().rCohesion, 12.0f);
    const auto negative = sim->setParam("rCohesion", -1.0);
    ASSERT_FALSE(negative);
    EXPECT_THAT(negative.error(), HasSubstr("rCohesion"));
    EXPECT_EQ(sim->params().rCohesion, 12.0f);
    const auto unknown = sim->setParam("rCohesionn", 1.0);
    ASSERT_FALSE(unknown);
    EXPECT_THAT(unknown.error(), HasSubstr("unknown key"));

    ASSERT_TRUE(sim->setConfigJson(R"({"kAlignment": 2.5, "neighborSearch": "all-pairs"})"));
    EXPECT_EQ(sim->params().kAlignment, 2.5f);
    EXPECT_EQ(sim->params().neighborSearch, NeighborSearch::AllPairs);
    EXPECT_EQ(sim->params().rCohesion, 12.0f);  // the keys not given stay
    const auto badType = sim->setConfigJson(R"({"kAlignment": "strong"})");
    ASSERT_FALSE(badType);
    EXPECT_THAT(badType.error(), HasSubstr("kAlignment"));
    EXPECT_EQ(sim->params().kAlignment, 2.5f);
    EXPECT_FALSE(sim->setConfigJson("[1, 2]"));
}

TEST(Simulation, ANewFishCountKeepsTheFishItHas) {
    auto sim = Simulation::create(smallSchool(), "cpu");
    ASSERT_TRUE(sim);
    ASSERT_TRUE(sim->step(3));
    const std::vector<Fish> before(sim->school().begin(), sim->school().end());
    ASSERT_TRUE(sim->setParam("fishCount", 300));
    ASSERT_EQ(sim->fishCount(), 300u);
    EXPECT_TRUE(std::equal(before.begin(), before.end(), sim->school().begin()));
    ASSERT_TRUE(sim->setParam("fishCount", 50));
    EXPECT_EQ(sim->fishCount(), 50u);
}

TEST(Simulation, FishAreAddedAndRemovedByIndexAndStrayFishAreRefused) {
    auto sim = Simulation::create(smallSchool(10), "cpu");
    ASSERT_TRUE(sim);
    const std::vector<Fish> start(sim->school().begin(), sim->school().end());
    Fish extra = start[0];
    extra.position += glm::vec3(0.5f);
    ASSERT_TRUE(sim->addFish(std::span<const Fish>(&extra, 1)));
    ASSERT_EQ(sim->fishCount(), 11u);
    EXPECT_EQ(sim->school()[10], extra);

    const std::vector<std::size_t> gone = {0, 10};
    ASSERT_TRUE(sim->removeFish(gone));
    ASSERT_EQ(sim->fishCount(), 9u);
    EXPECT_EQ(sim->school()[0], start[1]);

    Fish outside = start[0];
    outside.position = {2.0f * sim->params().bounds.x, 0.0f, 0.0f};
    const auto refused = sim->addFish(std::span<const Fish>(&outside, 1));
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("fish 9"));
    EXPECT_EQ(sim->fishCount(), 9u);
    const std::vector<std::size_t> beyond = {9};
    EXPECT_THAT(sim->removeFish(beyond).error(), HasSubstr("no such fish"));
    const std::vector<std::size_t> twice = {1, 1};
    EXPECT_THAT(sim->removeFish(twice).error(), HasSubstr("named twice"));
}

TEST(Simulation, AReadSchoolIsKeptUntilTheSchoolChanges) {
    auto sim = Simulation::create(smallSchool(), "tbb");
    ASSERT_TRUE(sim);
    const Fish* first = sim->school().data();
    EXPECT_EQ(sim->school().data(), first);  // read once per version
    const auto version = sim->schoolVersion();
    ASSERT_TRUE(sim->step());
    EXPECT_NE(sim->schoolVersion(), version);
    // The same buffer, refilled: a school of the same size is read without allocating.
    EXPECT_EQ(sim->school().data(), first);
}

TEST(Simulation, AFrameCopiedIsTheSchoolAsReadWhetherOrNotItWasReadSinceTheStep) {
    auto sim = Simulation::create(smallSchool(), "tbb");
    ASSERT_TRUE(sim);
    ASSERT_TRUE(sim->step(5));
    std::vector<float> positions(3 * 200), velocities(3 * 200);
    sim->copyFrame(positions, velocities);  // from the backend
    std::vector<float> readPositions(3 * 200), readVelocities(3 * 200);
    copyFrame(sim->school(), readPositions, readVelocities);
    EXPECT_EQ(positions, readPositions);
    EXPECT_EQ(velocities, readVelocities);
    std::vector<float> again(3 * 200), againVelocities(3 * 200);
    sim->copyFrame(again, againVelocities);  // from the school read
    EXPECT_EQ(again, readPositions);
    EXPECT_EQ(againVelocities, readVelocities);
    EXPECT_EQ(positions[3 * 7 + 1], sim->school()[7].position.y);
}

TEST(Simulation, AStepCopyingAFrameStepsOnceAndRefusesAFrameOfAnotherSize) {
    auto sim = Simulation::create(smallSchool(), "tbb");
    auto plain = Simulation::create(smallSchool(), "tbb");
    ASSERT_TRUE(sim && plain);
    std::vector<float> before(3 * 200), beforeVelocities(3 * 200);
    copyFrame(sim->school(), before, beforeVelocities);
    std::vector<float> positions(3 * 200), velocities(3 * 200);
    ASSERT_TRUE(sim->stepCopyingFrame(positions, velocities));
    ASSERT_TRUE(plain->step());
    EXPECT_EQ(positions, before);
    EXPECT_EQ(velocities, beforeVelocities);
    EXPECT_EQ(sim->stepCount(), 1u);
    EXPECT_DOUBLE_EQ(sim->time(), plain->time());
    const std::span<const Fish> a = sim->school(), b = plain->school();
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));  // read again after it
    std::vector<float> small(3 * 199);
    const auto refused = sim->stepCopyingFrame(small, velocities);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("a frame of 597"));
    EXPECT_EQ(sim->stepCount(), 1u);
}

TEST(Simulation, AHeldSchoolStaysAsItWasReadWhateverTheSimulationDoes) {
    auto sim = Simulation::create(smallSchool(), "cpu");
    ASSERT_TRUE(sim);
    const std::shared_ptr<const School> held = sim->sharedSchool();
    const School copy = *held;
    ASSERT_TRUE(sim->step(3));
    ASSERT_TRUE(sim->setParam("fishCount", 20));
    EXPECT_EQ(sim->school().size(), 20u);
    EXPECT_NE(sim->school().data(), held->data());
    EXPECT_EQ(*held, copy);
}

TEST(Simulation, StatesAndConfigsRoundTripThroughFiles) {
    auto sim = Simulation::create(smallSchool(), "cpu");
    ASSERT_TRUE(sim);
    ASSERT_TRUE(sim->step(4));
    const auto state = scratch("state.csv"), config = scratch("config.json");
    ASSERT_TRUE(sim->saveState(state));
    ASSERT_TRUE(sim->saveConfig(config));
    auto again = Simulation::fromConfigFile(config, "cpu");
    ASSERT_TRUE(again) << again.error();
    ASSERT_TRUE(again->loadState(state));
    EXPECT_EQ(again->time(), 0.0);
    const std::span<const Fish> a = sim->school(), b = again->school();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].position, b[i].position);
    std::filesystem::remove(state);
    std::filesystem::remove(config);

    const auto missing = Simulation::fromConfigFile(scratch("none.json"));
    ASSERT_FALSE(missing);
    EXPECT_THAT(missing.error(), HasSubstr("none.json"));
    const auto bad = Simulation::fromConfigJson(R"({"fishCount": -3})");
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr("fishCount"));
}

TEST(Simulation, MeasuresAnAlignedSchoolAsPolarized) {
    SimParams p = smallSchool(50);
    auto sim = Simulation::create(p, "cpu");
    ASSERT_TRUE(sim);
    std::vector<Fish> aligned(sim->school().begin(), sim->school().end());
    for (Fish& f : aligned) f.velocity = {1.0f, 0.0f, 0.0f};
    ASSERT_TRUE(sim->setSchool(aligned));
    EXPECT_NEAR(sim->measures().polarization, 1.0, 1e-6);
}

TEST(Library, NamesItsVersionAndBackends) {
    EXPECT_FALSE(version().empty());
    const auto kinds = backends();
    ASSERT_GE(kinds.size(), 3u);
    EXPECT_EQ(kinds[0].name, "cpu");
    EXPECT_EQ(kinds[1].name, "tbb");
    EXPECT_EQ(kinds[2].name, "gpu");
}

}  // namespace
}  // namespace fishschool
