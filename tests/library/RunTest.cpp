// A run as every front end starts and records it (fishschool/Run.h): the start's rule, the
// recorders chosen by the path, the outputs as one set, and files that the reader takes back
// and continues from to the same bits.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fishschool/fishschool.h"

namespace fishschool {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class RunTest : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("fishschool-run-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path path(const std::string& name) const { return dir_ / name; }
    static std::string read(const fs::path& file) {
        std::ifstream in(file, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }
    fs::path writeConfig(const std::string& name, const std::string& json) const {
        std::ofstream(path(name)) << json;
        return path(name);
    }
    fs::path dir_;
};

SimParams school(std::int64_t fish, std::uint64_t seed = 1) {
    SimParams p;
    p.fishCount = fish;
    p.seed = seed;
    return p;
}

constexpr const char* kMixed = R"({"fishCount": 300, "seed": 5, "species": [
    {"name": "a", "count": 200}, {"name": "b", "count": 100, "maxVelocity": 6}]})";

TEST_F(RunTest, AFishCountIsSharedAmongTheSpeciesByTheirCounts) {
    RunStart start{.config = writeConfig("mixed.json", kMixed)};
    start.fishCount = 30;
    auto sim = Simulation::start(start);
    ASSERT_TRUE(sim) << sim.error();
    EXPECT_EQ(sim->fishCount(), 30u);
    ASSERT_EQ(sim->params().species.size(), 2u);
    EXPECT_EQ(sim->params().species[0].count, 20);
    EXPECT_EQ(sim->params().species[1].count, 10);
    // The same rule for a running school's new count, by key or by a config's text.
    ASSERT_TRUE(sim->setParam("fishCount", 60));
    EXPECT_EQ(sim->params().species[0].count, 40);
    ASSERT_TRUE(sim->setConfigJson(R"({"fishCount": 9})"));
    EXPECT_EQ(sim->params().species[0].count, 6);
    EXPECT_EQ(sim->params().species[1].count, 3);
}

TEST_F(RunTest, AStartRefusesAFishCountWithAStateAndNamesTheFields) {
    auto fresh = Simulation::create(school(20), "cpu");
    ASSERT_TRUE(fresh);
    ASSERT_TRUE(fresh->saveState(path("s.csv")));
    RunStart start{.state = path("s.csv"), .fishCount = 10, .names = {.fishCount = "--fish"}};
    start.names.state = "--state-in";
    auto sim = Simulation::start(start);
    ASSERT_FALSE(sim);
    EXPECT_THAT(sim.error(), HasSubstr("--fish cannot be used with --state-in"));
    RunStart frame{.state = path("s.csv"), .frame = 0};
    auto refused = Simulation::start(frame);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("frame needs state FILE.h5"));
}

TEST_F(RunTest, TheFormatIsToldByTheExtension) {
    EXPECT_EQ(*outputFormatOf("a.H5"), TrajectoryFormat::H5md);
    EXPECT_EQ(*outputFormatOf("a.h5md"), TrajectoryFormat::H5md);
    EXPECT_EQ(*outputFormatOf("run.xyz"), TrajectoryFormat::Xyz);
    auto refused = outputFormatOf("run.txt");
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("'run.txt'"));
    EXPECT_THAT(refused.error(), HasSubstr(".xyz"));
}

// Recording, then continuing from a frame, gives the bits of the run that never stopped: the
// frame's step carries the noise on.
TEST_F(RunTest, ARecordedFrameContinuesToTheSameBits) {
    auto sim = Simulation::start(RunStart{.configJson = R"({"fishCount": 120, "seed": 3,
                                                            "noise": 0.3})"});
    ASSERT_TRUE(sim) << sim.error();
    const std::vector<RunOutput> outputs{
        {.kind = OutputKind::Trajectory, .path = path("t.h5"), .every = 5},
        {.kind = OutputKind::Measures, .path = path("m.csv"), .every = 5}};
    ASSERT_TRUE(sim->startRecording(outputs));
    ASSERT_TRUE(sim->step(20));
    auto summary = sim->finishRecording();
    ASSERT_TRUE(summary) << summary.error();
    EXPECT_EQ(summary->frames, 5u);
    EXPECT_EQ(summary->rows, 5u);
    ASSERT_TRUE(sim->step(7));
    const std::vector<Fish> straight(sim->school().begin(), sim->school().end());

    auto reader = TrajectoryReader::open(path("t.h5"));
    ASSERT_TRUE(reader) << reader.error();
    EXPECT_EQ((*reader)->frameStep(4), 20);
    EXPECT_EQ((*reader)->measures().values.size(), 5u);
    auto resumed = Simulation::start(RunStart{.state = path("t.h5")});
    ASSERT_TRUE(resumed) << resumed.error();
    EXPECT_EQ(resumed->stepCount(), 20u);
    ASSERT_TRUE(resumed->step(7));
    const auto school = resumed->school();
    ASSERT_EQ(school.size(), straight.size());
    for (std::size_t i = 0; i < school.size(); ++i) {
        EXPECT_EQ(school[i].position, straight[i].position) << "fish " << i;
        EXPECT_EQ(school[i].velocity, straight[i].velocity) << "fish " << i;
    }
}

// docs/model.md "Burst-and-coast swimming": a school of the rummy-nose tank, whose fish kick
// about every half second (tens of steps of 0.01 s).
constexpr const char* kTetras = R"({"fishCount": 12, "seed": 4, "steering": "burst-and-coast",
    "arena": "cylinder", "bounds": [0.25, 0.035, 0.25], "dimensions": 2, "rocks": [],
    "dt": 0.01, "rCohesion": 1.0, "maxVelocity": 0.35, "kickSpeedMax": 0.35})";

/// Each fish of `a` and `b` the same to the bit: position, velocity and kick clock.
void expectSameBits(std::span<const Fish> a, std::span<const Fish> b, const std::string& what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].position, b[i].position) << what << ", fish " << i;
        EXPECT_EQ(a[i].velocity, b[i].velocity) << what << ", fish " << i;
        EXPECT_EQ(a[i].kickClock, b[i].kickClock) << what << ", fish " << i;
    }
}

// Saved after N steps, loaded and stepped M more, a burst-and-coast school is the one stepped
// N + M straight: the state file carries each fish's kick clock. Without the clocks the fish
// would draw their next kicks anew, and part ways.
TEST_F(RunTest, ABurstAndCoastStateFileStepsOnToTheSameBits) {
    for (const char* backend : {"cpu", "tbb"}) {
        auto sim = Simulation::start(RunStart{.configJson = kTetras}, backend);
        ASSERT_TRUE(sim) << sim.error();
        ASSERT_TRUE(sim->step(70));
        ASSERT_TRUE(sim->saveState(path("s.csv")));
        const std::uint64_t steps = sim->stepCount();
        const double seconds = sim->time();
        ASSERT_TRUE(sim->step(60));
        const School straight(sim->school().begin(), sim->school().end());

        auto resumed =
            Simulation::start(RunStart{.configJson = kTetras, .state = path("s.csv")}, backend);
        ASSERT_TRUE(resumed) << resumed.error();
        resumed->setClock(steps, seconds);  // a state file holds no step count: the noise's
        ASSERT_TRUE(resumed->step(60));
        expectSameBits(resumed->school(), straight, backend);

        // The same file without its clocks: each fish's next kick drawn anew.
        std::istringstream text(read(path("s.csv")));
        std::ofstream stripped(path("stripped.csv"));
        for (std::string line; std::getline(text, line);)
            stripped << line.substr(0, line.rfind(',')) << '\n';
        stripped.close();
        ASSERT_THAT(read(path("s.csv")), ::testing::StartsWith("x,y,z,vx,vy,vz,kickClock\n"));
        auto redrawn = Simulation::start(
            RunStart{.configJson = kTetras, .state = path("stripped.csv")}, backend);
        ASSERT_TRUE(redrawn) << redrawn.error();
        redrawn->setClock(steps, seconds);
        ASSERT_TRUE(redrawn->step(60));
        const auto other = redrawn->school();
        EXPECT_FALSE(
            std::equal(other.begin(), other.end(), straight.begin(),
                       [](const Fish& a, const Fish& b) { return a.velocity == b.velocity; }))
            << backend;
    }
}

// The same from a trajectory's frame: each frame holds the kick clocks (particles/school/
// kick_clock), and a run started from it goes on as the run that wrote it.
TEST_F(RunTest, ABurstAndCoastTrajectoryFrameStepsOnToTheSameBits) {
    for (const char* backend : {"cpu", "tbb"}) {
        auto sim = Simulation::start(RunStart{.configJson = kTetras}, backend);
        ASSERT_TRUE(sim) << sim.error();
        const std::vector<RunOutput> outputs{
            {.kind = OutputKind::Trajectory, .path = path("t.h5"), .every = 35}};
        ASSERT_TRUE(sim->startRecording(outputs));
        ASSERT_TRUE(sim->step(70));
        const School atFrame(sim->school().begin(), sim->school().end());
        ASSERT_TRUE(sim->finishRecording());
        ASSERT_TRUE(sim->step(60));
        const School straight(sim->school().begin(), sim->school().end());

        auto reader = TrajectoryReader::open(path("t.h5"));
        ASSERT_TRUE(reader) << reader.error();
        ASSERT_TRUE((*reader)->hasKickClocks());
        School frame;
        ASSERT_TRUE((*reader)->readFrame(2, frame));
        expectSameBits(frame, atFrame, std::string(backend) + ", frame 2");
        reader->reset();

        auto resumed = Simulation::start(RunStart{.state = path("t.h5")}, backend);
        ASSERT_TRUE(resumed) << resumed.error();
        EXPECT_EQ(resumed->stepCount(), 70u);
        ASSERT_TRUE(resumed->step(60));
        expectSameBits(resumed->school(), straight, backend);
    }
}

// A change made while recording is in the file at its step, so the frames after it read back
// with the parameters they were stepped with, leaders included.
TEST_F(RunTest, AChangeThatAddsLeadersReadsBackAtItsFrames) {
    auto sim = Simulation::start(RunStart{.configJson = R"({"fishCount": 50, "seed": 9})"});
    ASSERT_TRUE(sim) << sim.error();
    const std::vector<RunOutput> outputs{{.path = path("t.h5")}};
    ASSERT_TRUE(sim->startRecording(outputs));
    ASSERT_TRUE(sim->step(3));
    ASSERT_TRUE(sim->setConfigJson(R"({"leaders": 2})"));
    ASSERT_TRUE(sim->step(3));
    ASSERT_TRUE(sim->finishRecording());
    auto resumed = Simulation::start(RunStart{.state = path("t.h5")});
    ASSERT_TRUE(resumed) << resumed.error();
    EXPECT_EQ(resumed->params().leaders, 2);
    auto early = Simulation::start(RunStart{.state = path("t.h5"), .frame = 2});
    ASSERT_TRUE(early) << early.error();
    EXPECT_EQ(early->params().leaders, 0);
}

// New counts of the species deal the fish anew: the file records each fish's species from that
// step on, so each frame reads back with the species it was stepped with.
TEST_F(RunTest, NewCountsOfTheSpeciesReadBackAtTheirFrames) {
    auto sim = Simulation::start(RunStart{.config = writeConfig("mixed.json", kMixed)});
    ASSERT_TRUE(sim) << sim.error();
    const std::vector<RunOutput> outputs{{.path = path("t.h5")}};
    ASSERT_TRUE(sim->startRecording(outputs));
    ASSERT_TRUE(sim->step(2));
    SimParams dealt = sim->params();
    dealt.species[0].count = 100;
    dealt.species[1].count = 200;
    ASSERT_TRUE(sim->setParams(dealt));
    ASSERT_TRUE(sim->step(2));
    ASSERT_TRUE(sim->setParam("rCohesion", 12));  // keeps the species: nothing more recorded
    ASSERT_TRUE(sim->step(1));
    const std::vector<Fish> last(sim->school().begin(), sim->school().end());
    ASSERT_TRUE(sim->finishRecording());

    auto reader = TrajectoryReader::open(path("t.h5"));
    ASSERT_TRUE(reader) << reader.error();
    // Frame 1 before the change; frame 2, of its step, with the species the steps after it use.
    School frame;
    ASSERT_TRUE((*reader)->readFrame(1, frame));
    EXPECT_EQ(
        std::count_if(frame.begin(), frame.end(), [](const Fish& f) { return f.species == 1; }),
        100);
    ASSERT_TRUE((*reader)->readFrame(5, frame));
    for (std::size_t i = 0; i < last.size(); ++i) ASSERT_EQ(frame[i].species, last[i].species);
    EXPECT_EQ(
        std::count_if(frame.begin(), frame.end(), [](const Fish& f) { return f.species == 1; }),
        200);
    auto resumed = Simulation::start(RunStart{.state = path("t.h5")});
    ASSERT_TRUE(resumed) << resumed.error();
    EXPECT_EQ(resumed->params().species[1].count, 200);
    for (std::size_t i = 0; i < last.size(); ++i)
        ASSERT_EQ(resumed->school()[i].species, last[i].species);
}

TEST_F(RunTest, ATrajectoryKeepsTheSchoolItsSizeUntilItIsFinished) {
    auto sim = Simulation::start(RunStart{.configJson = R"({"fishCount": 40})"});
    ASSERT_TRUE(sim);
    const std::vector<RunOutput> outputs{{.path = path("t.h5")}};
    ASSERT_TRUE(sim->startRecording(outputs));
    auto refused = sim->setParam("fishCount", 41);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("while a trajectory records"));
    EXPECT_FALSE(sim->reset(3));
    EXPECT_EQ(sim->fishCount(), 40u);
    ASSERT_TRUE(sim->finishRecording());
    EXPECT_TRUE(sim->setParam("fishCount", 41));
}

// Outputs are one set: a run that is dropped, or whose last output cannot be made, replaces
// none of the files that were there.
TEST_F(RunTest, OutputsAreReplacedAllOrNone) {
    std::ofstream(path("m.csv")) << "old measures";
    std::ofstream(path("s.csv")) << "old state";
    auto sim = Simulation::start(RunStart{.configJson = R"({"fishCount": 30})"});
    ASSERT_TRUE(sim);
    {
        const std::vector<RunOutput> outputs{{.kind = OutputKind::Measures, .path = path("m.csv")},
                                             {.kind = OutputKind::State, .path = path("s.csv")}};
        ASSERT_TRUE(sim->startRecording(outputs));
        ASSERT_TRUE(sim->step(2));
        sim->dropRecording();
    }
    EXPECT_EQ(read(path("m.csv")), "old measures");
    EXPECT_EQ(read(path("s.csv")), "old state");
    const std::vector<RunOutput> clash{
        {.kind = OutputKind::Measures, .path = path("m.csv"), .name = "--metrics"},
        {.kind = OutputKind::Trajectory,
         .path = path("no-such-folder/t.h5"),
         .name = "--trajectory"}};
    auto refused = sim->startRecording(clash);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("--trajectory"));
    EXPECT_THAT(refused.error(), HasSubstr("no-such-folder"));
    EXPECT_FALSE(sim->recording());
    EXPECT_EQ(read(path("m.csv")), "old measures");
    for (const auto& entry : fs::directory_iterator(dir_))
        EXPECT_THAT(entry.path().filename().string(), ::testing::Not(HasSubstr(".tmp")));
}

TEST_F(RunTest, AnOutputThatIsAnInputIsRefused) {
    const fs::path config = writeConfig("c.json", R"({"fishCount": 10})");
    auto sim = Simulation::start(RunStart{.config = config});
    ASSERT_TRUE(sim);
    const std::vector<RunOutput> outputs{{.kind = OutputKind::State,
                                          .path = config,
                                          .name = "--state-out",
                                          .inputs = {{"--config", config}}}};
    auto refused = sim->startRecording(outputs);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("is the same file as --config"));
}

// The extended XYZ recorder: the frames a reader of the format expects, the tank as lattice.
TEST_F(RunTest, ExtendedXyzHoldsEachFrameAsItsReadersExpect) {
    auto sim = Simulation::start(RunStart{.configJson = R"({"fishCount": 4, "leaders": 1})"});
    ASSERT_TRUE(sim) << sim.error();
    const std::vector<RunOutput> outputs{
        {.kind = OutputKind::Trajectory, .path = path("t.xyz"), .every = 2},
        {.kind = OutputKind::Trajectory, .path = path("t.h5"), .every = 2}};
    ASSERT_TRUE(sim->startRecording(outputs));
    ASSERT_TRUE(sim->step(4));
    auto summary = sim->finishRecording();
    ASSERT_TRUE(summary) << summary.error();
    EXPECT_EQ(summary->frames, 3u);
    std::istringstream text(read(path("t.xyz")));
    std::string line;
    auto reader = TrajectoryReader::open(path("t.h5"));
    ASSERT_TRUE(reader) << reader.error();
    for (std::size_t frame = 0; frame < 3; ++frame) {
        ASSERT_TRUE(std::getline(text, line));
        EXPECT_EQ(line, "4");
        ASSERT_TRUE(std::getline(text, line));
        EXPECT_THAT(line, HasSubstr("Properties=species:S:1:pos:R:3:vel:R:3"));
        EXPECT_THAT(line, HasSubstr("step=" + std::to_string(2 * frame) + " "));
        School school;
        ASSERT_TRUE((*reader)->readFrame(frame, school));
        for (std::size_t i = 0; i < 4; ++i) {
            ASSERT_TRUE(std::getline(text, line));
            std::istringstream row(line);
            std::string symbol;
            float x, y, z, vx, vy, vz;
            int kind;
            row >> symbol >> x >> y >> z >> vx >> vy >> vz >> kind;
            EXPECT_EQ(x, school[i].position.x);
            EXPECT_EQ(vz, school[i].velocity.z);
            EXPECT_EQ(kind, i == 0 ? 1 : 0) << "the first fish leads";
        }
    }
    EXPECT_FALSE(std::getline(text, line));
}

TEST(Measures, OfArraysAreThoseOfTheSameSchoolInASimulation) {
    auto sim = Simulation::create(school(300, 4), "cpu");
    ASSERT_TRUE(sim);
    ASSERT_TRUE(sim->step(30));
    std::vector<float> positions(900), velocities(900);
    sim->copyFrame(positions, velocities);
    const SimParams p = sim->params();
    auto measured =
        measureArrays(positions, velocities,
                      MeasureOptions{.rCohesion = p.rCohesion, .groupDistance = p.groupDistance});
    ASSERT_TRUE(measured) << measured.error();
    const SchoolMetrics inTank = sim->measures();
    EXPECT_DOUBLE_EQ(measured->polarization, inTank.polarization);
    EXPECT_DOUBLE_EQ(measured->meanNearestNeighborDistance, inTank.meanNearestNeighborDistance);
    EXPECT_DOUBLE_EQ(measured->meanNeighbors, inTank.meanNeighbors);
    EXPECT_DOUBLE_EQ(measured->groups, inTank.groups);

    positions[4] = std::numeric_limits<float>::quiet_NaN();
    auto refused = measureArrays(positions, velocities);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("fish 1"));
    EXPECT_FALSE(measureArrays(std::span(positions).first(5), std::span(velocities).first(5)));
}

TEST(Measures, APeriodicBoxTakesTheNearestImage) {
    // Two fish 1 m apart across a face of a 10 m box are 1 m apart, not 9.
    const std::vector<float> positions{4.5f, 0, 0, -4.5f, 0, 0};
    const std::vector<float> velocities{1, 0, 0, 1, 0, 0};
    auto periodic = measureArrays(
        positions, velocities, MeasureOptions{.rCohesion = 2.0f, .periodicBox = glm::vec3(10.0f)});
    ASSERT_TRUE(periodic) << periodic.error();
    EXPECT_NEAR(periodic->meanNearestNeighborDistance, 1.0, 1e-5);
    auto open = measureArrays(positions, velocities, MeasureOptions{.rCohesion = 2.0f});
    ASSERT_TRUE(open);
    EXPECT_NEAR(open->meanNearestNeighborDistance, 9.0, 1e-5);
}

}  // namespace
}  // namespace fishschool
