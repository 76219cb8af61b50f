#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "Result.h"
#include "SimParams.h"

namespace fishschool {

// Parsing of what users type (flags, panel fields), shared by the CLI, the app and its panel so
// that the same text is accepted or refused everywhere with the same message.

/// Splits "a,b,c" into its items. An empty item ("a,,b", a trailing comma) or an empty list is an
/// error that names `what`, e.g. the flag.
Result<std::vector<std::string>> splitList(std::string_view what, std::string_view text);

/// A comma-separated list of whole fish counts from `min` to kMaxFishCount.
Result<std::vector<std::int64_t>> parseFishCounts(std::string_view what, std::string_view text,
                                                  std::int64_t min = 0);

/// A neighbour search as a flag names it; the error names `flag` and the allowed names.
Result<NeighborSearch> parseNeighborSearchFlag(std::string_view flag, std::string_view text);
/// A comma-separated list of neighbour searches.
Result<std::vector<NeighborSearch>> parseNeighborSearchList(std::string_view flag,
                                                            std::string_view text);

/// Checks, before a long run, that `path` could be written: its folder exists and is writable,
/// and it is not itself a folder. The error names `what` and the path.
Result<void> checkOutputPath(std::string_view what, const std::string& path);

}  // namespace fishschool
