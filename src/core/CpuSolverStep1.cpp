// The step's instances of step file 1 (CpuSolver::stepFileOf, CpuSolverStep.h): the 12 sets with
// the field of view alone of the behaviours that change the neighbour sums (kSearchFeatures),
// species with the field of view (2), and "vicsek" alone and with the field of view. One of four
// files, which a build compiles in parallel.

#include "CpuSolverStep.h"

namespace fishschool {

template CpuSolver::StepRange CpuSolver::stepRangeOf<1>(std::uint32_t features);

}  // namespace fishschool
