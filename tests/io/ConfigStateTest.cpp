// Config JSON and state CSV: round trips, and every bad input rejected with a message naming it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "core/Scenario.h"
#include "io/ConfigIO.h"
#include "io/OutputFiles.h"
#include "io/StateIO.h"
#include "io/TextFiles.h"

namespace fishschool {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string errorOf(std::string_view json) {
    auto result = parseConfig(json, "test.json");
    EXPECT_FALSE(result) << "accepted: " << json;
    return result ? std::string() : result.error().message();
}

/// A fresh folder for one test, removed afterwards.
class TempDir {
  public:
    TempDir() {
        path_ = fs::temp_directory_path() /
                ("fishschool_" + std::to_string(::getpid()) + "_" +
                 std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() { fs::remove_all(path_); }
    const fs::path& path() const { return path_; }
    std::size_t entries() const {
        return static_cast<std::size_t>(std::distance(fs::directory_iterator(path_), {}));
    }

  private:
    fs::path path_;
};

TEST(Config, MissingKeysTakeDefaults) {
    auto p = parseConfig("{}");
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(*p, SimParams{});
    auto q = parseConfig(R"({"fishCount": 10, "rCohesion": 3.5})");
    ASSERT_TRUE(q) << q.error();
    EXPECT_EQ(q->fishCount, 10);
    EXPECT_EQ(q->rCohesion, 3.5f);
    EXPECT_EQ(q->rocks, SimParams{}.rocks);  // no "rocks" key: the default rocks stay
    auto noRocks = parseConfig(R"({"rocks": []})");
    ASSERT_TRUE(noRocks) << noRocks.error();
    EXPECT_TRUE(noRocks->rocks.empty());
}

// The article's keys by hand; ParamTable.EveryKeyRoundTripsExactly covers every key of the table.
TEST(Config, ReadsTheArticlesKeys) {
    auto p = parseConfig(R"({
        "fishCount": 77, "seed": 9, "dt": 0.02, "kCohesion": -0.5, "kSeparation": 2,
        "kAlignment": 0.25, "rCohesion": 8, "rSeparation": 1.5, "rAlignment": 4,
        "maxAcceleration": 6, "maxVelocity": 7, "bounds": [30, 15, 25],
        "lockVerticalSteering": true, "rocks": [{"radius": 2, "center": [1, -2, 3]}],
        "neighborSearch": "all-pairs", "viewAngle": 270})");
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p->fishCount, 77);
    EXPECT_EQ(p->seed, 9u);
    EXPECT_EQ(p->dt, 0.02f);
    EXPECT_EQ(p->kCohesion, -0.5f);
    EXPECT_EQ(p->kSeparation, 2.0f);
    EXPECT_EQ(p->kAlignment, 0.25f);
    EXPECT_EQ(p->rCohesion, 8.0f);
    EXPECT_EQ(p->rSeparation, 1.5f);
    EXPECT_EQ(p->rAlignment, 4.0f);
    EXPECT_EQ(p->maxAcceleration, 6.0f);
    EXPECT_EQ(p->maxVelocity, 7.0f);
    EXPECT_EQ(p->bounds, glm::vec3(30, 15, 25));
    EXPECT_TRUE(p->lockVerticalSteering);
    ASSERT_EQ(p->rocks.size(), 1u);
    EXPECT_EQ(p->rocks[0], (Rock{{1, -2, 3}, 2}));
    EXPECT_EQ(p->neighborSearch, NeighborSearch::AllPairs);
    EXPECT_EQ(p->viewAngle, 270.0f);
}

TEST(Config, RoundTripsTheArticlesKeysExactly) {
    SimParams p;
    p.fishCount = 1234;
    p.seed = 18446744073709551615ull;
    p.dt = 0.0123456789f;
    p.kCohesion = -0.1f;
    p.kSeparation = 1.0f / 3.0f;
    p.kAlignment = 1e-7f;
    p.rCohesion = 12.3456789f;
    p.rSeparation = 0.3f;
    p.rAlignment = 7.77f;
    p.maxAcceleration = 2.71828183f;
    p.maxVelocity = 3.14159265f;
    p.bounds = {30.1f, 20.2f, 40.3f};
    p.lockVerticalSteering = true;
    p.rocks = {{{1.1f, -2.2f, 3.3f}, 1.7f}, {{-10.01f, 0.1f, 0.2f}, 0.9f}};
    p.neighborSearch = NeighborSearch::AllPairs;
    p.viewAngle = 123.456f;
    p.boundary = Boundary::Periodic;
    ASSERT_TRUE(validate(p)) << validate(p).error();
    auto back = parseConfig(configToJson(p));
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(*back, p);
    EXPECT_EQ(configToJson(*back), configToJson(p));
}

TEST(Config, SaveThenLoad) {
    const TempDir dir;
    const fs::path path = dir.path() / "config.json";
    SimParams p;
    p.kAlignment = 2.5f;
    p.rocks.pop_back();
    ASSERT_TRUE(saveConfig(path, p));
    auto back = loadConfig(path);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(*back, p);
    EXPECT_EQ(dir.entries(), 1u);  // no temporary file left beside it
}

/// One invalid config and what its error must name.
struct BadConfig {
    const char* name;  ///< the test's name
    const char* json;
    std::vector<const char*> mustSay;
};

void PrintTo(const BadConfig& c, std::ostream* out) {
    *out << c.json;
}

class ConfigRule : public ::testing::TestWithParam<BadConfig> {};

TEST_P(ConfigRule, IsRejectedNamingTheKey) {
    const BadConfig& c = GetParam();
    const std::string error = errorOf(c.json);
    EXPECT_THAT(error, HasSubstr("test.json: ")) << c.json;
    for (const char* text : c.mustSay) EXPECT_THAT(error, HasSubstr(text)) << c.json;
}

// One case per rule of docs/config.md's key table, per type a key must have, and per way the
// JSON itself can be wrong.
const BadConfig kBadConfigs[] = {
    {"FishCountNegative", R"({"fishCount": -1})", {"fishCount", "-1", "from 0 to 16000000"}},
    {"FishCountNotInteger",
     R"({"fishCount": 2.5})",
     {"'fishCount'", "whole number from 0 to 16000000", "2.5"}},
    {"FishCountTooLarge", R"({"fishCount": 16000001})", {"fishCount", "16000001", "16000000"}},
    {"FishCountAboveInt64", R"({"fishCount": 18446744073709551615})", {"fishCount", "16000000"}},
    {"SeedNegative", R"({"seed": -3})", {"'seed'", "whole number from 0 to 18446744073709551615"}},
    {"SeedNotInteger",
     R"({"seed": 1.5})",
     {"'seed'", "whole number from 0 to 18446744073709551615"}},
    {"SeedString", R"({"seed": "7"})", {"'seed'", "whole number from 0 to 18446744073709551615"}},
    {"DtZero", R"({"dt": 0})", {"dt", "> 0"}},
    {"DtNegative", R"({"dt": -0.01})", {"dt", "> 0"}},
    {"WeightBeyondAFloat", R"({"kCohesion": 1e39})", {"'kCohesion'", "range of a float"}},
    {"WeightTooSmallForAFloat",
     R"({"kCohesion": 1e-50})",
     {"'kCohesion'", "1e-50", "too close to 0"}},
    {"WeightNotANumber", R"({"kSeparation": "strong"})", {"'kSeparation'", "number", "string"}},
    {"WeightNull", R"({"kAlignment": null})", {"'kAlignment'", "must be a number", "null"}},
    {"WeightAboveTheLargest", R"({"kSeparation": 1.5e6})", {"kSeparation", "1500000", "1e6"}},
    {"WeightBelowMinusTheLargest", R"({"kTarget": -3e38})", {"kTarget", "at most 1e6"}},
    {"MaxVelocityAboveTheLargest",
     R"({"maxVelocity": 2e6, "dt": 1e-6})",
     {"maxVelocity", "at most 1e6"}},
    {"MaxAccelerationAboveTheLargest", R"({"maxAcceleration": 3e38})", {"maxAcceleration", "1e6"}},
    {"BoundsAboveTheLargest", R"({"bounds": [2e6, 10, 10]})", {"bounds", "at most 1e6"}},
    {"CohesionRadiusNegative", R"({"rCohesion": -1})", {"rCohesion", ">= 0"}},
    {"SeparationRadiusNegative", R"({"rSeparation": -0.5})", {"rSeparation", ">= 0"}},
    {"AlignmentRadiusNegative", R"({"rAlignment": -2})", {"rAlignment", ">= 0"}},
    {"MaxAccelerationZero", R"({"maxAcceleration": 0})", {"maxAcceleration", "> 0"}},
    {"MaxVelocityNegative", R"({"maxVelocity": -1})", {"maxVelocity", "> 0"}},
    {"BoundsZero", R"({"bounds": [10, 0, 10]})", {"bounds", "> 0"}},
    {"BoundsNegative", R"({"bounds": [10, 10, -5], "rocks": []})", {"bounds", "> 0"}},
    {"BoundsTwoNumbers", R"({"bounds": [10, 10]})", {"'bounds'", "3 numbers"}},
    {"BoundsNotNumbers", R"({"bounds": [10, "a", 10]})", {"'bounds[1]'", "must be a number"}},
    {"StepLongerThanTheTank",
     R"({"maxVelocity": 600, "dt": 0.1})",
     {"maxVelocity * dt", "min(bounds)"}},
    {"LockNotBool", R"({"lockVerticalSteering": 1})", {"'lockVerticalSteering'", "true or false"}},
    {"ViewAngleZero", R"({"viewAngle": 0})", {"viewAngle", "<= 360"}},
    {"ViewAngleAboveAFullTurn", R"({"viewAngle": 361})", {"viewAngle", "<= 360"}},
    {"RockRadiusZero",
     R"({"rocks": [{"center": [0, 0, 0], "radius": 0}]})",
     {"rocks[0].radius", "> 0"}},
    {"RockAgainstAWall",
     R"({"rocks": [{"center": [0, 0, 0], "radius": 1}, {"center": [39.9, 0, 0], "radius": 1}]})",
     {"rocks[1]", "gap"}},
    {"RocksCloserThanAStep",
     R"({"maxVelocity": 5, "rocks": [{"center": [0, 0, 0], "radius": 2}, {"center": [4.05, 0, 0], "radius": 2}]})",
     {"rocks[0] and rocks[1]", "0.05", "maxVelocity * dt = 0.0833"}},
    {"RockOutsideTheTank",
     R"({"rocks": [{"center": [0, 50, 0], "radius": 1}]})",
     {"rocks[0]", "inside the tank"}},
    {"RockCenterTwoNumbers",
     R"({"rocks": [{"center": [0, 0], "radius": 1}]})",
     {"'rocks[0].center'", "3 numbers"}},
    {"RockRadiusNotANumber",
     R"({"rocks": [{"center": [0, 0, 0], "radius": "big"}]})",
     {"'rocks[0].radius'", "must be a number"}},
    {"RockUnknownKey",
     R"({"rocks": [{"center": [0, 0, 0], "radius": 1}, {"center": [0, 0, 9], "radius": 1, "colour": 3}]})",
     {"'rocks[1].colour'", "unknown key"}},
    {"RockWithoutCenter", R"({"rocks": [{"radius": 1}]})", {"'rocks[0]'", "center"}},
    {"RockNotAnObject", R"({"rocks": [3]})", {"'rocks[0]'", "object"}},
    {"RocksNotAnArray", R"({"rocks": {"center": [0, 0, 0], "radius": 1}})", {"'rocks'", "array"}},
    {"NeighborSearchUnknown",
     R"({"neighborSearch": "octree"})",
     {"'neighborSearch'", "octree", R"("all-pairs" or "grid")"}},
    {"NeighborSearchNotAString", R"({"neighborSearch": 1})", {"'neighborSearch'"}},
    {"BoundaryUnknown",
     R"({"boundary": "torus"})",
     {"'boundary'", "torus", R"("walls", "periodic" or "open")"}},
    {"BoundaryNotAString", R"({"boundary": true})", {"'boundary'"}},
    {"UnknownKey", R"({"kCohesoin": 1})", {"'kCohesoin'", "unknown key"}},
    {"AnEnsembleFile",
     R"({"base": {"fishCount": 20}, "axes": {"noise": [0, 1]}, "steps": 10})",
     {"'axes'", "this is an ensemble file", "fishschool-cli ensemble run"}},
    {"AnEnsembleFileWithoutItsBase",
     R"({"steps": 10, "axes": {"noise": [0, 1]}})",
     {"'axes'", "this is an ensemble file"}},
    {"DefaultRocksInASmallTank",
     R"({"bounds": [1, 1, 1]})",
     {"rocks[0]", "the default rocks", R"("rocks": [] removes them)"}},
    {"DuplicateKey", R"({"dt": 0.01, "dt": 0.02})", {"'dt'", "more than once"}},
    {"DuplicateKeyInARock",
     R"({"rocks": [{"center": [0, 0, 0], "radius": 1, "radius": 2}]})",
     {"key 'rocks[0].radius'", "more than once"}},
    {"MalformedJson", "{\n  \"dt\": 0.01,\n}", {"malformed JSON", "line 3"}},
    {"TruncatedJson", R"({"dt": 0.01)", {"malformed JSON", "line 1"}},
    {"NumberOverflow", R"({"dt": 1e400})", {"key 'dt'", "beyond the range of a float", "1e400"}},
    {"NumberOverflowInARock",
     R"({"rocks": [{"center": [0, 0, 0], "radius": 1}, {"center": [1, -1e999, 0], "radius": 1}]})",
     {"key 'rocks[1].center[1]'", "beyond the range of a float"}},
    {"SyntaxErrorInARock",
     R"({"rocks": [{"center": [0, 0, 0], "radius": 1}, {"center": [1, 2, 3] "radius": 1}]})",
     {"malformed JSON in key 'rocks[1].center'", "line 1"}},
    {"NotAnObject", "[1, 2]", {"must be a JSON object", "array"}},
    {"Empty", "", {"malformed JSON"}},
};

INSTANTIATE_TEST_SUITE_P(Spec, ConfigRule, ::testing::ValuesIn(kBadConfigs),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Config, ValuesAtTheLimitsAreKeptExactly) {
    auto p = parseConfig(
        R"({"rCohesion": 0, "kCohesion": -3, "fishCount": 16000000, "seed": 18446744073709551615,
            "kAlignment": -1e6, "maxAcceleration": 1e6,
            "rocks": [{"center": [0, 0, 0], "radius": 2}, {"center": [4.1, 0, 0], "radius": 2}]})");
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p->kAlignment, -1e6f);
    EXPECT_EQ(p->maxAcceleration, 1e6f);
    EXPECT_EQ(p->rCohesion, 0.0f);
    EXPECT_EQ(p->kCohesion, -3.0f);
    EXPECT_EQ(p->fishCount, kMaxFishCount);
    EXPECT_EQ(p->seed, 18446744073709551615ull);
}

TEST(Config, AMissingFileIsNamed) {
    auto result = loadConfig("/nonexistent/fishschool.json");
    ASSERT_FALSE(result);
    EXPECT_THAT(result.error(), HasSubstr("/nonexistent/fishschool.json"));
}

TEST(Config, ALoadedFileIsNamedInItsErrors) {
    const TempDir dir;
    const fs::path path = dir.path() / "bad.json";
    std::ofstream(path) << R"({"rSeparation": -1})";
    auto result = loadConfig(path);
    ASSERT_FALSE(result);
    EXPECT_THAT(result.error(), HasSubstr(path.string() + ": "));
    EXPECT_THAT(result.error(), HasSubstr("rSeparation"));
}

TEST(Config, AFileLargerThanTheLimitIsRefusedBeforeItIsRead) {
    const TempDir dir;
    const fs::path path = dir.path() / "big.json";
    // Valid JSON, all whitespace after the object: the size alone is refused.
    std::ofstream(path) << "{}" << std::string(kMaxConfigFileBytes, ' ');
    auto result = loadConfig(path);
    ASSERT_FALSE(result);
    EXPECT_THAT(result.error(), HasSubstr(path.string()));
    EXPECT_THAT(result.error(), HasSubstr("at most " + std::to_string(kMaxConfigFileBytes)));
    fs::resize_file(path, kMaxConfigFileBytes);
    EXPECT_TRUE(loadConfig(path)) << "a file at the limit is read";
}

TEST(Config, MoreRocksThanTheLimitAreRefused) {
    auto config = [](std::size_t count) {
        std::string json = R"({"bounds": [10000, 100, 100], "rocks": [)";
        for (std::size_t r = 0; r < count; ++r) {
            json.append(r ? "," : "").append(R"({"center": [)");
            json.append(std::to_string(-9000.0 + 50.0 * double(r)))
                .append(R"(, 0, 0], "radius": 1})");
        }
        return json.append("]}");
    };
    EXPECT_TRUE(parseConfig(config(kMaxRocks)));
    EXPECT_THAT(errorOf(config(kMaxRocks + 1)),
                HasSubstr("rocks: 257 rocks are not allowed; at most 256"));
}

/// The rocks' gaps are kept between checks of one tank (an ensemble checks 10^7 points of it):
/// a step length that no longer fits is still found, whatever was checked before.
TEST(Config, TheRockGapsKeptBetweenChecksNeverHideATooLongStep) {
    SimParams p;
    p.bounds = {50.0f, 20.0f, 50.0f};
    p.rocks = {Rock{{0.0f, 0.0f, 0.0f}, 5.0f}, Rock{{12.0f, 0.0f, 0.0f}, 5.0f}};  // 2 m apart
    p.dt = 0.1f;
    for (const float speed : {3.0f, 19.0f, 3.0f, 21.0f, 19.9f, 25.0f}) {
        p.maxVelocity = speed;  // a step of speed * 0.1 m against the rocks' 2 m gap
        const Result<void> ok = validate(p);
        EXPECT_EQ(bool(ok), speed * p.dt <= 2.0f) << speed;
        if (!ok) {
            EXPECT_THAT(ok.error(),
                        HasSubstr("rocks[0] and rocks[1]: a gap of 2 m is not allowed"));
        }
    }
    // A rock near a wall: 1 m from x = 50.
    p.rocks.push_back(Rock{{44.0f, 0.0f, 0.0f}, 5.0f});
    for (const float speed : {9.0f, 11.0f, 9.0f}) {
        p.maxVelocity = speed;
        const Result<void> ok = validate(p);
        EXPECT_EQ(bool(ok), speed * p.dt <= 1.0f) << speed;
        if (!ok) {
            EXPECT_THAT(ok.error(),
                        HasSubstr("rocks[2]: center [44, 0, 0] radius 5 is not allowed"));
        }
    }
}

TEST(Config, MessagesStayShortWhateverTheInput) {
    const std::string huge(1'000'000, '7');
    auto text = [](std::initializer_list<std::string_view> parts) {
        std::string joined;
        for (std::string_view part : parts) joined.append(part);
        return joined;
    };
    const std::string cases[] = {
        text({R"({"dt": ")", huge, R"("})"}),              // a huge string of the wrong type
        text({R"({"bounds": [)", huge, ",", huge, "]}"}),  // a huge array of the wrong size
        text({R"({"dt": )", huge, "x}"}),                  // a huge malformed token
        text({R"({")", huge, R"(": 1})"}),                 // a huge unknown key
        text({R"({"neighborSearch": ")", huge, R"("})"}),  // a huge unknown name
    };
    for (const std::string& json : cases) {
        const std::string error = errorOf(json);
        EXPECT_THAT(error, HasSubstr("test.json: ")) << error.substr(0, 400);
        EXPECT_LE(error.size(), 300u) << error.substr(0, 400);
    }
}

TEST(Config, TheExampleConfigsLoad) {
    const fs::path examples = fs::path(FISHSCHOOL_SOURCE_DIR) / "docs" / "examples";
    std::size_t count = 0;
    for (const auto& entry : fs::directory_iterator(examples)) {
        if (entry.path().extension() != ".json") continue;
        std::stringstream text;
        text << std::ifstream(entry.path()).rdbuf();
        // Ensemble files (EnsembleTest's) and fit files (FitSpecTest's).
        if (text.str().find("\"axes\"") != std::string::npos ||
            text.str().find("\"parameters\"") != std::string::npos)
            continue;
        ++count;
        auto p = loadConfig(entry.path());
        EXPECT_TRUE(p) << p.error();
    }
    EXPECT_GE(count, 2u);
    auto defaults = loadConfig(examples / "default.json");
    ASSERT_TRUE(defaults) << defaults.error();
    EXPECT_EQ(*defaults, SimParams{});
    // It lists every key, as a saved config does.
    std::ifstream in(examples / "default.json");
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), configToJson(SimParams{}));
}

TEST(Config, TheRummyNosePresetIsItsExampleFile) {
    const fs::path examples = fs::path(FISHSCHOOL_SOURCE_DIR) / "docs" / "examples";
    auto rummyNose = loadConfig(examples / "rummy-nose.json");
    ASSERT_TRUE(rummyNose) << rummyNose.error();
    EXPECT_EQ(*rummyNose, rummyNoseParams());
    // The public code's gains differ in the five gains alone.
    auto publicCode = loadConfig(examples / "rummy-nose-public-code.json");
    ASSERT_TRUE(publicCode) << publicCode.error();
    SimParams expected = rummyNoseParams();
    expected.gammaWall = 0.23f;
    expected.gammaRandom = 0.3f;
    expected.alphaWall = 0.0f;
    expected.gammaAttraction = expected.gammaAlignment = 0.3f;
    EXPECT_EQ(*publicCode, expected);
}

const char* kGoodState = "x,y,z,vx,vy,vz\n1,2,3,0.5,0,0\n-4,5,-6,0,1,0\n";

TEST(State, Parses) {
    auto school = parseStateCsv(kGoodState, SimParams{});
    ASSERT_TRUE(school) << school.error();
    ASSERT_EQ(school->size(), 2u);
    EXPECT_EQ((*school)[0].position, glm::vec3(1, 2, 3));
    EXPECT_EQ((*school)[0].velocity, glm::vec3(0.5f, 0, 0));
    EXPECT_EQ((*school)[1].position, glm::vec3(-4, 5, -6));
    EXPECT_EQ((*school)[1].velocity, glm::vec3(0, 1, 0));
    EXPECT_EQ((*school)[1].acceleration, glm::vec3(0));
}

TEST(State, AByteOrderMarkIsReadAsIfAbsent) {
    auto school = parseStateCsv(std::string("\xEF\xBB\xBF") + kGoodState, SimParams{});
    ASSERT_TRUE(school) << school.error();
    EXPECT_EQ(school->size(), 2u);
}

TEST(State, ASpeedAboveTheLargestIsRefusedNamingTheLine) {
    auto fast = parseStateCsv("x,y,z,vx,vy,vz\n1,2,3,0,0,0\n1,2,3,8e5,8e5,0\n", SimParams{});
    ASSERT_FALSE(fast);
    EXPECT_THAT(fast.error(), HasSubstr(":3: a speed of 1131370.8"));
    EXPECT_THAT(fast.error(), HasSubstr("at most 1e6"));
    auto atTheLimit = parseStateCsv("x,y,z,vx,vy,vz\n1,2,3,0,1e6,0\n", SimParams{});
    EXPECT_TRUE(atTheLimit) << atTheLimit.error();
}

TEST(State, AFileLargerThanTheLimitIsRefusedBeforeItIsRead) {
    const TempDir dir;
    const fs::path path = dir.path() / "big.csv";
    std::ofstream(path) << "x,y,z,vx,vy,vz\n";
    fs::resize_file(path, kMaxStateFileBytes + 1);  // sparse: no disk is used
    auto result = loadStateCsv(path, SimParams{});
    ASSERT_FALSE(result);
    EXPECT_THAT(result.error(), HasSubstr(path.string()));
    EXPECT_THAT(result.error(), HasSubstr("at most " + std::to_string(kMaxStateFileBytes)));
    auto folder = loadStateCsv(dir.path(), SimParams{});
    ASSERT_FALSE(folder);
    EXPECT_THAT(folder.error(), HasSubstr("is a folder; give a state file"));
}

TEST(State, MessagesStayShortWhateverTheInput) {
    const std::string huge(1'000'000, '7');
    const std::string header = "x,y,z,vx,vy,vz\n";
    const std::string cases[] = {
        huge + "\n",                          // a huge header
        header + huge + "x,0,0,0,0,0\n",      // a huge bad number
        header + "0,0,0,0,0," + huge + "\n",  // a huge out-of-range number
    };
    for (const std::string& csv : cases) {
        auto result = parseStateCsv(csv, SimParams{}, "test.csv");
        ASSERT_FALSE(result);
        EXPECT_THAT(result.error(), HasSubstr("test.csv:"));
        EXPECT_LE(result.error().size(), 300u) << result.error().substr(0, 400);
    }
}

TEST(State, AcceptsWindowsLineEndsAndNoFinalNewline) {
    auto school = parseStateCsv("x,y,z,vx,vy,vz\r\n1,2,3,0.5,0,0\r\n-4,5,-6,0,1,0", SimParams{});
    ASSERT_TRUE(school) << school.error();
    ASSERT_EQ(school->size(), 2u);
    EXPECT_EQ((*school)[1].velocity, glm::vec3(0, 1, 0));
    auto empty = parseStateCsv("x,y,z,vx,vy,vz\n", SimParams{});
    ASSERT_TRUE(empty) << empty.error();
    EXPECT_TRUE(empty->empty());
}

TEST(State, RoundTripsEveryBit) {
    SimParams p;
    p.fishCount = 777;
    School initial = makeInitialSchool(p);
    initial[0].velocity = {1e-30f, -0.0f, 4.99999952f};  // tiny, negative zero, many digits
    const std::string csv = stateToCsv(initial);
    auto back = parseStateCsv(csv, p);
    ASSERT_TRUE(back) << back.error();
    ASSERT_EQ(back->size(), initial.size());
    for (std::size_t i = 0; i < initial.size(); ++i) {
        EXPECT_EQ((*back)[i].position, initial[i].position) << i;
        EXPECT_EQ((*back)[i].velocity, initial[i].velocity) << i;
    }
    EXPECT_TRUE(std::signbit((*back)[0].velocity.y));
    EXPECT_EQ(stateToCsv(*back), csv);
}

TEST(State, SaveThenLoad) {
    const TempDir dir;
    SimParams p;
    p.fishCount = 50;
    const School school = makeInitialSchool(p);
    ASSERT_TRUE(saveStateCsv(dir.path() / "school.csv", school));
    auto back = loadStateCsv(dir.path() / "school.csv", p);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(stateToCsv(*back), stateToCsv(school));
    auto missing = loadStateCsv(dir.path() / "missing.csv", p);
    ASSERT_FALSE(missing);
    EXPECT_THAT(missing.error(), HasSubstr("missing.csv"));
}

/// One invalid state file and what its error must name.
struct BadState {
    const char* name;
    const char* csv;
    std::vector<const char*> mustSay;
};

void PrintTo(const BadState& c, std::ostream* out) {
    *out << c.csv;
}

class StateRule : public ::testing::TestWithParam<BadState> {};

TEST_P(StateRule, IsRejectedNamingTheLine) {
    const SimParams p;  // tank 40 x 20 x 40, a rock at (-14, -13, -10) radius 6
    const BadState& c = GetParam();
    auto result = parseStateCsv(c.csv, p, "s.csv");
    ASSERT_FALSE(result) << c.csv;
    for (const char* text : c.mustSay) EXPECT_THAT(result.error(), HasSubstr(text)) << c.csv;
}

const BadState kBadStates[] = {
    {"BadHeader", "x,y,z,vx,vy\n1,2,3,0,0\n", {"s.csv:1:", "bad header", "x,y,z,vx,vy,vz"}},
    {"HeaderInAnotherOrder", "y,x,z,vx,vy,vz\n", {"s.csv:1:", "bad header"}},
    {"NoHeader", "1,2,3,0,0,0\n", {"s.csv:1:", "bad header"}},
    {"EmptyFile", "", {"s.csv:1:", "header"}},
    {"ShortRow", "x,y,z,vx,vy,vz\n1,2,3,0,0,0\n1,2,3,0,0\n", {"s.csv:3:", "only 5 values"}},
    {"LongRow", "x,y,z,vx,vy,vz\n1,2,3,0,0,0,7\n", {"s.csv:2:", "too many values"}},
    {"TrailingComma", "x,y,z,vx,vy,vz\n1,2,3,0,0,0,\n", {"s.csv:2:", "too many values"}},
    {"EmptyLine", "x,y,z,vx,vy,vz\n1,2,3,0,0,0\n\n1,2,3,0,0,0\n", {"s.csv:3:", "empty line"}},
    {"NaN", "x,y,z,vx,vy,vz\n1,nan,3,0,0,0\n", {"s.csv:2:", "'y'", "finite"}},
    {"Infinity", "x,y,z,vx,vy,vz\n1,2,3,0,inf,0\n", {"s.csv:2:", "'vy'", "finite"}},
    {"BeyondAFloat", "x,y,z,vx,vy,vz\n1,2,3,1e39,0,0\n", {"s.csv:2:", "'vx'", "1e39", "range"}},
    {"NotANumber",
     "x,y,z,vx,vy,vz\n1,2,3,0,0,zero\n",
     {"s.csv:2:", "'vz'", "'zero'", "not a number"}},
    {"NumberWithText", "x,y,z,vx,vy,vz\n1,2m,3,0,0,0\n", {"s.csv:2:", "'y'", "not a number"}},
    {"EmptyValue", "x,y,z,vx,vy,vz\n1,2,,0,0,0\n", {"s.csv:2:", "'z'", "not a number"}},
    {"OutsideTheTank",
     "x,y,z,vx,vy,vz\n1,2,3,0,0,0\n41,0,0,0,0,0\n",
     {"s.csv:3:", "outside the tank", "41"}},
    {"BelowTheFloor", "x,y,z,vx,vy,vz\n0,-20.5,0,0,0,0\n", {"s.csv:2:", "outside the tank"}},
    {"InsideARock", "x,y,z,vx,vy,vz\n-14,-13,-10,0,0,0\n", {"s.csv:2:", "inside rock 0"}},
    {"ATrailingSpace", "x,y,z,vx,vy,vz\n1,2,3,0,0,0 \n", {"s.csv:2:", "'vz'", "'0 '"}},
    {"ALeadingSpace", "x,y,z,vx,vy,vz\n1, 2,3,0,0,0\n", {"s.csv:2:", "'y'", "' 2'"}},
    {"AKindMissing",
     "x,y,z,vx,vy,vz,kind\n1,2,3,0,0,0\n",
     {"s.csv:2:", "only 6 values; a row has 7", "kind"}},
    {"AKickClockMissing",
     "x,y,z,vx,vy,vz,kickClock\n1,2,3,0,0,0,0.5\n1,2,3,0,0,0\n",
     {"s.csv:3:", "only 6 values; a row has 7", "kickClock"}},
    {"ANegativeKickClock",
     "x,y,z,vx,vy,vz,kickClock\n1,2,3,0,0,0,-0.25\n",
     {"s.csv:2:", "'kickClock' value '-0.25' is not allowed", "from 0", "to 1e"}},
    {"AKickClockPastTheLongest",
     "x,y,z,vx,vy,vz,kickClock\n1,2,3,0,0,0,2e8\n",
     {"s.csv:2:", "'kickClock' value '2e8' is not allowed", "from 0"}},
    {"AKickClockNotANumber",
     "x,y,z,vx,vy,vz,kickClock\n1,2,3,0,0,0,nan\n",
     {"s.csv:2:", "'kickClock'", "finite"}},
    {"AnInfiniteKickClock",
     "x,y,z,vx,vy,vz,kickClock\n1,2,3,0,0,0,inf\n",
     {"s.csv:2:", "'kickClock'", "finite"}},
    {"AKickClockBeyondAFloat",
     "x,y,z,vx,vy,vz,kickClock\n1,2,3,0,0,0,1e39\n",
     {"s.csv:2:", "'kickClock'", "range"}},
    {"AKickClockAsText",
     "x,y,z,vx,vy,vz,kickClock\n1,2,3,0,0,0,soon\n",
     {"s.csv:2:", "'kickClock'", "'soon'", "not a number"}},
    {"AKickClockAfterTheKind",
     "x,y,z,vx,vy,vz,kind,kickClock\n",
     {"s.csv:1:", "bad header", "',kickClock'", "in that order"}},
};

INSTANTIATE_TEST_SUITE_P(Spec, StateRule, ::testing::ValuesIn(kBadStates),
                         [](const auto& info) { return std::string(info.param.name); });

SimParams burstAndCoast() {
    SimParams p;
    p.steering = Steering::BurstAndCoast;
    return p;
}

// docs/model.md "Burst-and-coast swimming": the kick clock is part of a fish's state.
TEST(State, BurstAndCoastKeepsEachFishsKickClockToTheBit) {
    SimParams p = burstAndCoast();
    p.fishCount = 5;
    p.leaders = 1;
    School school = makeInitialSchool(p);
    const float clocks[] = {0.0f, 1e-6f, 0.43219876f, 3.3f, kMaxKickClock};
    for (std::size_t i = 0; i < school.size(); ++i) school[i].kickClock = clocks[i];
    const std::string csv = stateToCsv(school, p);
    EXPECT_TRUE(csv.starts_with("x,y,z,vx,vy,vz,kickClock,kind\n")) << csv;
    auto back = parseStateCsv(csv, p);
    ASSERT_TRUE(back) << back.error();
    ASSERT_EQ(back->size(), school.size());
    for (std::size_t i = 0; i < school.size(); ++i) EXPECT_EQ((*back)[i].kickClock, clocks[i]);
    EXPECT_EQ(stateToCsv(*back, p), csv);
    // Other steerings have no kicks: no column.
    EXPECT_TRUE(stateToCsv(school, SimParams{}).starts_with("x,y,z,vx,vy,vz\n"));
}

TEST(State, AFileWithoutKickClocksDrawsEachFishsFirstKickAnew) {
    auto school = parseStateCsv(kGoodState, burstAndCoast());
    ASSERT_TRUE(school) << school.error();
    for (const Fish& fish : *school) EXPECT_EQ(fish.kickClock, 0.0f);
}

TEST(State, AKickClockIsCheckedUnderAnySteeringAndKeptOnlyWhereFishKick) {
    const std::string csv = "x,y,z,vx,vy,vz,kickClock\n1,2,3,0,0,0,0.5\n";
    auto kept = parseStateCsv(csv, burstAndCoast());
    ASSERT_TRUE(kept) << kept.error();
    EXPECT_EQ((*kept)[0].kickClock, 0.5f);
    auto other = parseStateCsv(csv, SimParams{});
    ASSERT_TRUE(other) << other.error();
    EXPECT_EQ((*other)[0].kickClock, 0.0f);
    EXPECT_FALSE(parseStateCsv("x,y,z,vx,vy,vz,kickClock\n1,2,3,0,0,0,-1\n", SimParams{}));
}

TEST(State, AFishIsCheckedAgainstTheConfigItIsLoadedInto) {
    const std::string csv = "x,y,z,vx,vy,vz\n0,0,30,0,0,0\n";
    EXPECT_TRUE(parseStateCsv(csv, SimParams{}));  // inside the default 40 x 20 x 40 tank
    SimParams small;
    small.bounds = {25.0f, 20.0f, 25.0f};
    small.rocks.clear();
    EXPECT_FALSE(parseStateCsv(csv, small));
    SimParams rock = small;
    rock.bounds = SimParams{}.bounds;
    rock.rocks.push_back(Rock{glm::vec3(0.0f, 0.0f, 29.0f), 2.0f});
    EXPECT_FALSE(parseStateCsv(csv, rock));
}

TEST(State, OpenWaterTakesAFishAnywhereOutsideTheRocks) {
    const std::string far = "x,y,z,vx,vy,vz\n5000,-30,12000,1,0,0\n";
    SimParams open;
    open.rocks.clear();
    EXPECT_FALSE(parseStateCsv(far, open));
    open.boundary = Boundary::Open;
    auto school = parseStateCsv(far, open);
    ASSERT_TRUE(school) << school.error();
    EXPECT_EQ((*school)[0].position, glm::vec3(5000.0f, -30.0f, 12000.0f));
    open.rocks.push_back(Rock{glm::vec3(5000.0f, -30.0f, 12001.0f), 2.0f});
    EXPECT_FALSE(parseStateCsv(far, open));
}

TEST(AtomicWrite, ReplacesTheFileAndLeavesNoTemporary) {
    const TempDir dir;
    const fs::path path = dir.path() / "school.csv";
    ASSERT_TRUE(saveStateCsv(path, School{{{1, 2, 3}, {0, 0, 1}, {}}}));
    ASSERT_TRUE(saveStateCsv(path, School{}));
    auto back = loadStateCsv(path, SimParams{});
    ASSERT_TRUE(back) << back.error();
    EXPECT_TRUE(back->empty());
    EXPECT_EQ(dir.entries(), 1u);
}

TEST(AtomicWrite, AFailedWriteLeavesTheFolderAsItWas) {
    const TempDir dir;
    auto missingFolder = writeFileAtomically(dir.path() / "missing-folder" / "x.csv", "x");
    ASSERT_FALSE(missingFolder);
    EXPECT_THAT(missingFolder.error(), HasSubstr("missing-folder"));
    // A folder in the way: the temporary file is written, the rename fails, the temporary goes.
    fs::create_directory(dir.path() / "taken");
    std::ofstream(dir.path() / "taken" / "inside.txt") << "kept";
    auto taken = writeFileAtomically(dir.path() / "taken", "new content");
    ASSERT_FALSE(taken);
    EXPECT_THAT(taken.error(), HasSubstr("taken"));
    EXPECT_EQ(dir.entries(), 1u);
    EXPECT_TRUE(fs::is_directory(dir.path() / "taken"));
    EXPECT_TRUE(fs::exists(dir.path() / "taken" / "inside.txt"));
}

TEST(AtomicWrite, ManyWritesOfOneFileEachLeaveItWhole) {
    const TempDir dir;
    const fs::path path = dir.path() / "out.txt";
    for (int i = 0; i < 20; ++i) {
        const std::string content(1000 + i, static_cast<char>('a' + i));
        ASSERT_TRUE(writeFileAtomically(path, content));
        std::ifstream in(path, std::ios::binary);
        const std::string back((std::istreambuf_iterator<char>(in)), {});
        ASSERT_EQ(back, content);
    }
    EXPECT_EQ(dir.entries(), 1u);
}

TEST(LoadParams, TheFlagsOverrideTheConfigFilesKeys) {
    TempDir dir;
    const std::string config = (dir.path() / "school.json").string();
    std::ofstream(config) << R"({"fishCount": 300, "seed": 9, "neighborSearch": "all-pairs",
                                 "rCohesion": 4})";
    auto fromFile = loadParams({.configPath = config});
    ASSERT_TRUE(fromFile) << fromFile.error();
    EXPECT_EQ(fromFile->fishCount, 300);
    EXPECT_EQ(fromFile->seed, 9u);
    EXPECT_EQ(fromFile->neighborSearch, NeighborSearch::AllPairs);
    EXPECT_EQ(fromFile->rCohesion, 4.0f);

    auto overridden = loadParams(
        {.configPath = config, .fish = "50", .seed = "18446744073709551615", .neighbors = "grid"});
    ASSERT_TRUE(overridden) << overridden.error();
    EXPECT_EQ(overridden->fishCount, 50);
    EXPECT_EQ(overridden->seed, 18446744073709551615u);
    EXPECT_EQ(overridden->neighborSearch, NeighborSearch::Grid);
    EXPECT_EQ(overridden->rCohesion, 4.0f);  // what no flag names stays the file's

    auto defaults = loadParams({.fish = "0"});
    ASSERT_TRUE(defaults) << defaults.error();
    SimParams expected;
    expected.fishCount = 0;
    EXPECT_EQ(*defaults, expected);
}

TEST(LoadParams, ErrorsNameTheFlagOrTheKey) {
    TempDir dir;
    const std::string bad = (dir.path() / "bad.json").string();
    std::ofstream(bad) << R"({"rCohesion": -4})";
    struct Case {
        ParamFlags flags;
        std::vector<std::string> mustSay;
    };
    const Case cases[] = {
        {{.fish = "2.5"}, {"--fish", "'2.5'", "fishCount", "16000000"}},
        {{.fish = "-3"}, {"--fish", "fishCount"}},
        {{.fish = "16000001"}, {"--fish", "16000000"}},
        {{.fish = ""}, {"--fish"}},
        {{.seed = "-1"}, {"--seed", "18446744073709551615"}},
        {{.seed = "18446744073709551616"}, {"--seed"}},
        {{.seed = "7x"}, {"--seed"}},
        {{.seed = "0x10"}, {"--seed", "'0x10'", "whole number"}},
        {{.seed = " 5"}, {"--seed", "' 5'"}},
        {{.seed = ""}, {"--seed"}},
        {{.fish = "0x10"}, {"--fish", "'0x10'", "16000000"}},
        {{.fish = "+5"}, {"--fish", "'+5'"}},
        {{.configPath = dir.path().string()}, {"is a folder; give a config file"}},
        {{.neighbors = "octree"}, {"--neighbors", "'octree'", "all-pairs or grid"}},
        {{.configPath = ""}, {"--config"}},
        {{.configPath = bad}, {"bad.json", "rCohesion"}},
        {{.configPath = (dir.path() / "missing.json").string(), .fish = "10"}, {"missing.json"}},
    };
    for (const Case& c : cases) {
        const auto refused = loadParams(c.flags);
        ASSERT_FALSE(refused) << c.mustSay.front();
        for (const std::string& text : c.mustSay)
            EXPECT_THAT(refused.error(), HasSubstr(text)) << refused.error();
    }
}

}  // namespace
}  // namespace fishschool
