#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "core/Backend.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// The backends of the workers of an ensemble (runEnsemble), one each: worker 0's made now, so
/// that a backend this machine cannot run is an error before the first run, the others on their
/// worker's thread at its first run. The gpu backend has one worker: its GL context belongs to
/// the thread that made it.
class WorkerBackends {
  public:
    WorkerBackends(BackendKind kind, std::unique_ptr<Backend> first, std::size_t jobs);
    std::size_t size() const { return backends_.size(); }
    /// For EnsembleWork::backendFor; valid while this object lives and stays where it is.
    std::function<Result<Backend*>(std::size_t worker, const SimParams& params)> backendFor();

  private:
    BackendKind kind_;
    std::vector<std::unique_ptr<Backend>> backends_;
};

/// `jobs` workers' backends of `kind` (0: one per CPU thread), worker 0's made with `params`.
Result<WorkerBackends> makeWorkerBackends(BackendKind kind, const SimParams& params,
                                          std::size_t jobs);

}  // namespace fishschool
