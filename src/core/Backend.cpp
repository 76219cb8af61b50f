#include "Backend.h"

namespace fishschool {

std::string_view toString(BackendKind kind) {
    switch (kind) {
        case BackendKind::Cpu:
            return "cpu";
        case BackendKind::Tbb:
            return "tbb";
        case BackendKind::Gpu:
            return "gpu";
    }
    return "unknown";
}

std::optional<BackendKind> parseBackendKind(std::string_view text) {
    if (text == "cpu") return BackendKind::Cpu;
    if (text == "tbb") return BackendKind::Tbb;
    if (text == "gpu") return BackendKind::Gpu;
    return std::nullopt;
}

}  // namespace fishschool
