#include "FpsRecorder.h"

#include <cmath>
#include <cstdio>

#include "backends/BackendRegistry.h"

namespace fishschool::ui {

void FpsRecorder::startRecord() {
    mode_ = Mode::Record;
    beginCase();
}

Result<void> FpsRecorder::startSweep(const std::vector<BackendKind>& backends,
                                     const std::vector<std::int64_t>& fishCounts) {
    if (backends.empty()) return fail("sweep: choose at least one backend");
    if (fishCounts.empty()) return fail("sweep: give at least one fish count");
    cases_.clear();
    skipped_.clear();
    for (BackendKind backend : backends)
        for (std::int64_t fish : fishCounts) cases_.push_back({backend, fish});
    caseIndex_ = 0;
    mode_ = Mode::Sweep;
    requested_ = false;
    caseAsked_ = false;
    beginCase();
    return {};
}

void FpsRecorder::cancel() {
    mode_ = Mode::Idle;
}

void FpsRecorder::beginCase() {
    warmupFramesSeen_ = 0;
    warmupSecondsSeen_ = 0.0;
    measured_ = 0;
    seconds_ = simulationMs_ = renderMs_ = 0.0;
    neighborsSum_ = measureMs_ = 0.0;
    neighborsCount_ = 0;
    gpuRenderMsSum_ = trianglesSum_ = 0.0;
    gpuRenderCount_ = drawCount_ = 0;
    fishPerLevelSum_ = {};
    lastNeighbors_.reset();
}

std::string FpsRecorder::status() const {
    char text[128];
    const char* phase = measured_ > 0 ? "measuring" : "warming up";
    if (mode_ == Mode::Record) {
        std::snprintf(text, sizeof text, "recording: %s, %.1f s", phase,
                      measured_ > 0 ? seconds_ : warmupSecondsSeen_);
    } else if (mode_ == Mode::Sweep && caseIndex_ < cases_.size()) {
        const Case& c = cases_[caseIndex_];
        std::snprintf(text, sizeof text, "sweep %zu/%zu: %s, %lld fish, %s", caseIndex_ + 1,
                      cases_.size(), std::string(toString(c.backend)).c_str(),
                      static_cast<long long>(c.fish), phase);
    } else {
        return "idle";
    }
    return text;
}

void FpsRecorder::skipCase(const std::string& reason) {
    if (mode_ != Mode::Sweep || caseIndex_ >= cases_.size()) return;
    const Case& c = cases_[caseIndex_];
    skipped_.push_back(std::string(toString(c.backend)) + ", " + std::to_string(c.fish) +
                       " fish: " + reason);
    requested_ = false;
    caseAsked_ = false;
    beginCase();
    if (++caseIndex_ >= cases_.size()) mode_ = Mode::Idle;
}

FpsRecorder::Request FpsRecorder::onFrame(const FrameSample& sample) {
    Request request;
    if (mode_ == Mode::Idle) return request;
    if (mode_ == Mode::Sweep) {
        const Case& c = cases_[caseIndex_];
        if (!caseAsked_ || sample.backend != c.backend || sample.fish != c.fish) {
            // The scene is not set (or something changed it since): ask once, then wait for it
            // (or for skipCase), and measure the case from its start again.
            if (!requested_) {
                request.backend = c.backend;
                request.fish = c.fish;
                requested_ = caseAsked_ = true;
            }
            beginCase();
            return request;
        }
        requested_ = false;  // set: a later change will be asked back
    }
    if (sample.meanNeighbors) lastNeighbors_ = sample.meanNeighbors;
    if (sample.settling) {
        // The warm-up's frames start once the school has formed.
        warmupFramesSeen_ = 0;
        warmupSecondsSeen_ = 0.0;
        return request;
    }
    // A sweep's case warms up by frames alone: its school was formed by the warm-up steps, and
    // each frame steps it once, so a case starts measuring at the same step on any machine.
    if (warmupFramesSeen_ < warmupFrames ||
        (mode_ == Mode::Record && warmupSecondsSeen_ < warmupSeconds)) {
        ++warmupFramesSeen_;
        warmupSecondsSeen_ += sample.frameSeconds;
        return request;
    }
    seconds_ += sample.frameSeconds;
    simulationMs_ += sample.simulationMs;
    renderMs_ += sample.renderMs;
    measureMs_ += sample.measureMs;
    if (sample.gpuRenderMs) {
        gpuRenderMsSum_ += *sample.gpuRenderMs;
        ++gpuRenderCount_;
    }
    if (sample.fishPerLevel) {
        for (std::size_t level = 0; level < fishPerLevelSum_.size(); ++level)
            fishPerLevelSum_[level] += static_cast<double>((*sample.fishPerLevel)[level]);
        trianglesSum_ += static_cast<double>(sample.triangles);
        ++drawCount_;
    }
    if (sample.meanNeighbors) {
        neighborsSum_ += *sample.meanNeighbors;
        ++neighborsCount_;
    }
    if (++measured_ < measureFrames || seconds_ < measureSeconds) return request;
    // A row says how crowded its school was: while the app measures, it goes on until a measure
    // of the case's school has come, a while at most.
    if (sample.measuring && neighborsCount_ == 0 && !lastNeighbors_ &&
        seconds_ < measureSeconds + kMaxMeasureWaitSeconds)
        return request;

    const double neighbors = neighborsCount_ > 0 ? neighborsSum_ / neighborsCount_
                                                 : lastNeighbors_.value_or(std::nan(""));
    FpsRecord record{sample.backend,
                     sample.fish,
                     seconds_ > 0.0 ? measured_ / seconds_ : 0.0,
                     simulationMs_ / measured_,
                     renderMs_ / measured_,
                     mode_ == Mode::Sweep,
                     sample.density,
                     neighbors,
                     measureMs_ / measured_};
    if (gpuRenderCount_ > 0) record.gpuRenderMs = gpuRenderMsSum_ / gpuRenderCount_;
    if (drawCount_ > 0) {
        record.triangles = trianglesSum_ / drawCount_;
        for (std::size_t level = 0; level < fishPerLevelSum_.size(); ++level)
            record.fishPerLevel[level] = fishPerLevelSum_[level] / drawCount_;
    }
    records_.push_back(record);
    if (mode_ == Mode::Record || ++caseIndex_ >= cases_.size()) {
        mode_ = Mode::Idle;
    } else {
        requested_ = false;
        caseAsked_ = false;
        beginCase();
        return onFrame(sample);  // ask for the next case now
    }
    return request;
}

std::string FpsRecorder::csv() const {
    std::string out =
        "backend,fish,fps,sim_ms,render_ms,density,mean_neighbors,measure_ms,"
        "gpu_render_ms,triangles";
    for (const char* level : kDrawLevelNames) out += std::string(",fish_") + level;
    out += "\n";
    char line[200];
    for (const FpsRecord& r : records_) {
        std::snprintf(line, sizeof line, "%s,%lld,%.2f,%.3f,%.3f,%s,",
                      std::string(toString(r.backend)).c_str(), static_cast<long long>(r.fish),
                      r.fps, r.simulationMs, r.renderMs, std::string(toString(r.density)).c_str());
        out += line;
        if (std::isfinite(r.meanNeighbors)) {
            std::snprintf(line, sizeof line, "%.2f", r.meanNeighbors);
            out += line;
        }
        std::snprintf(line, sizeof line, ",%.3f,", r.measureMs);
        out += line;
        if (std::isfinite(r.gpuRenderMs)) {
            std::snprintf(line, sizeof line, "%.3f", r.gpuRenderMs);
            out += line;
        }
        std::snprintf(line, sizeof line, ",%.0f", r.triangles);
        out += line;
        for (double fish : r.fishPerLevel) {
            std::snprintf(line, sizeof line, ",%.0f", fish);
            out += line;
        }
        out += "\n";
    }
    return out;
}

}  // namespace fishschool::ui
