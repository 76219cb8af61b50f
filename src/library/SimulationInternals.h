#pragma once

#include <memory>
#include <span>

#include "core/Backend.h"
#include "fishschool/Simulation.h"

namespace fishschool {

/// What this project's own front ends reach beneath the public API: the app draws the school from
/// its backend (Backend::drawSource) and asks it for snapshots. Not installed: a program that uses
/// the installed library cannot reach it.
struct SimulationInternals {
    static Backend& backend(Simulation& simulation);
    /// A simulation on a backend already made (the app's, and tests' that count its calls).
    [[nodiscard]] static Result<Simulation> create(const SimParams& params,
                                                   std::unique_ptr<Backend> backend,
                                                   std::span<const Fish> school);
};

}  // namespace fishschool
