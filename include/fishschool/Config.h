#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "fishschool/Export.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// Config files (docs/config.md): a JSON object of keys. Missing keys take their defaults; unknown
/// keys, wrong types and values that break a rule are errors naming the key, e.g.
/// "config.json: key 'rCohesion': -1 is not allowed; must be finite and >= 0". `sourceName` is how
/// errors name the text.
[[nodiscard]] FISHSCHOOL_API Result<SimParams> parseConfig(std::string_view json,
                                                           std::string_view sourceName = "config");
/// A config file, read as a stranger's (its kind and size checked before a byte is read).
[[nodiscard]] FISHSCHOOL_API Result<SimParams> loadConfig(const std::filesystem::path& path);
/// Every key, pretty-printed; parseConfig(configToJson(p)) == p.
FISHSCHOOL_API std::string configToJson(const SimParams& params);
/// Writes `params` to a temporary name beside `path`, then renames it over.
[[nodiscard]] FISHSCHOOL_API Result<void> saveConfig(const std::filesystem::path& path,
                                                     const SimParams& params);

}  // namespace fishschool
