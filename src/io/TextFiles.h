#pragma once

// The one reader of the text files a user gives (configs, states, ensembles, manifests): a file
// from a stranger is hostile, so its kind and size are checked before a byte is read.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "fishschool/Result.h"

namespace fishschool {

/// A state file larger than this is refused before it is read: it parses in well under 2 s on
/// one core (docs/config.md): about 1.9 million fish at "%.9g".
inline constexpr std::uintmax_t kMaxStateFileBytes = 128ull << 20;
/// A config file larger than this is refused before it is read.
inline constexpr std::uintmax_t kMaxConfigFileBytes = 1ull << 20;

/// The whole of a text file. A folder, a missing file or one larger than `maxBytes` is an
/// error that names the path, and for size the limit; `what` names the kind ("config file").
[[nodiscard]] Result<std::string> readTextFile(const std::filesystem::path& path,
                                               std::uintmax_t maxBytes, std::string_view what);

}  // namespace fishschool
