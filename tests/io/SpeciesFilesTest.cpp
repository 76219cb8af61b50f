// Species in config and state files (docs/config.md "Species"): read, written back to the same
// values, and every bad species refused with a message that names the species and the key.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/Scenario.h"
#include "io/ConfigIO.h"
#include "io/StateIO.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;

constexpr const char* kTwoSpecies = R"({
  "fishCount": 30,
  "species": [
    {"name": "sardine", "count": 20, "color": [0.2, 0.4, 0.9], "schoolsWith": "own",
     "rCohesion": 12, "kPreferred": 0.5, "preferredDirection": [0, 0, 1]},
    {"name": "tuna", "count": 10, "maxVelocity": 6, "mass": 20, "bodyLength": 3}
  ]
})";

TEST(SpeciesConfig, ReadsEachSpeciesAndWritesItBackToTheSameValues) {
    auto p = parseConfig(kTwoSpecies, "two.json");
    ASSERT_TRUE(p) << p.error();
    ASSERT_EQ(p->species.size(), 2u);
    EXPECT_EQ(p->species[0].name, "sardine");
    EXPECT_EQ(p->species[1].count, 10);
    EXPECT_EQ(p->species[0].color, glm::vec3(0.2f, 0.4f, 0.9f));
    const SimParams sardine = paramsOfSpecies(*p, 0);
    const SimParams tuna = paramsOfSpecies(*p, 1);
    EXPECT_EQ(sardine.schoolsWith, SchoolsWith::Own);
    EXPECT_EQ(sardine.rCohesion, 12.0f);
    EXPECT_EQ(sardine.maxVelocity, p->maxVelocity);  // not set: the config's
    EXPECT_EQ(sardine.preferredDirection, glm::vec3(0, 0, 1));
    EXPECT_EQ(tuna.maxVelocity, 6.0f);
    EXPECT_EQ(tuna.mass, 20.0f);
    EXPECT_EQ(tuna.schoolsWith, SchoolsWith::All);
    EXPECT_EQ(maxRadius(*p), 20.0f);  // tuna's rCohesion and rAlignment are the config's 20
    auto back = parseConfig(configToJson(*p), "back.json");
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(*back, *p);
}

/// Each bad species gives an error with the file, the species and the key.
TEST(SpeciesConfig, BadSpeciesAreRefusedNamingTheSpeciesAndTheKey) {
    const auto error = [](const std::string& species, int fishCount = 30) {
        auto p = parseConfig(
            R"({"fishCount": )" + std::to_string(fishCount) + R"(, "species": )" + species + "}",
            "bad.json");
        return p ? std::string("accepted") : p.error();
    };
    EXPECT_THAT(error(R"([{"name": "a", "count": 20}, {"name": "b", "count": 5}])"),
                HasSubstr("the counts add up to 25, which is not allowed; they must add up to "
                          "fishCount (30)"));
    EXPECT_THAT(error(R"([{"name": "a", "count": 30, "seed": 3}])"),
                HasSubstr("key 'species[0].seed': unknown key for a species"));
    EXPECT_THAT(error(R"([{"name": "a", "count": 30, "mass": 1, "mass": 2}])"),
                HasSubstr("'species[0].mass' appears more than once"));
    EXPECT_THAT(error(R"([{"name": "a", "count": 30, "rSeparation": -2}])"),
                HasSubstr("species[0] ('a'): rSeparation: -2 is not allowed; must be finite "
                          "and >= 0"));
    EXPECT_THAT(error(R"([{"name": "a", "count": 30, "minVelocity": 4, "maxVelocity": 2}])"),
                HasSubstr("species[0] ('a'): minVelocity: 4 is not allowed; must be finite, >= 0 "
                          "and <= maxVelocity (2)"));
    EXPECT_THAT(error(R"([{"name": "a", "count": 30, "maxVelocity": 5000}])"),
                HasSubstr("species[0] ('a'): maxVelocity * dt"));
    EXPECT_THAT(error(R"([{"name": "a", "count": 30, "schoolsWith": "others"}])"),
                HasSubstr("key 'species[0].schoolsWith': '\"others\"' is not allowed; must be "
                          "\"all\" or \"own\""));
    EXPECT_THAT(error(R"([{"count": 30}])"), HasSubstr("needs both \"name\" and \"count\""));
    EXPECT_THAT(error(R"([{"name": "a", "count": -1}])"),
                HasSubstr("must be a whole number from 0 to 16000000"));
    EXPECT_THAT(error(R"([{"name": "a", "count": 30, "color": [2, 0, 0]}])"),
                HasSubstr("every component must be from 0 to 1"));
    EXPECT_THAT(error(R"({"name": "a"})"), HasSubstr("must be an array"));
    std::string many = "[";
    for (int s = 0; s < 17; ++s)
        many += (s ? ", " : "") + std::string(R"({"name": "s)") + std::to_string(s) +
                R"(", "count": )" + (s == 0 ? "30" : "0") + "}";
    many += "]";
    EXPECT_THAT(error(many), HasSubstr("17 species are not allowed; at most 16"));
}

/// --fish on a mixed school shares the new count among the species as they were.
TEST(SpeciesConfig, ANewFishCountIsSharedAmongTheSpecies) {
    auto p = parseConfig(kTwoSpecies, "two.json");
    ASSERT_TRUE(p) << p.error();
    ParamFlags flags;
    flags.fish = "300";
    auto more = loadParams(flags, *p);
    ASSERT_TRUE(more) << more.error();
    EXPECT_EQ(more->fishCount, 300);
    EXPECT_EQ(more->species[0].count, 200);
    EXPECT_EQ(more->species[1].count, 100);
    flags.fish = "31";  // 20.67 and 10.33: the larger remainder gets the odd fish
    auto odd = loadParams(flags, *p);
    ASSERT_TRUE(odd) << odd.error();
    EXPECT_EQ(odd->species[0].count, 21);
    EXPECT_EQ(odd->species[1].count, 10);
}

TEST(SpeciesState, TheSpeciesColumnIsWrittenAndReadBack) {
    auto p = parseConfig(kTwoSpecies, "two.json");
    ASSERT_TRUE(p) << p.error();
    const School school = makeInitialSchool(*p);
    const std::string csv = stateToCsv(school, *p);
    EXPECT_TRUE(csv.starts_with("x,y,z,vx,vy,vz,species\n")) << csv.substr(0, 40);
    auto back = parseStateCsv(csv, *p, "state.csv");
    ASSERT_TRUE(back) << back.error();
    ASSERT_EQ(back->size(), school.size());
    for (std::size_t i = 0; i < school.size(); ++i) EXPECT_EQ((*back)[i].species, i < 20 ? 0u : 1u);
    // Without species the file is today's: six columns.
    EXPECT_TRUE(stateToCsv(school, SimParams{}).starts_with("x,y,z,vx,vy,vz\n"));
}

TEST(SpeciesState, ASpeciesTheConfigLacksIsRefusedNamingTheLine) {
    auto p = parseConfig(kTwoSpecies, "two.json");
    ASSERT_TRUE(p) << p.error();
    auto bad = parseStateCsv("x,y,z,vx,vy,vz,species\n1,2,3,0,0,0,1\n1,2,3,0,0,0,2\n", *p, "s.csv");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error(),
              "s.csv:3: species '2' is not allowed; must be a species' index, 0 to 1 (the 2 "
              "species of the configuration)");
    auto none = parseStateCsv("x,y,z,vx,vy,vz,species\n1,2,3,0,0,0,1\n", SimParams{}, "s.csv");
    ASSERT_FALSE(none);
    EXPECT_THAT(none.error(), HasSubstr("the configuration has no species"));
    auto text = parseStateCsv("x,y,z,vx,vy,vz,species\n1,2,3,0,0,0,x\n", *p, "s.csv");
    ASSERT_FALSE(text);
    EXPECT_THAT(text.error(), HasSubstr("s.csv:2: species 'x' is not allowed"));
    auto shortRow = parseStateCsv("x,y,z,vx,vy,vz,species\n1,2,3,0,0,0\n", *p, "s.csv");
    ASSERT_FALSE(shortRow);
    EXPECT_THAT(shortRow.error(), HasSubstr("only 6 values; a row has 7"));
}

TEST(SpeciesState, SpeciesAndKindColumnsTogether) {
    auto p = parseConfig(kTwoSpecies, "two.json");
    ASSERT_TRUE(p) << p.error();
    p->leaders = 2;
    const School school = makeInitialSchool(*p);
    const std::string csv = stateToCsv(school, *p);
    EXPECT_TRUE(csv.starts_with("x,y,z,vx,vy,vz,species,kind\n"));
    auto back = parseStateCsv(csv, *p, "state.csv");
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ((*back)[25].species, 1u);
}

}  // namespace
}  // namespace fishschool
