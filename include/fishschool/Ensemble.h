#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <set>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "fishschool/Export.h"
#include "fishschool/Result.h"

namespace fishschool {

/// Why an ensemble's runs stopped before they ran: `badInput` when the file, the folder or the
/// options were refused (fishschool-cli exits 2), else this machine failed (exit 1). The message
/// names the file, the key or the option and what is allowed.
struct EnsembleFailure {
    bool badInput = true;
    std::string message;
};

/// Where an ensemble's runs stand, after each run.
struct EnsembleProgress {
    std::int64_t total = 0;   ///< the runs this call is for, those already done included
    std::int64_t done = 0;    ///< of total
    std::int64_t failed = 0;  ///< the runs of this call that failed
};

/// Which runs, how, and who hears of each.
struct EnsembleRunOptions {
    std::size_t jobs = 0;  ///< runs at once, a thread each; 0: one per CPU thread
    /// The runs whose index % shardCount is shardIndex (an array task's share).
    std::int64_t shardIndex = 0;
    std::int64_t shardCount = 1;
    std::vector<std::int64_t> only;  ///< these runs (again), whatever is done; not with a shard
    bool retryFailed = false;        ///< runs that failed are run again
    /// Checks the file, the folder and the options, and stops: nothing is made or run.
    bool validateOnly = false;
    /// Runs recorded as failed, "a fault injected by FISHSCHOOL_FAULT_RUNS" (the variable the
    /// CLI reads them from): a rehearsal of a cluster's failures.
    std::set<std::int64_t> faults;
    /// Re-runs the one run `only` names and writes its trajectory here (an H5MD file,
    /// docs/trajectories.md): a frame at step 0, every `trajectoryEvery` steps and at the last
    /// step, and the run's row's measures at its last step. Checked, written and put into place
    /// as every output is; its row is written again, as --only does.
    std::filesystem::path trajectory;
    std::int64_t trajectoryEvery = 1;  ///< >= 1
    /// After each run, on the thread that ran it, one call at a time.
    std::function<void(const EnsembleProgress&)> onProgress;
    /// Asks the call to stop (as Ctrl-C would): polled between runs and between the steps of
    /// each, so the call returns within a step of every run in flight, `stopped`. The runs in
    /// flight write no row; the rows written stay, and the same call goes on from there.
    std::stop_token stop{};
};

/// What a call ran.
struct EnsembleOutcome {
    std::int64_t total = 0;   ///< the runs of the call, those already done included
    std::int64_t ran = 0;     ///< run now, a row written for each
    std::int64_t failed = 0;  ///< of ran; their rows say why
    bool stopped = false;     ///< `stop` was requested: runs are left for the same call
};

/// Runs an ensemble file's runs (docs/ensembles.md) into `folder`, or resumes them there, as
/// `fishschool-cli ensemble run FILE --out FOLDER` does: the folder is new, empty, or this
/// ensemble's; each finished run is a row of a part file, so a stopped call loses at most the runs
/// in flight and the same call goes on from there.
FISHSCHOOL_API std::expected<EnsembleOutcome, EnsembleFailure> runEnsembleFile(
    const std::filesystem::path& file, const std::filesystem::path& folder,
    const EnsembleRunOptions& options = {});

/// What merging an ensemble's folder writes: the runs as one CSV sorted by run index, and
/// optionally each run's wall time and each point's summary over its replicates.
struct EnsembleMergeOutputs {
    std::filesystem::path csv{};
    std::filesystem::path timing{};   ///< empty: not written
    std::filesystem::path summary{};  ///< empty: not written
};

/// What a merge found.
struct EnsembleMerged {
    std::int64_t runs = 0;    ///< the ensemble's runs
    std::int64_t merged = 0;  ///< those with a row, merged
    std::int64_t failed = 0;  ///< of merged
};

/// Merges the runs done in an ensemble's folder (`fishschool-cli ensemble merge DIR`), part way or
/// whole: every output checked first, then written together, or none (their errors name the
/// output by its key, "csv", "timing" or "summary", unless `names` gives the program's flags).
/// `validateOnly`: the checks only.
[[nodiscard]] FISHSCHOOL_API Result<EnsembleMerged> mergeEnsembleFolder(
    const std::filesystem::path& folder, const EnsembleMergeOutputs& outputs,
    bool validateOnly = false);

/// How the indices' confidence intervals are found: the percentiles of the estimates over
/// `bootstrap` resamples of the base points, covering `confidence`.
struct SensitivityOptions {
    std::int64_t bootstrap = 1000;
    double confidence = 0.95;
    std::uint64_t seed = 0;  ///< of the resampling
};

/// The first-order and total Sobol indices of one measure for one parameter, with their
/// intervals.
struct SensitivityIndex {
    std::string measure;
    std::string parameter;
    double first = 0.0, firstLow = 0.0, firstHigh = 0.0;
    double total = 0.0, totalLow = 0.0, totalHigh = 0.0;
};

struct EnsembleSensitivity {
    std::int64_t samples = 0;  ///< N, the design's base points
    std::int64_t replicates = 1;
    std::vector<std::string> parameters;    ///< the axes, in order
    std::vector<SensitivityIndex> indices;  ///< by measure, then parameter
    /// The measures without indices and why: absent (no informed fish) or the same in every run.
    std::vector<std::pair<std::string, std::string>> skipped;
};

/// The Sobol indices of each measure of a finished ensemble of the "sobol" design
/// (`fishschool-cli ensemble sensitivity DIR`, docs/ensembles.md): each point's measures
/// averaged over its replicates, then Saltelli et al. (2010)'s first-order and Jansen's total
/// estimators, with bootstrap intervals. Refused (bad input) for a grid's folder, or one with a
/// run missing or failed.
[[nodiscard]] FISHSCHOOL_API Result<EnsembleSensitivity> ensembleSensitivity(
    const std::filesystem::path& folder, const SensitivityOptions& options = {});

/// The indices as CSV: measure,parameter,S1,S1_low,S1_high,ST,ST_low,ST_high, a row each.
FISHSCHOOL_API std::string sensitivityCsv(const EnsembleSensitivity& sensitivity);

}  // namespace fishschool
