#pragma once

#include <memory>

#include "core/Backend.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

// The gpu entry of the backend registry. CMake compiles one implementation: GpuEntry.cpp when the
// build has the GL backend, else NoGpuEntry.cpp, which refuses with the reason.

/// False in a build configured with FISHSCHOOL_BUILD_GPU=OFF.
bool gpuBackendBuilt();
/// Whether a GL 4.3 compute context is current here, or can be made headless.
[[nodiscard]] Result<void> gpuBackendAvailable();
/// The GL compute backend with `params` set.
[[nodiscard]] Result<std::unique_ptr<Backend>> makeGpuBackend(const SimParams& params);

}  // namespace fishschool
