// The grid of the CPU step: its shape, the sort of the fish by cell (buildGrid) and the
// candidate ranges of a cell (gatherCandidateRanges), which the step's files call once a cell;
// neighborsOf for tests. The lookups the step makes for every fish or group are inline in
// CpuSolverInternals.h, the packing of a group's candidates in CpuSolverStep.h.

#include "CpuSolver.h"

#include "CpuSolverInternals.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace fishschool {

using namespace cpu_solver;

GridShape CpuSolver::gridShape() const {
    if (params_.boundary == Boundary::Open)
        return GridShape::forOpenWater(maxRadius(params_), 2 * size() + 64, kCellsPerRadius);
    return GridShape::forTank(gridBounds(params_), maxRadius(params_), 2 * size() + 64,
                              kCellsPerRadius, params_.boundary == Boundary::Periodic);
}

std::pair<glm::vec3, glm::vec3> CpuSolver::schoolBounds() const {
    // Chunks of fixed size, each on one thread, so no two threads share a box.
    const std::size_t n = size(), chunks = (n + kGridGrain - 1) / kGridGrain;
    std::vector<std::array<float, 6>> boxes(chunks);
    const Arrays& a = *current_;
    parallelFor_(chunks, 1, [&](std::size_t begin, std::size_t end) {
        for (std::size_t c = begin; c < end; ++c) {
            constexpr float kInf = std::numeric_limits<float>::infinity();
            std::array<float, 6> box{kInf, kInf, kInf, -kInf, -kInf, -kInf};
            // A NaN compares false and is left out: the box's grid clamps its fish into a border
            // cell, where no distance to it is ever within a radius.
            for (std::size_t i = c * kGridGrain; i < std::min(n, (c + 1) * kGridGrain); ++i) {
                box[0] = a.px[i] < box[0] ? a.px[i] : box[0];
                box[1] = a.py[i] < box[1] ? a.py[i] : box[1];
                box[2] = a.pz[i] < box[2] ? a.pz[i] : box[2];
                box[3] = a.px[i] > box[3] ? a.px[i] : box[3];
                box[4] = a.py[i] > box[4] ? a.py[i] : box[4];
                box[5] = a.pz[i] > box[5] ? a.pz[i] : box[5];
            }
            boxes[c] = box;
        }
    });
    glm::vec3 low(std::numeric_limits<float>::infinity()), high(-low);
    for (const auto& box : boxes) {
        low = glm::min(low, glm::vec3(box[0], box[1], box[2]));
        high = glm::max(high, glm::vec3(box[3], box[4], box[5]));
    }
    return {low, high};
}

bool CpuSolver::usesGrid() const {
    if (params_.neighborSearch != NeighborSearch::Grid || !(maxRadius(params_) > 0.0f))
        return false;
    return params_.boundary != Boundary::Periodic || gridShape().holdsWrappedSearch();
}

/// Counting sort of the fish by cell: count, prefix sum, scatter, then reorder current_ so that
/// the fish of a cell, and of a row of cells, sit together in memory.
void CpuSolver::buildGrid(bool keepAccelerations) {
    const std::size_t n = size();
    grid_ = gridShape();
    if (grid_.hashed) {
        // Open water: a school that keeps together is searched as a tank's grid of the cells it
        // spans.
        const auto [low, high] = schoolBounds();
        grid_ = grid_.forSchoolWithin(low, high);
    }
    const std::size_t cells = grid_.cellCount();
    // Within a cell by half-cells, so that a group of fish spans half a cell and searches fewer
    // candidates (packCandidates), then by upload index, so the sums depend only on the school,
    // not on how threads or earlier steps ordered it (a school saved and loaded again steps to
    // the same bits).
    fishOctant_.resize(n);
    cells_.build(
        n, cells,
        [&](std::size_t i) {
            const auto [slot, octant] =
                grid_.slotAndOctantOf(current_->px[i], current_->py[i], current_->pz[i]);
            fishOctant_[i] = static_cast<std::uint8_t>(octant);
            return slot;
        },
        [&](std::uint32_t a, std::uint32_t b) {
            return fishOctant_[a] != fishOctant_[b] ? fishOctant_[a] < fishOctant_[b]
                                                    : ids_[a] < ids_[b];
        },
        parallelFor_);
    slotOctant_.resize(n);

    claimNext();
    const Arrays& from = *current_;
    Arrays& to = *next_;
    // The kick clocks only where they tick: a steering without kicks copies none.
    const bool burst = (features_ & glsl::kFeatureBurst) != 0u;
    parallelFor_(n, kGridGrain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) {
            const std::uint32_t slot = cells_.order[k];
            to.px[k] = from.px[slot];
            to.py[k] = from.py[slot];
            to.pz[k] = from.pz[slot];
            to.vx[k] = from.vx[slot];
            to.vy[k] = from.vy[slot];
            to.vz[k] = from.vz[slot];
            nextIds_[k] = ids_[slot];
            slotOctant_[k] = fishOctant_[slot];
            if (burst) to.kickClock[k] = from.kickClock[slot];
            if (keepAccelerations) {
                to.ax[k] = from.ax[slot];
                to.ay[k] = from.ay[slot];
                to.az[k] = from.az[slot];
            }
        }
    });
    // The sorted copy becomes the previous state; its ids follow it.
    std::swap(current_, next_);
    std::swap(ids_, nextIds_);
}

void CpuSolver::gatherCandidateRanges(const glm::ivec3& cell, CandidateRanges& out) const {
    static_assert(kCellsPerRadius == 1, "CandidateRanges holds the rows of a reach of 1");
    const int r = grid_.reach;
    std::size_t count = 0;
    // The cells x0..x1 of one row are contiguous, hence one contiguous range.
    const auto tankRow = [&](int x0, int x1, int y, int z, bool acrossFace) {
        return CandidateRange{cells_.cellStart[grid_.index({x0, y, z})],
                              cells_.cellStart[grid_.index({x1, y, z}) + 1], acrossFace};
    };
    if (!grid_.hashed && params_.boundary != Boundary::Periodic) {
        // Walls, or open water in the box of cells its fish span.
        const int x0 = std::max(cell.x - r, 0), x1 = std::min(cell.x + r, grid_.dimX - 1);
        for (int z = std::max(cell.z - r, 0); z <= std::min(cell.z + r, grid_.dimZ - 1); ++z)
            for (int y = std::max(cell.y - r, 0); y <= std::min(cell.y + r, grid_.dimY - 1); ++y)
                out.ranges[count++] = tankRow(x0, x1, y, z, false);
    } else if (grid_.hashed) {
        // Open water: each row of 3 cells is a run of 3 buckets (two runs past the table's end).
        // Rows of distinct (y, z) may share buckets: the runs are merged so that no bucket is
        // searched twice.
        const std::uint32_t mask = grid_.bucketMask();
        std::array<std::pair<std::uint32_t, std::uint32_t>, CandidateRanges::kMost> runs;
        std::size_t runCount = 0;
        for (int dz = -r; dz <= r; ++dz) {
            for (int dy = -r; dy <= r; ++dy) {
                const std::uint32_t first = grid_.bucket({cell.x - r, cell.y + dy, cell.z + dz});
                const std::uint32_t last = first + static_cast<std::uint32_t>(2 * r);
                if (last > mask) {
                    runs[runCount++] = {first, mask};
                    runs[runCount++] = {0u, last & mask};
                } else {
                    runs[runCount++] = {first, last};
                }
            }
        }
        // Mostly no run wraps or overlaps another: then they are searched as they come, unsorted.
        bool apart = runCount == static_cast<std::size_t>((2 * r + 1) * (2 * r + 1));
        for (std::size_t a = 0; a < runCount && apart; ++a)
            for (std::size_t b = a + 1; b < runCount; ++b)
                apart &= (runs[a].first > runs[b].first
                              ? runs[a].first - runs[b].first
                              : runs[b].first - runs[a].first) > static_cast<std::uint32_t>(2 * r);
        if (apart) {
            for (std::size_t k = 0; k < runCount; ++k)
                out.ranges[count++] = {cells_.cellStart[runs[k].first],
                                       cells_.cellStart[runs[k].second + 1u], false};
            runCount = 0;
        }
        std::sort(runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(runCount));
        for (std::size_t k = 0; k < runCount;) {
            std::uint32_t first = runs[k].first, last = runs[k].second;
            for (++k; k < runCount && runs[k].first <= last + 1u; ++k)
                last = std::max(last, runs[k].second);
            out.ranges[count++] = {cells_.cellStart[first], cells_.cellStart[last + 1u], false};
        }
    } else {
        // A periodic tank: the cells wrap round (the grid holds at least 2r + 1 on each axis, so
        // none is visited twice), and a wrapped cell's fish are seen at their nearest image,
        // one tank size away (the one within reach: the tank is at least 3 radii wide); `image`
        // is what nearestImageLanes takes from their offsets, size * whole tanks.
        const glm::vec3 tankSize = 2.0f * params_.bounds;
        const auto wrapped = [](int c, int dim, float size, float& image) {
            image = c < 0 ? size : (c >= dim ? -size : 0.0f);
            return c < 0 ? c + dim : (c >= dim ? c - dim : c);
        };
        const auto wrappedRow = [&](int x0, int x1, int y, int z, const glm::vec3& image) {
            CandidateRange range = tankRow(x0, x1, y, z, image != glm::vec3(0.0f));
            range.image = image;
            return range;
        };
        const int x0 = cell.x - r, x1 = cell.x + r;
        glm::vec3 image(0.0f);
        for (int dz = -r; dz <= r; ++dz) {
            const int z = wrapped(cell.z + dz, grid_.dimZ, tankSize.z, image.z);
            // A flat grid (2D) is one layer, which holds every fish: nothing to wrap in y.
            const int ry = grid_.flat ? 0 : r;
            for (int dy = -ry; dy <= ry; ++dy) {
                const int y = wrapped(cell.y + dy, grid_.dimY, tankSize.y, image.y);
                // The row within the grid, then the part past either end (one at most: the grid
                // holds 2r + 1 cells), from the other end.
                image.x = 0.0f;
                out.ranges[count++] =
                    wrappedRow(std::max(x0, 0), std::min(x1, grid_.dimX - 1), y, z, image);
                if (x0 < 0) {
                    image.x = tankSize.x;
                    out.ranges[count++] = wrappedRow(x0 + grid_.dimX, grid_.dimX - 1, y, z, image);
                } else if (x1 >= grid_.dimX) {
                    image.x = -tankSize.x;
                    out.ranges[count++] = wrappedRow(0, x1 - grid_.dimX, y, z, image);
                }
            }
        }
    }
    out.count = count;
}

void CpuSolver::allCandidateRanges(CandidateRanges& out) const {
    out.count = 0;
    if (maxRadius(params_) > 0.0f)
        out.ranges[out.count++] = {0, size(), params_.boundary == Boundary::Periodic};
}

std::vector<std::uint32_t> CpuSolver::neighborsOf(std::uint32_t uploadIndex, float radius) {
    const bool useGrid = usesGrid();
    if (useGrid) buildGrid(/*keepAccelerations=*/true);
    const auto slot =
        static_cast<std::size_t>(std::find(ids_.begin(), ids_.end(), uploadIndex) - ids_.begin());
    std::vector<std::uint32_t> found;
    if (slot >= size()) return found;
    const float r2 = radius * radius;
    StepRule<0u> rule(stepParams_, nullptr, nullptr);
    CandidateRanges candidates;
    if (useGrid)
        gatherCandidateRanges(searchCellOf(slot), candidates);
    else
        allCandidateRanges(candidates);
    const glm::vec3 p(current_->px[slot], current_->py[slot], current_->pz[slot]);
    for (const CandidateRange& range : candidates) {
        for (std::size_t j = range.first; j < range.last; ++j) {
            // Between walls and in open water the fish itself; in a periodic tank its nearest
            // image.
            const glm::vec3 d =
                rule.nearestImage(glm::vec3(current_->px[j], current_->py[j], current_->pz[j]) - p);
            const float dx = d.x, dy = d.y, dz = d.z;
            if (j != slot && dx * dx + dy * dy + dz * dz < r2) found.push_back(ids_[j]);
        }
    }
    std::sort(found.begin(), found.end());
    return found;
}

}  // namespace fishschool
