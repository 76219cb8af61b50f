#include "GpuTimer.h"

#include <utility>

namespace fishschool::gpu {

GpuTimer::GpuTimer(std::size_t queriesInFlight) : all_(queriesInFlight) {
    glCreateQueries(GL_TIME_ELAPSED, static_cast<GLsizei>(all_.size()), all_.data());
    free_ = all_;
}

GpuTimer::GpuTimer(GpuTimer&& other) noexcept
    : free_(std::move(other.free_)),
      pending_(std::move(other.pending_)),
      open_(std::exchange(other.open_, std::nullopt)),
      all_(std::move(other.all_)) {
    other.all_.clear();
}

GpuTimer& GpuTimer::operator=(GpuTimer&& other) noexcept {
    if (this != &other) {
        release();
        free_ = std::move(other.free_);
        pending_ = std::move(other.pending_);
        open_ = std::exchange(other.open_, std::nullopt);
        all_ = std::move(other.all_);
        other.all_.clear();
    }
    return *this;
}

GpuTimer::~GpuTimer() {
    release();
}

void GpuTimer::release() {
    if (open_) glEndQuery(GL_TIME_ELAPSED);
    open_.reset();
    if (!all_.empty()) glDeleteQueries(static_cast<GLsizei>(all_.size()), all_.data());
    all_.clear();
    free_.clear();
    pending_.clear();
}

void GpuTimer::begin() {
    if (open_ || free_.empty()) return;  // every query in flight: this span goes untimed
    open_ = Span{free_.back(), Clock::now()};
    free_.pop_back();
    glBeginQuery(GL_TIME_ELAPSED, open_->query);
}

void GpuTimer::end() {
    if (!open_) return;
    glEndQuery(GL_TIME_ELAPSED);
    pending_.push_back(*open_);
    open_.reset();
}

std::vector<double> GpuTimer::collect() {
    std::vector<double> spans;
    while (!pending_.empty()) {
        const Span& span = pending_.front();
        GLuint available = GL_FALSE;
        glGetQueryObjectuiv(span.query, GL_QUERY_RESULT_AVAILABLE, &available);
        if (available != GL_TRUE) break;  // later ones finish later
        GLuint64 nanoseconds = 0;
        glGetQueryObjectui64v(span.query, GL_QUERY_RESULT, &nanoseconds);
        const double milliseconds = static_cast<double>(nanoseconds) * 1e-6;
        const double wall =
            std::chrono::duration<double, std::milli>(Clock::now() - span.begun).count();
        if (plausible(milliseconds, wall)) spans.push_back(milliseconds);
        free_.push_back(span.query);
        pending_.pop_front();
    }
    return spans;
}

std::vector<double> GpuTimer::collectAll() {
    glFinish();
    return collect();
}

}  // namespace fishschool::gpu
