#include "Recording.h"

#include <algorithm>
#include <utility>

#include "io/StateIO.h"

namespace fishschool {
namespace {

std::string nameOf(const RunOutput& output) {
    if (!output.name.empty()) return output.name;
    switch (output.kind) {
        case OutputKind::Trajectory:
            return "trajectory";
        case OutputKind::Measures:
            return "measures";
        case OutputKind::State:
            return "state";
    }
    return "output";
}

bool due(std::int64_t every, std::int64_t stepsIn) {
    return every > 0 && stepsIn % every == 0;
}

}  // namespace

Result<std::unique_ptr<Recording>> Recording::start(Simulation& sim,
                                                    std::span<const RunOutput> outputs) {
    auto recording = std::unique_ptr<Recording>(new Recording());
    Recording& r = *recording;
    r.firstStep_ = static_cast<std::int64_t>(sim.stepCount());
    const SimParams params = sim.params();
    // Every output checked, and its temporary file made, before anything is written.
    std::vector<std::pair<std::size_t, std::filesystem::path>> external;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const RunOutput& output = outputs[i];
        const std::string name = nameOf(output);
        std::vector<std::string> paths;
        for (const NamedPath& input : output.inputs) paths.push_back(input.path.string());
        std::vector<NamedInput> inputs;
        for (std::size_t k = 0; k < paths.size(); ++k)
            inputs.push_back({output.inputs[k].name, paths[k]});
        if (output.every < 0)
            return fail(name + ": every " + std::to_string(output.every) +
                        " steps is not allowed; must be 1 or more (0: only when asked)");
        if (output.kind == OutputKind::Trajectory) {
            if (auto format = outputFormatOf(output.path); !format)
                return fail(format.error().prefixed(name + ": "));
            auto temporary = r.files_.addExternal(name, output.path.string(), inputs);
            if (!temporary) return fail(temporary.error());
            external.emplace_back(i, *temporary);
            r.measureFrames_ = r.measureFrames_ || output.measured;
        } else {
            if (auto ok = r.files_.add(name, output.path.string(), inputs); !ok)
                return fail(ok.error());
            if (output.kind == OutputKind::Measures) {
                if (auto ok = r.files_.write(name, metricsCsvHeader() + "\n"); !ok)
                    return fail(ok.error());
                r.measures_.push_back({name, output.every, 0, std::nullopt});
                r.measureFrames_ = true;
            } else {
                if (r.state_) return fail(name + ": a recording writes one end state");
                r.state_ = name;
            }
        }
    }
    for (const auto& [index, temporary] : external) {
        const RunOutput& output = outputs[index];
        auto recorder = makeTrajectoryRecorder(*outputFormatOf(output.path), temporary, params,
                                               sim.school(), output.path.string());
        if (!recorder) return fail(recorder.error().prefixed(nameOf(output) + ": "));
        r.trajectories_.push_back(
            {std::move(*recorder), output.every, nameOf(output), std::nullopt, 0});
    }
    if (auto ok = r.record(sim, false); !ok) return fail(ok.error());
    return recording;
}

Recording::~Recording() {
    // Unfinished: each file closed, then files_ removes them and replaces nothing.
    for (Trajectory& trajectory : trajectories_) (void)trajectory.recorder->finish();
}

Result<void> Recording::record(Simulation& sim, bool all) {
    const auto step = static_cast<std::int64_t>(sim.stepCount());
    const std::int64_t stepsIn = step - firstStep_;
    Pending frame{step, sim.time(), std::nullopt, {}};
    for (std::size_t t = 0; t < trajectories_.size(); ++t) {
        const Trajectory& trajectory = trajectories_[t];
        if ((all || due(trajectory.every, stepsIn)) && trajectory.lastStep != step)
            frame.trajectories.push_back(t);
    }
    bool row = false;
    for (const Rows& rows : measures_)
        row = row || ((all || due(rows.every, stepsIn)) && rows.lastStep != step);
    // With measures recorded, every frame carries the school's measures (MDAnalysis reads one a
    // frame); a step that is both a frame and a row is measured once.
    if (row || (!frame.trajectories.empty() && measureFrames_)) frame.measures = sim.measures();
    for (Rows& rows : measures_) {
        if (!((all || due(rows.every, stepsIn)) && rows.lastStep != step)) continue;
        if (auto ok = files_.write(rows.name, metricsCsvRow(step, frame.seconds, *frame.measures));
            !ok)
            return ok;
        rows.lastStep = step;
        ++rows.count;
    }
    if (frame.trajectories.empty()) return {};
    for (const std::size_t t : frame.trajectories) trajectories_[t].lastStep = step;
    pending_ = std::move(frame);
    return {};
}

Result<void> Recording::addFrames(const Pending& pending, std::size_t next,
                                  const TrajectoryWriter::FrameFill& fill) {
    if (next == pending.trajectories.size()) return {};
    Trajectory& trajectory = trajectories_[pending.trajectories[next]];
    Result<void> rest;
    // The first recorder's buffer is filled by `fill`; each next copies the one before.
    const auto fillThenRest = [&](std::span<float> positions, std::span<float> velocities) {
        fill(positions, velocities);
        rest = addFrames(pending, next + 1, [&](std::span<float> p, std::span<float> v) {
            std::copy(positions.begin(), positions.end(), p.begin());
            std::copy(velocities.begin(), velocities.end(), v.begin());
        });
    };
    if (auto ok = trajectory.recorder->addFrameFrom(pending.step, pending.seconds, fillThenRest,
                                                    kickClocks_, pending.measures);
        !ok)
        return fail(ok.error().prefixed(trajectory.name + ": "));
    trajectory.lastWritten = pending.step;
    return rest;
}

bool Recording::needsKickClocks(Simulation& sim) const {
    bool recorded = false;
    for (const Trajectory& trajectory : trajectories_)
        recorded = recorded || trajectory.recorder->recordsKickClocks();
    return recorded && keepsKickClocks(sim.params());
}

Result<void> Recording::takePendingAlone(Simulation& sim) {
    if (!pending_) return {};
    const Pending pending = *std::exchange(pending_, std::nullopt);
    // The clocks from the school as read (burst-and-coast's few fish: a copy of each is cheap);
    // copyFrame then copies from the same read.
    kickClocks_.clear();
    if (needsKickClocks(sim))
        for (const Fish& fish : sim.school()) kickClocks_.push_back(fish.kickClock);
    return addFrames(pending, 0, [&](std::span<float> positions, std::span<float> velocities) {
        sim.copyFrame(positions, velocities);
    });
}

Result<void> Recording::step(Simulation& sim, const Steps& steps) {
    // A step copies positions and velocities alone: a frame that needs the kick clocks is taken
    // from the school before the step instead.
    if (pending_ && needsKickClocks(sim))
        if (auto ok = takePendingAlone(sim); !ok) return ok;
    if (!pending_) {
        if (auto ok = steps.step(); !ok) return ok;
    } else {
        const Pending pending = *std::exchange(pending_, std::nullopt);
        kickClocks_.clear();
        Result<void> stepped;
        auto added =
            addFrames(pending, 0, [&](std::span<float> positions, std::span<float> velocities) {
                stepped = steps.stepCopying(positions, velocities);
            });
        if (!stepped) return stepped;
        if (!added) return added;
    }
    return record(sim, false);
}

Result<void> Recording::recordNow(Simulation& sim) {
    if (auto ok = takePendingAlone(sim); !ok) return ok;
    if (auto ok = record(sim, true); !ok) return ok;
    return takePendingAlone(sim);
}

Result<void> Recording::beforeChange(Simulation& sim) {
    return takePendingAlone(sim);
}

Result<void> Recording::afterChange(Simulation& sim) {
    const SimParams params = sim.params();
    const auto step = static_cast<std::int64_t>(sim.stepCount());
    for (Trajectory& trajectory : trajectories_)
        if (auto ok =
                trajectory.recorder->addParameterChange(step, sim.time(), params, sim.school());
            !ok)
            return fail(ok.error().prefixed(trajectory.name + ": "));
    return {};
}

RecordingSummary Recording::progress() const {
    RecordingSummary summary;
    for (const Trajectory& trajectory : trajectories_) {
        summary.frames = std::max(summary.frames, trajectory.recorder->frameCount());
        summary.lastFrameStep = std::max(summary.lastFrameStep, trajectory.lastWritten);
    }
    for (const Rows& rows : measures_) summary.rows = std::max(summary.rows, rows.count);
    return summary;
}

Result<RecordingSummary> Recording::finish(Simulation& sim) {
    if (auto ok = takePendingAlone(sim); !ok) return fail(ok.error());
    if (state_) {
        const SimParams params = sim.params();
        if (auto ok =
                writeStateCsv(sim.school(), params,
                              [&](std::string_view rows) { return files_.write(*state_, rows); });
            !ok)
            return fail(ok.error());
    }
    const RecordingSummary summary = progress();
    for (Trajectory& trajectory : trajectories_)
        if (auto ok = trajectory.recorder->finish(); !ok)
            return fail(ok.error().prefixed(trajectory.name + ": "));
    // Only now, every file written, does any existing file get replaced.
    if (auto ok = files_.commit(); !ok) return fail(ok.error());
    return summary;
}

}  // namespace fishschool
