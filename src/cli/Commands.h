#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "core/Backend.h"
#include "io/ConfigIO.h"
#include "io/ExitStatus.h"
#include "io/FlagValidators.h"

namespace fishschool::cli {

struct SimulateOptions {
    /// --config, --fish, --seed, --neighbors as typed, for loadParams (CLI11 would wrap a seed of
    /// "-1" to 2^64 - 1).
    ParamFlags params;
    std::string stateIn;
    std::string frame;  ///< --frame as typed: the frame of a trajectory --state-in starts from
    std::string stateOut;
    std::int64_t steps = 0;
    std::string backend = "cpu";
    bool check = false;  ///< --check: the invariants after every step
    /// Parse and validate the flags and the files they name, then stop (the fuzz targets).
    bool validateOnly = false;
    std::string metricsPath;      ///< --metrics: the school's measures as CSV
    std::string metricsEvery;     ///< --metrics-every as typed (a row every N steps)
    std::string changeConfig;     ///< --change-config: parameters that replace the running ones
    std::string changeAt;         ///< --change-at as typed: the step at which they do
    std::string trajectoryPath;   ///< --trajectory: the run's frames as an H5MD file
    std::string trajectoryEvery;  ///< --trajectory-every as typed (a frame every N steps)
};

struct BenchOptions {
    ParamFlags params;  ///< --config only: the fish and searches are lists here
    std::string backends = "cpu,tbb";
    std::string fish = "1000,2000,5000,10000";
    std::string neighbors;
    std::string density = "tank";
    std::int64_t steps = 20;
    std::int64_t warmup = 20;
    std::string csvPath;
    bool validateOnly = false;  ///< as SimulateOptions::validateOnly
};

struct PhaseOptions {
    ParamFlags params;  ///< --config only
    std::string vary;
    std::string from;  ///< as typed, read by parseFiniteNumber
    std::string to;
    std::int64_t count = 0;
    std::int64_t steps = 0;
    std::string csvPath;
    bool hysteresis = false;
    std::string backend = "cpu";
    std::size_t jobs = 0;       ///< --jobs: 0 for one per CPU thread
    bool validateOnly = false;  ///< as SimulateOptions::validateOnly
};

/// `ensemble run|status|merge|sensitivity` (docs/ensembles.md).
struct EnsembleOptions {
    std::string file;      ///< run: the ensemble file
    std::string folder;    ///< run: --out; status and merge: DIR
    std::size_t jobs = 0;  ///< --jobs: 0 for one per CPU thread
    std::string shard;     ///< --shard K/N as typed
    std::string only;      ///< --only i,j,... as typed
    bool retryFailed = false;
    bool dryRun = false;          ///< run --dry-run: every check, then exit
    std::string csvPath;          ///< merge --csv
    std::string timingPath;       ///< merge --timing
    std::string summaryPath;      ///< merge --summary
    std::string trajectoryPath;   ///< run --trajectory: run --only I's frames
    std::string trajectoryEvery;  ///< run --trajectory-every as typed
    std::string bootstrap;        ///< sensitivity --bootstrap as typed
    std::string confidence;       ///< sensitivity --confidence as typed
    std::string seed;             ///< sensitivity --seed as typed
    bool validateOnly = false;    ///< as SimulateOptions::validateOnly
};

/// `import TRACKS --out FILE.h5` (docs/data.md): numbers as typed.
struct ImportOptions {
    std::string input;
    std::string output;
    std::string format;
    std::string pixelsPerMetre;
    std::string bodyLengthMetres;
    std::string fps;
    std::string arena;
    bool validateOnly = false;  ///< as SimulateOptions::validateOnly
};

/// `measure FILE` (docs/data.md).
struct MeasureOptions {
    std::string file;
    std::string csvPath;         ///< --csv: the measures of every frame
    std::string histogramsPath;  ///< --histograms: the distributions, a row a bin
    bool validateOnly = false;   ///< as SimulateOptions::validateOnly
};

/// `compare A B` (docs/data.md).
struct CompareOptions {
    std::string a, b;
    std::string histogramsPath;  ///< --histograms: both files' distributions, a row a bin
    bool validateOnly = false;   ///< as SimulateOptions::validateOnly
};

/// `anisotropy FILE` (docs/data.md).
struct AnisotropyOptions {
    std::string file;
    std::int64_t neighbours = 10;  ///< --neighbours: gamma(n) for n = 1 to this
    std::int64_t first = 0;        ///< --first, --last: the frames, inclusive
    std::int64_t last = -1;        ///< -1: the last frame
    std::string csvPath;           ///< --csv: n, gamma, error, frames
    bool validateOnly = false;     ///< as SimulateOptions::validateOnly
};

/// `fit FIT.json --out DIR` (docs/data.md).
struct FitOptions {
    std::string file;
    std::string folder;
    std::size_t jobs = 0;       ///< --jobs: 0 for one per CPU thread
    bool dryRun = false;        ///< --dry-run: every check, then exit
    bool validateOnly = false;  ///< as SimulateOptions::validateOnly
};

/// The most workers --jobs takes.
inline constexpr std::int64_t kMaxJobs = 1024;

void addSimulateCommand(CLI::App& app, SimulateOptions& options);
void addBenchCommand(CLI::App& app, BenchOptions& options);
void addPhaseCommand(CLI::App& app, PhaseOptions& options);
void addEnsembleCommand(CLI::App& app, EnsembleOptions& options);
void addImportCommand(CLI::App& app, ImportOptions& options);
void addMeasureCommand(CLI::App& app, MeasureOptions& options);
void addCompareCommand(CLI::App& app, CompareOptions& options);
void addAnisotropyCommand(CLI::App& app, AnisotropyOptions& options);
void addFitCommand(CLI::App& app, FitOptions& options);

/// Exit status for a backend that could not be made: kExitBadInput when this machine cannot run
/// its kind at all (no GL context), kExitInternal when it could but failed (a school over the
/// GPU's limits, a shader the driver refused).
int backendFailure(BackendKind kind, const std::string& message);

/// Each returns the process exit status and prints its one error line to stderr.
int runSimulate(const SimulateOptions& options);
int runBench(const BenchOptions& options);
int runPhase(const PhaseOptions& options);
int runImport(const ImportOptions& options);
int runMeasure(const MeasureOptions& options);
int runCompare(const CompareOptions& options);
int runAnisotropy(const AnisotropyOptions& options);
int runFit(const FitOptions& options);
/// `command` is "run", "status", "merge" or "sensitivity".
int runEnsembleCommand(const std::string& command, const EnsembleOptions& options);

}  // namespace fishschool::cli
