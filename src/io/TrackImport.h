#pragma once
// Tracked fish read from a tracker's files (fishschool/Import.h), before they are scaled and
// written: the readers of each format, for the importer, the tests and the fuzz targets.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fishschool/Import.h"

namespace fishschool {

/// A tracked file larger than this is refused before it is read.
inline constexpr std::uintmax_t kMaxTrackFileBytes = std::uintmax_t{1} << 30;
/// The most frames x fish an import holds (in memory, 24 bytes each as read).
inline constexpr std::uint64_t kMaxImportSamples = 20'000'000;
/// The most fish an import holds.
inline constexpr std::size_t kMaxImportFish = 100'000;

/// Tracks as read, in the file's units.
struct Tracks {
    std::string format;
    std::vector<std::string> sources;
    std::size_t frames = 0;
    std::size_t fish = 0;
    std::int64_t firstFrame = 0;
    int dimensions = 2;
    /// [frames][fish][3], NaN where a fish was not found.
    std::vector<double> positions;
    std::vector<std::string> ids;  ///< each fish's name in the file
    std::optional<double> fps;     ///< as the file gives it, unchecked
    std::string fpsSource;         ///< where: "frames_per_second"
    std::optional<double> bodyLength;
    std::string bodyLengthSource;
};

/// idtracker.ai's trajectories.npy (a pickled dict), or a .npy of a frames x fish x 2 array.
[[nodiscard]] Result<Tracks> parseIdtrackerNpy(std::string_view bytes, const std::string& name);
/// A CSV with a header naming frame, id, x, y and optionally z (any order, others ignored).
[[nodiscard]] Result<Tracks> parseTrackCsv(std::string_view text, const std::string& name);
/// One .npy array (numbers only) of a .npz's members, by name; or a whole .npz's.
struct NamedColumn {
    std::string name;
    std::vector<double> values;
};
[[nodiscard]] Result<std::vector<NamedColumn>> parseNpz(std::string_view bytes,
                                                        const std::string& name);
/// The columns of a CSV of numbers with a header (TRex's export), by header name.
[[nodiscard]] Result<std::vector<NamedColumn>> parseNumberCsv(std::string_view text,
                                                              const std::string& name);
/// Reads `file` in `format` (ImportOptions::format; empty: by its name and content).
[[nodiscard]] Result<Tracks> readTracks(const std::filesystem::path& file,
                                        const std::string& format);

}  // namespace fishschool
