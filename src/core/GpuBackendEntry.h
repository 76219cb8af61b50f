#pragma once

#include <memory>

#include "Backend.h"
#include "Result.h"
#include "SimParams.h"

namespace fishschool {

// The gpu entry of the backend registry. CMake links one implementation: src/gpu/BackendFactory.cpp
// when the build has the GL backend, else src/core/NoGpuBackend.cpp, which refuses with the reason.

/// False in a build configured with FISHSCHOOL_BUILD_GPU=OFF.
bool gpuBackendBuilt();
/// Whether a GL 4.3 compute context is current here, or can be made headless.
[[nodiscard]] Result<void> gpuBackendAvailable();
/// The GL compute backend with `params` set.
[[nodiscard]] Result<std::unique_ptr<Backend>> makeGpuBackend(const SimParams& params);

}  // namespace fishschool
