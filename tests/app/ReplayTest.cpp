// Replaying and recording trajectories: the Replay the app draws from (its timeline, its cache,
// Continue from here), the recording of a running school, and the app itself replaying a file
// under Xvfb, its screenshots showing the file's positions.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glm/geometric.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "ScreenshotImage.h"
#include "app/Replay.h"
#include "app/SimulationController.h"
#include "app/TrajectoryRecording.h"
#include "core/Scenario.h"
#include "io/ConfigIO.h"
#include "io/StateIO.h"
#include "io/Trajectory.h"
#include "render/Camera.h"

namespace {

using namespace fishschool;
namespace fs = std::filesystem;

class TempDir {
  public:
    TempDir() {
        dir_ = fs::temp_directory_path() /
               ("fishschool_replay_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    ~TempDir() { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

  private:
    fs::path dir_;
};

/// A scene with no rocks, so fish may sit anywhere in the tank.
SimParams openTank(std::int64_t fish) {
    SimParams params;
    params.fishCount = fish;
    params.rocks.clear();
    return params;
}

/// Frame k's school: every fish in a small cluster around `centre(k)`, swimming along +x.
School clusterAt(glm::vec3 centre, std::size_t fish, float speed) {
    School school(fish);
    for (std::size_t i = 0; i < fish; ++i) {
        const float a = static_cast<float>(i) * 2.399963f;  // a golden-angle spiral
        const float r = 3.0f * std::sqrt(static_cast<float>(i) / static_cast<float>(fish));
        school[i].position =
            centre + glm::vec3(r * std::cos(a), 0.3f * std::sin(3.0f * a), r * std::sin(a));
        school[i].velocity = glm::vec3(speed, 0.0f, 0.0f);
    }
    return school;
}

/// Writes `frames` frames (step 10 k, time 10 k dt) of `centre(k)`'s clusters, with a measure
/// at every frame (polarization k / frames) and, at frame `changeAt`, a new noise.
void writeFile(const std::string& file, const SimParams& params, std::size_t frames,
               const std::function<glm::vec3(std::size_t)>& centre,
               std::size_t changeAt = std::size_t(-1), float speed = 2.0f) {
    const auto fish = static_cast<std::size_t>(params.fishCount);
    auto writer = TrajectoryWriter::create(file, params, fish);
    ASSERT_TRUE(writer) << writer.error();
    for (std::size_t k = 0; k < frames; ++k) {
        const auto step = static_cast<std::int64_t>(10 * k);
        const double time = static_cast<double>(step) * params.dt;
        if (k == changeAt) {
            SimParams changed = params;
            changed.noise = 0.25f;
            ASSERT_TRUE((*writer)->addParameterChange(step, time, changed));
        }
        SchoolMetrics measures;
        measures.polarization = static_cast<double>(k) / static_cast<double>(frames);
        ASSERT_TRUE((*writer)->addFrame(step, time, clusterAt(centre(k), fish, speed), measures));
    }
    ASSERT_TRUE((*writer)->finish());
}

/// Frame k's cluster: from one corner of the tank (-x, -z) at frame 0 to the opposite one.
glm::vec3 corners(std::size_t k, std::size_t frames, const SimParams& params) {
    const float u = frames > 1 ? static_cast<float>(k) / static_cast<float>(frames - 1) : 0.0f;
    const glm::vec3 from(-0.6f * params.bounds.x, 0.0f, -0.6f * params.bounds.z);
    return from + u * (-2.0f * from);
}

TEST(Replay, EachFrameOfTheTimelineShowsThatFramesSchool) {
    TempDir dir;
    const SimParams params = openTank(64);
    const std::string file = dir.path("corners.h5");
    writeFile(file, params, 12, [&](std::size_t k) { return corners(k, 12, params); });
    auto replay = app::Replay::open(file);
    ASSERT_TRUE(replay) << replay.error();
    ASSERT_EQ((*replay)->frameCount(), 12u);
    ASSERT_EQ((*replay)->fishCount(), 64u);
    for (const std::size_t k : {0u, 7u, 11u, 3u}) {
        (*replay)->seek(k);
        ASSERT_EQ((*replay)->frame(), k);
        EXPECT_EQ((*replay)->frameStep(k), static_cast<std::int64_t>(10 * k));
        auto school = (*replay)->school();
        ASSERT_TRUE(school) << school.error();
        const School expected = clusterAt(corners(k, 12, params), 64, 2.0f);
        ASSERT_EQ((*school)->size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            EXPECT_EQ((**school)[i].position, expected[i].position) << "frame " << k;
            EXPECT_EQ((**school)[i].velocity, expected[i].velocity) << "frame " << k;
        }
    }
    // A seek past the end shows the last frame.
    (*replay)->seek(1000);
    EXPECT_EQ((*replay)->frame(), 11u);
}

TEST(Replay, PlayingMovesThroughTheFramesAtTheSpeedsPaceAndStopsAtTheEnd) {
    TempDir dir;
    const SimParams params = openTank(8);
    const std::string file = dir.path("play.h5");
    writeFile(file, params, 10, [&](std::size_t k) { return corners(k, 10, params); });
    auto replay = app::Replay::open(file);
    ASSERT_TRUE(replay) << replay.error();
    app::Replay& r = **replay;
    const double frameSeconds = 10.0 * params.dt;  // a frame every 10 steps
    r.setPlaying(true);
    r.advance(0.5 * frameSeconds);
    EXPECT_EQ(r.frame(), 0u);
    r.advance(0.6 * frameSeconds);
    EXPECT_EQ(r.frame(), 1u);
    r.setSpeed(8.0);
    r.advance(frameSeconds);  // 8 frames' time at x8
    EXPECT_EQ(r.frame(), 9u);
    EXPECT_FALSE(r.playing()) << "the last frame stops the playback";
    // Speeds are kept between 1/8 and 8.
    r.setSpeed(100.0);
    EXPECT_EQ(r.speed(), app::Replay::kMaxSpeed);
    r.setSpeed(0.001);
    EXPECT_EQ(r.speed(), app::Replay::kMinSpeed);
    // Play from the end starts again at the first frame; frame by frame pauses.
    r.setPlaying(true);
    EXPECT_EQ(r.frame(), 0u);
    r.stepFrames(3);
    EXPECT_FALSE(r.playing());
    EXPECT_EQ(r.frame(), 3u);
    r.stepFrames(-10);
    EXPECT_EQ(r.frame(), 0u);
}

TEST(Replay, TheCacheHoldsNoMoreFramesThanItsBoundAndEvictedFramesAreReadAgain) {
    TempDir dir;
    const SimParams params = openTank(100);
    const std::string file = dir.path("cache.h5");
    writeFile(file, params, 20, [&](std::size_t k) { return corners(k, 20, params); });
    app::ReplayOptions options;
    options.cacheBytes = 3 * 100 * sizeof(Fish);  // three frames
    auto replay = app::Replay::open(file, options);
    ASSERT_TRUE(replay) << replay.error();
    app::Replay& r = **replay;
    EXPECT_EQ(r.cacheCapacity(), 3u);
    r.setPlaying(true);
    for (std::size_t k = 0; k < 20; ++k) {
        r.seek(k);
        auto school = r.school();
        ASSERT_TRUE(school) << school.error();
        EXPECT_EQ((**school)[0].position, clusterAt(corners(k, 20, params), 100, 2.0f)[0].position);
        r.waitForPrefetch();
        EXPECT_LE(r.cachedFrames(), 3u);
    }
    // The first frame was evicted long ago: shown again, it is read again, and right.
    EXPECT_FALSE(r.isCached(0));
    r.seek(0);
    auto first = r.school();
    ASSERT_TRUE(first) << first.error();
    EXPECT_EQ((**first)[5].position, clusterAt(corners(0, 20, params), 100, 2.0f)[5].position);
    EXPECT_TRUE(r.isCached(0));
}

TEST(Replay, PlayingPrefetchesTheFramesAhead) {
    TempDir dir;
    const SimParams params = openTank(50);
    const std::string file = dir.path("ahead.h5");
    writeFile(file, params, 30, [&](std::size_t k) { return corners(k, 30, params); });
    auto replay = app::Replay::open(file);
    ASSERT_TRUE(replay) << replay.error();
    app::Replay& r = **replay;
    r.seek(5);
    r.setPlaying(true);
    ASSERT_TRUE(r.school());  // shown: the thread reads on from there
    r.waitForPrefetch();
    for (std::size_t k = 6; k < 21; ++k) EXPECT_TRUE(r.isCached(k)) << "frame " << k;
    EXPECT_FALSE(r.isCached(4));
}

TEST(Replay, TheParametersFollowTheChangesRecordedAndTheMeasuresAreTheFiles) {
    TempDir dir;
    const SimParams params = openTank(10);
    const std::string file = dir.path("changes.h5");
    writeFile(
        file, params, 6, [&](std::size_t k) { return corners(k, 6, params); }, 3);
    auto replay = app::Replay::open(file);
    ASSERT_TRUE(replay) << replay.error();
    app::Replay& r = **replay;
    r.seek(2);
    EXPECT_EQ(r.params()->noise, params.noise);
    r.seek(3);
    EXPECT_EQ(r.params()->noise, 0.25f);
    r.seek(5);
    EXPECT_EQ(r.params()->noise, 0.25f);
    ASSERT_EQ(r.measures().values.size(), 6u);
    EXPECT_DOUBLE_EQ(r.measures().values[4].polarization, 4.0 / 6.0);
}

TEST(Replay, ContinueFromHereRunsTheShownFrameWithTheFilesParametersThere) {
    TempDir dir;
    const SimParams params = openTank(40);
    const std::string file = dir.path("continue.h5");
    writeFile(
        file, params, 8, [&](std::size_t k) { return corners(k, 8, params); }, 4);
    auto replay = app::Replay::open(file);
    ASSERT_TRUE(replay) << replay.error();
    (*replay)->seek(6);
    auto sim = app::continueFromFrame(**replay, BackendKind::Cpu, Density::Tank);
    ASSERT_TRUE(sim) << sim.error();
    app::SimulationController& live = **sim;
    EXPECT_EQ(live.backendKind(), BackendKind::Cpu);
    EXPECT_EQ(live.fishCount(), 40u);
    EXPECT_EQ(live.params().noise, 0.25f) << "the parameters in force at frame 6";
    EXPECT_EQ(live.stepCount(), 60);
    EXPECT_DOUBLE_EQ(live.simulatedSeconds(), 60.0 * params.dt);
    const School shown = live.backend().download();
    const School expected = clusterAt(corners(6, 8, params), 40, 2.0f);
    for (std::size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(shown[i].position, expected[i].position);
    // It runs: a step moves the fish on from there.
    live.stepOnce();
    EXPECT_EQ(live.stepCount(), 61);
    EXPECT_NE(live.backend().download()[0].position, expected[0].position);
}

TEST(Replay, ABadFileIsRefusedWithItsName) {
    TempDir dir;
    const std::string text = dir.path("not.h5");
    std::ofstream(text) << "step,x,y,z\n";
    auto replay = app::Replay::open(text);
    ASSERT_FALSE(replay);
    EXPECT_NE(replay.error().find("not.h5"), std::string::npos) << replay.error();
    auto missing = app::Replay::open(dir.path("missing.h5"));
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("missing.h5"), std::string::npos) << missing.error();
}

TEST(Recording, ARecordedSchoolReplaysAsItRanWithItsChangesAndMeasures) {
    TempDir dir;
    SimParams params = openTank(30);
    auto sim = app::SimulationController::create(params, BackendKind::Cpu);
    ASSERT_TRUE(sim) << sim.error();
    // The same school run beside it, unrecorded: the recorded frames are its states.
    auto twin = app::SimulationController::create(params, BackendKind::Cpu);
    ASSERT_TRUE(twin) << twin.error();
    const std::string file = dir.path("recorded.h5");
    auto recording = app::TrajectoryRecording::start(**sim, file, "trajectory", 3);
    ASSERT_TRUE(recording) << recording.error();
    EXPECT_FALSE(fs::exists(file)) << "written under a temporary name until it ends";
    std::vector<School> expected{(*twin)->backend().download()};
    SimParams changed = params;
    changed.noise = 0.5f;
    for (int step = 1; step <= 10; ++step) {
        if (step == 5) {
            ASSERT_TRUE((*sim)->applyParams(changed));
            ASSERT_TRUE((*twin)->applyParams(changed));
            (*recording)->followChanges();
        }
        (*sim)->stepOnce();
        (*twin)->stepOnce();
        if (step % 3 == 0) expected.push_back((*twin)->backend().download());
    }
    EXPECT_FALSE((*recording)->ended());
    auto frames = (*recording)->finish();
    ASSERT_TRUE(frames) << frames.error();
    EXPECT_EQ(*frames, 4u);  // steps 0, 3, 6, 9

    auto replay = app::Replay::open(file);
    ASSERT_TRUE(replay) << replay.error();
    app::Replay& r = **replay;
    ASSERT_EQ(r.frameCount(), 4u);
    for (std::size_t k = 0; k < 4; ++k) {
        EXPECT_EQ(r.frameStep(k), static_cast<std::int64_t>(3 * k));
        r.seek(k);
        auto school = r.school();
        ASSERT_TRUE(school) << school.error();
        for (std::size_t i = 0; i < 30; ++i)
            EXPECT_EQ((**school)[i].position, expected[k][i].position) << "frame " << k;
    }
    r.seek(1);
    EXPECT_EQ(r.params()->noise, params.noise);
    r.seek(2);
    EXPECT_EQ(r.params()->noise, 0.5f) << "changed at step 4, before frame 2 (step 6)";
    // As the CLI's, the frames carry the school's measures, each at its frame.
    ASSERT_EQ(r.measures().values.size(), 4u);
    EXPECT_EQ(r.measures().step[3], 9);
}

// A trajectory holds one school: a new fish count is refused while it records (the app ends
// the recording first, App::apply), and what was recorded is kept when it ends.
TEST(Recording, ANewFishCountIsRefusedWhileRecordingAndTheRecordingGoesOn) {
    TempDir dir;
    SimParams params = openTank(20);
    auto sim = app::SimulationController::create(params, BackendKind::Cpu);
    ASSERT_TRUE(sim) << sim.error();
    const std::string file = dir.path("ended.h5");
    auto recording = app::TrajectoryRecording::start(**sim, file, "trajectory", 1);
    ASSERT_TRUE(recording) << recording.error();
    (*sim)->stepOnce();
    (*sim)->stepOnce();
    SimParams more = (*sim)->params();
    more.fishCount = 25;
    auto refused = (*sim)->applyParams(more);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("while a trajectory records"), std::string::npos);
    EXPECT_EQ((*sim)->fishCount(), 20u);
    (*recording)->followChanges();
    EXPECT_FALSE((*recording)->ended());
    (*sim)->stepOnce();
    auto frames = (*recording)->finish();
    ASSERT_TRUE(frames) << frames.error();
    EXPECT_EQ(*frames, 4u);
    ASSERT_TRUE((*sim)->applyParams(more)) << "once the recording is finished";
    auto replay = app::Replay::open(file);
    ASSERT_TRUE(replay) << replay.error();
    EXPECT_EQ((*replay)->frameCount(), 4u);
    EXPECT_EQ((*replay)->fishCount(), 20u);
}

TEST(Recording, ARecordingDroppedUnfinishedReplacesNothing) {
    TempDir dir;
    const std::string file = dir.path("kept.h5");
    std::ofstream(file) << "keep me";
    {
        auto sim = app::SimulationController::create(openTank(10), BackendKind::Cpu);
        ASSERT_TRUE(sim) << sim.error();
        auto recording = app::TrajectoryRecording::start(**sim, file, "trajectory", 1);
        ASSERT_TRUE(recording) << recording.error();
        (*sim)->stepOnce();
    }
    std::ifstream in(file);
    std::string kept;
    std::getline(in, kept);
    EXPECT_EQ(kept, "keep me");
    EXPECT_EQ(std::distance(fs::directory_iterator(fs::path(file).parent_path()),
                            fs::directory_iterator()),
              1)
        << "no temporary file left";
}

// The app itself, under Xvfb, as AppTest runs it.
class ReplayApp : public ::testing::Test {
  protected:
    void SetUp() override {
        if (std::string(FISHSCHOOL_XVFB_RUN).empty()) GTEST_SKIP() << "xvfb-run is not installed";
    }
    int app(const std::string& args) {
        const std::string err = dir_.path("stderr.txt");
        const std::string command = "FISHSCHOOL_GL_DEBUG=1 " + std::string(FISHSCHOOL_XVFB_RUN) +
                                    " -a -s '-screen 0 1024x768x24' " + FISHSCHOOL_APP_PATH + " " +
                                    args + " 2>" + err + " >/dev/null";
        const int raw = std::system(command.c_str());
        std::ifstream in(err);
        std::stringstream s;
        s << in.rdbuf();
        err_ = s.str();
        return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    }
    TempDir dir_;
    std::string err_;
};

using fishschool::app_tests::Image;
Image load(const std::string& file) {
    return fishschool::app_tests::loadImage(file);
}

bool differs(const unsigned char* a, const unsigned char* b) {
    return std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]) > 60;
}

/// The centre of the pixels where `image` differs from both `others` (its fish, as the others'
/// fish sit elsewhere), and how many there are.
std::pair<glm::vec2, int> fishPixels(const Image& image, const Image& a, const Image& b) {
    glm::vec2 sum(0.0f);
    int count = 0;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x)
            if (differs(image.at(x, y), a.at(x, y)) && differs(image.at(x, y), b.at(x, y))) {
                sum += glm::vec2(x, y);
                ++count;
            }
    return {count > 0 ? sum / static_cast<float>(count) : glm::vec2(-1.0f), count};
}

/// Where the app's default camera draws `position`, in pixels from the top left.
glm::vec2 projected(const SimParams& params, glm::vec3 position, int width, int height) {
    render::OrbitCamera camera;
    camera.reset(params.bounds);
    const glm::vec4 clip =
        camera.projection(static_cast<float>(width) / static_cast<float>(height)) * camera.view() *
        glm::vec4(position, 1.0f);
    const glm::vec2 ndc(clip.x / clip.w, clip.y / clip.w);
    return {(ndc.x * 0.5f + 0.5f) * static_cast<float>(width),
            (0.5f - ndc.y * 0.5f) * static_cast<float>(height)};
}

TEST_F(ReplayApp, AScreenshotOfFrameKShowsTheFilesPositionsOfFrameK) {
    const SimParams params = openTank(400);
    const std::string file = dir_.path("corners.h5");
    // Frame 0 in one corner, frame 5 in the middle, frame 10 in the opposite corner; at top
    // speed, so the fish are orange on the blue water.
    writeFile(
        file, params, 11, [&](std::size_t k) { return corners(k, 11, params); }, std::size_t(-1),
        params.maxVelocity);
    const std::string common =
        "--replay " + file + " --frames 3 --width 640 --height 360 --hide-ui --msaa 0 ";
    for (const int k : {0, 5, 10})
        ASSERT_EQ(app(common + "--frame " + std::to_string(k) + " --screenshot " +
                      dir_.path("frame" + std::to_string(k) + ".png")),
                  0)
            << err_;
    const Image first = load(dir_.path("frame0.png")), middle = load(dir_.path("frame5.png")),
                last = load(dir_.path("frame10.png"));
    ASSERT_EQ(first.width, 640);
    ASSERT_EQ(last.rgb.size(), first.rgb.size());
    for (const auto& [k, image, others] : {std::tuple{0, &first, std::pair{&middle, &last}},
                                           std::tuple{10, &last, std::pair{&first, &middle}}}) {
        const auto [centre, count] = fishPixels(*image, *others.first, *others.second);
        EXPECT_GT(count, 50) << "frame " << k << " shows no fish (" << count << " pixels)";
        const glm::vec2 expected =
            projected(params, corners(static_cast<std::size_t>(k), 11, params), 640, 360);
        EXPECT_LT(glm::distance(centre, expected), 40.0f)
            << "frame " << k << ": fish drawn around (" << centre.x << ", " << centre.y
            << "), the file's positions project to (" << expected.x << ", " << expected.y << ")";
    }
}

TEST_F(ReplayApp, ABadRecordingOrFrameStopsBeforeTheWindowWithStatus2) {
    const std::string text = dir_.path("not.h5");
    std::ofstream(text) << "not a trajectory\n";
    EXPECT_EQ(app("--replay " + text + " --frames 1"), 2);
    EXPECT_NE(err_.find("--replay"), std::string::npos) << err_;
    EXPECT_NE(err_.find("not.h5"), std::string::npos) << err_;

    const SimParams params = openTank(5);
    const std::string file = dir_.path("small.h5");
    writeFile(file, params, 3, [&](std::size_t k) { return corners(k, 3, params); });
    EXPECT_EQ(app("--replay " + file + " --frame 3 --frames 1"), 2);
    EXPECT_NE(err_.find("--frame: 3 is not allowed"), std::string::npos) << err_;
    EXPECT_NE(err_.find("0 to 2"), std::string::npos) << err_;
    EXPECT_EQ(app("--replay " + file + " --fish 10 --frames 1"), 2);
    EXPECT_NE(err_.find("--fish cannot be used with --replay"), std::string::npos) << err_;
}

TEST_F(ReplayApp, TheAppRecordsItsSchoolWithTrajectoryAndTheFileReplays) {
    const std::string file = dir_.path("app.h5");
    ASSERT_EQ(app("--fish 50 --density tank --frames 30 --width 320 --height 240 --hide-ui "
                  "--msaa 0 --trajectory " +
                  file + " --trajectory-every 2"),
              0)
        << err_;
    EXPECT_NE(err_.find("wrote the trajectory"), std::string::npos) << err_;
    auto replay = app::Replay::open(file);
    ASSERT_TRUE(replay) << replay.error();
    EXPECT_EQ((*replay)->fishCount(), 50u);
    EXPECT_GE((*replay)->frameCount(), 2u);
    for (std::size_t k = 0; k < (*replay)->frameCount(); ++k)
        EXPECT_EQ((*replay)->frameStep(k), static_cast<std::int64_t>(2 * k));
    // And the app replays it.
    EXPECT_EQ(app("--replay " + file +
                  " --frames 5 --width 320 --height 240 --msaa 0 "
                  "--screenshot " +
                  dir_.path("replayed.png")),
              0)
        << err_;
}

TEST_F(ReplayApp, StateInStartsTheLiveSchoolFromATrajectorysFrame) {
    const SimParams params = openTank(30);
    const std::string file = dir_.path("start.h5");
    writeFile(file, params, 5, [&](std::size_t k) { return corners(k, 5, params); });
    const std::string out = dir_.path("out.csv");
    ASSERT_EQ(app("--state-in " + file +
                  " --frame 3 --paused --frames 2 --width 320 --height 240 "
                  "--hide-ui --msaa 0 --state-out " +
                  out),
              0)
        << err_;
    auto school = loadStateCsv(out, params);
    ASSERT_TRUE(school) << school.error();
    const School expected = clusterAt(corners(3, 5, params), 30, 2.0f);
    ASSERT_EQ(school->size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        EXPECT_LT(glm::distance((*school)[i].position, expected[i].position), 1e-4f);
    EXPECT_EQ(app("--state-in " + file + " --frame 9 --frames 1"), 2);
    // As the CLI's simulate says it: the same start (fishschool/Run.h).
    EXPECT_NE(err_.find("--frame: 9 is not a frame of"), std::string::npos) << err_;
    EXPECT_NE(err_.find("start.h5; it holds frames 0 to 4"), std::string::npos) << err_;
}

}  // namespace
