#pragma once

// What the files of the CPU solver share. CpuSolver.h's class is written in several files, by
// concern, so that a build compiles them in parallel: CpuSolver.cpp (parameters, upload,
// download, snapshots, step()), CpuSolverGrid.cpp (the sort by cell and a cell's candidate
// ranges) and the step's files, CpuSolverStep0.cpp to CpuSolverStep3.cpp, which compile the
// templates of CpuSolverStep.h for the sets of behaviours CpuSolver::stepFileOf deals each. The
// grid's lookups that the step makes for every fish or group are inline here: called across
// files, they made the step 3 to 7 % slower (docs/performance-log.md).

#include "CpuSolver.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace fishschool {
namespace cpu_solver {

// Eight float or int lanes (GCC/Clang vector extensions): AVX on x86-64, two SSE registers
// without it. Spelling the lanes out makes the order of every sum fixed, whatever the compiler,
// the alignment of the arrays or the split across threads.
inline constexpr int kLanes = 8;
using Floats = float __attribute__((vector_size(kLanes * sizeof(float))));
using Ints = std::int32_t __attribute__((vector_size(kLanes * sizeof(std::int32_t))));

inline Floats load(const float* p) {
    Floats v;
    std::memcpy(&v, p, sizeof v);
    return v;
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

inline constexpr int kCellsPerRadius = 1;
inline constexpr std::size_t kAllPairsGrain = 64;
inline constexpr std::size_t kGridGrain = 256;

}  // namespace cpu_solver

// Each search set (kSearchFeatures) is dealt to one step file whole, so that its sums
// (sumNeighbours) are compiled in that file alone: the four search sets of 12 sets each (with or
// without the field of view and inverse-square separation) one a file, the four with species,
// fewer sets but the dearest to compile, one a file, and "couzin" and "vicsek" without species
// where they even out the files' compile times (docs/performance-log.md).
constexpr std::size_t CpuSolver::stepFileOf(std::uint32_t features) {
    using namespace glsl;
    if ((features & kFeatureTopological) != 0u) {
        // Topological neighbours' eight search sets, two a file.
        switch (features &
                (kFeatureInverseSquare | kFeatureCouzin | kFeatureVicsek | kFeatureSpecies)) {
            case 0u:
            case kFeatureSpecies | kFeatureVicsek:
                return 0;
            case kFeatureInverseSquare:
            case kFeatureSpecies:
                return 1;
            case kFeatureCouzin:
            case kFeatureSpecies | kFeatureInverseSquare:
                return 2;
            default:  // "vicsek"; "couzin" with species
                return 3;
        }
    }
    switch (features & kSearchFeatures) {
        case 0u:
        case kFeatureFieldOfView | kFeatureCouzin | kFeatureSpecies:
            return 0;
        case kFeatureFieldOfView:
        case kFeatureFieldOfView | kFeatureSpecies:
        case kFeatureVicsek:
        case kFeatureFieldOfView | kFeatureVicsek:
            return 1;
        case kFeatureInverseSquare:
        case kFeatureFieldOfView | kFeatureInverseSquare | kFeatureSpecies:
        case kFeatureCouzin:
        case kFeatureFieldOfView | kFeatureCouzin:
            return 2;
        default:  // the field of view with inverse-square separation; "vicsek" with species
            return 3;
    }
}

// The grid's lookups that the step makes for every fish or group.

inline glm::ivec3 CpuSolver::searchCellOf(std::size_t i) const {
    const float x = current_->px[i], y = current_->py[i], z = current_->pz[i];
    return grid_.hashed ? grid_.openCellOf(x, y, z) : grid_.cellOf(x, y, z);
}

inline bool CpuSolver::inOneRun(std::size_t a, std::size_t b) const {
    const std::uint32_t cell = slotCell_[a];
    if (cell != slotCell_[b]) return false;
    // A cell that holds one group at most is one run: its fish share the cell's candidates.
    return cells_.cellStart[cell + 1] - cells_.cellStart[cell] <= kGroupMost ||
           slotOctant_[a] == slotOctant_[b];
}

inline std::size_t CpuSolver::runStartOf(std::size_t i) const {
    const std::uint32_t cell = slotCell_[i];
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

inline CpuSolver::Group CpuSolver::groupAt(std::size_t i, std::size_t runStart) const {
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

}  // namespace fishschool
