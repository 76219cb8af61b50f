#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fishschool/Export.h"
#include "fishschool/Fish.h"
#include "fishschool/Metrics.h"
#include "fishschool/Result.h"
#include "fishschool/Run.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// A kind of backend of this build, in the order the app's keys 1, 2, 3 choose them.
struct BackendInfo {
    std::string name;   ///< "cpu", "tbb", "gpu": what Simulation takes
    std::string label;  ///< "CPU single": how the app's panel shows it
    bool built = true;  ///< compiled into this build (the gpu one needs EGL and glad)
};
/// Every kind of backend this build knows.
FISHSCHOOL_API std::vector<BackendInfo> backends();

/// Whether `name` is a kind of backend of this build ("cpu", "tbb", "gpu"); the error names the
/// kinds allowed. Whether it can run on this machine is Simulation::create's to say.
[[nodiscard]] FISHSCHOOL_API Result<void> checkBackendName(std::string_view name);

/// The library's version, e.g. "0.1.0".
FISHSCHOOL_API std::string_view version();

/// One school and the backend that steps it: what the app, the CLI and Python drive. Every
/// change is checked as a config file is (docs/config.md) and, when refused, leaves the
/// simulation as it was, with a message that names the key, the value and what is allowed.
///
///     auto sim = fishschool::Simulation::fromConfigFile("school.json", "tbb");
///     if (!sim) return fail(sim.error());
///     if (auto ok = sim->step(100); !ok) ...
///     const fishschool::SchoolMetrics m = sim->measures();
class FISHSCHOOL_API Simulation {
  public:
    /// A fresh school of params.fishCount fish from params.seed on the backend named `backend`.
    [[nodiscard]] static Result<Simulation> create(const SimParams& params,
                                                   std::string_view backend = "tbb");
    /// The same from `school` (its size is the fish count); its fish must lie in the tank and
    /// outside every rock.
    [[nodiscard]] static Result<Simulation> create(const SimParams& params,
                                                   std::string_view backend,
                                                   std::span<const Fish> school);
    /// A run's start (Run.h): a config, a state CSV or a trajectory's frame, with the fish count
    /// shared among the species; from a frame, its step and time go on.
    [[nodiscard]] static Result<Simulation> start(const RunStart& start,
                                                  std::string_view backend = "tbb");
    [[nodiscard]] static Result<Simulation> create(const StartingSchool& start,
                                                   std::string_view backend);
    /// From a config file or a config's JSON text (docs/config.md).
    [[nodiscard]] static Result<Simulation> fromConfigFile(const std::filesystem::path& path,
                                                           std::string_view backend = "tbb");
    [[nodiscard]] static Result<Simulation> fromConfigJson(std::string_view json,
                                                           std::string_view backend = "tbb");

    Simulation(Simulation&&) noexcept;
    Simulation& operator=(Simulation&&) noexcept;
    ~Simulation();

    /// The running parameters; fishCount is the school's.
    SimParams params() const;
    /// "cpu", "tbb" or "gpu".
    std::string_view backendName() const;
    std::size_t fishCount() const;
    /// Steps taken since the school was first made: the counter the noise is drawn from. A new
    /// backend, new parameters and a replaced school keep it.
    std::uint64_t stepCount() const;
    /// Simulated seconds since the school was made, replaced or loaded (steps times their dt).
    double time() const;
    /// Sets the step count the noise is drawn from and the simulated time: a frame's, where a
    /// run goes on from it (Simulation::start does so for a trajectory's frame).
    void setClock(std::uint64_t step, double seconds);
    /// Changes whenever the school may have changed (a step, a change, a new backend), so that
    /// a reader can keep what it read until then.
    std::uint64_t schoolVersion() const;

    /// Runs `steps` steps (0 or more), recording what is due (startRecording). An error when
    /// the backend failed mid-run (a GPU out of memory, a lost context): the school is then not
    /// to be trusted; or when the recording failed (a full disk): it is then dropped, nothing
    /// replaced, and recording() false.
    [[nodiscard]] Result<void> step(std::int64_t steps = 1);
    /// Hands the school, with its step count, to a backend of another kind; on failure the old
    /// backend keeps running.
    [[nodiscard]] Result<void> setBackend(std::string_view name);

    /// New parameters, checked as a config's. Weights, radii and limits reach the school as it
    /// is; a new tank, new rocks or a new fishCount resize the school (fish added as a fresh
    /// school would make them) and move the fish the new scene leaves outside into it.
    [[nodiscard]] Result<void> setParams(const SimParams& params);
    /// One numeric config key ("rCohesion", "fishCount", ...), as a config giving it would.
    [[nodiscard]] Result<void> setParam(std::string_view key, double value);
    /// The keys of a config's JSON object replace the running ones; the others stay.
    [[nodiscard]] Result<void> setConfigJson(std::string_view json);
    /// Every key, as a config file holds it.
    std::string configJson() const;

    /// Adds fish at the end of the school; each must lie in the tank and outside every rock.
    [[nodiscard]] Result<void> addFish(std::span<const Fish> fish);
    /// Removes the fish at these indices of school() (each once, in any order).
    [[nodiscard]] Result<void> removeFish(std::span<const std::size_t> indices);
    /// Replaces the school with `school`, whatever its size; time() starts again from 0.
    [[nodiscard]] Result<void> setSchool(std::span<const Fish> school);
    /// A fresh school of the same size from `seed`; time() starts again from 0.
    [[nodiscard]] Result<void> reset(std::uint64_t seed);

    /// The school in the order it was given (fish 0 first). Read from the backend at most once
    /// per schoolVersion() into a buffer the simulation keeps: reading it again, or after a step
    /// on a CPU backend, allocates nothing. Valid until the next call that changes the school.
    std::span<const Fish> school();
    /// The same buffer, shared: it lives, unchanged, for as long as the pointer is held (a
    /// NumPy array that views it). While one is held, the school is read into a new buffer.
    std::shared_ptr<const School> sharedSchool();
    /// The positions and velocities of school(), fish by fish, as float triples into `positions`
    /// and `velocities` (3 * fishCount() floats each): a trajectory's frame
    /// (TrajectoryWriter::addFrameFrom), copied straight from the backend (on every thread of a
    /// tbb backend) unless school() was read since the last change.
    void copyFrame(std::span<float> positions, std::span<float> velocities);
    /// One step, as step(1), that on the way copies the school as it was before the step into
    /// the spans as copyFrame() does: the cpu and tbb backends write each fish as the step reads
    /// it, which costs a fraction of a pass of its own (TrajectoryWriter::addFrameFrom with this
    /// in its fill writes the frame of the step before and steps on).
    [[nodiscard]] Result<void> stepCopyingFrame(std::span<float> positions,
                                                std::span<float> velocities);
    /// The school's measures (Metrics.h) now.
    SchoolMetrics measures();

    /// The state file (docs/config.md, State) of the school, written to a temporary name and
    /// renamed over `path`.
    [[nodiscard]] Result<void> saveState(const std::filesystem::path& path);
    /// Replaces the school with a state file's, checked against the running parameters.
    [[nodiscard]] Result<void> loadState(const std::filesystem::path& path);
    /// The running parameters as a config file.
    [[nodiscard]] Result<void> saveConfig(const std::filesystem::path& path) const;

    /// Starts recording the school to `outputs` (Run.h): each checked (its folder, a name the file
    /// system takes, not one of its inputs, no two on one file) and its temporary file made before
    /// anything is written, then the frames and rows of the step the school is at. From then on
    /// every step records what is due, and every change of parameters is recorded at its step.
    /// While a trajectory records, the school keeps its size: a new fish count, added or
    /// removed fish, a new school or a reset are refused until finishRecording().
    [[nodiscard]] Result<void> startRecording(std::span<const RunOutput> outputs);
    /// A frame and a row of every output now (those whose `every` is 0 record only these). A
    /// recording that fails is dropped, as step() drops it.
    [[nodiscard]] Result<void> recordFrame();
    /// Ends the recording: the end state written, every file put into place together; on an
    /// error none is, and every existing file is as it was. Errors name the user's path.
    [[nodiscard]] Result<RecordingSummary> finishRecording();
    /// Ends the recording without writing: nothing replaced.
    void dropRecording();
    bool recording() const;
    /// What the running recording has written so far (all zero without one).
    RecordingSummary recordingProgress() const;

  private:
    friend struct SimulationInternals;  // this project's front ends beneath the API (the app)
    struct State;
    Result<void> stepCopyingFrameAlone(std::span<float> positions, std::span<float> velocities);
    explicit Simulation(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

}  // namespace fishschool
