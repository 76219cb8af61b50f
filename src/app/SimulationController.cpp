#include "SimulationController.h"

#include <algorithm>
#include <chrono>

#include "core/Scenario.h"
#include "gpu/BackendFactory.h"

namespace fishschool::app {

Result<void> SimulationController::checkInteractive(const SimParams& params, BackendKind kind) {
    if (params.neighborSearch != NeighborSearch::AllPairs) return {};
    const bool onGpu = kind == BackendKind::Gpu;
    const std::int64_t limit = onGpu ? kMaxGpuAllPairsFish : kMaxCpuAllPairsFish;
    if (params.fishCount > limit)
        return fail("neighborSearch: all-pairs with " + std::to_string(params.fishCount) +
                    " fish on the " + (onGpu ? "GPU" : "CPU") +
                    " makes every step last seconds or minutes (N^2 distance tests); choose "
                    "grid" +
                    (onGpu ? "" : ", the GPU") + ", or at most " + std::to_string(limit) + " fish");
    return {};
}

Result<std::unique_ptr<SimulationController>> SimulationController::create(
    const SimParams& requested, BackendKind kind, const School* startSchool) {
    SimParams params = requested;
    if (startSchool) params.fishCount = static_cast<std::int64_t>(startSchool->size());
    if (auto ok = validate(params); !ok) return fail(ok.error());
    if (auto ok = checkInteractive(params, kind); !ok) return fail(ok.error());
    auto backend = createBackend(kind, params);
    if (!backend) return fail(backend.error());
    auto controller = std::unique_ptr<SimulationController>(new SimulationController);
    controller->params_ = params;
    controller->backend_ = std::move(*backend);
    const School school = startSchool ? School{} : makeInitialSchool(params);
    if (auto ok = controller->backend_->upload(startSchool ? *startSchool : school); !ok)
        return fail(ok.error());
    return controller;
}

void SimulationController::forgetCountDependentChecks() {
    forgetStepTimes();
    // A refusal may have been the fish count's (a GPU's storage limit): ask again. An answer of
    // "available" stands: asking means building a backend, shaders and all, every time.
    for (auto& reason : unavailable_)
        if (reason && !reason->empty()) reason.reset();
}

const std::string& SimulationController::unavailableReason(BackendKind kind) {
    auto& reason = unavailable_[static_cast<std::size_t>(kind)];
    if (!reason) {
        if (kind == backend_->kind()) {
            reason = "";
        } else {
            auto probe = createBackend(kind, params_);
            reason = probe ? "" : probe.error();
        }
    }
    return *reason;
}

Result<void> SimulationController::switchBackend(BackendKind kind) {
    if (kind == backend_->kind()) return {};
    if (auto ok = checkInteractive(params_, kind); !ok) return fail(ok.error());
    auto next = createBackend(kind, params_);
    if (!next) {
        unavailable_[static_cast<std::size_t>(kind)] = next.error();
        return fail(next.error());
    }
    if (auto ok = (*next)->upload(backend_->download()); !ok) return fail(ok.error());
    backend_ = std::move(*next);
    ++schoolVersion_;
    forgetStepTimes();
    return {};
}

Result<void> SimulationController::applyParams(const SimParams& params) {
    if (auto ok = validate(params); !ok) return fail(ok.error());
    if (auto ok = checkInteractive(params, backend_->kind()); !ok) return fail(ok.error());
    School school = backend_->download();
    const bool sceneChanged = params.bounds != params_.bounds || params.rocks != params_.rocks;
    const bool countChanged = static_cast<std::size_t>(params.fishCount) != school.size();
    if (countChanged) resizeSchool(school, static_cast<std::size_t>(params.fishCount), params);
    if (sceneChanged || countChanged) moveIntoScene(school, params);
    backend_->setParams(params);
    if (sceneChanged || countChanged) {
        if (auto ok = backend_->upload(school); !ok) {
            backend_->setParams(params_);
            return fail(ok.error());
        }
    }
    params_ = params;
    metricsTime_ = -1e9;
    ++schoolVersion_;
    if (countChanged) forgetCountDependentChecks();
    return {};
}

Result<void> SimulationController::setScene(BackendKind kind, std::int64_t count) {
    SimParams params = params_;
    params.fishCount = count;
    if (auto ok = validate(params); !ok) return fail(ok.error());
    if (auto ok = checkInteractive(params, kind); !ok) return fail(ok.error());
    if (count < static_cast<std::int64_t>(backend_->fishCount())) {
        if (auto ok = applyParams(params); !ok) return ok;
        return switchBackend(kind);
    }
    if (auto ok = switchBackend(kind); !ok) return ok;
    return applyParams(params);
}

Result<void> SimulationController::replaceSchool(const School& school) {
    SimParams params = params_;
    params.fishCount = static_cast<std::int64_t>(school.size());
    if (auto ok = validate(params); !ok) return fail(ok.error());
    if (auto ok = checkInteractive(params, backend_->kind()); !ok) return fail(ok.error());
    if (auto ok = backend_->upload(school); !ok) return ok;
    if (params.fishCount != params_.fishCount) forgetCountDependentChecks();
    params_ = params;
    accumulator_ = 0.0;
    metricsTime_ = -1e9;
    ++schoolVersion_;
    return {};
}

void SimulationController::reset(std::uint64_t seed) {
    params_.seed = seed;
    backend_->setParams(params_);
    (void)backend_->upload(makeInitialSchool(params_));  // same count as before: it fits
    accumulator_ = 0.0;
    metricsTime_ = -1e9;
    ++schoolVersion_;
}

void SimulationController::runSteps(int count) {
    lastStepsMilliseconds_ = 0.0;
    if (count <= 0) return;
    ++schoolVersion_;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i) backend_->step();
    backend_->finish();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    lastStepsMilliseconds_ = ms;
    const double perStep = ms / count;
    stepMilliseconds_ =
        stepMilliseconds_ == 0.0 ? perStep : 0.9 * stepMilliseconds_ + 0.1 * perStep;
}

int SimulationController::advance(double wallSeconds) {
    if (paused) {
        accumulator_ = 0.0;
        return 0;
    }
    accumulator_ += wallSeconds;
    int steps = static_cast<int>(accumulator_ / params_.dt);
    // However late the frame, run no more steps than fit the frame's budget (at least one), so
    // a big school slows the simulation down rather than the window.
    int affordable = kMaxStepsPerFrame;
    if (stepMilliseconds_ > 0.0)
        affordable = std::clamp(static_cast<int>(kStepBudgetMilliseconds / stepMilliseconds_), 1,
                                kMaxStepsPerFrame);
    if (steps > affordable) {
        steps = affordable;
        accumulator_ = 0.0;  // drop what cannot be caught up
    } else {
        accumulator_ -= steps * static_cast<double>(params_.dt);
    }
    runSteps(steps);
    return steps;
}

void SimulationController::stepOnce() {
    runSteps(1);
}

const SchoolMetrics& SimulationController::metrics(double nowSeconds, double everySeconds) {
    if (nowSeconds - metricsTime_ >= everySeconds) {
        metrics_ = measureSchool(backend_->download(), params_);
        metricsTime_ = nowSeconds;
    }
    return metrics_;
}

}  // namespace fishschool::app
