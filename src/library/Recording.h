#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fishschool/Run.h"
#include "fishschool/Simulation.h"
#include "io/OutputFiles.h"
#include "io/Recorders.h"

namespace fishschool {

/// The outputs a Simulation records (Simulation::startRecording): its trajectories, measures and
/// end state, one set of files put into place together by finish() or none. It schedules the
/// frames: a frame waits for the step after it, which copies each fish as it reads it
/// (Simulation::stepCopyingFrame); one that no step follows is copied alone.
class Recording {
  public:
    /// The raw steps of the simulation, which do not come back here.
    struct Steps {
        std::function<Result<void>()> step;
        std::function<Result<void>(std::span<float>, std::span<float>)> stepCopying;
    };

    [[nodiscard]] static Result<std::unique_ptr<Recording>> start(
        Simulation& sim, std::span<const RunOutput> outputs);
    ~Recording();

    /// One step of `sim`, and the frames and rows of the step it reaches.
    [[nodiscard]] Result<void> step(Simulation& sim, const Steps& steps);
    /// A frame and a row of every output now, where not recorded at this step already.
    [[nodiscard]] Result<void> recordNow(Simulation& sim);
    /// Before a change of parameters: the frame waiting for a step is taken now.
    [[nodiscard]] Result<void> beforeChange(Simulation& sim);
    /// After it: the change recorded at the step it was made.
    [[nodiscard]] Result<void> afterChange(Simulation& sim);
    /// Whether the recording holds a school of a fixed size (a trajectory).
    bool fixesFishCount() const { return !trajectories_.empty(); }
    /// What was written so far.
    RecordingSummary progress() const;
    [[nodiscard]] Result<RecordingSummary> finish(Simulation& sim);

  private:
    struct Trajectory {
        std::unique_ptr<TrajectoryRecorder> recorder;
        std::int64_t every = 1;
        std::string name;
        std::optional<std::int64_t> lastStep;
        std::int64_t lastWritten = 0;
    };
    struct Rows {
        std::string name;
        std::int64_t every = 1;
        std::size_t count = 0;
        std::optional<std::int64_t> lastStep;
    };
    struct Pending {
        std::int64_t step = 0;
        double seconds = 0.0;
        std::optional<SchoolMetrics> measures;
        std::vector<std::size_t> trajectories;  ///< indices of trajectories_ due
    };

    Recording() = default;
    /// The frames and rows due at the step `sim` is at; `all`: every output's.
    [[nodiscard]] Result<void> record(Simulation& sim, bool all);
    [[nodiscard]] Result<void> takePendingAlone(Simulation& sim);
    /// Frame `pending` into trajectories from `next` on, its values written by `fill`, with
    /// each fish's kick clock (kickClocks_: none, 0 each).
    [[nodiscard]] Result<void> addFrames(const Pending& pending, std::size_t next,
                                         const TrajectoryWriter::FrameFill& fill);
    /// Whether a frame of the school `sim` holds needs its kick clocks: a trajectory records them
    /// and the steering is burst-and-coast.
    bool needsKickClocks(Simulation& sim) const;

    OutputFiles files_;
    std::vector<Trajectory> trajectories_;
    std::vector<Rows> measures_;
    std::optional<std::string> state_;  ///< the state output's name
    /// The kick clocks of the frame being added, fish by fish; empty: none (0 each).
    std::vector<float> kickClocks_;
    bool measureFrames_ = false;  ///< frames carry the school's measures
    std::int64_t firstStep_ = 0;
    std::optional<Pending> pending_;
};

}  // namespace fishschool
