#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fishschool/Export.h"
#include "fishschool/Result.h"

namespace fishschool {

/// Tracked fish in: the trajectories of real fish that a tracker found in a video, written as a
/// FishSchool trajectory (docs/data.md). Read: idtracker.ai's trajectories.npy and
/// trajectories_wo_gaps.npy, TRex's per-fish .npz and .csv exports (*_fish0.npz: every
/// *_fishN file beside it is read too) and a CSV with a header naming frame, id, x, y (and z).

/// The tank the fish swam in, in the file's units (pixels): positions are written relative to
/// its centre.
struct ImportArena {
    enum class Shape { None, Box, Circle };
    Shape shape = Shape::None;
    double centreX = 0.0;
    double centreY = 0.0;
    double radius = 0.0;  ///< a circle's radius, half a box's side
};

struct ImportOptions {
    /// "idtracker", "trex-npz", "trex-csv" or "csv"; empty: by the file's name and content.
    std::string format;
    /// The scale: the file's units (pixels) a metre, or the fish's body length in metres, the
    /// file giving it in its units (idtracker.ai's body_length). One of them is needed.
    std::optional<double> pixelsPerMetre;
    std::optional<double> bodyLengthMetres;
    /// Frames a second; none: the file's (idtracker.ai's frames_per_second, TRex's time column).
    std::optional<double> fps;
    ImportArena arena;
};

/// What an import read and wrote.
struct ImportSummary {
    std::string format;                ///< "idtracker.ai", "TRex npz", "TRex csv", "csv"
    std::vector<std::string> sources;  ///< the files read
    std::size_t frames = 0;
    std::size_t fish = 0;
    std::size_t missing = 0;  ///< frames x fish where a fish was not found
    std::int64_t firstFrame = 0;
    double fps = 0.0;
    double pixelsPerMetre = 0.0;
};

/// Reads the tracked file `input` and writes the trajectory `output` (replaced only when all
/// went well). Errors name the file and what is wrong: bad input (a file not of a format read,
/// a pickle that would run code, an array of the wrong shape or type, a frame rate of 0) or a
/// file the system could not write.
[[nodiscard]] FISHSCHOOL_API Result<ImportSummary> importTracks(const std::filesystem::path& input,
                                                                const std::filesystem::path& output,
                                                                const ImportOptions& options);

}  // namespace fishschool
