#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "Backend.h"
#include "FlowField.h"
#include "GridShape.h"
#include "StepRule.h"
#include "fishschool/Fish.h"
#include "fishschool/SimParams.h"

// The step (its rule, its neighbour search and the packing of candidates) for x86-64, x86-64-v3
// (AVX2) and x86-64-v4 (AVX-512), one chosen when the program loads: SSE2 alone spills the 8-lane
// masks to memory, and a portable build stepped 5 to 8.5 times slower than a native one on an
// AVX-512 Xeon (the rule alone, 1.5 times). The same bits on each (-ffp-contract=off). One
// instruction set where the build targets one already (-march=native) or the step is not what is
// measured (the fuzz build): the clones triple the step's compile time.
#if defined(__x86_64__) && !defined(FISHSCHOOL_ONE_INSTRUCTION_SET)
#define FISHSCHOOL_STEP_CLONES \
    [[gnu::target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4"), gnu::flatten]]
#elif !defined(FISHSCHOOL_STEP_NOT_FLATTENED)
// Flattened all the same: without it a native build called the rule's helpers
// (StepRule::normalizeOrZero) out of line and stepped about 7 % slower than a portable one.
#define FISHSCHOOL_STEP_CLONES [[gnu::flatten]]
#else
// Under the sanitizers (CMakeLists.txt): each set's step flattened into one function took 4 to
// 5 times the CPU to compile, for nothing the checks need.
#define FISHSCHOOL_STEP_CLONES
#endif

namespace fishschool {

/// Where a step writes the school as it was before it (Backend::stepCopyingFrame), float triples
/// by upload index; null: nowhere.
struct StepFrameCopy {
    float* positions = nullptr;
    float* velocities = nullptr;

    /// Fish `id`'s position and velocity, at its place in upload order.
    void store(std::uint32_t id, const glm::vec3& position, const glm::vec3& velocity) const {
        const std::size_t f = 3 * std::size_t{id};
        positions[f] = position.x;
        positions[f + 1] = position.y;
        positions[f + 2] = position.z;
        velocities[f] = velocity.x;
        velocities[f + 1] = velocity.y;
        velocities[f + 2] = velocity.z;
    }
};

/// docs/model.md's step over a structure-of-arrays copy of the school, with all-pairs or grid
/// neighbour search. The cpu and tbb backends differ only in the ParallelFor they hand in; every
/// result is independent of how the work is split, so the two are bit-identical.
class CpuSolver {
  public:
    /// Runs body(begin, end) over chunks that cover [0, count), in any order or concurrently.
    using ParallelFor =
        std::function<void(std::size_t count, std::size_t grain,
                           const std::function<void(std::size_t, std::size_t)>& body)>;

    explicit CpuSolver(ParallelFor parallelFor);

    void setParams(const SimParams& params);
    void upload(std::span<const Fish> school);
    /// The school in upload order.
    School download() const;
    /// The same into `school`, which keeps its memory when it already holds as many fish.
    void downloadInto(School& school) const;
    /// Backend::downloadFrame: gathered on every thread the solver steps with.
    void downloadFrame(std::span<float> positions, std::span<float> velocities) const;
    /// The current state, shared rather than copied: until the snapshot goes, steps write into
    /// other buffers.
    std::shared_ptr<const SchoolSnapshot> snapshot() const;
    std::size_t size() const { return ids_.size(); }
    /// `stepIndex`: the count of steps before this one, for the noise.
    void step(std::uint64_t stepIndex, StepFrameCopy frame = {});

    /// The upload indices of the fish within `radius` (strict <) of fish `uploadIndex`, as the
    /// current search mode finds them; for tests. Builds the grid for the current state.
    std::vector<std::uint32_t> neighborsOf(std::uint32_t uploadIndex, float radius);

  private:
    /// One buffer of the double-buffered state: n fish, then a few zeros of padding. The
    /// accelerations are only written and downloaded, never read by the step.
    struct Arrays {
        std::vector<float> px, py, pz, vx, vy, vz, ax, ay, az;
        /// Steering "burst-and-coast": each fish's time to its next kick (Fish::kickClock).
        std::vector<float> kickClock;
        void resize(std::size_t n);
        void store(std::size_t i, const glm::vec3& position, const glm::vec3& velocity,
                   const glm::vec3& acceleration) {
            px[i] = position.x;
            py[i] = position.y;
            pz[i] = position.z;
            vx[i] = velocity.x;
            vy[i] = velocity.y;
            vz[i] = velocity.z;
            ax[i] = acceleration.x;
            ay[i] = acceleration.y;
            az[i] = acceleration.z;
        }
    };

    /// Whether the step searches the grid: grid search with a radius, and in a periodic tank a
    /// grid that holds the wrapped search (else every pair, through the nearest image).
    bool usesGrid() const;
    /// The grid of the step for the current fish count.
    GridShape gridShape() const;
    /// The lowest and the highest coordinate of the school on each axis, NaNs left out.
    std::pair<glm::vec3, glm::vec3> schoolBounds() const;
    /// Makes next_ a buffer no snapshot reads, before a step writes it.
    void claimNext();
    /// Sorts current_ by cell. The accelerations are reordered only when `keepAccelerations`:
    /// a step rewrites every one of them anyway.
    void buildGrid(bool keepAccelerations);
    /// buildGrid's order from the last one, where `moverCount` fish changed cell or half-cell;
    /// false where it cannot be (then nothing it wrote is read).
    template <class Copy>
    bool mendOrder(std::size_t moverCount, const Copy& copy);
    /// A thread's buffers of packed candidates, kept from one stepRange to the next
    /// (CpuSolverStep.h).
    class ThreadCandidateRun;
    /// The step of slots [begin, end) with the behaviours `kFeatures` (kFeature* bits) compiled in:
    /// the fish in groups (Group), each group's neighbour sums (sumNeighbours), then each fish's
    /// rule. Compiled for three instruction sets (FISHSCHOOL_STEP_CLONES).
    template <std::uint32_t kFeatures>
    FISHSCHOOL_STEP_CLONES void stepRange(std::size_t begin, std::size_t end, bool useGrid,
                                          StepFrameCopy frame);
    /// What one fish's search needs to know of it (CpuSolverStep.h).
    struct SearchQuery;
    /// Where a group's candidates lie: ranges of slots in arrays of positions and velocities.
    struct CandidateSource;
    /// The neighbour sums of `count` fish that share `source`'s candidates into sums[0, count).
    /// kSearch: the behaviours that change what a neighbour adds (kSearchFeatures), the others
    /// are the rule's: 12 sets rather than the rule's 58. Compiled for three instruction sets
    /// (FISHSCHOOL_STEP_CLONES).
    template <std::uint32_t kSearch>
    FISHSCHOOL_STEP_CLONES void sumNeighbours(const SearchQuery* queries, std::size_t count,
                                              const CandidateSource& source,
                                              NeighborSums* sums) const;
    static constexpr std::uint32_t kSearchFeatures =
        glsl::kFeatureFieldOfView | glsl::kFeatureInverseSquare | glsl::kFeatureCouzin |
        glsl::kFeatureSpecies | glsl::kFeatureVicsek | glsl::kFeatureTopological;
    using StepRange = void (CpuSolver::*)(std::size_t, std::size_t, bool, StepFrameCopy);
    /// The step's instances are compiled in kStepFiles files, CpuSolverStep0.cpp to
    /// CpuSolverStep3.cpp, so that a build compiles them in parallel: the sets of behaviours of
    /// file stepFileOf(features) in each (CpuSolverInternals.h).
    static constexpr std::size_t kStepFiles = 4;
    static constexpr std::size_t stepFileOf(std::uint32_t features);
    /// stepRange<kFeatures> for a set that is used (usedFeatureSet) and step file kFile's, else
    /// null: not compiled there.
    template <std::size_t kFile, std::uint32_t kFeatures>
    static constexpr StepRange stepRangeFor() {
        if constexpr (usedFeatureSet(kFeatures) && stepFileOf(kFeatures) == kFile)
            return &CpuSolver::stepRange<kFeatures>;
        else
            return nullptr;
    }
    /// Step file kFile's stepRange<features>, or null where the set is not that file's. Taken
    /// in the file that compiles the instance (CpuSolverStep.h): a file that takes the address of
    /// a target_clones function it does not define makes a resolver of its own, which calls the
    /// clones by names the defining file keeps local, and the link fails where the linker keeps
    /// that resolver.
    template <std::size_t kFile>
    static StepRange stepRangeOf(std::uint32_t features);
    /// Position and velocity of every leader and predator, by upload index, into specials_.
    void gatherSpecials();
    /// The species and kinetic energy of every slot, and the step's index in each species' pack.
    void gatherSpecies(std::uint64_t stepIndex);
    /// The upload index of every slot, for topological neighbours' ties (slotIds_).
    void gatherIds();
    /// The position of the fish nearest to slot i that is not a predator (slot i's own position
    /// when there is none). Ties go to the lower slot.
    [[gnu::noinline]] glm::vec3 nearestPrey(std::size_t i) const;
    /// A range of sorted slots that may hold neighbours. acrossFace: in a periodic tank, its fish
    /// may lie across a face, and each is seen at its nearest image: on the grid the one `image`
    /// away from where it swims (a tank's size on each axis crossed, for every fish of the
    /// range within reach), for every pair found fish by fish.
    struct CandidateRange {
        std::size_t first = 0, last = 0;
        bool acrossFace = false;
        glm::vec3 image{0.0f};
    };
    /// The ranges of one cell's search: a row of cells per (y, z) around it, and in a periodic
    /// tank a second part where the row wraps (open water: merged runs of buckets).
    struct CandidateRanges {
        static constexpr std::size_t kMost = 2 * 3 * 3;
        std::array<CandidateRange, kMost> ranges;
        std::size_t count = 0;
        const CandidateRange* begin() const { return ranges.data(); }
        const CandidateRange* end() const { return ranges.data() + count; }
    };
    /// The candidates of one group of fish packed into one run, in range order: those that may
    /// lie within a radius of a fish of the group. Each fish of the group tests them in whole
    /// blocks, in one loop with one part-filled block (docs/performance-log.md). Padded as the
    /// arrays are.
    struct CandidateRun {
        std::vector<float> px, py, pz, vx, vy, vz;
        std::vector<float> imageX, imageY, imageZ;  ///< wraps: each candidate's nearest image
        std::vector<std::int32_t> species;          ///< with species: each candidate's
        std::vector<float> energy;                  ///< with species: each candidate's
        std::vector<std::int32_t> ids;              ///< topological: each candidate's
        /// Topological: each range's packed candidates (at most CandidateRanges::kMost rows) and
        /// the box of their positions, for the search of the k nearest to visit the nearest rows
        /// first and skip those past the k-th.
        struct Row {
            std::size_t first = 0, last = 0;
            glm::vec3 low{0.0f}, high{0.0f}, image{0.0f};
        };
        std::vector<Row> rows;
        std::size_t count = 0;
        bool wraps = false;  ///< a range lies across a periodic face: the images apply
    };
    /// A group of fish: at most kGroupMost sorted slots [first, last) of one run (inOneRun), and
    /// the box their positions span. It is the same whichever slots a thread steps, and so is
    /// what its fish sum.
    static constexpr std::size_t kGroupMost = 32;
    struct Group {
        std::size_t first = 0, last = 0;
        glm::vec3 low{0.0f}, high{0.0f};
    };
    /// Whether sorted slots a and b lie in one run that groups are cut from: one cell, and in a
    /// cell of more fish than a group holds, one half-cell on each axis.
    bool inOneRun(std::size_t a, std::size_t b) const;
    /// The first slot of the run that holds slot i.
    std::size_t runStartOf(std::size_t i) const;
    /// The group that holds slot i, found from `runStart`, the first slot of i's run.
    Group groupAt(std::size_t i, std::size_t runStart) const;
    /// Packs the candidates of `ranges` (with species: their species and energies) that may lie
    /// within `reach2` (squared) of a fish of `group` into `run`, and every fish of the group;
    /// returns where the group's first fish sits in it. Compiled once in each step file, not into
    /// each set of behaviours' step (as gatherCandidateRanges is compiled once).
    FISHSCHOOL_STEP_CLONES std::size_t packCandidates(const CandidateRanges& ranges,
                                                      const Group& group, float reach2,
                                                      bool withSpecies, bool withIds,
                                                      CandidateRun& run) const;
    /// The cell whose search holds the neighbours of slot i (open water: before hashing).
    glm::ivec3 searchCellOf(std::size_t i) const;
    /// The candidate ranges of the fish in `cell` on the grid built last.
    [[gnu::noinline]] void gatherCandidateRanges(const glm::ivec3& cell,
                                                 CandidateRanges& out) const;
    /// All-pairs: every slot, or none when no radius reaches a neighbour.
    void allCandidateRanges(CandidateRanges& out) const;

    ParallelFor parallelFor_;
    SimParams params_;
    std::shared_ptr<const FlowField> flow_;  ///< when seeking along a flow field
    StepParamsData stepParams_{};            ///< params_ as the step rule reads them
    std::vector<glm::vec4> rocks_;           ///< params_.rocks as the step rule reads them
    std::uint32_t features_ = 0;             ///< the behaviours of params_ that are on
    std::vector<glm::vec4> specials_;        ///< leaders and predators, as the step rule reads them
    /// Each species' parameter pack (one without species): what its fish step with.
    std::vector<StepParamsData> speciesParams_;
    std::vector<std::uint32_t> speciesOfId_;  ///< the species of each fish, by upload index
    std::vector<std::int32_t> slotSpecies_;   ///< kFeatureSpecies: the species of each slot
    std::vector<float> slotEnergy_;           ///< kFeatureSpecies: the kinetic energy of each slot
    std::vector<std::int32_t> slotIds_;       ///< kFeatureTopological: ids_, padded
    float reach2_ = 0.0f;  ///< the largest squared radius any fish searches, of every species

    /// The previous and the next state; a third buffer stands by while a snapshot holds one.
    std::shared_ptr<Arrays> current_ = std::make_shared<Arrays>();
    std::shared_ptr<Arrays> next_ = std::make_shared<Arrays>();
    std::shared_ptr<Arrays> spare_;
    std::vector<std::uint32_t> ids_, nextIds_;  ///< upload index of the fish in each slot

    GridShape grid_;
    std::vector<std::uint8_t> slotOctant_;  ///< the half-cells of each sorted slot
    std::vector<std::uint32_t> slotCell_;   ///< the cell of each sorted slot
    /// buildGrid: each unsorted slot's sort key, and the slots of the fish that changed cell or
    /// half-cell since the last sort, kSortChunk places a chunk of slots.
    std::vector<std::uint64_t> sortKeys_;
    std::vector<std::uint32_t> moverSlots_;
    /// What a chunk of slots holds for mendOrder: how many fish changed cell or half-cell, how
    /// many stayed and their first and last keys, whether those are in order; then which of the
    /// movers in key order it merges, and where it writes.
    struct SortChunk {
        std::uint64_t firstKey = 0, lastKey = 0;
        std::size_t movers = 0, stayed = 0, moversFrom = 0, moversTo = 0, writeAt = 0;
        bool inOrder = true;
    };
    std::vector<SortChunk> sortChunks_;
    /// mendOrder: the movers' keys and unsorted slots, in order of their keys.
    std::vector<std::pair<std::uint64_t, std::uint32_t>> movers_;
    /// Each cell's first sorted slot (cellStart) and each unsorted slot's cell (fishCell); order,
    /// the unsorted slot of each sorted slot, after a full sort only.
    CellSort cells_;
};

/// The part of the cpu and tbb backends that is the same: everything but how work is split.
class CpuSolverBackend : public Backend {
  public:
    explicit CpuSolverBackend(CpuSolver::ParallelFor parallelFor)
        : solver_(std::move(parallelFor)) {}

    [[nodiscard]] Result<void> setParams(const SimParams& params) override {
        solver_.setParams(params);
        return {};
    }
    [[nodiscard]] Result<void> upload(std::span<const Fish> school) override {
        solver_.upload(school);
        return {};
    }
    School download() override { return solver_.download(); }
    void downloadInto(School& school) override { solver_.downloadInto(school); }
    void downloadFrame(std::span<float> positions, std::span<float> velocities) override {
        solver_.downloadFrame(positions, velocities);
    }
    void requestSnapshot() override { snapshot_ = solver_.snapshot(); }
    std::shared_ptr<const SchoolSnapshot> takeSnapshot() override {
        return std::exchange(snapshot_, nullptr);
    }
    std::size_t fishCount() const override { return solver_.size(); }

  protected:
    void stepImpl() override { solver_.step(stepCount()); }
    void stepCopyingFrameImpl(std::span<float> positions, std::span<float> velocities) override {
        solver_.step(stepCount(), {positions.data(), velocities.data()});
    }

  private:
    CpuSolver solver_;
    std::shared_ptr<const SchoolSnapshot> snapshot_;
};

}  // namespace fishschool
