#include "PhaseSweep.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "ConfigIO.h"
#include "Metrics.h"
#include "Scenario.h"
#include "TextInput.h"

#include <nlohmann/json.hpp>

namespace fishschool {
namespace {

/// Steps `steps` times and averages the measures after each step of the last half.
PhasePoint runAt(Backend& backend, const SimParams& params, std::int64_t steps) {
    const std::int64_t measured = steps - steps / 2;  // (steps + 1) / 2, which overflows
    PhasePoint point;
    for (std::int64_t s = 0; s < steps; ++s) {
        backend.step();
        if (s < steps - measured) continue;
        const SchoolMetrics m = measureSchool(backend.download(), params);
        point.polarization += m.polarization;
        point.milling += m.milling;
    }
    if (measured > 0) {
        point.polarization /= double(measured);
        point.milling /= double(measured);
    }
    return point;
}

}  // namespace

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
    auto json = nlohmann::json::parse(configToJson(base));
    const auto found = json.find(std::string(key));
    if (found == json.end() || !found->is_number())
        return fail(std::string(what) + ": " + quote(key) +
                    " is not allowed; must be orientation-width, attraction-width or a numeric "
                    "config key (docs/config.md)");
    if (found->is_number_integer()) {
        if (value != std::floor(value) || std::abs(value) > 9e15)
            return fail(std::string(what) + " " + std::string(key) + " = " + formatNumber(value) +
                        " is not allowed; " + std::string(key) + " takes whole numbers");
        *found = static_cast<std::int64_t>(value);
    } else {
        *found = value;
    }
    auto varied = parseConfig(json.dump(), std::string(what) + " " + std::string(key));
    if (!varied) return fail(varied.error());
    return *varied;
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

std::vector<PhasePoint> runPhaseSweep(Backend& backend, const std::vector<double>& values,
                                      const std::vector<SimParams>& variedParams,
                                      std::int64_t steps, bool hysteresis) {
    std::vector<PhasePoint> points;
    if (values.empty()) return points;
    if (!hysteresis) {
        for (std::size_t i = 0; i < values.size(); ++i) {
            backend.setParams(variedParams[i]);
            backend.setStepCount(0);
            if (auto ok = backend.upload(makeInitialSchool(variedParams[i])); !ok) return points;
            PhasePoint point = runAt(backend, variedParams[i], steps);
            point.value = values[i];
            point.direction = "fresh";
            points.push_back(point);
        }
        return points;
    }
    backend.setParams(variedParams[0]);
    backend.setStepCount(0);
    if (auto ok = backend.upload(makeInitialSchool(variedParams[0])); !ok) return points;
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < values.size(); ++i) order.push_back(i);
    for (std::size_t i = values.size() - 1; i-- > 0;) order.push_back(i);
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t i = order[k];
        backend.setParams(variedParams[i]);
        PhasePoint point = runAt(backend, variedParams[i], steps);
        point.value = values[i];
        point.direction = k < values.size() ? "up" : "down";
        points.push_back(point);
    }
    return points;
}

std::string phaseCsv(const std::vector<PhasePoint>& points) {
    std::string csv = "value,direction,polarization,milling\n";
    for (const PhasePoint& p : points)
        csv += formatNumber(p.value) + "," + p.direction + "," + formatNumber(p.polarization) +
               "," + formatNumber(p.milling) + "\n";
    return csv;
}

}  // namespace fishschool
