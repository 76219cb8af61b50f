#pragma once

// Approximate Bayesian computation by sequential Monte Carlo (docs/data.md, "Fitting a model"):
// Toni et al. (2009) with Beaumont et al. (2009)'s weights and kernel. Population 0 is N draws
// from the prior; population t keeps the first N proposals, in index order, whose distance is
// within the tolerance, the weighted `quantile` of population t - 1's distances; a proposal is a
// particle of population t - 1 drawn by weight and moved by a Gaussian of twice the population's
// weighted covariance, drawn again until it lies within the prior. Nothing here runs a school:
// the simulator is a function, so that a test can fit a model whose posterior is known.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fishschool/Result.h"

namespace fishschool {

/// A parameter's prior: uniform on [low, high], or log-uniform there (uniform in its log,
/// 0 < low). The kernel moves a log-uniform parameter in its log.
struct Prior {
    std::string key;
    double low = 0.0, high = 1.0;
    bool logUniform = false;
};

/// A summary statistic: a simulation's value is compared with `target`, its difference divided by
/// the statistic's scale where `scaled` (else by 1: a Hellinger distance is already on a scale
/// from 0 to 1). The scales adapt (Prangle 2017): population t's are the median absolute
/// deviations of the statistics over the simulations of population t - 1 up to its last accepted
/// one (population 0's over its own), so that no statistic whose spread narrows as the fit does
/// comes to outweigh the others.
struct AbcStatistic {
    std::string name;
    double target = 0.0;
    bool scaled = true;
};

struct AbcSettings {
    std::vector<Prior> priors;
    std::vector<AbcStatistic> statistics;
    std::int64_t particles = 100;  ///< N, every population
    double quantile = 0.5;         ///< the tolerance: this weighted quantile of the last distances
    std::int64_t budget = 10000;   ///< the most simulations, every population together
    std::int64_t maxPopulations = 100;
    /// Stop after a population that accepted fewer of its simulations than this share.
    double minAcceptance = 0.0;
    std::uint64_t seed = 0;
};

/// One simulation to run: its index among its population's proposals, its parameters in the
/// priors' order and units, and its seed.
struct AbcProposal {
    std::int64_t index = 0;
    std::vector<double> values;
    std::uint64_t seed = 0;
};

struct AbcParticle {
    std::int64_t index = 0;      ///< its proposal's index in its population
    std::vector<double> values;  ///< in the priors' order and units
    double weight = 0.0;         ///< normalised: a population's weights sum to 1
    double distance = 0.0;
    std::vector<double> stats;  ///< the simulation's statistics, in the settings' order
};

struct AbcPopulation {
    std::int64_t number = 0;
    double epsilon = 0.0;          ///< the tolerance (infinite for population 0)
    std::int64_t simulations = 0;  ///< run for it, those after its N-th acceptance included
    std::vector<AbcParticle> particles;
    std::vector<double> scales;  ///< each statistic's divisor in its distances
    /// The statistics of its simulations up to its last accepted one, in index order: the next
    /// population's scales.
    std::vector<std::vector<double>> simulated;
    double acceptance() const;     ///< particles / simulations
    double effectiveSize() const;  ///< 1 / sum of squared weights
};

/// Why a fit stopped.
enum class AbcStop { Populations, Acceptance, Budget, Requested };
const char* describeStop(AbcStop stop);

struct AbcOutcome {
    std::vector<AbcPopulation> populations;  ///< complete ones; the last is the posterior
    std::vector<double> scales;              ///< the last population's
    std::int64_t simulations = 0;
    AbcStop stop = AbcStop::Populations;
};

/// What the fit asks of its caller.
struct AbcCallbacks {
    /// Runs the proposals (any order, any threads) and returns each one's statistics in the
    /// order given, NaN for a run that failed (never accepted); nullopt when asked to stop.
    std::function<Result<std::optional<std::vector<std::vector<double>>>>(
        std::int64_t population, const std::vector<AbcProposal>& proposals)>
        simulate;
    /// A population completed before (a fit resumed), `simulated` included; nullopt where there
    /// is none. May be empty: nothing is kept.
    std::function<Result<std::optional<AbcPopulation>>(std::int64_t population)> load;
    /// Keeps a completed population, before the next starts. May be empty.
    std::function<Result<void>(const AbcPopulation&)> save;
};

/// Checks the settings: each error names the key (priors' keys, the counts, the quantile).
Result<void> checkAbcSettings(const AbcSettings& settings);

/// Runs the fit, or resumes it from the populations `load` gives. Deterministic: the same
/// settings give the same populations, bit for bit, however the simulator spreads its runs.
Result<AbcOutcome> runAbcSmc(const AbcSettings& settings, const AbcCallbacks& callbacks);

/// The weighted quantile q of `values`: the least value whose weight and the smaller values'
/// reach q of the total.
double weightedQuantile(std::vector<double> values, std::vector<double> weights, double q);

/// A double as text that reads back to the same bits ("%.17g"): the files a fit resumes from.
std::string exactNumber(double value);

}  // namespace fishschool
