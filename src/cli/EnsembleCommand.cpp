// fishschool-cli ensemble run|status|merge (docs/ensembles.md): an ensemble's runs spread over
// workers, each finished run appended as one row to its worker's part file in the output folder,
// so that a stopped run loses at most the runs in flight and the same command resumes it.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <mutex>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "backends/BackendRegistry.h"
#include "fishschool/Ensemble.h"
#include "io/ExitStatus.h"
#include "io/OutputFiles.h"
#include "io/TextInput.h"
#include "runs/Ensemble.h"
#include "runs/EnsembleFolder.h"
#include "runs/PhaseSweep.h"

namespace fishschool::cli {
namespace {

namespace fs = std::filesystem;

/// Which runs of the ensemble a `run` does: those with index % count == index.
struct Shard {
    std::int64_t index = 0;
    std::int64_t count = 1;
};

Result<Shard> parseShard(const std::string& text) {
    if (text.empty()) return Shard{};
    const auto refused = [&] {
        return fail("--shard: " + quote(text) + " is not allowed; must be K/N with N from 1 to " +
                    std::to_string(kMaxEnsembleRuns) +
                    " and K from 0 to N - 1 (task K of an array --array=0-(N-1))");
    };
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos) return refused();
    const auto k = parseWholeNumber("", text.substr(0, slash), 0, kMaxEnsembleRuns - 1);
    const auto n = parseWholeNumber("", text.substr(slash + 1), 1, kMaxEnsembleRuns);
    if (!k || !n || *k >= *n) return refused();
    return Shard{*k, *n};
}

/// Runs done of the total, runs a second and the time left, on stderr: a line at each tenth and
/// at least every 30 s in a log, one line rewritten in place on a terminal.
class Progress {
  public:
    using Clock = std::chrono::steady_clock;

    /// `started`: when the command began its runs; a rate from the first report on would
    /// divide one run by no time at all.
    Progress(std::int64_t total, std::int64_t doneBefore, Clock::time_point started)
        : total_(total),
          done_(doneBefore),
          doneBefore_(doneBefore),
          terminal_(::isatty(STDERR_FILENO) == 1),
          start_(started),
          printed_(started) {}

    void update(const EnsembleProgress& reached) {
        const std::lock_guard lock(mutex_);
        done_ = reached.done;
        failed_ = reached.failed;
        const auto now = Clock::now();
        const std::int64_t runs = total_ - doneBefore_, doneHere = done_ - doneBefore_;
        const bool nextTenth = doneHere * 10 / runs != (doneHere - 1) * 10 / runs;
        const bool due = terminal_ ? now - printed_ > std::chrono::milliseconds(250)
                                   : nextTenth || now - printed_ > std::chrono::seconds(30);
        if (due || done_ == total_) print(now);
    }

    void finish() {
        const std::lock_guard lock(mutex_);
        if (terminal_) std::cerr << "\n";
    }

  private:
    void print(Clock::time_point now) {
        printed_ = now;
        const double seconds = std::chrono::duration<double>(now - start_).count();
        const double rate = double(done_ - doneBefore_) / std::max(seconds, 1e-9);
        char line[200];
        std::snprintf(line, sizeof line, "ensemble: %lld/%lld runs done, %lld failed, %.3g runs/s",
                      static_cast<long long>(done_), static_cast<long long>(total_),
                      static_cast<long long>(failed_), rate);
        std::string text = line;
        if (done_ < total_) {
            std::snprintf(line, sizeof line, ", about %.0f s left", double(total_ - done_) / rate);
            text += line;
        }
        if (terminal_)
            std::cerr << "\r" << text << "\033[K" << std::flush;
        else
            std::cerr << text << "\n";
    }

    std::mutex mutex_;
    std::int64_t total_, done_, doneBefore_, failed_ = 0;
    bool terminal_;
    Clock::time_point start_, printed_;
};

/// Runs listed in this environment variable ("3,7") are recorded as failed: how the tests and
/// a user rehearsing a cluster's failures reach the failure and retry paths (the CPU backends
/// never fail a run).
constexpr const char* kFaultVariable = "FISHSCHOOL_FAULT_RUNS";

Result<std::set<std::int64_t>> injectedFaults() {
    const char* text = std::getenv(kFaultVariable);
    if (!text || !*text) return std::set<std::int64_t>{};
    auto parsed = parseList(kFaultVariable, text, [](std::string_view item) {
        return parseWholeNumber(kFaultVariable, item, 0, kMaxEnsembleRuns);
    });
    if (!parsed) return fail(parsed.error());
    return std::set<std::int64_t>(parsed->begin(), parsed->end());
}

int runEnsembleRun(const EnsembleOptions& o) {
    const bool dryRun = o.dryRun;
    const auto shard = parseShard(o.shard);
    if (!shard) return badInput(shard.error());
    if (!o.only.empty() && !o.shard.empty())
        return badInput("--only and --shard cannot be used together: --only names the runs");
    EnsembleRunOptions options;
    options.jobs = o.jobs;
    options.shardIndex = shard->index;
    options.shardCount = shard->count;
    options.retryFailed = o.retryFailed;
    options.validateOnly = o.validateOnly || dryRun;
    if (!o.only.empty()) {
        auto parsed = parseList("--only", o.only, [&](std::string_view item) {
            return parseWholeNumber("--only", item, 0, kMaxEnsembleRuns - 1);
        });
        if (!parsed) return badInput(parsed.error());
        options.only = *parsed;
    }
    if (o.trajectoryPath.empty() && !o.trajectoryEvery.empty())
        return badInput("--trajectory-every needs --trajectory FILE");
    if (!o.trajectoryPath.empty()) {
        options.trajectory = o.trajectoryPath;
        if (!o.trajectoryEvery.empty()) {
            auto every = parseWholeNumber("--trajectory-every", o.trajectoryEvery, 1,
                                          std::numeric_limits<std::int64_t>::max());
            if (!every) return badInput(every.error());
            options.trajectoryEvery = *every;
        }
    }
    const auto faults = injectedFaults();
    if (!faults) return badInput(faults.error());
    options.faults = *faults;
    std::optional<Progress> progress;
    const auto started = Progress::Clock::now();
    options.onProgress = [&](const EnsembleProgress& now) {
        if (!progress) progress.emplace(now.total, now.done - 1, started);
        progress->update(now);
    };
    std::signal(SIGXFSZ, SIG_IGN);  // a file over its size limit: an error to report, not death
    const auto outcome = runEnsembleFile(o.file, o.folder, options);
    if (progress) progress->finish();
    if (!outcome) {
        printError(outcome.error().message);
        return outcome.error().badInput ? kExitBadInput : kExitInternal;
    }
    // As --shard spells it.
    const std::string shardName = std::to_string(shard->index) + "/" + std::to_string(shard->count);
    if (dryRun && !o.validateOnly)
        std::cerr << "ensemble: --dry-run: " << quote(o.file, 200) << ", --out "
                  << quote(o.folder, 200) << " and the flags are accepted (" << outcome->total
                  << (o.only.empty() ? " runs in shard " + shardName : " runs named by --only")
                  << "); nothing was made or run\n";
    if (options.validateOnly) return 0;
    if (outcome->ran == 0)
        std::cerr << "ensemble: all " << outcome->total << " runs of shard " << shardName
                  << " are done; nothing to run (ensemble status " << quote(o.folder, 200) << ")\n";
    // A run that failed (out of memory, a GPU fault, a check violation) failed as `simulate`
    // would: exit 1, whatever the other runs did, so that a job or a script sees it.
    if (outcome->failed > 0)
        return internalFailure(std::to_string(outcome->failed) + " of " +
                               std::to_string(outcome->ran) +
                               " runs failed; their rows say why (ensemble status " +
                               quote(o.folder, 200) + "), --retry-failed runs them again");
    return 0;
}

int runEnsembleStatus(const EnsembleOptions& o) {
    if (o.validateOnly) return 0;
    auto folder = readFolder(o.folder);
    if (!folder) return badInput(folder.error());
    auto& [manifest, rows] = *folder;
    std::int64_t ok = 0;
    std::vector<std::int64_t> failed;
    for (std::int64_t run = 0; run < manifest.runs; ++run) {
        if (rows.status(run) == FolderRows::Status::Ok) ++ok;
        if (rows.status(run) == FolderRows::Status::Failed) failed.push_back(run);
    }
    const std::int64_t left = manifest.runs - rows.count();
    std::cout << "ensemble " << manifest.hash << " (fishschool-cli " << manifest.version
              << "): " << manifest.runs << " runs\n"
              << "done " << ok << ", failed " << failed.size() << ", left " << left << "\n";
    constexpr std::size_t kShown = 10;
    for (std::size_t k = 0; k < std::min(failed.size(), kShown); ++k) {
        const auto row = rows.row(failed[k]);
        if (!row) return internalFailure(row.error());
        std::cout << "failed: " << printable(runName(*row, manifest), 200) << ": "
                  << printable(row->message, 300) << "\n";
    }
    if (failed.size() > kShown)
        std::cout << "failed: ... and " << failed.size() - kShown << " more\n";
    return 0;
}

int runEnsembleMerge(const EnsembleOptions& o) {
    // The library's merge, as Python's fishschool.merge_ensemble calls it.
    auto merged = mergeEnsembleFolder(
        o.folder, EnsembleMergeOutputs{o.csvPath, o.timingPath, o.summaryPath}, o.validateOnly);
    if (!merged) return exitWith(merged.error());
    if (o.validateOnly) return 0;
    std::cerr << "ensemble: merged " << merged->merged << " of " << merged->runs << " runs into "
              << quote(o.csvPath, 200) << " (" << merged->failed << " failed, "
              << merged->runs - merged->merged << " not run yet)\n";
    return 0;
}

int runEnsembleSensitivity(const EnsembleOptions& o) {
    SensitivityOptions options;
    if (!o.bootstrap.empty()) {
        auto n = parseWholeNumber("--bootstrap", o.bootstrap, 0, 1'000'000);
        if (!n) return badInput(n.error());
        options.bootstrap = *n;
    }
    if (!o.confidence.empty()) {
        auto c = parseFiniteNumber("--confidence", o.confidence);
        if (!c) return badInput(c.error());
        if (!(*c > 0.0 && *c < 1.0))
            return badInput("--confidence: " + quote(o.confidence) +
                            " is not allowed; must be between 0 and 1 (0.95: a 95 % interval)");
        options.confidence = *c;
    }
    if (!o.seed.empty()) {
        auto seed = parseUnsigned64("--seed", o.seed);
        if (!seed) return badInput(seed.error());
        options.seed = *seed;
    }
    OutputFiles outputs;
    if (!o.csvPath.empty()) {
        if (auto ok = checkNotTheFolders("--csv", o.csvPath, o.folder); !ok)
            return badInput(ok.error());
        if (auto ok = o.validateOnly ? outputs.check("--csv", o.csvPath)
                                     : outputs.add("--csv", o.csvPath);
            !ok)
            return exitWith(ok.error());
    }
    if (o.validateOnly) return 0;
    auto s = ensembleSensitivity(o.folder, options);
    if (!s) return exitWith(s.error());
    char line[200];
    std::cout << "Sobol indices of " << s->samples << " base points x (" << s->parameters.size()
              << " parameters + 2) x " << s->replicates << " replicates; "
              << std::lround(options.confidence * 100.0) << " % intervals from "
              << options.bootstrap << " bootstrap resamples\n";
    std::snprintf(line, sizeof line, "  %-20s %-20s %22s %22s\n", "measure", "parameter",
                  "first order S1", "total ST");
    std::cout << line;
    const auto cell = [](double v, double low, double high) {
        char text[64];
        std::snprintf(text, sizeof text, "%6.3f [%6.3f, %6.3f]", v, low, high);
        return std::string(text);
    };
    for (const SensitivityIndex& i : s->indices) {
        std::snprintf(line, sizeof line, "  %-20s %-20s %22s %22s\n", i.measure.c_str(),
                      i.parameter.c_str(), cell(i.first, i.firstLow, i.firstHigh).c_str(),
                      cell(i.total, i.totalLow, i.totalHigh).c_str());
        std::cout << line;
    }
    for (const auto& [measure, why] : s->skipped)
        std::cout << "  " << measure << ": no indices, " << printable(why, 200) << "\n";
    if (!o.csvPath.empty()) {
        if (auto ok = outputs.write("--csv", sensitivityCsv(*s)); !ok) return exitWith(ok.error());
        if (auto ok = outputs.commit(); !ok) return exitWith(ok.error());
    }
    return 0;
}

}  // namespace

void addEnsembleCommand(CLI::App& app, EnsembleOptions& o) {
    CLI::App* ensemble = app.add_subcommand(
        "ensemble", "Run many schools over a grid of parameters and seeds (docs/ensembles.md)");
    ensemble->require_subcommand(1);
    CLI::App* run = ensemble->add_subcommand(
        "run", "Run the ensemble's runs (or resume them) into a folder of part files");
    run->add_option("FILE", o.file, "The ensemble file (JSON)")->required()->check(nonEmpty());
    run->add_option("--out", o.folder,
                    "The output folder: new, empty, or this ensemble's to resume")
        ->required()
        ->check(nonEmpty());
    run->add_option("--jobs", o.jobs, "Runs at once, a thread each (default: the CPU threads)")
        ->check(wholeNumber(1, kMaxJobs));
    run->add_option("--shard", o.shard,
                    "K/N: only the runs whose index % N is K (an array task's share)")
        ->check(nonEmpty());
    run->add_option("--only", o.only,
                    "Comma-separated run indices: run them (again), whatever is done")
        ->check(nonEmpty());
    run->add_option("--trajectory", o.trajectoryPath,
                    "With --only I: write run I's frames as an H5MD file (docs/trajectories.md)")
        ->check(nonEmpty());
    run->add_option("--trajectory-every", o.trajectoryEvery,
                    "A --trajectory frame at step 0, every N steps and at the last (default 1)")
        ->type_name("N")
        ->check(wholeNumber(1));
    run->add_flag("--retry-failed", o.retryFailed, "Run the failed runs again");
    run->add_flag("--dry-run", o.dryRun,
                  "Check the file, the folder and the flags as a run would, then exit (0, or 2 "
                  "when refused) without making or running anything");
    CLI::App* status =
        ensemble->add_subcommand("status", "Say how many runs are done, failed and left");
    status->add_option("DIR", o.folder, "The output folder")->required()->check(nonEmpty());
    CLI::App* merge =
        ensemble->add_subcommand("merge", "Write one CSV of the runs, sorted by run index");
    merge->add_option("DIR", o.folder, "The output folder")->required()->check(nonEmpty());
    merge->add_option("--csv", o.csvPath, "Where to write the merged CSV")
        ->required()
        ->check(nonEmpty());
    merge->add_option("--timing", o.timingPath, "Where to write run,wall_s")->check(nonEmpty());
    merge
        ->add_option("--summary", o.summaryPath,
                     "Where to write a row per point of the grid: its measures' means over the "
                     "replicates and their accuracy")
        ->check(nonEmpty());
    CLI::App* sensitivity = ensemble->add_subcommand(
        "sensitivity",
        "Sobol indices (first order and total) of each measure of a \"sobol\" design's runs");
    sensitivity->add_option("DIR", o.folder, "The output folder")->required()->check(nonEmpty());
    sensitivity->add_option("--csv", o.csvPath, "Where to write the indices as CSV")
        ->check(nonEmpty());
    sensitivity
        ->add_option("--bootstrap", o.bootstrap,
                     "Resamples of the base points for the intervals (default 1000; 0: none)")
        ->type_name("B")
        ->check(nonEmpty());
    sensitivity->add_option("--confidence", o.confidence, "The intervals' coverage (default 0.95)")
        ->type_name("C")
        ->check(nonEmpty());
    sensitivity->add_option("--seed", o.seed, "The resampling's seed (default 0)")
        ->type_name("S")
        ->check(nonEmpty());
}

int runEnsembleCommand(const std::string& command, const EnsembleOptions& options) {
    if (command == "run") return runEnsembleRun(options);
    if (command == "status") return runEnsembleStatus(options);
    if (command == "sensitivity") return runEnsembleSensitivity(options);
    return runEnsembleMerge(options);
}

}  // namespace fishschool::cli
