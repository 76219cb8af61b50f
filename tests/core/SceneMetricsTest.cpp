// Scenes (initial school, resizing, moving fish into a changed scene) and school measures.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include <glm/geometric.hpp>

#include "app_model/Presets.h"
#include "core/Scenario.h"
#include "fishschool/Metrics.h"

namespace fishschool {
namespace {

TEST(Scenario, InitialSchoolIsDeterministicAndInsideTheScene) {
    SimParams p;
    p.fishCount = 3000;
    p.seed = 42;
    const School a = makeInitialSchool(p), b = makeInitialSchool(p);
    ASSERT_EQ(a.size(), 3000u);
    EXPECT_EQ(a, b);
    for (const Fish& f : a) {
        EXPECT_TRUE(isInScene(f.position, p));
        EXPECT_NEAR(glm::length(f.velocity), 0.5f * p.maxVelocity, 1e-4f);
    }
    p.seed = 43;
    EXPECT_NE(makeInitialSchool(p), a);
}

TEST(Scenario, ResizeKeepsTheFishItHas) {
    SimParams p;
    p.fishCount = 100;
    School school = makeInitialSchool(p);
    school[0].position = {1.0f, 2.0f, 3.0f};
    const School before = school;
    resizeSchool(school, 250, p);
    ASSERT_EQ(school.size(), 250u);
    EXPECT_TRUE(std::equal(before.begin(), before.end(), school.begin()));
    EXPECT_EQ(school[200], makeInitialFish(p, 200));
    resizeSchool(school, 10, p);
    ASSERT_EQ(school.size(), 10u);
    EXPECT_EQ(school[0].position, glm::vec3(1.0f, 2.0f, 3.0f));
}

TEST(Scenario, MoveIntoSceneBringsFishInsideAndKeepsVelocity) {
    SimParams p;
    School school{{{100.0f, 0.0f, 0.0f}, {1, 2, 3}, {}},
                  {p.rocks[0].center + glm::vec3(0.5f, 0.0f, 0.0f), {4, 5, 6}, {}},
                  {p.rocks[1].center, {0, 0, 1}, {}},
                  {{0.0f, 0.0f, 0.0f}, {1, 0, 0}, {}}};
    const School before = school;
    EXPECT_EQ(moveIntoScene(school, p), 3u);
    for (std::size_t i = 0; i < school.size(); ++i) {
        EXPECT_TRUE(isInScene(school[i].position, p)) << i;
        EXPECT_EQ(school[i].velocity, before[i].velocity);
    }
    EXPECT_FLOAT_EQ(school[0].position.x, p.bounds.x);  // nearest point: on the wall
    EXPECT_NEAR(glm::distance(school[1].position, p.rocks[0].center), p.rocks[0].radius, 1e-3f);
    EXPECT_EQ(school[3].position, glm::vec3(0.0f));
}

TEST(Scenario, FixedDensityKeepsFishPerVolume) {
    const SimParams base;
    const double baseDensity =
        base.fishCount / (8.0 * base.bounds.x * base.bounds.y * base.bounds.z);
    for (std::int64_t n : {500, 20'000, 1'000'000}) {
        const SimParams p = fixedDensityParams(n);
        ASSERT_TRUE(validate(p)) << validate(p).error();
        const double density = n / (8.0 * p.bounds.x * p.bounds.y * p.bounds.z);
        EXPECT_NEAR(density / baseDensity, 1.0, 1e-3) << n;
    }
}

TEST(Scenario, EveryPresetIsValid) {
    ASSERT_GE(presets().size(), 3u);
    for (const Preset& preset : presets()) EXPECT_TRUE(validate(preset.params)) << preset.name;
}

TEST(Metrics, PolarizationIsOneForAParallelSchoolAndSmallForOpposedFish) {
    SimParams p;
    School school;
    for (int i = 0; i < 10; ++i) school.push_back({{float(i), 0, 0}, {0, 0, 2}, {}});
    EXPECT_NEAR(measureSchool(school, p).polarization, 1.0, 1e-9);
    for (int i = 0; i < 10; ++i) school.push_back({{float(i), 1, 0}, {0, 0, -3}, {}});
    EXPECT_NEAR(measureSchool(school, p).polarization, 0.0, 1e-9);
}

TEST(Metrics, MillingIsOneForFishCirclingTheCentre) {
    SimParams p;
    School school;
    for (int i = 0; i < 36; ++i) {
        const float a = static_cast<float>(i) * 0.17453292f;
        school.push_back(
            {{10 * std::cos(a), 0, 10 * std::sin(a)}, {-std::sin(a), 0, std::cos(a)}, {}});
    }
    const SchoolMetrics m = measureSchool(school, p);
    EXPECT_NEAR(m.milling, 1.0, 1e-5);
    EXPECT_LT(m.polarization, 0.05);
}

TEST(Metrics, NearestNeighbourDistanceAndNeighbourCountOnALattice) {
    SimParams p;
    p.rCohesion = 2.5f;  // 6 lattice neighbours at 2, none at 2.83
    School school;
    for (int x = 0; x < 8; ++x)
        for (int y = 0; y < 8; ++y)
            for (int z = 0; z < 8; ++z)
                school.push_back({{2.0f * x - 7, 2.0f * y - 7, 2.0f * z - 7}, {1, 0, 0}, {}});
    const SchoolMetrics m = measureSchool(school, p);
    EXPECT_NEAR(m.meanNearestNeighborDistance, 2.0, 1e-6);
    // Interior fish have 6, faces 5, edges 4, corners 3: 6 - 6 * 64 / 512 on average.
    EXPECT_NEAR(m.meanNeighbors, 6.0 - 6.0 * 64.0 / 512.0, 1e-9);
}

TEST(Metrics, NearestNeighbourFarAwayIsFound) {
    SimParams p;
    p.rCohesion = 1.0f;
    const School school{{{-30, 0, 0}, {1, 0, 0}, {}}, {{30, 0, 0}, {1, 0, 0}, {}}};
    EXPECT_NEAR(measureSchool(school, p).meanNearestNeighborDistance, 60.0, 1e-6);
    // Open water searches the two fish's box of cells; 10 km apart, its hashed cells.
    p.boundary = Boundary::Open;
    EXPECT_NEAR(measureSchool(school, p).meanNearestNeighborDistance, 60.0, 1e-6);
    const School apart{{{-5000, 0, 0}, {1, 0, 0}, {}}, {{5000, 0, 0}, {1, 0, 0}, {}}};
    EXPECT_NEAR(measureSchool(apart, p).meanNearestNeighborDistance, 10000.0, 1e-6);
}

/// `count` fish in a row along x from `start`, `spacing` apart, of species `s`.
School row(int count, glm::vec3 start, float spacing, std::uint32_t s = 0) {
    School school;
    for (int i = 0; i < count; ++i)
        school.push_back({start + glm::vec3(spacing * float(i), 0, 0), {1, 0, 0}, {}, s});
    return school;
}

TEST(Metrics, GroupsAreFishLinkedByChainsOfNeighbours) {
    SimParams p;
    p.rCohesion = 2.0f;
    // A row 1.5 apart is one group end to end (43.5 m long); a second row 10 m away is another.
    School school = row(30, {-30, 0, 0}, 1.5f);
    const School second = row(10, {-30, 0, 10}, 1.5f);
    school.insert(school.end(), second.begin(), second.end());
    SchoolMetrics m = measureSchool(school, p);
    EXPECT_EQ(m.groups, 2.0);
    EXPECT_DOUBLE_EQ(m.largestGroupShare, 30.0 / 40.0);
    EXPECT_TRUE(m.largestGroupShareBySpecies.empty()) << "no species";
    // Where a following camera looks: the first row's middle, or the whole school's.
    EXPECT_NEAR(glm::distance(m.largestGroupCentre, glm::dvec3(-30 + 1.5 * 14.5, 0, 0)), 0.0, 1e-9);
    EXPECT_NEAR(glm::distance(m.centre, glm::dvec3(-12, 0, 2.5)), 0.0, 1e-9);
    EXPECT_EQ(m.largestGroupVelocity, glm::dvec3(1, 0, 0));

    // groupDistance overrides rCohesion: closer than the spacing, every fish is a group; past
    // 10 m both rows are one.
    p.groupDistance = 1.4f;
    m = measureSchool(school, p);
    EXPECT_EQ(m.groups, 40.0);
    EXPECT_DOUBLE_EQ(m.largestGroupShare, 1.0 / 40.0);
    p.groupDistance = 10.5f;
    m = measureSchool(school, p);
    EXPECT_EQ(m.groups, 1.0);
    EXPECT_EQ(m.largestGroupShare, 1.0);
    SimParams byCohesion = p;
    byCohesion.groupDistance = 0.0f;
    EXPECT_EQ(m.meanNeighbors, measureSchool(school, byCohesion).meanNeighbors)
        << "the neighbours count within rCohesion, whatever groupDistance";

    const School one = row(1, {}, 1.0f);
    m = measureSchool(one, SimParams{});
    EXPECT_EQ(m.groups, 1.0);
    EXPECT_EQ(m.largestGroupShare, 1.0);
    EXPECT_EQ(measureSchool(School{}, SimParams{}).groups, 0.0);
}

TEST(Metrics, GroupsLinkAcrossAPeriodicFaceAndAnywhereInOpenWater) {
    SimParams p;
    p.rCohesion = 2.0f;
    // Two fish 1 m apart across the face x = +-40: one group in a periodic box, two between walls.
    const School across{{{39.5f, 0, 0}, {1, 0, 0}, {}}, {{-39.5f, 0, 0}, {1, 0, 0}, {}}};
    EXPECT_EQ(measureSchool(across, p).groups, 2.0);
    p.boundary = Boundary::Periodic;
    EXPECT_EQ(measureSchool(across, p).groups, 1.0);
    // Open water: two rows 10 km apart, each one group, far outside the tank.
    p.boundary = Boundary::Open;
    School apart = row(20, {10000, 0, 0}, 1.5f);
    const School other = row(10, {-10000, 500, 0}, 1.5f);
    apart.insert(apart.end(), other.begin(), other.end());
    const SchoolMetrics m = measureSchool(apart, p);
    EXPECT_EQ(m.groups, 2.0);
    EXPECT_DOUBLE_EQ(m.largestGroupShare, 20.0 / 30.0);
    EXPECT_NEAR(m.largestGroupCentre.x, 10000 + 1.5 * 9.5, 1e-3);
    // Rows 5 m apart: a school that fits the box of its cells, at the origin and 12 km from it.
    for (const glm::vec3 offset : {glm::vec3(0.0f), glm::vec3(10000.0f, -3000.0f, 7000.0f)}) {
        School near = row(20, offset, 1.5f);
        const School beside = row(10, offset + glm::vec3(0, 5, 0), 1.5f);
        near.insert(near.end(), beside.begin(), beside.end());
        const SchoolMetrics n = measureSchool(near, p);
        EXPECT_EQ(n.groups, 2.0) << offset.x;
        EXPECT_NEAR(n.meanNearestNeighborDistance, 1.5, 1e-6) << offset.x;
    }
}

TEST(Metrics, EachSpeciesShareInTheLargestGroup) {
    SimParams p;
    p.rCohesion = 2.0f;
    p.fishCount = 45;
    p.species = {{"a", 35, {1, 0, 0}, {}}, {"b", 10, {0, 0, 1}, {}}};
    // The largest group: 30 of species a; the other: 5 of a and the 10 of b.
    School school = row(30, {-30, 0, 0}, 1.5f, 0);
    for (const School& part : {row(5, {-30, 0, 10}, 1.5f, 0), row(10, {-22.5f, 0, 10}, 1.5f, 1)})
        school.insert(school.end(), part.begin(), part.end());
    const SchoolMetrics m = measureSchool(school, p);
    EXPECT_EQ(m.groups, 2.0);
    ASSERT_EQ(m.largestGroupShareBySpecies.size(), 2u);
    EXPECT_DOUBLE_EQ(m.largestGroupShareBySpecies[0], 30.0 / 35.0);
    EXPECT_EQ(m.largestGroupShareBySpecies[1], 0.0);
}

TEST(Metrics, GroupsOnTheGridAreThoseOfEveryPairTested) {
    // A random school across many cells against the groups of all pairs, by hand.
    SimParams p;
    p.fishCount = 600;
    p.seed = 11;
    p.groupDistance = 4.0f;
    const School school = makeInitialSchool(p);
    const std::size_t n = school.size();
    std::vector<int> label(n);
    std::iota(label.begin(), label.end(), 0);
    for (bool merged = true; merged;) {  // relabel each pair by the smaller label until none moves
        merged = false;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                const glm::vec3 d = school[j].position - school[i].position;
                if (glm::dot(d, d) < 16.0f && label[j] > label[i]) {
                    label[j] = label[i];
                    merged = true;
                }
            }
    }
    std::map<int, int> sizes;
    for (int l : label) ++sizes[l];
    int largest = 0;
    for (const auto& [l, size] : sizes) largest = std::max(largest, size);
    const SchoolMetrics m = measureSchool(school, p);
    ASSERT_GT(sizes.size(), 5u) << "a school of several groups";
    EXPECT_EQ(m.groups, double(sizes.size()));
    EXPECT_DOUBLE_EQ(m.largestGroupShare, double(largest) / double(n));
}

TEST(Scenario, AStartRadiusStartsTheSchoolInABallAboutTheCentre) {
    SimParams p;
    p.fishCount = 500;
    p.startRadius = 3.0f;
    const School school = makeInitialSchool(p);
    float farthest = 0.0f;
    for (const Fish& f : school) {
        EXPECT_LE(glm::length(f.position), 3.0f);
        EXPECT_TRUE(isInScene(f.position, p));
        farthest = std::max(farthest, glm::length(f.position));
    }
    EXPECT_GT(farthest, 2.5f);  // the whole ball, not a point
    // A ball holding the whole tank draws exactly as the whole tank does.
    p.startRadius = 1e5f;
    SimParams whole = p;
    whole.startRadius = 0.0f;
    EXPECT_EQ(makeInitialSchool(p), makeInitialSchool(whole));
}

/// `count` fish along `heading` (any length: a measure takes unit headings), of species `s`.
School heading(int count, glm::vec3 velocity, std::uint32_t s = 0) {
    School school;
    for (int i = 0; i < count; ++i) school.push_back({{float(i), 0, 0}, velocity, {}, s});
    return school;
}

TEST(Metrics, TheDirectionErrorIsTheAngleBetweenTheMeanHeadingAndThePreferredDirection) {
    SimParams p;
    p.kPreferred = 0.5f;
    p.preferredDirection = {2.0f, 0.0f, 0.0f};  // only its direction counts
    const double pi = std::acos(-1.0);
    EXPECT_EQ(measureSchool(heading(10, {3, 0, 0}), p).directionError, 0.0);
    EXPECT_EQ(measureSchool(heading(10, {-0.5f, 0, 0}), p).directionError, pi);
    EXPECT_NEAR(measureSchool(heading(10, {0, 0, 1}), p).directionError, pi / 2, 1e-12);
    // Unit headings: a fast fish counts as much as a slow one. (1, 1, 0) / sqrt(2) is 45 degrees.
    School mixed = heading(5, {4, 0, 0});
    const School up = heading(5, {0, 0.1f, 0});
    mixed.insert(mixed.end(), up.begin(), up.end());
    EXPECT_NEAR(measureSchool(mixed, p).directionError, pi / 4, 1e-12);
    // No mean heading (opposed fish, or none moving): no part of it along g.
    School opposed = heading(5, {0, 0, 1});
    const School back = heading(5, {0, 0, -1});
    opposed.insert(opposed.end(), back.begin(), back.end());
    EXPECT_NEAR(measureSchool(opposed, p).directionError, pi / 2, 1e-12);
    EXPECT_NEAR(measureSchool(heading(3, {0, 0, 0}), p).directionError, pi / 2, 1e-12);
}

TEST(Metrics, WithoutInformedFishTheDirectionErrorIsAbsent) {
    SimParams p;  // kPreferred 0
    const SchoolMetrics m = measureSchool(heading(4, {1, 0, 0}), p);
    EXPECT_TRUE(std::isnan(m.directionError));
    // The CSV's direction_error field, after step and time_s.
    const auto directionField = [](const SchoolMetrics& measured) {
        std::string row = metricsCsvRow(7, 0.5, measured);
        EXPECT_EQ(row.back(), '\n');
        std::vector<std::string> fields(1);
        for (char c : row.substr(0, row.size() - 1)) {
            if (c == ',')
                fields.emplace_back();
            else
                fields.back().push_back(c);
        }
        EXPECT_EQ(fields.size(), 2 + kSchoolMeasures.size());
        return fields.at(2 + schoolMeasureIndex("direction_error"));
    };
    EXPECT_EQ(directionField(m), "") << "an empty field, not nan";
    EXPECT_TRUE(std::isnan(measureSchool({}, p).directionError));
    p.kPreferred = 1.0f;
    EXPECT_EQ(directionField(measureSchool(heading(4, {1, 0, 0}), p)), "0");
}

TEST(Metrics, TheInformedFishAreTheFirstSpeciesWithAPreferenceThatHasFish) {
    SimParams p;
    p.fishCount = 6;
    Species naive{"naive", 2, {0.5f, 0.5f, 0.5f}, {}};
    Species empty{"empty", 0, {0.5f, 0.5f, 0.5f}, {{"kPreferred", 1.0f}}};
    Species informed{"informed", 4, {0.5f, 0.5f, 0.5f}, {{"kPreferred", 0.5f}}};
    SpeciesSetting up{"preferredDirection"};
    up.vector = {0.0f, 1.0f, 0.0f};
    informed.settings.push_back(up);
    p.species = {naive, empty, informed};
    ASSERT_TRUE(validate(p)) << validate(p).error();
    School school = heading(2, {0, 1, 0}, 0);
    EXPECT_TRUE(std::isnan(measureSchool(school, p).directionError)) << "only naive fish";
    const School fish = heading(4, {0, 1, 0}, 2);
    school.insert(school.end(), fish.begin(), fish.end());
    ASSERT_TRUE(informedDirection(school, p));
    EXPECT_EQ(*informedDirection(school, p), glm::vec3(0, 1, 0));  // species 2's, not 1's
    EXPECT_EQ(measureSchool(school, p).directionError, 0.0);
}

TEST(Metrics, AccuracyIsOneMinusTheAngularDeviationAboutGOverPi) {
    const double pi = std::acos(-1.0);
    EXPECT_EQ(directionAccuracy(std::vector<double>{0, 0, 0}), 1.0);
    EXPECT_NEAR(directionAccuracy(std::vector<double>{pi}), 1.0 - 2.0 / pi, 1e-12);
    // Half along g, half against it: mean cosine 0, as directions at random.
    EXPECT_NEAR(directionAccuracy(std::vector<double>{0, pi}), 1.0 - std::sqrt(2.0) / pi, 1e-12);
    EXPECT_NEAR(directionAccuracy(std::vector<double>{pi / 2, pi / 2}), 1.0 - std::sqrt(2.0) / pi,
                1e-12);
    // Every replicate 0.3 rad off: S = sqrt(2 (1 - cos 0.3)) = 2 sin(0.15).
    EXPECT_NEAR(directionAccuracy(std::vector<double>{0.3, 0.3}), 1.0 - 2 * std::sin(0.15) / pi,
                1e-12);
    EXPECT_TRUE(std::isnan(directionAccuracy(std::vector<double>{})));
}

TEST(Metrics, PairsTestedCountsAllPairsOrGridCandidates) {
    SimParams p;
    p.fishCount = 400;
    const School school = makeInitialSchool(p);
    p.neighborSearch = NeighborSearch::AllPairs;
    EXPECT_EQ(pairsTestedPerStep(school, p), 400u * 399u);
    p.neighborSearch = NeighborSearch::Grid;
    const auto gridPairs = pairsTestedPerStep(school, p);
    EXPECT_GT(gridPairs, 0u);
    EXPECT_LT(gridPairs, 400u * 399u);
}

}  // namespace
}  // namespace fishschool
