// ABC-SMC on plain functions whose posterior is known: the mean of a normal sample, and the
// guarantees a fit's folder relies on (the same bits however the runs are spread, resumed or
// stopped).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <thread>

#include "runs/AbcSmc.h"
#include "runs/RandomStream.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;

/// The mean of n = 25 draws from N(theta, 1), whose posterior under a flat prior is
/// N(ybar, 1/25): a simulator whose answer is known.
constexpr double kObservedMean = 1.3;
constexpr double kSampleSize = 25.0;

AbcSettings normalMean() {
    AbcSettings s;
    s.priors = {{"theta", -10.0, 10.0, false}};
    s.statistics = {{"mean", kObservedMean, false}};
    s.particles = 400;
    s.quantile = 0.5;
    s.budget = 50000;
    s.maxPopulations = 10;
    s.seed = 7;
    return s;
}

std::vector<double> sampleMean(const AbcProposal& p) {
    RandomStream random(p.seed, {});
    return {p.values[0] + random.normal() / std::sqrt(kSampleSize)};
}

/// The simulator on the caller's thread, in order.
AbcCallbacks inOrder() {
    AbcCallbacks c;
    c.simulate = [](std::int64_t, const std::vector<AbcProposal>& proposals)
        -> Result<std::optional<std::vector<std::vector<double>>>> {
        std::vector<std::vector<double>> out;
        for (const AbcProposal& p : proposals) out.push_back(sampleMean(p));
        return std::optional{out};
    };
    return c;
}

double weightedMean(const AbcPopulation& p, std::size_t a = 0) {
    double m = 0.0;
    for (const AbcParticle& q : p.particles) m += q.weight * q.values[a];
    return m;
}

double weightedSd(const AbcPopulation& p) {
    const double m = weightedMean(p);
    double v = 0.0;
    for (const AbcParticle& q : p.particles) v += q.weight * (q.values[0] - m) * (q.values[0] - m);
    return std::sqrt(v);
}

/// Every number of every population, as bits.
std::vector<double> bits(const AbcOutcome& o) {
    std::vector<double> all;
    for (const AbcPopulation& p : o.populations) {
        all.push_back(p.epsilon);
        all.push_back(double(p.simulations));
        for (const AbcParticle& q : p.particles) {
            all.push_back(double(q.index));
            all.insert(all.end(), q.values.begin(), q.values.end());
            all.push_back(q.weight);
            all.push_back(q.distance);
            all.insert(all.end(), q.stats.begin(), q.stats.end());
        }
    }
    return all;
}

TEST(AbcSmc, TheNormalMeansPosteriorIsFoundAndTheToleranceFalls) {
    auto fit = runAbcSmc(normalMean(), inOrder());
    ASSERT_TRUE(fit) << fit.error();
    ASSERT_EQ(fit->populations.size(), 10u);
    EXPECT_EQ(fit->stop, AbcStop::Populations);
    for (std::size_t t = 1; t < fit->populations.size(); ++t)
        EXPECT_LE(fit->populations[t].epsilon, fit->populations[t - 1].epsilon);
    EXPECT_TRUE(std::isinf(fit->populations[0].epsilon));
    const AbcPopulation& last = fit->populations.back();
    EXPECT_EQ(last.particles.size(), 400u);
    double sum = 0.0;
    for (const AbcParticle& p : last.particles) sum += p.weight;
    EXPECT_NEAR(sum, 1.0, 1e-12);
    // N(1.3, 0.2): the tolerance has fallen well below the posterior's width (0.019 here).
    EXPECT_LT(last.epsilon, 0.05);
    EXPECT_NEAR(weightedMean(last), kObservedMean, 0.05);
    EXPECT_NEAR(weightedSd(last), 0.2, 0.04);
    EXPECT_LE(fit->simulations, 50000);
    std::int64_t total = 0;
    for (const AbcPopulation& p : fit->populations) total += p.simulations;
    EXPECT_EQ(total, fit->simulations);
}

TEST(AbcSmc, ThePopulationsAreTheSameBitsWhateverTheOrderAndThreadsOfTheRuns) {
    auto one = runAbcSmc(normalMean(), inOrder());
    ASSERT_TRUE(one) << one.error();
    AbcCallbacks threaded;
    // Backwards, on four threads: a simulator that spreads its runs as an ensemble does.
    threaded.simulate = [](std::int64_t, const std::vector<AbcProposal>& proposals)
        -> Result<std::optional<std::vector<std::vector<double>>>> {
        std::vector<std::vector<double>> out(proposals.size());
        std::vector<std::jthread> threads;
        for (std::size_t w = 0; w < 4; ++w)
            threads.emplace_back([&, w] {
                for (std::size_t i = proposals.size(); i-- > 0;)
                    if (i % 4 == w) out[i] = sampleMean(proposals[i]);
            });
        threads.clear();
        return std::optional{out};
    };
    auto four = runAbcSmc(normalMean(), threaded);
    ASSERT_TRUE(four) << four.error();
    EXPECT_EQ(bits(*one), bits(*four));
}

TEST(AbcSmc, AFitStoppedAndResumedFromItsSavedPopulationsGivesTheSameBits) {
    auto whole = runAbcSmc(normalMean(), inOrder());
    ASSERT_TRUE(whole) << whole.error();
    // Stopped in population 5's second batch; then resumed from what was saved.
    std::map<std::int64_t, AbcPopulation> saved;
    AbcCallbacks first = inOrder();
    int batches = 0;
    first.simulate = [&, plain = inOrder().simulate](std::int64_t t,
                                                     const std::vector<AbcProposal>& proposals)
        -> Result<std::optional<std::vector<std::vector<double>>>> {
        if (t == 5 && ++batches == 2) return std::optional<std::vector<std::vector<double>>>{};
        return plain(t, proposals);
    };
    first.save = [&](const AbcPopulation& p) -> Result<void> {
        saved[p.number] = p;
        return {};
    };
    auto stopped = runAbcSmc(normalMean(), first);
    ASSERT_TRUE(stopped) << stopped.error();
    EXPECT_EQ(stopped->stop, AbcStop::Requested);
    EXPECT_EQ(stopped->populations.size(), 5u);
    AbcCallbacks second = inOrder();
    int simulated = 0;
    second.simulate = [&, plain = inOrder().simulate](std::int64_t t,
                                                      const std::vector<AbcProposal>& proposals)
        -> Result<std::optional<std::vector<std::vector<double>>>> {
        EXPECT_GE(t, 5) << "a saved population was run again";
        ++simulated;
        return plain(t, proposals);
    };
    second.load = [&](std::int64_t t) -> Result<std::optional<AbcPopulation>> {
        if (!saved.contains(t)) return std::nullopt;
        return std::optional{saved.at(t)};
    };
    auto resumed = runAbcSmc(normalMean(), second);
    ASSERT_TRUE(resumed) << resumed.error();
    EXPECT_GT(simulated, 0);
    EXPECT_EQ(bits(*whole), bits(*resumed));
    EXPECT_EQ(resumed->scales, whole->scales);
}

TEST(AbcSmc, TheBudgetIsNeverExceededAndAnUnfinishedPopulationIsLeftOut) {
    AbcSettings s = normalMean();
    s.budget = 2500;
    s.maxPopulations = 100;
    auto fit = runAbcSmc(s, inOrder());
    ASSERT_TRUE(fit) << fit.error();
    EXPECT_EQ(fit->stop, AbcStop::Budget);
    EXPECT_LE(fit->simulations, 2500);
    EXPECT_GE(fit->populations.size(), 2u);
    for (const AbcPopulation& p : fit->populations) EXPECT_EQ(p.particles.size(), 400u);
}

TEST(AbcSmc, ALowAcceptanceStopsTheFit) {
    AbcSettings s = normalMean();
    s.maxPopulations = 100;
    s.budget = 1'000'000;
    s.minAcceptance = 0.2;
    auto fit = runAbcSmc(s, inOrder());
    ASSERT_TRUE(fit) << fit.error();
    EXPECT_EQ(fit->stop, AbcStop::Acceptance);
    EXPECT_LT(fit->populations.back().acceptance(), 0.2);
    for (std::size_t t = 1; t + 1 < fit->populations.size(); ++t)
        EXPECT_GE(fit->populations[t].acceptance(), 0.2);
}

TEST(AbcSmc, ALogUniformParameterStaysInItsRangeAndScaledStatisticsUseTheirSpread) {
    // log10 of a rate: the statistic is log(rate) + noise, 0.1 wide; the target log(0.05).
    AbcSettings s;
    s.priors = {{"rate", 1e-3, 1.0, true}, {"offset", 0.0, 1.0, false}};
    s.statistics = {{"log_rate", std::log(0.05), true}, {"offset", 0.3, true}};
    s.particles = 300;
    s.budget = 30000;
    s.maxPopulations = 10;
    s.seed = 3;
    AbcCallbacks c;
    c.simulate = [](std::int64_t, const std::vector<AbcProposal>& proposals)
        -> Result<std::optional<std::vector<std::vector<double>>>> {
        std::vector<std::vector<double>> out;
        for (const AbcProposal& p : proposals) {
            RandomStream random(p.seed, {});
            out.push_back({std::log(p.values[0]) + 0.1 * random.normal(),
                           p.values[1] + 0.01 * random.normal()});
        }
        return std::optional{out};
    };
    auto fit = runAbcSmc(s, c);
    ASSERT_TRUE(fit) << fit.error();
    for (const AbcPopulation& p : fit->populations)
        for (const AbcParticle& q : p.particles) {
            EXPECT_GE(q.values[0], 1e-3);
            EXPECT_LE(q.values[0], 1.0);
            EXPECT_GE(q.values[1], 0.0);
            EXPECT_LE(q.values[1], 1.0);
        }
    // The prior's spread of log(rate) is about 5 times the offset's: each scale is its own
    // statistic's median absolute deviation over the simulations, and narrows with them.
    const std::vector<double>& first = fit->populations.front().scales;
    ASSERT_EQ(first.size(), 2u);
    EXPECT_GT(first[0], 1.0);
    EXPECT_LT(first[1], 0.5);
    EXPECT_LT(fit->scales[0], first[0] / 4.0);
    EXPECT_LT(fit->scales[1], first[1] / 4.0);
    const AbcPopulation& last = fit->populations.back();
    std::vector<double> logs;
    for (const AbcParticle& q : last.particles) logs.push_back(std::log(q.values[0]));
    double mean = 0.0;
    for (std::size_t i = 0; i < logs.size(); ++i) mean += last.particles[i].weight * logs[i];
    EXPECT_NEAR(std::exp(mean), 0.05, 0.01);
    EXPECT_NEAR(weightedMean(last, 1), 0.3, 0.02);
}

TEST(AbcSmc, RunsThatFailAreNeverAccepted) {
    AbcSettings s = normalMean();
    s.maxPopulations = 3;
    AbcCallbacks c;
    // Every run with theta < 0 fails (NaN).
    c.simulate = [](std::int64_t, const std::vector<AbcProposal>& proposals)
        -> Result<std::optional<std::vector<std::vector<double>>>> {
        std::vector<std::vector<double>> out;
        for (const AbcProposal& p : proposals)
            out.push_back(p.values[0] < 0.0 ? std::vector<double>{std::nan("")} : sampleMean(p));
        return std::optional{out};
    };
    auto fit = runAbcSmc(s, c);
    ASSERT_TRUE(fit) << fit.error();
    EXPECT_GT(fit->populations[0].simulations, 400);  // population 0 made up for them
    for (const AbcPopulation& p : fit->populations)
        for (const AbcParticle& q : p.particles) EXPECT_GE(q.values[0], 0.0);
}

TEST(AbcSmc, BadSettingsAreRefusedNamingWhatIsWrong) {
    const auto refused = [](const std::function<void(AbcSettings&)>& change) {
        AbcSettings s = normalMean();
        change(s);
        auto fit = runAbcSmc(s, inOrder());
        EXPECT_FALSE(fit);
        return fit ? std::string() : fit.error().message();
    };
    EXPECT_THAT(refused([](AbcSettings& s) { s.priors[0].high = -10.0; }),
                HasSubstr("parameters.theta: from -10 to -10"));
    EXPECT_THAT(refused([](AbcSettings& s) { s.priors[0].logUniform = true; }),
                HasSubstr("its low end must be > 0"));
    EXPECT_THAT(refused([](AbcSettings& s) { s.budget = 10; }),
                HasSubstr("budget: 10 simulations is not allowed"));
    EXPECT_THAT(refused([](AbcSettings& s) { s.quantile = 1.0; }), HasSubstr("quantile"));
    EXPECT_THAT(refused([](AbcSettings& s) { s.priors.clear(); }), HasSubstr("parameters"));
    EXPECT_THAT(refused([](AbcSettings& s) { s.statistics.clear(); }), HasSubstr("statistics"));
}

TEST(AbcSmc, AWeightedQuantileIsTheLeastValueWhoseWeightReachesIt) {
    EXPECT_EQ(weightedQuantile({3, 1, 2}, {1, 1, 1}, 0.5), 2.0);
    EXPECT_EQ(weightedQuantile({3, 1, 2}, {0.1, 0.1, 0.8}, 0.5), 2.0);
    EXPECT_EQ(weightedQuantile({3, 1, 2}, {0.8, 0.1, 0.1}, 0.5), 3.0);
    EXPECT_EQ(weightedQuantile({3, 1, 2}, {1, 1, 1}, 0.05), 1.0);
}

TEST(AbcSmc, ANumberWrittenExactlyReadsBackToTheSameBits) {
    for (const double v : {0.1, 1.0 / 3.0, 6.02214076e23, -2.5e-300, 4.9e-324})
        EXPECT_EQ(std::strtod(exactNumber(v).c_str(), nullptr), v);
}

}  // namespace
}  // namespace fishschool
