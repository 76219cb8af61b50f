#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fishschool/Fish.h"
#include "fishschool/Metrics.h"
#include "fishschool/Result.h"
#include "fishschool/Run.h"
#include "fishschool/SimParams.h"
#include "fishschool/Trajectory.h"

namespace fishschool {

/// A trajectory file a recording writes frame by frame, whatever its format: the one seam a new
/// format plugs into (a class and a line of makeTrajectoryRecorder).
class TrajectoryRecorder {
  public:
    virtual ~TrajectoryRecorder() = default;
    /// Adds the frame of `step`, its positions and velocities written by `fill` before this
    /// returns (TrajectoryWriter::addFrameFrom), each fish's kick clock (none: 0 each) where the
    /// format records them, with the school's measures or none.
    [[nodiscard]] virtual Result<void> addFrameFrom(
        std::int64_t step, double seconds, const TrajectoryWriter::FrameFill& fill,
        std::span<const float> kickClocks, const std::optional<SchoolMetrics>& measures) = 0;
    /// Whether frames record each fish's kick clock (an H5MD file under burst-and-coast).
    virtual bool recordsKickClocks() const { return false; }
    /// New parameters from `step` on, and each fish's species and kind under them.
    [[nodiscard]] virtual Result<void> addParameterChange(std::int64_t step, double seconds,
                                                          const SimParams& params,
                                                          std::span<const Fish> school) = 0;
    /// Attributes of the group parameters/`group` (H5MD); formats without one ignore them.
    [[nodiscard]] virtual Result<void> addParameterAttributes(
        const std::string& group, std::vector<TrajectoryAttribute> attributes) = 0;
    /// Ends the file and closes it; safe to call once.
    [[nodiscard]] virtual Result<void> finish() = 0;
    virtual std::size_t frameCount() const = 0;
    virtual std::size_t fishCount() const = 0;
};

/// The recorder of `format` writing `file` (a temporary path the caller puts into place) for
/// `school` stepped with `params`. `name` is how errors name the file: the user's path.
[[nodiscard]] Result<std::unique_ptr<TrajectoryRecorder>> makeTrajectoryRecorder(
    TrajectoryFormat format, const std::filesystem::path& file, const SimParams& params,
    std::span<const Fish> school, const std::string& name);

}  // namespace fishschool
