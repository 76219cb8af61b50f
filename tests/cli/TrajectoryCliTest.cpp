// simulate --trajectory and ensemble run --only I --trajectory, end to end: the flags and their
// refusals, the frames written, a run stopped by SIGINT keeping them, kill -9 replacing nothing,
// and a re-run's measures equal to its row. Files are read back with HDF5's C library.

#include <fcntl.h>
#include <hdf5.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "CliFixture.h"

extern char** environ;

namespace {

/// A dataset read whole as `memoryType` (empty when it cannot be): HDF5's C API, closed here.
template <class T>
std::vector<T> readDataset(const std::string& file, const char* name, hid_t memoryType) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    std::vector<T> values;
    const hid_t h5 = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (h5 < 0) return values;
    const hid_t set = H5Dopen2(h5, name, H5P_DEFAULT);
    if (set >= 0) {
        const hid_t space = H5Dget_space(set);
        values.resize(std::size_t(H5Sget_simple_extent_npoints(space)));
        if (H5Dread(set, memoryType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
            values.clear();
        H5Sclose(space);
        H5Dclose(set);
    }
    H5Fclose(h5);
    return values;
}

/// Attribute `name` of group `group`, read as `memoryType` (nullopt when it cannot be).
template <class T>
std::optional<T> readAttribute(const std::string& file, const char* group, const char* name,
                               hid_t memoryType) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    std::optional<T> value;
    const hid_t h5 = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (h5 < 0) return value;
    const hid_t attribute = H5Aopen_by_name(h5, group, name, H5P_DEFAULT, H5P_DEFAULT);
    T read{};
    if (attribute >= 0 && H5Aread(attribute, memoryType, &read) >= 0) value = read;
    if (attribute >= 0) H5Aclose(attribute);
    H5Fclose(h5);
    return value;
}

std::vector<std::int64_t> frameSteps(const std::string& file) {
    return readDataset<std::int64_t>(file, "particles/school/position/step", H5T_NATIVE_INT64);
}

/// The CSV's rows as fields (header included).
std::vector<std::vector<std::string>> csvRows(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::vector<std::string> fields;
        std::istringstream cells(line);
        for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
        rows.push_back(fields);
    }
    return rows;
}

class TrajectoryCli : public Cli {
  protected:
    /// Starts the CLI with SIGINT and SIGTERM at their defaults; its output goes to files.
    pid_t spawn(const std::vector<std::string>& args) const {
        std::vector<std::string> all{FISHSCHOOL_CLI_PATH};
        all.insert(all.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (std::string& arg : all) argv.push_back(arg.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t files;
        posix_spawn_file_actions_init(&files);
        posix_spawn_file_actions_addopen(&files, 1, path("stdout.txt").c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&files, 2, path("stderr.txt").c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawnattr_t attributes;
        posix_spawnattr_init(&attributes);
        sigset_t defaults;
        sigemptyset(&defaults);
        sigaddset(&defaults, SIGINT);
        sigaddset(&defaults, SIGTERM);
        posix_spawnattr_setsigdefault(&attributes, &defaults);
        posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
        pid_t pid = -1;
        const std::string cwd = fs::current_path().string();
        fs::current_path(dir_);
        const int error =
            posix_spawn(&pid, all[0].c_str(), &files, &attributes, argv.data(), environ);
        fs::current_path(cwd);
        posix_spawn_file_actions_destroy(&files);
        posix_spawnattr_destroy(&attributes);
        EXPECT_EQ(error, 0);
        return error == 0 ? pid : -1;
    }

    /// Waits until process `pid` has run for `seconds` of processor time, or 20 s: well past
    /// its start-up, stepping. (Its outputs cannot be watched: they are unnamed files until
    /// the run ends.)
    static void waitUntilStepping(pid_t pid, double seconds) {
        const double ticksPerSecond = double(::sysconf(_SC_CLK_TCK));
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (std::chrono::steady_clock::now() < until) {
            std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
            std::string line;
            std::getline(stat, line);
            // utime and stime: the 12th and 13th fields after the command's closing parenthesis.
            std::istringstream fields(line.substr(std::min(line.size(), line.rfind(')') + 1)));
            std::vector<std::string> field{std::istream_iterator<std::string>(fields), {}};
            if (field.size() > 12 &&
                (std::stod(field[11]) + std::stod(field[12])) / ticksPerSecond >= seconds)
                return;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }

    static int exitStatus(pid_t pid) {
        int raw = 0;
        if (::waitpid(pid, &raw, 0) != pid) return -1;
        if (WIFSIGNALED(raw)) return 128 + WTERMSIG(raw);
        return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    }
};

TEST_F(TrajectoryCli, WritesAFrameAtStepZeroThenEveryNSteps) {
    const CliRun run = cli("simulate --steps 10 --fish 20 --trajectory " + path("t.h5") +
                           " --trajectory-every 4 --state-out " + path("s.csv"));
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(frameSteps(path("t.h5")), (std::vector<std::int64_t>{0, 4, 8}));
    const auto positions =
        readDataset<float>(path("t.h5"), "particles/school/position/value", H5T_NATIVE_FLOAT);
    EXPECT_EQ(positions.size(), 3u * 20 * 3);
    // No --metrics: no measures, so no observables group (MDAnalysis reads one a frame).
    EXPECT_TRUE(
        readDataset<double>(path("t.h5"), "observables/polarization/value", H5T_NATIVE_DOUBLE)
            .empty());
}

TEST_F(TrajectoryCli, TheLastFrameIsTheStateAndTheMeasuresAreTheMetricsRows) {
    const CliRun run = cli("simulate --steps 6 --fish 30 --seed 9 --trajectory " + path("t.h5") +
                           " --trajectory-every 3 --metrics " + path("m.csv") +
                           " --metrics-every 2 --state-out " + path("s.csv"));
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(frameSteps(path("t.h5")), (std::vector<std::int64_t>{0, 3, 6}));
    const auto positions =
        readDataset<float>(path("t.h5"), "particles/school/position/value", H5T_NATIVE_FLOAT);
    const auto state = csvRows(read(path("s.csv")));
    ASSERT_EQ(state.size(), 31u);
    ASSERT_EQ(positions.size(), 3u * 30 * 3);
    for (std::size_t i = 0; i < 30; ++i)
        for (std::size_t c = 0; c < 3; ++c) {
            const double x = std::stod(state[i + 1][c]);
            EXPECT_NEAR(positions[(2 * 30 + i) * 3 + c], x, 1e-6 * std::max(1.0, std::abs(x)));
        }
    // With --metrics, the measures at each frame (MDAnalysis reads one a frame), equal to the
    // CSV's rows (9 digits) at the steps that are both (0 and 6; step 3 is a frame only).
    EXPECT_EQ(readDataset<std::int64_t>(path("t.h5"), "observables/milling/step", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{0, 3, 6}));
    const auto milling =
        readDataset<double>(path("t.h5"), "observables/milling/value", H5T_NATIVE_DOUBLE);
    const auto rows = csvRows(read(path("m.csv")));
    ASSERT_EQ(rows.size(), 5u);  // steps 0, 2, 4, 6
    ASSERT_EQ(milling.size(), 3u);
    EXPECT_NEAR(milling[0], std::stod(rows[1][3]), 1e-8);
    EXPECT_NEAR(milling[2], std::stod(rows[4][3]), 1e-8);
    EXPECT_GE(milling[1], 0.0);
    EXPECT_LE(milling[1], 1.0);
}

// Every frame but the last is copied by the step after it: each must still be its own step's
// school, as a run of that many steps leaves it.
TEST_F(TrajectoryCli, EachFrameIsTheSchoolAtItsStep) {
    const CliRun run = cli("simulate --steps 5 --fish 40 --seed 3 --trajectory " + path("t.h5") +
                           " --state-out " + path("s5.csv"));
    ASSERT_EQ(run.status, 0) << run.err;
    const auto positions =
        readDataset<float>(path("t.h5"), "particles/school/position/value", H5T_NATIVE_FLOAT);
    const auto velocities =
        readDataset<float>(path("t.h5"), "particles/school/velocity/value", H5T_NATIVE_FLOAT);
    ASSERT_EQ(positions.size(), 6u * 40 * 3);
    for (const int steps : {0, 2, 5}) {
        // append(), not +: GCC 12 warns (-Wrestrict) on the latter, wrongly.
        const std::string state =
            path(std::string("s").append(std::to_string(steps)).append(".csv"));
        if (steps != 5) {
            ASSERT_EQ(cli("simulate --steps " + std::to_string(steps) +
                          " --fish 40 --seed 3 --state-out " + state)
                          .status,
                      0);
        }
        const auto rows = csvRows(read(state));
        ASSERT_EQ(rows.size(), 41u);
        for (std::size_t i = 0; i < 40; ++i)
            for (std::size_t c = 0; c < 3; ++c) {
                const double x = std::stod(rows[i + 1][c]), v = std::stod(rows[i + 1][3 + c]);
                const std::size_t at = (std::size_t(steps) * 40 + i) * 3 + c;
                EXPECT_NEAR(positions[at], x, 1e-6 * std::max(1.0, std::abs(x))) << steps;
                EXPECT_NEAR(velocities[at], v, 1e-6 * std::max(1.0, std::abs(v))) << steps;
            }
    }
}

TEST_F(TrajectoryCli, RefusesWhatCannotBeWritten) {
    for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
             {"--state-out s.csv --trajectory-every 5", "--trajectory-every needs --trajectory"},
             {"--trajectory t.h5 --trajectory-every 0", "--trajectory-every"},
             {"--trajectory same.h5 --state-out same.h5", "also the file of"},
             {"--trajectory t.csv",
              "told by its extension; allowed: .h5, .hdf5, .h5md (H5MD) or "
              ".xyz"},
             {"--trajectory nowhere/t.h5", "does not exist"},
         }) {
        const CliRun run = cli("simulate --steps 2 --fish 5 " + args);
        EXPECT_EQ(run.status, 2) << args;
        EXPECT_NE(run.err.find(message), std::string::npos) << args << ": " << run.err;
    }
    write("bigger.json", R"({"fishCount": 8})");
    const CliRun run = cli("simulate --steps 2 --fish 5 --trajectory " + path("t.h5") +
                           " --change-config " + path("bigger.json") + " --change-at 1");
    EXPECT_EQ(run.status, 2);
    EXPECT_NE(run.err.find("one school size"), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(path("t.h5")));
}

TEST_F(TrajectoryCli, AChangeIsRecordedAtItsStep) {
    write("change.json", R"({"fishCount": 12, "kCohesion": 2.5})");
    const CliRun run = cli("simulate --steps 5 --fish 12 --trajectory " + path("t.h5") +
                           " --change-config " + path("change.json") + " --change-at 3");
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(readDataset<std::int64_t>(path("t.h5"), "parameters/changes/step", H5T_NATIVE_INT64),
              (std::vector<std::int64_t>{3}));
}

TEST_F(TrajectoryCli, SigintStopsTheRunAndKeepsItsFrames) {
    const pid_t pid =
        spawn({"simulate", "--steps", "100000000", "--fish", "50", "--trajectory", "t.h5",
               "--trajectory-every", "10", "--metrics", "m.csv", "--state-out", "s.csv"});
    ASSERT_GT(pid, 0);
    waitUntilStepping(pid, 0.5);
    ::kill(pid, SIGINT);
    EXPECT_EQ(exitStatus(pid), 130);
    const std::string err = read(path("stderr.txt"));
    EXPECT_NE(err.find("stopped by SIGINT after step"), std::string::npos) << err;
    const auto steps = frameSteps(path("t.h5"));
    ASSERT_FALSE(steps.empty()) << "the trajectory opens and has frames";
    EXPECT_EQ(steps.front(), 0);
    for (std::size_t k = 1; k < steps.size(); ++k) EXPECT_EQ(steps[k] - steps[k - 1], 10);
    // The metrics rows up to the step it stopped at, and the state of that step.
    const auto rows = csvRows(read(path("m.csv")));
    ASSERT_GE(rows.size(), 2u);
    EXPECT_GE(std::stoll(rows.back()[0]), steps.back());
    EXPECT_EQ(csvRows(read(path("s.csv"))).size(), 51u);
    EXPECT_EQ(listing(), (std::set<std::string>{"m.csv", "s.csv", "t.h5"}));
}

TEST_F(TrajectoryCli, SigtermStopsTheRunToo) {
    const pid_t pid = spawn({"simulate", "--steps", "100000000", "--fish", "20", "--trajectory",
                             "t.h5", "--metrics", "m.csv", "--metrics-every", "50"});
    ASSERT_GT(pid, 0);
    waitUntilStepping(pid, 0.5);
    ::kill(pid, SIGTERM);
    EXPECT_EQ(exitStatus(pid), 143);
    EXPECT_NE(read(path("stderr.txt")).find("stopped by SIGTERM"), std::string::npos);
    EXPECT_FALSE(frameSteps(path("t.h5")).empty());
}

TEST_F(TrajectoryCli, KillNineReplacesNoFileAndLeavesNone) {
    write("t.h5", "the old file");
    const pid_t pid = spawn({"simulate", "--steps", "100000000", "--fish", "20", "--trajectory",
                             "t.h5", "--metrics", "m.csv", "--metrics-every", "100000000"});
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    ::kill(pid, SIGKILL);
    EXPECT_EQ(exitStatus(pid), 128 + SIGKILL);
    EXPECT_EQ(read(path("t.h5")), "the old file");
    EXPECT_EQ(listing(), (std::set<std::string>{"t.h5"}));
}

TEST_F(TrajectoryCli, AFullDiskIsExitOneNamingTheFileAndReplacesNothing) {
    // A file size limit with SIGXFSZ ignored: the writes past it fail, as on a full disk.
    write("full.h5", "the old file");
    const std::string command = "cd " + path("") +
                                " && bash -c 'trap \"\" XFSZ; ulimit -f 200; exec \"$0\" \"$@\"' " +
                                FISHSCHOOL_CLI_PATH +
                                " simulate --steps 100 --fish 2000 --trajectory full.h5"
                                " --state-out s.csv 2>" +
                                path("stderr.txt");
    const int raw = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(raw));
    EXPECT_EQ(WEXITSTATUS(raw), 1);
    const std::string err = read(path("stderr.txt"));
    EXPECT_NE(err.find("error: --trajectory: full.h5: writing failed"), std::string::npos) << err;
    EXPECT_NE(err.find("File too large"), std::string::npos) << err;
    EXPECT_EQ(read(path("full.h5")), "the old file");
    EXPECT_EQ(listing(), (std::set<std::string>{"full.h5"}));
}

TEST_F(TrajectoryCli, AnEnsemblesRunAgainWithItsTrajectoryEndsWithItsRowsMeasures) {
    write("ens.json", R"({"base": {"fishCount": 40}, "axes": {"noise": [0, 0.3]},
        "replicates": 2, "steps": 25, "seed": 11, "backend": "tbb"})");
    const std::string ens = path("ens.json"), out = path("runs");
    ASSERT_EQ(cli("ensemble run " + ens + " --out " + out + " --jobs 2").status, 0);
    ASSERT_EQ(cli("ensemble merge " + out + " --csv " + path("before.csv")).status, 0);
    const CliRun again = cli("ensemble run " + ens + " --out " + out + " --only 3 --trajectory " +
                             path("r3.h5") + " --trajectory-every 10");
    ASSERT_EQ(again.status, 0) << again.err;
    ASSERT_EQ(cli("ensemble merge " + out + " --csv " + path("after.csv")).status, 0);
    // The run again gave the same bits: its row is the same text.
    EXPECT_EQ(read(path("before.csv")), read(path("after.csv")));
    EXPECT_EQ(frameSteps(path("r3.h5")), (std::vector<std::int64_t>{0, 10, 20, 25}));
    const auto rows = csvRows(read(path("after.csv")));
    ASSERT_EQ(rows.size(), 5u);
    const auto& header = rows[0];
    const auto& row = rows[4];
    ASSERT_EQ(row[0], "3");
    // The row, as parameters/ensemble_run's attributes: the doubles the CSV prints (the fewest
    // digits that read back as the same float).
    const std::string file = path("r3.h5");
    const char* const run = "parameters/ensemble_run";
    auto column = [&](const char* name) {
        const auto at = std::size_t(std::find(header.begin(), header.end(), name) - header.begin());
        return at < row.size() ? row[at] : std::string("(no column ") + name + ")";
    };
    EXPECT_EQ(readAttribute<std::int64_t>(file, run, "index", H5T_NATIVE_INT64), 3);
    EXPECT_EQ(std::to_string(
                  readAttribute<std::uint64_t>(file, run, "seed", H5T_NATIVE_UINT64).value_or(0)),
              column("seed"));
    EXPECT_EQ(readAttribute<std::int64_t>(file, run, "steps", H5T_NATIVE_INT64), 25);
    // No window: the measures of the last step alone.
    EXPECT_EQ(readAttribute<std::int64_t>(file, run, "measure_from_step", H5T_NATIVE_INT64), 25);
    EXPECT_EQ(readAttribute<std::int64_t>(file, run, "measure_to_step", H5T_NATIVE_INT64), 25);
    for (const auto& [name, observable] :
         {std::pair{"polarization", "observables/polarization/value"},
          {"milling", "observables/milling/value"},
          {"nearest_neighbor_m", "observables/nearest_neighbor/value"},
          {"neighbors", "observables/neighbors/value"}}) {
        const auto averaged = readAttribute<double>(file, run, name, H5T_NATIVE_DOUBLE);
        ASSERT_TRUE(averaged) << name;
        EXPECT_EQ(std::strtof(column(name).c_str(), nullptr), float(*averaged)) << name;
        // The observables: the school's measures at each frame, the last one the row's (a run
        // without a window measures its last step).
        const auto values = readDataset<double>(file, observable, H5T_NATIVE_DOUBLE);
        ASSERT_EQ(values.size(), 4u) << observable;
        EXPECT_EQ(values.back(), *averaged) << observable;
    }
    // One run only, named by --only.
    for (const std::string flags : {"--only 1,2", "--shard 0/2", ""}) {
        const CliRun refused = cli("ensemble run " + ens + " --out " + out + " " + flags +
                                   " --trajectory " + path("x.h5"));
        EXPECT_EQ(refused.status, 2) << flags;
        EXPECT_FALSE(fs::exists(path("x.h5")));
    }
}

}  // namespace
