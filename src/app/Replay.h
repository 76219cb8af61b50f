#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/Backend.h"
#include "core/Scenario.h"
#include "fishschool/Fish.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"
#include "io/Trajectory.h"

namespace fishschool::app {

class SimulationController;

struct ReplayOptions {
    /// The frames kept in memory may take at most this many bytes (at least two frames are
    /// kept), so a file larger than memory replays: the others are read when shown.
    std::size_t cacheBytes = std::size_t{512} << 20;
    /// Read the frames ahead of the playhead on a thread of the replay's own.
    bool prefetch = true;
};

/// A recorded trajectory played back: the shown frame, play and pause, the speed, frame by frame,
/// and a bounded cache of frames read on demand (TrajectoryReader::readFrame), filled ahead of
/// the playhead by a prefetching thread with a reader of its own. The app asks it for the school
/// and the parameters to draw; it needs no window, so tests drive it directly.
class Replay {
  public:
    /// Opens `file` (a stranger's: every error is bad input and names the file and the object).
    [[nodiscard]] static Result<std::unique_ptr<Replay>> open(const std::filesystem::path& file,
                                                              const ReplayOptions& options = {});
    Replay(const Replay&) = delete;
    Replay& operator=(const Replay&) = delete;
    ~Replay();

    const std::filesystem::path& path() const { return path_; }
    std::size_t frameCount() const { return times_.size(); }
    std::size_t fishCount() const { return fishCount_; }
    std::int64_t frameStep(std::size_t frame) const { return steps_[frame]; }
    double frameTime(std::size_t frame) const { return times_[frame]; }
    const TrajectoryMeasures& measures() const { return reader_->measures(); }
    std::span<const FishKind> kinds() const { return reader_->kinds(); }

    /// The frame shown.
    std::size_t frame() const { return frame_; }
    /// Shows `frame` (clamped to the last); playing goes on from there.
    void seek(std::size_t frame);
    /// Pauses and moves `delta` frames (clamped to the first and the last).
    void stepFrames(std::int64_t delta);
    bool playing() const { return playing_; }
    /// Play or pause; playing at the last frame starts again from the first.
    void setPlaying(bool playing);
    /// Simulated seconds per wall second while playing, kMinSpeed to kMaxSpeed.
    double speed() const { return speed_; }
    void setSpeed(double speed);
    static constexpr double kMinSpeed = 0.125, kMaxSpeed = 8.0;
    /// Moves the playhead by `wallSeconds` times the speed of simulated time when playing: the
    /// frame shown is the last one at or before it. Pauses at the last frame.
    void advance(double wallSeconds);

    /// The shown frame's school: from the cache, else read now (the frame then joins the cache).
    /// Then the prefetching thread reads ahead of it (playing) or its neighbours (paused).
    /// An error (bad input) names the file and the object.
    [[nodiscard]] Result<std::shared_ptr<const School>> school();
    /// The parameters in force at the shown frame (the file's config and its changes), with
    /// the file's fish count. An error names the file when that config is not valid.
    [[nodiscard]] Result<SimParams> params();
    /// Changes whenever the frame shown changes, so a renderer uploads each frame once.
    std::uint64_t version() const { return version_; }

    /// Frames held in memory now, and the most it holds.
    std::size_t cachedFrames() const;
    std::size_t cacheCapacity() const { return capacity_; }
    /// Whether frame `frame` is in memory now (tests).
    bool isCached(std::size_t frame) const;
    /// Waits until the prefetching thread has nothing left to read (tests, the benchmark).
    void waitForPrefetch();

  private:
    Replay() = default;
    /// The frame at or before simulated time `seconds`.
    std::size_t frameAt(double seconds) const;
    /// Puts a frame in the cache, dropping the least recently used beyond the capacity.
    void insert(std::size_t frame, std::shared_ptr<const School> school);
    std::shared_ptr<const School> lookup(std::size_t frame);
    /// Tells the prefetching thread where the playhead is and which way it goes.
    void notifyPrefetch();
    void prefetchLoop();

    std::filesystem::path path_;
    std::unique_ptr<TrajectoryReader> reader_;
    std::vector<std::int64_t> steps_;
    std::vector<double> times_;
    std::size_t fishCount_ = 0;
    std::size_t frame_ = 0;
    bool playing_ = false;
    double speed_ = 1.0;
    double playhead_ = 0.0;  ///< simulated seconds
    std::uint64_t version_ = 1;
    /// Parsed configs, by the reader's string they come from (each change is one string).
    std::unordered_map<const std::string*, SimParams> configs_;

    // The cache and the prefetching thread's orders, under cacheMutex_.
    mutable std::mutex cacheMutex_;
    std::condition_variable wake_, idle_;
    std::size_t capacity_ = 2;
    std::list<std::size_t> recent_;  ///< most recently used first
    std::map<std::size_t,
             std::pair<std::shared_ptr<const School>, std::list<std::size_t>::iterator>>
        cache_;
    std::size_t wantedFrame_ = 0;
    bool wantedPlaying_ = false;
    std::uint64_t orders_ = 0;        ///< bumped at every new order
    std::uint64_t settledOrder_ = 0;  ///< the last paused order that rested kSettleTime
    static constexpr std::chrono::milliseconds kSettleTime{150};
    bool prefetchBusy_ = false;
    bool stop_ = false;
    std::unique_ptr<TrajectoryReader> prefetchReader_;
    std::thread prefetcher_;
};

/// A live simulation that continues the replay from its shown frame: the file's parameters at
/// that frame, its school, its step and time, on `kind`, with `density`. Errors name what the
/// backend or the parameters refused.
[[nodiscard]] Result<std::unique_ptr<SimulationController>> continueFromFrame(Replay& replay,
                                                                              BackendKind kind,
                                                                              Density density);

}  // namespace fishschool::app
