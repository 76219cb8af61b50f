// Sobol indices: the sequence, Saltelli's design, and the estimators on the Ishigami function,
// whose indices are known in closed form.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "runs/Ensemble.h"
#include "runs/Sobol.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;

TEST(Sobol, TheSequenceStartsAsJoeAndKuosDoes) {
    // scipy.stats.qmc.Sobol(3, scramble=False).random(8)
    const std::vector<std::vector<double>> expected{{0, 0, 0},
                                                    {0.5, 0.5, 0.5},
                                                    {0.75, 0.25, 0.25},
                                                    {0.25, 0.75, 0.75},
                                                    {0.375, 0.375, 0.625},
                                                    {0.875, 0.875, 0.125},
                                                    {0.625, 0.125, 0.875},
                                                    {0.125, 0.625, 0.375}};
    EXPECT_EQ(sobolPoints(3, 0, 8), expected);
    // Any stretch is the same points as the whole.
    const auto whole = sobolPoints(32, 0, 300);
    const auto part = sobolPoints(32, 123, 100);
    for (std::size_t i = 0; i < part.size(); ++i) EXPECT_EQ(part[i], whole[123 + i]);
}

TEST(Sobol, EveryDimensionsFirstPowerOfTwoPointsFillItsBinsOnce) {
    // A (0, m, 1)-net in each dimension: 2^m points, one in each bin of width 2^-m.
    const auto points = sobolPoints(32, 0, 1024);
    for (std::size_t d = 0; d < 32; ++d) {
        std::vector<int> bins(1024, 0);
        for (const auto& p : points) ++bins[std::size_t(p[d] * 1024.0)];
        EXPECT_EQ(std::count(bins.begin(), bins.end(), 1), 1024) << "dimension " << d;
    }
}

TEST(Sobol, SaltellisDesignIsARowOfAThenEachABThenB) {
    const std::vector<ParameterRange> ranges{{0, 1}, {10, 20}};
    const auto points = saltelliPoints(ranges, 3);
    ASSERT_EQ(points.size(), 3u * 4u);
    const auto base = sobolPoints(4, 1, 3);
    for (std::size_t j = 0; j < 3; ++j) {
        const std::vector<double> a{base[j][0], 10 + 10 * base[j][1]};
        const std::vector<double> b{base[j][2], 10 + 10 * base[j][3]};
        EXPECT_EQ(points[4 * j], a);
        EXPECT_EQ(points[4 * j + 1], (std::vector<double>{b[0], a[1]}));
        EXPECT_EQ(points[4 * j + 2], (std::vector<double>{a[0], b[1]}));
        EXPECT_EQ(points[4 * j + 3], b);
    }
}

double ishigami(const std::vector<double>& x) {
    constexpr double a = 7.0, b = 0.1;
    return std::sin(x[0]) + a * std::sin(x[1]) * std::sin(x[1]) +
           b * std::pow(x[2], 4) * std::sin(x[0]);
}

TEST(Sobol, TheIshigamiFunctionsIndicesAreFoundWithinTheirIntervals) {
    constexpr double pi = std::numbers::pi, a = 7.0, b = 0.1;
    const double v1 = 0.5 * std::pow(1.0 + b * std::pow(pi, 4) / 5.0, 2);
    const double v2 = a * a / 8.0;
    const double v13 = std::pow(b, 2) * std::pow(pi, 8) * (1.0 / 18.0 - 1.0 / 50.0);
    const double v = v1 + v2 + v13;
    const std::vector<double> first{v1 / v, v2 / v, 0.0};
    const std::vector<double> total{(v1 + v13) / v, v2 / v, v13 / v};
    EXPECT_NEAR(first[0], 0.3139, 1e-4);
    EXPECT_NEAR(total[2], 0.2437, 1e-4);

    const std::vector<ParameterRange> ranges(3, {-pi, pi});
    const auto points = saltelliPoints(ranges, 4096);
    std::vector<double> values;
    for (const auto& x : points) values.push_back(ishigami(x));
    auto indices = sobolIndices(values, 3, {.bootstrap = 500, .confidence = 0.95, .seed = 1});
    ASSERT_TRUE(indices) << indices.error();
    ASSERT_EQ(indices->size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        const SobolIndex& s = (*indices)[i];
        EXPECT_NEAR(s.first, first[i], 0.03) << "S" << i + 1;
        EXPECT_NEAR(s.total, total[i], 0.03) << "ST" << i + 1;
        EXPECT_LE(s.firstLow, first[i]) << "S" << i + 1;
        EXPECT_GE(s.firstHigh, first[i]) << "S" << i + 1;
        EXPECT_LE(s.totalLow, total[i]) << "ST" << i + 1;
        EXPECT_GE(s.totalHigh, total[i]) << "ST" << i + 1;
        EXPECT_LT(s.firstHigh - s.firstLow, 0.15);
    }
    // More base points, a narrower interval.
    const auto few = saltelliPoints(ranges, 256);
    std::vector<double> fewValues;
    for (const auto& x : few) fewValues.push_back(ishigami(x));
    auto rough = sobolIndices(fewValues, 3, {.bootstrap = 500, .confidence = 0.95, .seed = 1});
    ASSERT_TRUE(rough) << rough.error();
    EXPECT_GT((*rough)[0].totalHigh - (*rough)[0].totalLow,
              (*indices)[0].totalHigh - (*indices)[0].totalLow);
}

TEST(Sobol, ValuesThatCannotGiveIndicesAreRefused) {
    EXPECT_THAT(sobolIndices(std::vector<double>(7, 1.0), 3).error().message(),
                HasSubstr("7 values for 3 parameters"));
    EXPECT_THAT(sobolIndices(std::vector<double>(10, 1.0), 3).error().message(),
                HasSubstr("no variance"));
    std::vector<double> bad(10, 1.0);
    bad[3] = std::nan("");
    EXPECT_THAT(sobolIndices(bad, 3).error().message(), HasSubstr("must be finite"));
}

TEST(Sobol, AnEnsembleFileOfTheSobolDesignRunsSaltellisPoints) {
    constexpr const char* kFile = R"({
      "base": {"fishCount": 10, "rocks": []},
      "design": "sobol", "samples": 4,
      "axes": {"noise": {"from": 0, "to": 0.5}, "kAlignment": {"from": 1, "to": 3}},
      "replicates": 2, "steps": 3
    })";
    auto spec = parseEnsemble(kFile, "s.json", ".");
    ASSERT_TRUE(spec) << spec.error();
    EXPECT_EQ(spec->runCount(), 4 * 4 * 2);
    const std::vector<ParameterRange> ranges{{0, 0.5}, {1, 3}};
    const auto points = saltelliPoints(ranges, 4);
    for (std::int64_t run = 0; run < spec->runCount(); ++run) {
        const RunPlan plan = planRun(*spec, run);
        EXPECT_EQ(plan.values, points[std::size_t(run / 2)]);
        EXPECT_EQ(plan.replicate, run % 2);
    }
    // A grid's hash is what it was: the design enters it only where there is one.
    EXPECT_THAT(spec->canonicalJson(), HasSubstr("\"design\":\"sobol\""));
    const auto refused = [](const std::string& text) {
        auto s = parseEnsemble(text, "s.json", ".");
        return s ? std::string() : s.error().message();
    };
    EXPECT_THAT(refused(R"({"design": "sobol", "axes": {"noise": {"from": 0, "to": 1}},
                           "steps": 3})"),
                HasSubstr("'samples' is missing"));
    EXPECT_THAT(refused(R"({"design": "sobol", "samples": 8, "steps": 3,
                           "axes": {"noise": {"from": 1, "to": 1}}})"),
                HasSubstr("empty range"));
    EXPECT_THAT(refused(R"({"design": "sobol", "samples": 8, "steps": 3,
                           "axes": {"noise": {"from": 0, "to": 1, "count": 3}}})"),
                HasSubstr("unknown key"));
    EXPECT_THAT(refused(R"({"design": "latin", "samples": 8, "steps": 3, "axes": {}})"),
                HasSubstr("must be \"grid\""));
    EXPECT_THAT(refused(R"({"samples": 8, "steps": 3, "axes": {"noise": [0, 1]}})"),
                HasSubstr("for a \"sobol\" design only"));
    EXPECT_THAT(refused(R"({"design": "sobol", "samples": 8, "steps": 3,
                           "axes": {"noise": {"from": -1, "to": 1}}})"),
                HasSubstr("noise"));
}

}  // namespace
}  // namespace fishschool
