// The step's instances of step file 3 (CpuSolver::stepFileOf, CpuSolverStep.h): the 12 sets with
// the field of view and inverse-square separation alone of the behaviours that change the neighbour
// sums (kSearchFeatures), and "vicsek" with species. One of four files, which a build compiles in
// parallel.

#include "CpuSolverStep.h"

namespace fishschool {

template CpuSolver::StepRange CpuSolver::stepRangeOf<3>(std::uint32_t features);

}  // namespace fishschool
