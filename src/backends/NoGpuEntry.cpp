// The gpu entry of the backend registry in a build without the GL backend: selected by
// src/backends/CMakeLists.txt when FISHSCHOOL_BUILD_GPU is OFF.

#include "GpuBackendEntry.h"

namespace fishschool {
namespace {

constexpr const char* kNotBuilt =
    "gpu: this build has no GL backend (configured with FISHSCHOOL_BUILD_GPU=OFF)";

}  // namespace

bool gpuBackendBuilt() {
    return false;
}

Result<void> gpuBackendAvailable() {
    return fail(kNotBuilt);
}

Result<std::unique_ptr<Backend>> makeGpuBackend(const SimParams&) {
    return fail(kNotBuilt);
}

}  // namespace fishschool
