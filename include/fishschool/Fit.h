#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "fishschool/Export.h"
#include "fishschool/Result.h"

namespace fishschool {

/// Where a fit stands: after each simulation, and after each population.
struct FitProgress {
    std::int64_t population = 0;   ///< the population being made
    std::int64_t simulations = 0;  ///< run in all, those of earlier calls included
    std::int64_t budget = 0;
    std::int64_t accepted = 0;  ///< of the population, when it is complete; else 0
    bool populationDone = false;
    double epsilon = 0.0;  ///< the population's tolerance (infinite for population 0)
};

/// How a fit runs, and who hears of it.
struct FitRunOptions {
    std::size_t jobs = 0;  ///< simulations at once, a thread each; 0: one per CPU thread
    /// Checks the file, the target and the folder, and stops: nothing is made or run.
    bool validateOnly = false;
    /// After each simulation (on the thread that ran it) and each population, one call at a time.
    std::function<void(const FitProgress&)> onProgress;
    /// Asks the fit to stop (as Ctrl-C would): the simulations finished stay in the folder, and
    /// the same call goes on from there.
    std::stop_token stop{};
};

/// A parameter in one population: its weighted mean, median and central 90 % interval.
struct FitParameterSummary {
    std::string key;
    double mean = 0.0, median = 0.0, low = 0.0, high = 0.0;
};

struct FitPopulationSummary {
    std::int64_t number = 0;
    double epsilon = 0.0;
    std::int64_t simulations = 0;
    std::int64_t particles = 0;
    double acceptance = 0.0;     ///< particles / simulations
    double effectiveSize = 0.0;  ///< of its weights, 1 / sum w^2
    std::vector<FitParameterSummary> parameters;
    std::vector<double> scales;  ///< each statistic's divisor in its distances
};

struct FitOutcome {
    std::vector<FitPopulationSummary> populations;  ///< complete; the last is the posterior
    std::vector<std::string> keys;                  ///< the fitted parameters, in order
    std::vector<std::string> statistics;            ///< the summary statistics, in order
    std::vector<double> targets;                    ///< each statistic's target value
    std::vector<double> scales;                     ///< the last population's
    std::int64_t simulations = 0;                   ///< run for the populations, in all
    /// The schools a simulation runs and pools: one for each target trajectory.
    std::int64_t schoolsPerSimulation = 1;
    std::string stopReason;                         ///< why the fit ended here
    bool stopped = false;                           ///< asked to stop: the same call goes on
    /// The posterior's samples and weights (the last population), written when the fit ended
    /// for any reason but a request to stop; empty before population 0 is complete.
    std::filesystem::path posterior;
    /// The last population's particles: each one's values (in `keys`' order) and weight.
    std::vector<std::vector<double>> samples;
    std::vector<double> weights;
};

/// Fits the parameters of a fit file (docs/data.md, "Fitting a model") by ABC-SMC into `folder`,
/// or resumes the fit there, as `fishschool-cli fit FIT.json --out DIR` does: each population's
/// simulations run on every core, each finished simulation appended to the population's runs
/// file, and each finished population written as a CSV of its particles, weights and distances.
/// The same file and seed give the same populations, byte for byte, whatever `jobs` and however
/// often the call was stopped. A bad file, target, folder or option is ErrorKind::BadInput.
[[nodiscard]] FISHSCHOOL_API Result<FitOutcome> runFitFile(const std::filesystem::path& file,
                                                           const std::filesystem::path& folder,
                                                           const FitRunOptions& options = {});

}  // namespace fishschool
