#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "fishschool/Config.h"
#include "fishschool/Result.h"
#include "fishschool/Run.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// The colour of species number `index` whose config gives none: the next of a small palette.
glm::vec3 defaultSpeciesColor(std::size_t index);
/// `base` (valid) with the numeric config key `key` set to `value`, read and checked as a config
/// file giving that value would be, with its messages, named after `sourceName`. Equal to
/// parseConfig of configToJson(base) with the key changed, without the text.
[[nodiscard]] Result<SimParams> withConfigNumber(const SimParams& base, std::string_view key,
                                                 double value, std::string_view sourceName);

/// What the command line says about the parameters: a config file and the flags that override
/// its keys, each as typed; unset means not given.
struct ParamFlags {
    std::optional<std::string> configPath{};  ///< --config FILE
    std::optional<std::string> fish{};        ///< --fish N: fishCount
    std::optional<std::string> seed{};        ///< --seed S: seed
    std::optional<std::string> neighbors{};   ///< --neighbors all-pairs|grid: neighborSearch
};

/// A run's start (fishschool/Run.h) from what a command line says: the flags, --state-in and
/// --frame, each parsed and named as the flag ("--fish: '2.5' is not allowed; ..."); the file
/// reading is readStart's. The CLI's simulate and the app start so.
[[nodiscard]] Result<RunStart> runStartOf(const ParamFlags& flags, const std::string& stateIn,
                                          std::optional<std::int64_t> frame);

/// The one way from a command line to parameters, for the app and every CLI command: reads the
/// config file (the built-in defaults without one), applies the flags over its keys and
/// validates the result. Errors name the file and key, or the flag, and what is allowed, e.g.
/// "--fish: '2.5' is not allowed; fishCount must be a whole number from 0 to 16000000".
[[nodiscard]] Result<SimParams> loadParams(const ParamFlags& flags);
/// As above, from `base` (valid) rather than the built-in defaults when no config file is given:
/// a trajectory's config, which the flags override as they would a file's.
[[nodiscard]] Result<SimParams> loadParams(const ParamFlags& flags, const SimParams& base);

}  // namespace fishschool
