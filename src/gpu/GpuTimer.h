#pragma once

#include <glad/gl.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <vector>

namespace fishschool::gpu {

/// The GPU time of spans of GL commands, from GL_TIME_ELAPSED queries read back a few frames
/// later, so the CPU never waits for the GPU to measure it. Spans must not overlap (GL does not
/// nest time queries); while every query is still in flight a span goes untimed rather than
/// stall. Needs a current GL context for its whole life.
class GpuTimer {
  public:
    explicit GpuTimer(std::size_t queriesInFlight = 8);
    GpuTimer(GpuTimer&& other) noexcept;
    GpuTimer& operator=(GpuTimer&& other) noexcept;
    GpuTimer(const GpuTimer&) = delete;
    GpuTimer& operator=(const GpuTimer&) = delete;
    ~GpuTimer();

    void begin();
    void end();
    /// Takes in the spans whose results have come back, without waiting; returns their
    /// milliseconds in the order they were issued (empty when none came back since the last call).
    /// A span the GPU says took longer than the wall time since it began is not a real time (a
    /// software GL timing a frame of minutes gave 2,311 s for a 166 s run) and is left out.
    std::vector<double> collect();
    /// Whether `gpuMilliseconds` can be the GPU's time of a span begun `wallMilliseconds` ago.
    static bool plausible(double gpuMilliseconds, double wallMilliseconds) {
        return gpuMilliseconds >= 0.0 && gpuMilliseconds <= wallMilliseconds * 1.01 + 0.1;
    }
    /// Waits for every span issued so far, then collects them (tests and benchmarks only).
    std::vector<double> collectAll();

  private:
    void release();
    using Clock = std::chrono::steady_clock;
    struct Span {
        GLuint query;
        Clock::time_point begun;
    };
    std::vector<GLuint> free_;
    std::deque<Span> pending_;  ///< ended, oldest first
    std::optional<Span> open_;  ///< begun, not ended
    std::vector<GLuint> all_;
};

}  // namespace fishschool::gpu
