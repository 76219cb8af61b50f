#include "TrajectoryRecording.h"

#include <utility>

#include "SimulationController.h"
#include "core/Messages.h"

namespace fishschool::app {

Result<std::unique_ptr<TrajectoryRecording>> TrajectoryRecording::start(
    SimulationController& sim, const std::filesystem::path& path, std::string flag,
    std::int64_t every) {
    auto recording = std::unique_ptr<TrajectoryRecording>(new TrajectoryRecording(sim));
    recording->path_ = path;
    recording->flag_ = std::move(flag);
    recording->every_ = every;
    auto temporary = recording->files_.addExternal(recording->flag_, path.string());
    if (!temporary) return fail(temporary.error());
    recording->recordedParams_ = sim.params();
    TrajectoryWriterOptions options;
    if (!sim.params().species.empty()) options.species = speciesOfSchool(sim.school());
    auto writer = TrajectoryWriter::create(*temporary, recording->recordedParams_, sim.fishCount(),
                                           options);
    if (!writer) return fail(writer.error());
    recording->writer_ = std::move(*writer);
    recording->addFrame(sim.stepCount());
    if (recording->failed_) return fail(*recording->ended_);
    sim.observeSteps(every, [r = recording.get()](std::int64_t step) { r->addFrame(step); });
    return recording;
}

TrajectoryRecording::~TrajectoryRecording() {
    if (!ended_) sim_.observeSteps(0, nullptr);
    // A writer not finished is closed here; files_ then removes its temporary file.
    if (writer_) (void)writer_->finish();
}

void TrajectoryRecording::addFrame(std::int64_t step) {
    if (ended_) return;
    if (sim_.fishCount() != writer_->fishCount()) {
        end("the fish count changed from " + std::to_string(writer_->fishCount()) + " to " +
                std::to_string(sim_.fishCount()),
            false);
        return;
    }
    Backend& backend = sim_.backend();
    const auto copy = [&](std::span<float> positions, std::span<float> velocities) {
        backend.downloadFrame(positions, velocities);
    };
    if (auto ok = writer_->addFrameFrom(step, sim_.simulatedSeconds(), copy); !ok) {
        end(ok.error(), true);
        return;
    }
    lastStep_ = step;
}

void TrajectoryRecording::followChanges() {
    if (ended_) return;
    const SimParams now = sim_.params();
    if (sim_.fishCount() != writer_->fishCount()) {
        end("the fish count changed from " + std::to_string(writer_->fishCount()) + " to " +
                std::to_string(sim_.fishCount()),
            false);
        return;
    }
    if (sim_.stepCount() < lastStep_) {
        end("the school was replaced (a reset or a loaded school starts its steps again)", false);
        return;
    }
    if (now == recordedParams_) return;
    recordedParams_ = now;
    if (auto ok = writer_->addParameterChange(sim_.stepCount(), sim_.simulatedSeconds(), now); !ok)
        end(ok.error(), true);
}

void TrajectoryRecording::end(std::string why, bool failure) {
    sim_.observeSteps(0, nullptr);
    ended_ = std::move(why);
    failed_ = failure;
}

Result<std::size_t> TrajectoryRecording::finish() {
    if (!ended_) end("stopped", false);
    if (failed_) return fail(*ended_);
    const std::size_t frames = finishedFrames_ = writer_->frameCount();
    auto ok = writer_->finish();
    writer_.reset();
    if (!ok) return fail(ok.error());
    if (auto committed = files_.commit(); !committed) return fail(committed.error());
    return frames;
}

}  // namespace fishschool::app
