#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "fishschool/Metrics.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"
#include "io/OutputFiles.h"
#include "io/Trajectory.h"

namespace fishschool::app {

class SimulationController;

/// Records the school a SimulationController runs to a trajectory (docs/trajectories.md): a
/// frame when it starts and after every `every` steps (SimulationController::observeSteps), the
/// measures the app takes, and each change of parameters with its step. The file is an output as
/// any other: written under a temporary name (OutputFiles::addExternal) and put into place by
/// finish(), so a recording that fails or is dropped replaces nothing.
class TrajectoryRecording {
  public:
    /// Starts recording `sim`'s school to `path`, the output of `flag` ("--trajectory", or
    /// "trajectory" from the panel), with a frame of the school as it is now.
    [[nodiscard]] static Result<std::unique_ptr<TrajectoryRecording>> start(
        SimulationController& sim, const std::filesystem::path& path, std::string flag,
        std::int64_t every);
    TrajectoryRecording(const TrajectoryRecording&) = delete;
    TrajectoryRecording& operator=(const TrajectoryRecording&) = delete;
    /// Without finish(), the file is dropped and nothing replaced.
    ~TrajectoryRecording();

    /// What the app does each frame once the panel's requests are carried out: records new
    /// parameters as a change at the current step, and ends the recording (ended() says why)
    /// when the school is no longer the one recorded: a new fish count, a fresh or loaded school.
    void followChanges();
    /// Why the recording ended on its own (the school changed, the writer failed), or nullopt
    /// while it runs. A writer's failure makes failed() true.
    const std::optional<std::string>& ended() const { return ended_; }
    bool failed() const { return failed_; }

    /// Ends the file and puts it into place; returns the frames it holds. An error (exit status
    /// 1) names the file.
    [[nodiscard]] Result<std::size_t> finish();

    const std::filesystem::path& path() const { return path_; }
    const std::string& flag() const { return flag_; }
    std::size_t frames() const { return writer_ ? writer_->frameCount() : finishedFrames_; }
    std::int64_t lastStep() const { return lastStep_; }
    std::int64_t every() const { return every_; }

  private:
    TrajectoryRecording(SimulationController& sim) : sim_(sim) {}
    void addFrame(std::int64_t step);
    /// Stops recording frames, keeping what was written, and says why.
    void end(std::string why, bool failure);

    SimulationController& sim_;
    std::filesystem::path path_;
    std::string flag_;
    OutputFiles files_;
    std::unique_ptr<TrajectoryWriter> writer_;
    SimParams recordedParams_;  ///< the parameters last recorded
    std::int64_t lastStep_ = 0;
    std::size_t finishedFrames_ = 0;
    std::int64_t every_ = 1;
    std::optional<std::string> ended_;
    bool failed_ = false;
};

}  // namespace fishschool::app
