#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "Fish.h"
#include "Result.h"
#include "SimParams.h"

namespace fishschool {

/// SPEC.md state files: header "x,y,z,vx,vy,vz", one fish a line, "%.9g" numbers. Errors name
/// the line: a bad header, a short or long row, a number that does not parse, a non-finite
/// value, a fish outside the tank or inside a rock of `params`. Accelerations are read as zero.
Result<School> parseStateCsv(std::string_view text, const SimParams& params,
                             std::string_view sourceName = "state");
Result<School> loadStateCsv(const std::filesystem::path& path, const SimParams& params);

std::string stateToCsv(std::span<const Fish> school);
/// Writes to a temporary name beside the file, then renames it over.
Result<void> saveStateCsv(const std::filesystem::path& path, std::span<const Fish> school);
/// As above for a school stepped with `params`: with leaders or predators, each row ends with the
/// column `kind` (fish, leader or predator); without them, exactly the file above. Reading such a
/// file checks that each row's kind is the one `params` gives its index.
std::string stateToCsv(std::span<const Fish> school, const SimParams& params);
Result<void> saveStateCsv(const std::filesystem::path& path, std::span<const Fish> school,
                          const SimParams& params);

/// Writes `content` to a temporary file beside `path`, then renames it over `path`, so a failed
/// write never leaves a partial file.
Result<void> writeFileAtomically(const std::filesystem::path& path, std::string_view content);

}  // namespace fishschool
