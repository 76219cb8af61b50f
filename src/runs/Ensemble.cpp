#include "Ensemble.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "JsonKeys.h"

#include "PhaseSweep.h"
#include "Sobol.h"
#include "core/Invariants.h"
#include "core/Scenario.h"
#include "io/ConfigIO.h"
#include "io/JsonText.h"
#include "io/StateIO.h"
#include "io/TextFiles.h"
#include "io/TextInput.h"

namespace fishschool {
namespace {

// Ordered: the axes vary in the order the file writes them.
using Json = nlohmann::ordered_json;

using json_keys::numberKey;
using json_keys::where;
using json_keys::wholeNumberKey;

/// The longest wall_s a part file's row may give: over 31 years.
constexpr double kMaxWallSeconds = 1e9;

/// An axis: a list of numbers, or {"from", "to", "count"}. A range of more than `maxCount` values
/// is refused before its values are made: with the axes before it, it would pass the run limit.
Result<std::vector<double>> readAxisValues(const Json& value, const std::string& source,
                                           const std::string& key, std::int64_t maxCount,
                                           std::int64_t maxRuns) {
    constexpr const char* kShape =
        "must be a non-empty list of numbers or {\"from\": A, \"to\": B, \"count\": K}";
    if (value.is_array()) {
        if (value.empty())
            return fail(where(source, key) + "an empty axis is not allowed; " + kShape);
        std::vector<double> values;
        for (std::size_t k = 0; k < value.size(); ++k) {
            auto v = numberKey(value[k], source, key + "[" + std::to_string(k) + "]");
            if (!v) return fail(v.error());
            values.push_back(*v);
        }
        return values;
    }
    if (!value.is_object()) return fail(where(source, key) + kShape + ", got " + value.type_name());
    for (const auto& [name, _] : value.items())
        if (name != "from" && name != "to" && name != "count")
            return fail(where(source, key + "." + name) +
                        "unknown key; a range has only \"from\", \"to\" and \"count\"");
    for (const char* name : {"from", "to", "count"})
        if (!value.contains(name))
            return fail(where(source, key) + "a range needs \"from\", \"to\" and \"count\"");
    auto from = numberKey(value["from"], source, key + ".from");
    if (!from) return fail(from.error());
    auto to = numberKey(value["to"], source, key + ".to");
    if (!to) return fail(to.error());
    auto count = wholeNumberKey(value["count"], source, key + ".count", 1, maxRuns);
    if (!count) return fail(count.error());
    if (*count > maxCount)
        return fail(where(source, key + ".count") + std::to_string(*count) +
                    " values, with the axes before it, make more than " + std::to_string(maxRuns) +
                    " runs; split the ensemble into several files");
    return sweepValues(*from, *to, *count);
}

/// A Sobol design's axis: {"from": A, "to": B}, A < B, as {A, B}.
Result<std::vector<double>> readRange(const Json& value, const std::string& source,
                                      const std::string& key) {
    constexpr const char* kShape =
        "in a \"sobol\" design an axis is a range {\"from\": A, \"to\": B} with A < B";
    if (!value.is_object()) return fail(where(source, key) + kShape + ", got " + value.type_name());
    for (const auto& [name, _] : value.items())
        if (name != "from" && name != "to")
            return fail(where(source, key + "." + name) + "unknown key; " + kShape);
    if (!value.contains("from") || !value.contains("to")) return fail(where(source, key) + kShape);
    auto from = numberKey(value["from"], source, key + ".from");
    if (!from) return fail(from.error());
    auto to = numberKey(value["to"], source, key + ".to");
    if (!to) return fail(to.error());
    if (!(*from < *to))
        return fail(where(source, key) + "from " + formatNumber(*from) + " to " +
                    formatNumber(*to) + " is an empty range; " + kShape);
    return std::vector<double>{*from, *to};
}

/// "orientation-width = 3, attraction-width = 0.5"
std::string describeValues(const std::vector<EnsembleAxis>& axes,
                           const std::vector<double>& values) {
    std::string text;
    for (std::size_t a = 0; a < axes.size(); ++a)
        text += (a ? ", " : "") + axes[a].key + " = " + formatVaried(axes[a].key, values[a]);
    return text;
}

/// Checks every point of the grid with the config's rules, sharing the work of a prefix.
Result<void> checkGrid(const EnsembleSpec& spec, const std::string& source, std::size_t axis,
                       const SimParams& params, std::vector<double>& values,
                       std::int64_t firstRun) {
    if (axis == spec.axes.size()) return {};
    std::int64_t runsPerValue = spec.replicates;
    for (std::size_t a = axis + 1; a < spec.axes.size(); ++a)
        runsPerValue *= std::int64_t(spec.axes[a].values.size());
    for (std::size_t k = 0; k < spec.axes[axis].values.size(); ++k) {
        values[axis] = spec.axes[axis].values[k];
        const std::int64_t run = firstRun + std::int64_t(k) * runsPerValue;
        auto varied = withVaried(params, "axes", spec.axes[axis].key, values[axis]);
        if (!varied) {
            std::vector<double> shown(values.begin(), values.begin() + std::ptrdiff_t(axis) + 1);
            std::vector<EnsembleAxis> named(spec.axes.begin(),
                                            spec.axes.begin() + std::ptrdiff_t(axis) + 1);
            return fail(source + ": run " + std::to_string(run) + " (" +
                        describeValues(named, shown) + "): " + varied.error());
        }
        if (auto ok = checkGrid(spec, source, axis + 1, *varied, values, run); !ok) return ok;
    }
    return {};
}

std::uint64_t splitMix64(std::uint64_t state) {
    state = (state ^ (state >> 30)) * 0xBF58476D1CE4E5B9ull;
    state = (state ^ (state >> 27)) * 0x94D049BB133111EBull;
    return state ^ (state >> 31);
}

/// One run on `backend`: from a new school, or (`fresh` false) from the school it holds.
/// Run `row`'s run; `dropped` when `stop` was requested before its last step (it has no row).
RunRow runOne(Backend& backend, const EnsembleSpec& spec, RunRow row, const SimParams& params,
              bool fresh, const EnsembleFrames& frames, std::string& frameError,
              const std::stop_token& stop, bool& dropped) {
    // The frames of a recorded run: downloads that change nothing of the run's bits.
    const auto frame = [&](std::int64_t step) {
        if (!frames.onFrame || !frameError.empty()) return;
        if (step != 0 && step != spec.steps && step % frames.every != 0) return;
        if (auto ok = frames.onFrame(params, step, backend.download()); !ok)
            frameError = ok.error();
    };
    if (auto ok = backend.setParams(params); !ok) {
        row.ok = false;
        row.message = ok.error();
        return row;
    }
    if (fresh) {
        backend.setStepCount(0);
        if (auto ok = backend.upload(makeInitialSchool(params)); !ok) {
            row.ok = false;
            row.message = ok.error();
            return row;
        }
    }
    frame(0);
    const std::int64_t window = spec.window;
    SchoolMetrics sum;
    std::int64_t measuredSteps = 0;
    if (spec.histograms) row.histograms = emptyHistograms();
    // The two frames measured before: each fish's turns since them.
    School previous, beforePrevious;
    for (std::int64_t s = 0; s < spec.steps; ++s) {
        if (stop.stop_requested()) {
            dropped = true;
            return row;
        }
        backend.step();
        row.steps = s + 1;
        if (auto ok = backend.health(); !ok) {
            row.ok = false;
            row.message = "step " + std::to_string(s + 1) + ": " + ok.error();
            return row;
        }
        frame(s + 1);
        if (!frameError.empty()) return row;
        const bool measured =
            window > 0 && s >= spec.steps - window && (spec.steps - 1 - s) % spec.measureEvery == 0;
        if (!spec.check && !measured) continue;
        const School school = backend.download();
        if (spec.check)
            if (auto ok = checkInvariants(school, params); !ok) {
                row.ok = false;
                row.message = "check after step " + std::to_string(s + 1) + ": " + ok.error();
                return row;
            }
        if (!measured) continue;
        ++measuredSteps;
        const SchoolMetrics m = spec.histograms ? measureFrame(school, {}, params, row.histograms,
                                                               {previous}, {beforePrevious})
                                                      .measures
                                                : measureSchool(school, params);
        if (spec.histograms) {
            beforePrevious = std::move(previous);
            previous = school;
        }
        // A direction error is NaN throughout when no fish is informed, and so is its mean.
        for (const SchoolMeasure& measure : kSchoolMeasures)
            sum.*measure.member += m.*measure.member;
    }
    if (window == 0) {
        const School school = backend.download();
        row.measures = spec.histograms ? measureFrame(school, {}, params, row.histograms).measures
                                       : measureSchool(school, params);
    } else {
        const double n = double(measuredSteps);
        for (const SchoolMeasure& measure : kSchoolMeasures)
            row.measures.*measure.member = sum.*measure.member / n;
    }
    if (auto ok = backend.health(); !ok) {
        row.ok = false;
        row.message = ok.error();
    }
    return row;
}

/// A message on one CSV line: quoted, quotes doubled, line breaks as spaces.
std::string csvQuoted(std::string_view text) {
    if (text.empty()) return {};
    std::string out = "\"";
    for (char c : text) {
        if (c == '"')
            out += "\"\"";
        else if (c == '\n' || c == '\r')
            out += ' ';
        else
            out += c;
    }
    return out + "\"";
}

}  // namespace

std::int64_t EnsembleSpec::runCount() const {
    if (!points.empty()) return std::int64_t(points.size()) * replicates;
    std::int64_t runs = replicates;
    for (const EnsembleAxis& axis : axes) runs *= std::int64_t(axis.values.size());
    return runs;
}

std::string EnsembleSpec::canonicalJson() const {
    Json axesJson = Json::array();
    for (const EnsembleAxis& axis : axes) axesJson.push_back({axis.key, axis.values});
    Json root = {
        {"base", Json::parse(configToJson(base))},
        {"axes", axesJson},
        {"replicates", replicates},
        {"steps", steps},
        {"seed", seed},
        {"window", window},
        {"backend", backend},
        {"check", check},
        {"seedFromBase", seedFromBase},
        {"chained", chained},
    };
    // Only where it is not the grid: a grid's hash is what it was before designs.
    if (design == EnsembleDesign::Sobol) {
        root["design"] = "sobol";
        root["samples"] = samples;
    }
    return root.dump();
}

std::string EnsembleSpec::hash() const {
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (unsigned char c : canonicalJson()) h = (h ^ c) * 0x100000001B3ull;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

Result<EnsembleSpec> parseEnsemble(std::string_view text, std::string_view sourceName,
                                   const std::filesystem::path& baseFolder, std::int64_t maxRuns) {
    const std::string source(sourceName);
    auto parsed = parseJsonText(text, source);
    if (!parsed) return fail(parsed.error());
    const Json& root = *parsed;
    if (!root.is_object())
        return fail(source + ": an ensemble file must be a JSON object, got " + root.type_name());
    EnsembleSpec spec;
    std::int64_t points = 1;  // the product of the axes read so far
    // The design first: it says how the axes read, wherever the file puts it.
    if (root.contains("design")) {
        const Json& design = root["design"];
        if (design == "sobol")
            spec.design = EnsembleDesign::Sobol;
        else if (design != "grid")
            return fail(where(source, "design") + quote(design.dump()) +
                        " is not allowed; must be \"grid\" (the default: every value of every "
                        "axis with every other) or \"sobol\" (Saltelli's sampling of the axes' "
                        "ranges, for Sobol indices)");
    }
    const bool sobol = spec.design == EnsembleDesign::Sobol;
    if (sobol != root.contains("samples"))
        return fail(sobol ? source +
                                ": key 'samples' is missing; a \"sobol\" design needs the "
                                "number of base points N, its runs N (k + 2) for k axes"
                          : where(source, "samples") +
                                "is for a \"sobol\" design only; a grid's runs are its axes' "
                                "values");
    if (sobol) {
        auto n = wholeNumberKey(root["samples"], source, "samples", 1, kMaxSobolSamples);
        if (!n) return fail(n.error());
        spec.samples = *n;
    }
    for (const auto& [key, value] : root.items()) {
        if (key == "base") {
            if (value.is_object()) {
                auto base = parseConfig(value.dump(), source + ": base");
                if (!base) return fail(base.error());
                spec.base = *base;
            } else if (value.is_string() && !value.get<std::string>().empty() &&
                       value.get<std::string>().find('\0') == std::string::npos) {
                // (A NUL would end the path early, and another file would be read.)
                // Read beside the ensemble file, and named in full, so an error says where.
                std::error_code ignored;
                std::filesystem::path resolved =
                    std::filesystem::absolute(baseFolder / value.get<std::string>(), ignored);
                if (resolved.empty()) resolved = baseFolder / value.get<std::string>();
                auto base = loadConfig(resolved.lexically_normal());
                if (!base)
                    return fail(where(source, key) + base.error() +
                                " (a base path is read from the ensemble file's folder)");
                spec.base = *base;
            } else {
                return fail(where(source, key) +
                            "must be a config object or the path of a config file, got " +
                            quote(value.dump()));
            }
        } else if (key == "axes") {
            if (!value.is_object())
                return fail(where(source, key) +
                            "must be an object of keys to vary, each with a list of values or "
                            "{\"from\", \"to\", \"count\"}, got " +
                            value.type_name());
            for (const auto& [axisKey, axisValue] : value.items()) {
                if (axisKey == "seed")
                    return fail(where(source, "axes.seed") +
                                "the seed cannot vary: each run's seed follows from the master "
                                "\"seed\" and the run index; give \"replicates\" for more seeds");
                auto values = sobol ? readRange(axisValue, source, "axes." + axisKey)
                                    : readAxisValues(axisValue, source, "axes." + axisKey,
                                                     maxRuns / points, maxRuns);
                if (!values) return fail(values.error());
                if (sobol && spec.axes.size() == kMaxSobolParameters)
                    return fail(where(source, "axes." + axisKey) +
                                "a \"sobol\" design takes at "
                                "most " +
                                std::to_string(kMaxSobolParameters) + " axes");
                if (!canVary(axisKey))
                    return fail(where(source, "axes." + axisKey) +
                                "this key cannot vary; an axis is orientation-width, "
                                "attraction-width, species[K].share or a numeric config key "
                                "(docs/config.md)");
                // Two axes that write one field: in one order or the other, one would change the
                // value the other set, and a row would name a run that never ran.
                for (const EnsembleAxis& before : spec.axes)
                    if (const std::string field = sharedField(before.key, axisKey); !field.empty())
                        return fail(where(source, "axes." + axisKey) + "axes " + quote(before.key) +
                                    " and " + quote(axisKey) + " both write " + field +
                                    ": a run could not have both values; vary one of them");
                // A share is of the run's fishCount: set after it, so that it stays exact.
                for (const EnsembleAxis& before : spec.axes)
                    if (speciesShareOf(before.key) && axisKey == "fishCount")
                        return fail(where(source, "axes.fishCount") + "axis " + quote(before.key) +
                                    " comes before fishCount, which would deal its fish anew; a "
                                    "share is of the run's fishCount: put fishCount first");
                points *= std::max<std::int64_t>(1, std::int64_t(values->size()));
                spec.axes.push_back({axisKey, std::move(*values)});
            }
        } else if (key == "replicates") {
            auto n = wholeNumberKey(value, source, key, 1, maxRuns);
            if (!n) return fail(n.error());
            spec.replicates = *n;
        } else if (key == "steps") {
            auto n = wholeNumberKey(value, source, key, 1, std::int64_t(1) << 40);
            if (!n) return fail(n.error());
            spec.steps = *n;
        } else if (key == "seed") {
            if (!value.is_number_unsigned())
                return fail(where(source, key) + "must be a whole number from 0 to " +
                            std::to_string(std::numeric_limits<std::uint64_t>::max()) + ", got " +
                            quote(value.dump()));
            spec.seed = value.get<std::uint64_t>();
        } else if (key == "measure") {
            constexpr const char* kAllowed =
                "must be \"final\" (the final school) or {\"last\": W} (the mean over the last W "
                "steps)";
            if (value == "final") {
                spec.window = 0;
            } else if (value.is_object() && value.size() == 1 && value.contains("last")) {
                auto w =
                    wholeNumberKey(value["last"], source, "measure.last", 1, std::int64_t(1) << 40);
                if (!w) return fail(w.error());
                spec.window = *w;
            } else {
                return fail(where(source, key) + quote(value.dump()) + " is not allowed; " +
                            kAllowed);
            }
        } else if (key == "backend") {
            if (!value.is_string() || value.get<std::string>().empty())
                return fail(where(source, key) + "must be a string, the name of a backend, got " +
                            quote(value.dump()));
            spec.backend = value.get<std::string>();
        } else if (key == "design" || key == "samples") {
            continue;  // read first
        } else if (key == "check") {
            if (!value.is_boolean())
                return fail(where(source, key) + "must be true or false, got " +
                            quote(value.dump()));
            spec.check = value.get<bool>();
        } else {
            return fail(where(source, key) +
                        "unknown key; an ensemble file has base, axes, replicates, steps, seed, "
                        "measure, backend, check, design and samples (docs/ensembles.md)");
        }
    }
    for (const char* required : {"axes", "steps"})
        if (!root.contains(required))
            return fail(source + ": key '" + required + "' is missing; it is required");
    if (spec.window > spec.steps)
        return fail(where(source, "measure.last") + std::to_string(spec.window) +
                    " is not allowed; must be at most steps (" + std::to_string(spec.steps) + ")");
    if (sobol) {
        if (spec.axes.empty())
            return fail(where(source, "axes") +
                        "a \"sobol\" design needs at least one axis, a range {\"from\": A, "
                        "\"to\": B}");
        // N (k + 2) points, refused before they are made.
        // Each point is held in memory (k numbers): fewer than a grid's runs.
        const std::int64_t most = std::min(maxRuns, kMaxSobolRuns);
        const auto perSample = std::int64_t(spec.axes.size() + 2) * spec.replicates;
        if (spec.samples > most / perSample)
            return fail(source + ": " + std::to_string(spec.samples) + " samples x (" +
                        std::to_string(spec.axes.size()) + " axes + 2) x " +
                        std::to_string(spec.replicates) + " replicates is more than " +
                        std::to_string(most) + " runs; take fewer samples");
        std::vector<ParameterRange> ranges;
        for (const EnsembleAxis& axis : spec.axes)
            ranges.push_back({axis.values[0], axis.values[1]});
        spec.points = saltelliPoints(ranges, spec.samples);
        for (std::size_t p = 0; p < spec.points.size(); ++p) {
            SimParams params = spec.base;
            for (std::size_t a = 0; a < spec.axes.size(); ++a) {
                auto varied = withVaried(params, "axes", spec.axes[a].key, spec.points[p][a]);
                if (!varied)
                    return fail(source + ": run " +
                                std::to_string(std::int64_t(p) * spec.replicates) + " (" +
                                describeValues(spec.axes, spec.points[p]) + "): " + varied.error());
                params = *varied;
            }
        }
        return spec;
    }
    // The run count, refused before it can overflow.
    std::int64_t runs = spec.replicates;
    std::string factors = std::to_string(spec.replicates) + " replicates";
    for (const EnsembleAxis& axis : spec.axes) {
        const auto size = std::int64_t(axis.values.size());
        factors = std::to_string(size) + " " + axis.key + " x " + factors;
        runs = runs > maxRuns / size ? maxRuns + 1 : runs * size;
    }
    if (runs > maxRuns)
        return fail(source + ": " + factors + " is more than " + std::to_string(maxRuns) +
                    " runs; split the ensemble into several files");
    std::vector<double> values(spec.axes.size());
    if (auto ok = checkGrid(spec, source, 0, spec.base, values, 0); !ok) return fail(ok.error());
    return spec;
}

Result<EnsembleSpec> loadEnsemble(const std::filesystem::path& path) {
    auto text = readTextFile(path, kMaxEnsembleFileBytes, "ensemble file");
    if (!text) return fail(text.error());
    return parseEnsemble(*text, path.string(), path.parent_path());
}

std::uint64_t runSeed(std::uint64_t masterSeed, std::int64_t index) {
    return splitMix64(masterSeed + 0x9E3779B97F4A7C15ull * (std::uint64_t(index) + 1));
}

RunPlan planRun(const EnsembleSpec& spec, std::int64_t index) {
    RunPlan plan;
    plan.index = index;
    plan.replicate = index % spec.replicates;
    std::int64_t rest = index / spec.replicates;
    plan.values.resize(spec.axes.size());
    if (!spec.points.empty()) plan.values = spec.points[std::size_t(rest)];
    for (std::size_t a = spec.axes.size(); spec.points.empty() && a-- > 0;) {
        const auto size = std::int64_t(spec.axes[a].values.size());
        plan.values[a] = spec.axes[a].values[std::size_t(rest % size)];
        rest /= size;
    }
    plan.seed = spec.seedFromBase ? spec.base.seed : runSeed(spec.seed, index);
    // A fit's point: its proposal's seed, and its further replicates (a fit of several target
    // trials) the seeds that one gives.
    if (!spec.pointSeeds.empty()) {
        const std::uint64_t seed = spec.pointSeeds[std::size_t(index / spec.replicates)];
        plan.seed = plan.replicate == 0 ? seed : runSeed(seed, plan.replicate);
    }
    // A seed axis (phase --vary seed) is the run's seed; a value withVaried refuses is left to
    // runParams to refuse.
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
        if (spec.axes[a].key == "seed" && plan.values[a] >= 0.0 &&
            plan.values[a] <= kMaxVariedWholeNumber && plan.values[a] == std::floor(plan.values[a]))
            plan.seed = static_cast<std::uint64_t>(plan.values[a]);
    return plan;
}

Result<SimParams> runParams(const EnsembleSpec& spec, const RunPlan& plan) {
    SimParams params = spec.base;
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
        auto varied = withVaried(params, "axes", spec.axes[a].key, plan.values[a]);
        if (!varied) return fail(varied.error());
        params = *varied;
    }
    params.seed = plan.seed;
    return params;
}

Result<void> runEnsemble(const EnsembleSpec& spec, const EnsembleWork& work,
                         const EnsembleFrames& frames) {
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex errorMutex;
    std::string error;
    auto worker = [&](std::size_t w) {
        bool fresh = true;
        std::string frameError;
        while (!stop && !work.stop.stop_requested()) {
            const std::size_t k = next++;
            if (k >= work.runs.size()) return;
            const auto start = std::chrono::steady_clock::now();
            RunRow row;
            row.plan = planRun(spec, work.runs[k]);
            try {
                auto params = runParams(spec, row.plan);
                Result<Backend*> backend = fail("");
                if (params) backend = work.backendFor(w, *params);
                if (params && backend) {
                    bool dropped = false;
                    row = runOne(**backend, spec, row, *params, fresh || !spec.chained, frames,
                                 frameError, work.stop, dropped);
                    if (dropped) return;
                } else {
                    row.ok = false;
                    row.message = params ? backend.error() : params.error();
                }
            } catch (const std::exception& e) {
                row.ok = false;
                row.message = std::string("internal error: ") + e.what();
            }
            // A chain whose run failed has no school to go on from.
            fresh = !row.ok;
            row.wallSeconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (!frameError.empty()) {
                const std::lock_guard lock(errorMutex);
                if (error.empty()) error = frameError;
                stop = true;
                return;
            }
            if (auto ok = work.onRow(w, row); !ok) {
                const std::lock_guard lock(errorMutex);
                if (error.empty()) error = ok.error();
                stop = true;
            }
        }
    };
    const std::size_t jobs =
        spec.chained ? 1 : std::max<std::size_t>(1, std::min(work.jobs, work.runs.size()));
    if (jobs == 1) {
        worker(0);
    } else {
        std::vector<std::jthread> threads;
        for (std::size_t w = 0; w < jobs; ++w) threads.emplace_back(worker, w);
    }
    if (!error.empty()) return fail(error);
    return {};
}

std::string ensembleCsvHeader(const std::vector<EnsembleAxis>& axes, bool withWall) {
    std::string header = "run";
    for (const EnsembleAxis& axis : axes) header += "," + axis.key;
    header += ",replicate,seed,status,steps";
    if (withWall) header += ",wall_s";
    for (const SchoolMeasure& measure : kSchoolMeasures) header.append(",").append(measure.column);
    return header + ",message";
}

std::string ensembleCsvRow(const RunRow& row, bool withWall) {
    // append() rather than "," + text: GCC 12 warns (-Wrestrict) on the latter, wrongly.
    std::string line = std::to_string(row.plan.index);
    for (double v : row.plan.values) line.append(",").append(formatNumber(v));
    line.append(",").append(std::to_string(row.plan.replicate));
    line.append(",").append(std::to_string(row.plan.seed));
    line.append(row.ok ? ",ok," : ",failed,").append(std::to_string(row.steps));
    if (withWall) {
        char wall[32];
        std::snprintf(wall, sizeof wall, ",%.6f", row.wallSeconds);
        line.append(wall);
    }
    const SchoolMetrics& m = row.measures;
    for (const SchoolMeasure& measure : kSchoolMeasures) {
        const double v = m.*measure.member;
        line.append(",").append(row.ok && !std::isnan(v) ? formatNumber(v) : std::string());
    }
    return line.append(",").append(csvQuoted(row.message)).append("\n");
}

Result<RunRow> parseEnsembleCsvRow(std::string_view line, std::size_t axisCount) {
    // Every field but the message has no comma; the message is last.
    const std::size_t plainFields = 1 + axisCount + 5 + kSchoolMeasures.size();
    std::vector<std::string_view> fields;
    for (std::size_t f = 0; f < plainFields; ++f) {
        const std::size_t comma = line.find(',');
        if (comma == std::string_view::npos)
            return fail("has " + std::to_string(f + 1) + " fields; a row has " +
                        std::to_string(plainFields + 1));
        fields.push_back(line.substr(0, comma));
        line.remove_prefix(comma + 1);
    }
    RunRow row;
    std::size_t f = 0;
    auto whole = [&](const char* name, std::int64_t& out) -> Result<void> {
        auto n = parseWholeNumber(name, fields[f++], 0, std::numeric_limits<std::int64_t>::max());
        if (!n) return fail(n.error());
        out = *n;
        return {};
    };
    auto number = [&](const char* name, double& out) -> Result<void> {
        auto n = parseFiniteNumber(name, fields[f++]);
        if (!n) return fail(n.error());
        out = *n;
        return {};
    };
    if (auto ok = whole("run", row.plan.index); !ok) return fail(ok.error());
    row.plan.values.resize(axisCount);
    for (double& v : row.plan.values)
        if (auto ok = number("axis value", v); !ok) return fail(ok.error());
    if (auto ok = whole("replicate", row.plan.replicate); !ok) return fail(ok.error());
    auto seed = parseUnsigned64("seed", fields[f++]);
    if (!seed) return fail(seed.error());
    row.plan.seed = *seed;
    const std::string_view status = fields[f++];
    if (status != "ok" && status != "failed")
        return fail("status " + quote(status) + " is not allowed; must be ok or failed");
    row.ok = status == "ok";
    if (auto ok = whole("steps", row.steps); !ok) return fail(ok.error());
    if (auto ok = number("wall_s", row.wallSeconds); !ok) return fail(ok.error());
    // A run's measured seconds: past the bound "%.6f" would not fit the row's or --timing's
    // buffer, and a cut number would write back as another.
    if (row.wallSeconds < 0.0 || row.wallSeconds > kMaxWallSeconds)
        return fail("wall_s: " + quote(fields[f - 1]) +
                    " is not allowed; must be a run's seconds, from 0 to 1e9");
    SchoolMetrics& m = row.measures;
    for (const SchoolMeasure& measure : kSchoolMeasures) {
        double& v = m.*measure.member;
        // A failed run has no measures; an ok run lacks only those that may be absent (a
        // direction error where none is informed).
        if (fields[f].empty() && (!row.ok || measure.mayBeAbsent)) {
            v = row.ok ? std::numeric_limits<double>::quiet_NaN() : 0.0;
            ++f;
            continue;
        }
        if (auto ok = number(measure.column, v); !ok) return fail(ok.error());
    }
    if (!line.empty()) {
        if (line.size() < 2 || line.front() != '"' || line.back() != '"')
            return fail("the message must be empty or in double quotes");
        for (std::size_t k = 1; k + 1 < line.size(); ++k) {
            row.message += line[k];
            if (line[k] == '"') {
                if (k + 2 >= line.size() || line[k + 1] != '"')
                    return fail("a quote inside the message must be doubled");
                ++k;
            }
        }
    }
    return row;
}

std::string ensembleSummaryHeader(const std::vector<EnsembleAxis>& axes) {
    std::string header;
    for (const EnsembleAxis& axis : axes) header += axis.key + ",";
    header += "runs,ok";
    for (const SchoolMeasure& measure : kSchoolMeasures) header.append(",").append(measure.column);
    return header + ",accuracy";
}

void PointSummary::add(const RunRow& row) {
    if (runs_++ == 0) values_ = row.plan.values;
    if (!row.ok) return;
    ++ok_;
    for (std::size_t k = 0; k < kSchoolMeasures.size(); ++k) {
        const double value = row.measures.*kSchoolMeasures[k].member;
        if (std::isnan(value)) continue;  // absent: no fish informed
        sums_[k] += value;
        ++counts_[k];
    }
    if (!std::isnan(row.measures.directionError)) cosines_ += std::cos(row.measures.directionError);
}

std::string PointSummary::csvRow() const {
    std::string line;
    for (double v : values_) line.append(formatNumber(v)).append(",");
    line.append(std::to_string(runs_)).append(",").append(std::to_string(ok_));
    for (std::size_t k = 0; k < kSchoolMeasures.size(); ++k) {
        line.append(",");
        if (counts_[k] > 0) line.append(formatNumber(sums_[k] / double(counts_[k])));
    }
    line.append(",");
    if (directed() > 0)
        line.append(formatNumber(accuracyOfMeanCosine(cosines_ / double(directed()))));
    return line.append("\n");
}

std::int64_t PointSummary::directed() const {
    return counts_[schoolMeasureIndex("direction_error")];
}

}  // namespace fishschool
