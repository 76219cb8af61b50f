// `measure` and `compare`, end to end: a simulated trajectory measured and compared with itself,
// the files they write, and their refusals of files that are not trajectories.

#include <sstream>
#include <string>
#include <vector>

#include "CliFixture.h"

namespace {

class MeasureCli : public Cli {
  protected:
    /// A trajectory of a small school, 5 frames.
    std::string simulated(const std::string& name, int seed = 3) {
        const CliRun run = cli("simulate --fish 200 --seed " + std::to_string(seed) +
                               " --steps 40 --trajectory " + path(name) + " --trajectory-every 10");
        EXPECT_EQ(run.status, 0) << run.err;
        return path(name);
    }

    static std::vector<std::string> lines(const std::string& text) {
        std::vector<std::string> out;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) out.push_back(line);
        return out;
    }
};

TEST_F(MeasureCli, MeasuresEveryFrameAndWritesItsCsvAndHistograms) {
    const std::string file = simulated("school.h5");
    const CliRun run = cli("measure " + file + " --csv " + path("frames.csv") + " --histograms " +
                           path("histograms.csv"));
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.out.find("5 frames (steps 0 to 40), 200 fish a frame"), std::string::npos)
        << run.out;
    for (const char* name : {"wall_distance", "wall_angle", "nearest_neighbor", "neighbor_heading",
                             "viewing_angle", "speed", "polarization", "milling", "turning_angle",
                             "turn_axis_change", "80 x 0.25 from 0", "720 x 0.004363 from 0"})
        EXPECT_NE(run.out.find(name), std::string::npos) << name << "\n" << run.out;
    const auto frames = lines(read(path("frames.csv")));
    ASSERT_EQ(frames.size(), 6u);
    EXPECT_EQ(frames[0].rfind("step,time_s,polarization,milling", 0), 0u) << frames[0];
    EXPECT_TRUE(frames[0].ends_with(",fish"));
    EXPECT_TRUE(frames[5].ends_with(",200"));
    const auto bins = lines(read(path("histograms.csv")));
    // A row a bin and two for the values outside each range, and the header.
    EXPECT_EQ(bins.size(), 1u + (80 + 72 + 100 + 36 + 72 + 100 + 50 + 50 + 360 + 720) + 2 * 10);
    EXPECT_EQ(bins[0], "distribution,unit,bin_low,bin_high,count");
    EXPECT_EQ(bins[1], "wall_distance,m,0,0.25,0") << bins[1];
}

TEST_F(MeasureCli, AFileComparedWithItselfIsZeroEverywhere) {
    const std::string file = simulated("school.h5");
    const CliRun run = cli("compare " + file + " " + file + " --histograms " + path("both.csv"));
    ASSERT_EQ(run.status, 0) << run.err;
    for (const char* name : {"wall_distance", "nearest_neighbor", "neighbor_heading", "speed",
                             "polarization", "milling", "turning_angle", "turn_axis_change"}) {
        const auto at = run.out.find(std::string("  ") + name);
        ASSERT_NE(at, std::string::npos) << name << "\n" << run.out;
        const std::string line = run.out.substr(at, run.out.find('\n', at) - at);
        EXPECT_TRUE(line.ends_with(" 0.0000")) << line;
    }
    EXPECT_EQ(lines(read(path("both.csv")))[0],
              "distribution,unit,bin_low,bin_high,count_a,count_b");
}

TEST_F(MeasureCli, TwoSchoolsDiffer) {
    const std::string a = simulated("a.h5", 3);
    const std::string b = simulated("b.h5", 4);
    const CliRun run = cli("compare " + a + " " + b);
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.out.find(" speed") == std::string::npos, false);
    const auto at = run.out.find("  speed");
    const std::string line = run.out.substr(at, run.out.find('\n', at) - at);
    EXPECT_FALSE(line.ends_with(" 0.0000")) << line;
}

TEST_F(MeasureCli, AFileThatIsNotATrajectoryExitsTwoNamingIt) {
    write("notes.txt", "not a trajectory\n");
    const std::string school = simulated("school.h5");
    struct Case {
        std::string args, said;
    };
    const std::vector<Case> cases{
        {"measure " + path("notes.txt"), "notes.txt"},
        {"measure " + path("missing.h5"), "missing.h5"},
        {"compare " + school + " " + path("notes.txt"), "notes.txt"},
        {"compare " + path("notes.txt") + " " + school, "notes.txt"},
        {"measure " + school + " --csv " + school, "same file"},
        {"measure", "file is required"},
        {"compare " + school, "b is required"},
    };
    for (const Case& c : cases) {
        const CliRun run = cli(c.args);
        EXPECT_EQ(run.status, 2) << c.args << "\n" << run.err;
        EXPECT_EQ(run.err.rfind("error: ", 0), 0u) << run.err;
        EXPECT_NE(run.err.find(c.said), std::string::npos) << c.args << "\n" << run.err;
        EXPECT_EQ(run.out, "") << c.args;
    }
    EXPECT_EQ(listing(), (std::set<std::string>{"notes.txt", "school.h5"}));
}

}  // namespace
