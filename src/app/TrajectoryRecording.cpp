#include "TrajectoryRecording.h"

#include <utility>
#include <vector>

#include "SimulationController.h"
#include "fishschool/Run.h"

namespace fishschool::app {

Result<std::unique_ptr<TrajectoryRecording>> TrajectoryRecording::start(
    SimulationController& sim, const std::filesystem::path& path, std::string flag,
    std::int64_t every) {
    auto recording = std::unique_ptr<TrajectoryRecording>(new TrajectoryRecording(sim));
    recording->path_ = path;
    recording->flag_ = std::move(flag);
    recording->every_ = every;
    RunOutput output;
    output.kind = OutputKind::Trajectory;
    output.path = path;
    output.every = every;
    output.measured = true;  // as the CLI's: MDAnalysis and Python read them at each frame
    output.name = recording->flag_;
    const std::vector<RunOutput> outputs{output};
    if (auto ok = sim.simulation().startRecording(outputs); !ok) return fail(ok.error());
    return recording;
}

TrajectoryRecording::~TrajectoryRecording() {
    if (!finished_ && !ended_) sim_.simulation().dropRecording();
}

void TrajectoryRecording::followChanges() {
    if (ended_) return;
    if (auto failure = sim_.takeRecordingFailure()) {
        ended_ = std::move(*failure);
        failed_ = true;
    } else if (!sim_.simulation().recording()) {
        ended_ = "stopped";
    }
}

std::size_t TrajectoryRecording::frames() const {
    return finished_ ? finishedFrames_ : sim_.simulation().recordingProgress().frames;
}

std::int64_t TrajectoryRecording::lastStep() const {
    return finished_ ? finishedLastStep_ : sim_.simulation().recordingProgress().lastFrameStep;
}

Result<std::size_t> TrajectoryRecording::finish() {
    if (failed_) return fail(*ended_);
    if (finished_) return finishedFrames_;
    finished_ = true;
    if (!sim_.simulation().recording()) return fail(flag_ + ": the recording had ended");
    auto summary = sim_.simulation().finishRecording();
    if (!summary) return fail(summary.error());
    finishedFrames_ = summary->frames;
    finishedLastStep_ = summary->lastFrameStep;
    return summary->frames;
}

}  // namespace fishschool::app
