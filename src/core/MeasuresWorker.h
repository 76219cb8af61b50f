#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>

#include "Backend.h"
#include "fishschool/Metrics.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// Measures snapshots of a school (Backend::requestSnapshot) on a thread of its own, at a lower
/// priority than the caller's, one at a time: whoever steps the school hands a snapshot over and
/// goes on, and takes the measures in when they are done. The thread starts with the first job.
class MeasuresWorker {
  public:
    /// A job's result, with what the job said of its school.
    struct Done {
        SchoolMetrics metrics;
        std::uint64_t generation = 0;
        double simulatedSeconds = 0.0;
        std::int64_t fish = 0;
        double seconds = 0.0;  ///< the worker's time for it
    };

    MeasuresWorker() = default;
    MeasuresWorker(const MeasuresWorker&) = delete;
    MeasuresWorker& operator=(const MeasuresWorker&) = delete;
    ~MeasuresWorker();

    /// Whether a job is waiting or being measured.
    bool busy();
    /// Measures `snapshot` with `params`; `generation` and `simulatedSeconds` come back with the
    /// result, so the caller can drop the measures of a school it has since replaced.
    void submit(std::shared_ptr<const SchoolSnapshot> snapshot, const SimParams& params,
                std::uint64_t generation, double simulatedSeconds);
    /// The last finished job, once; nullopt when none finished since.
    std::optional<Done> takeDone();

  private:
    struct Job {
        std::shared_ptr<const SchoolSnapshot> snapshot;
        SimParams params;
        std::uint64_t generation = 0;
        double simulatedSeconds = 0.0;
    };
    void loop(std::stop_token stop);

    /// The worker runs this much nicer than the threads that step.
    static constexpr int kNice = 10;
    std::mutex mutex_;
    std::condition_variable_any wake_;
    std::optional<Job> job_;
    std::optional<Done> done_;
    bool busy_ = false;
    /// Last, so it stops and is joined before the members it reads go.
    std::jthread thread_;
};

}  // namespace fishschool
