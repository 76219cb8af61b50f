#pragma once

// FishSchool as a library: start here. A Simulation holds one school and the backend that steps
// it (Simulation.h); its parameters are SimParams (SimParams.h, the keys of docs/config.md), its
// fish Fish (Fish.h), and its measures SchoolMetrics (Metrics.h). Every call that can fail
// returns a Result (Result.h) whose error says what was wrong and what is allowed. Ensembles of
// runs over a grid of parameters and seeds run from their file with runEnsembleFile (Ensemble.h).
// A school's history is written and read as an H5MD trajectory (Trajectory.h), and measured and
// compared with another by its distributions (Distributions.h). A run's start
// and what it records (trajectories, measures, the end state) are Run.h's, the same for every
// front end.

#include "fishschool/Anisotropy.h"
#include "fishschool/Config.h"
#include "fishschool/Distributions.h"
#include "fishschool/Ensemble.h"
#include "fishschool/Fish.h"
#include "fishschool/Fit.h"
#include "fishschool/Import.h"
#include "fishschool/Metrics.h"
#include "fishschool/Result.h"
#include "fishschool/Run.h"
#include "fishschool/SimParams.h"
#include "fishschool/Simulation.h"
#include "fishschool/Trajectory.h"
