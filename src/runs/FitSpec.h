#pragma once

// A fit file (FIT.json, docs/data.md "Fitting a model"): the base config, the parameters to fit
// with their priors, the target trajectory and the statistics it is summarised by, the runs'
// length and measure window, and the ABC-SMC settings. Parsing reads the base config but not the
// target, so that a fuzz target can parse any text.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "fishschool/Result.h"
#include "fishschool/SimParams.h"
#include "runs/AbcSmc.h"

namespace fishschool {

/// A fit file larger than this is refused before it is read.
inline constexpr std::uintmax_t kMaxFitFileBytes = 1ull << 20;
/// The most parameters a fit takes, particles a population holds and simulations a budget.
inline constexpr std::size_t kMaxFitParameters = 16;
inline constexpr std::int64_t kMaxFitParticles = 100'000;
inline constexpr std::int64_t kMaxFitBudget = 1'000'000'000;
inline constexpr std::int64_t kMaxFitPopulations = 1000;
/// The most target trajectories a fit takes: each proposal runs a school for each.
inline constexpr std::size_t kMaxFitTargets = 100;

struct FitSpec {
    SimParams base;
    /// The priors, in the file's order: the order the values are set in each run.
    std::vector<Prior> priors;
    /// The target trajectories (trials of one experiment), read from the fit file's folder, and
    /// the steps of their frames that are measured (both included). Their frames are pooled, and
    /// each proposal runs as many schools, their frames pooled the same way.
    std::vector<std::filesystem::path> targets;
    std::int64_t targetFrom = 0;
    std::int64_t targetTo = std::int64_t(1) << 62;
    /// The statistics: each measure's mean over the window (kSchoolMeasures' columns), the
    /// Hellinger distance of each distribution (kDistributions' names) to the target's, and
    /// quantiles of distributions (histogramQuantile), in that order.
    std::vector<std::string> measures;
    std::vector<std::string> distributions;
    struct Quantile {
        std::string distribution;
        double share = 0.5;        ///< of the values below it, from 0 to 1 (both excluded)
        std::string name() const;  ///< its statistic's column, "turn_axis_change_q0.1"
    };
    std::vector<Quantile> quantiles;
    /// The distributions the statistics read, through a Hellinger distance or a quantile.
    std::vector<std::string> distributionsRead() const;
    std::int64_t steps = 0;
    std::int64_t window = 0;  ///< the last `window` steps of a run are measured...
    std::int64_t every = 1;   ///< ...every `every`-th, counted back from the last
    std::string backend = "cpu";
    /// The ABC-SMC settings; their statistics' targets are filled in once the target is read.
    AbcSettings abc;

    /// The fit as one line of JSON, the base config in full and the target by its path: equal
    /// texts, equal fits. The budget, the populations and min_acceptance are left out: they say
    /// when to stop, not what a population is, so a fit can be taken further with a larger one.
    std::string canonicalJson() const;
    std::string hash() const;  ///< FNV-1a 64 of canonicalJson(), 16 hex digits
};

/// Reads a fit file's text; `source` names it in errors and `folder` is where a `base` or a
/// target path is read from (the file's folder). Unknown keys, wrong types, missing keys, an
/// empty range, a negative budget, a parameter that cannot vary or that writes what another does,
/// an unknown statistic are errors naming the key and what is allowed.
Result<FitSpec> parseFit(std::string_view text, std::string_view source,
                         const std::filesystem::path& folder);
Result<FitSpec> loadFit(const std::filesystem::path& path);

/// The base with the values of `priors`' keys set in order, validated (withVaried).
Result<SimParams> fitParams(const FitSpec& spec, const std::vector<double>& values);

}  // namespace fishschool
