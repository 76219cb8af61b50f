// The gpu entry of the backend registry (GpuBackendEntry.h) in a build with the GL backend.

#include <glad/gl.h>

#include <iostream>
#include <mutex>

#include "BackendRegistry.h"
#include "GpuBackendEntry.h"
#include "gpu/GpuBackend.h"
#include "gpu/HeadlessGlContext.h"

namespace fishschool {
namespace {

/// Whether some GL context (an SDL window's, an EGL one) is current on this thread. GL answers
/// no version without one.
bool glContextIsCurrent() {
    return glGetString != nullptr && glGetString(GL_VERSION) != nullptr;
}

/// Makes a GL context current where none is: the command line, the benchmarks and the tests have
/// no window. One headless context serves the whole process, made on first need and kept.
Result<void> ensureGlContext() {
    if (glContextIsCurrent()) return {};
    static std::mutex mutex;
    static std::unique_ptr<gpu::HeadlessGlContext> headless;
    const std::lock_guard lock(mutex);
    if (headless) {
        if (auto ok = headless->makeCurrent(); !ok) return fail(ok.error().prefixed("gpu: "));
        return {};
    }
    auto made = gpu::HeadlessGlContext::create();
    if (!made) return fail(made.error().prefixed("gpu: "));
    headless = std::move(*made);
    std::cerr << "GL renderer: " << headless->renderer() << "\n";
    return {};
}

}  // namespace

bool gpuBackendBuilt() {
    return true;
}

Result<void> gpuBackendAvailable() {
    if (auto ok = ensureGlContext(); !ok) return ok;
    return gpu::probeComputeSupport();
}

Result<std::unique_ptr<Backend>> makeGpuBackend(const SimParams& params) {
    if (auto ok = ensureGlContext(); !ok) return fail(ok.error());
    // A lower limit can be asked for, to test a GPU's limit without its gigabytes or to leave
    // memory to other work.
    const auto lower = gpuMaxBufferBytes();
    if (!lower) return fail(lower.error());
    std::optional<gpu::GpuStorageLimit> limit;
    if (*lower) limit = gpu::GpuStorageLimit{**lower, kGpuMaxBufferBytesVariable};
    // create() sets the parameters itself.
    auto backend = gpu::GpuBackend::create(params, {}, limit);
    if (!backend) return fail(backend.error());
    return std::unique_ptr<Backend>(std::move(*backend));
}

}  // namespace fishschool
