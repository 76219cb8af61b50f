#include "PhaseSweep.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

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

}  // namespace

bool canVary(std::string_view key) {
    if (key == kOrientationWidth || key == kAttractionWidth) return true;
    static const nlohmann::json keys = nlohmann::json::parse(configToJson(SimParams{}));
    const auto found = keys.find(std::string(key));
    return found != keys.end() && found->is_number();
}

Result<SimParams> withVaried(const SimParams& base, std::string_view what, std::string_view key,
                             double value) {
    SimParams p = base;
    if (key == kOrientationWidth || key == kAttractionWidth) {
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
    if (!canVary(key))
        return fail(std::string(what) + ": " + quote(key) +
                    " is not allowed; must be orientation-width, attraction-width or a numeric "
                    "config key (docs/config.md)");
    if (takesWholeNumbers(key) && value != std::floor(value))
        return fail(std::string(what) + " " + std::string(key) + " = " + formatNumber(value) +
                    " is not allowed; " + std::string(key) + " takes whole numbers");
    if (takesWholeNumbers(key) && std::abs(value) > kMaxVariedWholeNumber)
        return fail(std::string(what) + " " + std::string(key) + " = " + formatVaried(key, value) +
                    " is not allowed; a varied value is a double, which cannot hold every whole "
                    "number above 2^53, so whole numbers vary up to 9007199254740991 (2^53 - 1)");
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
    if (key == kOrientationWidth) return {kOrientationWidthField, "rAlignment", "rCohesion"};
    if (key == kAttractionWidth) return {kAttractionWidthField, "rCohesion"};
    if (key == "rSeparation") return {key, kOrientationWidthField};
    if (key == "rAlignment") return {key, kOrientationWidthField, kAttractionWidthField};
    if (key == "rCohesion") return {key, kAttractionWidthField};
    return {key};
}

}  // namespace

std::string sharedField(std::string_view a, std::string_view b) {
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
