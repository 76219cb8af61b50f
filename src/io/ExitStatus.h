#pragma once

// The exit statuses of both programs, the app (fishschool) and the CLI (fishschool-cli), and the
// one way either prints an error.

#include <string_view>

#include "fishschool/Result.h"

namespace fishschool {

/// Success, and --help.
inline constexpr int kExitSuccess = 0;
/// A failure of this machine, not of the input: a full disk, out of memory, a GL error, a fish
/// that breaks an invariant under --check. The message names the file or what failed.
inline constexpr int kExitInternal = 1;
/// Bad input: a flag, a config or state file, an output path, an environment variable. The
/// message names the flag, key, path or variable and what is allowed.
inline constexpr int kExitBadInput = 2;

/// Prints "error: MESSAGE" on stderr, as printable() writes it and at most kMaxMessageChars
/// long: the last guard for text that came from elsewhere (CLI11, the system) into a message.
void printError(std::string_view message);
/// printError, then kExitBadInput: the flags or the files they name.
int badInput(std::string_view message);
/// printError, then kExitInternal: a failure of this machine, not of the input.
int internalFailure(std::string_view message);
/// The exit status of an error by its kind, the one place the programs decide it: bad input
/// kExitBadInput, a file, the system or the program kExitInternal.
int exitStatusOf(const Error& error);
/// printError, then exitStatusOf(error).
int exitWith(const Error& error);

}  // namespace fishschool
