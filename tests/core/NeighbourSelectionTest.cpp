// docs/model.md "Neighbour selection": neighborSelection "topological" on every backend this build
// has and both searches: the k nearest within the largest radius, ties by the lower index, each
// rule's own radius and view applied to them.

#include <gtest/gtest.h>

#include <cmath>

#include <glm/geometric.hpp>

#include "HandBuiltScenes.h"
#include "core/CpuBackends.h"
#include "core/ParamTable.h"
#include "core/Scenario.h"

namespace fishschool {
namespace {

using test::expectVec;

class Topological : public test::PerBackend {
  protected:
    /// Alignment alone within 10 m, k nearest.
    SimParams aligning(std::int64_t k) const {
        SimParams p = quiet();
        p.neighborSelection = NeighborSelection::Topological;
        p.neighborCount = k;
        p.kAlignment = 1.0f;
        p.rAlignment = 10.0f;
        return p;
    }
};

TEST_P(Topological, AFishHeedsItsKNearestOnly) {
    // Fish 0 at the origin; its neighbours 1, 2 and 3 m away along x, each swimming its own way.
    const School school{{{0, 0, 0}, {}, {}},
                        {{1, 0, 0}, {0, 0, 1}, {}},
                        {{2, 0, 0}, {0, 1, 0}, {}},
                        {{3, 0, 0}, {0, 1, 0}, {}}};
    ASSERT_TRUE(validate(aligning(1))) << validate(aligning(1)).error();
    // One neighbour: along the nearest's velocity.
    expectVec(step(aligning(1), school)[0].acceleration, {0, 0, 1});
    // Two: the mean of the two nearest.
    expectVec(step(aligning(2), school)[0].acceleration, glm::normalize(glm::vec3(0, 1, 1)));
    // More than there are: every fish within reach, as metric neighbours.
    SimParams metric = aligning(7);
    metric.neighborSelection = NeighborSelection::Metric;
    expectVec(step(aligning(7), school)[0].acceleration, step(metric, school)[0].acceleration);
}

TEST_P(Topological, TiesGoToTheLowerIndexWhereverTheFishSit) {
    // Fish 1 and 2 are as far from fish 0, on either side: fish 1 is heeded. Then the same with
    // their places swapped, so that the grid's order of slots differs from the index.
    const School school{
        {{0, 0, 0}, {}, {}}, {{1, 0, 0}, {0, 0, 1}, {}}, {{-1, 0, 0}, {0, 1, 0}, {}}};
    expectVec(step(aligning(1), school)[0].acceleration, {0, 0, 1});
    const School swapped{
        {{0, 0, 0}, {}, {}}, {{-1, 0, 0}, {0, 0, 1}, {}}, {{1, 0, 0}, {0, 1, 0}, {}}};
    expectVec(step(aligning(1), swapped)[0].acceleration, {0, 0, 1});
}

TEST_P(Topological, ATieForTheLastPlaceGoesToTheLowerIndex) {
    // k = 2: fish 3 is nearest; fish 1 and 2 tie for the second place, fish 1 in either spot.
    for (const float side : {1.0f, -1.0f}) {
        const School school{{{0, 0, 0}, {}, {}},
                            {{0, 0, 2 * side}, {0, 0, 1}, {}},
                            {{0, 0, -2 * side}, {0, 1, 0}, {}},
                            {{1, 0, 0}, {1, 0, 0}, {}}};
        expectVec(step(aligning(2), school)[0].acceleration, glm::normalize(glm::vec3(1, 0, 1)));
    }
}

TEST_P(Topological, EachRuleAppliesItsOwnRadiusToTheNearest) {
    // The two nearest are 1 m and 1.5 m away; a third fish 3 m away is not among them.
    // Alignment reaches 1.2 m: the nearest alone aligns. Cohesion reaches 10 m: toward the two.
    SimParams p = aligning(2);
    p.rAlignment = 1.2f;
    p.kCohesion = 1.0f;
    p.rCohesion = 10.0f;
    const School school{{{0, 0, 0}, {}, {}},
                        {{1, 0, 0}, {0, 0, 1}, {}},
                        {{0, 0, 1.5f}, {0, 1, 0}, {}},
                        {{-3, 0, 0}, {1, 0, 0}, {}}};
    const glm::vec3 alignment(0, 0, 1);
    const glm::vec3 cohesion = glm::normalize(glm::vec3(0.5f, 0, 0.75f));
    expectVec(step(p, school)[0].acceleration, alignment + cohesion);
}

TEST_P(Topological, ASchoolAgreesWithCpu) {
    SimParams p;
    p.neighborSearch = GetParam().search;
    p.neighborSelection = NeighborSelection::Topological;
    p.fishCount = 500;
    p.bounds = {15.0f, 8.0f, 15.0f};
    p.rCohesion = p.rAlignment = 6.0f;
    p.rocks.clear();
    // k of 1, the default 7, 20 and 64: the GPU's kept list in each of its sizes.
    for (const std::int64_t k : {1, 7, 20, 64}) {
        p.neighborCount = k;
        ASSERT_TRUE(validate(p)) << validate(p).error();
        EXPECT_LT(test::errorAgainstCpu(GetParam().backend, p, makeInitialSchool(p), 3), 1e-4)
            << "k = " << k;
    }
    // A periodic tank, in 3D and flat (2D: one layer of cells, no wrap in y): the search wraps
    // round and skips the cells past the k-th kept, whichever image of a fish is the nearer. 30 x
    // 20 x 30 m in cells of just over 6 m: 4 in x and z, 3 in y (fewer would be searched pair by
    // pair), the last on each axis wider than the others.
    p.boundary = Boundary::Periodic;
    p.bounds.y = 10.0f;
    for (const std::int64_t dimensions : {3, 2}) {
        p.dimensions = dimensions;
        for (const std::int64_t k : {1, 7, 64}) {
            p.neighborCount = k;
            ASSERT_TRUE(validate(p)) << validate(p).error();
            EXPECT_LT(test::errorAgainstCpu(GetParam().backend, p, makeInitialSchool(p), 3), 1e-4)
                << "periodic, " << dimensions << "D, k = " << k;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Topological, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

/// cpu and tbb give the same bits, and both searches find the same neighbours (to the last bits
/// of the sums), with the default school's rules and its species-free fast path off.
TEST(TopologicalSchool, TbbMatchesCpuToTheBitAndTheSearchesAgree) {
    SimParams p;
    p.neighborSelection = NeighborSelection::Topological;
    p.fishCount = 3000;
    const School cpuGrid = test::expectTbbMatchesCpuAndSearchesAgree(p);
    // Not the metric school's step.
    SimParams metric = p;
    metric.neighborSelection = NeighborSelection::Metric;
    EXPECT_NE(
        test::afterSteps(BackendKind::Cpu, NeighborSearch::Grid, metric, makeInitialSchool(p), 3),
        cpuGrid);
}

/// The grid's search guesses how far a fish's k-th nearest lies from the fish before it in its
/// group and looks within that first: a fish alone beside a dense clump finds fewer than k
/// there, and a clump's fish after a lone one finds more than it notes; either searches again
/// from no guess, and the neighbours are the same as every pair's.
TEST(TopologicalSchool, AGuessThatFallsShortOrHoldsTooManyFindsTheSameNeighbours) {
    SimParams p;
    p.neighborSelection = NeighborSelection::Topological;
    p.fishCount = 3000;
    p.rocks.clear();
    School school = makeInitialSchool(p);
    // 400 fish within 0.3 m of a point, a few fish strewn 1 to 3 m about it.
    const glm::vec3 centre = school[0].position;
    for (std::size_t i = 0; i < 400; ++i) {
        const float t = static_cast<float>(i);
        school[i].position =
            centre + 0.3f * glm::vec3(std::sin(1.7f * t), std::cos(2.3f * t), std::sin(0.9f * t));
    }
    for (std::size_t i = 400; i < 420; ++i) {
        const float t = static_cast<float>(i);
        school[i].position = centre + (1.0f + 0.1f * static_cast<float>(i - 400)) *
                                          glm::normalize(glm::vec3(std::sin(t), std::cos(t), 0.5f));
    }
    for (const std::int64_t k : {1, 7}) {
        p.neighborCount = k;
        (void)test::expectTbbMatchesCpuAndSearchesAgree(p, school);
    }
}

TEST(TopologicalRules, TheCountIsFromOneTo64) {
    SimParams p;
    p.neighborSelection = NeighborSelection::Topological;
    for (std::int64_t k : {0, 65}) {
        p.neighborCount = k;
        ASSERT_FALSE(validate(p));
        EXPECT_NE(validate(p).error().find("neighborCount"), std::string::npos);
    }
    p.neighborCount = 64;
    EXPECT_TRUE(validate(p)) << validate(p).error();
}

}  // namespace
}  // namespace fishschool
