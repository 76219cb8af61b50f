// The step's instances of step file 2 (CpuSolver::stepFileOf, CpuSolverStep.h): the 12 sets with
// inverse-square separation alone of the behaviours that change the neighbour sums
// (kSearchFeatures), species with the field of view and inverse-square separation (2), and "couzin"
// alone and with the field of view. One of four files, which a build compiles in parallel.

#include "CpuSolverStep.h"

namespace fishschool {

template CpuSolver::StepRange CpuSolver::stepRangeOf<2>(std::uint32_t features);

}  // namespace fishschool
