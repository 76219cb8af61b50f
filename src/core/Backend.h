#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "fishschool/Fish.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// The kinds of backend; BackendRegistry.h lists them with their names and how to make each.
enum class BackendKind { Cpu, Tbb, Gpu };

/// Where a backend keeps its school in GPU memory, for a renderer to draw from without a copy.
/// Plain integers, so that core needs no GL: `buffer` is a GL buffer name holding fish in the
/// layout of src/gpu/GpuLayout.h (GpuFish), the school at fish firstFish .. firstFish+fishCount.
struct GpuDrawSource {
    std::uint32_t buffer = 0;
    std::size_t firstFish = 0;
    std::size_t fishCount = 0;
};

/// The school at one step, read on another thread while the backend steps on (the app's
/// measures): positions and velocities in the backend's own order, which the measures of a
/// school do not depend on.
class SchoolSnapshot {
  public:
    virtual ~SchoolSnapshot() = default;
    /// The fish, accelerations left at zero.
    virtual School fish() const = 0;
};

/// A snapshot that is a copy.
class CopiedSchool final : public SchoolSnapshot {
  public:
    explicit CopiedSchool(School school) : school_(std::move(school)) {}
    School fish() const override { return school_; }

  private:
    School school_;
};

/// One way of running docs/model.md's step ("One step") over a school. A backend owns its copy of
/// the state in its own layout; upload and download move the school in and out, so the app can hand
/// a school from one backend to another without losing a fish.
class Backend {
  public:
    virtual ~Backend() = default;

    virtual BackendKind kind() const = 0;
    /// What it runs on, for the overlay and the bench table ("tbb, 2 threads", the GL renderer).
    virtual std::string description() const = 0;

    /// Takes parameters that passed validate(). params.fishCount is ignored: the fish count is
    /// that of the uploaded school (fishCount()), the one count of a running school. Fails when
    /// the backend cannot run them (a GPU step that does not compile for a new set of
    /// behaviours); health() then says so too, and steps do nothing.
    [[nodiscard]] virtual Result<void> setParams(const SimParams& params) = 0;
    /// Replaces the school. Fails (and keeps the old school) when the backend cannot hold it.
    [[nodiscard]] virtual Result<void> upload(std::span<const Fish> school) = 0;
    /// The school in the order it was uploaded.
    virtual School download() = 0;
    /// The same into `school`; a backend that can fills it in place, so that a reader who keeps
    /// the vector reads a school of the same size again without allocating.
    virtual void downloadInto(School& school) { school = download(); }
    /// The positions and velocities alone, in upload order, as float triples into `positions`
    /// and `velocities` (3 * fishCount() floats each): a trajectory's frame, without a School
    /// between. This default downloads one.
    virtual void downloadFrame(std::span<float> positions, std::span<float> velocities) {
        copyFrame(download(), positions, velocities);
    }
    /// The number of fish in the school: the truth for a running school.
    virtual std::size_t fishCount() const = 0;

    /// Advances the school by one step of params.dt, and counts it.
    void step() {
        stepImpl();
        ++stepCount_;
    }
    /// step(), writing on the way the school as it was before the step into `positions` and
    /// `velocities` as downloadFrame() does: a trajectory's frame, copied while the step reads
    /// each fish anyway (the cpu and tbb backends), rather than in a pass of its own.
    void stepCopyingFrame(std::span<float> positions, std::span<float> velocities) {
        stepCopyingFrameImpl(positions, velocities);
        ++stepCount_;
    }
    /// Waits until the work already issued has finished (GPU); for timing.
    virtual void finish() {}
    /// Whether step() returns before its work is done (the GPU): a wall clock around it times
    /// the submission only, and collectStepMilliseconds() says what the steps took.
    virtual bool stepsAsynchronously() const { return false; }
    /// The mean time per step of the steps whose timings came back since the last call (the
    /// GPU's timer queries, a few frames late), ms; nullopt when none came back.
    virtual std::optional<double> collectStepMilliseconds() { return std::nullopt; }
    /// The first failure met since the school was uploaded that leaves it not to be trusted (the
    /// GPU ran out of memory or GL reported an error mid-run), with the fish count; or nothing.
    /// The CPU backends never fail here.
    [[nodiscard]] virtual Result<void> health() const { return {}; }

    /// Starts a snapshot of the school as it is now, at next to no cost to the caller: the CPU
    /// backends share their state, the GPU copies it on the GPU. The default copies download().
    virtual void requestSnapshot() { snapshot_ = std::make_shared<CopiedSchool>(download()); }
    /// The snapshot requested last, once it is ready (the GPU's comes a frame or two later), or
    /// null; each request gives one. Never waits.
    virtual std::shared_ptr<const SchoolSnapshot> takeSnapshot() {
        return std::exchange(snapshot_, nullptr);
    }

    /// How the school is drawn: from this GPU buffer, or (nullopt) from a copy that download()
    /// makes.
    virtual std::optional<GpuDrawSource> drawSource() const { return std::nullopt; }

    /// The steps taken so far: the counter the noise is drawn from (with the seed and the fish).
    /// Upload keeps it; whoever hands a school to another backend hands the count on too.
    std::uint64_t stepCount() const { return stepCount_; }
    void setStepCount(std::uint64_t count) { stepCount_ = count; }

  protected:
    /// One step of the backend: step number stepCount() (counted from 0), which step() counts
    /// once this returns.
    virtual void stepImpl() = 0;
    /// This default copies the frame first, then steps.
    virtual void stepCopyingFrameImpl(std::span<float> positions, std::span<float> velocities) {
        downloadFrame(positions, velocities);
        stepImpl();
    }

  private:
    std::uint64_t stepCount_ = 0;
    std::shared_ptr<const SchoolSnapshot> snapshot_;  ///< the default snapshot's
};

}  // namespace fishschool
