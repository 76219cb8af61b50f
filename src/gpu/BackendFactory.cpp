#include "BackendFactory.h"

#include "GpuBackend.h"
#include "core/CpuBackends.h"

namespace fishschool {

Result<std::unique_ptr<Backend>> createBackend(BackendKind kind, const SimParams& params) {
    std::unique_ptr<Backend> backend;
    switch (kind) {
        case BackendKind::Cpu:
            backend = makeCpuBackend();
            break;
        case BackendKind::Tbb:
            backend = makeTbbBackend();
            break;
        case BackendKind::Gpu: {
            auto gpu = gpu::GpuBackend::create(params);
            if (!gpu) return fail(gpu.error());
            backend = std::move(*gpu);
            break;
        }
    }
    backend->setParams(params);
    return backend;
}

}  // namespace fishschool
