#pragma once

#include <deque>
#include <optional>
#include <utility>

namespace fishschool::app {

/// How fast simulated time really runs: simulated seconds per wall second over the last
/// `windowSeconds` of wall time, as the overlay shows it beside the speed asked for. A school
/// too big for the machine drops the steps a frame cannot afford, so it runs slower than asked;
/// this says by how much.
class SimulatedRate {
  public:
    explicit SimulatedRate(double windowSeconds = 2.0) : window_(windowSeconds) {}

    /// The clocks at a frame. A simulated time that went back (a new or loaded school) starts
    /// the window again.
    void add(double wallSeconds, double simulatedSeconds) {
        if (!samples_.empty() &&
            (simulatedSeconds < samples_.back().second || wallSeconds < samples_.back().first))
            samples_.clear();
        samples_.emplace_back(wallSeconds, simulatedSeconds);
        while (samples_.size() > 2 && samples_[1].first <= wallSeconds - window_)
            samples_.pop_front();
    }
    /// Forgets the samples: the clock stopped (paused) or the speed asked for changed.
    void restart() { samples_.clear(); }
    /// Simulated seconds per wall second over the window; none until the samples span half of it.
    std::optional<double> rate() const {
        if (samples_.size() < 2) return std::nullopt;
        const double wall = samples_.back().first - samples_.front().first;
        if (wall < 0.5 * window_) return std::nullopt;
        return (samples_.back().second - samples_.front().second) / wall;
    }
    /// Whether a school asked to run at `asked` simulated seconds per second runs clearly
    /// slower (under 90% of it: a frame's jitter is not being behind).
    bool behind(double asked) const {
        const auto measured = rate();
        return measured && *measured < kBehindShare * asked;
    }
    static constexpr double kBehindShare = 0.9;

  private:
    double window_;
    std::deque<std::pair<double, double>> samples_;  ///< wall, simulated; oldest first
};

}  // namespace fishschool::app
