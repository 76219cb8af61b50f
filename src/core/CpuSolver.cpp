// The CPU solver's state and its step: parameters, upload, download, snapshots, the buffers'
// turns, what a step gathers before the rule (leaders, predators, species) and step(), which runs
// the instance of the rule for the parameters' set of behaviours. The grid is in
// CpuSolverGrid.cpp, the packing, the neighbour sums and the rule in CpuSolverStep.h, compiled by
// the step's files (CpuSolverInternals.h).

#include "CpuSolver.h"

#include "CpuSolverInternals.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace fishschool {

using namespace cpu_solver;

void CpuSolver::Arrays::resize(std::size_t n) {
    // kLanes zeros past the end let the search read whole blocks (see RangeAccumulator::add).
    for (auto* a : {&px, &py, &pz, &vx, &vy, &vz, &ax, &ay, &az, &kickClock})
        a->assign(n + kLanes, 0.0f);
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
    // No order to mend: the first sort sorts anew.
    slotCell_.clear();
    for (std::size_t i = 0; i < n; ++i) {
        current_->store(i, school[i].position, school[i].velocity, school[i].acceleration);
        current_->kickClock[i] = school[i].kickClock;
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
        f.kickClock = current_->kickClock[k];
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
    // compiled in. Each is found in the step file that compiles it (stepRangeOf).
    static constexpr auto kRangesOfFile = []<std::size_t... K>(std::index_sequence<K...>) {
        return std::array<StepRange (*)(std::uint32_t), sizeof...(K)>{&stepRangeOf<K>...};
    }
    (std::make_index_sequence<kStepFiles>{});
    const StepRange stepRange = kRangesOfFile[stepFileOf(features_)](features_);
    claimNext();
    parallelFor_(n, useGrid ? kGridGrain : kAllPairsGrain, [&](std::size_t begin, std::size_t end) {
        (this->*stepRange)(begin, end, useGrid, frame);
    });
    std::swap(current_, next_);
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

}  // namespace fishschool
