#include "MeasuresWorker.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <utility>

namespace fishschool {

MeasuresWorker::~MeasuresWorker() {
    if (thread_.joinable()) {
        thread_.request_stop();
        wake_.notify_all();
    }
}

bool MeasuresWorker::busy() {
    const std::lock_guard lock(mutex_);
    return busy_;
}

void MeasuresWorker::submit(std::shared_ptr<const SchoolSnapshot> snapshot, const SimParams& params,
                            std::uint64_t generation, double simulatedSeconds) {
    if (!thread_.joinable()) thread_ = std::jthread([this](std::stop_token stop) { loop(stop); });
    const std::lock_guard lock(mutex_);
    job_ = Job{std::move(snapshot), params, generation, simulatedSeconds};
    busy_ = true;
    wake_.notify_one();
}

std::optional<MeasuresWorker::Done> MeasuresWorker::takeDone() {
    const std::lock_guard lock(mutex_);
    return std::exchange(done_, std::nullopt);
}

void MeasuresWorker::loop(std::stop_token stop) {
    // Below the threads that step: on a busy machine the measures wait, not the frame.
    setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kNice);
    std::unique_lock lock(mutex_);
    while (wake_.wait(lock, stop, [&] { return job_.has_value(); })) {
        Job job = std::move(*job_);
        job_.reset();
        lock.unlock();
        const auto start = std::chrono::steady_clock::now();
        const School school = job.snapshot->fish();
        job.snapshot.reset();  // a CPU backend may write its buffer again
        const SchoolMetrics measured = measureSchool(school, job.params);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        lock.lock();
        done_ = Done{measured, job.generation, job.simulatedSeconds,
                     static_cast<std::int64_t>(school.size()), seconds};
        busy_ = false;
    }
}

}  // namespace fishschool
