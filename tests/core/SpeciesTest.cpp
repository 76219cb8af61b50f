// docs/model.md "Species" on small hand-built scenes, through every backend this build has:
// each fish steps with its species' values, whom it schools with, separation scaled by kinetic
// energy, the sidestep and informed fish. Expected values are the formulas written out here.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "core/Scenario.h"
#include "core/StepRule.h"

namespace fishschool {
namespace {

using test::expectVec;

/// A species named `name` of `count` fish that sets the number keys `numbers`.
Species species(const std::string& name, std::int64_t count,
                const std::vector<std::pair<std::string, float>>& numbers = {}) {
    Species s{name, count, {0.5f, 0.5f, 0.5f}, {}};
    for (const auto& [key, value] : numbers) s.settings.push_back({key, value});
    return s;
}

/// `fish` of species `s`.
Fish ofSpecies(Fish fish, std::uint32_t s) {
    fish.species = s;
    return fish;
}

class SpeciesRules : public test::PerBackend {};

TEST_P(SpeciesRules, EachFishStepsWithItsSpeciesRadiiWeightsAndLimits) {
    SimParams p = quiet();
    p.kCohesion = 10.0f;
    p.rCohesion = 2.0f;
    p.maxAcceleration = 1.0f;
    // "far" sees 3 m and steers harder, up to 3 m/s^2; "near" keeps the config's 2 m and 1 m/s^2.
    p.species = {species("near", 2),
                 species("far", 2, {{"rCohesion", 4.0f}, {"maxAcceleration", 3.0f}})};
    p.fishCount = 4;
    const School school{ofSpecies({{0, 0, 0}, {}, {}}, 0), ofSpecies({{3, 0, 0}, {}, {}}, 1),
                        ofSpecies({{0, 0, 10}, {}, {}}, 1), ofSpecies({{3, 0, 10}, {}, {}}, 0)};
    ASSERT_TRUE(validate(p)) << validate(p).error();
    const School next = step(p, school);
    expectVec(next[0].acceleration, {0, 0, 0});   // its neighbour at 3 m is beyond its 2 m
    expectVec(next[1].acceleration, {-3, 0, 0});  // clamped to its own 3 m/s^2
    expectVec(next[2].acceleration, {3, 0, 0});   // sees fish 3, a fish of the other species
    expectVec(next[3].acceleration, {0, 0, 0});
    EXPECT_EQ(next[1].species, 1u);
    EXPECT_EQ(next[3].species, 0u);
}

TEST_P(SpeciesRules, AFishThatSchoolsWithItsOwnSpeciesSeparatesFromEveryFish) {
    SimParams p = quiet();
    p.kCohesion = 1.0f;
    p.rCohesion = 5.0f;
    p.kAlignment = 1.0f;
    p.rAlignment = 5.0f;
    p.kSeparation = 1.0f;
    p.rSeparation = 1.0f;
    p.species = {species("a", 3), species("b", 1)};
    p.species[0].settings.push_back({"schoolsWith", 0.0f, {}, 1});  // "own"
    p.fishCount = 4;
    const School school{ofSpecies({{0, 0, 0}, {}, {}}, 0), ofSpecies({{0, 3, 0}, {0, 2, 0}, {}}, 0),
                        ofSpecies({{0, 0, 20}, {}, {}}, 0),  // out of range of fish 0
                        ofSpecies({{0.5f, 0, 0}, {5, 0, 0}, {}}, 1)};
    const School next = step(p, school);
    // Cohesion and alignment: fish 1 only (fish 3 is of species b). Separation: fish 3.
    const glm::vec3 expected = glm::vec3(0, 1, 0) + glm::vec3(0, 1, 0) + glm::vec3(-1, 0, 0);
    expectVec(next[0].acceleration, expected);
    // Species b schools with all: fish 3 counts fish 0 (and fish 1) in its sums.
    const glm::vec3 centre = (school[0].position + school[1].position) / 2.0f;
    const glm::vec3 cohesion = glm::normalize(centre - school[3].position);
    const glm::vec3 alignment = glm::vec3(0, 1, 0);  // the mean of (0,0,0) and (0,2,0)
    const glm::vec3 separation = glm::vec3(1, 0, 0);
    expectVec(next[3].acceleration, cohesion + alignment + separation);
}

TEST_P(SpeciesRules, SeparationScaledByKineticEnergyGivesWayToTheHeavierAndFaster) {
    SimParams p = quiet();
    p.kSeparation = 2.0f;
    p.rSeparation = 2.0f;
    p.separationScaling = SeparationScaling::KineticEnergy;
    p.species = {species("light", 3), species("heavy", 1, {{"mass", 4.0f}})};
    p.fishCount = 4;
    // Fish 0 (mass 1, speed 1): a heavy neighbour at speed 1 (ratio 4) on +x, a light one at
    // speed 1 (ratio 1) on +z, a light one at speed 0 (ratio 0) on +y.
    const School school{
        ofSpecies({{0, 0, 0}, {0, 0, -1}, {}}, 0), ofSpecies({{1, 0, 0}, {0, -1, 0}, {}}, 1),
        ofSpecies({{0, 0, 1}, {1, 0, 0}, {}}, 0), ofSpecies({{0, 1, 0}, {0, 0, 0}, {}}, 0)};
    const School next = step(p, school);
    const glm::vec3 sum = 4.0f * glm::vec3(1, 0, 0) + glm::vec3(0, 0, 1);
    expectVec(next[0].acceleration, 2.0f * glm::normalize(-sum / 3.0f));
    // Fish 3 stands still (KE 0): every moving neighbour weighs 100, the clamp; fish 0 at
    // (0, -1, 0) and fish 1 at (1, -1, 0) are within 2 m, fish 2 at (0, -1, 1) too.
    const glm::vec3 offsets =
        100.0f * (glm::vec3(0, -1, 0) + glm::vec3(1, -1, 0) + glm::vec3(0, -1, 1));
    expectVec(next[3].acceleration, 2.0f * glm::normalize(-offsets / 3.0f));
}

TEST_P(SpeciesRules, TwoStillFishSeparateAsWithoutScaling) {
    SimParams p = quiet();
    p.kSeparation = 1.0f;
    p.rSeparation = 2.0f;
    p.separationScaling = SeparationScaling::KineticEnergy;
    const School school{{{0, 0, 0}, {}, {}}, {{1, 0, 0}, {}, {}}};
    const School next = step(p, school);
    expectVec(next[0].acceleration, {-1, 0, 0});  // KE 0 on both sides: ratio 1
}

TEST_P(SpeciesRules, SidestepPushesAcrossTheHeadingAwayFromANeighbourThatClosesIn) {
    SimParams p = quiet();
    p.rSeparation = 2.0f;
    p.kSidestep = 3.0f;
    // Fish 0 swims along +x; fish 1, ahead and to +z, comes toward it: fish 0 steps to -z.
    School school{{{0, 0, 0}, {1, 0, 0}, {}}, {{1, 0, 0.5f}, {-1, 0, 0}, {}}};
    School next = step(p, school);
    expectVec(next[0].acceleration, {0, 0, -3});
    // Moving away, it is no threat: no sidestep.
    school[1].velocity = {2, 0, 0};
    next = step(p, school);
    expectVec(next[0].acceleration, {0, 0, 0});
    // Beyond rSeparation: none either.
    school[1] = {{3, 0, 0.5f}, {-1, 0, 0}, {}};
    next = step(p, school);
    expectVec(next[0].acceleration, {0, 0, 0});
}

TEST_P(SpeciesRules, AnInformedFishAddsItsPreferredDirection) {
    SimParams p = quiet();
    p.kPreferred = 2.0f;
    p.preferredDirection = {0, 0, 3};  // only its direction counts
    p.species = {species("informed", 1), species("naive", 1, {{"kPreferred", 0.0f}})};
    p.fishCount = 2;
    const School school{ofSpecies({{0, 0, 0}, {1, 0, 0}, {}}, 0),
                        ofSpecies({{0, 0, 30}, {1, 0, 0}, {}}, 1)};
    const School next = step(p, school);
    expectVec(next[0].acceleration, {0, 0, 2});
    expectVec(next[1].acceleration, {0, 0, 0});
}

TEST_P(SpeciesRules, AnInformedCouzinFishBalancesItsDirectionWithThePreferredOne) {
    SimParams p = quiet();
    p.steering = Steering::Couzin;
    p.maxVelocity = 2.0f;
    p.maxTurnRate = 1e6f;  // no turn limit within a step
    p.kPreferred = 1.0f;
    p.preferredDirection = {0, 0, 1};
    // Alone, its zones give its heading d = +x: it turns to (d + g) / |d + g|.
    const School next = step(p, {{{0, 0, 0}, {2, 0, 0}, {}}});
    expectVec(next[0].velocity, 2.0f * glm::normalize(glm::vec3(1, 0, 1)));
    // Weighted: omega = 3.
    p.kPreferred = 3.0f;
    const School heavier = step(p, {{{0, 0, 0}, {2, 0, 0}, {}}});
    expectVec(heavier[0].velocity, 2.0f * glm::normalize(glm::vec3(1, 0, 3)));
}

/// One species that sets nothing is the config's one kind: the same school, to the same bits on
/// the CPU (the set compiled for species adds the behaviours that are off as exact zeros).
TEST_P(SpeciesRules, OneSpeciesThatSetsNothingStepsAsNoSpecies) {
    SimParams p;
    p.neighborSearch = GetParam().search;
    p.fishCount = 300;
    const School start = makeInitialSchool(p);
    SimParams withSpecies = p;
    withSpecies.species = {species("all", 300)};
    auto plain = test::makeBackend(GetParam().backend, p);
    auto kinds = test::makeBackend(GetParam().backend, withSpecies);
    ASSERT_TRUE(plain && kinds);
    ASSERT_TRUE(plain->upload(start));
    ASSERT_TRUE(kinds->upload(start));
    for (int s = 0; s < 20; ++s) {
        plain->step();
        kinds->step();
    }
    const School a = plain->download();
    const School b = kinds->download();
    if (GetParam().backend == BackendKind::Gpu) {
        EXPECT_LT(test::maxRelativeError(b, a, p), 1e-4);
    } else {
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            ASSERT_EQ(a[i].position, b[i].position) << "fish " << i;
            ASSERT_EQ(a[i].velocity, b[i].velocity) << "fish " << i;
        }
    }
}

/// A backend given a fish of a species past its table (no Simulation checks a backend's upload)
/// steps it as the last species, whatever the index: never past the table's end.
TEST_P(SpeciesRules, ASpeciesPastTheTableStepsAsTheLast) {
    SimParams p = quiet();
    p.kCohesion = 10.0f;
    p.rCohesion = 4.0f;
    p.species = {species("first", 1), species("last", 1, {{"maxAcceleration", 3.0f}})};
    p.fishCount = 2;
    for (const std::uint32_t beyond : {2u, 1000u, 0x80000001u, 0xffffffffu}) {
        const School next =
            step(p, {ofSpecies({{0, 0, 0}, {}, {}}, beyond), ofSpecies({{3, 0, 0}, {}, {}}, 0)});
        expectVec(next[0].acceleration, {3, 0, 0});  // the last species' limit
        EXPECT_EQ(next[0].species, beyond);          // kept as given
    }
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, SpeciesRules, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

TEST(Species, ANewSchoolHoldsEachSpeciesInTurnAtItsOwnSpeed) {
    SimParams p;
    p.fishCount = 30;
    p.species = {species("slow", 10, {{"maxVelocity", 1.0f}}), species("fast", 20)};
    ASSERT_TRUE(validate(p)) << validate(p).error();
    const School school = makeInitialSchool(p);
    for (std::size_t i = 0; i < school.size(); ++i) {
        EXPECT_EQ(school[i].species, i < 10 ? 0u : 1u);
        EXPECT_NEAR(glm::length(school[i].velocity), i < 10 ? 0.5f : 0.5f * p.maxVelocity, 1e-5f);
    }
}

TEST(Species, ChangingACountKeepsTheOtherFishAndRemovingASpeciesDropsItsFish) {
    SimParams before;
    before.fishCount = 30;
    before.species = {species("a", 10), species("b", 20)};
    School school = makeInitialSchool(before);
    const Fish firstOfB = school[10];
    // b shrinks to 5, a grows to 15.
    SimParams after = before;
    after.species[0].count = 15;
    after.species[1].count = 5;
    after.fishCount = 20;
    renameSpecies(school, before, after);
    resizeSchool(school, 20, after);
    ASSERT_EQ(school.size(), 20u);
    EXPECT_EQ(school[10], firstOfB);  // a's 10 fish, then b's first 5, then a's new 5
    for (std::size_t i = 15; i < 20; ++i) EXPECT_EQ(school[i].species, 0u);
    // a is removed: b's fish become species 0.
    SimParams onlyB = after;
    onlyB.species = {after.species[1]};
    onlyB.fishCount = 5;
    renameSpecies(school, after, onlyB);
    resizeSchool(school, 5, onlyB);
    ASSERT_EQ(school.size(), 5u);
    EXPECT_EQ(school[0].position, firstOfB.position);
    for (const Fish& fish : school) EXPECT_EQ(fish.species, 0u);
}

/// The config's rules, for each species' own values: the error names the species and the key.
TEST(Species, BadSpeciesAreRefusedNamingTheSpeciesAndTheKey) {
    SimParams p;
    p.fishCount = 10;
    p.species = {species("a", 4), species("b", 5)};
    EXPECT_EQ(validate(p).error(),
              "species: the counts add up to 9, which is not allowed; they must add up to "
              "fishCount (10)");
    p.species[1].count = 6;
    ASSERT_TRUE(validate(p));
    p.species[1].settings = {{"minVelocity", 5.0f}};
    EXPECT_EQ(validate(p).error(),
              "species[1] ('b'): minVelocity: 5 is not allowed; must be finite, >= 0 and <= "
              "maxVelocity (3)");
    p.species[1].settings = {{"rCohesion", -1.0f}};
    EXPECT_EQ(validate(p).error(),
              "species[1] ('b'): rCohesion: -1 is not allowed; must be finite and >= 0");
    p.species[1].settings = {{"seed", 1.0f}};
    EXPECT_NE(validate(p).error().find("key 'seed' is not a key a species sets"),
              std::string::npos);
    p.species[1].settings = {{"mass", 2.0f}, {"mass", 3.0f}};
    EXPECT_NE(validate(p).error().find("key 'mass' is given twice"), std::string::npos);
    p.species[1].settings.clear();
    p.species[1].name = "a";
    EXPECT_NE(validate(p).error().find("the name is given to species[0] too"), std::string::npos);
    p.species.assign(17, species("x", 0));
    for (std::size_t s = 0; s < p.species.size(); ++s) p.species[s].name = "s" + std::to_string(s);
    p.species[0].count = 10;
    EXPECT_EQ(validate(p).error(),
              "species: 17 species are not allowed; at most 16 (the GPU's table of species "
              "holds 16)");
}

/// With species the step compiles one set a combination of the field's searches.
TEST(Species, EverySpeciesSchoolAsksForACompiledSet) {
    for (int bits = 0; bits < 16; ++bits) {
        SimParams p;
        p.species = {species("only", p.fishCount)};
        p.steering = (bits & 1) ? Steering::Couzin : Steering::Article;
        p.kTarget = (bits & 2) ? 1.0f : 0.0f;
        p.targetPath = (bits & 4) ? TargetPath::FlowField : TargetPath::Straight;
        p.separationFalloff =
            (bits & 8) ? SeparationFalloff::InverseSquare : SeparationFalloff::None;
        EXPECT_TRUE(usedFeatureSet(stepFeatures(p))) << "parameters " << bits;
        EXPECT_NE(stepFeatures(p) & glsl::kFeatureSpecies, 0u);
    }
    EXPECT_EQ(stepFeatures(SimParams{}) & glsl::kFeatureSpecies, 0u);
}

}  // namespace
}  // namespace fishschool
