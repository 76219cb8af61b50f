#pragma once

// The exit statuses of both programs, the app (fishschool) and the CLI (fishschool-cli).

namespace fishschool {

/// Success, and --help.
inline constexpr int kExitSuccess = 0;
/// A failure of this machine, not of the input: a full disk, out of memory, a GL error, a fish
/// that breaks an invariant under --check. The message names the file or what failed.
inline constexpr int kExitInternal = 1;
/// Bad input: a flag, a config or state file, an output path, an environment variable. The
/// message names the flag, key, path or variable and what is allowed.
inline constexpr int kExitBadInput = 2;

}  // namespace fishschool
