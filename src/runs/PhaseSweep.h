#pragma once

// The phase sweep of `fishschool-cli phase`: one parameter varied over a range, the school's
// polarization and milling measured at each value, from fresh starts or along a hysteresis loop
// (Couzin et al. 2002's collective memory).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Ensemble.h"
#include "core/Backend.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"
#include "io/TextInput.h"  // parseFiniteNumber, for --from and --to

namespace fishschool {

/// The keys `--vary` takes besides the numeric config keys.
inline constexpr std::string_view kOrientationWidth = "orientation-width";
inline constexpr std::string_view kAttractionWidth = "attraction-width";
/// Fish per unit area of the tank's x-z square (Vicsek et al. 1995's density, for a school in 2D):
/// sets the half extents x and z to sqrt(fishCount / density) / 2. An axis of fishCount goes
/// before it.
inline constexpr std::string_view kDensity = "density";

/// The largest whole number a varied key takes (2^53 - 1): values are doubles, which hold every
/// whole number only up to 2^53 (2^53 + 1 reads as 2^53), so a larger seed could not be the
/// one a row says.
inline constexpr double kMaxVariedWholeNumber = 9007199254740991.0;

/// Whether withVaried takes `key`: the two widths, the density, the numeric config keys and a
/// species' share ("species[K].share").
bool canVary(std::string_view key);

/// The species K of a "species[K].share" key (K from 0 to kMaxSpecies - 1, written without sign
/// or leading zero); nullopt for any other key.
std::optional<std::size_t> speciesShareOf(std::string_view key);

/// `base` with `key` set to `value`, validated. "orientation-width" (Δr_o) sets
/// rAlignment = rSeparation + value and moves rCohesion with it, so that r_r and Δr_a
/// (rCohesion - rAlignment) stay; "attraction-width" (Δr_a) sets rCohesion = rAlignment + value;
/// "species[K].share" (0 to 1) gives species K that share of fishCount, which must be a whole
/// number of fish, and deals the rest to the other species in proportion to their counts (evenly
/// where all are 0); "fishCount" with species deals the new count to them in proportion to their
/// counts (the largest remainders rounded up, the first species on a tie); any other key must be a
/// numeric key of the config (a whole-number key: a whole number up to kMaxVariedWholeNumber). The
/// error names `what` (the flag), the key or the value and what is allowed.
[[nodiscard]] Result<SimParams> withVaried(const SimParams& base, std::string_view what,
                                           std::string_view key, double value);

/// `value` of `key` as rows and messages show it: a whole-number key's value in full digits
/// (a seed of 20000001 is not "2e+07"), any other as formatNumber shows it.
std::string formatVaried(std::string_view key, double value);

/// What two keys that vary at once both write, or empty when neither changes the value the other
/// sets, in either order. Each key sets one quantity and changes others: a config key sets
/// itself, and rSeparation, rAlignment and rCohesion also change the widths made of them;
/// orientation-width sets rAlignment - rSeparation and moves rAlignment and rCohesion;
/// attraction-width sets rCohesion - rAlignment and moves rCohesion. So the two widths go together
/// (each holds the other), and rSeparation goes with attraction-width; rCohesion and
/// attraction-width share "rCohesion", orientation-width and rSeparation share
/// "rAlignment - rSeparation (orientation-width)".
std::string sharedField(std::string_view a, std::string_view b);

/// `count` values evenly from `from` to `to`, both included (`from` alone when count is 1).
std::vector<double> sweepValues(double from, double to, std::int64_t count);

/// One row of the sweep: the measures averaged over the last half of the run at `value`.
struct PhasePoint {
    double value = 0.0;
    std::string direction;  ///< "fresh", "up" or "down"
    double polarization = 0.0;
    double milling = 0.0;
};

/// The ensemble of a sweep: `key` over `values` from `base` (its seed for every run, but when
/// `key` is "seed": then each run's seed is its value), the measures averaged over the last half
/// of each run ((steps + 1) / 2 steps). With `hysteresis`
/// the runs are one chain, the values up and then down again (the top value once), one school
/// carried through them; else each value starts from a new school (makeInitialSchool).
EnsembleSpec phaseEnsemble(const SimParams& base, std::string_view key,
                           const std::vector<double>& values, std::int64_t steps, bool hysteresis);

/// Runs a phaseEnsemble on `jobs` threads (runEnsemble): a point per run, in run order, its
/// direction "fresh", or "up" then "down". The first run that fails is the error.
Result<std::vector<PhasePoint>> runPhaseSweep(
    const EnsembleSpec& sweep, std::size_t jobs,
    const std::function<Result<Backend*>(std::size_t worker, const SimParams& params)>& backendFor);

/// "value,direction,polarization,milling" and a row per point, the value of `key` as
/// formatVaried shows it, the measures to 9 significant digits.
std::string phaseCsv(std::string_view key, const std::vector<PhasePoint>& points);

}  // namespace fishschool
