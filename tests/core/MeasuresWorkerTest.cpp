// The measures' worker: a snapshot handed over is measured on its own thread and comes back
// once, with what the caller said of it.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
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

/// A snapshot whose fish() waits until the test lets it go: the worker measures it for as long
/// as the test says.
class HeldSnapshot final : public SchoolSnapshot {
  public:
    explicit HeldSnapshot(School school) : school_(std::move(school)) {}
    School fish() const override {
        std::unique_lock lock(mutex_);
        taken_ = true;
        changed_.notify_all();
        changed_.wait(lock, [&] { return released_; });
        return school_;
    }
    void waitUntilTaken() const {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return taken_; });
    }
    void release() {
        const std::lock_guard lock(mutex_);
        released_ = true;
        changed_.notify_all();
    }

  private:
    School school_;
    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;
    mutable bool taken_ = false;
    bool released_ = false;
};

TEST(MeasuresWorker, StopsWithAJobWaiting) {
    SimParams p;
    p.fishCount = 64;
    auto worker = std::make_unique<MeasuresWorker>();
    const auto measuring = std::make_shared<HeldSnapshot>(makeInitialSchool(p));
    worker->submit(measuring, p, 1, 0.0);
    measuring->waitUntilTaken();  // the worker is busy with the first job
    worker->submit(std::make_shared<CopiedSchool>(makeInitialSchool(p)), p, 2, 0.0);
    EXPECT_TRUE(worker->busy());
    // The job in progress ends a moment after the worker is told to stop; the waiting one is
    // dropped. The worker's end joins its thread: no crash, no hang.
    std::jthread letGo([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        measuring->release();
    });
    worker.reset();
}

}  // namespace
}  // namespace fishschool
