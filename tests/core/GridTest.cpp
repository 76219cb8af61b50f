// Grid neighbour search against the all-pairs reference.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "core/CpuBackends.h"
#include "core/CpuSolver.h"
#include "core/Scenario.h"

namespace fishschool {
namespace {

void serialFor(std::size_t count, std::size_t,
               const std::function<void(std::size_t, std::size_t)>& body) {
    if (count > 0) body(0, count);
}

SimParams sceneParams(NeighborSearch search) {
    SimParams p;
    p.bounds = {20.0f, 10.0f, 20.0f};
    p.rocks = {{{5.0f, -5.0f, 5.0f}, 3.0f}};
    p.rCohesion = 4.0f;
    p.rSeparation = 1.0f;
    p.rAlignment = 2.5f;
    p.neighborSearch = search;
    return p;
}

/// Random fish, plus fish exactly on cell borders: the grid's cells are rCohesion (slightly
/// more) wide from -bounds, and many fish sit at exact multiples of the radius from each other.
School borderlineSchool(const SimParams& p, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    School school;
    for (int i = 0; i < 400; ++i) {
        Fish f;
        f.position = p.bounds * glm::vec3(unit(rng), unit(rng), unit(rng));
        f.velocity = glm::vec3(unit(rng), unit(rng), unit(rng));
        school.push_back(f);
    }
    const float r = p.rCohesion;
    for (int ix = -4; ix <= 4; ++ix)
        for (int iy = -2; iy <= 2; ++iy)
            for (int iz = -4; iz <= 4; iz += 2) {
                Fish f;
                f.position = {ix * r, iy * r * 0.5f, iz * r};
                f.velocity = {1.0f, 0.0f, 0.0f};
                school.push_back(f);
            }
    // Exactly at each radius from a fish, along each axis, and both walls.
    for (float radius : {p.rCohesion, p.rSeparation, p.rAlignment}) {
        school.push_back({{1.0f, 1.0f, 1.0f}, {0, 1, 0}, {}});
        school.push_back({{1.0f + radius, 1.0f, 1.0f}, {0, 1, 0}, {}});
        school.push_back({{1.0f, 1.0f - radius, 1.0f}, {0, 1, 0}, {}});
    }
    school.push_back({{p.bounds.x, p.bounds.y, p.bounds.z}, {1, 0, 0}, {}});
    school.push_back({{-p.bounds.x, -p.bounds.y, -p.bounds.z}, {1, 0, 0}, {}});
    moveIntoScene(school, p);
    return school;
}

/// `school` into `grid`, with `gridParams`, and into `allPairs`, with the same tank and all pairs.
void uploadToBoth(const SimParams& gridParams, const School& school, CpuSolver& grid,
                  CpuSolver& allPairs) {
    SimParams pairsParams = gridParams;
    pairsParams.neighborSearch = NeighborSearch::AllPairs;
    grid.setParams(gridParams);
    allPairs.setParams(pairsParams);
    grid.upload(school);
    allPairs.upload(school);
}

/// Every fish of `school` has, at each of the scene's radii, exactly the neighbours on the grid
/// of `gridParams` that it has on all pairs in the same tank.
void expectTheNeighbourSetsOfAllPairs(const SimParams& gridParams, const School& school,
                                      const std::string& scene) {
    CpuSolver grid(serialFor), allPairs(serialFor);
    uploadToBoth(gridParams, school, grid, allPairs);
    for (float radius : {gridParams.rCohesion, gridParams.rSeparation, gridParams.rAlignment}) {
        std::size_t total = 0;
        for (std::uint32_t i = 0; i < school.size(); ++i) {
            const auto expected = allPairs.neighborsOf(i, radius);
            ASSERT_EQ(grid.neighborsOf(i, radius), expected)
                << "fish " << i << " radius " << radius << ", " << scene;
            total += expected.size();
        }
        EXPECT_GT(total, 20u) << "the scene should have neighbours at radius " << radius;
    }
}

// The sort finds eight fish's cells and halves at once: the same as one at a time, for positions
// inside, on the faces and halves of cells, outside the tank, infinite and NaN.
TEST(Grid, EightFishAtOnceFallInTheCellsAndHalvesOfOneAtATime) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> unit(-1.3f, 1.3f);
    const float kInf = std::numeric_limits<float>::infinity();
    const float kNaN = std::numeric_limits<float>::quiet_NaN();
    // Cells 2 wide from -8: a fish at a whole number of half-cells lies exactly on a face or a
    // half, which the rounding of other widths seldom hits.
    GridShape exact;
    exact.origin = {-8.0, -4.0, -8.0};
    exact.cellSize = 2.0;
    exact.dimX = exact.dimZ = 8;
    exact.dimY = 4;
    for (const bool periodic : {false, true}) {
        for (const glm::vec3 bounds : {glm::vec3(20.0f, 10.0f, 20.0f), glm::vec3(7.0f, 0.0f, 3.0f),
                                       glm::vec3(8.0f, 4.0f, 8.0f)}) {
            const GridShape grid =
                bounds.x == 8.0f ? exact : GridShape::forTank(bounds, 2.5f, 100000, 1, periodic);
            std::vector<float> x, y, z;
            for (int i = 0; i < 4000; ++i) {
                glm::vec3 p = bounds * glm::vec3(unit(rng), unit(rng), unit(rng));
                // Every fourth fish exactly on a cell's face or half, some far out.
                if (i % 4 == 1)
                    p.x = static_cast<float>(grid.origin.x + grid.cellSize * (i % 13) * 0.5);
                if (i % 4 == 2) p.z = static_cast<float>(grid.origin.z + grid.cellSize * (i % 7));
                if (i % 97 == 3) p.y = i % 2 == 0 ? kInf : -kInf;
                if (i % 89 == 5) p.x = kNaN;
                if (i % 83 == 7) p.z = 1e30f;
                x.push_back(p.x);
                y.push_back(p.y);
                z.push_back(p.z);
            }
            for (std::size_t i = 0; i < x.size(); i += 8) {
                std::uint32_t slots[8], octants[8];
                grid.slotsAndOctantsOf8(&x[i], &y[i], &z[i], slots, octants);
                for (std::size_t l = 0; l < 8; ++l) {
                    const auto [slot, octant] = grid.slotAndOctantOf(x[i + l], y[i + l], z[i + l]);
                    ASSERT_EQ(slots[l], slot) << x[i + l] << " " << y[i + l] << " " << z[i + l];
                    ASSERT_EQ(octants[l], octant) << x[i + l] << " " << y[i + l] << " " << z[i + l];
                }
            }
        }
    }
}

TEST(Grid, FindsExactlyTheNeighbourSetsOfAllPairs) {
    for (std::uint32_t seed : {1u, 2u, 3u}) {
        const SimParams p = sceneParams(NeighborSearch::Grid);
        expectTheNeighbourSetsOfAllPairs(p, borderlineSchool(p, seed),
                                         "seed " + std::to_string(seed));
    }
}

/// The grid wrapped round a periodic tank and in open water, both as a box of the school's cells
/// and hashed (a school split 10 km apart), far from the origin too, where a float's rounding is
/// coarse, finds exactly what all pairs find.
TEST(Grid, FindsExactlyTheNeighbourSetsOfAllPairsInEveryBoundary) {
    struct Case {
        Boundary boundary;
        glm::vec3 offset;
        glm::vec3 everyOtherFishMoved;
        const char* name;
    };
    const glm::vec3 none(0.0f), far(10000.0f, -3000.0f, 7000.0f);
    for (const Case& c :
         {Case{Boundary::Periodic, none, none, "periodic"},
          Case{Boundary::Open, none, none, "open"},
          Case{Boundary::Open, far, none, "open, about 12 km from the origin"},
          Case{Boundary::Open, none, glm::vec3(0.0f, 0.0f, 10000.0f), "open, split 10 km apart"},
          Case{Boundary::Open, far, glm::vec3(-10000.0f, 0.0f, 0.0f),
               "open, split, one part 12 km from the origin"}}) {
        SimParams p = sceneParams(NeighborSearch::Grid);
        p.boundary = c.boundary;
        School school = borderlineSchool(p, 5);
        for (std::size_t i = 0; i < school.size(); ++i)
            school[i].position += c.offset + (i % 2 == 1 ? c.everyOtherFishMoved : none);
        expectTheNeighbourSetsOfAllPairs(p, school, c.name);
    }
}

/// Open water searches a box of the cells its school spans while they are no more than the
/// hashed table's buckets, and hashes beyond.
TEST(Grid, OpenWaterSearchesTheSchoolsBoxOfCellsWhileItFitsTheTable) {
    const GridShape hashed = GridShape::forOpenWater(10.0f, 1000);
    ASSERT_TRUE(hashed.hashed);
    ASSERT_EQ(hashed.cellCount(), 1024u);
    const auto box = GridShape::forOpenWaterBox({-3, 5, 100}, {4, 12, 115}, hashed, 1024);
    ASSERT_TRUE(box.has_value());
    EXPECT_FALSE(box->hashed);
    EXPECT_EQ(box->dimX, 8);
    EXPECT_EQ(box->dimY, 8);
    EXPECT_EQ(box->dimZ, 16);
    EXPECT_EQ(box->cellSize, hashed.cellSize);
    // The box's cells are open water's cells: a fish in open cell (c) is in box cell c - lo.
    const float inside = 0.5f * static_cast<float>(hashed.cellSize);
    const auto at = [&](int c) { return static_cast<float>(c * hashed.cellSize) + inside; };
    EXPECT_EQ(box->cellOf(at(-3), at(5), at(100)), glm::ivec3(0, 0, 0));
    EXPECT_EQ(box->cellOf(at(4), at(12), at(115)), glm::ivec3(7, 7, 15));
    EXPECT_EQ(box->cellOf(at(0), at(9), at(107)), glm::ivec3(3, 4, 7));
    // One cell more is more than the table: hashed.
    EXPECT_FALSE(GridShape::forOpenWaterBox({-3, 5, 100}, {4, 12, 116}, hashed, 1024));
    // Two groups far apart, or no finite fish (the highest cell below the lowest).
    EXPECT_FALSE(GridShape::forOpenWaterBox({0, 0, 0}, {1000, 2, 2}, hashed, 1024));
    EXPECT_FALSE(GridShape::forOpenWaterBox({1 << 30, 1 << 30, 1 << 30},
                                            {-(1 << 30), -(1 << 30), -(1 << 30)}, hashed, 1024));
    EXPECT_FALSE(GridShape::forOpenWaterBox({-(1 << 30), 0, 0}, {1 << 30, 0, 0}, hashed, 1024));
}

TEST(Grid, ExcludesAFishExactlyAtTheRadius) {
    SimParams p = sceneParams(NeighborSearch::Grid);
    const School school{
        {{0, 0, 0}, {1, 0, 0}, {}}, {{4, 0, 0}, {1, 0, 0}, {}}, {{0, 3.5f, 0}, {1, 0, 0}, {}}};
    CpuSolver grid(serialFor);
    grid.setParams(p);
    grid.upload(school);
    EXPECT_EQ(grid.neighborsOf(0, 4.0f), std::vector<std::uint32_t>{2});
    EXPECT_EQ(grid.neighborsOf(0, 4.5f), (std::vector<std::uint32_t>{1, 2}));
}

/// neighborsOf() sorts the school by cell; every fish keeps its own stored acceleration.
TEST(Grid, SortingByCellKeepsEachFishsAcceleration) {
    const SimParams p = sceneParams(NeighborSearch::Grid);
    School school = borderlineSchool(p, 4);
    for (std::size_t i = 0; i < school.size(); ++i)
        school[i].acceleration = {float(i), -0.5f * float(i), 1.0f + float(i % 7)};
    CpuSolver grid(serialFor);
    grid.setParams(p);
    grid.upload(school);
    (void)grid.neighborsOf(0, p.rCohesion);
    const School after = grid.download();
    ASSERT_EQ(after.size(), school.size());
    for (std::size_t i = 0; i < school.size(); ++i) {
        ASSERT_EQ(after[i].position, school[i].position) << "fish " << i;
        ASSERT_EQ(after[i].acceleration, school[i].acceleration) << "fish " << i;
    }
}

TEST(Grid, OneStepAgreesWithAllPairsToFloatRounding) {
    const SimParams gridParams = sceneParams(NeighborSearch::Grid);
    const School school = borderlineSchool(gridParams, 7);
    auto grid = makeCpuBackend();
    auto allPairs = makeCpuBackend();
    ASSERT_TRUE(grid->setParams(gridParams));
    ASSERT_TRUE(allPairs->setParams(sceneParams(NeighborSearch::AllPairs)));
    ASSERT_TRUE(grid->upload(school));
    ASSERT_TRUE(allPairs->upload(school));
    grid->step();
    allPairs->step();
    const School a = grid->download(), b = allPairs->download();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (int k = 0; k < 3; ++k) {
            EXPECT_NEAR(a[i].position[k], b[i].position[k],
                        1e-4f * (1.0f + std::abs(b[i].position[k])))
                << "fish " << i;
            EXPECT_NEAR(a[i].velocity[k], b[i].velocity[k],
                        1e-4f * (1.0f + std::abs(b[i].velocity[k])))
                << "fish " << i;
        }
    }
}

/// Cells of more fish than a group holds are searched in groups of half-cells, each with the
/// candidates packed for the box its fish span: no neighbour may be left out, in any boundary,
/// far from the origin too, with fish exactly a radius apart across half-cell borders.
TEST(Grid, OneStepAgreesWithAllPairsInCrowdedCellsOfEveryBoundary) {
    struct Case {
        Boundary boundary;
        glm::vec3 offset;
        const char* name;
    };
    for (const Case& c : {Case{Boundary::Walls, glm::vec3(0.0f), "walls"},
                          Case{Boundary::Periodic, glm::vec3(0.0f), "periodic"},
                          Case{Boundary::Open, glm::vec3(0.0f), "open"},
                          Case{Boundary::Open, glm::vec3(10000.0f, -3000.0f, 7000.0f),
                               "open, about 12 km from the origin"}}) {
        SimParams gridParams = sceneParams(NeighborSearch::Grid);
        gridParams.rocks.clear();
        gridParams.boundary = c.boundary;
        if (c.offset != glm::vec3(0.0f)) {
            // 12 km out, a sum of hundreds of positions rounds to about 0.1 m, in another order
            // on each search: alignment, a sum of velocities, sees every neighbour there instead.
            gridParams.kCohesion = 0.0f;
            gridParams.rAlignment = gridParams.rCohesion;
        }
        // A crowd of 1,500 fish a few cells wide across a corner of the tank (and, periodic,
        // across its faces), then fish a radius apart on a lattice of half-cells.
        std::mt19937 rng(11);
        std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
        School school;
        const glm::vec3 corner = gridParams.bounds - glm::vec3(2.0f);
        for (int i = 0; i < 1500; ++i) {
            const glm::vec3 p = corner + 6.0f * glm::vec3(unit(rng), unit(rng), unit(rng));
            school.push_back(
                {glm::min(p, gridParams.bounds), glm::vec3(unit(rng), 0.5f, 0.0f), {}});
        }
        const float r = gridParams.rCohesion;
        for (int ix = -3; ix <= 3; ++ix)
            for (int iz = -3; iz <= 3; ++iz)
                school.push_back({{ix * 0.5f * r, 0.0f, iz * 0.5f * r}, {1.0f, 0.0f, 0.0f}, {}});
        if (c.boundary == Boundary::Walls) moveIntoScene(school, gridParams);
        for (Fish& fish : school) fish.position += c.offset;
        CpuSolver grid(serialFor), allPairs(serialFor);
        uploadToBoth(gridParams, school, grid, allPairs);
        grid.step(0);
        allPairs.step(0);
        const School a = grid.download(), b = allPairs.download();
        ASSERT_EQ(a.size(), b.size());
        float largest = 0.0f;
        std::size_t worst = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            for (int k = 0; k < 3; ++k) {
                const float off = std::abs(a[i].acceleration[k] - b[i].acceleration[k]) /
                                  (1.0f + std::abs(b[i].acceleration[k]));
                if (off > largest) {
                    largest = off;
                    worst = i;
                }
            }
        }
        EXPECT_LT(largest, 1e-3f) << "fish " << worst << ", " << c.name;
    }
}

TEST(Grid, KeepsEveryFishInTheSceneOver1000Steps) {
    SimParams p = sceneParams(NeighborSearch::Grid);
    p.fishCount = 500;
    p.seed = 11;
    p.rocks = {{{5.0f, -5.0f, 5.0f}, 3.0f}, {{-8.0f, 2.0f, -6.0f}, 2.5f}};
    auto backend = makeTbbBackend();
    ASSERT_TRUE(backend->setParams(p));
    ASSERT_TRUE(backend->upload(makeInitialSchool(p)));
    for (int s = 0; s < 1000; ++s) {
        backend->step();
        const School school = backend->download();
        ASSERT_EQ(school.size(), 500u);
        for (const Fish& f : school) {
            for (int k = 0; k < 3; ++k) {
                ASSERT_TRUE(std::isfinite(f.position[k]) && std::isfinite(f.velocity[k]))
                    << "step " << s;
            }
            ASSERT_TRUE(isInScene(f.position, p)) << "step " << s << ": " << f.position.x << " "
                                                  << f.position.y << " " << f.position.z;
        }
    }
}

TEST(Grid, FishFarOutsideAShrunkenTankAreNotLost) {
    SimParams big = sceneParams(NeighborSearch::Grid);
    big.bounds = {500.0f, 500.0f, 500.0f};
    big.rocks.clear();
    big.fishCount = 300;
    const School school = makeInitialSchool(big);

    SimParams small = sceneParams(NeighborSearch::Grid);  // a tank 25 times smaller
    for (auto make : {makeCpuBackend, makeTbbBackend}) {
        auto backend = make();
        ASSERT_TRUE(backend->setParams(small));
        ASSERT_TRUE(backend->upload(school));
        backend->step();
        const School after = backend->download();
        ASSERT_EQ(after.size(), school.size());
        for (const Fish& f : after) {
            for (int k = 0; k < 3; ++k) ASSERT_TRUE(std::isfinite(f.position[k]));
        }
    }
}

TEST(Grid, MatchesAllPairsWhenEveryRadiusIsZero) {
    SimParams p = sceneParams(NeighborSearch::Grid);
    p.rCohesion = p.rSeparation = p.rAlignment = 0.0f;
    p.fishCount = 50;
    auto backend = makeCpuBackend();
    ASSERT_TRUE(backend->setParams(p));
    ASSERT_TRUE(backend->upload(makeInitialSchool(p)));
    backend->step();
    for (const Fish& f : backend->download()) EXPECT_EQ(f.acceleration, glm::vec3(0.0f));
}

}  // namespace
}  // namespace fishschool
