#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "fishschool/Result.h"

namespace fishschool::app {

class SimulationController;

/// The app's recording of its school to a trajectory (docs/trajectories.md): the library's
/// (Simulation::startRecording), which takes a frame when it starts and every `every` steps,
/// with the school's measures, and each change of parameters at its step, and puts the file into
/// place when it finishes; dropped unfinished, it replaces nothing. This adds what the panel
/// shows: the path, the flag that asked for it, and why it ended.
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

    /// What the app does each frame once the panel's requests are carried out: ends the
    /// recording (ended() says why) when a step could not record (a full disk).
    void followChanges();
    /// Why the recording ended on its own, or nullopt while it runs. A failure makes failed()
    /// true, and the file is then dropped.
    const std::optional<std::string>& ended() const { return ended_; }
    bool failed() const { return failed_; }

    /// Ends the file and puts it into place; returns the frames it holds. An error (exit status
    /// 1) names the file.
    [[nodiscard]] Result<std::size_t> finish();

    const std::filesystem::path& path() const { return path_; }
    const std::string& flag() const { return flag_; }
    std::size_t frames() const;
    std::int64_t lastStep() const;
    std::int64_t every() const { return every_; }

  private:
    explicit TrajectoryRecording(SimulationController& sim) : sim_(sim) {}

    SimulationController& sim_;
    std::filesystem::path path_;
    std::string flag_;
    std::int64_t every_ = 1;
    std::size_t finishedFrames_ = 0;
    std::int64_t finishedLastStep_ = 0;
    bool finished_ = false;
    std::optional<std::string> ended_;
    bool failed_ = false;
};

}  // namespace fishschool::app
