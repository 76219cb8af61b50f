// The phase sweep of `fishschool-cli phase`: which parameters a value sets, the values, the rows.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/CpuBackends.h"
#include "core/ParamTable.h"
#include "io/ConfigIO.h"
#include "runs/PhaseSweep.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

SimParams zones() {
    SimParams p;
    p.rSeparation = 1.0f;
    p.rAlignment = 3.0f;
    p.rCohesion = 17.0f;
    return p;
}

TEST(PhaseSweep, OrientationWidthHoldsTheRepulsionRadiusAndTheAttractionWidth) {
    const auto p = withVaried(zones(), "--vary", "orientation-width", 5.0);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p->rSeparation, 1.0f);
    EXPECT_EQ(p->rAlignment, 6.0f);
    EXPECT_EQ(p->rCohesion, 20.0f);
}

/// Three species of 1, 2 and 0 fish.
SimParams threeSpecies() {
    SimParams p;
    p.fishCount = 3;
    for (const auto& [name, count] : {std::pair{"a", 1}, {"b", 2}, {"c", 0}})
        p.species.push_back({name, count, {0.5f, 0.5f, 0.5f}, {}});
    return p;
}

std::vector<std::int64_t> countsOf(const SimParams& p) {
    std::vector<std::int64_t> counts;
    for (const Species& s : p.species) counts.push_back(s.count);
    return counts;
}

TEST(PhaseSweep, AFishCountDealsTheFishToTheSpeciesInProportion) {
    // 10 fish as 1 : 2 : 0 is 3.33, 6.67 and 0: the larger remainder gets the fish left over.
    auto p = withVaried(threeSpecies(), "--vary", "fishCount", 10.0);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(countsOf(*p), (std::vector<std::int64_t>{3, 7, 0}));
    p = withVaried(threeSpecies(), "--vary", "fishCount", 0.0);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(countsOf(*p), (std::vector<std::int64_t>{0, 0, 0}));
    EXPECT_FALSE(withVaried(threeSpecies(), "--vary", "fishCount", 2.5));
}

TEST(PhaseSweep, AShareDealsTheOtherFishToTheOtherSpeciesInProportion) {
    SimParams base = threeSpecies();
    base.fishCount = 30;
    base.species[0].count = 10;
    base.species[1].count = 15;
    base.species[2].count = 5;
    auto p = withVaried(base, "--vary", "species[0].share", 0.2);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(countsOf(*p), (std::vector<std::int64_t>{6, 18, 6}));  // 24 as 15 : 5
    p = withVaried(base, "--vary", "species[2].share", 1.0);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(countsOf(*p), (std::vector<std::int64_t>{0, 0, 30}));
    // The others all empty: the rest is dealt evenly.
    p = withVaried(*p, "--vary", "species[2].share", 0.0);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(countsOf(*p), (std::vector<std::int64_t>{15, 15, 0}));
    SimParams one;
    one.fishCount = 4;
    one.species = {{"a", 4, {0.5f, 0.5f, 0.5f}, {}}};
    const auto oneSpecies = withVaried(one, "--vary", "species[0].share", 0.5);
    ASSERT_FALSE(oneSpecies);
    EXPECT_THAT(oneSpecies.error(), HasSubstr("the other 2 fish need another species"));
    EXPECT_TRUE(canVary("species[15].share"));
    EXPECT_FALSE(canVary("species[16].share"));
    EXPECT_FALSE(canVary("species[-1].share"));
    EXPECT_FALSE(canVary("species[0].count"));
}

TEST(PhaseSweep, AttractionWidthMovesTheCohesionRadiusAlone) {
    const auto p = withVaried(zones(), "--vary", "attraction-width", 4.0);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p->rAlignment, 3.0f);
    EXPECT_EQ(p->rCohesion, 7.0f);
    const auto negative = withVaried(zones(), "--vary", "attraction-width", -5.0);
    ASSERT_FALSE(negative);
    EXPECT_THAT(negative.error(), HasSubstr("rCohesion"));
}

// Vicsek et al. 1995's density: N fish in a square of side sqrt(N / density).
TEST(PhaseSweep, DensitySetsTheSquareOfTheFishCount) {
    SimParams base;
    base.fishCount = 400;
    base.dimensions = 2;
    base.rocks.clear();
    const auto p = withVaried(base, "axes", "density", 4.0);
    ASSERT_TRUE(p) << p.error();
    EXPECT_FLOAT_EQ(p->bounds.x, 5.0f);
    EXPECT_FLOAT_EQ(p->bounds.z, 5.0f);
    EXPECT_EQ(p->bounds.y, base.bounds.y);
    EXPECT_TRUE(canVary("density"));
    const auto none = withVaried(base, "axes", "density", 0.0);
    ASSERT_FALSE(none);
    EXPECT_THAT(none.error(), HasSubstr("a density is > 0"));
    // So dense that a step crosses the tank: the tank's rule says so.
    const auto dense = withVaried(base, "axes", "density", 1e6);
    ASSERT_FALSE(dense);
    EXPECT_THAT(dense.error(), HasSubstr("maxVelocity * dt"));
    EXPECT_EQ(sharedField("density", "fishCount"), "");
}

TEST(PhaseSweep, AnyNumericConfigKeyIsSetAndChecked) {
    auto p = withVaried(zones(), "--vary", "noise", 0.25);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p->noise, 0.25f);
    p = withVaried(zones(), "--vary", "fishCount", 40.0);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p->fishCount, 40);

    auto bad = withVaried(zones(), "--vary", "fishCount", 40.5);
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr("whole numbers"));
    bad = withVaried(zones(), "--vary", "steering", 1.0);
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr("'steering' is not allowed"));
    bad = withVaried(zones(), "--vary", "rCohesionn", 1.0);
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr("a numeric config key"));
    bad = withVaried(zones(), "--vary", "maxVelocity", -1.0);
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr("maxVelocity"));
}

// withVaried sets the field directly, as a config file would: the same parameters, or the same
// message, as parseConfig of the base's JSON with the key changed, for every key that varies and
// values in range, out of range, not whole and past a float.
TEST(PhaseSweep, AVariedKeyReadsAsTheConfigFileWithThatValueWould) {
    SimParams base;
    base.leaders = 2;
    int keys = 0;
    for (const ParamInfo& info : paramTable()) {
        if (!canVary(info.key)) continue;
        ++keys;
        for (const double value : {0.0, 0.5, 3.0, -2.0, 2.5e6, 1e300, 4e15}) {
            auto json = nlohmann::json::parse(configToJson(base));
            auto& field = json[info.key];
            if (field.is_number_integer()) {
                if (value != std::floor(value) || std::abs(value) > kMaxVariedWholeNumber) continue;
                field = static_cast<std::int64_t>(value);
            } else {
                field = value;
            }
            const std::string source = std::string("axes ") + info.key;
            const auto expected = parseConfig(json.dump(), source);
            const auto varied = withVaried(base, "axes", info.key, value);
            ASSERT_EQ(varied.has_value(), expected.has_value())
                << info.key << " = " << value << ": "
                << (varied ? expected.error().message() : varied.error().message());
            if (varied)
                EXPECT_TRUE(*varied == *expected) << info.key << " = " << value;
            else
                EXPECT_EQ(varied.error(), expected.error()) << info.key << " = " << value;
        }
    }
    EXPECT_GT(keys, 20);
}

TEST(PhaseSweep, ValuesRunEvenlyFromFirstToLast) {
    EXPECT_EQ(sweepValues(0.0, 12.0, 13),
              (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
    EXPECT_EQ(sweepValues(2.0, 0.0, 3), (std::vector<double>{2, 1, 0}));
    EXPECT_EQ(sweepValues(4.0, 9.0, 1), (std::vector<double>{4}));
}

TEST(PhaseSweep, NumbersAreStrict) {
    EXPECT_EQ(*parseFiniteNumber("--from", "-0.5"), -0.5);
    EXPECT_EQ(*parseFiniteNumber("--from", "1e-3"), 1e-3);
    for (const char* bad : {"", " 1", "1 ", "+1", "0x10", "nan", "inf", "1e999", "2,5", "abc"}) {
        const auto value = parseFiniteNumber("--from", bad);
        ASSERT_FALSE(value) << bad;
        EXPECT_THAT(value.error(), HasSubstr("--from: '" + std::string(bad) + "' is not allowed"));
    }
}

TEST(PhaseSweep, HysteresisGoesUpThenDownWithOneSchool) {
    SimParams base = zones();
    base.fishCount = 30;
    base.steering = Steering::Couzin;
    const std::vector<double> values = sweepValues(0.0, 2.0, 3);
    auto backend = makeCpuBackend();
    auto onThisBackend = [&](std::size_t, const SimParams&) -> Result<Backend*> {
        return backend.get();
    };
    const auto points =
        runPhaseSweep(phaseEnsemble(base, "orientation-width", values, 4, true), 4, onThisBackend);
    ASSERT_TRUE(points) << points.error();
    ASSERT_EQ(points->size(), 5u);
    const double expected[] = {0, 1, 2, 1, 0};
    for (std::size_t k = 0; k < points->size(); ++k) {
        EXPECT_EQ((*points)[k].value, expected[k]);
        EXPECT_EQ((*points)[k].direction, k < 3 ? "up" : "down");
        EXPECT_GE((*points)[k].polarization, 0.0);
        EXPECT_LE((*points)[k].polarization, 1.0 + 1e-9);
    }
    EXPECT_EQ(backend->stepCount(), 20u);  // one school all the way, on one worker

    const auto fresh =
        runPhaseSweep(phaseEnsemble(base, "orientation-width", values, 4, false), 1, onThisBackend);
    ASSERT_TRUE(fresh) << fresh.error();
    ASSERT_EQ(fresh->size(), 3u);
    EXPECT_EQ((*fresh)[2].direction, "fresh");
    EXPECT_EQ(backend->stepCount(), 4u);  // a new school, counted from 0, at each value
    // The two runs at value 0 start from the same school: the same measures.
    EXPECT_EQ((*fresh)[0].polarization, (*points)[0].polarization);
    EXPECT_EQ((*fresh)[0].milling, (*points)[0].milling);
    EXPECT_THAT(phaseCsv("orientation-width", *fresh),
                ::testing::StartsWith("value,direction,polarization,milling\n0,"
                                      "fresh,"));
}

// Issue 33: every run of `--vary seed` took the config's seed, whatever its row said.
TEST(PhaseSweep, ASeedAxisIsEachRunsSeed) {
    SimParams base = zones();
    base.fishCount = 30;
    base.noise = 0.2f;  // the seed drives the noise too
    base.seed = 99;
    const std::vector<double> seeds = {3, 4, 20'000'001};
    const EnsembleSpec sweep = phaseEnsemble(base, "seed", seeds, 4, false);
    for (std::int64_t i = 0; i < 3; ++i) {
        const RunPlan plan = planRun(sweep, i);
        EXPECT_EQ(plan.seed, std::uint64_t(seeds[std::size_t(i)]));
        const auto params = runParams(sweep, plan);
        ASSERT_TRUE(params) << params.error();
        EXPECT_EQ(params->seed, std::uint64_t(seeds[std::size_t(i)]));
    }
    auto backend = makeCpuBackend();
    auto onThisBackend = [&](std::size_t, const SimParams&) -> Result<Backend*> {
        return backend.get();
    };
    const auto points = runPhaseSweep(sweep, 1, onThisBackend);
    ASSERT_TRUE(points) << points.error();
    // Each row is the run of a config with that seed.
    for (std::size_t i = 0; i < seeds.size(); ++i) {
        SimParams withSeed = base;
        withSeed.seed = std::uint64_t(seeds[i]);
        const auto alone =
            runPhaseSweep(phaseEnsemble(withSeed, "noise", {0.2}, 4, false), 1, onThisBackend);
        ASSERT_TRUE(alone) << alone.error();
        EXPECT_EQ((*points)[i].polarization, alone->front().polarization) << seeds[i];
        EXPECT_EQ((*points)[i].milling, alone->front().milling) << seeds[i];
    }
    EXPECT_NE((*points)[0].polarization, (*points)[1].polarization);
    // In full digits: "2e+07" would be another seed.
    EXPECT_THAT(phaseCsv("seed", *points), HasSubstr("\n20000001,fresh,"));
    EXPECT_THAT(phaseCsv("noise", *points), HasSubstr("\n2e+07,fresh,"));
}

TEST(PhaseSweep, WholeNumbersVaryUpTo2To53Minus1AndTheRefusalSaysWhy) {
    const auto largest = withVaried(zones(), "--vary", "seed", kMaxVariedWholeNumber);
    ASSERT_TRUE(largest) << largest.error();
    EXPECT_EQ(largest->seed, 9007199254740991ull);
    for (const double value : {9007199254740992.0, 1e19, 1e300, -1e300}) {
        const auto over = withVaried(zones(), "--vary", "seed", value);
        ASSERT_FALSE(over) << value;
        EXPECT_THAT(over.error(), HasSubstr("cannot hold every whole number above 2^53"));
        EXPECT_THAT(over.error(), HasSubstr("up to 9007199254740991 (2^53 - 1)"));
        EXPECT_THAT(over.error(), Not(HasSubstr("takes whole numbers")));
    }
    EXPECT_THAT(withVaried(zones(), "--vary", "seed", 9007199254740992.0).error(),
                HasSubstr("seed = 9007199254740992 is not allowed"));
    EXPECT_EQ(formatVaried("seed", 9007199254740991.0), "9007199254740991");
    EXPECT_EQ(formatVaried("fishCount", 16'000'000), "16000000");
    EXPECT_EQ(formatVaried("noise", 0.05), "0.05");
}

// Two axes share a field exactly when applying them in one order or the other leaves one of them
// at another value than its own: what sharedField says is what withVaried does.
TEST(PhaseSweep, TwoKeysShareAFieldExactlyWhenOneChangesTheValueTheOtherSets) {
    const std::pair<const char*, double> keys[] = {
        {"rSeparation", 0.5},       {"rAlignment", 4.0},       {"rCohesion", 12.0},
        {"orientation-width", 2.5}, {"attraction-width", 6.0}, {"noise", 0.25}};
    auto readBack = [](std::string_view key, const SimParams& p) -> double {
        if (key == "rSeparation") return p.rSeparation;
        if (key == "rAlignment") return p.rAlignment;
        if (key == "rCohesion") return p.rCohesion;
        if (key == "orientation-width") return p.rAlignment - p.rSeparation;
        if (key == "attraction-width") return p.rCohesion - p.rAlignment;
        return p.noise;
    };
    int shared = 0;
    for (const auto& [a, va] : keys) {
        for (const auto& [b, vb] : keys) {
            if (std::string_view(a) == b) continue;
            const auto first = withVaried(zones(), "axes", a, va);
            ASSERT_TRUE(first) << first.error();
            const auto both = withVaried(*first, "axes", b, vb);
            ASSERT_TRUE(both) << both.error();
            const auto reversedFirst = withVaried(zones(), "axes", b, vb);
            ASSERT_TRUE(reversedFirst) << reversedFirst.error();
            const auto reversed = withVaried(*reversedFirst, "axes", a, va);
            ASSERT_TRUE(reversed) << reversed.error();
            const bool whatRan = readBack(a, *both) == va && readBack(b, *both) == vb &&
                                 readBack(a, *reversed) == va && readBack(b, *reversed) == vb;
            EXPECT_EQ(sharedField(a, b).empty(), whatRan) << a << " then " << b;
            EXPECT_EQ(sharedField(a, b).empty(), sharedField(b, a).empty()) << a << ", " << b;
            shared += !whatRan;
        }
    }
    // Both orders of: rSeparation and rAlignment with orientation-width, rAlignment and
    // rCohesion with attraction-width, rCohesion with orientation-width.
    EXPECT_EQ(shared, 2 * 5);
    EXPECT_EQ(sharedField("rCohesion", "attraction-width"), "rCohesion");
    EXPECT_EQ(sharedField("attraction-width", "rCohesion"), "rCohesion");
    EXPECT_EQ(sharedField("orientation-width", "rSeparation"),
              "rAlignment - rSeparation (orientation-width)");
    EXPECT_EQ(sharedField("orientation-width", "rCohesion"), "rCohesion");
    EXPECT_EQ(sharedField("fishCount", "leaders"), "");
}

}  // namespace
}  // namespace fishschool
