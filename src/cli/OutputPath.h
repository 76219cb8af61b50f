#pragma once

#include <string>
#include <string_view>

#include "core/Result.h"

namespace fishschool::cli {

/// Checks, before a long run, that `path` could be written: its folder exists and is writable,
/// and it is not itself a folder. The error names the flag and the path.
Result<void> checkOutputPath(std::string_view flag, const std::string& path);

}  // namespace fishschool::cli
