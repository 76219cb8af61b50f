#include "PhaseSweep.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/ParamTable.h"
#include "core/Scenario.h"
#include "fishschool/Metrics.h"
#include "io/ConfigIO.h"
#include "io/TextInput.h"

#include <nlohmann/json.hpp>

namespace fishschool {

namespace {

/// Whether config key `key` (numeric) is a count or a seed rather than a float.
bool takesWholeNumbers(std::string_view key) {
    const ParamInfo* info = findParam(key);
    return info && !std::holds_alternative<float SimParams::*>(info->field);
}

/// withVaried's "species[K].share".
Result<SimParams> withSpeciesShare(const SimParams& base, std::string_view what,
                                   std::string_view key, std::size_t k, double share) {
    const std::string named =
        std::string(what) + " " + std::string(key) + " = " + formatNumber(share);
    const std::string species = std::to_string(base.species.size());
    if (k >= base.species.size())
        return fail(named + ": the config has " + species +
                    " species, which is not allowed; species[K] must name one of them (K from 0)");
    if (!(share >= 0.0 && share <= 1.0))
        return fail(named + " is not allowed; a share is from 0 to 1");
    const double fish = share * double(base.fishCount);
    const double whole = std::nearbyint(fish);
    // A row says the share that ran: a share that rounds would say another one.
    if (std::abs(fish - whole) > 1e-9 * std::max(1.0, fish))
        return fail(named + ": " + formatNumber(share) + " of fishCount " +
                    std::to_string(base.fishCount) + " is " + formatNumber(fish) +
                    " fish, which is not allowed; a share must make whole fish");
    const auto count = static_cast<std::int64_t>(whole);
    if (base.species.size() == 1 && count != base.fishCount)
        return fail(named + " is not allowed with one species: the other " +
                    std::to_string(base.fishCount - count) + " fish need another species");
    SimParams p = base;
    p.species[k].count = count;
    // The rest to the other species as a new fish count would go to them (setFishCount).
    SimParams others = base;
    others.species.erase(others.species.begin() + std::ptrdiff_t(k));
    setFishCount(others, base.fishCount - count);
    for (std::size_t s = 0, o = 0; s < p.species.size(); ++s)
        if (s != k) p.species[s].count = others.species[o++].count;
    if (auto ok = validate(p); !ok) return fail(named + ": " + ok.error());
    return p;
}

}  // namespace

std::optional<std::size_t> speciesShareOf(std::string_view key) {
    constexpr std::string_view kPrefix = "species[", kSuffix = "].share";
    if (!key.starts_with(kPrefix) || !key.ends_with(kSuffix)) return std::nullopt;
    const std::string_view digits =
        key.substr(kPrefix.size(), key.size() - kPrefix.size() - kSuffix.size());
    if (digits.empty() || digits.size() > 2 || (digits.size() > 1 && digits[0] == '0'))
        return std::nullopt;
    std::size_t k = 0;
    for (const char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
        k = 10 * k + std::size_t(c - '0');
    }
    if (k >= kMaxSpecies) return std::nullopt;
    return k;
}

bool canVary(std::string_view key) {
    if (key == kOrientationWidth || key == kAttractionWidth || key == kDensity) return true;
    if (speciesShareOf(key)) return true;
    static const nlohmann::json keys = nlohmann::json::parse(configToJson(SimParams{}));
    const auto found = keys.find(std::string(key));
    return found != keys.end() && found->is_number();
}

Result<SimParams> withVaried(const SimParams& base, std::string_view what, std::string_view key,
                             double value) {
    SimParams p = base;
    if (key == kOrientationWidth || key == kAttractionWidth) {
        if (!(std::abs(value) <= std::numeric_limits<float>::max()))
            return fail(std::string(what) + " " + std::string(key) + " = " + formatNumber(value) +
                        " " + beyondFloatRange());
        const float attractionWidth = base.rCohesion - base.rAlignment;
        if (key == kOrientationWidth) {
            p.rAlignment = base.rSeparation + static_cast<float>(value);
            p.rCohesion = p.rAlignment + attractionWidth;
        } else {
            p.rCohesion = base.rAlignment + static_cast<float>(value);
        }
        if (auto ok = validate(p); !ok)
            return fail(std::string(what) + " " + std::string(key) + " = " + formatNumber(value) +
                        ": " + ok.error());
        return p;
    }
    if (key == kDensity) {
        const std::string named =
            std::string(what) + " " + std::string(key) + " = " + formatNumber(value);
        if (!(value > 0.0 && value <= 1e12))
            return fail(named + " is not allowed; a density is > 0 and at most 1e12");
        const double side = std::sqrt(double(base.fishCount) / value);
        p.bounds.x = p.bounds.z = static_cast<float>(0.5 * side);
        if (auto ok = validate(p); !ok) return fail(named + ": " + ok.error());
        return p;
    }
    if (const auto k = speciesShareOf(key)) return withSpeciesShare(base, what, key, *k, value);
    if (!canVary(key))
        return fail(std::string(what) + ": " + quote(key) +
                    " is not allowed; must be orientation-width, attraction-width, density, "
                    "species[K].share or a numeric config key (docs/config.md)");
    if (takesWholeNumbers(key) && value != std::floor(value))
        return fail(std::string(what) + " " + std::string(key) + " = " + formatNumber(value) +
                    " is not allowed; " + std::string(key) + " takes whole numbers");
    if (takesWholeNumbers(key) && std::abs(value) > kMaxVariedWholeNumber)
        return fail(std::string(what) + " " + std::string(key) + " = " + formatVaried(key, value) +
                    " is not allowed; a varied value is a double, which cannot hold every whole "
                    "number above 2^53, so whole numbers vary up to 9007199254740991 (2^53 - 1)");
    // The species' counts follow a new fish count, so that they still add up to it.
    if (key == keyOf(&SimParams::fishCount) && !base.species.empty() && value >= 0.0 &&
        value <= double(kMaxFishCount)) {
        SimParams dealt = base;
        setFishCount(dealt, static_cast<std::int64_t>(value));
        return withConfigNumber(dealt, key, value, std::string(what) + " " + std::string(key));
    }
    // Straight into the field, as a config file would set it: no JSON text a point (an
    // ensemble checks every point of its grid, up to 10^7).
    return withConfigNumber(base, key, value, std::string(what) + " " + std::string(key));
}

std::string formatVaried(std::string_view key, double value) {
    // Up to 2^64 %.0f writes the double's own value, at most 20 digits.
    if (takesWholeNumbers(key) && value == std::floor(value) && std::abs(value) <= 0x1p64) {
        char text[32];
        std::snprintf(text, sizeof text, "%.0f", value == 0.0 ? 0.0 : value);
        return text;
    }
    return formatNumber(value);
}

namespace {

constexpr std::string_view kOrientationWidthField = "rAlignment - rSeparation (orientation-width)";
constexpr std::string_view kAttractionWidthField = "rCohesion - rAlignment (attraction-width)";

/// What setting `key` sets (first) and changes besides: see sharedField.
std::vector<std::string_view> fieldsChangedBy(std::string_view key) {
    const std::string_view separation = keyOf(&SimParams::rSeparation);
    const std::string_view alignment = keyOf(&SimParams::rAlignment);
    const std::string_view cohesion = keyOf(&SimParams::rCohesion);
    if (key == kOrientationWidth) return {kOrientationWidthField, alignment, cohesion};
    if (key == kAttractionWidth) return {kAttractionWidthField, cohesion};
    if (key == separation) return {key, kOrientationWidthField};
    if (key == alignment) return {key, kOrientationWidthField, kAttractionWidthField};
    if (key == cohesion) return {key, kAttractionWidthField};
    if (key == kDensity) return {key, "bounds"};
    return {key};
}

}  // namespace

std::string sharedField(std::string_view a, std::string_view b) {
    // Each share deals the fish the other one sets.
    if (speciesShareOf(a) && speciesShareOf(b)) return "the species' counts";
    const auto changedByA = fieldsChangedBy(a), changedByB = fieldsChangedBy(b);
    auto changes = [](const std::vector<std::string_view>& fields, std::string_view field) {
        return std::find(fields.begin(), fields.end(), field) != fields.end();
    };
    // A config key's own field rather than a width, where both are shared.
    const bool aIsKey = a != kOrientationWidth && a != kAttractionWidth;
    for (const bool first : {aIsKey, !aIsKey}) {
        const auto& setter = first ? changedByA : changedByB;
        const auto& other = first ? changedByB : changedByA;
        if (changes(other, setter.front())) return std::string(setter.front());
    }
    return {};
}

std::vector<double> sweepValues(double from, double to, std::int64_t count) {
    std::vector<double> values;
    // Weighted ends rather than from + (to - from) * t: to - from overflows for -1e308 and 1e308.
    for (std::int64_t i = 0; i < count; ++i) {
        const double t = count == 1 ? 0.0 : double(i) / double(count - 1);
        values.push_back(i == 0 ? from : i == count - 1 ? to : from * (1.0 - t) + to * t);
    }
    return values;
}

EnsembleSpec phaseEnsemble(const SimParams& base, std::string_view key,
                           const std::vector<double>& values, std::int64_t steps, bool hysteresis) {
    EnsembleSpec sweep;
    sweep.base = base;
    sweep.axes.push_back({std::string(key), values});
    if (hysteresis)
        for (std::size_t i = values.size() - 1; i-- > 0;)
            sweep.axes.front().values.push_back(values[i]);
    sweep.steps = steps;
    sweep.window = steps - steps / 2;  // (steps + 1) / 2, which overflows
    sweep.seedFromBase = true;         // a "seed" axis gives each run its own (planRun)
    sweep.chained = hysteresis;
    return sweep;
}

Result<std::vector<PhasePoint>> runPhaseSweep(
    const EnsembleSpec& sweep, std::size_t jobs,
    const std::function<Result<Backend*>(std::size_t worker, const SimParams& params)>&
        backendFor) {
    const std::size_t count = sweep.axes.front().values.size();
    std::vector<PhasePoint> points(count);
    std::vector<std::string> errors(count);
    EnsembleWork work{.runs = {}, .jobs = jobs, .backendFor = backendFor, .onRow = {}};
    for (std::size_t i = 0; i < count; ++i) work.runs.push_back(std::int64_t(i));
    work.onRow = [&](std::size_t, const RunRow& row) -> Result<void> {
        const auto i = std::size_t(row.plan.index);
        PhasePoint& point = points[i];
        point.value = row.plan.values.front();
        point.direction = !sweep.chained ? "fresh" : i <= count / 2 ? "up" : "down";
        point.polarization = row.measures.polarization;
        point.milling = row.measures.milling;
        if (!row.ok)
            errors[i] = point.direction + " " + formatVaried(sweep.axes.front().key, point.value) +
                        ": " + row.message;
        return {};
    };
    if (auto ok = runEnsemble(sweep, work); !ok) return fail(ok.error());
    for (const std::string& error : errors)
        if (!error.empty()) return fail(error);
    return points;
}

std::string phaseCsv(std::string_view key, const std::vector<PhasePoint>& points) {
    std::string csv = "value,direction,polarization,milling\n";
    for (const PhasePoint& p : points)
        csv += formatVaried(key, p.value) + "," + p.direction + "," + formatNumber(p.polarization) +
               "," + formatNumber(p.milling) + "\n";
    return csv;
}

}  // namespace fishschool
