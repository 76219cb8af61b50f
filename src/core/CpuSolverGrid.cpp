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
#include <tuple>
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

namespace {

// A fish's sort key (CpuSolver::sortKeys_): its cell, then its half-cell, then its id, and the
// top bit set where the fish changed cell or half-cell since the last sort. The cell's bits hold
// cells below 2^28 (kKeyedCells), far more than 16 million fish need; with more, every sort is a
// full one, by cell as CellSort::fishCell holds it, then by the key's half-cell and id.
constexpr int kKeyCellShift = 35, kKeyOctantShift = 32;
constexpr std::uint64_t kKeyMoved = std::uint64_t{1} << 63;
constexpr std::uint64_t kKeyWithinCell = (std::uint64_t{1} << kKeyCellShift) - 1;
constexpr std::size_t kKeyedCells = std::size_t{1} << 28;

/// The slots the sort deals in chunks of, each on one thread: fixed, so that what a chunk finds
/// does not depend on the split.
constexpr std::size_t kSortChunk = 2048;

/// The order is mended while at most one fish in this many changed cell or half-cell: the sort
/// of those that did is then short beside a sort of all.
constexpr std::size_t kMendMostMoversPart = 16;

}  // namespace

/// Sorts the fish by cell, half-cell and id (docs/model.md "Neighbour search"), reordering
/// current_ so that the fish of a cell, and of a row of cells, sit together in memory: within a
/// cell by half-cells so that a group of fish spans half a cell and searches fewer candidates
/// (packCandidates), then by upload index so that the sums depend only on the school, not on how
/// threads or earlier steps ordered it (a school saved and loaded again steps to the same bits).
/// The fish come in the order of the last sort, and between two steps a few in a hundred cross
/// into another cell or half-cell: the order is then mended (mendOrder), else sorted anew by
/// cell. Both give the one order of the keys, whatever the split across threads.
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
    // Each fish's key, and what each chunk of slots holds: its movers, the keys of the fish that
    // stayed, and whether those are in order.
    const bool mendable = slotCell_.size() == n && cells < kKeyedCells;
    const std::size_t chunks = (n + kSortChunk - 1) / kSortChunk;
    sortKeys_.resize(n);
    cells_.fishCell.resize(n);
    moverSlots_.resize(n);
    sortChunks_.resize(chunks);
    parallelFor_(chunks, 1, [&](std::size_t begin, std::size_t end) {
        const Arrays& a = *current_;
        for (std::size_t c = begin; c < end; ++c) {
            SortChunk chunk;
            // Eight fish at a time (the arrays hold eight past the last fish).
            std::array<std::uint32_t, 8> cells8{}, octants8{};
            for (std::size_t i = c * kSortChunk; i < std::min(n, (c + 1) * kSortChunk); ++i) {
                const std::size_t lane = i % 8;
                if (lane == 0 && !grid_.hashed)
                    grid_.slotsAndOctantsOf8(&a.px[i], &a.py[i], &a.pz[i], cells8.data(),
                                             octants8.data());
                else if (grid_.hashed)
                    std::tie(cells8[lane], octants8[lane]) =
                        grid_.slotAndOctantOf(a.px[i], a.py[i], a.pz[i]);
                const std::uint32_t cell = cells8[lane], octant = octants8[lane];
                cells_.fishCell[i] = cell;
                const std::uint64_t key = std::uint64_t{cell} << kKeyCellShift |
                                          std::uint64_t{octant} << kKeyOctantShift | ids_[i];
                if (mendable && (cell != slotCell_[i] || octant != slotOctant_[i])) {
                    sortKeys_[i] = key | kKeyMoved;
                    moverSlots_[c * kSortChunk + chunk.movers++] = static_cast<std::uint32_t>(i);
                    continue;
                }
                sortKeys_[i] = key;
                if (chunk.stayed++ == 0)
                    chunk.firstKey = key;
                else
                    chunk.inOrder = chunk.inOrder && chunk.lastKey < key;
                chunk.lastKey = key;
            }
            sortChunks_[c] = chunk;
        }
    });
    std::size_t moverCount = 0;
    for (const SortChunk& chunk : sortChunks_) moverCount += chunk.movers;

    claimNext();
    const Arrays& from = *current_;
    Arrays& to = *next_;
    // The kick clocks only where they tick: a steering without kicks copies none.
    const bool burst = (features_ & glsl::kFeatureBurst) != 0u;
    // Copies `count` fish from unsorted slot `slot` on to sorted slot `k`, through pointers held
    // in locals: a store of a half-cell's byte may alias anything, and would make every fish load
    // the arrays' addresses again.
    const std::array<const float*, 6> fromArrays = {from.px.data(), from.py.data(), from.pz.data(),
                                                    from.vx.data(), from.vy.data(), from.vz.data()};
    const std::array<float*, 6> toArrays = {to.px.data(), to.py.data(), to.pz.data(),
                                            to.vx.data(), to.vy.data(), to.vz.data()};
    const std::array<const float*, 3> fromAccelerations = {from.ax.data(), from.ay.data(),
                                                           from.az.data()};
    const std::array<float*, 3> toAccelerations = {to.ax.data(), to.ay.data(), to.az.data()};
    const float* const fromKick = from.kickClock.data();
    float* const toKick = to.kickClock.data();
    const std::uint32_t* const fromIds = ids_.data();
    std::uint32_t* const toIds = nextIds_.data();
    const std::uint64_t* const keys = sortKeys_.data();
    const std::uint32_t* const fishCells = cells_.fishCell.data();
    slotOctant_.resize(n);
    slotCell_.resize(n);
    std::uint32_t* const toCells = slotCell_.data();
    std::uint8_t* const toOctants = slotOctant_.data();
    const auto copy = [=](std::size_t slot, std::size_t k, std::size_t count) {
        for (std::size_t a = 0; a < fromArrays.size(); ++a)
            std::copy_n(fromArrays[a] + slot, count, toArrays[a] + k);
        std::copy_n(fromIds + slot, count, toIds + k);
        std::copy_n(fishCells + slot, count, toCells + k);
        for (std::size_t j = 0; j < count; ++j)
            toOctants[k + j] = static_cast<std::uint8_t>(keys[slot + j] >> kKeyOctantShift & 7u);
        if (burst) std::copy_n(fromKick + slot, count, toKick + k);
        if (keepAccelerations)
            for (std::size_t a = 0; a < fromAccelerations.size(); ++a)
                std::copy_n(fromAccelerations[a] + slot, count, toAccelerations[a] + k);
    };
    const bool mended =
        mendable && moverCount <= n / kMendMostMoversPart && mendOrder(moverCount, copy);
    if (!mended) {
        cells_.build(
            n, cells, [&](std::size_t i) { return cells_.fishCell[i]; },
            [&](std::uint32_t a, std::uint32_t b) {
                return (sortKeys_[a] & kKeyWithinCell) < (sortKeys_[b] & kKeyWithinCell);
            },
            parallelFor_);
        parallelFor_(n, kGridGrain, [&](std::size_t begin, std::size_t end) {
            // Runs of fish that keep their order, a copy each.
            for (std::size_t k = begin; k < end;) {
                const std::uint32_t slot = cells_.order[k];
                std::size_t count = 1;
                while (k + count < end && cells_.order[k + count] == slot + count) ++count;
                copy(slot, k, count);
                k += count;
            }
        });
    } else {
        // Each cell's first slot: the slots are in order of their cells, so each cell's is
        // written once, by the slot that begins it or follows the empty cells before it.
        cells_.cellStart.resize(cells + 1);
        parallelFor_(n + 1, kGridGrain, [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end; ++k) {
                const std::size_t low = k == 0 ? 0 : std::size_t{slotCell_[k - 1]} + 1;
                const std::size_t high = k == n ? cells : std::size_t{slotCell_[k]};
                for (std::size_t cell = low; cell <= high; ++cell)
                    cells_.cellStart[cell] = static_cast<std::uint32_t>(k);
            }
        });
    }
    // The sorted copy becomes the previous state; its ids follow it.
    std::swap(current_, next_);
    std::swap(ids_, nextIds_);
}

/// The fish that kept their cell and half-cell since the last sort are still in order among
/// themselves; the movers are sorted and merged in. A chunk of slots merges its fish that stayed
/// with the movers that fall between them, from the place its counts before it give, and copies
/// each fish there (`copy(slot, sortedSlot, count)`) as it goes: the fish that stayed are read
/// and written in runs. Returns false, with nothing copied, where no fish stayed, or where the
/// fish that stayed are out of order: never after a sort of this solver's, whose order only this
/// sort changes, but the order must not rest on that.
template <class Copy>
bool CpuSolver::mendOrder(std::size_t moverCount, const Copy& copy) {
    const std::size_t n = size();
    std::size_t stayedBefore = 0, moversBefore = 0;
    SortChunk* previous = nullptr;
    movers_.resize(moverCount);
    for (std::size_t c = 0; c < sortChunks_.size(); ++c) {
        SortChunk& chunk = sortChunks_[c];
        if (!chunk.inOrder) return false;
        for (std::size_t m = 0; m < chunk.movers; ++m) {
            const std::uint32_t slot = moverSlots_[c * kSortChunk + m];
            movers_[moversBefore + m] = {sortKeys_[slot] & ~kKeyMoved, slot};
        }
        moversBefore += chunk.movers;
        if (chunk.stayed == 0) continue;
        if (previous != nullptr && !(previous->lastKey < chunk.firstKey)) return false;
        previous = &chunk;
    }
    if (previous == nullptr) return false;
    // Keys are distinct (ids are): the order is the one order of the keys.
    std::sort(movers_.begin(), movers_.end());
    previous = nullptr;
    for (SortChunk& chunk : sortChunks_) {
        if (chunk.stayed == 0) continue;
        // The movers before the first key go to the first chunk that holds a fish that stayed,
        // those after a chunk's last key, up to the next such chunk's first, to it.
        chunk.moversFrom =
            previous == nullptr
                ? 0
                : static_cast<std::size_t>(
                      std::lower_bound(movers_.begin(), movers_.end(),
                                       std::pair<std::uint64_t, std::uint32_t>{chunk.firstKey, 0}) -
                      movers_.begin());
        if (previous != nullptr) previous->moversTo = chunk.moversFrom;
        chunk.writeAt = stayedBefore + chunk.moversFrom;
        stayedBefore += chunk.stayed;
        previous = &chunk;
    }
    previous->moversTo = moverCount;

    parallelFor_(sortChunks_.size(), 1, [&](std::size_t begin, std::size_t end) {
        for (std::size_t c = begin; c < end; ++c) {
            const SortChunk& chunk = sortChunks_[c];
            if (chunk.stayed == 0) continue;
            std::size_t at = chunk.writeAt, m = chunk.moversFrom;
            // The fish that stayed in runs, each run copied at once: from runStart, `run` long.
            std::size_t runStart = 0, run = 0;
            const auto copyMover = [&] { copy(movers_[m++].second, at++, 1); };
            for (std::size_t i = c * kSortChunk; i < std::min(n, (c + 1) * kSortChunk); ++i) {
                const std::uint64_t key = sortKeys_[i];
                const bool moved = (key & kKeyMoved) != 0u;
                if (moved || (m < chunk.moversTo && movers_[m].first < key)) {
                    copy(runStart, at, run);
                    at += run;
                    run = 0;
                    if (moved) continue;
                    while (m < chunk.moversTo && movers_[m].first < key) copyMover();
                }
                if (run++ == 0) runStart = i;
            }
            copy(runStart, at, run);
            at += run;
            while (m < chunk.moversTo) copyMover();
        }
    });
    return true;
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
