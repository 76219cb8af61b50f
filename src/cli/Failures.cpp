#include "Commands.h"
#include "backends/BackendRegistry.h"
#include "core/TextInput.h"

namespace fishschool::cli {

int badInput(const std::string& message) {
    printError(message);
    return kExitBadInput;
}

int internalFailure(const std::string& message) {
    printError(message);
    return kExitInternal;
}

int backendFailure(BackendKind kind, const std::string& message) {
    printError(message);
    return backendEntry(kind).available() ? kExitInternal : kExitBadInput;
}

}  // namespace fishschool::cli
