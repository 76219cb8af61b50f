// Config JSON and state CSV: round trips, and every bad input rejected with a message naming it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/ConfigIO.h"
#include "core/Scenario.h"
#include "core/StateIO.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;

std::string errorOf(std::string_view json) {
    auto result = parseConfig(json, "test.json");
    EXPECT_FALSE(result) << "accepted: " << json;
    return result ? std::string() : result.error();
}

TEST(Config, MissingKeysTakeDefaults) {
    auto p = parseConfig("{}");
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(*p, SimParams{});
    auto q = parseConfig(R"({"fishCount": 10, "rCohesion": 3.5})");
    ASSERT_TRUE(q) << q.error();
    EXPECT_EQ(q->fishCount, 10);
    EXPECT_EQ(q->rCohesion, 3.5f);
    EXPECT_EQ(q->rocks, SimParams{}.rocks);
}

TEST(Config, RoundTripsEveryKeyExactly) {
    SimParams p;
    p.fishCount = 1234;
    p.seed = 18446744073709551615ull;
    p.dt = 0.0123456789f;
    p.kCohesion = -0.1f;
    p.kSeparation = 1.0f / 3.0f;
    p.rAlignment = 7.77f;
    p.bounds = {30.1f, 20.2f, 40.3f};
    p.lockVerticalSteering = true;
    p.rocks = {{{1.1f, -2.2f, 3.3f}, 1.7f}};
    p.neighborSearch = NeighborSearch::AllPairs;
    auto back = parseConfig(configToJson(p));
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(*back, p);
}

TEST(Config, SaveThenLoad) {
    const auto path = std::filesystem::temp_directory_path() / "fishschool_config_test.json";
    SimParams p;
    p.kAlignment = 2.5f;
    ASSERT_TRUE(saveConfig(path, p));
    auto back = loadConfig(path);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(*back, p);
    std::filesystem::remove(path);
}

TEST(Config, EveryRuleOfTheSpecIsEnforced) {
    struct Case {
        const char* json;
        const char* mustName;
    };
    const Case cases[] = {
        {R"({"fishCount": -1})", "fishCount"},
        {R"({"fishCount": 2.5})", "fishCount"},
        {R"({"fishCount": 100000000000})", "fishCount"},
        {R"({"seed": -3})", "seed"},
        {R"({"dt": 0})", "dt"},
        {R"({"dt": -0.01})", "dt"},
        {R"({"kCohesion": 1e39})", "kCohesion"},
        {R"({"kSeparation": "strong"})", "kSeparation"},
        {R"({"kAlignment": null})", "kAlignment"},
        {R"({"rCohesion": -1})", "rCohesion"},
        {R"({"rSeparation": -0.5})", "rSeparation"},
        {R"({"rAlignment": -2})", "rAlignment"},
        {R"({"maxAcceleration": 0})", "maxAcceleration"},
        {R"({"maxVelocity": -1})", "maxVelocity"},
        {R"({"bounds": [10, 0, 10]})", "bounds"},
        {R"({"bounds": [10, 10]})", "bounds"},
        {R"({"maxVelocity": 600, "dt": 0.1})", "maxVelocity * dt"},
        {R"({"lockVerticalSteering": 1})", "lockVerticalSteering"},
        {R"({"rocks": [{"center": [0, 0, 0], "radius": 0}]})", "rocks[0].radius"},
        {R"({"rocks": [{"center": [0, 0, 0], "radius": 1}, {"center": [39.9, 0, 0], "radius": 1}]})",
         "rocks[1]"},
        {R"({"rocks": [{"center": [0, 0], "radius": 1}]})", "rocks[0].center"},
        {R"({"rocks": [{"center": [0, 0, 0], "radius": 1, "colour": 3}]})", "rocks[0].colour"},
        {R"({"rocks": [{"radius": 1}]})", "rocks[0]"},
        {R"({"neighborSearch": "octree"})", "neighborSearch"},
    };
    for (const Case& c : cases) {
        const std::string error = errorOf(c.json);
        EXPECT_THAT(error, HasSubstr(c.mustName)) << c.json;
        EXPECT_THAT(error, HasSubstr("test.json")) << c.json;
    }
}

TEST(Config, UnknownKeysMalformedJsonAndNonObjectsAreErrors) {
    EXPECT_THAT(errorOf(R"({"kCohesoin": 1})"), HasSubstr("'kCohesoin': unknown key"));
    EXPECT_THAT(errorOf(R"({"dt": 0.01,})"), HasSubstr("malformed JSON"));
    EXPECT_THAT(errorOf("[1, 2]"), HasSubstr("must be a JSON object"));
    EXPECT_FALSE(loadConfig("/nonexistent/fishschool.json"));
}

const char* kGoodState = "x,y,z,vx,vy,vz\n1,2,3,0.5,0,0\n-4,5,-6,0,1,0\n";

TEST(State, ParsesAndRoundTrips) {
    const SimParams p;
    auto school = parseStateCsv(kGoodState, p);
    ASSERT_TRUE(school) << school.error();
    ASSERT_EQ(school->size(), 2u);
    EXPECT_EQ((*school)[1].position, glm::vec3(-4, 5, -6));
    EXPECT_EQ((*school)[0].velocity, glm::vec3(0.5f, 0, 0));

    SimParams big;
    big.fishCount = 777;
    const School initial = makeInitialSchool(big);
    auto back = parseStateCsv(stateToCsv(initial), big);
    ASSERT_TRUE(back) << back.error();
    ASSERT_EQ(back->size(), initial.size());
    for (std::size_t i = 0; i < initial.size(); ++i) {
        EXPECT_EQ((*back)[i].position, initial[i].position);
        EXPECT_EQ((*back)[i].velocity, initial[i].velocity);
    }
}

TEST(State, BadFilesNameTheLineAndTheProblem) {
    const SimParams p;  // tank 40 x 20 x 40, a rock at (-14, -13, -10) radius 6
    struct Case {
        const char* csv;
        std::vector<const char*> mustSay;
    };
    const Case cases[] = {
        {"x,y,z,vx,vy\n1,2,3,0,0\n", {"s.csv:1", "bad header"}},
        {"", {"s.csv:1", "header"}},
        {"x,y,z,vx,vy,vz\n1,2,3,0,0,0\n1,2,3,0,0\n", {"s.csv:3", "only 5 values"}},
        {"x,y,z,vx,vy,vz\n1,2,3,0,0,0,7\n", {"s.csv:2", "too many values"}},
        {"x,y,z,vx,vy,vz\n1,nan,3,0,0,0\n", {"s.csv:2", "'y'", "finite"}},
        {"x,y,z,vx,vy,vz\n1,2,3,0,inf,0\n", {"s.csv:2", "'vy'", "finite"}},
        {"x,y,z,vx,vy,vz\n1,2,3,0,0,zero\n", {"s.csv:2", "'vz'", "not a number"}},
        {"x,y,z,vx,vy,vz\n1,2,,0,0,0\n", {"s.csv:2", "'z'", "not a number"}},
        {"x,y,z,vx,vy,vz\n1,2,3,0,0,0\n41,0,0,0,0,0\n", {"s.csv:3", "outside the tank"}},
        {"x,y,z,vx,vy,vz\n-14,-13,-10,0,0,0\n", {"s.csv:2", "inside a rock"}},
    };
    for (const Case& c : cases) {
        auto result = parseStateCsv(c.csv, p, "s.csv");
        ASSERT_FALSE(result) << c.csv;
        for (const char* text : c.mustSay) EXPECT_THAT(result.error(), HasSubstr(text)) << c.csv;
    }
}

TEST(State, AtomicWriteReplacesTheFileAndLeavesNoTemporary) {
    const auto dir = std::filesystem::temp_directory_path() / "fishschool_state_test";
    std::filesystem::create_directories(dir);
    const auto path = dir / "school.csv";
    ASSERT_TRUE(saveStateCsv(path, School{{{1, 2, 3}, {0, 0, 1}, {}}}));
    ASSERT_TRUE(saveStateCsv(path, School{}));
    auto back = loadStateCsv(path, SimParams{});
    ASSERT_TRUE(back) << back.error();
    EXPECT_TRUE(back->empty());
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
    EXPECT_FALSE(saveStateCsv(dir / "missing-folder" / "x.csv", School{}));
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fishschool
