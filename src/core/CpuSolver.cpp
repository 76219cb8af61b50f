#include "CpuSolver.h"

#include "NeighbourSumsAvx512.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>

namespace fishschool {
namespace {

// Eight float or int lanes (GCC/Clang vector extensions): AVX on x86-64, two SSE registers
// without it. Spelling the lanes out makes the order of every sum fixed, whatever the compiler,
// the alignment of the arrays or the split across threads.
constexpr int kLanes = 8;
using Floats = float __attribute__((vector_size(kLanes * sizeof(float))));
using Ints = std::int32_t __attribute__((vector_size(kLanes * sizeof(std::int32_t))));

inline Floats load(const float* p) {
    Floats v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

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
alignas(32) constexpr std::int32_t kAllButLane[kLanes + 1][kLanes] = {
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

/// The step's radii and view cone, in the form the lanes compare against.
struct SearchConstants {
    float cohesionRadius2 = 0.0f, separationRadius2 = 0.0f, alignmentRadius2 = 0.0f;
    float maxRadius2 = 0.0f;
    float viewCos = -1.0f;
    std::uint32_t neighborCount = 0;  ///< neighborSelection "topological": k

    explicit SearchConstants(const StepParamsData& p)
        : cohesionRadius2(STEP_COHESION_RADIUS2(p)),
          separationRadius2(STEP_SEPARATION_RADIUS2(p)),
          alignmentRadius2(STEP_ALIGNMENT_RADIUS2(p)),
          maxRadius2(std::max(
              {STEP_COHESION_RADIUS2(p), STEP_SEPARATION_RADIUS2(p), STEP_ALIGNMENT_RADIUS2(p)})),
          viewCos(STEP_VIEW_COS(p)),
          neighborCount(static_cast<std::uint32_t>(STEP_NEIGHBOR_COUNT(p))) {}
};

/// Accumulates fish [begin, end) into the neighbour sums of fish `self`. With kFieldOfView
/// false the view test is not compiled in at all; with kInverseSquare each separation offset is
/// divided by its squared length (a neighbour at distance 0 adds nothing, as its offset is 0).
/// kCouzin: neighbor_sums.glsl's sums for steering "couzin" (unit offsets, attraction from the
/// shell beyond rAlignment only). kVicsek: the alignment sum adds unit headings (steering
/// "vicsek").
/// kSpecies: the neighbours' species and kinetic energies are read (kFeatureSpecies), for the
/// species a fish schools with, separation scaled by kinetic energy and the sidestep sum, each
/// compiled in but run only where the fish's species has it on.
/// How a range's offsets reach their nearest image in a periodic tank: not at all (walls, open
/// water, or a range that lies within the tank), by each candidate's known image (imageX, Y, Z:
/// a cell's candidates with a wrapped row) or found lane by lane (every pair).
enum class Images { None, PerCandidate, LaneByLane };

/// neighborSelection "topological": the k nearest candidates within reach seen so far, as
/// (d2, id) in order, ties by the lower id, with where each sits among the candidates
/// (neighbor_sums.glsl keeps the same set on the GPU).
struct NearestKeeper {
    std::array<float, kMaxNeighborCount> d2;
    std::array<std::int32_t, kMaxNeighborCount> id;
    std::array<std::size_t, kMaxNeighborCount> slot;
    std::uint32_t count = 0, k = 1;

    static bool nearer(float a, std::int32_t ia, float b, std::int32_t ib) {
        return a < b || (a == b && ia < ib);
    }
    /// Past this a candidate is not kept (ties aside): the k-th's distance, once there are k.
    float worst() const { return count == k ? d2[k - 1] : INFINITY; }
    void consider(float dd, std::int32_t who, std::size_t where) {
        if (count == k && !nearer(dd, who, d2[k - 1], id[k - 1])) return;
        std::uint32_t at = count < k ? count++ : k - 1;
        for (; at > 0 && nearer(dd, who, d2[at - 1], id[at - 1]); --at) {
            d2[at] = d2[at - 1];
            id[at] = id[at - 1];
            slot[at] = slot[at - 1];
        }
        d2[at] = dd;
        id[at] = who;
        slot[at] = where;
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
                Ints theirs;
                std::memcpy(&theirs, ids + j, sizeof theirs);
                const Ints kept = use & (d2 < c.maxRadius2) & (d2 <= nearest.worst());
                for (unsigned bits = laneBits(kept); bits != 0; bits &= bits - 1) {
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

constexpr int kCellsPerRadius = 1;
constexpr std::size_t kAllPairsGrain = 64;
constexpr std::size_t kGridGrain = 256;

}  // namespace

void CpuSolver::Arrays::resize(std::size_t n) {
    // kLanes zeros past the end let the search read whole blocks (see RangeAccumulator::add).
    for (auto* a : {&px, &py, &pz, &vx, &vy, &vz, &ax, &ay, &az}) a->assign(n + kLanes, 0.0f);
}

CpuSolver::CpuSolver(ParallelFor parallelFor) : parallelFor_(std::move(parallelFor)) {
    setParams(SimParams{});
}

void CpuSolver::setParams(const SimParams& params) {
    params_ = params;
    flow_ = FlowField::forParams(params_, std::move(flow_));
    stepParams_ = makeStepParams(params_, flow_.get());
    speciesParams_ = makeSpeciesStepParams(params_, flow_.get());
    rocks_ = packRocks(params_);
    features_ = stepFeatures(params_);
    // The farthest any fish searches, of any species: a candidate beyond it of a whole group is
    // packed for none.
    reach2_ = SearchConstants(stepParams_).maxRadius2;
    for (const StepParamsData& pack : speciesParams_)
        reach2_ = std::max(reach2_, SearchConstants(pack).maxRadius2);
}

void CpuSolver::upload(std::span<const Fish> school) {
    const std::size_t n = school.size();
    // New buffers: a snapshot may still be reading the old ones.
    current_ = std::make_shared<Arrays>();
    next_ = std::make_shared<Arrays>();
    spare_.reset();
    current_->resize(n);
    next_->resize(n);
    ids_.resize(n);
    nextIds_.resize(n);
    speciesOfId_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        current_->store(i, school[i].position, school[i].velocity, school[i].acceleration);
        ids_[i] = static_cast<std::uint32_t>(i);
        speciesOfId_[i] = school[i].species;
    }
}

School CpuSolver::download() const {
    School school;
    downloadInto(school);
    return school;
}

void CpuSolver::downloadInto(School& school) const {
    school.resize(ids_.size());
    for (std::size_t k = 0; k < ids_.size(); ++k) {
        Fish& f = school[ids_[k]];
        f.position = {current_->px[k], current_->py[k], current_->pz[k]};
        f.velocity = {current_->vx[k], current_->vy[k], current_->vz[k]};
        f.acceleration = {current_->ax[k], current_->ay[k], current_->az[k]};
        f.species = speciesOfId_[ids_[k]];
    }
}

void CpuSolver::downloadFrame(std::span<float> positions, std::span<float> velocities) const {
    const Arrays& a = *current_;
    const StepFrameCopy frame{positions.data(), velocities.data()};
    // Each slot writes its own fish: the threads touch disjoint floats. Large chunks: a copy.
    constexpr std::size_t kCopyGrain = 16384;
    parallelFor_(ids_.size(), kCopyGrain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
            frame.store(ids_[k], {a.px[k], a.py[k], a.pz[k]}, {a.vx[k], a.vy[k], a.vz[k]});
    });
}

namespace {

/// The solver's state at one step, shared with it: the solver writes its next states elsewhere
/// for as long as the snapshot lives (claimNext). The species of each slot are copied (the slots
/// are sorted again each step), and only where there are species: the measures read them.
template <class Arrays>
class SharedArraysSnapshot final : public SchoolSnapshot {
  public:
    SharedArraysSnapshot(std::shared_ptr<const Arrays> arrays, std::size_t count,
                         std::vector<std::uint32_t> slotSpecies)
        : arrays_(std::move(arrays)), count_(count), slotSpecies_(std::move(slotSpecies)) {}
    School fish() const override {
        School school(count_);
        const Arrays& a = *arrays_;
        for (std::size_t k = 0; k < count_; ++k) {
            school[k].position = {a.px[k], a.py[k], a.pz[k]};
            school[k].velocity = {a.vx[k], a.vy[k], a.vz[k]};
            if (!slotSpecies_.empty()) school[k].species = slotSpecies_[k];
        }
        return school;
    }

  private:
    std::shared_ptr<const Arrays> arrays_;
    std::size_t count_;
    std::vector<std::uint32_t> slotSpecies_;
};

}  // namespace

std::shared_ptr<const SchoolSnapshot> CpuSolver::snapshot() const {
    std::vector<std::uint32_t> slotSpecies;
    if (!params_.species.empty()) {
        slotSpecies.resize(ids_.size());
        for (std::size_t k = 0; k < ids_.size(); ++k) slotSpecies[k] = speciesOfId_[ids_[k]];
    }
    return std::make_shared<SharedArraysSnapshot<Arrays>>(current_, size(), std::move(slotSpecies));
}

void CpuSolver::claimNext() {
    if (next_.use_count() == 1) {
        // Whatever a snapshot read of it, it read before letting go (the count's release).
        std::atomic_thread_fence(std::memory_order_acquire);
        return;
    }
    // A snapshot still reads it: write into the spare, or a new buffer while the spare is read
    // too, and keep this one as the spare for when the snapshot lets go.
    std::shared_ptr<Arrays> held = std::move(next_);
    if (spare_ && spare_.use_count() == 1 && spare_->px.size() == held->px.size()) {
        std::atomic_thread_fence(std::memory_order_acquire);
        next_ = std::move(spare_);
    } else {
        next_ = std::make_shared<Arrays>();
        next_->resize(size());
    }
    spare_ = std::move(held);
}

void CpuSolver::step(std::uint64_t stepIndex, StepFrameCopy frame) {
    const std::size_t n = size();
    if (n == 0) return;
    STEP_INDEX(stepParams_) = static_cast<std::uint32_t>(stepIndex);
    const bool useGrid = usesGrid();
    if (useGrid) buildGrid(/*keepAccelerations=*/false);
    if ((features_ & glsl::kFeatureKinds) != 0u) gatherSpecials();
    if ((features_ & glsl::kFeatureSpecies) != 0u) gatherSpecies(stepIndex);
    if ((features_ & glsl::kFeatureTopological) != 0u) gatherIds();
    // One instance of the step per set of behaviours that is used: those that are off are not
    // compiled in.
    static constexpr auto kStepRanges = []<std::size_t... F>(std::index_sequence<F...>) {
        return std::array<StepRange, sizeof...(F)>{
            stepRangeFor<static_cast<std::uint32_t>(F)>()...};
    }
    (std::make_index_sequence<glsl::kFeatureSetCount>{});
    const StepRange stepRange = kStepRanges[features_];
    claimNext();
    parallelFor_(n, useGrid ? kGridGrain : kAllPairsGrain, [&](std::size_t begin, std::size_t end) {
        (this->*stepRange)(begin, end, useGrid, frame);
    });
    std::swap(current_, next_);
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

void CpuSolver::gatherSpecials() {
    specials_.assign(2 * std::size_t{STEP_PREDATORS_END(stepParams_)} + 2, glm::vec4(0.0f));
    for (std::size_t k = 0; k < size(); ++k) {
        if (ids_[k] >= STEP_PREDATORS_END(stepParams_)) continue;
        specials_[2 * ids_[k]] = {current_->px[k], current_->py[k], current_->pz[k], 0.0f};
        specials_[2 * ids_[k] + 1] = {current_->vx[k], current_->vy[k], current_->vz[k], 0.0f};
    }
}

void CpuSolver::gatherSpecies(std::uint64_t stepIndex) {
    const std::size_t n = size();
    // Padded as the arrays are: the search reads whole blocks.
    slotSpecies_.assign(n + kLanes, 0);
    slotEnergy_.assign(n + kLanes, 0.0f);
    const auto last = static_cast<std::uint32_t>(speciesParams_.size() - 1);
    for (StepParamsData& pack : speciesParams_)
        STEP_INDEX(pack) = static_cast<std::uint32_t>(stepIndex);
    const Arrays& a = *current_;
    parallelFor_(n, kGridGrain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) {
            // A species past the table (a school uploaded before its species were set) steps
            // as the last.
            const std::uint32_t s = std::min(speciesOfId_[ids_[k]], last);
            slotSpecies_[k] = static_cast<std::int32_t>(s);
            const float speed2 = a.vx[k] * a.vx[k] + a.vy[k] * a.vy[k] + a.vz[k] * a.vz[k];
            slotEnergy_[k] = 0.5f * STEP_MASS(speciesParams_[static_cast<std::size_t>(s)]) * speed2;
        }
    });
}

void CpuSolver::gatherIds() {
    // Padded as the arrays are: a search reads whole blocks.
    slotIds_.assign(size() + kLanes, std::numeric_limits<std::int32_t>::max());
    for (std::size_t k = 0; k < size(); ++k) slotIds_[k] = static_cast<std::int32_t>(ids_[k]);
}

glm::vec3 CpuSolver::nearestPrey(std::size_t i) const {
    const glm::vec3 p(current_->px[i], current_->py[i], current_->pz[i]);
    StepRule<0u> rule(stepParams_, nullptr, nullptr);
    glm::vec3 prey = p;
    float nearest = std::numeric_limits<float>::max();
    for (std::size_t j = 0; j < size(); ++j) {
        if (j == i ||
            (ids_[j] >= STEP_LEADERS_END(stepParams_) && ids_[j] < STEP_PREDATORS_END(stepParams_)))
            continue;
        const glm::vec3 q(current_->px[j], current_->py[j], current_->pz[j]);
        const glm::vec3 d = rule.nearestImage(q - p);
        const float d2 = d.x * d.x + d.y * d.y + d.z * d.z;
        if (d2 < nearest) {
            nearest = d2;
            prey = q;
        }
    }
    return prey;
}

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

glm::ivec3 CpuSolver::searchCellOf(std::size_t i) const {
    const float x = current_->px[i], y = current_->py[i], z = current_->pz[i];
    return grid_.hashed ? grid_.openCellOf(x, y, z) : grid_.cellOf(x, y, z);
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

bool CpuSolver::inOneRun(std::size_t a, std::size_t b) const {
    const std::uint32_t cell = cells_.fishCell[cells_.order[a]];
    if (cell != cells_.fishCell[cells_.order[b]]) return false;
    // A cell that holds one group at most is one run: its fish share the cell's candidates.
    return cells_.cellStart[cell + 1] - cells_.cellStart[cell] <= kGroupMost ||
           slotOctant_[a] == slotOctant_[b];
}

std::size_t CpuSolver::runStartOf(std::size_t i) const {
    const std::uint32_t cell = cells_.fishCell[cells_.order[i]];
    const std::size_t cellFirst = cells_.cellStart[cell];
    if (cells_.cellStart[cell + 1] - cellFirst <= kGroupMost) return cellFirst;
    // A fuller cell's fish are in order of their half-cells: found in log time, however many
    // fish share one (a school gathered in one cell, a tank of one cell).
    const auto octants = slotOctant_.begin();
    return static_cast<std::size_t>(
        std::lower_bound(octants + static_cast<std::ptrdiff_t>(cellFirst),
                         octants + static_cast<std::ptrdiff_t>(i), slotOctant_[i]) -
        octants);
}

CpuSolver::Group CpuSolver::groupAt(std::size_t i, std::size_t runStart) const {
    Group group;
    group.first = runStart + (i - runStart) / kGroupMost * kGroupMost;
    group.last = group.first + 1;
    while (group.last < size() && group.last - group.first < kGroupMost &&
           inOneRun(group.first, group.last))
        ++group.last;
    // A NaN compares false and is left out: it is never within a radius.
    constexpr float kInf = std::numeric_limits<float>::infinity();
    group.low = glm::vec3(kInf);
    group.high = glm::vec3(-kInf);
    const Arrays& a = *current_;
    for (std::size_t k = group.first; k < group.last; ++k) {
        const glm::vec3 p(a.px[k], a.py[k], a.pz[k]);
        for (int axis = 0; axis < 3; ++axis) {
            group.low[axis] = p[axis] < group.low[axis] ? p[axis] : group.low[axis];
            group.high[axis] = p[axis] > group.high[axis] ? p[axis] : group.high[axis];
        }
    }
    return group;
}

std::size_t CpuSolver::packCandidates(const CandidateRanges& ranges, const Group& group,
                                      float reach2, bool withSpecies, bool withIds,
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
    // The same candidates with AVX-512's masks where the processor has them (ids aside: the
    // plain path packs those).
    const bool wide = avx512::available() && !withIds;
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
        for (int axis = 0; axis < 3; ++axis) {
            packed.low[axis] = low[axis];
            packed.high[axis] = high[axis];
        }
        packed.reach2 = reach2;
        packed.mark = group.first;
    }
    for (const CandidateRange& range : ranges) {
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
    }
    run.count = count;
    return groupAt;
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
            acc.nearest.k = std::clamp<std::uint32_t>(
                query.search.neighborCount, 1, static_cast<std::uint32_t>(kMaxNeighborCount));
            acc.finding = true;
            addRanges();
            acc.finding = false;
            KeptCandidates kept;
            const std::size_t n = acc.nearest.count;
            const bool images = source.imageX != nullptr;
            for (std::size_t k = 0; k < n; ++k) {
                const std::size_t j = acc.nearest.slot[k];
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

template <std::uint32_t kFeatures>
void CpuSolver::stepRange(std::size_t begin, std::size_t end, bool useGrid, StepFrameCopy frame) {
    constexpr bool kFieldOfView = (kFeatures & glsl::kFeatureFieldOfView) != 0u;
    constexpr bool kSpecies = (kFeatures & glsl::kFeatureSpecies) != 0u;
    constexpr bool kKinds = (kFeatures & glsl::kFeatureKinds) != 0u;
    constexpr bool kTopological = (kFeatures & glsl::kFeatureTopological) != 0u;
    const SearchConstants schoolSearch(stepParams_);
    const glm::vec4* flowNodes = flow_ ? flow_->nodes().data() : nullptr;
    const Arrays& in = *current_;
    Arrays& out = *next_;
    // The fish of a group sit together, near one another, and search the same candidates: the
    // candidate ranges are found once a cell, packed once a group, and summed a group at a time.
    CandidateRanges candidates;
    CandidateRun run;
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
        sumNeighbours<kFeatures & kSearchFeatures>(queries.data(), last - first, source,
                                                   sums.data());
        for (std::size_t i = first; i < last; ++i) {
            const SearchQuery& query = queries[i - first];
            const StepParamsData& own = kSpecies ? speciesParams_[slotSpecies_[i]] : stepParams_;
            StepRule<kFeatures> rule(own, rocks_.data(), flowNodes, specials_.data());
            glm::vec3 prey = query.position;
            if constexpr (kKinds) {
                if (rule.kindOf(ids_[i]) == glsl::kKindPredator) prey = nearestPrey(i);
            }
            const FishUpdate u =
                rule.integrateFish(query.position, query.velocity, sums[i - first], ids_[i], prey);
            out.store(i, u.position, u.velocity, u.acceleration);
            // The fish as it was, by upload index: a miss or two the step's arithmetic hides.
            if (frame.positions != nullptr) frame.store(ids_[i], query.position, query.velocity);
        }
        first = last;
    }
}

}  // namespace fishschool
