#include "Commands.h"
#include "backends/BackendRegistry.h"
#include "io/ExitStatus.h"
#include "io/TextInput.h"

namespace fishschool::cli {

int backendFailure(BackendKind kind, const std::string& message) {
    printError(message);
    return backendEntry(kind).available() ? kExitInternal : kExitBadInput;
}

}  // namespace fishschool::cli
