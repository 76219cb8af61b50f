#pragma once

// The templates of the CPU step, for the step's files alone (CpuSolverStep0.cpp to
// CpuSolverStep3.cpp, each the sets of behaviours CpuSolver::stepFileOf deals it): the
// eight-lane helpers, the packing of a group's candidates (packCandidates), the neighbour sums
// (RangeAccumulator, sumNeighbours<search>) and the rule of each fish (stepRange<features>,
// eight fish at a time for the sets of stepsInLanes). The packing and the sums are compiled
// beside the rule, in each file that calls them, not in a file of their own: in a portable build
// the rule's clone for one instruction set calls their clone for that set by a name local to the
// file that defines it (a link error across files), and with the sums and the grid's lookups in
// other files the step was 8 to 13 % slower (docs/performance-log.md).

#include "CpuSolverInternals.h"
#include "NeighbourSumsAvx512.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <type_traits>
#include <utility>

namespace fishschool {
namespace cpu_solver {

/// Keeps the lanes of x where mask is all ones, zeroes the others (exactly: adding 0 to a sum
/// leaves it unchanged).
inline Floats select(Ints mask, Floats x) {
    return reinterpret_cast<Floats>(mask & reinterpret_cast<Ints>(x));
}

/// 1 / sqrt(x) in each lane with x > 0, and 0 in the others.
inline Floats inverseLengths(Floats d2) {
    Floats result{};
    for (int l = 0; l < kLanes; ++l) result[l] = d2[l] > 0.0f ? 1.0f / std::sqrt(d2[l]) : 0.0f;
    return result;
}

/// Row l < 8: every lane but lane l; row 8: every lane. The mask that leaves a fish out of its
/// own sums, read from memory rather than compared lane by lane in every block.
alignas(32) inline constexpr std::int32_t kAllButLane[kLanes + 1][kLanes] = {
    {0, -1, -1, -1, -1, -1, -1, -1}, {-1, 0, -1, -1, -1, -1, -1, -1},
    {-1, -1, 0, -1, -1, -1, -1, -1}, {-1, -1, -1, 0, -1, -1, -1, -1},
    {-1, -1, -1, -1, 0, -1, -1, -1}, {-1, -1, -1, -1, -1, 0, -1, -1},
    {-1, -1, -1, -1, -1, -1, 0, -1}, {-1, -1, -1, -1, -1, -1, -1, 0},
    {-1, -1, -1, -1, -1, -1, -1, -1}};

/// The lanes of the block of slots from `first` that are not slot `self`.
inline Ints notSelf(std::size_t first, std::size_t self) {
    Ints mask;
    // self - first wraps round to a huge value where self < first.
    std::memcpy(&mask, kAllButLane[std::min<std::size_t>(self - first, kLanes)], sizeof mask);
    return mask;
}

/// True when every lane is zero.
inline bool none(Ints mask) {
    std::uint64_t words[sizeof(Ints) / sizeof(std::uint64_t)];
    std::memcpy(words, &mask, sizeof words);
    std::uint64_t any = 0;
    for (std::uint64_t w : words) any |= w;
    return any == 0;
}

/// Bit l set where lane l of mask is set.
inline unsigned laneBits(Ints mask) {
#if defined(__x86_64__) && !defined(__clang__)
    // Each half's signs by movmskps, which every x86-64 has: two instructions where the shuffles
    // below take seven, and the search of the k nearest asks this of every block.
    using Half = float __attribute__((vector_size(16)));
    Half low, high;
    std::memcpy(&low, &mask, sizeof low);
    std::memcpy(&high, reinterpret_cast<const char*>(&mask) + sizeof low, sizeof high);
    return static_cast<unsigned>(__builtin_ia32_movmskps(low) |
                                 (__builtin_ia32_movmskps(high) << 4));
#else
    Ints bits = mask & Ints{1, 2, 4, 8, 16, 32, 64, 128};
#if defined(__clang__)
    bits |= __builtin_shufflevector(bits, bits, 4, 5, 6, 7, 0, 1, 2, 3);
    bits |= __builtin_shufflevector(bits, bits, 2, 3, 0, 1, 6, 7, 4, 5);
    bits |= __builtin_shufflevector(bits, bits, 1, 0, 3, 2, 5, 4, 7, 6);
#else
    bits |= __builtin_shuffle(bits, Ints{4, 5, 6, 7, 0, 1, 2, 3});
    bits |= __builtin_shuffle(bits, Ints{2, 3, 0, 1, 6, 7, 4, 5});
    bits |= __builtin_shuffle(bits, Ints{1, 0, 3, 2, 5, 4, 7, 6});
#endif
    return static_cast<unsigned>(bits[0]);
#endif
}

/// The lanes of `bits` of `from`'s block at `at`, packed to the front of `to`'s block at `out`
/// (all eight lanes written: what follows the packed ones the next block overwrites).
template <class T>
inline void packBlock(const T* from, std::size_t at, T* to, std::size_t out, unsigned bits) {
    using Lanes = std::conditional_t<std::is_same_v<T, float>, Floats, Ints>;
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, std::int32_t>);
    Ints order;
    std::memcpy(&order, avx512::kPackOrders.lanes[bits], sizeof order);
    Lanes block, packed;
    std::memcpy(&block, from + at, sizeof block);
#if defined(__clang__)
    for (int l = 0; l < kLanes; ++l) packed[l] = block[order[l]];
#else
    packed = __builtin_shuffle(block, order);
#endif
    std::memcpy(to + out, &packed, sizeof packed);
}

/// The nearest image of offsets d in a periodic tank of size `size` on that axis (step_rule.h's
/// nearestImage, eight lanes at a time).
inline Floats nearestImageLanes(Floats d, float size) {
    Floats whole;
    for (int l = 0; l < kLanes; ++l) whole[l] = std::floor(d[l] / size + 0.5f);
    return d - size * whole;
}

/// How a range's offsets reach their nearest image in a periodic tank: not at all (walls, open
/// water, or a range that lies within the tank), by each candidate's known image (imageX, Y, Z:
/// a cell's candidates with a wrapped row) or found lane by lane (every pair).
enum class Images { None, PerCandidate, LaneByLane };

/// Accumulates fish [begin, end) into the neighbour sums of fish `self`. With kFieldOfView
/// false the view test is not compiled in at all; with kInverseSquare each separation offset is
/// divided by its squared length (a neighbour at distance 0 adds nothing, as its offset is 0).
/// kCouzin: neighbor_sums.glsl's sums for steering "couzin" (unit offsets, attraction from the
/// shell beyond rAlignment only). kVicsek: the alignment sum adds unit headings (steering
/// "vicsek").
/// kSpecies: the neighbours' species and kinetic energies are read (kFeatureSpecies), for the
/// species a fish schools with, separation scaled by kinetic energy and the sidestep sum, each
/// compiled in but run only where the fish's species has it on.
/// neighborSelection "topological": the k nearest candidates within reach seen so far, as
/// (d2, id) in order, ties by the lower id, with where each sits among the candidates
/// (neighbor_sums.glsl keeps the same set on the GPU). For k up to kLanes the kept sit in the
/// lanes of three vectors, and a candidate goes in by a comparison and a shift of every lane at
/// once: no loop whose length the processor has to guess; past it, in arrays.
struct NearestKeeper {
    std::array<float, kMaxNeighborCount> d2;
    std::array<std::int32_t, kMaxNeighborCount> id;
    std::array<std::size_t, kMaxNeighborCount> slot;
    Floats laneD2;  ///< k <= kLanes: the kept's d2, ids and slots, +inf and INT32_MAX past k
    Ints laneId, laneSlot;
    std::uint32_t count = 0, k = 1;
    bool inLanes = true;
    float worstD2 = INFINITY;  ///< the k-th's d2 once there are k, else +inf
    std::int32_t worstId = 0;

    void start(std::uint32_t keep) {
        k = keep;
        count = 0;
        inLanes = k <= kLanes;
        worstD2 = INFINITY;
        laneD2 = Floats{} + INFINITY;
        laneId = Ints{} + std::numeric_limits<std::int32_t>::max();
        laneSlot = Ints{};
    }
    static bool nearer(float a, std::int32_t ia, float b, std::int32_t ib) {
        return a < b || (a == b && ia < ib);
    }
    /// Past this a candidate is not kept (ties aside): the k-th's distance, once there are k.
    float worst() const { return worstD2; }
    void consider(float dd, std::int32_t who, std::size_t where) {
        if (count == k && !nearer(dd, who, worstD2, worstId)) return;
        if (inLanes) {
            considerInLanes(dd, who, static_cast<std::int32_t>(where));
            return;
        }
        std::uint32_t at = count < k ? count++ : k - 1;
        for (; at > 0 && nearer(dd, who, d2[at - 1], id[at - 1]); --at) {
            d2[at] = d2[at - 1];
            id[at] = id[at - 1];
            slot[at] = slot[at - 1];
        }
        d2[at] = dd;
        id[at] = who;
        slot[at] = where;
        if (count == k) {
            worstD2 = d2[k - 1];
            worstId = id[k - 1];
        }
    }
    /// Puts (dd, who, where) into eight lanes held in order by (d2, id), the candidate after
    /// any of equal (d2, id) (one fish seen through two images goes after the one seen first, as
    /// in the arrays past kLanes). Those nearer are a prefix of the lanes, so the candidate's
    /// lane is the first whose lane before is nearer: found with a shuffle rather than a count.
    static void insertInLanes(Floats& d2s, Ints& ids, Ints& slots, float dd, std::int32_t who,
                              std::int32_t where) {
        const Ints shift = {0, 0, 1, 2, 3, 4, 5, 6};
        const Ints before = (d2s < dd) | ((d2s == dd) & (ids <= who));
        const Ints previous = __builtin_shuffle(before, shift) | Ints{-1, 0, 0, 0, 0, 0, 0, 0};
        d2s = before ? d2s : (previous ? Floats{} + dd : __builtin_shuffle(d2s, shift));
        ids = before ? ids : (previous ? Ints{} + who : __builtin_shuffle(ids, shift));
        slots = before ? slots : (previous ? Ints{} + where : __builtin_shuffle(slots, shift));
    }
    /// Lanes from k on +inf again: the k-th is the last kept.
    void emptyLanesFromK() {
        const Ints beyond = Ints{0, 1, 2, 3, 4, 5, 6, 7} >= static_cast<std::int32_t>(k);
        laneD2 = beyond ? Floats{} + INFINITY : laneD2;
        laneId = beyond ? Ints{} + std::numeric_limits<std::int32_t>::max() : laneId;
    }
    void considerInLanes(float dd, std::int32_t who, std::int32_t where) {
        insertInLanes(laneD2, laneId, laneSlot, dd, who, where);
        emptyLanesFromK();
        if (count < k) ++count;
        if (count == k) {
            worstD2 = laneD2[k - 1];
            worstId = laneId[k - 1];
        }
    }
    // Collecting (k <= kLanes): every candidate within a guessed distance is noted, a block of
    // lanes at a time with no branch, and the k nearest then kept among those noted. Where k or
    // more lie within the guess, the k nearest are among them: the same kept as considering every
    // candidate in turn, which branches on each block and inserts many before its k-th narrows.
    // (One fish seen through two images at one distance, a tie of (d2, id), ranks as seen.)
    static constexpr std::uint32_t kCollectMost = 128;
    bool collecting = false, overflowed = false;
    // A size_t and stores of float and int lanes, not memcpy's, which may write anything: so
    // the count stays in a register across a run's blocks rather than in memory.
    std::size_t collected = 0;
    using FloatsAnywhere = float __attribute__((vector_size(kLanes * sizeof(float)), aligned(4)));
    using IntsAnywhere =
        std::int32_t __attribute__((vector_size(kLanes * sizeof(std::int32_t)), aligned(4)));
    alignas(32) std::array<float, kCollectMost + kLanes> collectedD2;
    alignas(32) std::array<std::int32_t, kCollectMost + kLanes> collectedId, collectedSlot;

    void collectWithin(float limitD2) {
        collecting = true;
        overflowed = false;
        collected = 0;
        worstD2 = limitD2;  // what worst() tells the search: no candidate beyond is noted
    }
    /// The lanes of `bits` of a block at `at`: their d2, ids and slots, packed after those noted.
    void collectBlock(Floats d2, const std::int32_t* ids, std::size_t at, unsigned bits) {
        if (collected > kCollectMost - kLanes) {
            overflowed = true;
            return;
        }
        Ints order, theirs;
        std::memcpy(&order, avx512::kPackOrders.lanes[bits], sizeof order);
        std::memcpy(&theirs, ids + at, sizeof theirs);
        const Ints slots = Ints{0, 1, 2, 3, 4, 5, 6, 7} + static_cast<std::int32_t>(at);
        const Floats packedD2 = __builtin_shuffle(d2, order);
        const Ints packedIds = __builtin_shuffle(theirs, order),
                   packedSlots = __builtin_shuffle(slots, order);
        *reinterpret_cast<FloatsAnywhere*>(collectedD2.data() + collected) = packedD2;
        *reinterpret_cast<IntsAnywhere*>(collectedId.data() + collected) = packedIds;
        *reinterpret_cast<IntsAnywhere*>(collectedSlot.data() + collected) = packedSlots;
        collected += static_cast<std::size_t>(std::popcount(bits));
    }
    /// After collecting: whether the k nearest are among those noted, and if so, kept in order.
    /// Each noted one goes into eight lanes in order (insertInLanes), with no branch: the eight
    /// nearest so far, of which the first k are kept.
    bool keepCollected() {
        collecting = false;
        const bool enough = !overflowed && collected >= k;
        start(k);
        if (!enough) return false;
        // In locals, which stay in registers across the loop.
        Floats nearD2 = laneD2;
        Ints nearId = laneId, nearSlot = laneSlot;
        for (std::size_t i = 0; i < collected; ++i)
            insertInLanes(nearD2, nearId, nearSlot, collectedD2[i], collectedId[i],
                          collectedSlot[i]);
        laneD2 = nearD2;
        laneId = nearId;
        laneSlot = nearSlot;
        emptyLanesFromK();
        count = k;
        worstD2 = laneD2[k - 1];
        worstId = laneId[k - 1];
        return true;
    }

    /// Where the n-th kept sits among the candidates.
    std::size_t slotOf(std::size_t n) const {
        return inLanes ? static_cast<std::size_t>(laneSlot[n]) : slot[n];
    }
};

/// The k nearest gathered, in their order, padded as the arrays are: what the sums then read.
struct KeptCandidates {
    static constexpr std::size_t kSize = kMaxNeighborCount + kLanes;
    // Not zeroed whole (a few kilobytes a fish): the kept and the block after them are written.
    std::array<float, kSize> px, py, pz, vx, vy, vz, imageX, imageY, imageZ;
    std::array<std::int32_t, kSize> species;
    std::array<float, kSize> energy;

    /// Zeros from `count` to the end of its block: lanes a search reads and masks off.
    void padFrom(std::size_t count) {
        for (std::size_t k = count; k < count + kLanes; ++k) {
            px[k] = py[k] = pz[k] = vx[k] = vy[k] = vz[k] = 0.0f;
            imageX[k] = imageY[k] = imageZ[k] = energy[k] = 0.0f;
            species[k] = 0;
        }
    }
};

struct NoNearest {};

template <bool kFieldOfView, bool kInverseSquare, bool kCouzin, bool kSpecies, bool kVicsek,
          bool kTopological = false>
struct RangeAccumulator {
    static constexpr bool kReadsSpecies = kSpecies;
    const float* imageX = nullptr;
    const float* imageY = nullptr;
    const float* imageZ = nullptr;
    glm::vec3 tankSize{0.0f};   ///< Images::LaneByLane: the periodic tank's size on each axis
    bool seesAllAround = true;  ///< this fish stands still: no view test
    glm::vec3 heading{0.0f};    ///< unit heading of the fish, for the field of view
    Floats cx{}, cy{}, cz{}, sx{}, sy{}, sz{}, ax{}, ay{}, az{};
    Ints nc{}, ns{}, na{};

    // kSpecies only.
    const std::int32_t* slotSpecies = nullptr;  ///< the species of each slot
    const float* slotEnergy = nullptr;          ///< the kinetic energy of each slot
    std::int32_t species = 0;                   ///< this fish's
    bool ownSpeciesOnly = false;                ///< cohesion and alignment over its species only
    bool energyScaling = false;                 ///< separation offsets times KE_j / KE_i
    float energy = 0.0f;                        ///< KE_i
    bool sidestep = false;                      ///< the sidestep sum
    glm::vec3 velocity{0.0f};                   ///< v_i, for the closing speeds
    Floats tx{}, ty{}, tz{};                    ///< the sidestep sum

    // kTopological only: each candidate's id; the first pass (finding) keeps the k nearest,
    // the second sums those alone, gathered (KeptCandidates).
    const std::int32_t* ids = nullptr;
    bool finding = false;
    [[no_unique_address]] std::conditional_t<kTopological, NearestKeeper, NoNearest> nearest;

    /// kSkipFarBlocks: test whole blocks against maxRadius2 first.
    template <Images kImages, bool kSkipFarBlocks>
    [[gnu::always_inline]] void add(const SearchConstants& c, const float* px, const float* py,
                                    const float* pz, const float* vx, const float* vy,
                                    const float* vz, std::size_t begin, std::size_t end,
                                    std::size_t self, float pix, float piy, float piz) {
        // Whole blocks use every lane but in the one block that holds the fish itself: it is
        // masked off there alone, and the others test no mask.
        const Ints everyLane = Ints{} - 1;
        const std::size_t wholeEnd = begin + (end - begin) / kLanes * kLanes;
        const std::size_t selfBlock =
            self >= begin && self < wholeEnd ? self - (self - begin) % kLanes : wholeEnd;
        const auto blocks = [&](std::size_t from, std::size_t to) {
            for (std::size_t j = from; j < to; j += kLanes)
                accumulateBlock<kImages, kSkipFarBlocks>(c, px, py, pz, vx, vy, vz, j, everyLane,
                                                         pix, piy, piz);
        };
        blocks(begin, selfBlock);
        if (selfBlock < wholeEnd) {
            accumulateBlock<kImages, kSkipFarBlocks>(c, px, py, pz, vx, vy, vz, selfBlock,
                                                     notSelf(selfBlock, self), pix, piy, piz);
            blocks(selfBlock + kLanes, wholeEnd);
        }
        if (wholeEnd < end) {
            // The last partial block: the arrays are padded, so a full block can be read and the
            // lanes past `end` masked off.
            const Ints laneOffsets = {0, 1, 2, 3, 4, 5, 6, 7};
            const Ints inRange = (laneOffsets + static_cast<std::int32_t>(wholeEnd)) <
                                 static_cast<std::int32_t>(end);
            accumulateBlock<kImages, kSkipFarBlocks>(c, px, py, pz, vx, vy, vz, wholeEnd,
                                                     inRange & notSelf(wholeEnd, self), pix, piy,
                                                     piz);
        }
    }

    template <Images kImages, bool kSkipFarBlocks>
    [[gnu::always_inline]] void accumulateBlock(const SearchConstants& c, const float* px,
                                                const float* py, const float* pz, const float* vx,
                                                const float* vy, const float* vz, std::size_t j,
                                                Ints use, float pix, float piy, float piz) {
        Floats dx = load(px + j) - pix, dy = load(py + j) - piy, dz = load(pz + j) - piz;
        if constexpr (kImages == Images::PerCandidate) {
            // The same bits as nearestImageLanes for every fish within reach: d - size * 1,
            // d - size * -1 or d - size * 0.
            dx -= load(imageX + j);
            dy -= load(imageY + j);
            dz -= load(imageZ + j);
        } else if constexpr (kImages == Images::LaneByLane) {
            dx = nearestImageLanes(dx, tankSize.x);
            dy = nearestImageLanes(dy, tankSize.y);
            dz = nearestImageLanes(dz, tankSize.z);
        }
        const Floats d2 = dx * dx + dy * dy + dz * dz;
        // In an all-pairs sweep most blocks lie outside every radius: skipping one with none
        // inside changes no bit (it would add zeros). In the grid's short runs most blocks hold
        // a neighbour, and the branch costs more than it saves (measured: 4.6 -> 7.6 ms at
        // 20,000 fish), so there it is off.
        if constexpr (kSkipFarBlocks) {
            if (none((d2 < c.maxRadius2) & use)) return;
        }
        if constexpr (kTopological) {
            if (finding) {
                const Ints kept = use & (d2 < c.maxRadius2) & (d2 <= nearest.worst());
                if (nearest.collecting) {
                    nearest.collectBlock(d2, ids, j, laneBits(kept));
                    return;
                }
                unsigned bits = laneBits(kept);
                if (bits == 0) return;
                Ints theirs;
                std::memcpy(&theirs, ids + j, sizeof theirs);
                for (; bits != 0; bits &= bits - 1) {
                    const int lane = std::countr_zero(bits);
                    nearest.consider(d2[lane], theirs[lane], j + static_cast<std::size_t>(lane));
                }
                return;
            }
        }
        if constexpr (kFieldOfView) {
            if (!seesAllAround) {
                // step_rule.h's inView, eight lanes at a time.
                const Floats along = heading.x * dx + heading.y * dy + heading.z * dz;
                const Floats bound = (c.viewCos * c.viewCos) * d2;
                const Ints ahead = along >= 0.0f;
                use &= c.viewCos >= 0.0f ? (ahead & (along * along >= bound))
                                         : (ahead | (along * along <= bound));
            }
        }
        const Ints inS = (d2 < c.separationRadius2) & use;
        Ints inA = (d2 < c.alignmentRadius2) & use;
        // What each lane adds to the cohesion and separation sums, and where.
        Ints inC, separating = inS;
        Floats cohesionX, cohesionY, cohesionZ, separationX, separationY, separationZ;
        if constexpr (kCouzin) {
            inC = (d2 < c.cohesionRadius2) & (d2 >= c.alignmentRadius2) & use;
            const Floats inverse = inverseLengths(d2);
            cohesionX = separationX = dx * inverse;
            cohesionY = separationY = dy * inverse;
            cohesionZ = separationZ = dz * inverse;
        } else {
            inC = (d2 < c.cohesionRadius2) & use;
            if constexpr (kImages != Images::None) {
                // The neighbour's nearest image.
                cohesionX = pix + dx;
                cohesionY = piy + dy;
                cohesionZ = piz + dz;
            } else {
                cohesionX = load(px + j);
                cohesionY = load(py + j);
                cohesionZ = load(pz + j);
            }
            if constexpr (kInverseSquare) {
                // Lanes with d2 == 0 divide to NaN and are masked off.
                separating = inS & (d2 > 0.0f);
                separationX = dx / d2;
                separationY = dy / d2;
                separationZ = dz / d2;
            } else {
                separationX = dx;
                separationY = dy;
                separationZ = dz;
            }
        }
        if constexpr (kSpecies) {
            if (ownSpeciesOnly) {
                Ints theirs;
                std::memcpy(&theirs, slotSpecies + j, sizeof theirs);
                const Ints same = theirs == species;
                inC &= same;
                inA &= same;
            }
            if (energyScaling) {
                // docs/model.md "Species": KE_j / KE_i, clamped to [0, 100]; 1 when both are 0.
                const Floats theirs = load(slotEnergy + j);
                Floats ratio;
                if (energy > 0.0f) {
                    ratio = theirs / energy;
                    ratio = ratio < 100.0f ? ratio : 100.0f;
                } else {
                    ratio = theirs > 0.0f ? Floats{} + 100.0f : Floats{} + 1.0f;
                }
                separationX *= ratio;
                separationY *= ratio;
                separationZ *= ratio;
            }
            if (sidestep) {
                // The separation neighbours that close in (d . (v_j - v_i) < 0): the part of
                // their offset across the heading, times the closing speed over d^2.
                const Floats wx = load(vx + j) - velocity.x, wy = load(vy + j) - velocity.y,
                             wz = load(vz + j) - velocity.z;
                const Floats closing = -(dx * wx + dy * wy + dz * wz);
                const Floats along = heading.x * dx + heading.y * dy + heading.z * dz;
                const Ints closes = inS & (closing > 0.0f) & (d2 > 0.0f);
                const Floats scale = closing / d2;
                tx += select(closes, (dx - along * heading.x) * scale);
                ty += select(closes, (dy - along * heading.y) * scale);
                tz += select(closes, (dz - along * heading.z) * scale);
            }
        }
        cx += select(inC, cohesionX);
        cy += select(inC, cohesionY);
        cz += select(inC, cohesionZ);
        nc -= inC;  // a true comparison is -1
        sx += select(separating, separationX);
        sy += select(separating, separationY);
        sz += select(separating, separationZ);
        ns -= inS;
        if constexpr (kVicsek) {
            // Steering "vicsek": each neighbour's unit heading (none for one standing still).
            const Floats wx = load(vx + j), wy = load(vy + j), wz = load(vz + j);
            const Floats inverse = inverseLengths(wx * wx + wy * wy + wz * wz);
            ax += select(inA, wx * inverse);
            ay += select(inA, wy * inverse);
            az += select(inA, wz * inverse);
        } else {
            ax += select(inA, load(vx + j));
            ay += select(inA, load(vy + j));
            az += select(inA, load(vz + j));
        }
        na -= inA;
    }

    NeighborSums sums() const {
        NeighborSums s{};
        for (int l = 0; l < kLanes; ++l) {
            s.cohesion += glm::vec3(cx[l], cy[l], cz[l]);
            s.separation += glm::vec3(sx[l], sy[l], sz[l]);
            s.alignment += glm::vec3(ax[l], ay[l], az[l]);
            if constexpr (kSpecies) s.sidestep += glm::vec3(tx[l], ty[l], tz[l]);
            s.cohesionCount += static_cast<std::uint32_t>(nc[l]);
            s.separationCount += static_cast<std::uint32_t>(ns[l]);
            s.alignmentCount += static_cast<std::uint32_t>(na[l]);
        }
        return s;
    }
};

}  // namespace cpu_solver

// The step's files alone include this header.
using namespace cpu_solver;

// Inline, as each step file defines it, yet not inlined into each set's step (noinline).
[[gnu::noinline]] inline std::size_t CpuSolver::packCandidates(const CandidateRanges& ranges,
                                                               const Group& group, float reach2,
                                                               bool withSpecies, bool withIds,
                                                               CandidateRun& run) const {
    std::size_t total = 0;
    run.wraps = false;
    for (const CandidateRange& range : ranges) {
        total += range.last - range.first;
        run.wraps = run.wraps || range.acrossFace;
    }
    // kLanes past the end: a block writes all its lanes, and the search reads whole blocks.
    if (run.px.size() < total + kLanes) {
        const std::size_t size = std::max(total + kLanes, 2 * run.px.size());
        for (auto* v : {&run.px, &run.py, &run.pz, &run.vx, &run.vy, &run.vz, &run.imageX,
                        &run.imageY, &run.imageZ, &run.energy})
            v->resize(size);
        run.species.resize(size);
        run.ids.resize(size);
    }
    // Local pointers: a store through one would otherwise make the next block load them again.
    const Arrays& a = *current_;
    const std::array<const float*, 6> from = {a.px.data(), a.py.data(), a.pz.data(),
                                              a.vx.data(), a.vy.data(), a.vz.data()};
    const std::array<float*, 6> to = {run.px.data(), run.py.data(), run.pz.data(),
                                      run.vx.data(), run.vy.data(), run.vz.data()};
    float* const imageX = run.imageX.data();
    float* const imageY = run.imageY.data();
    float* const imageZ = run.imageZ.data();
    const std::int32_t* const speciesFrom = slotSpecies_.data();
    const float* const energyFrom = slotEnergy_.data();
    std::int32_t* const speciesTo = run.species.data();
    const std::int32_t* const idsFrom = slotIds_.data();
    std::int32_t* const idsTo = run.ids.data();
    float* const energyTo = run.energy.data();
    const bool wraps = run.wraps;
    const Ints lanes = {0, 1, 2, 3, 4, 5, 6, 7};
    const glm::vec3 low = group.low, high = group.high;
    std::size_t count = 0, groupAt = total;
    // How far a candidate lies from the box on one axis, from its offsets to the box's two faces
    // found as a fish's search finds its offset, (q - p) - image: rounding keeps the order of
    // exact values, so no fish of the box finds a smaller distance, and a candidate left out is
    // beyond every fish's radii. The group's own fish lie at distance 0, and at NaN (no box)
    // too: they are always packed, together.
    const auto gap = []<bool kImage>(Floats q, float lowFace, float highFace, float image,
                                     std::bool_constant<kImage>) {
        Floats fromLow = q - lowFace, fromHigh = q - highFace;
        if constexpr (kImage) {
            fromLow -= image;
            fromHigh -= image;
        }
        const Floats zero{};
        return fromHigh > zero ? fromHigh : (fromLow < zero ? -fromLow : zero);
    };
    const auto packRange = [&]<bool kImage>(const CandidateRange& range,
                                            std::bool_constant<kImage> image) {
        const auto last = static_cast<std::int32_t>(range.last);
        const glm::vec3 shift = range.image;
        for (std::size_t j = range.first; j < range.last; j += kLanes) {
            const Floats gx = gap(load(from[0] + j), low.x, high.x, shift.x, image);
            const Floats gy = gap(load(from[1] + j), low.y, high.y, shift.y, image);
            const Floats gz = gap(load(from[2] + j), low.z, high.z, shift.z, image);
            const Floats d2 = gx * gx + gy * gy + gz * gz;
            const Ints slot = lanes + static_cast<std::int32_t>(j);
            const unsigned bits = laneBits((slot < last) & (d2 < reach2));
            if (bits == 0u) continue;
            if (group.first - j < kLanes && group.first < range.last)
                groupAt = count + static_cast<std::size_t>(
                                      std::popcount(bits & ((1u << (group.first - j)) - 1u)));
            for (std::size_t k = 0; k < from.size(); ++k) packBlock(from[k], j, to[k], count, bits);
            if (wraps) {
                const Floats x = Floats{} + shift.x, y = Floats{} + shift.y, z = Floats{} + shift.z;
                std::memcpy(imageX + count, &x, sizeof x);
                std::memcpy(imageY + count, &y, sizeof y);
                std::memcpy(imageZ + count, &z, sizeof z);
            }
            if (withSpecies) {
                packBlock(speciesFrom, j, speciesTo, count, bits);
                packBlock(energyFrom, j, energyTo, count, bits);
            }
            if (withIds) packBlock(idsFrom, j, idsTo, count, bits);
            count += static_cast<std::size_t>(std::popcount(bits));
        }
    };
    // The same candidates with AVX-512's masks where the processor has them.
    const bool wide = avx512::available();
    avx512::PackedRange packed;
    if (wide) {
        std::copy(from.begin(), from.end(), packed.from);
        std::copy(to.begin(), to.end(), packed.to);
        if (wraps) {
            packed.toImageX = imageX;
            packed.toImageY = imageY;
            packed.toImageZ = imageZ;
        }
        if (withSpecies) {
            packed.fromSpecies = speciesFrom;
            packed.fromEnergy = energyFrom;
            packed.toSpecies = speciesTo;
            packed.toEnergy = energyTo;
        }
        if (withIds) {
            packed.fromIds = idsFrom;
            packed.toIds = idsTo;
        }
        for (int axis = 0; axis < 3; ++axis) {
            packed.low[axis] = low[axis];
            packed.high[axis] = high[axis];
        }
        packed.reach2 = reach2;
        packed.mark = group.first;
    }
    run.rows.clear();
    for (const CandidateRange& range : ranges) {
        const std::size_t rowFirst = count;
        if (wide) {
            packed.first = range.first;
            packed.last = range.last;
            packed.at = count;
            for (int axis = 0; axis < 3; ++axis) packed.image[axis] = range.image[axis];
            count += avx512::pack(packed, groupAt);
        } else if (range.image != glm::vec3(0.0f)) {
            packRange(range, std::true_type{});
        } else {
            packRange(range, std::false_type{});
        }
        if (withIds && count > rowFirst) {
            CandidateRun::Row row{rowFirst, count, glm::vec3(INFINITY), glm::vec3(-INFINITY),
                                  range.image};
            for (std::size_t j = rowFirst; j < count; ++j) {
                const glm::vec3 q(run.px[j], run.py[j], run.pz[j]);
                row.low = glm::min(row.low, q);
                row.high = glm::max(row.high, q);
            }
            run.rows.push_back(row);
        }
    }
    run.count = count;
    return groupAt;
}

/// One fish of a group, as its search sees it.
struct CpuSolver::SearchQuery {
    glm::vec3 position{0.0f}, velocity{0.0f};
    glm::vec3 heading{0.0f};  ///< unit heading (zero standing still), for the view and species
    std::size_t self = 0;     ///< where the fish itself sits among the candidates
    bool seesAllAround = true;
    SearchConstants search{StepParamsData{}};  ///< its radii and view (its species')
    // kFeatureSpecies only: its species, its kinetic energy and which species terms are on.
    std::int32_t species = 0;
    float energy = 0.0f;
    bool ownSpeciesOnly = false, energyScaling = false, sidestep = false;
    bool readsSpecies() const { return ownSpeciesOnly || energyScaling || sidestep; }
};

struct CpuSolver::CandidateSource {
    const float *px = nullptr, *py = nullptr, *pz = nullptr;
    const float *vx = nullptr, *vy = nullptr, *vz = nullptr;
    /// A cell's run: each candidate's nearest image where the range lies across a face.
    const float *imageX = nullptr, *imageY = nullptr, *imageZ = nullptr;
    const std::int32_t* species = nullptr;  ///< with species: each candidate's
    const float* energy = nullptr;          ///< with species: each candidate's
    const std::int32_t* ids = nullptr;      ///< topological: each candidate's upload index
    const CandidateRange* ranges = nullptr;
    std::size_t rangeCount = 0;
    /// Topological, a cell's run: its rows (CandidateRun::Row), which the search of the k
    /// nearest visits nearest first; none: the ranges in order.
    const CandidateRun::Row* rows = nullptr;
    std::size_t rowCount = 0;
    /// Every pair rather than a cell's run: most blocks lie beyond every radius and are skipped,
    /// and a range across a face finds its nearest images lane by lane.
    bool everyPair = false;
    glm::vec3 tankSize{0.0f};
};

template <std::uint32_t kSearch>
void CpuSolver::sumNeighbours(const SearchQuery* queries, std::size_t count,
                              const CandidateSource& source, NeighborSums* sums) const {
    constexpr bool kFieldOfView = (kSearch & glsl::kFeatureFieldOfView) != 0u;
    constexpr bool kInverseSquare = (kSearch & glsl::kFeatureInverseSquare) != 0u;
    constexpr bool kCouzin = (kSearch & glsl::kFeatureCouzin) != 0u;
    constexpr bool kSpecies = (kSearch & glsl::kFeatureSpecies) != 0u;
    constexpr bool kVicsek = (kSearch & glsl::kFeatureVicsek) != 0u;
    constexpr bool kTopological = (kSearch & glsl::kFeatureTopological) != 0u;
    // The accumulator of a fish, with what it needs to know of the fish.
    const auto start = [&]<class Acc>(Acc& acc, const SearchQuery& query) {
        acc.tankSize = source.tankSize;
        acc.imageX = source.imageX;
        acc.imageY = source.imageY;
        acc.imageZ = source.imageZ;
        if constexpr (kFieldOfView) {
            acc.heading = query.heading;
            acc.seesAllAround = query.seesAllAround;
        }
        if constexpr (Acc::kReadsSpecies) {
            acc.heading = query.heading;
            acc.slotSpecies = source.species;
            acc.slotEnergy = source.energy;
            acc.species = query.species;
            acc.ownSpeciesOnly = query.ownSpeciesOnly;
            acc.energyScaling = query.energyScaling;
            acc.energy = query.energy;
            acc.sidestep = query.sidestep;
            acc.velocity = query.velocity;
        }
    };
    // Each range's blocks with the work it needs chosen once, not tested in every block.
    const auto eachRange = [&](auto&& add) {
        for (std::size_t k = 0; k < source.rangeCount; ++k) {
            const CandidateRange& range = source.ranges[k];
            if (source.everyPair) {
                if (range.acrossFace)
                    add.template operator()<Images::LaneByLane, true>(range);
                else
                    add.template operator()<Images::None, true>(range);
            } else if (range.acrossFace) {
                add.template operator()<Images::PerCandidate, false>(range);
            } else {
                add.template operator()<Images::None, false>(range);
            }
        }
    };
    // Topological: a fish's guess of its k-th nearest's d2, times kGuessWidening (its distance
    // times 1.34: about 2.4 times the neighbours expected within). The group's first fish guesses
    // from the density of the run's rows, the others take the fish's before.
    constexpr float kGuessWidening = 1.8f;
    float lastKthD2 = INFINITY;
    if constexpr (kTopological) {
        double candidates = 0.0, volume = 0.0;
        for (std::size_t r = 0; r < source.rowCount; ++r) {
            const CandidateRun::Row& row = source.rows[r];
            const glm::vec3 size = row.high - row.low;
            candidates += static_cast<double>(row.last - row.first);
            volume += static_cast<double>(size.x) * size.y * size.z;
        }
        const double k = std::clamp<double>(queries[0].search.neighborCount, 1.0,
                                            static_cast<double>(kMaxNeighborCount));
        // The radius that holds k fish on average: 4/3 pi r^3 density = k.
        const double radius = std::cbrt(3.0 * k * volume / (4.0 * std::numbers::pi * candidates));
        if (source.rowCount > 0 && candidates > k && volume > 0.0 && std::isfinite(radius))
            lastKthD2 = static_cast<float>(radius * radius);
    }
    // The first pass of topological selection over a cell's run: its rows nearest first, each
    // skipped whole once its box lies past the k-th kept. The box's distance is found as the
    // search finds a candidate's, (q - p) - image per axis, and rounding keeps the order of exact
    // values: no candidate of a row lies nearer than its box, so a row skipped holds none that
    // would be kept (a tie with the k-th is visited). Which rows are visited changes no kept set.
    const auto findNearestByRows = [&](auto& acc, const SearchQuery& query) {
        const glm::vec3 p = query.position;
        std::array<std::pair<float, std::uint32_t>, CandidateRanges::kMost> order;
        const std::size_t n = source.rowCount;
        for (std::size_t r = 0; r < n; ++r) {
            const CandidateRun::Row& row = source.rows[r];
            float boxD2 = 0.0f;
            for (int axis = 0; axis < 3; ++axis) {
                const float fromLow = (row.low[axis] - p[axis]) - row.image[axis];
                const float fromHigh = (row.high[axis] - p[axis]) - row.image[axis];
                const float gap = fromLow > 0.0f ? fromLow : (fromHigh < 0.0f ? -fromHigh : 0.0f);
                boxD2 = axis == 0 ? gap * gap : boxD2 + gap * gap;
            }
            order[r] = {boxD2, static_cast<std::uint32_t>(r)};
        }
        std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n));
        const bool images = source.imageX != nullptr;
        for (std::size_t k = 0; k < n; ++k) {
            if (order[k].first > acc.nearest.worst()) break;
            const CandidateRun::Row& row = source.rows[order[k].second];
            const auto add = [&]<Images kImages>() {
                acc.template add<kImages, false>(query.search, source.px, source.py, source.pz,
                                                 source.vx, source.vy, source.vz, row.first,
                                                 row.last, query.self, p.x, p.y, p.z);
            };
            if (images)
                add.template operator()<Images::PerCandidate>();
            else
                add.template operator()<Images::None>();
        }
    };
    // The sums, with the neighbours' species and energies read (kReadsSpecies) only where the
    // fish's species asks for them: a species that sets only values sums as no species.
    const auto sumsOf = [&]<bool kReadsSpecies>(const SearchQuery& query,
                                                std::bool_constant<kReadsSpecies>) {
        RangeAccumulator<kFieldOfView, kInverseSquare, kCouzin, kReadsSpecies, kVicsek,
                         kTopological>
            acc;
        start(acc, query);
        const glm::vec3 p = query.position;
        const auto addRanges = [&] {
            eachRange([&]<Images kImages, bool kSkipFarBlocks>(const CandidateRange& range) {
                acc.template add<kImages, kSkipFarBlocks>(
                    query.search, source.px, source.py, source.pz, source.vx, source.vy, source.vz,
                    range.first, range.last, query.self, p.x, p.y, p.z);
            });
        };
        if constexpr (kTopological) {
            // The k nearest first, then the sums over them alone, gathered in their order: the
            // same candidates in the same order whichever search found them.
            acc.ids = source.ids;
            acc.nearest.start(std::clamp<std::uint32_t>(
                query.search.neighborCount, 1, static_cast<std::uint32_t>(kMaxNeighborCount)));
            acc.finding = true;
            if (source.rows != nullptr) {
                // Within the last fish's k-th distance, widened (the group's fish are close
                // and their neighbours as dense); the whole search where that falls short.
                // One call of the search, compiled once: the step is flattened, and each call
                // inlines the whole search again.
                for (bool guessing = acc.nearest.inLanes && lastKthD2 < INFINITY;;
                     guessing = false) {
                    if (guessing) acc.nearest.collectWithin(lastKthD2 * kGuessWidening);
                    findNearestByRows(acc, query);
                    if (!guessing || acc.nearest.keepCollected()) break;
                }
                lastKthD2 = acc.nearest.count == acc.nearest.k ? acc.nearest.worst() : INFINITY;
            } else {
                addRanges();
            }
            acc.finding = false;
            KeptCandidates kept;
            const std::size_t n = acc.nearest.count;
            const bool images = source.imageX != nullptr;
            for (std::size_t k = 0; k < n; ++k) {
                const std::size_t j = acc.nearest.slotOf(k);
                kept.px[k] = source.px[j];
                kept.py[k] = source.py[j];
                kept.pz[k] = source.pz[j];
                kept.vx[k] = source.vx[j];
                kept.vy[k] = source.vy[j];
                kept.vz[k] = source.vz[j];
                kept.imageX[k] = images ? source.imageX[j] : 0.0f;
                kept.imageY[k] = images ? source.imageY[j] : 0.0f;
                kept.imageZ[k] = images ? source.imageZ[j] : 0.0f;
                kept.species[k] = source.species != nullptr ? source.species[j] : 0;
                kept.energy[k] = source.energy != nullptr ? source.energy[j] : 0.0f;
            }
            kept.padFrom(n);
            acc.imageX = kept.imageX.data();
            acc.imageY = kept.imageY.data();
            acc.imageZ = kept.imageZ.data();
            if constexpr (kReadsSpecies) {
                acc.slotSpecies = kept.species.data();
                acc.slotEnergy = kept.energy.data();
            }
            // Every pair: nearest images lane by lane in a periodic tank; a cell's run: the
            // images its packing gave each candidate.
            const bool wraps =
                source.everyPair ? source.ranges[0].acrossFace : source.imageX != nullptr;
            const auto sum = [&]<Images kImages>() {
                acc.template add<kImages, false>(
                    query.search, kept.px.data(), kept.py.data(), kept.pz.data(), kept.vx.data(),
                    kept.vy.data(), kept.vz.data(), 0, n, KeptCandidates::kSize, p.x, p.y, p.z);
            };
            if (!wraps)
                sum.template operator()<Images::None>();
            else if (source.everyPair)
                sum.template operator()<Images::LaneByLane>();
            else
                sum.template operator()<Images::PerCandidate>();
            return acc.sums();
        }
        addRanges();
        return acc.sums();
    };
    if constexpr (kSearch == 0u) {
        // A cell's run with none of the behaviours that change a neighbour's sums: masked adds
        // where the processor has them, the same bits.
        if (!source.everyPair && avx512::available()) {
            const CandidateRange& range = source.ranges[0];
            const std::size_t at = range.first;
            avx512::Candidates candidates{source.px + at, source.py + at, source.pz + at,
                                          source.vx + at, source.vy + at, source.vz + at};
            candidates.count = range.last - at;
            if (range.acrossFace) {
                candidates.imageX = source.imageX + at;
                candidates.imageY = source.imageY + at;
                candidates.imageZ = source.imageZ + at;
            }
            // Without species every fish searches with the school's radii.
            const SearchConstants& search = queries[0].search;
            std::array<avx512::Seeker, kGroupMost> seekers;
            std::array<avx512::Sums, kGroupMost> found;
            for (std::size_t q = 0; q < count; ++q) {
                const SearchQuery& query = queries[q];
                seekers[q] = {query.position.x, query.position.y, query.position.z,
                              query.self - at};
            }
            avx512::sumsOfEach(
                candidates,
                {search.cohesionRadius2, search.separationRadius2, search.alignmentRadius2},
                seekers.data(), count, found.data());
            for (std::size_t q = 0; q < count; ++q) {
                const avx512::Sums& wide = found[q];
                NeighborSums& s = sums[q];
                s = NeighborSums{};
                s.cohesion = {wide.cohesion[0], wide.cohesion[1], wide.cohesion[2]};
                s.separation = {wide.separation[0], wide.separation[1], wide.separation[2]};
                s.alignment = {wide.alignment[0], wide.alignment[1], wide.alignment[2]};
                s.cohesionCount = wide.cohesionCount;
                s.separationCount = wide.separationCount;
                s.alignmentCount = wide.alignmentCount;
            }
            return;
        }
    }
    for (std::size_t q = 0; q < count; ++q) {
        if constexpr (kSpecies)
            sums[q] = queries[q].readsSpecies() ? sumsOf(queries[q], std::true_type{})
                                                : sumsOf(queries[q], std::false_type{});
        else
            sums[q] = sumsOf(queries[q], std::false_type{});
    }
}

/// The neighbour sums of a run of slots, a column each: what the rule reads eight fish at a
/// time (stepsInLanes).
struct SumsColumns {
    static constexpr std::size_t kSize = 128;
    alignas(32) std::array<float, kSize> cx, cy, cz, sx, sy, sz, ax, ay, az;
    alignas(32) std::array<std::uint32_t, kSize> cc, sc, ac;
    std::size_t first = 0, count = 0;  ///< the slots [first, first + count)

    void add(const NeighborSums& s) {
        const std::size_t k = count++;
        cx[k] = s.cohesion.x;
        cy[k] = s.cohesion.y;
        cz[k] = s.cohesion.z;
        sx[k] = s.separation.x;
        sy[k] = s.separation.y;
        sz[k] = s.separation.z;
        ax[k] = s.alignment.x;
        ay[k] = s.alignment.y;
        az[k] = s.alignment.z;
        cc[k] = s.cohesionCount;
        sc[k] = s.separationCount;
        ac[k] = s.alignmentCount;
    }
};

/// n <= kStepLanes values from `from` in lanes, the lanes past n zero: a range's last fish,
/// read without passing its end.
template <class Lanes, class T>
inline Lanes firstLanes(const T* from, std::size_t n) {
    decltype(Lanes{}.v) v{};
    if (n == glsl::kStepLanes)
        std::memcpy(&v, from, sizeof v);
    else
        for (std::size_t l = 0; l < n; ++l) v[l] = from[l];
    return Lanes(v);
}

/// The first n lanes of x stored from `to`: the lanes past a range's end are not written (they
/// are another thread's fish).
inline void storeFirstLanes(float* to, glsl::Real8 x, std::size_t n) {
    if (n == glsl::kStepLanes)
        std::memcpy(to, &x.v, sizeof x.v);
    else
        for (std::size_t l = 0; l < n; ++l) to[l] = x.v[l];
}

/// Each thread keeps its run's buffers from one stepRange call to the next, whatever the set of
/// behaviours: tbb calls it for every chunk of kGridGrain fish, and new buffers each time cost 2
/// to 3 % of a step. Buffers of more than 65,536 candidates (3 MB) are let go, so that a crowded
/// school's do not outlive it. A call does not wait for other work, so none runs inside it on
/// its thread; a fresh run all the same, should one ever be.
class CpuSolver::ThreadCandidateRun {
  public:
    ThreadCandidateRun() : owns_(!std::exchange(inUse(), true)) {}
    ~ThreadCandidateRun() {
        if (!owns_) return;
        if (kept().px.size() > kMostKept) kept() = CandidateRun{};
        inUse() = false;
    }
    ThreadCandidateRun(const ThreadCandidateRun&) = delete;
    ThreadCandidateRun& operator=(const ThreadCandidateRun&) = delete;
    CandidateRun& run() { return owns_ ? kept() : fresh_; }

  private:
    static constexpr std::size_t kMostKept = 65536;
    static CandidateRun& kept() {
        thread_local CandidateRun run;
        return run;
    }
    static bool& inUse() {
        thread_local bool used = false;
        return used;
    }
    bool owns_;
    CandidateRun fresh_;
};

template <std::uint32_t kFeatures>
void CpuSolver::stepRange(std::size_t begin, std::size_t end, bool useGrid, StepFrameCopy frame) {
    constexpr bool kFieldOfView = (kFeatures & glsl::kFeatureFieldOfView) != 0u;
    constexpr bool kSpecies = (kFeatures & glsl::kFeatureSpecies) != 0u;
    constexpr bool kKinds = (kFeatures & glsl::kFeatureKinds) != 0u;
    constexpr bool kTopological = (kFeatures & glsl::kFeatureTopological) != 0u;
    constexpr bool kBurst = (kFeatures & glsl::kFeatureBurst) != 0u;
    constexpr bool kInLanes = stepsInLanes(kFeatures);
    const SearchConstants schoolSearch(stepParams_);
    const glm::vec4* flowNodes = flow_ ? flow_->nodes().data() : nullptr;
    const Arrays& in = *current_;
    Arrays& out = *next_;
    // The fish of a group sit together, near one another, and search the same candidates: the
    // candidate ranges are found once a cell, packed once a group, and summed a group at a time.
    CandidateRanges candidates;
    ThreadCandidateRun threadRun;
    CandidateRun& run = threadRun.run();
    CandidateRange runRange;
    // On the grid a group's run, set where the group changes; else every pair of the school.
    CandidateSource source;
    if (!useGrid) {
        allCandidateRanges(candidates);
        source = {in.px.data(), in.py.data(), in.pz.data(),
                  in.vx.data(), in.vy.data(), in.vz.data()};
        source.species = slotSpecies_.data();
        source.energy = slotEnergy_.data();
        source.ids = slotIds_.data();
        source.ranges = candidates.ranges.data();
        source.rangeCount = candidates.count;
        source.everyPair = true;
    }
    source.tankSize = 2.0f * params_.bounds;
    std::array<SearchQuery, kGroupMost> queries;
    std::array<NeighborSums, kGroupMost> sums;
    // The run of `begin` may start before it: the groups are the same whichever slots a thread
    // steps.
    std::size_t runStart = useGrid && begin < end ? runStartOf(begin) : begin;
    glm::ivec3 rangesCell{std::numeric_limits<int>::min()}, packedCell = rangesCell;
    std::size_t packedGroup = std::numeric_limits<std::size_t>::max(), packedAt = 0;
    // kInLanes: the sums of the slots not yet stepped, and the rule over them eight at a time. A
    // last block of fewer fish steps in the same lanes, its other lanes not stored, so no fish's
    // bits depend on where a thread's slots end.
    SumsColumns columns;
    const auto stepColumns = [&] {
        if constexpr (kInLanes) {
            using glsl::Real8;
            using glsl::Vec3L;
            StepRule<kFeatures, glsl::kStepLanes> rule(stepParams_, rocks_.data(), flowNodes,
                                                       specials_.data());
            for (std::size_t k = 0; k < columns.count; k += glsl::kStepLanes) {
                const std::size_t n = std::min<std::size_t>(glsl::kStepLanes, columns.count - k);
                const std::size_t i = columns.first + k;
                const auto column = [&](const float* c) { return firstLanes<Real8>(c + k, n); };
                const Vec3L p{firstLanes<Real8>(&in.px[i], n), firstLanes<Real8>(&in.py[i], n),
                              firstLanes<Real8>(&in.pz[i], n)};
                const Vec3L v{firstLanes<Real8>(&in.vx[i], n), firstLanes<Real8>(&in.vy[i], n),
                              firstLanes<Real8>(&in.vz[i], n)};
                glsl::NeighborSums8 s;
                s.cohesion = {column(columns.cx.data()), column(columns.cy.data()),
                              column(columns.cz.data())};
                s.separation = {column(columns.sx.data()), column(columns.sy.data()),
                                column(columns.sz.data())};
                s.alignment = {column(columns.ax.data()), column(columns.ay.data()),
                               column(columns.az.data())};
                s.sidestep = Vec3L(Real8(0.0f));
                s.cohesionCount = firstLanes<glsl::UInt8>(columns.cc.data() + k, n);
                s.separationCount = firstLanes<glsl::UInt8>(columns.sc.data() + k, n);
                s.alignmentCount = firstLanes<glsl::UInt8>(columns.ac.data() + k, n);
                const glsl::UInt8 id = firstLanes<glsl::UInt8>(&ids_[i], n);
                const glsl::FishUpdate8 u = rule.integrateFish(p, v, Real8(0.0f), s, id, p);
                storeFirstLanes(&out.px[i], u.position.x, n);
                storeFirstLanes(&out.py[i], u.position.y, n);
                storeFirstLanes(&out.pz[i], u.position.z, n);
                storeFirstLanes(&out.vx[i], u.velocity.x, n);
                storeFirstLanes(&out.vy[i], u.velocity.y, n);
                storeFirstLanes(&out.vz[i], u.velocity.z, n);
                storeFirstLanes(&out.ax[i], u.acceleration.x, n);
                storeFirstLanes(&out.ay[i], u.acceleration.y, n);
                storeFirstLanes(&out.az[i], u.acceleration.z, n);
            }
            columns.count = 0;
        }
    };

    for (std::size_t first = begin; first < end;) {
        std::size_t last = std::min(end, first + kGroupMost);
        Group group;
        if (useGrid) {
            if (first > begin && !inOneRun(first - 1, first)) runStart = first;
            group = groupAt(first, runStart);
            last = std::min(group.last, end);
            const glm::ivec3 cell = searchCellOf(first);
            // Open water: fish of several cells may share a bucket, and so a group; each cell's
            // fish search its own ranges.
            if (grid_.hashed) {
                for (std::size_t k = first + 1; k < last; ++k) {
                    if (searchCellOf(k) != cell) {
                        last = k;
                        break;
                    }
                }
            }
            if (cell != rangesCell) {
                gatherCandidateRanges(cell, candidates);
                rangesCell = cell;
            }
            if (group.first != packedGroup || cell != packedCell) {
                packedAt = packCandidates(candidates, group, reach2_, kSpecies, kTopological, run);
                packedGroup = group.first;
                packedCell = cell;
                source = {run.px.data(), run.py.data(), run.pz.data(),
                          run.vx.data(), run.vy.data(), run.vz.data()};
                if (run.wraps) {
                    source.imageX = run.imageX.data();
                    source.imageY = run.imageY.data();
                    source.imageZ = run.imageZ.data();
                }
                source.species = run.species.data();
                source.energy = run.energy.data();
                source.ids = run.ids.data();
                runRange = {0, run.count, run.wraps};
                source.ranges = &runRange;
                source.rangeCount = 1;
                source.rows = kTopological ? run.rows.data() : nullptr;
                source.rowCount = kTopological ? run.rows.size() : 0;
                source.tankSize = 2.0f * params_.bounds;
            }
        }
        for (std::size_t i = first; i < last; ++i) {
            SearchQuery& query = queries[i - first];
            query.position = {in.px[i], in.py[i], in.pz[i]};
            query.velocity = {in.vx[i], in.vy[i], in.vz[i]};
            query.self = useGrid ? packedAt + (i - packedGroup) : i;
            // With species, each fish searches with its species' parameters.
            const StepParamsData& own = kSpecies ? speciesParams_[slotSpecies_[i]] : stepParams_;
            query.search = kSpecies ? SearchConstants(own) : schoolSearch;
            if constexpr (kFieldOfView || kSpecies) {
                StepRule<kFeatures> rule(own, rocks_.data(), flowNodes, specials_.data());
                query.heading = rule.normalizeOrZero(query.velocity);
                query.seesAllAround =
                    query.heading == glm::vec3(0.0f) || STEP_VIEW_COS(own) <= -1.0f;
            }
            if constexpr (kSpecies) {
                query.species = slotSpecies_[i];
                query.energy = slotEnergy_[i];
                query.ownSpeciesOnly = STEP_OWN_SPECIES(own) != 0.0f;
                query.energyScaling = STEP_ENERGY_SCALING(own) != 0.0f;
                query.sidestep = STEP_K_SIDESTEP(own) != 0.0f;
            }
        }
        // Burst-and-coast reads the neighbours in its rule, at kicks.
        if constexpr (!kBurst)
            sumNeighbours<kFeatures & kSearchFeatures>(queries.data(), last - first, source,
                                                       sums.data());
        if constexpr (kInLanes) {
            if (columns.count == 0) columns.first = first;
            for (std::size_t i = first; i < last; ++i) {
                const SearchQuery& query = queries[i - first];
                columns.add(sums[i - first]);
                if (frame.positions != nullptr)
                    frame.store(ids_[i], query.position, query.velocity);
            }
            if (last == end || columns.count > SumsColumns::kSize - kGroupMost) stepColumns();
        } else {
            for (std::size_t i = first; i < last; ++i) {
                const SearchQuery& query = queries[i - first];
                const StepParamsData& own =
                    kSpecies ? speciesParams_[slotSpecies_[i]] : stepParams_;
                StepRule<kFeatures> rule(own, rocks_.data(), flowNodes, specials_.data());
                glm::vec3 prey = query.position;
                if constexpr (kKinds) {
                    if (rule.kindOf(ids_[i]) == glsl::kKindPredator) prey = nearestPrey(i);
                }
                float kickClock = 0.0f;
                if constexpr (kBurst) {
                    sums[i - first] = NeighborSums{};
                    rule.school = {in.px.data(), in.py.data(),
                                   in.pz.data(), in.vx.data(),
                                   in.vy.data(), in.vz.data(),
                                   ids_.data(),  static_cast<std::uint32_t>(ids_.size())};
                    kickClock = in.kickClock[i];
                }
                const FishUpdate u = rule.integrateFish(query.position, query.velocity, kickClock,
                                                        sums[i - first], ids_[i], prey);
                out.store(i, u.position, u.velocity, u.acceleration);
                if constexpr (kBurst) out.kickClock[i] = u.kickClock;
                // The fish as it was, by upload index: a miss or two the step's arithmetic hides.
                if (frame.positions != nullptr)
                    frame.store(ids_[i], query.position, query.velocity);
            }
        }
        first = last;
    }
}

template <std::size_t kFile>
CpuSolver::StepRange CpuSolver::stepRangeOf(std::uint32_t features) {
    static constexpr auto kStepRanges = []<std::size_t... F>(std::index_sequence<F...>) {
        return std::array<StepRange, sizeof...(F)>{
            stepRangeFor<kFile, static_cast<std::uint32_t>(F)>()...};
    }
    (std::make_index_sequence<glsl::kFeatureSetCount>{});
    return kStepRanges[features];
}

}  // namespace fishschool
