// fishschool-cli end to end, as a user runs it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct CliRun {
    int status = -1;
    std::string out, err;
};

class Cli : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("fishschool_cli_" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    static std::string read(const std::string& file) {
        std::ifstream in(file);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }

    void write(const std::string& name, const std::string& text) const {
        std::ofstream(path(name)) << text;
    }

    CliRun cli(const std::string& args) const {
        const std::string command = std::string(FISHSCHOOL_CLI_PATH) + " " + args + " >" +
                                    path("stdout.txt") + " 2>" + path("stderr.txt");
        const int raw = std::system(command.c_str());
        CliRun run;
        run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
        run.out = read(path("stdout.txt"));
        run.err = read(path("stderr.txt"));
        return run;
    }

    /// Files in the test folder other than the captured output.
    std::size_t outputFiles() const {
        std::size_t n = 0;
        for (const auto& entry : fs::directory_iterator(dir_)) {
            const std::string name = entry.path().filename().string();
            if (name != "stdout.txt" && name != "stderr.txt" && name != "config.json" &&
                name != "bad.json" && name != "bad.csv")
                ++n;
        }
        return n;
    }

    fs::path dir_;
};

TEST_F(Cli, SimulateRoundTripsThroughStateFiles) {
    write("config.json", R"({"fishCount": 300, "seed": 9})");
    const std::string config = "--config " + path("config.json");
    ASSERT_EQ(cli("simulate " + config + " --steps 20 --state-out " + path("a.csv")).status, 0);
    // Zero steps from a state file writes the same state back.
    ASSERT_EQ(cli("simulate " + config + " --steps 0 --state-in " + path("a.csv") +
                  " --state-out " + path("b.csv"))
                  .status,
              0);
    EXPECT_EQ(read(path("a.csv")), read(path("b.csv")));
    // 20 + 20 steps through a file equal 40 steps at once, on both CPU backends.
    ASSERT_EQ(cli("simulate " + config + " --steps 20 --backend tbb --state-in " + path("a.csv") +
                  " --state-out " + path("c.csv"))
                  .status,
              0);
    ASSERT_EQ(cli("simulate " + config + " --steps 40 --state-out " + path("d.csv")).status, 0);
    const std::string d = read(path("d.csv"));
    EXPECT_EQ(read(path("c.csv")), d);
    EXPECT_EQ(std::count(d.begin(), d.end(), '\n'), 301);
    EXPECT_EQ(d.substr(0, 15), "x,y,z,vx,vy,vz\n");
    // --fish and --seed override the config.
    ASSERT_EQ(
        cli("simulate " + config + " --fish 50 --seed 3 --steps 1 --state-out " + path("e.csv"))
            .status,
        0);
    const std::string e = read(path("e.csv"));
    EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 51);
}

TEST_F(Cli, BadInputExitsTwoWithOneMessageAndWritesNoFile) {
    write("bad.json", R"({"rCohesion": -4})");
    write("bad.csv", "x,y,z\n1,2,3\n");
    const std::string out = " --state-out " + path("out.csv");
    struct Case {
        std::string args;
        std::string mustSay;
    };
    const Case cases[] = {
        {"simulate --steps 5 --config " + path("bad.json") + out, "rCohesion"},
        {"simulate --steps 5 --config " + path("missing.json") + out, "missing.json"},
        {"simulate --steps 5 --state-in " + path("bad.csv") + out, "bad.csv:1"},
        {"simulate --steps -1" + out, "--steps"},
        {"simulate --steps 5 --backend quantum" + out, "--backend"},
        {"simulate --steps 5 --neighbors octree" + out, "--neighbors"},
        {"simulate --steps 5 --fish -3" + out, "fishCount"},
        {"simulate --steps five" + out, "--steps"},
        {"simulate --steps 5 --bogus 1" + out, "bogus"},
        {"bench --steps 1 --fish 10,abc --csv " + path("b.csv"), "--fish"},
        {"bench --steps 1 --density sparse --csv " + path("b.csv"), "--density"},
        {"frobnicate", "subcommand"},
    };
    for (const Case& c : cases) {
        const CliRun run = cli(c.args);
        EXPECT_EQ(run.status, 2) << c.args << "\n" << run.err;
        EXPECT_THAT(run.err, HasSubstr(c.mustSay)) << c.args;
        EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << c.args << "\n" << run.err;
        EXPECT_EQ(outputFiles(), 0u) << c.args;
    }
}

TEST_F(Cli, BenchWritesOneRowPerCase) {
    const CliRun run =
        cli("bench --backend cpu,tbb --neighbors all-pairs,grid --fish 100,200 --steps 2 --warmup "
            "1 --csv " +
            path("bench.csv"));
    ASSERT_EQ(run.status, 0) << run.err;
    const std::string csv = read(path("bench.csv"));
    std::istringstream lines(csv);
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line,
              "backend,neighbors,fish,steps,ms_per_step,steps_per_s,fish_steps_per_s,pairs_per_s,"
              "mean_neighbors");
    int rows = 0;
    while (std::getline(lines, line)) {
        ++rows;
        EXPECT_THAT(line, ::testing::MatchesRegex("(cpu|tbb),(all-pairs|grid),(100|200),2,.*"));
    }
    EXPECT_EQ(rows, 8);
    EXPECT_THAT(run.out, HasSubstr("fish-steps/s"));
}

TEST_F(Cli, HelpOnEverySubcommand) {
    for (const char* args : {"--help", "simulate --help", "bench --help"}) {
        const CliRun run = cli(args);
        EXPECT_EQ(run.status, 0) << args;
        EXPECT_THAT(run.out, HasSubstr("--")) << args;
    }
}

}  // namespace
