// measureTrajectory and compareTrajectories (fishschool/Distributions.h): a trajectory read frame
// by frame, a batch of frames at a time, each batch's frames measured at once.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>

#include "fishschool/Anisotropy.h"
#include "fishschool/Config.h"
#include "fishschool/Distributions.h"
#include "fishschool/Trajectory.h"

namespace fishschool {
namespace {

/// Frames read before they are measured together: bounded memory whatever the file's length.
constexpr std::size_t kBatchFrames = 64;

/// The configs in force at a trajectory's frames, parsed once each: a frame names its config by
/// the text's address.
class ConfigsInForce {
  public:
    ConfigsInForce(const TrajectoryReader& reader, const std::filesystem::path& file)
        : reader_(reader), file_(file) {}

    Result<std::shared_ptr<const SimParams>> at(std::size_t frame) {
        const std::string& json = reader_.configJsonAt(frame);
        for (const auto& [text, params] : parsed_)
            if (text == &json) return params;
        const std::string object =
            &json == &reader_.configJson() ? "parameters/config" : "parameters/changes/value";
        auto parsed = parseConfig(json, file_.string() + ": " + object);
        if (!parsed) return fail(parsed.error());
        parsed_.emplace_back(&json, std::make_shared<const SimParams>(std::move(*parsed)));
        return parsed_.back().second;
    }

  private:
    const TrajectoryReader& reader_;
    const std::filesystem::path& file_;
    std::vector<std::pair<const std::string*, std::shared_ptr<const SimParams>>> parsed_;
};

/// The fish of `frame` present in it (all of a simulated trajectory's).
Result<School> presentFish(TrajectoryReader& reader, std::size_t frame) {
    School school;
    if (auto ok = reader.readFrame(frame, school); !ok) return fail(ok.error());
    if (!reader.hasMissing()) return school;
    const auto missing = reader.missingAt(frame);
    School kept;
    for (std::size_t i = 0; i < school.size() && i < missing.size(); ++i)
        if (!missing[i]) kept.push_back(school[i]);
    return kept;
}

}  // namespace

Result<TrajectoryMeasurement> measureTrajectory(const std::filesystem::path& file) {
    return measureTrajectory(file, std::numeric_limits<std::int64_t>::min(),
                             std::numeric_limits<std::int64_t>::max());
}

Result<TrajectoryMeasurement> measureTrajectory(const std::filesystem::path& file,
                                                std::int64_t fromStep, std::int64_t toStep) {
    auto opened = TrajectoryReader::open(file);
    if (!opened) return fail(opened.error());
    TrajectoryReader& reader = **opened;
    // The frames within the steps, in the file's order.
    std::vector<std::size_t> selected;
    for (std::size_t f = 0; f < reader.frameCount(); ++f)
        if (reader.frameStep(f) >= fromStep && reader.frameStep(f) <= toStep) selected.push_back(f);
    const std::size_t frames = selected.size();

    TrajectoryMeasurement out;
    out.histograms = emptyHistograms();
    out.step.resize(frames);
    out.time.resize(frames);
    out.measures.resize(frames);
    out.fish.resize(frames);

    ConfigsInForce configs(reader, file);
    const auto paramsAt = [&](std::size_t frame) { return configs.at(frame); };

    std::vector<School> schools(std::min(kBatchFrames, frames));
    std::vector<std::shared_ptr<const SimParams>> params(schools.size());
    std::vector<Histograms> partial(schools.size());
    // An imported file's fish that were not found at a frame are left out of its measures.
    std::vector<std::vector<std::uint8_t>> present(schools.size());
    // The last two frames of the batches before, and their flags: the turns of a batch's first
    // two frames.
    School before, beforeThat;
    std::vector<std::uint8_t> presentBefore, presentBeforeThat;
    for (std::size_t first = 0; first < frames; first += kBatchFrames) {
        const std::size_t count = std::min(kBatchFrames, frames - first);
        for (std::size_t k = 0; k < count; ++k) {
            const std::size_t at = selected[first + k];
            if (auto ok = reader.readFrame(at, schools[k]); !ok) return fail(ok.error());
            auto p = paramsAt(at);
            if (!p) return fail(p.error());
            params[k] = *p;
            partial[k] = emptyHistograms();
            present[k].clear();
            if (reader.hasMissing()) {
                const auto missing = reader.missingAt(at);
                present[k].resize(missing.size());
                for (std::size_t i = 0; i < missing.size(); ++i) present[k][i] = missing[i] ? 0 : 1;
            }
        }
        tbb::parallel_for(std::size_t{0}, count, [&](std::size_t k) {
            // Every fish of a simulated trajectory is present at every frame (an empty mask).
            const EarlierFrame previous = k == 0 ? EarlierFrame{before, presentBefore}
                                                 : EarlierFrame{schools[k - 1], present[k - 1]};
            const EarlierFrame beforePrevious = k == 0 ? EarlierFrame{beforeThat, presentBeforeThat}
                                                : k == 1
                                                    ? EarlierFrame{before, presentBefore}
                                                    : EarlierFrame{schools[k - 2], present[k - 2]};
            const FrameMeasures m = measureFrame(schools[k], present[k], *params[k], partial[k],
                                                 previous, beforePrevious);
            out.measures[first + k] = m.measures;
            out.fish[first + k] = m.fish;
        });
        for (std::size_t k = 0; k < count; ++k) {
            const std::size_t frame = first + k;
            out.step[frame] = reader.frameStep(selected[frame]);
            out.time[frame] = reader.frameTime(selected[frame]);
            for (std::size_t d = 0; d < kDistributions.size(); ++d)
                out.histograms[d].merge(partial[k][d]);
            if (params[k]->boundary != Boundary::Walls) out.walls = false;
        }
        if (count >= 2) {
            beforeThat = schools[count - 2];
            presentBeforeThat = present[count - 2];
        } else {
            beforeThat = std::move(before);
            presentBeforeThat = std::move(presentBefore);
        }
        before = schools[count - 1];
        presentBefore = present[count - 1];
    }
    return out;
}

Result<TrajectoryComparison> compareTrajectories(const std::filesystem::path& a,
                                                 const std::filesystem::path& b) {
    TrajectoryComparison out;
    auto first = measureTrajectory(a);
    if (!first) return fail(first.error());
    auto second = measureTrajectory(b);
    if (!second) return fail(second.error());
    out.a = std::move(*first);
    out.b = std::move(*second);
    for (std::size_t d = 0; d < kDistributions.size(); ++d)
        out.hellinger[d] = hellingerDistance(out.a.histograms[d], out.b.histograms[d]);
    return out;
}

Result<Anisotropy> trajectoryAnisotropy(const std::filesystem::path& file, std::size_t largestN,
                                        std::size_t first, std::size_t last) {
    if (largestN < 1 || largestN > kMaxAnisotropyNeighbours)
        return fail("neighbours: " + std::to_string(largestN) + " is not allowed; from 1 to " +
                    std::to_string(kMaxAnisotropyNeighbours));
    auto opened = TrajectoryReader::open(file);
    if (!opened) return fail(opened.error());
    TrajectoryReader& reader = **opened;
    const std::size_t frames = reader.frameCount();
    if (first >= frames)
        return fail(file.string() + ": frame " + std::to_string(first) +
                    " is not allowed; the file has " + std::to_string(frames) + " frames (0 to " +
                    std::to_string(frames == 0 ? 0 : frames - 1) + ")");
    last = std::min(last, frames - 1);
    if (last < first)
        return fail("the last frame " + std::to_string(last) + " is before the first " +
                    std::to_string(first));
    ConfigsInForce configs(reader, file);
    const std::size_t count = last - first + 1;
    std::vector<AnisotropyFrame> measured(count);
    int dimensions = 3;
    for (std::size_t begin = 0; begin < count; begin += kBatchFrames) {
        const std::size_t end = std::min(count, begin + kBatchFrames);
        std::vector<School> schools(end - begin);
        std::vector<std::shared_ptr<const SimParams>> params(end - begin);
        for (std::size_t k = begin; k < end; ++k) {
            auto school = presentFish(reader, first + k);
            if (!school) return fail(school.error());
            auto p = configs.at(first + k);
            if (!p) return fail(p.error());
            schools[k - begin] = std::move(*school);
            params[k - begin] = *p;
            dimensions = static_cast<int>((*p)->dimensions);
        }
        tbb::parallel_for(begin, end, [&](std::size_t k) {
            measured[k] = anisotropyOfFrame(schools[k - begin], *params[k - begin], largestN);
        });
    }
    return summariseAnisotropy(measured, dimensions);
}

}  // namespace fishschool
