#pragma once
// Trajectories as the CLI and the app start runs from them; the file itself, its writer and its
// reader are the public API's (fishschool/Trajectory.h).
#include "fishschool/Trajectory.h"

#include <optional>

#include "io/ConfigIO.h"

namespace fishschool {

/// Whether `file` is named as a trajectory is (.h5, .hdf5, .h5md, any case): such a file that
/// isHdf5File() refuses is a trajectory in error, not a state CSV.
bool hasTrajectoryExtension(const std::filesystem::path& file);

/// Where a run started from a trajectory begins (`--state-in FILE.h5 --frame K`, the app's
/// --state-in): frame K's school, and the parameters it runs with.
struct TrajectoryStart {
    School school;
    /// --config's when `flags` name one, else the config in force at the frame (configJsonAt),
    /// read and checked as a config file is; the flags applied over either; fishCount the
    /// school's.
    SimParams params;
    std::string configJson;  ///< the file's config at the frame
    std::int64_t step = 0;   ///< the frame's step and time in the file
    double time = 0.0;
    std::size_t frame = 0;
};

/// Reads frame `frame` (default the last) of the trajectory `file` and the parameters it runs
/// with. Errors (bad input) name the file and the object; a frame out of range names the range;
/// the file's kinds must be those of the parameters, and its fish in their tank and out of their
/// rocks, as a state file's (whyNotInScene).
[[nodiscard]] Result<TrajectoryStart> readTrajectoryStart(const std::filesystem::path& file,
                                                          std::optional<std::int64_t> frame,
                                                          const ParamFlags& flags);

}  // namespace fishschool
