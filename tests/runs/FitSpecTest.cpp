// Fit files (FIT.json): what they say, their defaults, and the example beside the docs.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "runs/FitSpec.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;

constexpr const char* kFit = R"({
  "base": {"fishCount": 12, "steering": "couzin", "rSeparation": 1, "rAlignment": 3,
           "rCohesion": 6, "rocks": []},
  "parameters": {"attraction-width": {"uniform": [0, 8]}, "noise": {"log-uniform": [0.01, 1]}},
  "target": {"trajectory": "t.h5"},
  "statistics": {"distributions": ["neighbor_heading"], "measures": ["milling"]},
  "steps": 50, "budget": 500
})";

TEST(FitSpec, TheFileSaysTheParametersInItsOrderAndTheStatisticsMeasuresFirst) {
    auto spec = parseFit(kFit, "f.json", "/data");
    ASSERT_TRUE(spec) << spec.error();
    ASSERT_EQ(spec->priors.size(), 2u);
    EXPECT_EQ(spec->priors[0].key, "attraction-width");
    EXPECT_FALSE(spec->priors[0].logUniform);
    EXPECT_TRUE(spec->priors[1].logUniform);
    EXPECT_EQ(spec->priors[1].low, 0.01);
    EXPECT_EQ(spec->targets, std::vector<std::filesystem::path>{"/data/t.h5"});
    ASSERT_EQ(spec->abc.statistics.size(), 2u);
    EXPECT_EQ(spec->abc.statistics[0].name, "milling");
    EXPECT_EQ(spec->abc.statistics[1].name, "hellinger_neighbor_heading");
    // Defaults: the whole run measured, every step; 100 particles, the median.
    EXPECT_EQ(spec->window, 50);
    EXPECT_EQ(spec->every, 1);
    EXPECT_EQ(spec->abc.particles, 100);
    EXPECT_EQ(spec->abc.quantile, 0.5);
    EXPECT_EQ(spec->backend, "cpu");
    // Each value is set in the file's order, by the config's own rules.
    auto params = fitParams(*spec, {5.0, 0.2});
    ASSERT_TRUE(params) << params.error();
    EXPECT_FLOAT_EQ(params->rCohesion, 8.0f);
    EXPECT_FLOAT_EQ(params->noise, 0.2f);
}

TEST(FitSpec, QuantilesOfADistributionComeAfterTheHellingerDistances) {
    const std::string measures = "\"measures\": [\"milling\"]";
    std::string text = kFit;
    text.replace(text.find(measures), measures.size(),
                 "\"quantiles\": {\"turn_axis_change\": [0.1, 0.25]}, \"measures\": [\"milling\"]");
    auto spec = parseFit(text, "f.json", "/data");
    ASSERT_TRUE(spec) << spec.error();
    ASSERT_EQ(spec->abc.statistics.size(), 4u);
    EXPECT_EQ(spec->abc.statistics[1].name, "hellinger_neighbor_heading");
    EXPECT_EQ(spec->abc.statistics[2].name, "turn_axis_change_q0.1");
    EXPECT_EQ(spec->abc.statistics[3].name, "turn_axis_change_q0.25");
    EXPECT_TRUE(spec->abc.statistics[2].scaled);
    auto without = parseFit(kFit, "f.json", "/data");
    ASSERT_TRUE(without) << without.error();
    EXPECT_NE(spec->hash(), without->hash());
    // Bad quantiles name the key and what is allowed.
    const std::vector<std::pair<std::string, std::string>> bad{
        {"{\"gills\": [0.5]}",
         "'statistics.quantiles.gills': unknown distribution; must be "
         "one of wall_distance"},
        {"{\"speed\": [1]}",
         "'statistics.quantiles.speed[0]': 1 is not allowed; must be "
         "above 0 and below 1"},
        {"{\"speed\": [0.5, 0.5]}", "0.5 is named twice"},
        {"{\"speed\": []}", "must be a list of shares above 0 and below 1"},
        {"{\"speed\": [\"half\"]}", "must be a number"},
        {"[0.5]", "must be like {\"turn_axis_change\": [0.1, 0.25]}"},
    };
    for (const auto& [quantiles, expected] : bad) {
        std::string t = kFit;
        t.replace(t.find(measures), measures.size(),
                  "\"quantiles\": " + quantiles + ", \"measures\": [\"milling\"]");
        auto refused = parseFit(t, "f.json", "/data");
        ASSERT_FALSE(refused) << quantiles;
        EXPECT_THAT(refused.error().message(), HasSubstr(expected)) << quantiles;
    }
}

TEST(FitSpec, TheBudgetIsLeftOutOfTheHashSoThatAFitCanGoFurther) {
    auto a = parseFit(kFit, "f.json", "/data");
    std::string more = kFit;
    more.replace(more.find("\"budget\": 500"), 13, "\"budget\": 900");
    auto b = parseFit(more, "f.json", "/data");
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->hash(), b->hash());
    std::string seeded = kFit;
    seeded.replace(seeded.find("\"budget\": 500"), 13, "\"budget\": 500, \"seed\": 2");
    auto c = parseFit(seeded, "f.json", "/data");
    ASSERT_TRUE(c) << c.error();
    EXPECT_NE(a->hash(), c->hash());
}

TEST(FitSpec, SeveralTargetTrajectoriesAreTrialsOfOneFit) {
    const auto with = [](const std::string& target) {
        std::string text = kFit;
        const std::string one = "\"target\": {\"trajectory\": \"t.h5\"}";
        return text.replace(text.find(one), one.size(), "\"target\": " + target);
    };
    auto trials = parseFit(with(R"({"trajectories": ["t.h5", "sub/u.h5"], "from_step": 3})"),
                           "f.json", "/data");
    ASSERT_TRUE(trials) << trials.error();
    EXPECT_EQ(trials->targets,
              (std::vector<std::filesystem::path>{"/data/t.h5", "/data/sub/u.h5"}));
    EXPECT_EQ(trials->targetFrom, 3);
    // One trajectory in a list is the same fit as one given alone; a second is another fit.
    auto listed = parseFit(with(R"({"trajectories": ["t.h5"]})"), "f.json", "/data");
    auto alone = parseFit(kFit, "f.json", "/data");
    ASSERT_TRUE(listed && alone);
    EXPECT_EQ(listed->hash(), alone->hash());
    EXPECT_NE(trials->hash(), alone->hash());

    std::string many = "[";
    for (int i = 0; i <= 100; ++i) many += (i ? ",\"" : "\"") + std::to_string(i) + ".h5\"";
    many += "]";
    const std::vector<std::pair<std::string, std::string>> refused = {
        {R"({"trajectory": "t.h5", "trajectories": ["u.h5"]})", "(one of them)"},
        {R"({"from_step": 2})", "(one of them)"},
        {R"({"trajectories": []})", "'target.trajectories': must be a list of 1 to 100"},
        {R"({"trajectories": "t.h5"})", "'target.trajectories': must be a list of 1 to 100"},
        {R"({"trajectories": )" + many + "}", "must be a list of 1 to 100"},
        {R"({"trajectories": ["t.h5", 3]})", "'target.trajectories[1]': must be the path"},
        {R"({"trajectories": ["t.h5", "./t.h5"]})", "is given twice; each trial once"},
        {R"({"trajectories": ["t.h5"], "trials": 2})", "has trajectory or trajectories"},
    };
    for (const auto& [target, expected] : refused) {
        auto bad = parseFit(with(target), "f.json", "/data");
        ASSERT_FALSE(bad) << target;
        EXPECT_THAT(bad.error().message(), HasSubstr(expected)) << target;
    }
}

TEST(FitSpec, TheExampleFitLoads) {
    const auto path =
        std::filesystem::path(FISHSCHOOL_SOURCE_DIR) / "docs" / "examples" / "fit.json";
    auto spec = loadFit(path);
    ASSERT_TRUE(spec) << spec.error();
    EXPECT_EQ(spec->base.fishCount, 30u);  // fit-school.json, beside it
    EXPECT_EQ(spec->targets, std::vector{path.parent_path() / "target.h5"});
}

TEST(FitSpec, AParameterThatTakesWholeNumbersIsRefused) {
    std::string text = kFit;
    text.replace(text.find("\"attraction-width\""), 18, "\"fishCount\"");
    text.replace(text.find("[0, 8]"), 6, "[10, 20]");
    auto spec = parseFit(text, "f.json", "/data");
    ASSERT_FALSE(spec);
    EXPECT_THAT(spec.error().message(), HasSubstr("takes every value of its range"));
}

}  // namespace
}  // namespace fishschool
