#include "ExitStatus.h"

#include <cstdio>
#include <string>

#include "core/Messages.h"

namespace fishschool {

void printError(std::string_view message) {
    // Room for "error: " and printable()'s "... (N characters)".
    const std::string line = "error: " + printable(message, kMaxMessageChars - 40) + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
}

int badInput(std::string_view message) {
    printError(message);
    return kExitBadInput;
}

int internalFailure(std::string_view message) {
    printError(message);
    return kExitInternal;
}

int exitStatusOf(const Error& error) {
    return error.kind() == ErrorKind::BadInput ? kExitBadInput : kExitInternal;
}

int exitWith(const Error& error) {
    printError(error);
    return exitStatusOf(error);
}

}  // namespace fishschool
