// The step's instances of step file 0 (CpuSolver::stepFileOf, CpuSolverStep.h): the 12 sets with
// none of the behaviours that change the neighbour sums (kSearchFeatures), and "couzin" with
// species. One of four files, which a build compiles in parallel.

#include "CpuSolverStep.h"

namespace fishschool {

template CpuSolver::StepRange CpuSolver::stepRangeOf<0>(std::uint32_t features);

}  // namespace fishschool
