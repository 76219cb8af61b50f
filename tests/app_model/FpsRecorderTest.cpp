// The FPS recorder's sweep: it sets each case through requests, skips the warm-up frames, and
// writes one row per backend and fish count.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <sstream>

#include "backends/BackendRegistry.h"
#include "app_model/FpsRecorder.h"

namespace fishschool::ui {
namespace {

/// Plays the app's part: carries out the recorder's requests and reports frames that last
/// `slowSeconds` during the warm-up and `fastSeconds` after it.
struct FakeApp {
    BackendKind backend = BackendKind::Tbb;
    std::int64_t fish = 2000;
    int framesInCase = 0;
    int requests = 0;
    int frames = 0;
    /// A backend this fake machine cannot run: asking for it fails, as in the app.
    std::optional<BackendKind> unavailable;
    /// On this frame something else (a key, the panel) moves the scene to this backend.
    int interfereAtFrame = -1;
    BackendKind interfereWith = BackendKind::Cpu;
    Density density = Density::Tank;
    /// Measures of the school: every frame when on, warm-up frames saying 1000 neighbours more
    /// than the measured ones (fish / 100), so a row that averaged them would show it.
    bool measures = true;
    /// After each scene it sets, the school forms for this many frames (the sweep's warm-up
    /// steps), each lasting 10 s and drawing no fish: a row that counted them would show it.
    int settlingFrames = 0;
    int settlingLeft = 0;

    void run(FpsRecorder& recorder, int maxFrames, double slowSeconds, double fastSeconds) {
        for (; frames < maxFrames && recorder.busy(); ++frames) {
            if (frames == interfereAtFrame) backend = interfereWith;
            const bool settling = settlingLeft > 0;
            if (settling) --settlingLeft;
            const double seconds = settling                               ? 10.0
                                   : framesInCase < recorder.warmupFrames ? slowSeconds
                                                                          : fastSeconds;
            if (!settling) ++framesInCase;
            std::optional<double> neighbors;
            if (measures)
                neighbors = static_cast<double>(fish) / 100.0 +
                            (framesInCase < recorder.warmupFrames ? 1000.0 : 0.0);
            FrameSample sample;
            sample.frameSeconds = seconds;
            sample.simulationMs = 2.0;
            sample.renderMs = 3.0;
            sample.backend = backend;
            sample.fish = fish;
            sample.density = density;
            sample.meanNeighbors = neighbors;
            sample.measureMs = 0.5;
            sample.settling = settling;
            // The GPU's figures come back every other frame; a settling frame's say nothing.
            if (frames % 2 == 0) sample.gpuRenderMs = settling ? 1000.0 : 4.0;
            sample.fishPerLevel = settling
                                      ? FishPerLevel{0, 0, 0}
                                      : FishPerLevel{1, 2, static_cast<std::uint64_t>(fish) - 3};
            sample.triangles = settling ? 0 : static_cast<std::uint64_t>(fish) * 5;
            const FpsRecorder::Request request = recorder.onFrame(sample);
            if (request.backend || request.fish) {
                ++requests;
                framesInCase = 0;
                if (request.backend && request.backend == unavailable) {
                    recorder.skipCase("not on this machine");
                    continue;
                }
                if (request.backend) backend = *request.backend;
                if (request.fish) fish = *request.fish;
                settlingLeft = settlingFrames;
            }
        }
    }
};

/// Frame-count phases only, so the fake frame times alone decide the figures.
FpsRecorder countingRecorder(int warmupFrames, int measureFrames) {
    FpsRecorder recorder;
    recorder.warmupFrames = warmupFrames;
    recorder.measureFrames = measureFrames;
    recorder.warmupSeconds = recorder.measureSeconds = 0.0;
    return recorder;
}

TEST(FpsRecorder, ASweepMeasuresEveryCaseAfterItsWarmUp) {
    FpsRecorder recorder = countingRecorder(3, 5);
    ASSERT_TRUE(recorder.startSweep({BackendKind::Cpu, BackendKind::Gpu}, {100, 300}));
    EXPECT_TRUE(recorder.sweeping());
    EXPECT_THAT(recorder.status(), ::testing::HasSubstr("1/4"));

    FakeApp app;
    app.settlingFrames = 4;
    app.run(recorder, 1000, /*slowSeconds=*/1.0, /*fastSeconds=*/0.02);
    EXPECT_FALSE(recorder.busy());
    EXPECT_EQ(app.requests, 4);

    const auto& rows = recorder.records();
    ASSERT_EQ(rows.size(), 4u);
    const std::pair<BackendKind, std::int64_t> expected[] = {{BackendKind::Cpu, 100},
                                                             {BackendKind::Cpu, 300},
                                                             {BackendKind::Gpu, 100},
                                                             {BackendKind::Gpu, 300}};
    for (std::size_t r = 0; r < rows.size(); ++r) {
        EXPECT_EQ(rows[r].backend, expected[r].first);
        EXPECT_EQ(rows[r].fish, expected[r].second);
        // Only the fast frames count: the slow warm-up would pull the average toward 1 FPS.
        EXPECT_NEAR(rows[r].fps, 1.0 / 0.02, 1e-6);
        EXPECT_DOUBLE_EQ(rows[r].simulationMs, 2.0);
        EXPECT_DOUBLE_EQ(rows[r].renderMs, 3.0);
        EXPECT_EQ(rows[r].density, Density::Tank);
        // The measures of the measured frames only.
        EXPECT_DOUBLE_EQ(rows[r].meanNeighbors, static_cast<double>(rows[r].fish) / 100.0);
        EXPECT_DOUBLE_EQ(rows[r].measureMs, 0.5);
        // The GPU's figures of the measured frames only, not of the school forming.
        EXPECT_DOUBLE_EQ(rows[r].gpuRenderMs, 4.0);
        EXPECT_DOUBLE_EQ(rows[r].triangles, static_cast<double>(rows[r].fish) * 5);
        EXPECT_DOUBLE_EQ(rows[r].fishPerLevel[2], static_cast<double>(rows[r].fish) - 3);
    }

    std::istringstream csv(recorder.csv());
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line,
              "backend,fish,fps,sim_ms,render_ms,density,mean_neighbors,measure_ms,gpu_render_ms,"
              "triangles,fish_full,fish_low,fish_tiny");
    std::getline(csv, line);
    EXPECT_EQ(line, "cpu,100,50.00,2.000,3.000,tank,1.00,0.500,4.000,500,1,2,97");
    int more = 0;
    while (std::getline(csv, line)) ++more;
    EXPECT_EQ(more, 3);
}

TEST(FpsRecorder, ACaseWithoutMeasuresHasNoMeanNeighboursAndOneFromItsWarmUpHasThat) {
    FpsRecorder recorder = countingRecorder(3, 5);
    ASSERT_TRUE(recorder.startSweep({BackendKind::Tbb}, {300}));
    FakeApp app;
    app.measures = false;
    app.density = Density::Fixed;
    app.run(recorder, 1000, 0.02, 0.02);
    ASSERT_EQ(recorder.records().size(), 1u);
    EXPECT_TRUE(std::isnan(recorder.records()[0].meanNeighbors));
    EXPECT_THAT(
        recorder.csv(),
        ::testing::EndsWith("\ntbb,300,50.00,2.000,3.000,fixed,,0.500,4.000,1500,1,2,297\n"));

    // A measure that came only during the warm-up (a slow case) stands for the case.
    recorder.clear();
    ASSERT_TRUE(recorder.startSweep({BackendKind::Tbb}, {300}));
    for (int frame = 0; recorder.busy() && frame < 100; ++frame) {
        std::optional<double> neighbors;
        if (frame == 1) neighbors = 42.0;
        (void)recorder.onFrame({0.02, 2.0, 3.0, BackendKind::Tbb, 300, Density::Fixed, neighbors});
    }
    ASSERT_EQ(recorder.records().size(), 1u);
    EXPECT_DOUBLE_EQ(recorder.records()[0].meanNeighbors, 42.0);
}

/// On a busy machine the measures' worker may not finish within a short case: while the app
/// measures, the row waits for the case's first measure, and gives up after a while.
TEST(FpsRecorder, WhileTheAppMeasuresARowWaitsForAMeasureOfItsSchool) {
    FpsRecorder recorder = countingRecorder(3, 5);
    ASSERT_TRUE(recorder.startSweep({BackendKind::Tbb}, {300}));
    int frames = 0;
    for (; recorder.busy() && frames < 100; ++frames) {
        FrameSample sample{0.02, 2.0, 3.0, BackendKind::Tbb, 300, Density::Fixed, std::nullopt};
        sample.measuring = true;
        if (frames == 40) sample.meanNeighbors = 42.0;  // the worker's first, late
        (void)recorder.onFrame(sample);
    }
    ASSERT_EQ(recorder.records().size(), 1u);
    EXPECT_EQ(frames, 41) << "the row came before the measure, or long after it";
    EXPECT_DOUBLE_EQ(recorder.records()[0].meanNeighbors, 42.0);

    // A measure that never comes: the row comes without, kMaxMeasureWaitSeconds late.
    recorder.clear();
    ASSERT_TRUE(recorder.startSweep({BackendKind::Tbb}, {300}));
    double seconds = 0.0;
    for (frames = 0; recorder.busy() && frames < 10000; ++frames) {
        FrameSample sample{0.02, 2.0, 3.0, BackendKind::Tbb, 300, Density::Fixed, std::nullopt};
        sample.measuring = true;
        (void)recorder.onFrame(sample);
        seconds += 0.02;
    }
    ASSERT_EQ(recorder.records().size(), 1u);
    EXPECT_TRUE(std::isnan(recorder.records()[0].meanNeighbors));
    EXPECT_NEAR(seconds, FpsRecorder::kMaxMeasureWaitSeconds, 0.2);
}

TEST(FpsRecorder, ARecordMeasuresTheCurrentSceneOnce) {
    FpsRecorder recorder = countingRecorder(2, 4);
    recorder.startRecord();
    FakeApp app;
    app.run(recorder, 100, 0.5, 0.01);
    EXPECT_EQ(app.requests, 0);  // a record never changes the scene
    ASSERT_EQ(recorder.records().size(), 1u);
    EXPECT_EQ(recorder.records()[0].backend, BackendKind::Tbb);
    EXPECT_EQ(recorder.records()[0].fish, 2000);
    EXPECT_NEAR(recorder.records()[0].fps, 100.0, 1e-6);
    EXPECT_FALSE(recorder.records()[0].fromSweep);  // kept apart from a sweep's lines

    ASSERT_TRUE(recorder.startSweep({BackendKind::Cpu}, {100}));
    app.run(recorder, 200, 0.5, 0.01);
    ASSERT_EQ(recorder.records().size(), 2u);
    EXPECT_TRUE(recorder.records()[1].fromSweep);
}

TEST(FpsRecorder, ASweepNeedsBackendsAndCountsAndCanBeCancelled) {
    FpsRecorder recorder;
    EXPECT_FALSE(recorder.startSweep({}, {100}));
    EXPECT_FALSE(recorder.startSweep({BackendKind::Cpu}, {}));
    EXPECT_FALSE(recorder.busy());
    ASSERT_TRUE(recorder.startSweep({BackendKind::Cpu}, {100}));
    recorder.cancel();
    EXPECT_FALSE(recorder.busy());
    FakeApp app;
    app.run(recorder, 100, 0.1, 0.1);
    EXPECT_TRUE(recorder.records().empty());
}

TEST(FpsRecorder, ARowAveragesSecondsNotJustFrames) {
    FpsRecorder recorder;
    recorder.warmupFrames = 1;
    recorder.warmupSeconds = 1.0;
    recorder.measureFrames = 1;
    recorder.measureSeconds = 2.0;
    recorder.startRecord();
    FakeApp app;
    app.run(recorder, 1000, 0.125, 0.125);  // exact in binary: the sums hit 1 and 2 exactly
    EXPECT_FALSE(recorder.busy());
    // A second of 1/8 s frames to warm up, then two seconds measured.
    EXPECT_EQ(app.frames, 8 + 16);
    ASSERT_EQ(recorder.records().size(), 1u);
    EXPECT_NEAR(recorder.records()[0].fps, 8.0, 1e-9);
}

TEST(FpsRecorder, ASweepsCaseWarmsUpByFramesAloneARecordBySecondsToo) {
    // A case's school is formed by steps, then stepped once a frame: its warm-up is frames, so
    // it starts measuring at the same step however long the frames last.
    FpsRecorder recorder;
    recorder.warmupFrames = 3;
    recorder.warmupSeconds = 100.0;
    recorder.measureFrames = 2;
    recorder.measureSeconds = 0.0;
    ASSERT_TRUE(recorder.startSweep({BackendKind::Tbb}, {2000}));
    FakeApp sweep;
    sweep.run(recorder, 1000, 0.5, 0.5);
    EXPECT_EQ(sweep.frames, 1 + 3 + 2);  // the scene asked for, three to warm up, two measured
    ASSERT_EQ(recorder.records().size(), 1u);

    recorder.clear();
    recorder.startRecord();
    FakeApp record;
    record.run(recorder, 1000, 0.5, 0.5);
    EXPECT_EQ(record.frames, 200 + 2);  // a record of the user's scene waits its 100 s
}

TEST(FpsRecorder, ACaseTheAppCannotSetIsSkippedAndTheSweepEnds) {
    FpsRecorder recorder = countingRecorder(1, 2);
    ASSERT_TRUE(
        recorder.startSweep({BackendKind::Cpu, BackendKind::Gpu, BackendKind::Tbb}, {100, 300}));
    FakeApp app;
    app.unavailable = BackendKind::Gpu;
    app.run(recorder, 1000, 0.02, 0.02);
    ASSERT_FALSE(recorder.busy()) << recorder.status();
    EXPECT_EQ(recorder.casesDone(), 6u);
    std::vector<std::string> rows;
    for (const FpsRecord& r : recorder.records())
        rows.push_back(std::string(toString(r.backend)) + "," + std::to_string(r.fish));
    EXPECT_THAT(rows, ::testing::ElementsAre("cpu,100", "cpu,300", "tbb,100", "tbb,300"));
    ASSERT_EQ(recorder.skipped().size(), 2u);
    EXPECT_EQ(recorder.skipped()[0], "gpu, 100 fish: not on this machine");
    EXPECT_EQ(recorder.skipped()[1], "gpu, 300 fish: not on this machine");
}

TEST(FpsRecorder, ASceneChangedDuringACaseIsAskedBackAndTheCaseMeasuredAgain) {
    FpsRecorder recorder = countingRecorder(2, 5);
    ASSERT_TRUE(recorder.startSweep({BackendKind::Gpu}, {100}));
    FakeApp app;
    app.interfereAtFrame = 4;  // mid-case, the user presses 1
    app.interfereWith = BackendKind::Cpu;
    app.run(recorder, 100, 0.02, 0.02);
    ASSERT_FALSE(recorder.busy()) << recorder.status();
    EXPECT_EQ(app.requests, 2);  // the first set-up and the one after the change
    ASSERT_EQ(recorder.records().size(), 1u);
    EXPECT_EQ(recorder.records()[0].backend, BackendKind::Gpu);
}

}  // namespace
}  // namespace fishschool::ui
