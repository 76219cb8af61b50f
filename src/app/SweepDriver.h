#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "SimulationController.h"
#include "app_model/FpsRecorder.h"
#include "core/Backend.h"
#include "fishschool/Result.h"
#include "ui/Panel.h"

namespace fishschool::app {

/// Runs the FPS recorder's sweeps and records against the running school: sets the scene each
/// case asks for, brings its school to a formed state in simulated steps before the case is
/// measured, and gives the school back as it was when the sweep ends. The panel starts sweeps
/// through recorder(); `--sweep` through start().
class SweepDriver {
  public:
    /// Simulated steps from a fresh school before a case is measured, so that each case measures
    /// the same formed school wherever and whenever it runs (as `fishschool-cli bench --warmup`).
    std::int64_t warmupSteps = 200;
    /// Print each case on stderr as it finishes, and each case skipped (a `--sweep` run).
    bool printProgress = false;

    /// Starts a sweep over `backends` (those this machine cannot run are skipped, said on
    /// stderr) and `fishCounts`.
    Result<void> start(SimulationController& sim, std::vector<BackendKind> backends,
                       const std::vector<std::int64_t>& fishCounts);

    /// Feeds one frame to the recorder and carries out what it asks. Errors and notices go to
    /// the panel.
    void onFrame(ui::FrameSample sample, SimulationController& sim, ui::Panel& panel);

    ui::FpsRecorder& recorder() { return recorder_; }
    const ui::FpsRecorder& recorder() const { return recorder_; }

  private:
    void restore(SimulationController& sim, ui::Panel& panel);

    ui::FpsRecorder recorder_;
    std::size_t rowsPrinted_ = 0;
    /// The scene before a sweep, set back when it ends.
    struct SceneBefore {
        BackendKind backend;
        School school;
        bool paused;
        double simulatedSeconds;
    };
    std::optional<SceneBefore> before_;
};

}  // namespace fishschool::app
