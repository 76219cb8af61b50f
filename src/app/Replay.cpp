#include "Replay.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "SimulationController.h"
#include "core/Messages.h"
#include "io/ConfigIO.h"

namespace fishschool::app {

Result<std::unique_ptr<Replay>> Replay::open(const std::filesystem::path& file,
                                             const ReplayOptions& options) {
    auto reader = TrajectoryReader::open(file);
    if (!reader) return fail(reader.error());
    auto replay = std::unique_ptr<Replay>(new Replay());
    replay->path_ = file;
    replay->reader_ = std::move(*reader);
    TrajectoryReader& read = *replay->reader_;
    replay->fishCount_ = read.fishCount();
    const std::size_t frames = read.frameCount();
    replay->steps_.resize(frames);
    replay->times_.resize(frames);
    for (std::size_t k = 0; k < frames; ++k) {
        replay->steps_[k] = read.frameStep(k);
        replay->times_[k] = read.frameTime(k);
    }
    // The file's first parameters must be valid: a replay draws with them.
    if (auto params = replay->params(); !params) return fail(params.error());
    const std::size_t frameBytes = std::max<std::size_t>(replay->fishCount_, 1) * sizeof(Fish);
    replay->capacity_ = std::max<std::size_t>(options.cacheBytes / frameBytes, 2);
    replay->playhead_ = replay->times_.front();
    if (options.prefetch && frames > 1) {
        auto second = TrajectoryReader::open(file);
        if (!second) return fail(second.error());
        replay->prefetchReader_ = std::move(*second);
        replay->prefetcher_ = std::thread([r = replay.get()] { r->prefetchLoop(); });
    }
    return replay;
}

Replay::~Replay() {
    {
        std::lock_guard lock(cacheMutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (prefetcher_.joinable()) prefetcher_.join();
}

std::size_t Replay::frameAt(double seconds) const {
    // The last frame whose time is at or before `seconds` (the first when none is).
    const auto after = std::upper_bound(times_.begin(), times_.end(), seconds);
    return after == times_.begin() ? 0 : static_cast<std::size_t>(after - times_.begin()) - 1;
}

void Replay::seek(std::size_t frame) {
    frame = std::min(frame, frameCount() - 1);
    playhead_ = times_[frame];
    if (frame == frame_) return;
    frame_ = frame;
    ++version_;
}

void Replay::stepFrames(std::int64_t delta) {
    playing_ = false;
    const auto last = static_cast<std::int64_t>(frameCount()) - 1;
    seek(static_cast<std::size_t>(
        std::clamp(static_cast<std::int64_t>(frame_) + delta, std::int64_t{0}, last)));
}

void Replay::setPlaying(bool playing) {
    if (playing && frame_ + 1 >= frameCount()) seek(0);
    playing_ = playing;
    playhead_ = times_[frame_];
}

void Replay::setSpeed(double speed) {
    speed_ = std::isfinite(speed) ? std::clamp(speed, kMinSpeed, kMaxSpeed) : 1.0;
}

void Replay::advance(double wallSeconds) {
    if (!playing_ || !(wallSeconds > 0.0)) return;
    playhead_ += wallSeconds * speed_;
    std::size_t next = frameAt(playhead_);
    if (next + 1 >= frameCount()) {
        next = frameCount() - 1;
        playing_ = false;
    }
    if (next != frame_) {
        frame_ = next;
        ++version_;
    }
}

Result<std::shared_ptr<const School>> Replay::school() {
    // The prefetching thread is told where the playhead is only once the frame shown is in
    // hand: HDF5 runs one call at a time, and a seek should not wait behind its neighbours.
    if (auto cached = lookup(frame_)) {
        notifyPrefetch();
        return cached;
    }
    auto school = std::make_shared<School>();
    if (auto ok = reader_->readFrame(frame_, *school); !ok) return fail(ok.error());
    std::shared_ptr<const School> shared = std::move(school);
    insert(frame_, shared);
    notifyPrefetch();
    return shared;
}

Result<SimParams> Replay::params() {
    const std::string& json = reader_->configJsonAt(frame_);
    auto found = configs_.find(&json);
    if (found == configs_.end()) {
        auto parsed = parseConfig(json, quote(path_.string(), 200) + ": parameters");
        if (!parsed) return fail(parsed.error());
        found = configs_.emplace(&json, *parsed).first;
    }
    SimParams params = found->second;
    params.fishCount = static_cast<std::int64_t>(fishCount_);
    return params;
}

std::size_t Replay::cachedFrames() const {
    std::lock_guard lock(cacheMutex_);
    return cache_.size();
}

bool Replay::isCached(std::size_t frame) const {
    std::lock_guard lock(cacheMutex_);
    return cache_.contains(frame);
}

std::shared_ptr<const School> Replay::lookup(std::size_t frame) {
    std::lock_guard lock(cacheMutex_);
    const auto found = cache_.find(frame);
    if (found == cache_.end()) return nullptr;
    recent_.splice(recent_.begin(), recent_, found->second.second);
    return found->second.first;
}

void Replay::insert(std::size_t frame, std::shared_ptr<const School> school) {
    std::lock_guard lock(cacheMutex_);
    if (const auto found = cache_.find(frame); found != cache_.end()) {
        recent_.splice(recent_.begin(), recent_, found->second.second);
        return;
    }
    recent_.push_front(frame);
    cache_.emplace(frame, std::pair{std::move(school), recent_.begin()});
    while (cache_.size() > capacity_) {
        cache_.erase(recent_.back());
        recent_.pop_back();
    }
}

void Replay::notifyPrefetch() {
    if (!prefetcher_.joinable()) return;
    {
        std::lock_guard lock(cacheMutex_);
        if (wantedFrame_ == frame_ && wantedPlaying_ == playing_ && orders_ > 0) return;
        wantedFrame_ = frame_;
        wantedPlaying_ = playing_;
        ++orders_;
        prefetchBusy_ = true;
    }
    wake_.notify_all();
}

void Replay::waitForPrefetch() {
    std::unique_lock lock(cacheMutex_);
    idle_.wait(lock, [&] { return !prefetchBusy_ || stop_ || !prefetcher_.joinable(); });
}

void Replay::prefetchLoop() {
    std::unique_lock lock(cacheMutex_);
    while (!stop_) {
        // The frames to have in memory, nearest first: ahead of a playing playhead (half the
        // cache at most, so the frames just shown stay), or both neighbours of a paused one.
        const std::size_t frames = times_.size();
        std::vector<std::size_t> plan;
        if (wantedPlaying_) {
            const std::size_t ahead = std::min<std::size_t>(capacity_ / 2, 16);
            for (std::size_t k = 1; k <= ahead && wantedFrame_ + k < frames; ++k)
                plan.push_back(wantedFrame_ + k);
        } else {
            if (wantedFrame_ + 1 < frames) plan.push_back(wantedFrame_ + 1);
            if (wantedFrame_ > 0) plan.push_back(wantedFrame_ - 1);
        }
        const auto missing = std::find_if(plan.begin(), plan.end(),
                                          [&](std::size_t k) { return !cache_.contains(k); });
        if (missing == plan.end()) {
            prefetchBusy_ = false;
            idle_.notify_all();
            const std::uint64_t seen = orders_;
            wake_.wait(lock, [&] { return stop_ || orders_ != seen; });
            continue;
        }
        // A paused playhead's neighbours wait until it rests: while the timeline is dragged
        // they would only take the cores and the file from the frames asked for.
        if (!wantedPlaying_ && settledOrder_ != orders_) {
            const std::uint64_t seen = orders_;
            if (wake_.wait_for(lock, kSettleTime, [&] { return stop_ || orders_ != seen; }))
                continue;
            settledOrder_ = seen;
        }
        const std::size_t frame = *missing;
        lock.unlock();
        auto school = std::make_shared<School>();
        const bool read = static_cast<bool>(prefetchReader_->readFrame(frame, *school));
        lock.lock();
        if (!read) {
            // The frame's error is the main thread's to report when it is shown.
            prefetchBusy_ = false;
            idle_.notify_all();
            const std::uint64_t seen = orders_;
            wake_.wait(lock, [&] { return stop_ || orders_ != seen; });
            continue;
        }
        lock.unlock();
        insert(frame, std::move(school));
        lock.lock();
    }
    prefetchBusy_ = false;
    idle_.notify_all();
}

Result<std::unique_ptr<SimulationController>> continueFromFrame(Replay& replay, BackendKind kind,
                                                                Density density) {
    auto params = replay.params();
    if (!params) return fail(params.error());
    auto school = replay.school();
    if (!school) return fail(school.error());
    auto sim = SimulationController::create(*params, kind, school->get());
    if (!sim) return fail(sim.error());
    (*sim)->setDensity(density);
    (*sim)->setClock(replay.frameStep(replay.frame()), replay.frameTime(replay.frame()));
    return sim;
}

}  // namespace fishschool::app
