// The measures' worker: a snapshot handed over is measured on its own thread and comes back
// once, with what the caller said of it.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "core/MeasuresWorker.h"
#include "core/Scenario.h"

namespace fishschool {
namespace {

TEST(MeasuresWorker, MeasuresASnapshotOnceWithItsGenerationAndTime) {
    SimParams p;
    p.fishCount = 64;
    School aligned = makeInitialSchool(p);
    for (Fish& fish : aligned) fish.velocity = {0.0f, 1.0f, 0.0f};
    MeasuresWorker worker;
    EXPECT_FALSE(worker.busy());
    EXPECT_FALSE(worker.takeDone());
    worker.submit(std::make_shared<CopiedSchool>(aligned), p, 7, 2.5);
    std::optional<MeasuresWorker::Done> done;
    for (int i = 0; i < 2000 && !done; ++i) {
        done = worker.takeDone();
        if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(done) << "no measure came back in 10 s";
    EXPECT_FALSE(worker.busy());
    EXPECT_EQ(done->generation, 7u);
    EXPECT_EQ(done->simulatedSeconds, 2.5);
    EXPECT_EQ(done->fish, 64);
    EXPECT_NEAR(done->metrics.polarization, 1.0, 1e-9);
    EXPECT_FALSE(worker.takeDone());  // once
}

TEST(MeasuresWorker, StopsWithAJobWaiting) {
    SimParams p;
    p.fishCount = 20000;
    auto worker = std::make_unique<MeasuresWorker>();
    worker->submit(std::make_shared<CopiedSchool>(makeInitialSchool(p)), p, 1, 0.0);
    worker->submit(std::make_shared<CopiedSchool>(makeInitialSchool(p)), p, 2, 0.0);
    worker.reset();  // joins: no crash, no hang
    SUCCEED();
}

}  // namespace
}  // namespace fishschool
