#include "FitSpec.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "JsonKeys.h"

#include "PhaseSweep.h"
#include "core/Messages.h"
#include "fishschool/Distributions.h"
#include "fishschool/Metrics.h"
#include "io/ConfigIO.h"
#include "io/JsonText.h"
#include "io/TextFiles.h"

namespace fishschool {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kKeys =
    "a fit file has base, parameters, target, statistics, steps, measure, particles, quantile, "
    "budget, populations, min_acceptance, seed and backend (docs/data.md)";

using json_keys::numberKey;
using json_keys::where;
using json_keys::wholeNumberKey;

/// A path given in the file: a non-empty string without NUL, read from the file's folder.
Result<std::filesystem::path> pathKey(const Json& value, const std::string& source,
                                      const std::string& key, const std::filesystem::path& folder,
                                      const char* what) {
    if (!value.is_string() || value.get<std::string>().empty() ||
        value.get<std::string>().find('\0') != std::string::npos)
        return fail(where(source, key) + "must be the path of " + what + ", got " +
                    quote(value.dump()));
    std::error_code ignored;
    std::filesystem::path resolved =
        std::filesystem::absolute(folder / value.get<std::string>(), ignored);
    if (resolved.empty()) resolved = folder / value.get<std::string>();
    return resolved.lexically_normal();
}

Result<Prior> readPrior(const Json& value, const std::string& source, const std::string& key) {
    constexpr const char* kShape =
        "a prior is {\"uniform\": [LOW, HIGH]} or {\"log-uniform\": [LOW, HIGH]} (0 < LOW), "
        "LOW < HIGH";
    if (!value.is_object() || value.size() != 1)
        return fail(where(source, key) + kShape + ", got " + quote(value.dump()));
    const std::string kind = value.begin().key();
    const Json& range = value.begin().value();
    if (kind != "uniform" && kind != "log-uniform")
        return fail(where(source, key + "." + kind) + "unknown prior; " + kShape);
    if (!range.is_array() || range.size() != 2)
        return fail(where(source, key + "." + kind) + "must be [LOW, HIGH], got " +
                    quote(range.dump()));
    Prior prior;
    prior.key = key.substr(key.find('.') + 1);
    prior.logUniform = kind == "log-uniform";
    auto low = numberKey(range[0], source, key + "." + kind + "[0]");
    if (!low) return fail(low.error());
    auto high = numberKey(range[1], source, key + "." + kind + "[1]");
    if (!high) return fail(high.error());
    prior.low = *low;
    prior.high = *high;
    if (!(prior.low < prior.high))
        return fail(where(source, key + "." + kind) + "[" + formatNumber(prior.low) + ", " +
                    formatNumber(prior.high) + "] is an empty range; " + kShape);
    if (prior.logUniform && !(prior.low > 0.0))
        return fail(where(source, key + "." + kind) + "a log-uniform prior from " +
                    formatNumber(prior.low) + " is not allowed; its low end must be > 0");
    return prior;
}

/// A list of distinct names, each one of `allowed`.
Result<std::vector<std::string>> readNames(const Json& value, const std::string& source,
                                           const std::string& key,
                                           const std::vector<std::string>& allowed) {
    std::string names;
    for (const std::string& name : allowed) names += (names.empty() ? "" : ", ") + name;
    if (!value.is_array())
        return fail(where(source, key) + "must be a list of names (" + names + "), got " +
                    quote(value.dump()));
    std::vector<std::string> out;
    for (std::size_t k = 0; k < value.size(); ++k) {
        const std::string at = key + "[" + std::to_string(k) + "]";
        if (!value[k].is_string() ||
            std::find(allowed.begin(), allowed.end(), value[k].get<std::string>()) == allowed.end())
            return fail(
                where(source, at) +
                quote(value[k].is_string() ? value[k].get<std::string>() : value[k].dump()) +
                " is not allowed; must be one of " + names);
        if (std::find(out.begin(), out.end(), value[k].get<std::string>()) != out.end())
            return fail(where(source, at) + quote(value[k].get<std::string>()) +
                        " is named twice; name each once");
        out.push_back(value[k].get<std::string>());
    }
    return out;
}

/// The measures a fit compares: those every run has (the direction error is absent where no
/// fish is informed, and would refuse every run).
std::vector<std::string> fittableMeasures() {
    std::vector<std::string> names;
    for (const SchoolMeasure& m : kSchoolMeasures)
        if (!m.mayBeAbsent) names.emplace_back(m.column);
    return names;
}

std::vector<std::string> distributionNames() {
    std::vector<std::string> names;
    for (const DistributionSpec& d : kDistributions) names.emplace_back(d.name);
    return names;
}

/// {"distribution": [share, ...], ...}: quantiles of distributions, each share above 0 and below 1.
Result<std::vector<FitSpec::Quantile>> readQuantiles(const Json& value, const std::string& source,
                                                     const std::string& key) {
    const std::string form =
        "{\"turn_axis_change\": [0.1, 0.25]}: a distribution's name and the "
        "shares of its values below each quantile";
    if (!value.is_object() || value.empty())
        return fail(where(source, key) + "must be like " + form + ", got " + quote(value.dump()));
    std::vector<FitSpec::Quantile> out;
    for (const auto& [name, shares] : value.items()) {
        const std::string at = key + "." + name;
        if (distributionIndex(name) == kDistributions.size()) {
            std::string names;
            for (const std::string& n : distributionNames())
                names += (names.empty() ? "" : ", ") + n;
            return fail(where(source, at) + "unknown distribution; must be one of " + names);
        }
        if (!shares.is_array() || shares.empty())
            return fail(where(source, at) + "must be a list of shares above 0 and below 1, got " +
                        quote(shares.dump()));
        for (std::size_t k = 0; k < shares.size(); ++k) {
            auto share = numberKey(shares[k], source, at + "[" + std::to_string(k) + "]");
            if (!share) return fail(share.error());
            if (!(*share > 0.0 && *share < 1.0))
                return fail(where(source, at + "[" + std::to_string(k) + "]") +
                            formatNumber(*share) +
                            " is not allowed; must be above 0 and below 1 (0.5: the median)");
            const FitSpec::Quantile q{name, *share};
            for (const FitSpec::Quantile& given : out)
                if (given.name() == q.name())
                    return fail(where(source, at + "[" + std::to_string(k) + "]") +
                                formatNumber(*share) + " is named twice; name each once");
            out.push_back(q);
        }
    }
    return out;
}

}  // namespace

Result<SimParams> fitParams(const FitSpec& spec, const std::vector<double>& values) {
    SimParams params = spec.base;
    for (std::size_t a = 0; a < spec.priors.size() && a < values.size(); ++a) {
        auto varied = withVaried(params, "parameters", spec.priors[a].key, values[a]);
        if (!varied) return fail(varied.error());
        params = *varied;
    }
    return params;
}

Result<FitSpec> parseFit(std::string_view text, std::string_view sourceName,
                         const std::filesystem::path& folder) {
    const std::string source(sourceName);
    auto parsed = parseJsonText(text, source);
    if (!parsed) return fail(parsed.error());
    const Json& root = *parsed;
    if (!root.is_object())
        return fail(source + ": a fit file must be a JSON object, got " + root.type_name());
    FitSpec spec;
    bool windowGiven = false;
    for (const auto& [key, value] : root.items()) {
        if (key == "base") {
            if (value.is_object()) {
                auto base = parseConfig(value.dump(), source + ": base");
                if (!base) return fail(base.error());
                spec.base = *base;
            } else {
                auto path =
                    pathKey(value, source, key, folder, "a config file, or a config object");
                if (!path) return fail(path.error());
                auto base = loadConfig(*path);
                if (!base)
                    return fail(where(source, key) + base.error() +
                                " (a base path is read from the fit file's folder)");
                spec.base = *base;
            }
        } else if (key == "parameters") {
            if (!value.is_object() || value.empty())
                return fail(where(source, key) +
                            "must be an object of the keys to fit, each with its prior, as "
                            "{\"noise\": {\"uniform\": [0, 1]}}; got " +
                            quote(value.dump()));
            for (const auto& [name, priorJson] : value.items()) {
                const std::string at = "parameters." + name;
                if (spec.priors.size() == kMaxFitParameters)
                    return fail(where(source, at) + "a fit takes at most " +
                                std::to_string(kMaxFitParameters) + " parameters");
                if (name == "seed" || !canVary(name))
                    return fail(where(source, at) +
                                "this key cannot be fitted; a parameter is orientation-width, "
                                "attraction-width, species[K].share or a numeric config key "
                                "(docs/config.md), not the seed");
                for (const Prior& before : spec.priors)
                    if (const std::string field = sharedField(before.key, name); !field.empty())
                        return fail(where(source, at) + "parameters " + quote(before.key) +
                                    " and " + quote(name) + " both write " + field +
                                    ": a run could not have both values; fit one of them");
                auto prior = readPrior(priorJson, source, at);
                if (!prior) return fail(prior.error());
                spec.priors.push_back(*prior);
            }
        } else if (key == "target") {
            if (!value.is_object() ||
                value.contains("trajectory") == value.contains("trajectories"))
                return fail(where(source, key) +
                            "must be {\"trajectory\": \"FILE.h5\"} or {\"trajectories\": "
                            "[\"A.h5\", \"B.h5\", ...]} (one of them), with \"from_step\" and "
                            "\"to_step\" optional; got " +
                            quote(value.dump()));
            for (const auto& [name, item] : value.items()) {
                if (name == "trajectory") {
                    auto path = pathKey(item, source, "target.trajectory", folder,
                                        "a trajectory (an H5MD file, docs/trajectories.md)");
                    if (!path) return fail(path.error());
                    spec.targets = {*path};
                } else if (name == "trajectories") {
                    if (!item.is_array() || item.empty() || item.size() > kMaxFitTargets)
                        return fail(where(source, "target.trajectories") +
                                    "must be a list of 1 to " + std::to_string(kMaxFitTargets) +
                                    " trajectories (H5MD files), got " + quote(item.dump()));
                    for (std::size_t i = 0; i < item.size(); ++i) {
                        const std::string at = "target.trajectories[" + std::to_string(i) + "]";
                        auto path = pathKey(item[i], source, at, folder,
                                            "a trajectory (an H5MD file, docs/trajectories.md)");
                        if (!path) return fail(path.error());
                        for (const auto& before : spec.targets)
                            if (before == *path)
                                return fail(where(source, at) + quote(path->string(), 200) +
                                            " is given twice; each trial once");
                        spec.targets.push_back(*path);
                    }
                } else if (name == "from_step" || name == "to_step") {
                    auto step =
                        wholeNumberKey(item, source, "target." + name, 0, std::int64_t(1) << 62);
                    if (!step) return fail(step.error());
                    (name == "from_step" ? spec.targetFrom : spec.targetTo) = *step;
                } else {
                    return fail(where(source, "target." + name) +
                                "unknown key; a target has trajectory or trajectories, from_step "
                                "and to_step");
                }
            }
            if (spec.targetFrom > spec.targetTo)
                return fail(where(source, "target") + "from_step " +
                            std::to_string(spec.targetFrom) + " is after to_step " +
                            std::to_string(spec.targetTo) + "; the window would hold no frame");
        } else if (key == "statistics") {
            if (!value.is_object())
                return fail(where(source, key) +
                            "must be {\"measures\": [...], \"distributions\": [...]}, got " +
                            quote(value.dump()));
            for (const auto& [name, list] : value.items()) {
                if (name == "measures") {
                    auto names = readNames(list, source, "statistics.measures", fittableMeasures());
                    if (!names) return fail(names.error());
                    spec.measures = *names;
                } else if (name == "distributions") {
                    auto names =
                        readNames(list, source, "statistics.distributions", distributionNames());
                    if (!names) return fail(names.error());
                    spec.distributions = *names;
                } else if (name == "quantiles") {
                    auto quantiles = readQuantiles(list, source, "statistics.quantiles");
                    if (!quantiles) return fail(quantiles.error());
                    spec.quantiles = *quantiles;
                } else {
                    return fail(where(source, "statistics." + name) +
                                "unknown key; statistics are measures, distributions and "
                                "quantiles");
                }
            }
            if (spec.measures.empty() && spec.distributions.empty() && spec.quantiles.empty())
                return fail(where(source, key) +
                            "names no statistic; give at least one measure, distribution or "
                            "quantile");
        } else if (key == "steps") {
            auto n = wholeNumberKey(value, source, key, 1, std::int64_t(1) << 40);
            if (!n) return fail(n.error());
            spec.steps = *n;
        } else if (key == "measure") {
            if (!value.is_object() || !value.contains("last"))
                return fail(where(source, key) +
                            "must be {\"last\": W} or {\"last\": W, \"every\": K}: the last W "
                            "steps of each run, every K-th, counted back from the last; got " +
                            quote(value.dump()));
            for (const auto& [name, item] : value.items()) {
                if (name != "last" && name != "every")
                    return fail(where(source, "measure." + name) +
                                "unknown key; measure has last and every");
                auto n = wholeNumberKey(item, source, "measure." + name, 1, std::int64_t(1) << 40);
                if (!n) return fail(n.error());
                (name == "last" ? spec.window : spec.every) = *n;
            }
            windowGiven = true;
        } else if (key == "particles") {
            auto n = wholeNumberKey(value, source, key, 2, kMaxFitParticles);
            if (!n) return fail(n.error());
            spec.abc.particles = *n;
        } else if (key == "quantile") {
            auto q = numberKey(value, source, key);
            if (!q) return fail(q.error());
            if (!(*q > 0.0 && *q < 1.0))
                return fail(where(source, key) + formatNumber(*q) +
                            " is not allowed; must be between 0 and 1 (0.5: each tolerance the "
                            "median of the last population's distances)");
            spec.abc.quantile = *q;
        } else if (key == "budget") {
            auto n = wholeNumberKey(value, source, key, 1, kMaxFitBudget);
            if (!n) return fail(n.error());
            spec.abc.budget = *n;
        } else if (key == "populations") {
            auto n = wholeNumberKey(value, source, key, 1, kMaxFitPopulations);
            if (!n) return fail(n.error());
            spec.abc.maxPopulations = *n;
        } else if (key == "min_acceptance") {
            auto q = numberKey(value, source, key);
            if (!q) return fail(q.error());
            if (!(*q >= 0.0 && *q <= 1.0))
                return fail(where(source, key) + formatNumber(*q) +
                            " is not allowed; must be from 0 to 1");
            spec.abc.minAcceptance = *q;
        } else if (key == "seed") {
            if (!value.is_number_unsigned())
                return fail(where(source, key) + "must be a whole number from 0 to " +
                            std::to_string(std::numeric_limits<std::uint64_t>::max()) + ", got " +
                            quote(value.dump()));
            spec.abc.seed = value.get<std::uint64_t>();
        } else if (key == "backend") {
            if (!value.is_string() || value.get<std::string>().empty())
                return fail(where(source, key) + "must be a string, the name of a backend, got " +
                            quote(value.dump()));
            spec.backend = value.get<std::string>();
        } else {
            return fail(where(source, key) + "unknown key; " + kKeys);
        }
    }
    for (const char* required : {"parameters", "target", "statistics", "steps", "budget"})
        if (!root.contains(required))
            return fail(source + ": key '" + required + "' is missing; it is required (" + kKeys +
                        ")");
    if (!windowGiven) spec.window = spec.steps;
    if (spec.window > spec.steps)
        return fail(where(source, "measure.last") + std::to_string(spec.window) +
                    " is not allowed; must be at most steps (" + std::to_string(spec.steps) + ")");
    if (spec.every > spec.window)
        return fail(where(source, "measure.every") + std::to_string(spec.every) +
                    " is not allowed; must be at most measure.last (" +
                    std::to_string(spec.window) + ")");
    // A turn needs two measured frames of a run, a turn axis change three: with fewer every run
    // would have none, and none would ever be accepted.
    const std::int64_t measuredFrames = (spec.window - 1) / spec.every + 1;
    for (const std::string& name : spec.distributionsRead()) {
        const auto needed =
            static_cast<std::int64_t>(kDistributions[distributionIndex(name)].frames);
        if (measuredFrames < needed)
            return fail(where(source, "measure") + "measure.last " + std::to_string(spec.window) +
                        " every " + std::to_string(spec.every) + " measures " +
                        std::to_string(measuredFrames) + " frame" +
                        (measuredFrames == 1 ? "" : "s") + " of each run; " + name +
                        " needs at least " + std::to_string(needed) +
                        ": measure more of each run's steps");
    }
    if (spec.abc.budget < spec.abc.particles)
        return fail(where(source, "budget") + std::to_string(spec.abc.budget) +
                    " simulations is not allowed; must be at least particles (" +
                    std::to_string(spec.abc.particles) + "), which population 0 runs");
    // Each end of each range with the base's other values, by the config's own rules, and a
    // value between them that is no whole number: the kernel proposes any value in the range.
    for (const Prior& prior : spec.priors) {
        const double inside =
            prior.logUniform ? std::exp(std::log(prior.low) +
                                        0.381966 * (std::log(prior.high) - std::log(prior.low)))
                             : prior.low + 0.381966 * (prior.high - prior.low);
        for (const double value : {prior.low, prior.high, inside})
            if (auto ok = withVaried(spec.base, "parameters", prior.key, value); !ok)
                return fail(
                    source + ": " + ok.error() +
                    (value == inside ? "; a fitted parameter takes every value of its range" : ""));
    }
    spec.abc.priors = spec.priors;
    for (const std::string& m : spec.measures) spec.abc.statistics.push_back({m, 0.0, true});
    for (const std::string& d : spec.distributions)
        spec.abc.statistics.push_back({"hellinger_" + d, 0.0, true});
    for (const FitSpec::Quantile& q : spec.quantiles)
        spec.abc.statistics.push_back({q.name(), 0.0, true});
    return spec;
}

Result<FitSpec> loadFit(const std::filesystem::path& path) {
    auto text = readTextFile(path, kMaxFitFileBytes, "fit file");
    if (!text) return fail(text.error());
    return parseFit(*text, path.string(), path.parent_path());
}

std::string FitSpec::canonicalJson() const {
    Json priorsJson = Json::array();
    for (const Prior& p : priors)
        priorsJson.push_back({p.key, p.logUniform ? "log-uniform" : "uniform", exactNumber(p.low),
                              exactNumber(p.high)});
    Json quantilesJson = Json::array();
    for (const Quantile& q : quantiles) quantilesJson.push_back(q.name());
    // One target as its path alone, as before trials could be several: the same fit, the same hash.
    Json targetsJson = Json::array();
    for (const auto& t : targets) targetsJson.push_back(t.string());
    if (targets.size() == 1) targetsJson = targets.front().string();
    const Json root = {
        {"base", Json::parse(configToJson(base))},
        {"parameters", priorsJson},
        {"target", targetsJson},
        {"target_steps", {targetFrom, targetTo}},
        {"measures", measures},
        {"distributions", distributions},
        {"quantiles", quantilesJson},
        {"steps", steps},
        {"window", window},
        {"every", every},
        {"particles", abc.particles},
        {"quantile", exactNumber(abc.quantile)},
        {"seed", abc.seed},
        {"backend", backend},
    };
    return root.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string FitSpec::Quantile::name() const {
    return distribution + "_q" + formatNumber(share);
}

std::vector<std::string> FitSpec::distributionsRead() const {
    std::vector<std::string> names = distributions;
    for (const Quantile& q : quantiles)
        if (std::find(names.begin(), names.end(), q.distribution) == names.end())
            names.push_back(q.distribution);
    return names;
}

std::string FitSpec::hash() const {
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (unsigned char c : canonicalJson()) h = (h ^ c) * 0x100000001B3ull;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

}  // namespace fishschool
