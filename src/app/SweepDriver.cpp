#include "SweepDriver.h"

#include <cstdio>
#include <iostream>
#include <string>

#include "backends/BackendRegistry.h"

namespace fishschool::app {

Result<void> SweepDriver::start(SimulationController& sim, std::vector<BackendKind> backends,
                                const std::vector<std::int64_t>& fishCounts) {
    std::vector<BackendKind> runnable;
    for (BackendKind kind : backends) {
        const std::string& reason = sim.unavailableReason(kind);
        if (reason.empty())
            runnable.push_back(kind);
        else
            std::cerr << "sweep: skipping " << toString(kind) << ": " << reason << "\n";
    }
    return recorder_.startSweep(runnable, fishCounts);
}

void SweepDriver::onFrame(ui::FrameSample sample, SimulationController& sim, ui::Panel& panel) {
    sample.settling = sim.fastForwardLeft() > 0.0;
    if (recorder_.sweeping() && !before_)
        before_ = SceneBefore{sim.backendKind(), sim.backend().download(), sim.paused,
                              sim.simulatedSeconds()};
    const ui::FpsRecorder::Request request = recorder_.onFrame(sample);
    if (request.backend || request.fish) {
        Result<void> set = sim.setScene(request.backend.value_or(sim.backendKind()),
                                        request.fish.value_or(sim.params().fishCount));
        if (set) {
            // The same school every time: a fresh one from the config's seed, formed by the
            // warm-up steps, which run as a fast-forward so the window keeps answering.
            sim.reset(sim.params().seed);
            sim.paused = false;
            sim.fastForward(static_cast<double>(warmupSteps) * sim.params().dt);
            // Then one step a frame, so a case's frames step the same school on any machine.
            sim.stepsPerFrame = 1;
            panel.clearError();
        } else {
            recorder_.skipCase(set.error());
            if (printProgress) std::cerr << "sweep: skipped " << recorder_.skipped().back() << "\n";
            panel.showError(set.error());
        }
    }
    if (!recorder_.sweeping() && before_) restore(sim, panel);
    if (printProgress && recorder_.records().size() > rowsPrinted_) {
        // Progress where the user looks: the terminal that started the sweep.
        const ui::FpsRecord& row = recorder_.records().back();
        rowsPrinted_ = recorder_.records().size();
        std::fprintf(stderr, "sweep: %zu/%zu %s, %lld fish: %.1f FPS\n", recorder_.casesDone(),
                     recorder_.caseCount(), std::string(toString(row.backend)).c_str(),
                     static_cast<long long>(row.fish), row.fps);
    }
}

void SweepDriver::restore(SimulationController& sim, ui::Panel& panel) {
    sim.cancelFastForward();
    sim.stepsPerFrame.reset();
    // The fewer fish first, so no step of the way is refused; then the school as it was.
    Result<void> ok =
        sim.setScene(before_->backend, static_cast<std::int64_t>(before_->school.size()));
    if (ok) ok = sim.replaceSchool(before_->school);
    if (ok) sim.setSimulatedSeconds(before_->simulatedSeconds);
    sim.paused = before_->paused;
    if (ok) {
        panel.clearError();
        panel.showMessage("sweep done; the school is back as it was");
    } else {
        panel.showError(ok.error());
    }
    before_.reset();
}

}  // namespace fishschool::app
