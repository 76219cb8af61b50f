#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fishschool/Fish.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// State files (docs/config.md, State): header "x,y,z,vx,vy,vz", one fish a line, "%.9g" numbers.
/// Errors name the line: a bad header, a short or long row, a number that does not parse, a
/// non-finite value, a fish outside the tank or inside a rock of `params`. Accelerations are read
/// as zero.
/// Why `fish` cannot start a school stepped with `params` (a speed above 1e6 m/s, a position
/// outside the tank or inside a rock), as a state file's rows are checked; nothing when it can.
std::optional<std::string> whyNotInScene(const Fish& fish, const SimParams& params);

/// The one rule for a state's species, wherever the state comes from (a state file's `species`
/// column, a trajectory's particles/school/species): where the source names fish `index`'s
/// species (`given`), it must be one of `params`' species (0 to species - 1; 0 alone without
/// species); where the source has none, the fish is of the species `params` give fish `index` of
/// a new school (speciesOf). An error says what is allowed ("is not allowed; must be ...").
[[nodiscard]] Result<std::uint32_t> stateSpecies(std::size_t index,
                                                 std::optional<std::int64_t> given,
                                                 const SimParams& params);

/// The longest kick clock (Fish::kickClock, s) a state file or a trajectory may give: above
/// every time to a kick that valid parameters draw (kickDurationMean at most 1e6 s, a kick at
/// most about 17 means).
inline constexpr float kMaxKickClock = 1e8f;

/// Why `clock` cannot be a fish's kick clock (not finite, negative, above kMaxKickClock), as
/// "is not allowed; must be ..."; nothing when it can. The one rule of state files and
/// trajectories.
std::optional<std::string> whyNotKickClock(float clock);

/// Whether a school stepped with `params` keeps its kick clocks (steering "burst-and-coast"): a
/// state file and a trajectory record them then, and a school read under another steering has
/// each clock 0 (docs/model.md, Burst-and-coast swimming).
bool keepsKickClocks(const SimParams& params);

[[nodiscard]] Result<School> parseStateCsv(std::string_view text, const SimParams& params,
                                           std::string_view sourceName = "state");
[[nodiscard]] Result<School> loadStateCsv(const std::filesystem::path& path,
                                          const SimParams& params);

std::string stateToCsv(std::span<const Fish> school);
/// Writes to a temporary name beside the file, then renames it over.
[[nodiscard]] Result<void> saveStateCsv(const std::filesystem::path& path,
                                        std::span<const Fish> school);
/// As above for a school stepped with `params`: under steering "burst-and-coast" the column
/// `kickClock` follows the velocity (keepsKickClocks); with species, the column `species`; with
/// leaders or predators, each row ends with the column `kind` (fish, leader or predator); without
/// any, exactly the file above. Reading such a file checks that each row's kind is the one
/// `params` gives its index.
std::string stateToCsv(std::span<const Fish> school, const SimParams& params);
[[nodiscard]] Result<void> saveStateCsv(const std::filesystem::path& path,
                                        std::span<const Fish> school, const SimParams& params);
/// stateToCsv(school, params) in pieces of about 64 KiB, each handed to `write` (an output's
/// stream), so that millions of fish are written without their whole text in memory; the first
/// error `write` returns ends it.
[[nodiscard]] Result<void> writeStateCsv(
    std::span<const Fish> school, const SimParams& params,
    const std::function<Result<void>(std::string_view)>& write);

}  // namespace fishschool
