#pragma once

namespace fishschool::cli {

/// fishschool-cli as a function: parses `argv` (argv[0] the program name), checks every flag and
/// the files they name, then runs the command, or with `validateOnly` stops there (the fuzz
/// target of the flags). Returns the exit status: 0, kExitBadInput or kExitInternal.
int runCommandLine(int argc, const char* const* argv, bool validateOnly = false);

}  // namespace fishschool::cli
