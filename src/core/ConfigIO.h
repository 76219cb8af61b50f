#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "Result.h"
#include "SimParams.h"

namespace fishschool {

/// Parses a config JSON object (SPEC.md keys). Missing keys take their defaults; unknown keys,
/// wrong types and values that break a rule are errors naming the key, e.g.
/// "config.json: key 'rCohesion': -1 is not allowed; must be finite and >= 0".
Result<SimParams> parseConfig(std::string_view json, std::string_view sourceName = "config");
Result<SimParams> loadConfig(const std::filesystem::path& path);

/// Every key, pretty-printed; parseConfig(configToJson(p)) == p.
std::string configToJson(const SimParams& params);
/// Writes to a temporary name beside the file, then renames it over.
Result<void> saveConfig(const std::filesystem::path& path, const SimParams& params);

}  // namespace fishschool
