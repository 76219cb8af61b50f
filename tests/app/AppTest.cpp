// The desktop app run as a user runs it, in a real window under Xvfb.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glm/geometric.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ScreenshotImage.h"
#include "core/Scenario.h"
#include "fishschool/SimParams.h"
#include "io/ConfigIO.h"
#include "io/StateIO.h"

namespace {

namespace fs = std::filesystem;

class App : public ::testing::Test {
  protected:
    void SetUp() override {
        if (std::string(FISHSCHOOL_XVFB_RUN).empty()) GTEST_SKIP() << "xvfb-run is not installed";
        // The process id keeps runs of the same test in other checkouts apart.
        dir_ = fs::temp_directory_path() /
               ("fishschool_app_" + std::to_string(::getpid()) + "_" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    /// Runs the app in a virtual X display; returns its exit status, stderr in `err_`. GL errors
    /// are checked as in a debug build: one ends the app with status 1.
    int app(const std::string& args, bool withDisplay = true) {
        return run(withDisplay ? "FISHSCHOOL_GL_DEBUG=1 " + std::string(FISHSCHOOL_XVFB_RUN) +
                                     " -a -s '-screen 0 1024x768x24' "
                               : "env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=x11 ",
                   args);
    }
    /// Runs the app with no display at all, as on a server.
    int appWithoutDisplay(const std::string& args) {
        return run("env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER ", args);
    }
    int run(const std::string& prefix, const std::string& args) {
        const std::string command =
            prefix + FISHSCHOOL_APP_PATH + " " + args + " 2>" + path("stderr.txt") + " >/dev/null";
        const int raw = std::system(command.c_str());
        std::ifstream in(path("stderr.txt"));
        std::stringstream s;
        s << in.rdbuf();
        err_ = s.str();
        return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    }

    fs::path dir_;
    std::string err_;
};

/// Tests that need the app to open its window: skipped where Xvfb gives no usable display.
class AppOnDisplay : public App {
  protected:
    void SetUp() override {
        App::SetUp();
        if (IsSkipped()) return;
        // One tiny run tells whether Xvfb gives this machine a display with OpenGL 4.5 at all.
        static const std::string noDisplay = [this] {
            return app("--frames 1 --width 64 --height 64 --hide-ui --msaa 0 --fish 0") == 0
                       ? std::string()
                       : err_;
        }();
        if (!noDisplay.empty()) GTEST_SKIP() << "no usable display under xvfb-run: " << noDisplay;
    }
};

using fishschool::app_tests::Image;
Image load(const std::string& file) {
    return fishschool::app_tests::loadImage(file);
}

/// Share of pixels that differ clearly between two pictures of the same size.
double changedShare(const Image& a, const Image& b) {
    std::size_t changed = 0;
    for (std::size_t p = 0; p < a.rgb.size(); p += 3) {
        const int d = std::abs(a.rgb[p] - b.rgb[p]) + std::abs(a.rgb[p + 1] - b.rgb[p + 1]) +
                      std::abs(a.rgb[p + 2] - b.rgb[p + 2]);
        if (d > 60) ++changed;
    }
    return static_cast<double>(changed) / static_cast<double>(a.rgb.size() / 3);
}

TEST_F(AppOnDisplay, AfterSomeFramesTheScreenshotShowsFish) {
    // The same tank for both counts: at fixed density no fish would make a tiny one.
    const std::string common = "--frames 12 --width 640 --height 360 --hide-ui --density tank ";
    ASSERT_EQ(app(common + "--backend tbb --fish 0 --screenshot " + path("empty.png")), 0) << err_;
    ASSERT_EQ(app(common + "--backend tbb --fish 3000 --screenshot " + path("fish.png")), 0)
        << err_;
    const Image empty = load(path("empty.png")), fish = load(path("fish.png"));
    ASSERT_EQ(empty.width, 640);
    ASSERT_EQ(empty.height, 360);
    ASSERT_EQ(fish.rgb.size(), empty.rgb.size());

    // The tank without fish is not blank: water, sand, rocks.
    std::set<int> colours;
    for (std::size_t p = 0; p < empty.rgb.size(); p += 3)
        colours.insert(empty.rgb[p] << 16 | empty.rgb[p + 1] << 8 | empty.rgb[p + 2]);
    EXPECT_GT(colours.size(), 20u);

    // Fish: pixels that differ clearly from the empty tank, over a good part of the picture.
    const double share = changedShare(fish, empty);
    EXPECT_GT(share, 0.01) << "only " << share * 100.0 << "% of the pixels show fish";
    EXPECT_LT(share, 0.9);

    // The gpu backend's fish are drawn straight from its simulation buffer: they show as well.
    const int gpuStatus = app(common + "--backend gpu --fish 3000 --screenshot " + path("gpu.png"));
    if (gpuStatus != 0) GTEST_SKIP() << "no gpu backend here: " << err_;
    const Image gpu = load(path("gpu.png"));
    ASSERT_EQ(gpu.rgb.size(), fish.rgb.size());
    EXPECT_GT(changedShare(gpu, empty), 0.5 * share);
}

/// The rows of a sweep CSV with the new columns, by "backend,fish".
struct SweepRow {
    double fps = 0.0;
    std::string density;
    std::string meanNeighbors;
    double measureMs = 0.0;
    std::string gpuRenderMs;
    double triangles = 0.0;
    std::array<double, 3> fishPerLevel{};
};
std::map<std::string, SweepRow> sweepRows(const std::string& file, std::string* header) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    *header = line;
    std::map<std::string, SweepRow> rows;
    while (std::getline(in, line)) {
        std::vector<std::string> fields;
        std::stringstream s(line);
        for (std::string field; std::getline(s, field, ',');) fields.push_back(field);
        EXPECT_EQ(fields.size(), 13u) << line;
        if (fields.size() != 13u) continue;
        rows[fields[0] + "," + fields[1]] = {
            std::stod(fields[2]),
            fields[5],
            fields[6],
            std::stod(fields[7]),
            fields[8],
            std::stod(fields[9]),
            {std::stod(fields[10]), std::stod(fields[11]), std::stod(fields[12])}};
    }
    return rows;
}

TEST_F(AppOnDisplay, ASweepWritesARowForEveryBackendAndCount) {
    ASSERT_EQ(app("--width 320 --height 200 --sweep 100,300 --sweep-seconds 0.1 "
                  "--sweep-warmup-steps 30 --csv " +
                  path("sweep.csv")),
              0)
        << err_;
    std::string header;
    const auto rows = sweepRows(path("sweep.csv"), &header);
    EXPECT_EQ(header,
              "backend,fish,fps,sim_ms,render_ms,density,mean_neighbors,measure_ms,gpu_render_ms,"
              "triangles,fish_full,fish_low,fish_tiny");
    for (const auto& [key, row] : rows) {
        EXPECT_GT(row.fps, 0.0) << key;
        EXPECT_EQ(row.density, "fixed") << key;  // the default
        // The tank scaled to the default school's density: a school of 100 fish in it still
        // has neighbours, and no fish more than the others.
        ASSERT_FALSE(row.meanNeighbors.empty()) << key;
        const double neighbors = std::stod(row.meanNeighbors);
        const double fish = std::stod(key.substr(key.find(',') + 1));
        EXPECT_GT(neighbors, 1.0) << key;
        EXPECT_LT(neighbors, fish) << key;
        // The frame only asks for a snapshot of a few hundred fish for the measures' worker.
        EXPECT_GE(row.measureMs, 0.0) << key;
        EXPECT_LT(row.measureMs, 5.0) << key;
        // What the GPU drew came back: some of the school is in view (the panel covers most of
        // this small window, and the picture moves right beside it), each fish at one level,
        // and its timer queries said how long the drawing took.
        const double drawn = row.fishPerLevel[0] + row.fishPerLevel[1] + row.fishPerLevel[2];
        EXPECT_GT(drawn, 0.0) << key;
        EXPECT_LE(drawn, fish) << key;
        EXPECT_GE(row.triangles, drawn) << key;
        ASSERT_FALSE(row.gpuRenderMs.empty()) << key;
        EXPECT_GT(std::stod(row.gpuRenderMs), 0.0) << key;
    }
    for (const char* expected : {"cpu,100", "cpu,300", "tbb,100", "tbb,300"})
        EXPECT_TRUE(rows.count(expected)) << expected;
    // The gpu backend runs wherever GL 4.5 does, software GL included, unless the app said why not.
    if (err_.find("skipping gpu") == std::string::npos) {
        EXPECT_TRUE(rows.count("gpu,100"));
        EXPECT_TRUE(rows.count("gpu,300"));
    }
}

TEST_F(AppOnDisplay, ASweepFollowsTheDensityFlag) {
    // 250 and 2,000 fish: at fixed density the tank is scaled from the default 2,000-fish scene;
    // in the default tank 250 fish have far fewer neighbours.
    const std::string common =
        "--width 320 --height 200 --msaa 0 --hide-ui --sweep 250,2000 --sweep-backends tbb "
        "--sweep-seconds 0.2 --sweep-warmup-steps 30 --csv ";
    ASSERT_EQ(app(common + path("fixed.csv") + " --density fixed"), 0) << err_;
    ASSERT_EQ(app(common + path("tank.csv") + " --density tank"), 0) << err_;
    std::string header;
    auto fixed = sweepRows(path("fixed.csv"), &header);
    auto tank = sweepRows(path("tank.csv"), &header);
    for (auto* rows : {&fixed, &tank})
        for (const char* key : {"tbb,250", "tbb,2000"}) {
            ASSERT_TRUE(rows->count(key)) << key;
            ASSERT_FALSE((*rows)[key].meanNeighbors.empty()) << key;
        }
    EXPECT_EQ(fixed["tbb,250"].density, "fixed");
    EXPECT_EQ(tank["tbb,250"].density, "tank");
    const auto neighbors = [](std::map<std::string, SweepRow>& rows, const char* key) {
        return std::stod(rows[key].meanNeighbors);
    };
    // 250 fish: an eighth of 2,000's neighbours in the default tank; in the tank scaled to half
    // its size, eight times the density, so many more (not eight times: the walls, half as far,
    // cut the 20 m cohesion sphere of most fish).
    EXPECT_LT(neighbors(tank, "tbb,250"), 0.2 * neighbors(tank, "tbb,2000"));
    EXPECT_GT(neighbors(fixed, "tbb,250"), 1.5 * neighbors(tank, "tbb,250"));
}

TEST_F(AppOnDisplay, ASweepGivesTheSchoolBackAsItWas) {
    ASSERT_EQ(app("--width 320 --height 200 --msaa 0 --backend cpu --fish 700 --sweep 100 "
                  "--sweep-backends tbb --sweep-seconds 0.05 --csv " +
                  path("sweep.csv") + " --state-out " + path("after.csv") + " --config-out " +
                  path("after.json")),
              0)
        << err_;
    EXPECT_THAT(err_, ::testing::HasSubstr("sweep: 1/1 tbb, 100 fish"));  // progress as it goes
    // The user's tank, scaled for 700 fish at fixed density, not the sweep's last case's.
    const auto config = fishschool::loadConfig(path("after.json"));
    ASSERT_TRUE(config) << config.error();
    EXPECT_EQ(*config, fishschool::fixedDensityParams(700));
    const auto after = fishschool::loadStateCsv(path("after.csv"), *config);
    ASSERT_TRUE(after) << after.error();
    EXPECT_EQ(after->size(), 700u);  // the user's school, not the sweep's last case
}

/// The rows of a sweep CSV as "backend,fish".
std::set<std::string> sweepCases(const std::string& file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    std::set<std::string> cases;
    while (std::getline(in, line)) cases.insert(line.substr(0, line.find(',', line.find(',') + 1)));
    return cases;
}

TEST_F(AppOnDisplay, ASweepSkipsTheCasesTheAppRefusesAndFinishes) {
    // All-pairs with 250,000 fish is refused on every backend; the sweep must go on past it.
    ASSERT_EQ(app("--width 320 --height 200 --neighbors all-pairs --sweep 100,250000 "
                  "--sweep-backends cpu,tbb --sweep-seconds 0.1 --csv " +
                  path("sweep.csv")),
              0)
        << err_;
    const std::set<std::string> cases = sweepCases(path("sweep.csv"));
    EXPECT_TRUE(cases.count("cpu,100"));
    EXPECT_TRUE(cases.count("tbb,100"));
    EXPECT_FALSE(cases.count("cpu,250000"));
    EXPECT_FALSE(cases.count("tbb,250000"));
    EXPECT_THAT(err_, ::testing::HasSubstr("sweep: skipped cpu, 250000 fish: neighborSearch"));
    EXPECT_THAT(err_, ::testing::HasSubstr("sweep: skipped tbb, 250000 fish"));
    EXPECT_FALSE(cases.count("gpu,100"));  // not asked for
}

TEST_F(AppOnDisplay, SwitchingBackendsWhileItRunsKeepsEveryFishInTheTank) {
    ASSERT_EQ(app("--width 320 --height 200 --hide-ui --msaa 0 --backend cpu --fish 1500 "
                  "--density tank --frames 40 --switch-every 10 --state-out " +
                  path("school.csv")),
              0)
        << err_;
    // Three hand-overs at frames 10, 20 and 30: tbb, then gpu (where it runs), then on.
    std::size_t switches = 0;
    for (std::size_t at = err_.find("switched to"); at != std::string::npos;
         at = err_.find("switched to", at + 1))
        ++switches;
    EXPECT_EQ(switches, 3u) << err_;
    EXPECT_THAT(err_, ::testing::HasSubstr("frame 10: switched to tbb"));
    EXPECT_THAT(err_, ::testing::Not(::testing::HasSubstr("could not switch")));
    // The school the app ends with: every fish there, each inside the tank and outside the rocks
    // (loading checks both against the default scene).
    const auto school = fishschool::loadStateCsv(path("school.csv"), fishschool::SimParams{});
    ASSERT_TRUE(school) << school.error();
    EXPECT_EQ(school->size(), 1500u);

    // The saved school starts the app again, paused: it comes out as it went in.
    ASSERT_EQ(app("--width 320 --height 200 --hide-ui --msaa 0 --frames 2 --paused --state-in " +
                  path("school.csv") + " --state-out " + path("again.csv")),
              0)
        << err_;
    const auto again = fishschool::loadStateCsv(path("again.csv"), fishschool::SimParams{});
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(*again, *school);
}

TEST_F(AppOnDisplay, ConfigOutWritesTheParametersTheAppEndsWith) {
    ASSERT_EQ(app("--frames 2 --msaa 0 --width 320 --height 200 --hide-ui --fish 300 "
                  "--neighbors all-pairs --config-out " +
                  path("end.json")),
              0)
        << err_;
    const auto ended = fishschool::loadConfig(path("end.json"));
    ASSERT_TRUE(ended) << ended.error();
    fishschool::SimParams base;
    base.neighborSearch = fishschool::NeighborSearch::AllPairs;
    // At fixed density (the default) --fish scales the tank, rocks and target of the config.
    const fishschool::SimParams expected = fishschool::fixedDensityParams(300, base);
    EXPECT_EQ(*ended, expected);
    EXPECT_LT(ended->bounds.x, base.bounds.x);
    // It starts the app again as it ended.
    ASSERT_EQ(app("--frames 2 --msaa 0 --width 320 --height 200 --hide-ui --config " +
                  path("end.json") + " --config-out " + path("again.json")),
              0)
        << err_;
    const auto again = fishschool::loadConfig(path("again.json"));
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(*again, expected);
}

// A school of species is coloured by species without being asked (--color speed asks for the
// speed colours), each fish in its species' colour as the tbb backend hands it to the renderer.
TEST_F(AppOnDisplay, ASchoolOfSpeciesIsColouredBySpecies) {
    // docs/examples/mixed-school.json with green small fish: no speed colour is green.
    {
        std::ofstream config(path("mixed.json"));
        config << R"({"fishCount": 2000, "species": [
            {"name": "small", "count": 1800, "color": [0.1, 1.0, 0.1], "bodyLength": 1.5},
            {"name": "big", "count": 200, "color": [1.0, 0.5, 0.1], "bodyLength": 3,
             "maxVelocity": 6}]})";
    }
    const std::string common =
        "--frames 4 --msaa 0 --width 640 --height 360 --hide-ui --backend "
        "tbb --config " +
        path("mixed.json");
    ASSERT_EQ(app(common + " --screenshot " + path("species.png")), 0) << err_;
    ASSERT_EQ(app(common + " --color speed --screenshot " + path("speed.png")), 0) << err_;
    const auto green = [](const Image& image) {
        std::size_t count = 0;
        for (std::size_t p = 0; p < image.rgb.size(); p += 3)
            if (image.rgb[p + 1] > image.rgb[p] + 60 && image.rgb[p + 1] > image.rgb[p + 2] + 40)
                ++count;
        return count;
    };
    const std::size_t bySpecies = green(load(path("species.png")));
    const std::size_t bySpeed = green(load(path("speed.png")));
    EXPECT_GT(bySpecies, 500u) << "the small fish are not green";
    EXPECT_LT(bySpeed * 20, bySpecies) << bySpeed << " green pixels coloured by speed";
}

TEST_F(AppOnDisplay, TheWindowFitsTheDisplay) {
    // The screen is 1024 x 768: the default 1600 x 900 would overflow it.
    ASSERT_EQ(app("--frames 2 --msaa 0 --fish 100 --screenshot " + path("fit.png")), 0) << err_;
    const Image fit = load(path("fit.png"));
    EXPECT_EQ(fit.width, 1024);
    EXPECT_EQ(fit.height, 768);
    // A size asked for is kept.
    ASSERT_EQ(app("--frames 2 --msaa 0 --fish 100 --width 500 --height 300 --screenshot " +
                  path("asked.png")),
              0)
        << err_;
    EXPECT_EQ(load(path("asked.png")).width, 500);
}

TEST_F(App, WithoutADisplayItRunsOffscreenOnlyForRunsThatEnd) {
    // Run by hand with no display: a clear message and status 2, nothing else.
    EXPECT_EQ(appWithoutDisplay("--fish 10"), 2);
    EXPECT_THAT(err_, ::testing::HasSubstr("no display"));
    EXPECT_THAT(err_, ::testing::HasSubstr("--frames"));
    EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
    // With --frames it runs offscreen (EGL) and writes what it was asked for.
    const int status = appWithoutDisplay(
        "--frames 3 --msaa 0 --width 320 --height 200 --fish 100 "
        "--screenshot " +
        path("offscreen.png"));
    if (status != 0 && err_.find("cannot open a display") != std::string::npos)
        GTEST_SKIP() << "no offscreen GL here: " << err_;
    ASSERT_EQ(status, 0) << err_;
    EXPECT_THAT(err_, ::testing::HasSubstr("running offscreen"));
    EXPECT_EQ(load(path("offscreen.png")).width, 320);
}

/// The number of video frames in `file` as ffprobe counts them, or -1.
long long videoFrames(const std::string& file) {
    const std::string command = std::string(FISHSCHOOL_FFPROBE) +
                                " -v error -count_frames -select_streams v:0 -show_entries "
                                "stream=nb_read_frames -of csv=p=0 '" +
                                file + "'";
    FILE* out = ::popen(command.c_str(), "r");
    if (!out) return -1;
    char line[64] = {};
    const bool read = std::fgets(line, sizeof line, out) != nullptr;
    ::pclose(out);
    return read ? std::atoll(line) : -1;
}

TEST_F(AppOnDisplay, RecordWritesOneVideoFramePerDrawnFrame) {
    if (std::string(FISHSCHOOL_FFPROBE).empty()) GTEST_SKIP() << "ffprobe is not installed";
    ASSERT_EQ(app("--frames 25 --msaa 0 --width 320 --height 200 --fish 200 --record " +
                  path("window.mp4")),
              0)
        << err_;
    EXPECT_EQ(videoFrames(path("window.mp4")), 25);
    EXPECT_THAT(err_, ::testing::HasSubstr("(25 frames)"));
    // Offscreen, without a display, as on a server; an odd size loses a column and a row.
    const int status = appWithoutDisplay("--frames 7 --msaa 0 --width 321 --height 201 --record " +
                                         path("offscreen.mp4"));
    if (status != 0 && err_.find("cannot open a display") != std::string::npos)
        GTEST_SKIP() << "no offscreen GL here: " << err_;
    ASSERT_EQ(status, 0) << err_;
    EXPECT_EQ(videoFrames(path("offscreen.mp4")), 7);
    // Nothing but the videos is left in the folder: no partial file.
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_))
        names.insert(entry.path().filename().string());
    EXPECT_EQ(names, (std::set<std::string>{"offscreen.mp4", "stderr.txt", "window.mp4"}));
}

/// The last frame of `video` as a PNG `png`, through ffmpeg; false when it could not be made.
bool lastVideoFrame(const std::string& video, const std::string& png) {
    const std::string command = "ffmpeg -loglevel error -y -sseof -0.5 -i '" + video +
                                "' -update 1 '" + png + "' >/dev/null 2>&1";
    return std::system(command.c_str()) == 0;
}

// In a 640 x 360 video the panel and the overlay covered almost all of the scene, and the notice
// "recording the video ..." was in it. --record-clean records the scene alone, framed in the
// whole frame, as --hide-ui shows it; a video with the panel has no notice in it.
TEST_F(AppOnDisplay, ACleanRecordingShowsTheSceneAlone) {
    if (std::string(FISHSCHOOL_FFPROBE).empty()) GTEST_SKIP() << "no ffmpeg to record with";
    // Paused: every frame shows the same school, so the video and a screenshot can be compared.
    const std::string common = "--paused --frames 8 --msaa 0 --width 640 --height 360 ";
    ASSERT_EQ(app(common + "--hide-ui --screenshot " + path("scene.png")), 0) << err_;
    ASSERT_EQ(app(common + "--record " + path("clean.mp4") + " --record-clean"), 0) << err_;
    EXPECT_EQ(videoFrames(path("clean.mp4")), 8);
    ASSERT_EQ(app(common + "--record " + path("ui.mp4")), 0) << err_;
    EXPECT_THAT(err_, ::testing::HasSubstr("recording the video '"));  // said on stderr
    ASSERT_TRUE(lastVideoFrame(path("clean.mp4"), path("clean.png")));
    ASSERT_TRUE(lastVideoFrame(path("ui.mp4"), path("ui.png")));
    const Image scene = load(path("scene.png")), clean = load(path("clean.png")),
                ui = load(path("ui.png"));
    ASSERT_EQ(clean.rgb.size(), scene.rgb.size());
    ASSERT_EQ(ui.rgb.size(), scene.rgb.size());
    // The same picture but for the video's compression; the panel changes a good part of it.
    EXPECT_LT(changedShare(clean, scene), 0.01);
    EXPECT_GT(changedShare(ui, scene), 0.2);
}

TEST_F(AppOnDisplay, TheDefaultSchoolPolarisesWithinTwentySimulatedSeconds) {
    if (std::string(FISHSCHOOL_FFPROBE).empty()) GTEST_SKIP() << "no ffmpeg to record with";
    // While recording, each frame advances 1/60 s whatever the machine's speed: 1,200 frames
    // are the 20 simulated seconds of the default school as the app opens it.
    ASSERT_EQ(app("--frames 1200 --hide-ui --msaa 0 --width 64 --height 64 --record " +
                  path("school.mp4") + " --state-out " + path("school.csv")),
              0)
        << err_;
    const auto school = fishschool::loadStateCsv(path("school.csv"), fishschool::SimParams{});
    ASSERT_TRUE(school) << school.error();
    ASSERT_EQ(school->size(), 2000u);
    glm::dvec3 heading(0.0);
    for (const fishschool::Fish& fish : *school)
        heading += glm::dvec3(fish.velocity) / glm::length(glm::dvec3(fish.velocity));
    EXPECT_GE(glm::length(heading) / static_cast<double>(school->size()), 0.7);
}

TEST_F(App, BadFlagsAndNoDisplayExitTwoWithAMessage) {
    const std::string csv = " --csv " + path("s.csv");
    struct Case {
        std::string args;
        std::string mustSay;
    };
    const Case cases[] = {
        {"--backend quantum --frames 1", "--backend"},
        {"--fish -5 --frames 1", "--fish"},
        {"--density dense --frames 1", "--density: 'dense' is not allowed; must be fixed or tank"},
        {"--sweep 10,x" + csv, "--sweep"},
        {"--sweep 10,,20" + csv, "empty item"},
        {"--frames 1" + csv, "--csv"},
        {"--sweep 10 --frames 5" + csv, "--frames"},
        {"--sweep 10 --switch-every 5" + csv, "--switch-every"},
        {"--sweep 10 --paused" + csv, "--paused"},
        {"--sweep 10 --sweep-backends cpu,cuda" + csv, "--sweep-backends: 'cuda'"},
        {"--frames 1 --screenshot " + path("no-such-folder/a.png"), "no-such-folder"},
        {"--frames 1 --switch-every 0", "--switch-every"},
        {"--frames 1 --fish 10 --state-in " + path("s.csv"), "--state-in"},
        {"--frames 1 --state-in " + path("missing.csv"), "missing.csv"},
        {"--frames 1 --record-fps 30", "--record"},
        {"--frames 1 --record " + path("v.mp4") + " --record-fps 0", "--record-fps"},
        {"--frames 1 --record " + path("no-such-folder/v.mp4"), "no-such-folder"},
        {"--sweep 10 --record " + path("v.mp4") + csv, "--record"},
        {"--frames 1 --config-out " + path("no-such-folder/c.json"), "no-such-folder"},
        {"--frames 1 --config " + path("c.json") + " --config-out " + path("c.json"),
         "--config-out"},
    };
    // The config that --config-out must not overwrite.
    ASSERT_TRUE(fishschool::saveConfig(path("c.json"), fishschool::SimParams{}));
    for (const Case& c : cases) {
        EXPECT_EQ(app(c.args), 2) << c.args;
        EXPECT_THAT(err_, ::testing::HasSubstr(c.mustSay)) << c.args;
    }
    EXPECT_EQ(app("--frames 1", /*withDisplay=*/false), 2);
    EXPECT_THAT(err_, ::testing::HasSubstr("display"));
    EXPECT_FALSE(fs::exists(path("s.csv")));
    const auto config = fishschool::loadConfig(path("c.json"));
    ASSERT_TRUE(config) << config.error();
    EXPECT_EQ(*config, fishschool::SimParams{});
}

}  // namespace
