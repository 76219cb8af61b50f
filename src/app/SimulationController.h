#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/Backend.h"
#include "core/MeasuresWorker.h"
#include "core/Scenario.h"
#include "fishschool/Metrics.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"
#include "fishschool/Simulation.h"
#include "library/SimulationInternals.h"

namespace fishschool::app {

/// The app's simulation: the library's Simulation (the school, its backend and its parameters,
/// which keeps the school through a new backend, fish count or parameters) with what the app
/// adds: the fixed-step clock of the frames, the density a new fish count keeps, the limits of
/// an interactive school and the measures taken beside the frames. Needs no window, only a
/// current GL context for the gpu backend, so tests can drive it.
class SimulationController {
  public:
    /// Starts with `params` (valid) on `kind`, with `startSchool` (a loaded state file: its size
    /// replaces params.fishCount) or else a fresh school; fails if the backend cannot run it.
    [[nodiscard]] static Result<std::unique_ptr<SimulationController>> create(
        const SimParams& params, BackendKind kind, const School* startSchool = nullptr);
    /// The same on a backend already made with `params` (tests hand in one that counts calls).
    [[nodiscard]] static Result<std::unique_ptr<SimulationController>> create(
        const SimParams& params, std::unique_ptr<Backend> backend,
        const School* startSchool = nullptr);

    /// The running parameters; fishCount is the backend's, the one count of the school.
    SimParams params() const { return simulation_.params(); }
    Backend& backend() { return SimulationInternals::backend(simulation_); }
    /// The school as it is now, species included (Simulation::school()), e.g. for a trajectory
    /// that records each fish's species.
    std::span<const Fish> school() { return simulation_.school(); }
    BackendKind backendKind() const;
    std::size_t fishCount() const { return simulation_.fishCount(); }

    /// Why a backend cannot run here (empty when it can), checked once and remembered until
    /// the fish count changes (a GPU's storage limit depends on it).
    const std::string& unavailableReason(BackendKind kind);

    /// Hands the school to a new backend. On failure the old backend keeps running.
    [[nodiscard]] Result<void> switchBackend(BackendKind kind);
    /// Validates, then applies new parameters with one setParams. The school stays where it is
    /// (on the GPU for the gpu backend) unless the fish count or the scene changed: then it is read
    /// back once, fish that the new tank or rocks leave outside are moved inside, and a new
    /// fishCount adds or removes fish and keeps the others. With Density::Fixed a new fishCount
    /// that comes with the running tank, rocks and target scales them from the density base
    /// (fixedDensityParams); a new tank, rocks or target (a preset, a config, the panel's tank
    /// controls) becomes the base, at its fish count. On failure nothing changes and the error
    /// names the key.
    [[nodiscard]] Result<void> applyParams(const SimParams& params);

    /// What a new fish count does to the scene. Switching to Fixed keeps the running scene and
    /// makes it the base: nothing moves, and the density from then on is the one in view.
    Density density() const { return density_; }
    void setDensity(Density density);
    /// The scene whose density Fixed keeps: its fishCount, bounds, rocks and target (the other
    /// fields are the running ones). It starts as the scene the controller was created with.
    SimParams densityBase() const;
    /// Makes `base`'s fishCount, bounds, rocks and target the density base, e.g. the config a
    /// `--fish N` scaled from; the running scene is not changed.
    void setDensityBase(const SimParams& base);
    /// Moves to `kind` with `count` fish, in the order that never passes through a setting
    /// the app refuses when the target itself is allowed (fewer fish first, more fish last).
    [[nodiscard]] Result<void> setScene(BackendKind kind, std::int64_t count);
    /// Replaces the school with `school` (a loaded state file: its fish must lie in the scene),
    /// whatever its size; params().fishCount follows. On failure nothing changes.
    [[nodiscard]] Result<void> replaceSchool(const School& school);
    /// A fresh school of the same size from `seed`.
    void reset(std::uint64_t seed);

    /// Advances the fixed-step clock by `wallSeconds` times `speed`: runs whole steps of
    /// params.dt, at most kMaxStepsPerFrame (times the speed above 1) and no more than fit in
    /// kStepBudgetMilliseconds, and drops the rest so a slow machine never spirals. Runs a
    /// pending fast-forward instead when there is one. Returns the steps run.
    int advance(double wallSeconds);
    /// One step now, paused or not.
    void stepOnce();
    /// Runs `seconds` of simulated time as fast as the machine can, a frame's budget at a time
    /// (so the window keeps answering), paused or not; normal stepping waits until it is done.
    void fastForward(double seconds);
    /// Simulated seconds the fast-forward has still to run (0 when none).
    double fastForwardLeft() const { return pendingSteps_ * static_cast<double>(params().dt); }
    void cancelFastForward() { pendingSteps_ = 0; }
    /// Simulated time of the school (Simulation::time()).
    double simulatedSeconds() const { return simulation_.time(); }
    /// Sets the clock, e.g. back to where it was when a school is given back after a sweep.
    void setSimulatedSeconds(double seconds) {
        simulation_.setClock(simulation_.stepCount(), seconds);
    }
    /// The step count the noise is drawn from (Simulation::stepCount()), the step numbers a
    /// recorded trajectory gives its frames.
    std::int64_t stepCount() const { return static_cast<std::int64_t>(simulation_.stepCount()); }
    /// Sets the step count and the clock, e.g. to a replayed frame's when a run continues from it.
    void setClock(std::int64_t steps, double seconds) {
        simulation_.setClock(static_cast<std::uint64_t>(steps), seconds);
    }
    /// The library's simulation, for what the app asks of it directly (its recording).
    Simulation& simulation() { return simulation_; }
    const Simulation& simulation() const { return simulation_; }
    /// Why the last steps could not record (a full disk), once: the recording was dropped.
    std::optional<std::string> takeRecordingFailure() {
        return std::exchange(recordingFailure_, {});
    }

    bool paused = false;
    /// Simulated seconds per wall second (0.25 to 8); ignored while asFastAsItCan.
    double speed = 1.0;
    /// Steps as many times a frame as fit in the frame's step budget, whatever the clock.
    bool asFastAsItCan = false;
    /// Exactly this many steps a frame, whatever the clock or the speed (a sweep's measured
    /// frames: the school then goes through the same states frame by frame on any machine).
    std::optional<int> stepsPerFrame;
    static constexpr double kMinSpeed = 0.25, kMaxSpeed = 8.0;
    /// The budget of a fast-forward frame, ms: longer than a normal frame's, still interactive.
    static constexpr double kFastForwardBudgetMilliseconds = 50.0;
    static constexpr int kMaxStepsPerFrame = 4;
    /// Refuses settings the app cannot run interactively (checkAppLimits, AppLimits.h); the
    /// error names the key.
    [[nodiscard]] static Result<void> checkInteractive(const SimParams& params, BackendKind kind);
    /// Simulation time a frame may spend on steps when it is behind, ms.
    static constexpr double kStepBudgetMilliseconds = 25.0;

    /// The latest finished measures of the school. At most every `everySeconds` of wall time
    /// (and no more often than keeps the worker within maxMeasureShare), and only once the
    /// last one is done, the backend is asked for a snapshot of the school (requestSnapshot: a
    /// shared buffer on the CPU, an asynchronous copy on the GPU), which a worker thread of
    /// lower priority measures, so the frame never copies the school nor waits for
    /// measureSchool; the measures of a school that has since been replaced, resized or moved
    /// into a new scene are dropped.
    const SchoolMetrics& metrics(double nowSeconds, double everySeconds = 0.5);
    /// The share of one core the measures' worker may take at most (0 to 1): a measure that
    /// took T starts T / maxMeasureShare after the last one began, at the earliest.
    double maxMeasureShare = 0.25;
    /// How many measures metrics() has taken in, so a plot takes each measure once.
    std::uint64_t measureCount() const { return measureCount_; }
    /// The simulated time and the fish count of the school the latest measures are of.
    double measuredSeconds() const { return measuredSeconds_; }
    /// The step of the school the latest measures are of (stepCount() when it was snapshotted).
    std::int64_t measuredStep() const { return measuredStep_; }
    std::int64_t measuredFishCount() const { return measuredFish_; }
    /// Milliseconds the last metrics() call took on the calling thread (next to nothing: the
    /// frame only asks for snapshots and hands them on).
    double lastMeasureMilliseconds() const { return lastMeasureMilliseconds_; }
    /// Changes whenever the school may have changed (a step, a switch, new parameters, a
    /// reset), so a renderer can skip copying a school it already has.
    std::uint64_t schoolVersion() const { return simulation_.schoolVersion(); }

    /// Mean milliseconds per step over the last steps (the simulation's cost, GPU included);
    /// starts again when the backend or the school changes.
    double stepMilliseconds() const { return stepMilliseconds_; }
    /// Milliseconds the steps of the last advance() or stepOnce() took: on the wall clock for the
    /// CPU backends, from the GPU's timer queries (a few frames late) for the gpu backend; 0
    /// when it ran none.
    double lastStepsMilliseconds() const { return lastStepsMilliseconds_; }

  private:
    explicit SimulationController(Simulation simulation) : simulation_(std::move(simulation)) {}
    void runSteps(int count);
    /// Folds one step's time into stepMilliseconds_.
    void noteStepTime(double perStep);
    /// applyParams without the density: validates and applies `params` as they are.
    [[nodiscard]] Result<void> applyScene(const SimParams& params);

    Simulation simulation_;
    double accumulator_ = 0.0;
    std::int64_t pendingSteps_ = 0;
    std::optional<std::string> recordingFailure_;
    /// Steps that fit in `budgetMs` at the measured step time, from 1 to `most`.
    int affordableSteps(double budgetMs, int most) const;
    /// A new backend or school size: step times measured before say nothing of it.
    void forgetStepTimes() { stepMilliseconds_ = 0.0; }
    void forgetCountDependentChecks();

    double stepMilliseconds_ = 0.0;
    double lastStepsMilliseconds_ = 0.0;
    SchoolMetrics metrics_;
    double metricsTime_ = -1e9;
    std::uint64_t measureCount_ = 0;
    double measuredSeconds_ = 0.0;
    std::int64_t measuredStep_ = 0;
    std::int64_t askedStep_ = 0;  ///< stepCount() of the snapshot in flight or being measured
    std::int64_t submittedStep_ = 0;
    std::int64_t measuredFish_ = 0;
    double lastMeasureMilliseconds_ = 0.0;
    /// Bumped whenever the school is replaced, resized or moved: older measures are dropped.
    std::uint64_t measureGeneration_ = 0;
    void forgetMeasures() {
        metricsTime_ = -1e9;
        ++measureGeneration_;
        snapshotAsked_ = false;
    }
    MeasuresWorker measures_;
    /// A snapshot was asked of the backend and has not come yet, for this generation and
    /// simulated time.
    bool snapshotAsked_ = false;
    std::uint64_t askedGeneration_ = 0;
    double askedSeconds_ = 0.0;
    double lastMeasureSeconds_ = 0.0;  ///< the worker's time for the last measure
    Density density_ = Density::Tank;
    /// The scene Density::Fixed scales from (only its fishCount, bounds, rocks, target).
    struct SceneBase {
        std::int64_t fishCount = 0;
        glm::vec3 bounds{};
        std::vector<Rock> rocks;
        glm::vec3 target{};
    } base_;
    /// Per entry of backendRegistry(): why it cannot run, "" when it can, unset until asked.
    std::vector<std::optional<std::string>> unavailable_;
};

}  // namespace fishschool::app
