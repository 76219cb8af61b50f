#pragma once

// The phase sweep of `fishschool-cli phase`: one parameter varied over a range, the school's
// polarization and milling measured at each value, from fresh starts or along a hysteresis loop
// (Couzin et al. 2002's collective memory).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "Backend.h"
#include "Result.h"
#include "SimParams.h"
#include "TextInput.h"  // parseFiniteNumber, for --from and --to

namespace fishschool {

/// The keys `--vary` takes besides the numeric config keys.
inline constexpr std::string_view kOrientationWidth = "orientation-width";
inline constexpr std::string_view kAttractionWidth = "attraction-width";

/// `base` with `key` set to `value`, validated. "orientation-width" (Δr_o) sets
/// rAlignment = rSeparation + value and moves rCohesion with it, so that r_r and Δr_a
/// (rCohesion - rAlignment) stay; "attraction-width" (Δr_a) sets rCohesion = rAlignment + value;
/// any other key must be a numeric key of the config. The error names `what` (the flag), the
/// key or the value and what is allowed.
Result<SimParams> withVaried(const SimParams& base, std::string_view what, std::string_view key,
                             double value);

/// `count` values evenly from `from` to `to`, both included (`from` alone when count is 1).
std::vector<double> sweepValues(double from, double to, std::int64_t count);

/// One row of the sweep: the measures averaged over the last half of the run at `value`.
struct PhasePoint {
    double value = 0.0;
    std::string direction;  ///< "fresh", "up" or "down"
    double polarization = 0.0;
    double milling = 0.0;
};

/// Runs the sweep on `backend`. Fresh starts: at each value a new school from the value's
/// params (makeInitialSchool) and `steps` steps. Hysteresis: one school from the first value's
/// params, `steps` steps at each value up, then at each value down again (the top value once).
/// `variedParams` holds withVaried's result for every value, in order.
std::vector<PhasePoint> runPhaseSweep(Backend& backend, const std::vector<double>& values,
                                      const std::vector<SimParams>& variedParams,
                                      std::int64_t steps, bool hysteresis);

/// "value,direction,polarization,milling" and a row per point, numbers to 9 significant digits.
std::string phaseCsv(const std::vector<PhasePoint>& points);

}  // namespace fishschool
