#include "WorkerBackends.h"

#include <algorithm>
#include <thread>

#include "backends/BackendRegistry.h"

namespace fishschool {

WorkerBackends::WorkerBackends(BackendKind kind, std::unique_ptr<Backend> first, std::size_t jobs)
    : kind_(kind), backends_(jobs) {
    backends_.front() = std::move(first);
}

std::function<Result<Backend*>(std::size_t, const SimParams&)> WorkerBackends::backendFor() {
    return [this](std::size_t worker, const SimParams& params) -> Result<Backend*> {
        std::unique_ptr<Backend>& backend = backends_.at(worker);
        if (!backend) {
            auto made = createBackend(kind_, params);
            if (!made) return fail(made.error());
            backend = std::move(*made);
        }
        return backend.get();
    };
}

Result<WorkerBackends> makeWorkerBackends(BackendKind kind, const SimParams& params,
                                          std::size_t jobs) {
    if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
    if (kind == BackendKind::Gpu) jobs = 1;
    auto first = createBackend(kind, params);
    if (!first) return fail(first.error());
    return WorkerBackends(kind, std::move(*first), jobs);
}

}  // namespace fishschool
