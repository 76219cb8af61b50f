// fishschool-cli end to end, as a user runs it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "CliFixture.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

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
    write("twice.json", R"({"dt": 0.01, "dt": 0.02})");
    write("torus.json", R"({"boundary": "torus"})");
    write("small.json", R"({"bounds": [25, 20, 25], "rocks": []})");
    write("bad.csv", "x,y,z\n1,2,3\n");
    write("far.csv", "x,y,z,vx,vy,vz\n0,0,30,0,0,0\n");  // inside the default tank only
    write("zero.json", R"({"fishCount": 0})");
    const std::string out = " --state-out " + path("out.csv");
    const std::string csv = " --csv " + path("bench.csv");
    struct Case {
        std::string args;
        std::string mustSay;
    };
    const Case cases[] = {
        {"simulate --steps 5 --config " + path("bad.json") + out, "rCohesion"},
        {"simulate --steps 5 --config " + path("twice.json") + out, "'dt'"},
        {"simulate --steps 5 --config " + path("torus.json") + out,
         R"('boundary': '"torus"' is not allowed; must be "walls", "periodic" or "open")"},
        {"simulate --steps 5 --config " + path("missing.json") + out, "missing.json"},
        {"simulate --steps 5 --config ''" + out, "--config"},
        {"simulate --steps 5 --state-in " + path("bad.csv") + out, "bad.csv:1"},
        {"simulate --steps 5 --state-in " + path("missing.csv") + out, "missing.csv"},
        {"simulate --steps 5 --config " + path("small.json") + " --state-in " + path("far.csv") +
             out,
         "far.csv:2"},
        {"simulate --steps 5 --state-in " + path("far.csv") + " --fish 10" + out, "--fish"},
        {"simulate --steps 5 --state-in " + path("far.csv") + " --seed 10" + out, "--seed"},
        {"simulate --steps -1" + out, "--steps"},
        {"simulate --steps five" + out, "--steps"},
        {"simulate --steps ''" + out, "--steps: '' is not allowed; must be a whole number from 0"},
        {"simulate --steps 0x10" + out, "'0x10' is not allowed"},
        {"simulate --steps ' 5'" + out, "' 5' is not allowed"},
        {"simulate --steps 99999999999999999999" + out, "to 9223372036854775807"},
        {"simulate --steps 5 --config " + path("small.json") + " --state-out " + path("small.json"),
         "--state-out: '" + path("small.json") + "' is the same file as --config"},
        {"bench --steps 1 --fish 10 --config " + path("small.json") + " --csv " +
             path("../" + dir_.filename().string() + "/small.json"),
         "is the same file as --config"},
        {"bench --steps 1 --warmup 0x1 --fish 10" + csv, "--warmup: '0x1' is not allowed"},
        {"simulate --steps 5", "--state-out"},
        {"simulate --state-out " + path("out.csv"), "--steps"},
        {"simulate --steps 5 --backend quantum" + out, "--backend"},
        {"simulate --steps 5 --neighbors octree" + out, "--neighbors"},
        {"simulate --steps 5 --fish -3" + out, "fishCount"},
        {"simulate --steps 5 --fish 16000001" + out, "fishCount"},
        {"simulate --steps 5 --fish 2.5" + out, "--fish"},
        {"simulate --steps 5 --seed -1" + out, "--seed"},
        {"simulate --steps 5 --seed 18446744073709551616" + out, "--seed"},
        {"simulate --steps 5 --bogus 1" + out, "bogus"},
        {"simulate --steps 5 --state-out " + path("no-such-folder/out.csv"), "no-such-folder"},
        {"simulate --steps 5 --state-out " + dir_.string(), "folder"},
        {"simulate --steps 5 --metrics " + path("m.csv") + " --metrics-every 0", "--metrics-every"},
        {"simulate --steps 5 --metrics " + path("m.csv") + " --metrics-every -2",
         "--metrics-every"},
        {"simulate --steps 5 --metrics " + path("m.csv") + " --metrics-every 1.5",
         "--metrics-every"},
        {"simulate --steps 5 --metrics " + path("m.csv") + " --metrics-every x", "--metrics-every"},
        {"simulate --steps 5 --metrics-every 2" + out, "--metrics"},
        {"simulate --steps 5 --change-at 2" + out, "--change-config and --change-at go together"},
        {"simulate --steps 5 --change-config " + path("small.json") + out,
         "--change-config and --change-at go together"},
        {"simulate --steps 5 --change-config " + path("small.json") + " --change-at 6" + out,
         "--change-at: '6' is not allowed; must be a whole number from 0 to 5"},
        {"simulate --steps 5 --change-config " + path("small.json") + " --change-at ''" + out,
         "--change-at"},
        {"simulate --steps 5 --change-config " + path("small.json") + " --change-at ' 2'" + out,
         "--change-at: ' 2' is not allowed"},
        {"simulate --steps 5 --change-config " + path("bad.json") + " --change-at 2" + out,
         "--change-config: " + path("bad.json") + ": rCohesion"},
        {"simulate --steps 5 --change-config " + path("small.json") +
             " --change-at 2 --state-out " + path("small.json"),
         "--state-out: '" + path("small.json") + "' is the same file as --change-config"},
        {"simulate --steps 5 --metrics " + path("no-such-folder/m.csv"), "no-such-folder"},
        {"simulate --steps 5 --metrics ''", "--metrics"},
        {"bench --steps 1 --fish 10,abc" + csv, "--fish"},
        {"bench --steps 1 --fish 0" + csv, "--fish"},
        {"bench --steps 1 --fish 10,,20" + csv, "--fish"},
        {"bench --steps 1 --fish 10 --backend cpu,,tbb" + csv, "--backend"},
        {"bench --steps 1 --fish 10 --neighbors grid," + csv, "--neighbors"},
        {"bench --steps 1 --fish 10 --backend cpu,cuda" + csv, "--backend"},
        {"bench --steps 1 --fish 10 --neighbors grid,octree" + csv, "--neighbors"},
        {"bench --steps 1 --fish 10 --density sparse" + csv, "--density"},
        {"bench --steps 0 --fish 10" + csv, "--steps"},
        // Issue 33: a scene of no fish has no density to keep, not one fish's.
        {"bench --steps 1 --fish 10 --density fixed --config " + path("zero.json") + csv,
         "--density fixed: the config '" + path("zero.json") + "' has fishCount 0"},
        {"bench --steps 1 --warmup -1 --fish 10" + csv, "--warmup"},
        {"bench --steps 1 --fish 10 --config " + path("bad.json") + csv, "rCohesion"},
        {"bench --fish 10" + csv, "--steps"},
        {"bench --steps 1 --fish 10 --csv " + path("no-such-folder/b.csv"), "no-such-folder"},
        {"bench --steps 1 --fish 10 --csv " + dir_.string(), "folder"},
        {"phase --vary noise --from abc --to 1 --count 2 --steps 2" + csv,
         "--from: 'abc' is not allowed; must be a finite decimal number"},
        {"phase --vary noise --from 0 --to nan --count 2 --steps 2" + csv, "--to: 'nan'"},
        {"phase --vary noise --from 0 --to 1 --count 0 --steps 2" + csv, "--count"},
        {"phase --vary noise --from 0 --to 1 --count 2 --steps 0" + csv, "--steps"},
        {"phase --vary noise --from 0 --to 1 --count 2x --steps 2" + csv, "--count"},
        {"phase --vary colour --from 0 --to 1 --count 2 --steps 2" + csv,
         "--vary: 'colour' is not allowed"},
        {"phase --vary noise --from 0 --to 11 --count 2 --steps 2" + csv, "noise: 11"},
        {"phase --vary fishCount --from 1 --to 2 --count 3 --steps 2" + csv, "whole numbers"},
        // Issue 33: past 2^53 a double is not the seed typed; the refusal says so.
        {"phase --vary seed --from 9007199254740992 --to 9007199254740993 --count 2 --steps 2" +
             csv,
         "--vary seed = 9007199254740992 is not allowed; a varied value is a double, which cannot "
         "hold every whole number above 2^53, so whole numbers vary up to 9007199254740991"},
        {"phase --vary orientation-width --from -9 --to 1 --count 2 --steps 2" + csv,
         "--vary orientation-width = -9: rCohesion: -6.5 is not allowed"},
        {"phase --vary noise --from 0 --to 1 --count 2 --steps 2", "--csv"},
        {"phase --vary noise --from 0 --to 1 --count 2 --steps 2 --csv " +
             path("no-such-folder/p.csv"),
         "no-such-folder"},
        {"phase --vary noise --from 0 --to 1 --count 2 --steps 2 --backend quantum" + csv,
         "--backend"},
        {"phase --vary noise --from 0 --to 1 --count 2 --steps 2 --config " + path("bad.json") +
             csv,
         "rCohesion"},
        {"frobnicate", "unknown command 'frobnicate'; the commands are simulate, bench, phase"},
        // A misspelt flag is named with the flag meant, before the errors it causes ("--steps
        // is required", "not expected: 5 --step").
        {"simulate --steps 5 --sate-out " + path("o.csv"),
         "unknown flag '--sate-out'; did you mean --state-out? (see fishschool-cli simulate "
         "--help)"},
        {"simulate --step 5" + out, "unknown flag '--step'; did you mean --steps?"},
        {"bench --fsh=10" + csv, "unknown flag '--fsh'; did you mean --fish?"},
        {"ensemble run e.json --ou dir",
         "unknown flag '--ou'; did you mean --out? (see "
         "fishschool-cli ensemble run --help)"},
        {"simulate --steps 5 --frobnicate-everything 1" + out,
         "unknown flag '--frobnicate-everything' (see fishschool-cli simulate --help)"},
        {"", "subcommand"},
    };
    for (const Case& c : cases) {
        const std::set<std::string> before = listing();
        const CliRun run = cli(c.args);
        EXPECT_EQ(run.status, 2) << c.args << "\n" << run.err;
        EXPECT_THAT(run.err, HasSubstr(c.mustSay)) << c.args;
        EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << c.args << "\n" << run.err;
        EXPECT_TRUE(run.out.empty()) << c.args << "\n" << run.out;
        EXPECT_EQ(listing(), before) << c.args;
    }
}

TEST_F(Cli, PhaseWritesARowPerValueAndDirection) {
    write("couzin.json", R"({"fishCount": 40, "steering": "couzin", "rSeparation": 1,
                             "rAlignment": 2, "rCohesion": 16, "dt": 0.1, "maxTurnRate": 40,
                             "bounds": [15, 15, 15], "rocks": []})");
    const std::string common = "phase --config " + path("couzin.json") +
                               " --vary orientation-width --from 0 --to 2 --count 3 --steps 6";
    CliRun run = cli(common + " --csv " + path("fresh.csv"));
    ASSERT_EQ(run.status, 0) << run.err;
    const std::string fresh = read(path("fresh.csv"));
    EXPECT_EQ(std::count(fresh.begin(), fresh.end(), '\n'), 4);
    EXPECT_THAT(fresh, ::testing::StartsWith("value,direction,polarization,milling\n0,fresh,"));
    EXPECT_THAT(fresh, HasSubstr("\n2,fresh,"));

    run = cli(common + " --hysteresis --backend tbb --csv " + path("loop.csv"));
    ASSERT_EQ(run.status, 0) << run.err;
    const std::string loop = read(path("loop.csv"));
    EXPECT_EQ(std::count(loop.begin(), loop.end(), '\n'), 6);
    EXPECT_THAT(loop, HasSubstr("\n0,up,"));
    EXPECT_THAT(loop, HasSubstr("\n2,up,"));
    EXPECT_THAT(loop, HasSubstr("\n1,down,"));
    auto lineAfter = [](const std::string& text, const std::string& start) {
        const std::size_t at = text.find(start) + start.size();
        return text.substr(at, text.find('\n', at) - at);
    };
    EXPECT_EQ(loop.substr(loop.rfind('\n', loop.size() - 2) + 1, 7), "0,down,");
    // The loop's first value starts from the fresh run's school (and tbb steps as cpu does).
    EXPECT_EQ(lineAfter(fresh, "\n0,fresh,"), lineAfter(loop, "\n0,up,"));
}

// Issue 33: every row of --vary seed ran the config's seed.
TEST_F(Cli, PhaseVarySeedRunsEachRowWithItsSeed) {
    const std::string school = R"("fishCount": 30, "noise": 0.2, "bounds": [10, 10, 10],
                                   "rocks": [])";
    write("seed0.json", "{" + school + R"(, "seed": 0})");
    const std::string common = " --steps 4 --config ";
    ASSERT_EQ(cli("phase --vary seed --from 5 --to 6 --count 2 --csv " + path("seeds.csv") +
                  common + path("seed0.json"))
                  .status,
              0);
    ASSERT_EQ(cli("phase --vary seed --from 20000001 --to 20000001 --count 1 --csv " +
                  path("big.csv") + common + path("seed0.json"))
                  .status,
              0);
    const std::string seeds = read(path("seeds.csv")), big = read(path("big.csv"));
    auto measures = [](const std::string& csv, const std::string& row) {
        const std::size_t at = csv.find("\n" + row);
        EXPECT_NE(at, std::string::npos) << row << " in\n" << csv;
        const std::size_t start = at + 1 + row.size();
        return csv.substr(start, csv.find('\n', start) - start);
    };
    // Each row is what a config with that seed gives.
    for (const std::string seed : {"5", "6", "20000001"}) {
        write("seed" + seed + ".json", "{" + school + ", \"seed\": " + seed + "}");
        ASSERT_EQ(cli("phase --vary noise --from 0.2 --to 0.2 --count 1 --csv " +
                      path("alone.csv") + common + path("seed" + seed + ".json"))
                      .status,
                  0);
        EXPECT_EQ(measures(seed == "20000001" ? big : seeds, seed + ",fresh,"),
                  measures(read(path("alone.csv")), "0.2,fresh,"))
            << seed;
    }
    EXPECT_NE(measures(seeds, "5,fresh,"), measures(seeds, "6,fresh,"));
}

TEST_F(Cli, AStateFileCanBeReadAndReplacedInOneRun) {
    ASSERT_EQ(cli("simulate --fish 50 --steps 1 --state-out " + path("s.csv")).status, 0);
    const std::string before = read(path("s.csv"));
    const CliRun run =
        cli("simulate --steps 2 --state-in " + path("s.csv") + " --state-out " + path("s.csv"));
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_NE(read(path("s.csv")), before);
}

TEST_F(Cli, MetricsAreWrittenAtStepZeroThenEveryNSteps) {
    const CliRun run =
        cli("simulate --fish 300 --steps 10 --metrics-every 4 --metrics " + path("m.csv"));
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(listing(), std::set<std::string>{"m.csv"});  // no temporary file left
    std::istringstream text(read(path("m.csv")));
    std::vector<std::string> lines;
    for (std::string line; std::getline(text, line);) lines.push_back(line);
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0],
              "step,time_s,polarization,milling,nearest_neighbor_m,neighbors,direction_error,"
              "groups,largest_group_share,rotation,state,dispersion_m,wall_distance_m,wall_angle,"
              "centre_wall_distance_m,centre_wall_angle");
    const double dt = 1.0 / 60.0;
    for (std::size_t row = 1; row < lines.size(); ++row) {
        std::istringstream fields(lines[row]);
        std::vector<double> values;
        // No informed fish: no direction error (NaN here, an empty field).
        for (std::string field; std::getline(fields, field, ',');)
            values.push_back(field.empty() ? std::nan("") : std::stod(field));
        ASSERT_EQ(values.size(), 16u) << lines[row];
        EXPECT_TRUE(std::isnan(values[6])) << lines[row];
        EXPECT_GE(values[7], 1.0) << "groups";
        EXPECT_GT(values[8], 0.0) << "the largest group's share";
        EXPECT_LE(values[8], 1.0) << "the largest group's share";
        const double step = 4.0 * static_cast<double>(row - 1);
        EXPECT_EQ(values[0], step);
        EXPECT_NEAR(values[1], step * dt, 1e-6);
        EXPECT_GE(values[2], 0.0);
        EXPECT_LE(values[2], 1.0);
        EXPECT_GT(values[4], 0.0);  // 300 fish are apart
    }
    // The default school starts disordered: the first row says so.
    EXPECT_LT(std::stod(lines[1].substr(lines[1].find(',', 2) + 1)), 0.3);
    // Without --metrics-every a row per step.
    ASSERT_EQ(cli("simulate --fish 50 --steps 3 --metrics " + path("all.csv")).status, 0);
    const std::string all = read(path("all.csv"));
    EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 5);
}

TEST_F(Cli, TheSeedChoosesTheSchool) {
    for (const char* name : {"a", "b", "c"}) {
        const std::string seed = name[0] == 'c' ? "4" : "3";
        ASSERT_EQ(cli("simulate --fish 100 --steps 3 --seed " + seed + " --state-out " +
                      path(std::string(name) + ".csv"))
                      .status,
                  0);
    }
    EXPECT_EQ(read(path("a.csv")), read(path("b.csv")));
    EXPECT_NE(read(path("a.csv")), read(path("c.csv")));
}

TEST_F(Cli, TheExampleConfigsRun) {
    std::size_t count = 0;
    for (const auto& entry :
         fs::directory_iterator(fs::path(FISHSCHOOL_SOURCE_DIR) / "docs" / "examples")) {
        if (entry.path().extension() != ".json") continue;
        // Ensemble files and fit files are not configs.
        const std::string text = read(entry.path().string());
        if (text.find("\"axes\"") != std::string::npos ||
            text.find("\"parameters\"") != std::string::npos)
            continue;
        ++count;
        const CliRun run = cli("simulate --config " + entry.path().string() +
                               " --fish 200 --steps 2 --state-out " + path("example.csv"));
        EXPECT_EQ(run.status, 0) << entry.path() << "\n" << run.err;
    }
    EXPECT_GE(count, 2u);
}

const char* kBenchHeader =
    "backend,neighbors,fish,steps,ms_per_step,steps_per_s,fish_steps_per_s,pairs_per_s,"
    "mean_neighbors";

/// The rows of a CSV file, split at commas; the first row is the header.
std::vector<std::vector<std::string>> csvRows(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        std::vector<std::string> fields;
        std::istringstream cells(line);
        std::string cell;
        while (std::getline(cells, cell, ',')) fields.push_back(cell);
        rows.push_back(fields);
    }
    return rows;
}

TEST_F(Cli, BenchWritesOneRowPerCase) {
    const CliRun run =
        cli("bench --backend cpu,tbb --neighbors all-pairs,grid --fish 100,200 --steps 3 --warmup "
            "1 --csv " +
            path("bench.csv"));
    ASSERT_EQ(run.status, 0) << run.err;
    const std::string csv = read(path("bench.csv"));
    EXPECT_EQ(csv.substr(0, csv.find('\n')), kBenchHeader);
    const auto rows = csvRows(csv);
    ASSERT_EQ(rows.size(), 9u);
    std::size_t r = 1;
    for (const char* backend : {"cpu", "tbb"}) {
        for (const char* search : {"all-pairs", "grid"}) {
            for (const double n : {100.0, 200.0}) {
                const auto& row = rows[r++];
                ASSERT_EQ(row.size(), 9u) << csv;
                EXPECT_EQ(row[0], backend);
                EXPECT_EQ(row[1], search);
                EXPECT_EQ(std::stod(row[2]), n);
                EXPECT_EQ(row[3], "3");
                const double ms = std::stod(row[4]), stepsPerSecond = std::stod(row[5]);
                EXPECT_GT(ms, 0.0);
                EXPECT_NEAR(stepsPerSecond * ms / 1000.0, 1.0, 1e-4) << csv;
                EXPECT_NEAR(std::stod(row[6]) / (stepsPerSecond * n), 1.0, 1e-4) << csv;
                const double pairsPerStep = std::stod(row[7]) / stepsPerSecond;
                if (std::string(search) == "all-pairs")
                    EXPECT_NEAR(pairsPerStep / (n * (n - 1)), 1.0, 1e-4) << csv;
                else
                    EXPECT_LT(pairsPerStep, n * (n - 1)) << csv;
                EXPECT_GE(std::stod(row[8]), 0.0);
            }
        }
    }
    // The table: a header and one line per case.
    EXPECT_THAT(run.out, HasSubstr("fish-steps/s"));
    EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 9) << run.out;
}

// The CSV wrote 1038 mean neighbours where the table showed 1038.4.
TEST_F(Cli, BenchCsvHoldsTheDigitsTheTableShows) {
    write("dense.json", R"({"rCohesion": 50})");  // over a thousand neighbours a fish
    const CliRun run = cli("bench --config " + path("dense.json") +
                           " --backend tbb --fish 2000 --steps 1 --warmup 0 --density tank --csv " +
                           path("bench.csv"));
    ASSERT_EQ(run.status, 0) << run.err;
    const auto rows = csvRows(read(path("bench.csv")));
    ASSERT_EQ(rows.size(), 2u);
    ASSERT_EQ(rows[1].size(), 9u);
    const double csvNeighbors = std::stod(rows[1][8]);
    ASSERT_GT(csvNeighbors, 1000.0) << "the test needs a neighbour count of four digits";
    char rounded[32];
    std::snprintf(rounded, sizeof rounded, "%.1f", csvNeighbors);
    const std::string table = run.out.substr(0, run.out.find_last_not_of('\n') + 1);
    EXPECT_EQ(table.substr(table.find_last_of(' ') + 1), rounded) << run.out << rows[1][8];
}

TEST_F(Cli, BenchTakesTheSearchFromTheConfigAndScalesTheTank) {
    write("config.json", R"({"neighborSearch": "all-pairs"})");
    const CliRun run =
        cli("bench --backend tbb --fish 50,400 --steps 1 --warmup 0 --density fixed "
            "--config " +
            path("config.json") + " --csv " + path("bench.csv"));
    ASSERT_EQ(run.status, 0) << run.err;
    const auto rows = csvRows(read(path("bench.csv")));
    ASSERT_EQ(rows.size(), 3u);
    for (std::size_t r = 1; r < rows.size(); ++r) {
        EXPECT_EQ(rows[r][0], "tbb");
        EXPECT_EQ(rows[r][1], "all-pairs");
    }
    // Fixed density: 8 times the fish in 8 times the volume keep about the same neighbours,
    // where the same tank would hold 8 times as many.
    const double few = std::stod(rows[1][8]), many = std::stod(rows[2][8]);
    EXPECT_LT(many, 4.0 * few + 1.0);
}

TEST_F(Cli, CheckTestsEveryStepAndWritesTheSameSchool) {
    write("config.json", R"({"fishCount": 400, "seed": 3, "kAvoidance": 2, "kTarget": 1,
                             "targetPath": "flow-field", "target": [10, -5, 8]})");
    const std::string common =
        "simulate --config " + path("config.json") + " --backend tbb --steps 120 --state-out ";
    const CliRun checked = cli(common + path("checked.csv") + " --check");
    ASSERT_EQ(checked.status, 0) << checked.err;
    ASSERT_EQ(cli(common + path("plain.csv")).status, 0);
    EXPECT_EQ(read(path("checked.csv")), read(path("plain.csv")));
}

/// The rows of a state CSV as numbers, the header left out.
std::vector<std::vector<double>> stateRows(const std::string& text) {
    std::vector<std::vector<double>> rows;
    for (const auto& row : csvRows(text)) {
        if (row.at(0) == "x") continue;
        std::vector<double> values;
        for (const std::string& field : row) values.push_back(std::stod(field));
        rows.push_back(values);
    }
    return rows;
}

// --change-config: the panel's live changes, from the command line (and so in the soak).
TEST_F(Cli, AChangeMidRunTakesTheSchoolOnAsThePanelDoes) {
    write("a.json", R"({"fishCount": 300, "seed": 9})");
    write("weights.json", R"({"fishCount": 300, "seed": 9, "kCohesion": 0.2, "kAlignment": 6,
                              "maxVelocity": 5, "neighborSearch": "all-pairs"})");
    const std::string a = "simulate --config " + path("a.json");
    const auto near = [](const std::string& x, const std::string& y) {
        const auto p = stateRows(x), q = stateRows(y);
        if (p.size() != q.size()) return false;
        for (std::size_t r = 0; r < p.size(); ++r)
            for (std::size_t k = 0; k < 6; ++k)
                if (std::abs(p[r][k] - q[r][k]) > 1e-5 * std::max(1.0, std::abs(q[r][k])))
                    return false;
        return true;
    };
    ASSERT_EQ(cli(a + " --steps 10 --state-out " + path("ten.csv")).status, 0);
    ASSERT_EQ(cli(a + " --steps 11 --state-out " + path("unchanged.csv")).status, 0);
    ASSERT_EQ(cli("simulate --config " + path("weights.json") + " --steps 1 --state-in " +
                  path("ten.csv") + " --state-out " + path("two-runs.csv"))
                  .status,
              0);
    for (const char* backend : {"cpu", "tbb"}) {
        // Weights, limits and the search leave the school as it is ...
        const std::string change =
            " --backend " + std::string(backend) + " --change-config " + path("weights.json");
        ASSERT_EQ(
            cli(a + change + " --steps 10 --change-at 10 --state-out " + path("at.csv")).status, 0);
        EXPECT_EQ(read(path("at.csv")), read(path("ten.csv"))) << backend;
        // ... and the next step follows the new rule, as if the school had been written out at
        // the change and read back (up to the order of the sums: the search changed).
        const CliRun changed = cli(a + change + " --steps 11 --change-at 10 --check --state-out " +
                                   path("changed.csv"));
        ASSERT_EQ(changed.status, 0) << changed.err;
        EXPECT_TRUE(near(read(path("changed.csv")), read(path("two-runs.csv")))) << backend;
        EXPECT_FALSE(near(read(path("changed.csv")), read(path("unchanged.csv")))) << backend;
    }

    // A smaller tank with a rock in the middle and more fish: every fish ends in the new scene,
    // the ones it left outside moved in, the new ones added, at the change and after it.
    write("scene.json", R"({"fishCount": 500, "seed": 9, "bounds": [10, 8, 10],
                            "rocks": [{"center": [0, 0, 0], "radius": 4}]})");
    for (const char* at : {"10", "30"}) {
        const CliRun run = cli(a + " --steps 30 --check --change-at " + at + " --change-config " +
                               path("scene.json") + " --state-out " + path("scene.csv"));
        ASSERT_EQ(run.status, 0) << run.err;
        const auto rows = stateRows(read(path("scene.csv")));
        ASSERT_EQ(rows.size(), 500u) << at;
        for (const auto& f : rows) {
            EXPECT_LE(std::abs(f[0]), 10.0);
            EXPECT_LE(std::abs(f[1]), 8.0);
            EXPECT_LE(std::abs(f[2]), 10.0);
            EXPECT_GE(std::hypot(f[0], f[1], f[2]), 4.0 - 1e-5) << "a fish inside the rock";
        }
    }
}

#ifdef FISHSCHOOL_CLI_HAS_GPU
TEST_F(Cli, TheGpuBackendAgreesWithTheCpu) {
    const std::string common = "simulate --fish 500 --seed 7 --steps 1 --state-out ";
    const CliRun gpu = cli(common + path("gpu.csv") + " --backend gpu");
    if (gpu.status == 2 && gpu.err.starts_with("error: gpu: "))
        GTEST_SKIP() << "no GL context here: " << gpu.err;
    ASSERT_EQ(gpu.status, 0) << gpu.err;
    EXPECT_THAT(gpu.err, HasSubstr("GL renderer: "));
    ASSERT_EQ(cli(common + path("cpu.csv") + " --backend cpu").status, 0);
    const auto g = csvRows(read(path("gpu.csv"))), c = csvRows(read(path("cpu.csv")));
    ASSERT_EQ(g.size(), 501u);
    ASSERT_EQ(c.size(), 501u);
    for (std::size_t r = 1; r < g.size(); ++r)
        for (std::size_t k = 0; k < 6; ++k) {
            const double a = std::stod(g[r][k]), b = std::stod(c[r][k]);
            EXPECT_LE(std::abs(a - b), 1e-4 * std::max(1.0, std::abs(b))) << "row " << r;
        }

    const CliRun bench =
        cli("bench --backend gpu --fish 100 --steps 2 --warmup 1 --csv " + path("bench.csv"));
    ASSERT_EQ(bench.status, 0) << bench.err;
    const auto rows = csvRows(read(path("bench.csv")));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1][0], "gpu");
    // A GL that draws on the CPU (llvmpipe, where no GPU is) is named as such beside its figures.
    const bool software = bench.err.find("llvmpipe") != std::string::npos ||
                          bench.err.find("softpipe") != std::string::npos;
    EXPECT_EQ(bench.err.find("the GL here is software") != std::string::npos, software)
        << bench.err;
}

TEST_F(Cli, ASchoolOverTheGpuLimitIsExitStatus1NamingTheCountAndTheLimit) {
    // The GPU's limit lowered to 1,000 fish (2 copies of 48 bytes each), so that no gigabytes are
    // needed to pass it; the count is checked before anything is allocated.
    ::setenv("FISHSCHOOL_GPU_MAX_BUFFER_BYTES", "96000", 1);
    const CliRun over =
        cli("simulate --backend gpu --fish 1001 --steps 5 --state-out " + path("g.csv"));
    const CliRun bench = cli("bench --backend cpu,gpu --fish 100,1001 --steps 1 --warmup 0");
    const CliRun fits =
        cli("simulate --backend gpu --fish 1000 --steps 1 --state-out " + path("f.csv"));
    ::unsetenv("FISHSCHOOL_GPU_MAX_BUFFER_BYTES");
    if (over.status == 2 && over.err.starts_with("error: gpu: "))
        GTEST_SKIP() << "no GL context here: " << over.err;
    EXPECT_EQ(over.status, 1) << over.err;
    EXPECT_THAT(over.err, HasSubstr("1001 fish"));
    EXPECT_THAT(over.err, HasSubstr("at most 96000 (FISHSCHOOL_GPU_MAX_BUFFER_BYTES)"));
    EXPECT_FALSE(fs::exists(path("g.csv")));
    // bench checks its largest school on every backend before the first case runs.
    EXPECT_EQ(bench.status, 1) << bench.err;
    EXPECT_THAT(bench.err, HasSubstr("1001 fish"));
    EXPECT_THAT(bench.out, ::testing::Not(HasSubstr("cpu ")));
    EXPECT_EQ(fits.status, 0) << fits.err;
}
#else
TEST_F(Cli, TheGpuBackendIsAClearErrorWithoutTheGlLibrary) {
    const CliRun run = cli("simulate --steps 1 --backend gpu --state-out " + path("g.csv"));
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.err, HasSubstr("gpu"));
    EXPECT_FALSE(fs::exists(path("g.csv")));
}
#endif

TEST_F(Cli, HelpOnEverySubcommand) {
    const std::pair<const char*, const char*> cases[] = {{"--help", "simulate"},
                                                         {"simulate --help", "--state-out"},
                                                         {"bench --help", "--density"},
                                                         {"--version", "fishschool-cli 0."}};
    for (const auto& [args, mustSay] : cases) {
        const CliRun run = cli(args);
        EXPECT_EQ(run.status, 0) << args;
        EXPECT_THAT(run.out, HasSubstr(mustSay)) << args;
    }
}

}  // namespace
