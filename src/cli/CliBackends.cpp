#include "CliBackends.h"

#include <iostream>

#include "core/CpuBackends.h"
#ifdef FISHSCHOOL_HAS_GPU
#include "gpu/BackendFactory.h"
#include "gpu/HeadlessGlContext.h"
#endif

namespace fishschool::cli {

struct CliBackends::GpuSession {
#ifdef FISHSCHOOL_HAS_GPU
    std::unique_ptr<gpu::HeadlessGlContext> context;
#endif
};

CliBackends::CliBackends() : gpu_(std::make_unique<GpuSession>()) {}
CliBackends::~CliBackends() = default;

Result<std::unique_ptr<Backend>> CliBackends::create(BackendKind kind, const SimParams& params) {
#ifdef FISHSCHOOL_HAS_GPU
    if (kind == BackendKind::Gpu && !gpu_->context) {
        auto context = gpu::HeadlessGlContext::create();
        if (!context) return fail("gpu: " + context.error());
        gpu_->context = std::move(*context);
        std::cerr << "GL renderer: " << gpu_->context->renderer() << "\n";
    }
    return createBackend(kind, params);
#else
    (void)params;
    switch (kind) {
        case BackendKind::Cpu:
            return makeCpuBackend();
        case BackendKind::Tbb:
            return makeTbbBackend();
        case BackendKind::Gpu:
            break;
    }
    return fail(
        "gpu: this build of fishschool-cli has no GL backend (configured with "
        "FISHSCHOOL_BUILD_GPU=OFF)");
#endif
}

}  // namespace fishschool::cli
