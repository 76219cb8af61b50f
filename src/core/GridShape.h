#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include <glm/vec3.hpp>

#include "core/Hash.h"

namespace fishschool {

namespace glsl {
/// shaders/open_water_buckets.h, the text the GPU's grid.glsl includes, as C++.
struct OpenWaterBuckets : Hash {
    using uint = std::uint32_t;
#include "open_water_buckets.h"
};
}  // namespace glsl

/// The cells of a uniform grid over the tank [-bounds, bounds]. A cell is at least as wide as the
/// largest neighbour radius (plus a margin against rounding), so two fish closer than that radius
/// lie in the same or adjacent cells. Fish outside the tank are clamped to the border cells, which
/// keeps that property and never indexes out of range.
struct GridShape {
    glm::dvec3 origin{0.0};
    double cellSize = 1.0;
    int dimX = 1, dimY = 1, dimZ = 1;

    std::size_t cellCount() const {
        return static_cast<std::size_t>(dimX) * static_cast<std::size_t>(dimY) *
               static_cast<std::size_t>(dimZ);
    }

    /// Cell coordinate along one axis, clamped to [0, dim-1]; NaN goes to 0.
    static int axisCell(float p, double origin, double cellSize, int dim) {
        return axisCellOf((static_cast<double>(p) - origin) / cellSize, dim);
    }

    /// axisCell of the position f cells past the origin.
    static int axisCellOf(double f, int dim) {
        if (!(f > 0.0)) return 0;
        if (f >= static_cast<double>(dim - 1)) return dim - 1;
        return static_cast<int>(f);
    }

    glm::ivec3 cellOf(float x, float y, float z) const {
        return {axisCell(x, origin.x, cellSize, dimX), axisCell(y, origin.y, cellSize, dimY),
                axisCell(z, origin.z, cellSize, dimZ)};
    }

    /// Cells are numbered x fastest, so the three cells x-1..x+1 of a row are contiguous.
    std::uint32_t index(const glm::ivec3& c) const {
        return static_cast<std::uint32_t>(c.x + dimX * (c.y + dimY * c.z));
    }

    /// How many cells around a fish's own cell hold every fish within the radius.
    int reach = 1;

    /// Open water (boundary "open", docs/model.md "Neighbour search"): cells of cellSize over all
    /// of space, never clamped, hashed into a table of dimX buckets (a power of two; dimY = dimZ
    /// = 1): memory bounded by the fish count, however far apart the fish swim. The cells of a
    /// row along x fall in consecutive buckets, so a row of 2 reach + 1 cells is one run of
    /// buckets (two where it passes the table's end).
    bool hashed = false;

    /// Open water: the cell of a position along one axis, clamped to +-2^30 (NaN to 0).
    static int openAxisCell(float p, double cellSize) {
        return openAxisCellOf(static_cast<double>(p) / cellSize);
    }

    /// openAxisCell of the position `cells` cells from 0.
    static int openAxisCellOf(double cells) {
        constexpr double kLimit = 1 << 30;
        const double f = std::floor(cells);
        if (!(f > -kLimit)) return std::isnan(f) ? 0 : -(1 << 30);
        return f < kLimit ? static_cast<int>(f) : (1 << 30);
    }

    glm::ivec3 openCellOf(float x, float y, float z) const {
        return {openAxisCell(x, cellSize), openAxisCell(y, cellSize), openAxisCell(z, cellSize)};
    }

    /// Open water: the bucket of cell x of the row (y, z) is rowStart(y, z) + x, wrapped: rows in
    /// blocks of 4 x 4, as the GPU's (shaders/open_water_buckets.h).
    static std::uint32_t rowStart(int y, int z) {
        return glsl::OpenWaterBuckets{}.bucketRowStart(y, z);
    }

    std::uint32_t bucketMask() const { return static_cast<std::uint32_t>(dimX) - 1u; }

    std::uint32_t bucket(const glm::ivec3& c) const {
        return (rowStart(c.y, c.z) + static_cast<std::uint32_t>(c.x)) & bucketMask();
    }

    /// The cell (or, open water, the bucket) a position is sorted into.
    std::uint32_t slotOf(float x, float y, float z) const {
        return hashed ? bucket(openCellOf(x, y, z)) : index(cellOf(x, y, z));
    }

    /// The cell (or, open water, the bucket) a position is sorted into, as slotOf, and which half
    /// of that cell it lies in on each axis: bit 0 the upper half in x, bit 1 in y, bit 2 in z (a
    /// position clamped into a border cell: the half it lies beyond; NaN: the lower). The step
    /// sorts a cell's fish by it, so that fish near one another are neighbours in memory too
    /// (docs/model.md "Neighbour search").
    std::pair<std::uint32_t, std::uint32_t> slotAndOctantOf(float x, float y, float z) const {
        glm::ivec3 cell;
        std::uint32_t octant = 0;
        const float p[3] = {x, y, z};
        const int dims[3] = {dimX, dimY, dimZ};
        for (int axis = 0; axis < 3; ++axis) {
            // axisCell's and openAxisCell's quotient, found once for the cell and its half.
            const double o = hashed ? 0.0 : origin[axis];
            const double f = (static_cast<double>(p[axis]) - o) / cellSize;
            cell[axis] = hashed ? openAxisCellOf(f) : axisCellOf(f, dims[axis]);
            // Without a branch: the half is a coin toss, and a branch on it mispredicts often.
            octant |= static_cast<std::uint32_t>(f - static_cast<double>(cell[axis]) >= 0.5)
                      << axis;
        }
        return {hashed ? bucket(cell) : index(cell), octant};
    }

    /// slotAndOctantOf of the eight positions (x[l], y[l], z[l]) of a grid that is not hashed,
    /// in lanes: the same cells and halves, for the sort of every fish each step.
    void slotsAndOctantsOf8(const float* x, const float* y, const float* z, std::uint32_t* slots,
                            std::uint32_t* octants) const {
        using Doubles = double __attribute__((vector_size(8 * sizeof(double))));
        using Longs = std::int64_t __attribute__((vector_size(8 * sizeof(std::int64_t))));
        const float* const p[3] = {x, y, z};
        const int dims[3] = {dimX, dimY, dimZ};
        Longs cell[3], octant{};
        for (int axis = 0; axis < 3; ++axis) {
            Doubles f;
            for (int l = 0; l < 8; ++l) f[l] = static_cast<double>(p[axis][l]);
            f = (f - origin[axis]) / cellSize;
            // axisCellOf: clamped first, so that every lane converts in range (NaN to 0).
            const Doubles zero{}, top = zero + static_cast<double>(dims[axis] - 1);
            Doubles clamped = f > zero ? f : zero;
            clamped = clamped < top ? clamped : top;
            cell[axis] = __builtin_convertvector(clamped, Longs);
            octant |= (f - __builtin_convertvector(cell[axis], Doubles) >= 0.5) &
                      static_cast<std::int64_t>(1 << axis);
        }
        const Longs index = cell[0] + dimX * (cell[1] + dimY * cell[2]);
        for (int l = 0; l < 8; ++l) {
            slots[l] = static_cast<std::uint32_t>(index[l]);
            octants[l] = static_cast<std::uint32_t>(octant[l]);
        }
    }

    /// Open water: cells at least `radius / cellsPerRadius` wide (1 m without a radius), hashed
    /// into the smallest power of two of buckets at least `maxCells` (with 2N + 64, two to four
    /// buckets a fish): the more buckets, the more seldom a row's run of buckets holds fish of
    /// another cell, which the search tests in vain (docs/performance-log.md).
    static GridShape forOpenWater(float radius, std::size_t maxCells, int cellsPerRadius = 1) {
        constexpr double kRoundingMargin = 1.0 + 1e-4;
        GridShape shape;
        shape.hashed = true;
        shape.reach = cellsPerRadius;
        const double cell = static_cast<double>(radius) * kRoundingMargin / cellsPerRadius;
        shape.cellSize = cell > 0.0 && std::isfinite(cell) ? cell : 1.0;
        shape.dimX =
            static_cast<int>(std::bit_ceil(std::clamp<std::size_t>(maxCells, 1, 1u << 30)));
        return shape;
    }

    /// Open water whose fish all lie in the cells lo..hi (as openCellOf numbers them): those
    /// cells alone, numbered as a tank's, with `hashedShape`'s cells; none when there are more
    /// than `maxCells`. A school that keeps together is then searched as a tank's, with no fish
    /// of far cells in its runs (docs/model.md "Neighbour search").
    static std::optional<GridShape> forOpenWaterBox(const glm::ivec3& lo, const glm::ivec3& hi,
                                                    const GridShape& hashedShape,
                                                    std::size_t maxCells) {
        const glm::dvec3 extent = glm::dvec3(hi) - glm::dvec3(lo) + 1.0;
        if (!(extent.x >= 1.0 && extent.y >= 1.0 && extent.z >= 1.0) ||
            extent.x * extent.y * extent.z > static_cast<double>(maxCells))
            return std::nullopt;
        GridShape shape;
        shape.cellSize = hashedShape.cellSize;
        shape.reach = hashedShape.reach;
        shape.origin = glm::dvec3(lo) * shape.cellSize;
        shape.dimX = static_cast<int>(extent.x);
        shape.dimY = static_cast<int>(extent.y);
        shape.dimZ = static_cast<int>(extent.z);
        return shape;
    }

    /// Open water (this a hashed shape): the grid of the CPU's searches for fish within
    /// [low, high] on each axis: the box of cells they span when it has no more cells than this
    /// shape has buckets, else this.
    GridShape forSchoolWithin(const glm::vec3& low, const glm::vec3& high) const {
        const auto box = forOpenWaterBox(openCellOf(low.x, low.y, low.z),
                                         openCellOf(high.x, high.y, high.z), *this, cellCount());
        return box ? *box : *this;
    }

    /// Whether the search of the cells within `reach` of a fish's own, wrapped round a periodic
    /// tank, visits each cell once: at least 2 * reach + 1 cells on every axis (but y when flat).
    bool holdsWrappedSearch() const {
        const int least = 2 * reach + 1;
        return dimX >= least && (dimY >= least || flat) && dimZ >= least;
    }

    /// One layer of cells in y for a school in the plane y = 0 (a tank of half extent 0 in y,
    /// gridBounds() in 2D): a periodic search does not wrap in y.
    bool flat = false;

    /// A grid for a tank of half extents `bounds`, with cells at least `radius / cellsPerRadius`
    /// wide, so that the fish within `radius` lie within `cellsPerRadius` cells, and at most about
    /// `maxCells` cells (the cells grow when the tank is large for the radius).
    /// `periodic`: the cells tile the tank exactly, the last of each axis wider than the others
    /// (by less than a cell), so that the fish within `radius` of a face lie in its border cell
    /// and a search wrapped round the tank finds them (docs/model.md "Neighbour search").
    static GridShape forTank(const glm::vec3& bounds, float radius, std::size_t maxCells,
                             int cellsPerRadius = 1, bool periodic = false) {
        constexpr double kRoundingMargin = 1.0 + 1e-4;
        constexpr int kMaxDim = 1 << 12;
        GridShape shape;
        shape.origin = -glm::dvec3(bounds);
        shape.flat = bounds.y == 0.0f;
        const glm::dvec3 extent = 2.0 * glm::dvec3(bounds);
        const double largestExtent = std::max({extent.x, extent.y, extent.z});
        shape.reach = cellsPerRadius;
        double cell = std::max(static_cast<double>(radius) * kRoundingMargin / cellsPerRadius,
                               largestExtent / kMaxDim);
        if (!(cell > 0.0) || !std::isfinite(cell)) cell = std::max(largestExtent, 1.0);
        maxCells = std::max<std::size_t>(maxCells, 1);
        for (;;) {
            auto dim = [&](double e) {
                const double cells = periodic ? std::floor(e / cell) : std::ceil(e / cell);
                return static_cast<int>(std::clamp(cells, 1.0, double(kMaxDim)));
            };
            shape.dimX = dim(extent.x);
            shape.dimY = dim(extent.y);
            shape.dimZ = dim(extent.z);
            shape.cellSize = cell;
            if (shape.cellCount() <= maxCells) break;
            cell *= 1.26;  // about 2x fewer cells each round
        }
        return shape;
    }
};

/// Fish sorted by grid cell with a counting sort (count per cell, prefix sum, scatter): the
/// order behind every CPU neighbour search, the step's and the measures'.
struct CellSort {
    std::vector<std::uint32_t> fishCell;   ///< cell of each fish
    std::vector<std::uint32_t> cellStart;  ///< first sorted slot of each cell; cells + 1 long
    std::vector<std::uint32_t> order;      ///< the fish in each sorted slot

    /// Sorts fish 0..n-1 into `cells` cells, fish i into cellOf(i), and within a cell by
    /// `before(a, b)`, which must order any two fish (no ties), so the order depends only on the
    /// fish, not on how the work was split.
    /// parallelFor(count, grain, body) runs body(begin, end) over chunks covering [0, count), in
    /// any order or concurrently.
    template <class CellOfFish, class Before, class ParallelFor>
    void build(std::size_t n, std::size_t cells, CellOfFish&& cellOf, Before&& before,
               ParallelFor&& parallelFor) {
        constexpr std::size_t kGrain = 256;
        fishCell.resize(n);
        cellStart.assign(cells + 1, 0);
        order.resize(n);
        parallelFor(n, kGrain, [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) {
                const std::uint32_t cell = cellOf(i);
                fishCell[i] = cell;
                std::atomic_ref<std::uint32_t>(cellStart[cell + 1])
                    .fetch_add(1, std::memory_order_relaxed);
            }
        });
        std::partial_sum(cellStart.begin(), cellStart.end(), cellStart.begin());

        fill_.assign(cellStart.begin(), cellStart.end() - 1);
        // The fish come mostly in last step's order, so those of a cell come in runs: one atomic
        // add a run, not one a fish.
        parallelFor(n, kGrain, [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end;) {
                const std::uint32_t cell = fishCell[i];
                std::size_t runEnd = i + 1;
                while (runEnd < end && fishCell[runEnd] == cell) ++runEnd;
                const auto length = static_cast<std::uint32_t>(runEnd - i);
                const std::uint32_t slot = std::atomic_ref<std::uint32_t>(fill_[cell])
                                               .fetch_add(length, std::memory_order_relaxed);
                for (std::uint32_t k = 0; k < length; ++k)
                    order[slot + k] = static_cast<std::uint32_t>(i + k);
                i = runEnd;
            }
        });
        // Concurrent scatters fill a cell in any order: put each cell in `before` order.
        parallelFor(cells, 4096, [&](std::size_t begin, std::size_t end) {
            for (std::size_t cell = begin; cell < end; ++cell)
                std::sort(order.begin() + cellStart[cell], order.begin() + cellStart[cell + 1],
                          before);
        });
    }

  private:
    std::vector<std::uint32_t> fill_;  ///< scatter cursor per cell
};

}  // namespace fishschool
