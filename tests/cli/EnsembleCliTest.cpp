// fishschool-cli ensemble run|status|merge end to end: the merged CSV is the same bytes whatever
// the jobs, shards, kills and retries; bad input is refused before anything is written.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "CliFixture.h"

namespace {

using ::testing::HasSubstr;

/// 2 x 2 points x 3 replicates of 20 fish for 30 steps: 12 runs of a few milliseconds.
constexpr const char* kEnsemble = R"({
  "base": {"fishCount": 20, "steering": "couzin", "rSeparation": 1, "rAlignment": 2,
           "rCohesion": 10, "dt": 0.1, "maxTurnRate": 40, "noise": 0.05,
           "bounds": [10, 10, 10], "rocks": []},
  "axes": {"orientation-width": [0, 4], "attraction-width": {"from": 2, "to": 8, "count": 2}},
  "replicates": 3, "steps": 30, "seed": 11, "measure": {"last": 10}
})";

std::size_t lines(const std::string& text) {
    return std::size_t(std::count(text.begin(), text.end(), '\n'));
}

class Ensemble : public Cli {
  protected:
    void SetUp() override {
        Cli::SetUp();
        write("e.json", kEnsemble);
    }
    /// Runs `args` (after "ensemble run e.json --out DIR") and merges DIR; returns the merged CSV.
    std::string runAndMerge(const std::string& dir, const std::string& args = "") {
        const CliRun run = cli("ensemble run " + path("e.json") + " --out " + path(dir) + args);
        EXPECT_EQ(run.status, 0) << args << "\n" << run.err;
        const CliRun merge = cli("ensemble merge " + path(dir) + " --csv " + path(dir + ".csv"));
        EXPECT_EQ(merge.status, 0) << merge.err;
        return read(path(dir + ".csv"));
    }
    /// The rows of every part file of `dir`, headers left out.
    std::size_t partRows(const std::string& dir) const {
        std::size_t rows = 0;
        for (const auto& entry : fs::directory_iterator(path(dir)))
            if (entry.path().filename().string().starts_with("part-"))
                rows += lines(read(entry.path().string())) - 1;
        return rows;
    }
};

// A missing base config, from an ensemble file given by a relative path, was named
// by that relative path only: the error now says where it was looked for.
TEST_F(Ensemble, AMissingBaseIsNamedByThePathItWasLookedFor) {
    write("e.json", R"({"base": "nothere.json", "axes": {"kCohesion": [1, 2]}})");
    const std::string relative = fs::relative(path("e.json")).string();
    ASSERT_FALSE(fs::path(relative).is_absolute());
    const CliRun run = cli("ensemble run " + relative + " --out " + path("out"));
    EXPECT_EQ(run.status, 2) << run.err;
    EXPECT_THAT(run.err, HasSubstr(path("nothere.json")));
    EXPECT_THAT(run.err, HasSubstr("read from the ensemble file's folder"));
}

TEST_F(Ensemble, TheMergedCsvIsTheSameWhateverTheJobsAndShards) {
    const std::string one = runAndMerge("one", " --jobs 1");
    EXPECT_EQ(lines(one), 13u);
    EXPECT_THAT(one, ::testing::StartsWith(
                         "run,orientation-width,attraction-width,replicate,seed,status,steps,"
                         "polarization,milling,nearest_neighbor_m,neighbors,direction_error,"
                         "groups,largest_group_share,rotation,state,dispersion_m,wall_distance_m,"
                         "wall_angle,centre_wall_distance_m,centre_wall_angle,"
                         "message\n0,0,2,0,"));
    // Runs by index; the first axis varies slowest, the replicates fastest.
    EXPECT_THAT(one, HasSubstr("\n3,0,8,0,"));
    EXPECT_THAT(one, HasSubstr("\n11,4,8,2,"));
    EXPECT_EQ(runAndMerge("two", " --jobs 2"), one);
    for (const char* shard : {"2/3", "0/3", "1/3"})
        cli("ensemble run " + path("e.json") + " --out " + path("shards") + " --jobs 2 --shard " +
            shard);
    const CliRun merge = cli("ensemble merge " + path("shards") + " --csv " + path("s.csv"));
    ASSERT_EQ(merge.status, 0) << merge.err;
    EXPECT_EQ(read(path("s.csv")), one);
    // Any run alone, to the same bits: run 7's row.
    const std::string alone = runAndMerge("alone", " --only 7");
    const std::size_t at = one.find("\n7,") + 1;
    EXPECT_EQ(alone.substr(alone.find('\n') + 1), one.substr(at, one.find('\n', at) + 1 - at));
    // The measures are the school's: different seeds, different schools.
    EXPECT_NE(one.substr(one.find("\n0,"), 40), one.substr(one.find("\n1,"), 40));
}

TEST_F(Ensemble, TheSummaryHasARowPerPointWithItsAccuracy) {
    // Half of 20 fish informed (along x), or none: the first point whole, 3 of 4 of the second.
    write("informed.json", R"({
      "base": {"fishCount": 20, "steering": "couzin", "rSeparation": 1, "rAlignment": 6,
               "rCohesion": 6, "dt": 0.2, "maxVelocity": 1, "noise": 0.01, "startRadius": 3,
               "bounds": [30, 30, 30], "rocks": [], "species": [
                 {"name": "informed", "count": 4, "kPreferred": 0.5,
                  "preferredDirection": [1, 0, 0]}, {"name": "naive", "count": 16}]},
      "axes": {"species[0].share": [0.5, 0]}, "replicates": 4, "steps": 100, "seed": 3})");
    const CliRun run = cli("ensemble run " + path("informed.json") + " --out " + path("i") +
                           " --only 0,1,2,3,4,5,6");
    ASSERT_EQ(run.status, 0) << run.err;
    const CliRun merge = cli("ensemble merge " + path("i") + " --csv " + path("i.csv") +
                             " --summary " + path("s.csv"));
    ASSERT_EQ(merge.status, 0) << merge.err;
    const std::string summary = read(path("s.csv"));
    ASSERT_EQ(lines(summary), 3u) << summary;
    EXPECT_THAT(summary, ::testing::StartsWith(
                             "species[0].share,runs,ok,polarization,milling,nearest_neighbor_m,"
                             "neighbors,direction_error,groups,largest_group_share,rotation,state,"
                             "dispersion_m,wall_distance_m,wall_angle,centre_wall_distance_m,"
                             "centre_wall_angle,accuracy\n"
                             "0.5,4,4,"));
    // No fish informed at share 0: neither a direction error nor an accuracy (the last field).
    EXPECT_THAT(summary, HasSubstr("\n0,3,3,"));
    EXPECT_TRUE(summary.ends_with(",\n")) << summary;
    const std::string last = summary.substr(summary.rfind('\n', summary.size() - 2) + 1);
    EXPECT_THAT(last, ::testing::MatchesRegex("0,3,3,[^,]+,[^,]+,[^,]+,[^,]+,,[^,]+,[^,]+,[^,]+,"
                                              "[^,]+,[^,]+,[^,]+,[^,]+,[^,]+,[^,]+,\n"));
    const std::string first = summary.substr(summary.find('\n') + 1);
    const double accuracy = std::stod(first.substr(first.rfind(',', first.find('\n')) + 1));
    EXPECT_GT(accuracy, 0.5);
    EXPECT_LE(accuracy, 1.0);
    // The summary is an output as the others: never the CSV's file.
    const CliRun same = cli("ensemble merge " + path("i") + " --csv " + path("i.csv") +
                            " --summary " + path("i.csv"));
    EXPECT_EQ(same.status, 2) << same.err;
}

// The rate of the first progress line divided one run by the time since that run's own report,
// a fraction of a microsecond: "1.06e+07 runs/s". Each line's rate now counts from the start.
TEST_F(Ensemble, EveryProgressLineHasARateOfRunsSinceTheStart) {
    const CliRun run =
        cli("ensemble run " + path("e.json") + " --out " + path("rate") + " --jobs 1");
    ASSERT_EQ(run.status, 0) << run.err;
    std::size_t rates = 0;
    for (std::size_t at = run.err.find(" runs/s"); at != std::string::npos;
         at = run.err.find(" runs/s", at + 1)) {
        const std::size_t from = run.err.rfind(", ", at) + 2;
        const double rate = std::stod(run.err.substr(from, at - from));
        // A run of 20 fish for 30 steps, its row written, takes far more than 10 microseconds.
        EXPECT_LT(rate, 1e5) << run.err;
        EXPECT_GT(rate, 0.0) << run.err;
        ++rates;
    }
    EXPECT_GE(rates, 2u) << run.err;  // a line at each tenth of the 12 runs
}

TEST_F(Ensemble, AKilledRunResumesIgnoringATornLastLine) {
    const std::string whole = runAndMerge("whole", " --jobs 2");
    // Killed at some moment (before, during or after the runs), then a row cut mid-write.
    std::system(("timeout -s KILL 0.05 " + std::string(FISHSCHOOL_CLI_PATH) + " ensemble run " +
                 path("e.json") + " --out " + path("killed") + " --jobs 2 2>/dev/null")
                    .c_str());
    fs::create_directories(path("killed"));
    std::ofstream(path("killed/part-0of1-w0.csv"), std::ios::app) << "5,0,8,2,1234,o";
    const CliRun status = cli("ensemble status " + path("killed"));
    EXPECT_EQ(status.status, status.err.empty() ? 0 : 2) << status.err;
    const CliRun resume =
        cli("ensemble run " + path("e.json") + " --out " + path("killed") + " --jobs 2");
    ASSERT_EQ(resume.status, 0) << resume.err;
    EXPECT_EQ(partRows("killed"), 12u);  // each run once: the finished ones were skipped
    ASSERT_EQ(cli("ensemble merge " + path("killed") + " --csv " + path("k.csv")).status, 0);
    EXPECT_EQ(read(path("k.csv")), whole);
    // Once all are done, the same command runs nothing.
    const CliRun again = cli("ensemble run " + path("e.json") + " --out " + path("killed"));
    EXPECT_EQ(again.status, 0);
    EXPECT_THAT(again.err, HasSubstr("all 12 runs of shard 0/1 are done"));
    EXPECT_EQ(partRows("killed"), 12u);
}

TEST_F(Ensemble, KillNineMidRunLosesOnlyTheRunsInFlight) {
    // 60 runs of some milliseconds each, killed once 6 rows are in.
    write("long.json", R"({"base": {"fishCount": 20, "rocks": []}, "axes": {},
                           "replicates": 60, "steps": 1500, "seed": 3})");
    const std::string run = std::string(FISHSCHOOL_CLI_PATH) + " ensemble run " +
                            path("long.json") + " --jobs 2 --out ";
    const std::string killer =
        run + path("killed") + " 2>/dev/null & pid=$!; until [ \"$(cat " + path("killed") +
        "/part-*.csv 2>/dev/null | wc -l)\" -ge 8 ] || ! kill -0 $pid; do sleep 0.01; done; "
        "kill -9 $pid; wait $pid";
    std::system(("bash -c '" + killer + "'").c_str());
    const std::size_t kept = partRows("killed");
    EXPECT_GE(kept, 6u);
    EXPECT_LT(kept, 60u);
    ASSERT_EQ(std::system((run + path("killed") + " 2>/dev/null").c_str()), 0);
    EXPECT_EQ(partRows("killed"), 60u);  // the kept rows were not run again
    ASSERT_EQ(std::system((run + path("whole") + " 2>/dev/null").c_str()), 0);
    for (const char* dir : {"killed", "whole"})
        ASSERT_EQ(
            cli("ensemble merge " + path(dir) + " --csv " + path(dir + std::string(".csv"))).status,
            0);
    EXPECT_EQ(read(path("killed.csv")), read(path("whole.csv")));
}

TEST_F(Ensemble, AFailedRunIsARowAndRetryFailedRunsItAgain) {
    const std::string whole = runAndMerge("whole");
    const CliRun run = cli("ensemble run " + path("e.json") + " --out " + path("f") +
                           " --jobs 2");  // the fixture's cli() does not take an environment
    ASSERT_EQ(run.status, 0);
    fs::remove_all(path("f"));
    const std::string withFaults = "FISHSCHOOL_FAULT_RUNS=3,8 " + std::string(FISHSCHOOL_CLI_PATH) +
                                   " ensemble run " + path("e.json") + " --out " + path("f") +
                                   " 2>" + path("faults.txt");
    // A failed run fails the call (exit 1) as it would fail `simulate`; the others are rows.
    const int raw = std::system(withFaults.c_str());
    ASSERT_TRUE(WIFEXITED(raw));
    EXPECT_EQ(WEXITSTATUS(raw), 1);
    EXPECT_THAT(read(path("faults.txt")),
                HasSubstr("error: 2 of 12 runs failed; their rows say why"));
    const CliRun status = cli("ensemble status " + path("f"));
    EXPECT_THAT(status.out, HasSubstr("done 10, failed 2, left 0"));
    EXPECT_THAT(status.out, HasSubstr("failed: run 3 (orientation-width = 0, attraction-width = "
                                      "8, replicate 0): a fault injected"));
    ASSERT_EQ(cli("ensemble merge " + path("f") + " --csv " + path("f.csv")).status, 0);
    EXPECT_THAT(read(path("f.csv")),
                HasSubstr(",failed,30,,,,,,,,,,,,,,,\"a fault injected by FISHSCHOOL_FAULT_RUNS\"\n"));
    // Without --retry-failed a failed run counts as done; with it, it runs again.
    const CliRun done = cli("ensemble run " + path("e.json") + " --out " + path("f"));
    EXPECT_EQ(done.status, 0);
    EXPECT_THAT(done.err, HasSubstr("are done"));
    const CliRun retry =
        cli("ensemble run " + path("e.json") + " --out " + path("f") + " --retry-failed");
    ASSERT_EQ(retry.status, 0) << retry.err;
    EXPECT_THAT(retry.err, HasSubstr("12/12 runs done, 0 failed"));  // a line, not a \r
    EXPECT_THAT(retry.err, Not(HasSubstr("\r")));
    ASSERT_EQ(cli("ensemble merge " + path("f") + " --csv " + path("f.csv")).status, 0);
    EXPECT_EQ(read(path("f.csv")), whole);
}

TEST_F(Ensemble, AFullDiskOrAnUnwritablePartFileIsExitStatus1AndTheRowsStay) {
    const std::string whole = runAndMerge("whole");
    // A part file limited to 1 KiB: the first rows fit, then the write fails.
    const std::string limited = "ulimit -f 1; exec " + std::string(FISHSCHOOL_CLI_PATH) +
                                " ensemble run " + path("e.json") + " --out " + path("full") +
                                " --jobs 1 2>" + path("full.txt");
    const int raw = std::system(("bash -c '" + limited + "'").c_str());
    ASSERT_TRUE(WIFEXITED(raw));
    EXPECT_EQ(WEXITSTATUS(raw), 1);
    EXPECT_THAT(read(path("full.txt")),
                HasSubstr("part-0of1-w0.csv' cannot be written: File too large"));
    const std::size_t kept = partRows("full");
    EXPECT_GT(kept, 0u);
    EXPECT_LT(kept, 12u);
    EXPECT_EQ(runAndMerge("full"), whole);  // resumed without the limit

    // A folder, a FIFO or a link where a part file goes is no file the ensemble wrote: the shard
    // cannot write there (a FIFO would block it, a link to /dev/null lose every row), and the
    // others, status and merge leave it unread and say so.
    fs::create_directories(path("blocked/part-0of1-w0.csv"));
    fs::create_directories(path("fifo"));
    ASSERT_EQ(::mkfifo(path("fifo/part-0of1-w0.csv").c_str(), 0644), 0);
    fs::create_directories(path("link"));
    fs::create_symlink("/dev/null", path("link/part-0of1-w0.csv"));
    fs::create_directories(path("dangling"));
    fs::create_symlink(path("nowhere.csv"), path("dangling/part-0of1-w0.csv"));
    for (const char* folder : {"blocked", "fifo", "link", "dangling"}) {
        const CliRun refused =
            cli("ensemble run " + path("e.json") + " --out " + path(folder) + " --jobs 1");
        EXPECT_EQ(refused.status, 1) << folder;
        EXPECT_THAT(refused.err, HasSubstr("part file '" + path(folder) + "/part-0of1-w0.csv'"));
        const CliRun status = cli("ensemble status " + path(folder));
        EXPECT_EQ(status.status, 0) << folder;
        EXPECT_THAT(status.err, HasSubstr("left out '" + path(folder) +
                                          "/part-0of1-w0.csv': not a regular file"));
        EXPECT_THAT(status.out, HasSubstr("done 0, failed 0, left 12"));
    }
}

/// A part file of any size costs a row's memory: a huge line is refused, not read whole.
TEST_F(Ensemble, AHugePartFileIsReadARowAtATime) {
    ASSERT_EQ(cli("ensemble run " + path("e.json") + " --out " + path("big") + " --jobs 1").status,
              0);
    const std::string part = path("big/part-0of1-w0.csv");
    ASSERT_EQ(::truncate(part.c_str(), off_t(3) << 30), 0);  // 3 GiB, sparse: NUL bytes
    const CliRun status = cli("ensemble status " + path("big"));
    EXPECT_EQ(status.status, 2);
    EXPECT_THAT(status.err, HasSubstr("is longer than 1048576 bytes: not a row of an ensemble"));
}

TEST_F(Ensemble, BadInputExitsTwoNamingItAndWritesNothing) {
    write("other.json", R"({"axes": {"noise": [0, 0.1]}, "steps": 5})");
    ASSERT_EQ(cli("ensemble run " + path("other.json") + " --out " + path("theirs")).status, 0);
    write("file", "not a folder");
    struct Case {
        std::string ensemble;  ///< the file's text; empty: e.json
        std::string flags;
        std::string mustSay;
    };
    const std::string base = R"("base": {"fishCount": 10}, "steps": 5, )";
    const Case cases[] = {
        {"{" + base + R"("axes": {}, "colour": 1})", "", "key 'colour': unknown key"},
        {R"({"base": {"fishCunt": 3}, "axes": {}, "steps": 5})", "", "key 'fishCunt'"},
        {"{" + base + R"("axes": {"noise": []}})", "", "'axes.noise': an empty axis"},
        {"{" + base + R"("axes": {"noise": [0, "a"]}})", "", "'axes.noise[1]': must be a number"},
        {R"({"axes": {}, "steps": "10"})", "", "'steps': must be a whole number"},
        {"{" + base + R"("axes": {"steering": [1]}})", "", "'axes.steering': this key cannot vary"},
        {"{" + base + R"("axes": {"seed": [1, 2]}})", "", "the seed cannot vary"},
        {"{" + base + R"("axes": {"noise": {"from": 0, "to": 1, "count": 4000},
                                 "dt": {"from": 0.01, "to": 0.1, "count": 4000}}})",
         "", "more than 10000000 runs"},
        {"{" + base + R"("axes": {"rSeparation": [1, -1]}})", "",
         "run 1 (rSeparation = -1): axes rSeparation: rSeparation: -1 is not allowed"},
        {"{" + base + R"("axes": {}, "axes": {}})", "", "'axes' appears more than once"},
        {R"({"axes": {}})", "", "'steps' is missing"},
        {"{" + base + R"("axes": {"noise": {"from": 0, "to": 1, "count": 0}}})", "",
         "'axes.noise.count': '0' is not allowed; must be a whole number from 1"},
        {R"({"axes": {}, "steps": 5, "replicates": 0})", "",
         "'replicates': '0' is not allowed; must be a whole number from 1"},
        {R"({"axes": {}, "steps": 0})", "",
         "'steps': '0' is not allowed; must be a whole number from 1"},
        {R"({"axes": {}, "steps": 5, "measure": {"last": 0}})", "",
         "'measure.last': '0' is not allowed; must be a whole number from 1"},
        {"", " --only 1,1", "--only: run 1 is named twice"},
        {"", " --shard 3/2", "--shard: '3/2' is not allowed"},
        {"", " --shard 0/0", "--shard: '0/0' is not allowed"},
        {"", " --only 12", "--only: '12' is not allowed"},
        {"", " --jobs 0", "--jobs"},
        {"", "@" + path("file"), "is a file; give a folder"},
        {"", "@" + path("file") + "/sub",
         "--out: '" + path("file") + "/sub': its parent '" + path("file") +
             "' is a file, not a folder"},
        {"", "@" + path("file") + "/a/sub", "a file stands on its path"},
        {"", "@" + path("nowhere") + "/sub", "nowhere' does not exist; make it first"},
        {"", "@" + path("theirs"), "holds the runs of another ensemble file"},
    };
    const auto before = listing();
    // --dry-run makes the same checks and refuses alike.
    for (const char* dryRun : {"", " --dry-run"})
        for (const Case& c : cases) {
            write("bad.json", c.ensemble.empty() ? kEnsemble : c.ensemble);
            const bool otherOut = c.flags.starts_with("@");
            const std::string out = otherOut ? c.flags.substr(1) : path("out");
            const CliRun run = cli("ensemble run " + path("bad.json") + " --out " + out +
                                   (otherOut ? "" : c.flags) + dryRun);
            EXPECT_EQ(run.status, 2) << c.ensemble << c.flags << dryRun << "\n" << run.err;
            EXPECT_THAT(run.err, HasSubstr(c.mustSay)) << c.ensemble << c.flags << dryRun;
            EXPECT_EQ(lines(run.err), 1u) << run.err;
            auto now = listing();
            now.erase("bad.json");
            EXPECT_EQ(now, before) << c.ensemble << c.flags << dryRun;
        }
    const CliRun file = cli("ensemble status " + path("file"));
    EXPECT_EQ(file.status, 2);
    EXPECT_THAT(file.err, HasSubstr("is not a folder made by `ensemble run`"));
    // A folder that is not there is said to be missing, not to be of the wrong kind.
    EXPECT_THAT(cli("ensemble merge " + path("nothing") + " --csv " + path("m.csv")).err,
                HasSubstr("nothing' does not exist; give a folder made by `ensemble run`"));
}

/// The tasks of a Slurm array start at once on a new folder: each may find another's manifest
/// half-written (its temporary file) and none refuses the folder for it.
TEST_F(Ensemble, ShardsStartedAtOnceOnANewFolderAllRun) {
    const std::string one = runAndMerge("one", " --jobs 1");
    for (int trial = 0; trial < 4; ++trial) {
        const std::string dir = path("together" + std::to_string(trial));
        std::string all = "pids=; ";
        for (int k = 0; k < 4; ++k)
            all += std::string(FISHSCHOOL_CLI_PATH) + " ensemble run " + path("e.json") +
                   " --out " + dir + " --jobs 1 --shard " + std::to_string(k) + "/4 2>>" + dir +
                   ".err & pids=\"$pids $!\"; ";
        // Each task's own exit status: 0.
        all += "s=0; for p in $pids; do wait $p || s=1; done; exit $s";
        ASSERT_EQ(std::system(("bash -c '" + all + "'").c_str()), 0) << read(dir + ".err");
        EXPECT_EQ(read(dir + ".err").find("error:"), std::string::npos) << read(dir + ".err");
        const CliRun merge = cli("ensemble merge " + dir + " --csv " + dir + ".csv");
        ASSERT_EQ(merge.status, 0) << merge.err;
        EXPECT_EQ(read(dir + ".csv"), one) << "trial " << trial;
    }
}

/// An array of many tasks leaves many part files: the merge reads them all within a small limit
/// of open files.
TEST_F(Ensemble, AMergeOfManyPartFilesKeepsWithinTheLimitOfOpenFiles) {
    write("many.json", R"({"base": {"fishCount": 5, "rocks": []}, "axes": {"noise": [0, 0.1]},
                          "replicates": 50, "steps": 2})");
    const auto run = [&](const std::string& out, const std::string& flags) {
        return cli("ensemble run " + path("many.json") + " --out " + path(out) + flags).status;
    };
    ASSERT_EQ(run("whole", " --jobs 1"), 0);
    ASSERT_EQ(cli("ensemble merge " + path("whole") + " --csv " + path("whole.csv")).status, 0);
    for (int k = 0; k < 100; ++k)  // 100 part files, one run each
        ASSERT_EQ(run("many", " --jobs 1 --shard " + std::to_string(k) + "/100"), 0);
    const std::string merge = std::string(FISHSCHOOL_CLI_PATH) + " ensemble merge " + path("many") +
                              " --csv " + path("many.csv");
    ASSERT_EQ(std::system(("bash -c 'ulimit -n 40; exec " + merge + "'").c_str()), 0);
    EXPECT_EQ(read(path("many.csv")), read(path("whole.csv")));
}

/// "out/" is the folder "out", as a shell's completion writes it.
TEST_F(Ensemble, AnOutFolderWithATrailingSlashIsThatFolder) {
    const std::string one = runAndMerge("one", " --jobs 1");
    const CliRun run =
        cli("ensemble run " + path("e.json") + " --out " + path("slash") + "/ --jobs 1");
    ASSERT_EQ(run.status, 0) << run.err;
    ASSERT_EQ(cli("ensemble merge " + path("slash") + "/ --csv " + path("slash.csv")).status, 0);
    EXPECT_EQ(read(path("slash.csv")), one);
}

/// --dry-run makes every check of `ensemble run` (the file, the folder, the shard, --jobs,
/// --only) and exits 0 without making or running anything: scripts/slurm/submit.sh asks it
/// before it submits an array.
TEST_F(Ensemble, ADryRunChecksEverythingAndMakesNothing) {
    const auto before = listing();
    const CliRun fresh = cli("ensemble run " + path("e.json") + " --out " + path("new") +
                             " --shard 1/4 --jobs 2 --dry-run");
    EXPECT_EQ(fresh.status, 0) << fresh.err;
    EXPECT_THAT(fresh.err,
                HasSubstr("are accepted (3 runs in shard 1/4); nothing was made or run"));
    EXPECT_EQ(listing(), before);
    // A folder of this ensemble, part done: checked whole, left as it was.
    ASSERT_EQ(
        cli("ensemble run " + path("e.json") + " --out " + path("half") + " --shard 0/2 --jobs 1")
            .status,
        0);
    const std::string part = read(path("half/part-0of2-w0.csv"));
    const auto half = listing();
    for (const char* flags : {" --shard 1/2 --jobs 1", " --only 3,4", " --retry-failed"}) {
        const CliRun run =
            cli("ensemble run " + path("e.json") + " --out " + path("half") + flags + " --dry-run");
        EXPECT_EQ(run.status, 0) << flags << "\n" << run.err;
    }
    EXPECT_EQ(listing(), half);
    EXPECT_EQ(read(path("half/part-0of2-w0.csv")), part);
    EXPECT_EQ(std::distance(fs::directory_iterator(path("half")), fs::directory_iterator()), 2);
    // Refused as the run would be: a foreign row, a shard out of range.
    std::ofstream(path("half/part-1of2-w0.csv")) << "run,x\n";
    const CliRun foreign =
        cli("ensemble run " + path("e.json") + " --out " + path("half") + " --dry-run");
    EXPECT_EQ(foreign.status, 2);
    EXPECT_THAT(foreign.err, HasSubstr("error: '" + path("half/part-1of2-w0.csv") + "': line 1"));
    EXPECT_EQ(lines(foreign.err), 1u);
    const CliRun shard =
        cli("ensemble run " + path("e.json") + " --out " + path("new") + " --shard 4/4 --dry-run");
    EXPECT_EQ(shard.status, 2);
    EXPECT_THAT(shard.err, HasSubstr("--shard: '4/4' is not allowed"));
    EXPECT_FALSE(fs::exists(path("new")));
}

/// Two array tasks of different ensemble files started at once on one new folder: the first
/// manifest made stays, the other task reads it back and is refused; the folder holds one
/// ensemble's rows only.
TEST_F(Ensemble, TwoEnsemblesStartedAtOnceOnANewFolderNeverMix) {
    std::string other = kEnsemble;
    other.replace(other.find("\"seed\": 11"), 10, "\"seed\": 12");
    write("other.json", other);
    const std::string one = runAndMerge("one", " --jobs 1");
    for (int trial = 0; trial < 6; ++trial) {
        const std::string dir = path("both" + std::to_string(trial));
        const std::string run = std::string(FISHSCHOOL_CLI_PATH) + " ensemble run ";
        const std::string both = run + path("e.json") + " --out " + dir + " --jobs 1 2>" + dir +
                                 ".a & a=$!; " + run + path("other.json") + " --out " + dir +
                                 " --jobs 1 2>" + dir + ".b & b=$!; wait $a; sa=$?; wait $b; " +
                                 "echo $sa $? >" + dir + ".status";
        std::system(("bash -c '" + both + "'").c_str());
        const std::string statuses = read(dir + ".status");
        ASSERT_TRUE(statuses == "0 2\n" || statuses == "2 0\n")
            << statuses << read(dir + ".a") << read(dir + ".b");
        const std::string refused = read(dir + (statuses == "0 2\n" ? ".b" : ".a"));
        EXPECT_THAT(refused, HasSubstr("holds the runs of another ensemble file"));
        const CliRun merge = cli("ensemble merge " + dir + " --csv " + dir + ".csv");
        ASSERT_EQ(merge.status, 0) << merge.err;
        if (statuses == "0 2\n") {
            EXPECT_EQ(read(dir + ".csv"), one) << "trial " << trial;
        }
    }
}

/// A part file of another ensemble copied in, or a row whose seed or shard is not its run's:
/// run, status and merge refuse the folder alike, naming the file, and a run counts no such
/// row as done.
TEST_F(Ensemble, ARowOfAnotherEnsembleOrShardIsRefusedByEveryCommand) {
    std::string other = kEnsemble;
    other.replace(other.find("\"seed\": 11"), 10, "\"seed\": 12");
    write("other.json", other);
    ASSERT_EQ(
        cli("ensemble run " + path("other.json") + " --out " + path("theirs") + " --jobs 1").status,
        0);
    const std::string theirs = read(path("theirs/part-0of1-w0.csv"));
    ASSERT_EQ(
        cli("ensemble run " + path("e.json") + " --out " + path("f") + " --shard 0/2 --jobs 1")
            .status,
        0);
    const std::string ours = read(path("f/part-0of2-w0.csv"));
    const std::string header = ours.substr(0, ours.find('\n') + 1);
    const auto rowOf = [](const std::string& text, int run) {
        // append() rather than "\n" + text: GCC 12 warns (-Wrestrict) on the latter, wrongly.
        const std::size_t at =
            text.find(std::string("\n").append(std::to_string(run)).append(",")) + 1;
        return text.substr(at, text.find('\n', at) + 1 - at);
    };
    struct Case {
        std::string text, mustSay;
    };
    const Case cases[] = {
        {theirs, "line 1: the part file of ensemble"},
        // Their row under our header: the seed of run 1 is not ours.
        {header + rowOf(theirs, 1), "line 2: run 1 says seed"},
        // Our own run 2 in shard 1's file.
        {header + rowOf(ours, 2), "line 2: run 2 is not of shard 1of2"},
    };
    for (const Case& c : cases) {
        write("f/part-1of2-w0.csv", c.text);
        for (const std::string& command :
             {"run " + path("e.json") + " --out " + path("f") + " --shard 1/2",
              "status " + path("f"), "merge " + path("f") + " --csv " + path("f.csv")}) {
            const CliRun run = cli("ensemble " + command);
            EXPECT_EQ(run.status, 2) << command << "\n" << run.err;
            EXPECT_THAT(run.err, HasSubstr("'" + path("f/part-1of2-w0.csv") + "': " + c.mustSay))
                << command;
            EXPECT_EQ(lines(run.err), 1u) << run.err;
        }
        EXPECT_FALSE(fs::exists(path("f.csv")));
    }
    // Moved out, the folder resumes.
    fs::remove(path("f/part-1of2-w0.csv"));
    EXPECT_EQ(runAndMerge("f", " --shard 1/2"), runAndMerge("whole"));
}

/// A manifest edited by hand with its hash kept: every command refuses it with one message,
/// none says "all done" or merges by it.
TEST_F(Ensemble, AHandEditedManifestIsRefusedByEveryCommandAlike) {
    ASSERT_EQ(cli("ensemble run " + path("e.json") + " --out " + path("f")).status, 0);
    const std::string manifest = read(path("f/manifest.json"));
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"\"runs\": 12", "\"runs\": 6"},
             {"\"seed\": 11", "\"seed\": 12"},
             {"\"replicates\": 3", "\"replicates\": 1"},
             {"\"version\": \"", "\"version\": \"9"}}) {
        std::string edited = manifest;
        ASSERT_NE(edited.find(from), std::string::npos) << from;
        edited.replace(edited.find(from), from.size(), to);
        write("f/manifest.json", edited);
        std::string said;
        for (const std::string& command :
             {"run " + path("e.json") + " --out " + path("f"),
              "run " + path("e.json") + " --out " + path("f") + " --dry-run", "status " + path("f"),
              "merge " + path("f") + " --csv " + path("f.csv")}) {
            const CliRun run = cli("ensemble " + command);
            EXPECT_EQ(run.status, 2) << to << ": " << command;
            EXPECT_THAT(run.err, HasSubstr("manifest.json': not a manifest of fishschool-cli "
                                           "ensemble run (was it edited"))
                << command;
            if (said.empty()) said = run.err;
            EXPECT_EQ(run.err, said) << command;
        }
        EXPECT_FALSE(fs::exists(path("f.csv")));
    }
}

/// merge --csv through a link to a part file's name not made yet would have made a part file
/// the folder then refused for ever: the link is followed and refused.
TEST_F(Ensemble, TheMergeNeverWritesAPartFileOrTheManifestThroughALink) {
    ASSERT_EQ(cli("ensemble run " + path("e.json") + " --out " + path("f") + " --shard 0/2").status,
              0);
    fs::create_symlink(path("f/part-1of2-w0.csv"), path("to-part.csv"));
    fs::create_symlink(path("f"), path("f-link"));
    fs::create_symlink("f-link/manifest.json", path("to-manifest.csv"));
    fs::create_hard_link(path("f/part-0of2-w0.csv"), path("hard.csv"));
    const auto before = listing();
    for (const char* target :
         {"to-part.csv", "to-manifest.csv", "f-link/part-0of3-w0.csv", "hard.csv"}) {
        for (const char* flag : {" --csv ", " --csv m.csv --timing "}) {
            const std::string merge = "ensemble merge " + path("f") + flag + path(target);
            const CliRun run = cli(merge);
            EXPECT_EQ(run.status, 2) << merge;
            EXPECT_THAT(run.err, HasSubstr("is the ensemble folder's")) << merge;
        }
    }
    EXPECT_EQ(listing(), before);
    EXPECT_FALSE(fs::exists(path("f/part-1of2-w0.csv")));
    const CliRun status = cli("ensemble status " + path("f"));
    EXPECT_EQ(status.status, 0) << status.err;
    EXPECT_THAT(status.out, HasSubstr("done 6, failed 0, left 6"));
}

/// --trajectory is compared with the --out folder as files, not as path text: through a link to
/// the folder, a link to one of its files or a hard link, it is refused and nothing changes.
TEST_F(Ensemble, ATrajectoryIsNeverWrittenIntoTheOutFolderUnderAnyName) {
    ASSERT_EQ(cli("ensemble run " + path("e.json") + " --out " + path("f")).status, 0);
    const std::string manifest = read(path("f/manifest.json"));
    fs::create_symlink(path("f"), path("f-link"));
    fs::create_symlink("f/part-0of1-w0.csv", path("to-part.h5"));
    fs::create_hard_link(path("f/manifest.json"), path("hard.h5"));
    fs::create_directories(path("sub"));
    const auto before = listing();
    for (const char* target : {"f-link/manifest.json", "f-link/part-0of1-w0.csv", "f-link/new.h5",
                               "to-part.h5", "hard.h5", "sub/../f/t.h5", "f-link"}) {
        for (const char* dry : {"", " --dry-run"}) {
            const std::string run = "ensemble run " + path("e.json") + " --out " + path("f") +
                                    " --only 0" + dry + " --trajectory " + path(target);
            const CliRun refused = cli(run);
            EXPECT_EQ(refused.status, 2) << run;
            EXPECT_THAT(refused.err, HasSubstr("which holds part files only")) << run;
        }
    }
    EXPECT_THAT(cli("ensemble run " + path("e.json") + " --out " + path("f") +
                    " --only 0 --trajectory " + path("to-part.h5"))
                    .err,
                HasSubstr("is the --out folder's part file 'part-0of1-w0.csv'"));
    EXPECT_EQ(listing(), before);
    EXPECT_EQ(read(path("f/manifest.json")), manifest);
    EXPECT_EQ(cli("ensemble status " + path("f")).status, 0);
    // Beside the folder, through the same link's parent, it is written.
    const CliRun beside = cli("ensemble run " + path("e.json") + " --out " + path("f") +
                              " --only 0 --trajectory " + path("f-link/../t.h5"));
    EXPECT_EQ(beside.status, 0) << beside.err;
    EXPECT_TRUE(fs::exists(path("t.h5")));
}

/// An unwritable folder is bad input (exit 2) whether it exists (empty, or this ensemble's) or
/// is to be made in one, and --dry-run says so too. As root, with the capability that overrides
/// file permissions dropped.
TEST_F(Ensemble, AnUnwritableFolderIsBadInputWhereverItIs) {
    std::string as = "";
    if (::geteuid() == 0) {
        if (std::system("setpriv --bounding-set=-dac_override -- true 2>/dev/null") != 0)
            GTEST_SKIP() << "root, and setpriv cannot drop CAP_DAC_OVERRIDE";
        as = "setpriv --bounding-set=-dac_override,-dac_read_search -- ";
    }
    ASSERT_EQ(
        cli("ensemble run " + path("e.json") + " --out " + path("half") + " --shard 0/2").status,
        0);
    fs::create_directories(path("empty"));
    for (const char* folder : {"empty", "half"})
        fs::permissions(path(folder), fs::perms::owner_read | fs::perms::owner_exec |
                                          fs::perms::group_read | fs::perms::group_exec |
                                          fs::perms::others_read | fs::perms::others_exec);
    const auto before = listing();
    struct Case {
        std::string out, mustSay;
    };
    const Case cases[] = {
        {"empty", "--out: '" + path("empty") + "' cannot be written (Permission denied)"},
        {"half", "--out: '" + path("half") + "' cannot be written (Permission denied)"},
        {"empty/new", "--out: '" + path("empty/new") + "' cannot be made: its parent folder '" +
                          path("empty") + "' cannot be written (Permission denied)"},
    };
    for (const Case& c : cases)
        for (const char* dryRun : {"", " --dry-run"}) {
            const std::string command = as + FISHSCHOOL_CLI_PATH + " ensemble run " +
                                        path("e.json") + " --out " + path(c.out) + " --shard 1/2" +
                                        dryRun + " 2>" + path("err.txt");
            const int raw = std::system(command.c_str());
            ASSERT_TRUE(WIFEXITED(raw));
            EXPECT_EQ(WEXITSTATUS(raw), 2) << command << "\n" << read(path("err.txt"));
            EXPECT_THAT(read(path("err.txt")), HasSubstr(c.mustSay));
            fs::remove(path("err.txt"));
        }
    EXPECT_EQ(listing(), before);
    EXPECT_TRUE(fs::is_empty(path("empty")));
    for (const char* folder : {"empty", "half"})
        fs::permissions(path(folder), fs::perms::owner_all, fs::perm_options::add);
}

/// A run that runs out of memory is a failed row (std::bad_alloc caught), the others go on, and
/// `ensemble run` exits 1. Not under AddressSanitizer, whose shadow memory a limit of the
/// address space leaves no room for.
TEST_F(Ensemble, ARunOutOfMemoryIsAFailedRowAndExitsOne) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "ulimit -v and AddressSanitizer do not mix";
#endif
    write("oom.json", R"({"base": {"fishCount": 10, "rocks": []},
                          "axes": {"fishCount": [10, 16000000, 20]}, "steps": 2})");
    const std::string limited = "ulimit -v 400000; exec " + std::string(FISHSCHOOL_CLI_PATH) +
                                " ensemble run " + path("oom.json") + " --out " + path("oom") +
                                " --jobs 1 2>" + path("oom.txt");
    const int raw = std::system(("bash -c '" + limited + "'").c_str());
    ASSERT_TRUE(WIFEXITED(raw));
    EXPECT_EQ(WEXITSTATUS(raw), 1) << read(path("oom.txt"));
    EXPECT_THAT(read(path("oom.txt")), HasSubstr("error: 1 of 3 runs failed; their rows say why"));
    const CliRun status = cli("ensemble status " + path("oom"));
    EXPECT_THAT(status.out, HasSubstr("done 2, failed 1, left 0"));
    EXPECT_THAT(status.out, HasSubstr("failed: run 1 (fishCount = 16000000, replicate 0): "));
    EXPECT_THAT(status.out, HasSubstr("bad_alloc"));
}

TEST_F(Ensemble, HelpOnEveryCommandAndAMisspeltOneIsNamed) {
    for (const char* command : {"run", "status", "merge"}) {
        const CliRun run = cli("ensemble " + std::string(command) + " --help");
        EXPECT_EQ(run.status, 0) << command;
        EXPECT_THAT(run.out, HasSubstr("fishschool-cli ensemble " + std::string(command)));
    }
    const CliRun misspelt = cli("ensemble rnu " + path("e.json"));
    EXPECT_EQ(misspelt.status, 2);
    EXPECT_THAT(misspelt.err, HasSubstr("unknown ensemble command 'rnu'; the ensemble commands "
                                        "are run, status, merge"));
}

TEST_F(Ensemble, PhaseRunsItsValuesOnSeveralJobsToTheSameBits) {
    write("c.json", R"({"fishCount": 20, "steering": "couzin", "rSeparation": 1,
                        "rAlignment": 2, "rCohesion": 10, "dt": 0.1, "maxTurnRate": 40,
                        "noise": 0.05, "bounds": [10, 10, 10], "rocks": []})");
    const std::string common = "phase --config " + path("c.json") +
                               " --vary attraction-width --from 0 --to 6 --count 4 --steps 20";
    ASSERT_EQ(cli(common + " --jobs 1 --csv " + path("a.csv")).status, 0);
    ASSERT_EQ(cli(common + " --jobs 2 --csv " + path("b.csv")).status, 0);
    EXPECT_EQ(read(path("a.csv")), read(path("b.csv")));
    EXPECT_EQ(lines(read(path("a.csv"))), 5u);
}

}  // namespace
