#pragma once

// Ensembles (docs/ensembles.md): many runs of a school over a grid of parameter values and
// seeds. The file says what every run is; run i's parameters and seed follow from it and i
// alone. The one run loop of the ensemble and of `fishschool-cli phase` is runEnsemble().

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/Backend.h"
#include "fishschool/Distributions.h"
#include "fishschool/Metrics.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// An ensemble of more runs than this is refused: its part files alone would be gigabytes.
inline constexpr std::int64_t kMaxEnsembleRuns = 10'000'000;
/// A Sobol design of more runs than this is refused: its points are held in memory.
inline constexpr std::int64_t kMaxSobolRuns = 1'000'000;
/// An ensemble file larger than this is refused before it is read.
inline constexpr std::uintmax_t kMaxEnsembleFileBytes = 1ull << 20;

/// One varied key and its values, in the order the runs take them.
struct EnsembleAxis {
    std::string key;  ///< a numeric config key, "orientation-width" or "attraction-width"
    /// The grid's values; in a Sobol design the range, {from, to}.
    std::vector<double> values;
};

/// How an ensemble's points are laid out: the grid of its axes' values, or Saltelli's sampling
/// for Sobol indices (docs/ensembles.md, "Sensitivity").
enum class EnsembleDesign { Grid, Sobol };

/// What an ensemble file says, resolved (the base config read and validated).
struct EnsembleSpec {
    SimParams base;
    std::vector<EnsembleAxis> axes;  ///< the first varies slowest
    std::int64_t replicates = 1;     ///< runs at each point of the grid
    std::int64_t steps = 0;
    std::uint64_t seed = 0;  ///< the master seed
    /// The measures of a run: their mean over its last `window` steps, or (0) the final school.
    std::int64_t window = 0;
    std::string backend = "cpu";  ///< a name of the backend registry
    bool check = false;           ///< checkInvariants after every step; a violation fails the run
    /// `fishschool-cli phase` only: every run takes the base config's seed, not its own (but a
    /// "seed" axis, which only phase has, gives each run its value: planRun).
    bool seedFromBase = false;
    /// `phase --hysteresis` only: the runs are one chain in index order, each starting from the
    /// school the one before left, on one backend.
    bool chained = false;
    EnsembleDesign design = EnsembleDesign::Grid;
    std::int64_t samples = 0;  ///< Sobol design: the base points N
    /// The points in place of the grid, a value per axis each: a Sobol design's (saltelliPoints),
    /// or a fit's proposals. Empty: the grid of the axes.
    std::vector<std::vector<double>> points;
    /// A fit's runs: each point's own seed (its proposal's) for its replicate 0, in place of
    /// runSeed's; replicate r > 0 takes runSeed(that seed, r).
    std::vector<std::uint64_t> pointSeeds;
    /// A fit's runs only: every `measureEvery`-th step of the window is measured, counted back
    /// from the last, and each run's distributions are kept (RunRow::histograms).
    std::int64_t measureEvery = 1;
    bool histograms = false;

    /// The points (or the product of the axes' sizes) times the replicates (at most
    /// kMaxEnsembleRuns).
    std::int64_t runCount() const;
    /// The spec as one line of JSON with the base config in full: equal texts, equal runs.
    std::string canonicalJson() const;
    /// FNV-1a 64 of canonicalJson(), 16 hex digits: which ensemble a folder belongs to.
    std::string hash() const;
};

/// Reads an ensemble file's text; `source` names it in errors and `baseFolder` is where a `base`
/// path is read from (the file's folder). Unknown keys, wrong types, an empty axis, a key that
/// cannot vary, two axes that write one field (sharedField) and too many runs are errors naming
/// the key; every point of the grid is then checked with the config's own rules (withVaried), the
/// error naming the point and its first run. More than `maxRuns` runs are refused (a fuzz target
/// asks for fewer).
Result<EnsembleSpec> parseEnsemble(std::string_view text, std::string_view source,
                                   const std::filesystem::path& baseFolder,
                                   std::int64_t maxRuns = kMaxEnsembleRuns);
Result<EnsembleSpec> loadEnsemble(const std::filesystem::path& path);

/// Where run `index` lies: the value of each axis and its replicate.
struct RunPlan {
    std::int64_t index = 0;
    std::vector<double> values;  ///< one per axis
    std::int64_t replicate = 0;
    std::uint64_t seed = 0;
};

/// The seed is the run's own (runSeed), the base's (seedFromBase), or a "seed" axis's value.
RunPlan planRun(const EnsembleSpec& spec, std::int64_t index);
/// Run `index`'s seed: the (index + 1)-th output of SplitMix64 started at `masterSeed`.
std::uint64_t runSeed(std::uint64_t masterSeed, std::int64_t index);
/// The base with the plan's values and seed; an error (which parseEnsemble rules out) names them.
Result<SimParams> runParams(const EnsembleSpec& spec, const RunPlan& plan);

/// What one run gave.
struct RunRow {
    RunPlan plan;
    bool ok = true;
    std::string message;  ///< why it failed
    std::int64_t steps = 0;
    double wallSeconds = 0.0;
    SchoolMetrics measures;
    /// The distributions over the measured steps, where the spec asks for them (a fit's runs).
    Histograms histograms{};
};

/// Runs `spec`'s runs `runs` on `jobs` threads (the caller's thread alone for one job), each
/// worker pulling the next run as it finishes one. `backendFor(worker, params)` gives the
/// worker's backend, made once and kept; `onRow(worker, row)` is called on the worker's thread
/// after each run, and an error from it stops every worker and is returned. A run that fails is
/// a row; the others go on. Once `stop` is requested (polled between runs and between the steps
/// of each) the workers stop: the runs in flight are dropped, no row written for them.
struct EnsembleWork {
    std::vector<std::int64_t> runs;
    std::size_t jobs = 1;
    std::function<Result<Backend*>(std::size_t worker, const SimParams& params)> backendFor;
    std::function<Result<void>(std::size_t worker, const RunRow& row)> onRow;
    std::stop_token stop{};
};
/// The frames of a recorded run (`ensemble run --only I --trajectory`): `onFrame` gets the
/// school at step 0, every `every` steps and at the last step, on the worker's thread; an error
/// stops every worker and is returned, that run's row left unwritten.
struct EnsembleFrames {
    std::int64_t every = 1;
    std::function<Result<void>(const SimParams& params, std::int64_t step, const School& school)>
        onFrame;
};
Result<void> runEnsemble(const EnsembleSpec& spec, const EnsembleWork& work,
                         const EnsembleFrames& frames = {});

/// The CSV columns: "run", the axes' keys, "replicate,seed,status,steps", "wall_s" in part files
/// only, the measures (Metrics.h's names) and "message". Without its newline.
std::string ensembleCsvHeader(const std::vector<EnsembleAxis>& axes, bool withWall);
/// One row, newline included; numbers as formatNumber writes them, the message quoted.
std::string ensembleCsvRow(const RunRow& row, bool withWall);
/// A row of a part file (with wall_s) for `axisCount` axes; the error says what is wrong.
Result<RunRow> parseEnsembleCsvRow(std::string_view line, std::size_t axisCount);

/// The columns of `ensemble merge --summary`, a row per point of the grid: the axes' keys,
/// "runs,ok", the measures' means over the ok runs and "accuracy". Without its newline.
std::string ensembleSummaryHeader(const std::vector<EnsembleAxis>& axes);

/// The rows of one point of the grid (its replicates, which follow each other in run order),
/// summed in constant memory, as one row of `merge --summary`.
class PointSummary {
  public:
    void add(const RunRow& row);
    bool empty() const { return runs_ == 0; }
    /// Newline included: the point's values, its rows and ok rows, each measure's mean over the
    /// ok rows (empty where none has it), and the accuracy of their direction errors over the
    /// replicates (directionAccuracy: Couzin et al. 2005's, which a mean of rows cannot give).
    std::string csvRow() const;

  private:
    /// The ok rows with a direction error.
    std::int64_t directed() const;

    std::vector<double> values_;
    std::int64_t runs_ = 0, ok_ = 0;
    /// Per measure of kSchoolMeasures, over the ok rows that have it.
    std::array<double, kSchoolMeasures.size()> sums_{};
    std::array<std::int64_t, kSchoolMeasures.size()> counts_{};
    double cosines_ = 0.0;  ///< of the ok rows' direction errors
};

}  // namespace fishschool
