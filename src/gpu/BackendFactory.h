#pragma once

#include <memory>

#include "core/Backend.h"
#include "core/Result.h"

namespace fishschool {

/// Makes a backend of the given kind, or says why this machine cannot run it
/// (e.g. "GL 4.3 compute not available: ..."). The gpu backend needs a current OpenGL 4.3+
/// context on the calling thread (the app's window, or gpu::HeadlessGlContext).
Result<std::unique_ptr<Backend>> createBackend(BackendKind kind, const SimParams& params);

}  // namespace fishschool
