#include "SimulationController.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <glm/vec3.hpp>

#include "app_model/AppLimits.h"
#include "backends/BackendRegistry.h"
#include "core/Scenario.h"

namespace fishschool::app {

Result<void> SimulationController::checkInteractive(const SimParams& params, BackendKind kind) {
    return checkAppLimits(params, kind);
}

Result<std::unique_ptr<SimulationController>> SimulationController::create(
    const SimParams& requested, BackendKind kind, const School* startSchool) {
    SimParams params = requested;
    if (startSchool) countSchool(params, *startSchool);
    if (auto ok = validate(params); !ok) return fail(ok.error());
    if (auto ok = checkInteractive(params, kind); !ok) return fail(ok.error());
    auto backend = createBackend(kind, params);
    if (!backend) return fail(backend.error());
    return create(params, std::move(*backend), startSchool);
}

Result<std::unique_ptr<SimulationController>> SimulationController::create(
    const SimParams& requested, std::unique_ptr<Backend> backend, const School* startSchool) {
    SimParams params = requested;
    if (startSchool) countSchool(params, *startSchool);
    if (auto ok = validate(params); !ok) return fail(ok.error());
    if (auto ok = checkInteractive(params, backend->kind()); !ok) return fail(ok.error());
    const School school = startSchool ? School{} : makeInitialSchool(params);
    auto simulation = SimulationInternals::create(params, std::move(backend),
                                                  startSchool ? *startSchool : school);
    if (!simulation) return fail(simulation.error());
    auto controller =
        std::unique_ptr<SimulationController>(new SimulationController(std::move(*simulation)));
    controller->unavailable_.resize(backendRegistry().size());
    controller->setDensityBase(params);
    return controller;
}

BackendKind SimulationController::backendKind() const {
    return *parseBackendKind(simulation_.backendName());
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
        if (kind == backendKind()) {
            reason = "";
        } else {
            auto probe = createBackend(kind, params());
            reason = probe ? "" : probe.error().message();
        }
    }
    return *reason;
}

Result<void> SimulationController::switchBackend(BackendKind kind) {
    if (kind == backendKind()) return {};
    if (auto ok = checkInteractive(params(), kind); !ok) return fail(ok.error());
    if (auto ok = simulation_.setBackend(toString(kind)); !ok) {
        unavailable_[backendIndex(kind)] = ok.error();
        return ok;
    }
    snapshotAsked_ = false;  // the old backend's snapshot will not come
    forgetStepTimes();
    return {};
}

SimParams SimulationController::densityBase() const {
    SimParams base = params();
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
    const SimParams running = this->params();
    const bool boundsOrRocksEdited =
        params.bounds != running.bounds || params.rocks != running.rocks;
    const bool targetEdited = params.target != running.target;
    const bool countAsked = static_cast<std::size_t>(params.fishCount) != fishCount();
    // A base of no fish has no density to keep: the new count comes into the running scene,
    // which then becomes the base (as a tank set by hand does).
    const bool baseHasDensity = base_.fishCount >= 1;
    const bool scaleFromBase =
        density_ == Density::Fixed && countAsked && !boundsOrRocksEdited && !targetEdited;
    if (scaleFromBase && baseHasDensity) {
        // The running scene with another count: scale the base's, with today's other parameters
        // (a rock's gap to the walls depends on them).
        const SimParams scaled = fixedDensityParams(params.fishCount, densityBase());
        params.bounds = scaled.bounds;
        params.rocks = scaled.rocks;
        params.target = scaled.target;
    }
    if (auto ok = applyScene(params); !ok) return ok;
    if (boundsOrRocksEdited || (scaleFromBase && !baseHasDensity)) {
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
    if (auto ok = checkInteractive(params, backendKind()); !ok) return fail(ok.error());
    const bool countChanged = static_cast<std::size_t>(params.fishCount) != fishCount();
    const std::uint64_t before = simulation_.schoolVersion();
    if (auto ok = simulation_.setParams(params); !ok) return ok;
    // Weights, radii, limits leave the school untouched, wherever it lives.
    if (simulation_.schoolVersion() == before) return {};
    forgetMeasures();
    if (countChanged) forgetCountDependentChecks();
    return {};
}

Result<void> SimulationController::setScene(BackendKind kind, std::int64_t count) {
    SimParams next = params();
    setFishCount(next, count);  // a sweep's count, shared among the species as they are now
    if (auto ok = validate(next); !ok) return fail(ok.error());
    if (auto ok = checkInteractive(next, kind); !ok) return fail(ok.error());
    if (count < static_cast<std::int64_t>(fishCount())) {
        if (auto ok = applyParams(next); !ok) return ok;
        return switchBackend(kind);
    }
    if (auto ok = switchBackend(kind); !ok) return ok;
    return applyParams(next);
}

Result<void> SimulationController::replaceSchool(const School& school) {
    SimParams next = params();
    countSchool(next, school);
    if (auto ok = validate(next); !ok) return fail(ok.error());
    if (auto ok = checkInteractive(next, backendKind()); !ok) return fail(ok.error());
    const std::size_t countBefore = fishCount();
    if (auto ok = simulation_.setSchool(school); !ok) return ok;
    if (school.size() != countBefore) {
        forgetCountDependentChecks();
        setDensityBase(next);  // the loaded school in this tank: its density is the one to keep
    }
    accumulator_ = 0.0;
    pendingSteps_ = 0;
    forgetMeasures();
    return {};
}

void SimulationController::reset(std::uint64_t seed) {
    // The app ends a recording before it replaces the school (App::apply), which is refused
    // while a trajectory records.
    if (!simulation_.reset(seed)) return;
    accumulator_ = 0.0;
    pendingSteps_ = 0;
    forgetMeasures();
}

void SimulationController::runSteps(int count) {
    lastStepsMilliseconds_ = 0.0;
    Backend& stepper = backend();
    if (stepper.stepsAsynchronously()) {
        // Timed on the GPU, a few frames late: waiting for the steps would stall the frame.
        if (const auto perStep = stepper.collectStepMilliseconds()) noteStepTime(*perStep);
    }
    if (count <= 0) return;
    const auto start = std::chrono::steady_clock::now();
    // A backend that failed mid-run says so through health(), which the frame reads; a
    // recording that failed, through takeRecordingFailure().
    if (auto ok = simulation_.step(count); !ok && stepper.health()) recordingFailure_ = ok.error();
    if (stepper.stepsAsynchronously()) {
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
        lastStepsMilliseconds_ = 0.0;  // no step ran: the last one's time is not this frame's
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
    const double dt = params().dt;
    int steps = static_cast<int>(accumulator_ / dt);
    // However late the frame, run no more steps than fit the frame's budget (at least one), so
    // a big school slows the simulation down rather than the window.
    const int most = static_cast<int>(std::ceil(kMaxStepsPerFrame * std::max(clamped, 1.0)));
    const int affordable = affordableSteps(kStepBudgetMilliseconds, most);
    if (steps > affordable) {
        steps = affordable;
        accumulator_ = 0.0;  // drop what cannot be caught up
    } else {
        accumulator_ -= steps * dt;
    }
    runSteps(steps);
    return steps;
}

void SimulationController::fastForward(double seconds) {
    if (!(seconds > 0.0)) return;
    pendingSteps_ += static_cast<std::int64_t>(std::llround(seconds / params().dt));
}

void SimulationController::stepOnce() {
    runSteps(1);
}

const SchoolMetrics& SimulationController::metrics(double nowSeconds, double everySeconds) {
    const auto start = std::chrono::steady_clock::now();
    if (auto done = measures_.takeDone()) {
        if (done->generation == measureGeneration_) {
            metrics_ = done->metrics;
            measuredSeconds_ = done->simulatedSeconds;
            measuredStep_ = submittedStep_;
            measuredFish_ = done->fish;
            ++measureCount_;
        }
        lastMeasureSeconds_ = done->seconds;
    }
    // A measure that took T starts T / maxMeasureShare after the last began, at the earliest.
    if (!snapshotAsked_ && !measures_.busy() &&
        nowSeconds - metricsTime_ >=
            std::max(everySeconds, lastMeasureSeconds_ / std::max(maxMeasureShare, 1e-3))) {
        backend().requestSnapshot();
        snapshotAsked_ = true;
        askedGeneration_ = measureGeneration_;
        askedSeconds_ = simulatedSeconds();
        askedStep_ = stepCount();
        metricsTime_ = nowSeconds;
    }
    if (snapshotAsked_) {
        // The CPU backends' snapshot is there at once, the GPU's once its copy is done.
        if (auto snapshot = backend().takeSnapshot()) {
            snapshotAsked_ = false;
            submittedStep_ = askedStep_;
            measures_.submit(std::move(snapshot), params(), askedGeneration_, askedSeconds_);
        }
    }
    lastMeasureMilliseconds_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return metrics_;
}

}  // namespace fishschool::app
