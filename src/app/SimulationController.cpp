#include "SimulationController.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <sys/resource.h>
#include <unistd.h>

#include <glm/vec3.hpp>

#include "backends/BackendRegistry.h"
#include "core/Scenario.h"

namespace fishschool::app {

Result<void> SimulationController::checkInteractive(const SimParams& params, BackendKind kind) {
    if (params.neighborSearch != NeighborSearch::AllPairs) return {};
    const bool onGpu = backendEntry(kind).onGpu;
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
    return create(params, std::move(*backend), startSchool);
}

Result<std::unique_ptr<SimulationController>> SimulationController::create(
    const SimParams& requested, std::unique_ptr<Backend> backend, const School* startSchool) {
    SimParams params = requested;
    if (startSchool) params.fishCount = static_cast<std::int64_t>(startSchool->size());
    if (auto ok = validate(params); !ok) return fail(ok.error());
    if (auto ok = checkInteractive(params, backend->kind()); !ok) return fail(ok.error());
    auto controller = std::unique_ptr<SimulationController>(new SimulationController);
    controller->settings_ = params;
    controller->backend_ = std::move(backend);
    controller->unavailable_.resize(backendRegistry().size());
    controller->setDensityBase(params);
    const School school = startSchool ? School{} : makeInitialSchool(params);
    if (auto ok = controller->backend_->upload(startSchool ? *startSchool : school); !ok)
        return fail(ok.error());
    return controller;
}

SimParams SimulationController::params() const {
    SimParams params = settings_;
    params.fishCount = static_cast<std::int64_t>(backend_->fishCount());
    return params;
}

void SimulationController::forgetCountDependentChecks() {
    forgetStepTimes();
    // A refusal may have been the fish count's (a GPU's storage limit): ask again. An answer of
    // "available" stands: asking means building a backend, shaders and all, every time.
    for (auto& reason : unavailable_)
        if (reason && !reason->empty()) reason.reset();
}

const std::string& SimulationController::unavailableReason(BackendKind kind) {
    auto& reason = unavailable_[backendIndex(kind)];
    if (!reason) {
        if (kind == backend_->kind()) {
            reason = "";
        } else {
            auto probe = createBackend(kind, params());
            reason = probe ? "" : probe.error();
        }
    }
    return *reason;
}

Result<void> SimulationController::switchBackend(BackendKind kind) {
    if (kind == backend_->kind()) return {};
    const SimParams current = params();
    if (auto ok = checkInteractive(current, kind); !ok) return fail(ok.error());
    auto next = createBackend(kind, current);
    if (!next) {
        unavailable_[backendIndex(kind)] = next.error();
        return fail(next.error());
    }
    if (auto ok = (*next)->upload(backend_->download()); !ok) return fail(ok.error());
    (*next)->setStepCount(backend_->stepCount());  // the noise goes on, not back to step 0
    backend_ = std::move(*next);
    snapshotAsked_ = false;  // the old backend's snapshot will not come
    ++schoolVersion_;
    forgetStepTimes();
    return {};
}

SimParams SimulationController::densityBase() const {
    SimParams base = settings_;
    base.fishCount = base_.fishCount;
    base.bounds = base_.bounds;
    base.rocks = base_.rocks;
    base.target = base_.target;
    return base;
}

void SimulationController::setDensityBase(const SimParams& base) {
    base_ = {base.fishCount, base.bounds, base.rocks, base.target};
}

void SimulationController::setDensity(Density density) {
    if (density == density_) return;
    density_ = density;
    if (density == Density::Fixed) setDensityBase(params());
}

Result<void> SimulationController::applyParams(const SimParams& requested) {
    SimParams params = requested;
    const bool boundsOrRocksEdited =
        params.bounds != settings_.bounds || params.rocks != settings_.rocks;
    const bool targetEdited = params.target != settings_.target;
    const bool countAsked = static_cast<std::size_t>(params.fishCount) != backend_->fishCount();
    if (density_ == Density::Fixed && countAsked && !boundsOrRocksEdited && !targetEdited) {
        // The running scene with another count: scale the base's, with today's other parameters
        // (a rock's gap to the walls depends on them).
        SimParams base = densityBase();
        base.fishCount = std::max<std::int64_t>(base_.fishCount, 1);
        const SimParams scaled = fixedDensityParams(params.fishCount, base);
        params.bounds = scaled.bounds;
        params.rocks = scaled.rocks;
        params.target = scaled.target;
    }
    if (auto ok = applyScene(params); !ok) return ok;
    if (boundsOrRocksEdited) {
        setDensityBase(params);  // a new tank or rocks: their density is the one to keep
    } else if (targetEdited && !countAsked) {
        // Only the target moved: into the base's scale, so the base keeps its rocks.
        const glm::vec3 toBase = base_.bounds / params.bounds;
        base_.target = params.target * toBase;
    } else if (targetEdited) {
        setDensityBase(params);
    }
    return {};
}

Result<void> SimulationController::applyScene(const SimParams& params) {
    if (auto ok = validate(params); !ok) return fail(ok.error());
    if (auto ok = checkInteractive(params, backend_->kind()); !ok) return fail(ok.error());
    const bool countChanged = static_cast<std::size_t>(params.fishCount) != backend_->fishCount();
    const auto replaced = changeParams(*backend_, settings_, params);
    if (!replaced) return fail(replaced.error());
    settings_ = params;
    // Weights, radii, limits leave the school untouched, wherever it lives.
    if (!*replaced) return {};
    forgetMeasures();
    ++schoolVersion_;
    if (countChanged) forgetCountDependentChecks();
    return {};
}

Result<void> SimulationController::setScene(BackendKind kind, std::int64_t count) {
    SimParams next = params();
    next.fishCount = count;
    if (auto ok = validate(next); !ok) return fail(ok.error());
    if (auto ok = checkInteractive(next, kind); !ok) return fail(ok.error());
    if (count < static_cast<std::int64_t>(backend_->fishCount())) {
        if (auto ok = applyParams(next); !ok) return ok;
        return switchBackend(kind);
    }
    if (auto ok = switchBackend(kind); !ok) return ok;
    return applyParams(next);
}

Result<void> SimulationController::replaceSchool(const School& school) {
    SimParams next = params();
    next.fishCount = static_cast<std::int64_t>(school.size());
    if (auto ok = validate(next); !ok) return fail(ok.error());
    if (auto ok = checkInteractive(next, backend_->kind()); !ok) return fail(ok.error());
    const std::size_t countBefore = backend_->fishCount();
    if (auto ok = backend_->upload(school); !ok) return ok;
    if (school.size() != countBefore) {
        forgetCountDependentChecks();
        setDensityBase(next);  // the loaded school in this tank: its density is the one to keep
    }
    accumulator_ = 0.0;
    simulatedSeconds_ = 0.0;
    pendingSteps_ = 0;
    forgetMeasures();
    ++schoolVersion_;
    return {};
}

void SimulationController::reset(std::uint64_t seed) {
    settings_.seed = seed;  // the seed makes the school; the step does not read it
    (void)backend_->upload(makeInitialSchool(params()));  // same count as before: it fits
    accumulator_ = 0.0;
    simulatedSeconds_ = 0.0;
    pendingSteps_ = 0;
    forgetMeasures();
    ++schoolVersion_;
}

void SimulationController::runSteps(int count) {
    lastStepsMilliseconds_ = 0.0;
    if (backend_->stepsAsynchronously()) {
        // Timed on the GPU, a few frames late: waiting for the steps would stall the frame.
        if (const auto perStep = backend_->collectStepMilliseconds()) noteStepTime(*perStep);
    }
    if (count <= 0) return;
    ++schoolVersion_;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i) backend_->step();
    simulatedSeconds_ += count * static_cast<double>(settings_.dt);
    if (backend_->stepsAsynchronously()) {
        lastStepsMilliseconds_ = count * stepMilliseconds_;
        return;
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    lastStepsMilliseconds_ = ms;
    noteStepTime(ms / count);
}

void SimulationController::noteStepTime(double perStep) {
    stepMilliseconds_ =
        stepMilliseconds_ == 0.0 ? perStep : 0.9 * stepMilliseconds_ + 0.1 * perStep;
}

int SimulationController::affordableSteps(double budgetMs, int most) const {
    if (stepMilliseconds_ <= 0.0) return std::min(most, kMaxStepsPerFrame);
    return std::clamp(static_cast<int>(budgetMs / stepMilliseconds_), 1, std::max(most, 1));
}

int SimulationController::advance(double wallSeconds) {
    if (pendingSteps_ > 0) {
        accumulator_ = 0.0;
        const int steps =
            affordableSteps(kFastForwardBudgetMilliseconds,
                            static_cast<int>(std::min<std::int64_t>(pendingSteps_, 1'000'000)));
        pendingSteps_ -= steps;
        runSteps(steps);
        return steps;
    }
    if (paused) {
        accumulator_ = 0.0;
        return 0;
    }
    if (stepsPerFrame) {
        accumulator_ = 0.0;
        runSteps(*stepsPerFrame);
        return *stepsPerFrame;
    }
    if (asFastAsItCan) {
        accumulator_ = 0.0;
        const int steps = affordableSteps(kStepBudgetMilliseconds, 1'000'000);
        runSteps(steps);
        return steps;
    }
    const double clamped = std::clamp(speed, kMinSpeed, kMaxSpeed);
    accumulator_ += wallSeconds * clamped;
    int steps = static_cast<int>(accumulator_ / settings_.dt);
    // However late the frame, run no more steps than fit the frame's budget (at least one), so
    // a big school slows the simulation down rather than the window.
    const int most = static_cast<int>(std::ceil(kMaxStepsPerFrame * std::max(clamped, 1.0)));
    const int affordable = affordableSteps(kStepBudgetMilliseconds, most);
    if (steps > affordable) {
        steps = affordable;
        accumulator_ = 0.0;  // drop what cannot be caught up
    } else {
        accumulator_ -= steps * static_cast<double>(settings_.dt);
    }
    runSteps(steps);
    return steps;
}

void SimulationController::fastForward(double seconds) {
    if (!(seconds > 0.0)) return;
    pendingSteps_ += static_cast<std::int64_t>(std::llround(seconds / settings_.dt));
}

void SimulationController::stepOnce() {
    runSteps(1);
}

SimulationController::~SimulationController() {
    if (measureThread_.joinable()) {
        measureThread_.request_stop();
        measureWake_.notify_all();
    }
}

void SimulationController::measureLoop(std::stop_token stop) {
    // Below the frame's threads: on a busy machine the measures wait, not the frame.
    setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kMeasureNice);
    std::unique_lock lock(measureMutex_);
    while (measureWake_.wait(lock, stop, [&] { return measureJob_.has_value(); })) {
        MeasureJob job = std::move(*measureJob_);
        measureJob_.reset();
        lock.unlock();
        const auto start = std::chrono::steady_clock::now();
        const School school = job.snapshot->fish();
        job.snapshot.reset();  // a CPU backend may write its buffer again
        const SchoolMetrics measured = measureSchool(school, job.params);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        lock.lock();
        measureDone_ = MeasureDone{measured, job.generation, job.simulatedSeconds,
                                   static_cast<std::int64_t>(school.size()), seconds};
        measuring_ = false;
    }
}

const SchoolMetrics& SimulationController::metrics(double nowSeconds, double everySeconds) {
    const auto start = std::chrono::steady_clock::now();
    if (!measureThread_.joinable())
        measureThread_ = std::jthread([this](std::stop_token stop) { measureLoop(stop); });
    std::unique_lock lock(measureMutex_);
    if (measureDone_) {
        if (measureDone_->generation == measureGeneration_) {
            metrics_ = measureDone_->metrics;
            measuredSeconds_ = measureDone_->simulatedSeconds;
            measuredFish_ = measureDone_->fish;
            ++measureCount_;
        }
        lastMeasureSeconds_ = measureDone_->seconds;
        measureDone_.reset();
    }
    // A measure that took T starts T / maxMeasureShare after the last began, at the earliest.
    if (!measuring_ && !snapshotAsked_ &&
        nowSeconds - metricsTime_ >=
            std::max(everySeconds, lastMeasureSeconds_ / std::max(maxMeasureShare, 1e-3))) {
        backend_->requestSnapshot();
        snapshotAsked_ = true;
        asked_ = {{}, params(), measureGeneration_, simulatedSeconds_};
        metricsTime_ = nowSeconds;
    }
    if (snapshotAsked_) {
        // The CPU backends' snapshot is there at once, the GPU's once its copy is done.
        if (auto snapshot = backend_->takeSnapshot()) {
            snapshotAsked_ = false;
            asked_.snapshot = std::move(snapshot);
            measureJob_ = std::move(asked_);
            measuring_ = true;
            measureWake_.notify_one();
        }
    }
    lock.unlock();
    lastMeasureMilliseconds_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return metrics_;
}

}  // namespace fishschool::app
