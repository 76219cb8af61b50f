#include <iostream>

#include "Commands.h"
#include "core/BackendRegistry.h"

namespace fishschool::cli {

int internalFailure(const std::string& message) {
    std::cerr << "error: " << message << "\n";
    return kExitInternal;
}

int backendFailure(BackendKind kind, const std::string& message) {
    std::cerr << "error: " << message << "\n";
    return backendEntry(kind).available() ? kExitInternal : kExitBadInput;
}

}  // namespace fishschool::cli
