// Fuzz target: the fit file parser (FIT.json, docs/data.md). An accepted fit has parameters
// with non-empty ranges whose ends and insides make valid configs, at least one statistic, a
// window within its steps, a budget for population 0, one to kMaxFitTargets distinct target
// trajectories, and the same text gives the same hash; a refused one has a readable message.

#include <cmath>
#include <filesystem>

#include "FuzzMain.h"
#include "fishschool/Distributions.h"
#include "io/ConfigIO.h"
#include "runs/FitSpec.h"

using namespace fishschool;

void fuzzOne(std::string_view input) {
    // A base or a target given by path is read from the scratch folder the fuzzer runs in.
    auto spec = parseFit(input, "fuzz.json", std::filesystem::current_path());
    if (!spec) {
        fuzz::checkMessage(spec.error());
        return;
    }
    fuzz::fuzzCheck(!spec->priors.empty() && spec->priors.size() == spec->abc.priors.size(),
                    "an accepted fit has no parameter");
    for (const Prior& p : spec->priors) {
        fuzz::fuzzCheck(std::isfinite(p.low) && std::isfinite(p.high) && p.low < p.high &&
                            (!p.logUniform || p.low > 0.0),
                        "an accepted prior's range is empty or not finite", p.key);
        std::vector<double> values;
        for (const Prior& q : spec->priors) values.push_back(q.key == p.key ? p.high : q.low);
        auto params = fitParams(*spec, values);
        // Each end alone is checked; two parameters' rules across keys may still refuse a
        // corner, which the run then fails, so only a config that is made must be valid.
        if (params) fuzz::fuzzCheck(validate(*params).has_value(), "a fit's run does not validate");
    }
    fuzz::fuzzCheck(
        !spec->abc.statistics.empty() &&
            spec->abc.statistics.size() ==
                spec->measures.size() + spec->distributions.size() + spec->quantiles.size(),
        "an accepted fit has no statistic");
    for (const FitSpec::Quantile& q : spec->quantiles)
        fuzz::fuzzCheck(q.share > 0.0 && q.share < 1.0 &&
                            distributionIndex(q.distribution) < kDistributions.size(),
                        "an accepted quantile's share is not between 0 and 1", q.name());
    // Every run measures enough frames for the turns its statistics read.
    const auto frames = static_cast<std::size_t>((spec->window - 1) / spec->every + 1);
    for (const std::string& d : spec->distributionsRead())
        fuzz::fuzzCheck(frames >= kDistributions[distributionIndex(d)].frames,
                        "an accepted fit's runs measure too few frames for", d);
    fuzz::fuzzCheck(spec->steps >= 1 && spec->window >= 1 && spec->window <= spec->steps &&
                        spec->every >= 1 && spec->every <= spec->window,
                    "an accepted fit's window is not within its steps");
    fuzz::fuzzCheck(spec->abc.budget >= spec->abc.particles && spec->abc.particles >= 2,
                    "an accepted fit's budget cannot run population 0");
    // One to kMaxFitTargets trials, none twice: each is a school every simulation runs.
    bool distinct = true;
    for (std::size_t i = 0; i < spec->targets.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            distinct = distinct && spec->targets[i] != spec->targets[j];
    fuzz::fuzzCheck(!spec->targets.empty() && spec->targets.size() <= kMaxFitTargets && distinct,
                    "an accepted fit's targets are none, too many or repeated");
    fuzz::fuzzCheck(spec->abc.quantile > 0.0 && spec->abc.quantile < 1.0,
                    "an accepted fit's quantile is not in (0, 1)");
    auto again = parseFit(input, "fuzz.json", std::filesystem::current_path());
    fuzz::fuzzCheck(again && again->hash() == spec->hash() && spec->hash().size() == 16,
                    "the same fit text gives another hash", spec->canonicalJson());
}
