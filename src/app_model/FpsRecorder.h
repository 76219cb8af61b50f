#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/Backend.h"
#include "core/Scenario.h"
#include "fishschool/Result.h"

namespace fishschool::ui {

/// The renderer's levels of detail, most detailed first: the full fish mesh, the low-poly one,
/// the silhouette for fish of a few pixels.
inline constexpr std::array<const char*, 3> kDrawLevelNames = {"full", "low", "tiny"};
using FishPerLevel = std::array<std::uint64_t, kDrawLevelNames.size()>;

/// One measured row: the app's frames per second with a backend and a fish count.
struct FpsRecord {
    BackendKind backend = BackendKind::Cpu;
    std::int64_t fish = 0;
    double fps = 0.0;
    double simulationMs = 0.0;         ///< per frame
    double renderMs = 0.0;             ///< per frame
    bool fromSweep = false;            ///< a sweep's row, else one of Record
    Density density = Density::Fixed;  ///< what the fish count did to the tank
    /// Mean neighbours per fish of the measures taken while the case was measured (the last one
    /// of the case if none came then); NaN when the school was not measured.
    double meanNeighbors = 0.0;
    double measureMs = 0.0;  ///< per frame: the frame's share of the school's measures
    /// Per frame, from GL timer queries: the GPU's time for the scene and the panel; NaN when
    /// no query came back while the case was measured.
    double gpuRenderMs = std::nan("");
    double triangles = 0.0;                                     ///< fish triangles drawn per frame
    std::array<double, kDrawLevelNames.size()> fishPerLevel{};  ///< fish drawn at each level
};

/// What one frame cost, fed to the recorder by the app.
struct FrameSample {
    double frameSeconds = 0.0;
    double simulationMs = 0.0;
    double renderMs = 0.0;
    BackendKind backend = BackendKind::Cpu;
    std::int64_t fish = 0;
    Density density = Density::Fixed;
    /// Mean neighbours per fish of a measure of the school that arrived this frame, if one did.
    std::optional<double> meanNeighbors;
    double measureMs = 0.0;
    /// The school is still being brought to its formed state (the sweep's warm-up steps run as
    /// a fast-forward): the frame counts toward nothing.
    bool settling = false;
    /// GPU time of a recent frame's drawing, and what it drew, when they have come back.
    std::optional<double> gpuRenderMs{};
    std::optional<FishPerLevel> fishPerLevel{};
    std::uint64_t triangles = 0;
    /// The app measures the school (the panel's measures are on), so a measure will come: a
    /// case's row waits for one, up to kMaxMeasureWaitSeconds past its measured seconds.
    bool measuring = false;
};

/// Records FPS rows: one at a time ("Record"), or a sweep over fish counts and backends that sets
/// the scene itself (warm-up, then measurement), laid out like the article's Table 1. A phase ends
/// once it has lasted both its frames and its seconds, so a row averages a few seconds however
/// fast the frames come.
class FpsRecorder {
  public:
    struct Request {  ///< what the recorder needs the app to set before the next frame
        std::optional<BackendKind> backend;
        std::optional<std::int64_t> fish;
    };

    int warmupFrames = 10;
    double warmupSeconds = 1.0;  ///< Record only: a sweep's case warms up by frames alone
    int measureFrames = 30;
    double measureSeconds = 3.0;
    /// How much longer than its measured seconds a case waits for a measure of its school
    /// (they come from a worker, at most twice a second, later on a busy machine).
    static constexpr double kMaxMeasureWaitSeconds = 10.0;

    void startRecord();
    [[nodiscard]] Result<void> startSweep(const std::vector<BackendKind>& backends,
                                          const std::vector<std::int64_t>& fishCounts);
    void cancel();
    bool busy() const { return mode_ != Mode::Idle; }
    bool sweeping() const { return mode_ == Mode::Sweep; }
    /// "sweep 3/12: tbb, 5000 fish"
    std::string status() const;
    /// Cases of the current or last sweep, measured or skipped, and how many there are in all.
    std::size_t casesDone() const { return caseIndex_; }
    std::size_t caseCount() const { return cases_.size(); }

    /// Call once per frame; returns what to change before the next frame (sweeps only).
    Request onFrame(const FrameSample& sample);
    /// The app could not set the scene the last request asked for (a backend this machine cannot
    /// run, a fish count it refuses): the case is noted with `reason` and the sweep goes on.
    void skipCase(const std::string& reason);
    /// "gpu, 2000000 fish: <reason>" for each case skipped since the sweep started.
    const std::vector<std::string>& skipped() const { return skipped_; }

    const std::vector<FpsRecord>& records() const { return records_; }
    void clear() { records_.clear(); }
    /// CSV with the header backend,fish,fps,sim_ms,render_ms,density,mean_neighbors,measure_ms,
    /// gpu_render_ms,triangles,fish_full,fish_low,fish_tiny (mean_neighbors empty where the
    /// school was not measured, gpu_render_ms where no GPU time came back).
    std::string csv() const;

  private:
    enum class Mode { Idle, Record, Sweep };
    struct Case {
        BackendKind backend;
        std::int64_t fish;
    };
    void beginCase();

    Mode mode_ = Mode::Idle;
    std::vector<Case> cases_;
    std::size_t caseIndex_ = 0;
    int warmupFramesSeen_ = 0;
    double warmupSecondsSeen_ = 0.0;
    double seconds_ = 0.0, simulationMs_ = 0.0, renderMs_ = 0.0;
    double neighborsSum_ = 0.0, measureMs_ = 0.0;
    double gpuRenderMsSum_ = 0.0, trianglesSum_ = 0.0;
    int gpuRenderCount_ = 0, drawCount_ = 0;
    std::array<double, kDrawLevelNames.size()> fishPerLevelSum_{};
    /// The current case's scene has been asked for: each case starts from a scene the app set
    /// (and a school it brought to its formed state), even when the scene was already there.
    bool caseAsked_ = false;
    int neighborsCount_ = 0;
    std::optional<double> lastNeighbors_;  ///< the case's latest measure, warm-up included
    int measured_ = 0;
    bool requested_ = false;
    std::vector<FpsRecord> records_;
    std::vector<std::string> skipped_;
};

}  // namespace fishschool::ui
