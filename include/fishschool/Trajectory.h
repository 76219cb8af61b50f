#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fishschool/Export.h"
#include "fishschool/Fish.h"
#include "fishschool/Metrics.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// Trajectories: a school's history in an H5MD 1.1 file (docs/trajectories.md), written as a
/// run goes and read frame by frame. The layout, every name relative to the file's root:
///
///   h5md/                        attributes version = {1, 1}
///     author/                    attribute name = "fishschool"
///     creator/                   attributes name = "fishschool", version = version()
///   particles/school/
///     box/                       attributes dimension = 3, boundary = {"none","none","none"}
///       edges/                   step and time (hard links to position's), value float32
///                                [frames][3]: the tank's full extents at each frame, m
///     position/                  step int64 [frames], time float64 [frames],
///                                value float32 [frames][fish][3], m
///     velocity/                  step and time (hard links to position's), value as position, m/s
///     kick_clock/                steering "burst-and-coast" only: step and time (hard links to
///                                position's), value float32 [frames][fish]: each fish's time to
///                                its next kick (Fish::kickClock; 0: drawn anew), s
///     species                    int32 [fish], time-independent: without species in the
///                                config, each fish's kind: 0 fish, 1 leader, 2 predator; with
///                                them, each fish's species (its index in the config's list)
///     kind                       with species only: int32 [fish], the kinds as above
///     missing/                   absent, or (an imported file's, docs/data.md) step and time
///                                (hard links to position's), value uint8 [frames][fish]: 1
///                                where a fish was not found (position and velocity 0 there)
///   observables/                 absent, or the school's measures at EVERY frame:
///     polarization/, milling/, nearest_neighbor/, neighbors/
///                                step and time (hard links to position's), value float64
///                                [frames]: the measures (fishschool/Metrics.h, measureSchool)
///                                at each frame (MDAnalysis reads value[frame] at each frame)
///   parameters/
///     config                     scalar string: the config JSON the run started with
///     species/                   absent, or step int64 [k], time float64 [k], value int32
///                                [k][fish]: each fish's species from that step on, where a
///                                change dealt them anew (the species element holds the first)
///     changes/                   step int64 [c], time float64 [c], value string [c]: the whole
///                                config JSON after each change made while recording (the app)
///     ensemble_run/              `ensemble run --only I --trajectory` only: run I's row of the
///                                merged CSV as attributes: index (int64), seed (uint64),
///                                replicate, steps (int64), status, message (string), the
///                                axes' values by key (float64), the measures averaged over the
///                                window, as the CSV's columns polarization, milling,
///                                nearest_neighbor_m, neighbors (float64, the same numbers; ok
///                                runs only), measure_from_step, measure_to_step (int64)
///
/// Units are metres and seconds. No element carries H5MD's `unit` attribute (MDAnalysis refuses
/// one it does not know, as "m"); each carries `fishschool_unit` instead ("m", "m/s", "s").
/// Values are chunked along time; a file is complete once its writer finished.

/// The kinds of fish a trajectory's `species` holds, by index (leaders first, then predators):
/// fishschool/SimParams.h's FishKind, whose values are the file's (0 fish, 1 leader, 2 predator).
static_assert(static_cast<std::int32_t>(FishKind::Fish) == 0 &&
              static_cast<std::int32_t>(FishKind::Leader) == 1 &&
              static_cast<std::int32_t>(FishKind::Predator) == 2);
FISHSCHOOL_API std::vector<FishKind> fishKinds(const SimParams& params, std::size_t fishCount);

/// An attribute the writer writes: int64, uint64, float64 or a string.
struct TrajectoryAttribute {
    std::string name;
    std::variant<std::int64_t, std::uint64_t, double, std::string> value;
};

struct TrajectoryWriterOptions {
    /// Frames waiting for the disk may hold at most this many bytes: the writer's memory does
    /// not grow with the run. A frame that would pass it waits (the step then waits on the disk).
    std::size_t queueBytes = std::size_t{64} << 20;
    /// How errors name the file: the output's own path when `file` is its temporary one
    /// (OutputFiles::addExternal's /proc/self/fd/N says nothing to a user). Empty: `file`.
    std::string name;
    /// Each fish's species, by index (the school's Fish::species), when the config has species;
    /// empty: those of a new school (speciesOf). Which species a fish is never changes in a run.
    std::vector<std::uint32_t> species;
    /// Where fish were not found (an imported file's): frames x fish flags, 1 where a fish is
    /// missing, written as particles/school/missing; the frames given must then be as many.
    /// Empty: no mask.
    std::span<const std::uint8_t> missing;
};

/// The species of every fish of `school`, for TrajectoryWriterOptions::species.
FISHSCHOOL_API std::vector<std::uint32_t> speciesOfSchool(std::span<const Fish> school);

/// Writes one trajectory. Frames are copied (float32) when given and written by a thread of the
/// writer's own, so a step waits on the disk only when the queue is full. Not thread-safe: one
/// thread gives it frames. The file is the caller's: OutputFiles::addExternal() gives a path
/// that is put into place by its commit(), after finish().
class FISHSCHOOL_API TrajectoryWriter {
  public:
    /// Creates `file` (replacing what is there: give it a temporary path) with the header, the
    /// box, the kinds and the config of `params`, for a school of `fishCount` fish. Errors name
    /// the file and HDF5's reason.
    [[nodiscard]] static Result<std::unique_ptr<TrajectoryWriter>> create(
        const std::filesystem::path& file, const SimParams& params, std::size_t fishCount,
        const TrajectoryWriterOptions& options = {});
    virtual ~TrajectoryWriter() = default;

    /// Queues frame `step` at `timeSeconds`: the school's positions and velocities (school.size()
    /// must be the fishCount given to create()) and its measures at this step, or none. Every
    /// frame has measures or none (the first frame decides): a frame that differs is an error.
    /// An error when the writer's thread failed (a full disk), naming the file.
    [[nodiscard]] Result<void> addFrame(
        std::int64_t step, double timeSeconds, std::span<const Fish> school,
        const std::optional<SchoolMetrics>& measures = std::nullopt);
    /// Fills a frame's positions and velocities, float triples fish by fish (3 * fishCount()
    /// floats each), straight into the writer's buffer.
    using FrameFill = std::function<void(std::span<float> positions, std::span<float> velocities)>;
    /// addFrame() with the values written by `fill` (Simulation::copyFrame, Backend::
    /// downloadFrame), on the caller's thread before it returns: no copy of the school between.
    /// Where recordsKickClocks(), each fish's clock is 0 (drawn anew): give them with the
    /// overload below.
    [[nodiscard]] Result<void> addFrameFrom(
        std::int64_t step, double timeSeconds, const FrameFill& fill,
        const std::optional<SchoolMetrics>& measures = std::nullopt) {
        return addFrameFrom(step, timeSeconds, fill, std::span<const float>{}, measures);
    }
    /// As above with each fish's kick clock (Fish::kickClock, fishCount() of them, or none: 0
    /// each), recorded where recordsKickClocks() and ignored elsewhere.
    [[nodiscard]] virtual Result<void> addFrameFrom(
        std::int64_t step, double timeSeconds, const FrameFill& fill,
        std::span<const float> kickClocks, const std::optional<SchoolMetrics>& measures) = 0;
    /// Whether each frame records every fish's kick clock (particles/school/kick_clock): the
    /// parameters given to create() steer "burst-and-coast".
    virtual bool recordsKickClocks() const = 0;
    /// Queues attributes of the group parameters/`group` (made), e.g. "ensemble_run".
    [[nodiscard]] virtual Result<void> addParameterAttributes(
        const std::string& group, std::vector<TrajectoryAttribute> attributes) = 0;
    /// Queues a change of parameters made at `step` (recorded as the whole config's JSON) and,
    /// where `species` (each fish's, one a fish) differs from the species recorded last, the
    /// species from that step on (parameters/species: new counts of the species deal fish anew).
    [[nodiscard]] virtual Result<void> addParameterChange(
        std::int64_t step, double timeSeconds, const SimParams& params,
        std::span<const std::uint32_t> species = {}) = 0;
    /// Writes what is queued, ends the file and closes it: the file is complete and readable.
    /// Safe to call once; the first error of the writer's thread is returned.
    [[nodiscard]] virtual Result<void> finish() = 0;
    /// Frames given so far.
    virtual std::size_t frameCount() const = 0;
    virtual std::size_t fishCount() const = 0;
    /// The file as errors name it (TrajectoryWriterOptions::name).
    virtual const std::string& name() const = 0;
};

/// The measures recorded in a trajectory, in the order they were taken.
struct TrajectoryMeasures {
    std::vector<std::int64_t> step;
    std::vector<double> time;
    std::vector<SchoolMetrics> values;
};

/// Reads a trajectory. The file is a stranger's: open() checks every object it will read (its
/// type, its shape against the others, its chunks and filters, no external or virtual storage,
/// sizes the file can hold) before reading, so that a hostile file gets an error naming the
/// object ("particles/school/position/value: ...") in bounded time and memory. Frames are read on
/// demand. One thread at a time.
class FISHSCHOOL_API TrajectoryReader {
  public:
    /// Errors are bad input (exit status 2).
    [[nodiscard]] static Result<std::unique_ptr<TrajectoryReader>> open(
        const std::filesystem::path& file);
    virtual ~TrajectoryReader() = default;

    virtual std::size_t fishCount() const = 0;
    /// At least 1: a file without frames is refused by open().
    virtual std::size_t frameCount() const = 0;
    virtual std::int64_t frameStep(std::size_t frame) const = 0;
    virtual double frameTime(std::size_t frame) const = 0;
    /// The config JSON the run started with (parameters/config).
    virtual const std::string& configJson() const = 0;
    /// The config in force at `frame`: the last change recorded at or before its step, else
    /// configJson().
    virtual const std::string& configJsonAt(std::size_t frame) const = 0;
    virtual std::span<const FishKind> kinds() const = 0;
    /// Each fish's species (all 0 in a file without species); readFrame gives them too. In a
    /// file with species, each is one of its config's species (open() refuses another).
    virtual std::span<const std::uint32_t> species() const = 0;
    /// Each fish's species at `frame`: those a change dealt last at or before its step
    /// (parameters/species), else species(). readFrame gives these.
    virtual std::span<const std::uint32_t> speciesAt(std::size_t frame) const = 0;
    /// Whether the file names each fish's species (particles/school/kind beside species): a
    /// school started from a file without them takes the species its parameters deal, as a
    /// state file without a species column does.
    virtual bool hasSpecies() const = 0;
    /// Whether the file holds each fish's kick clock at each frame (particles/school/kick_clock,
    /// written under steering "burst-and-coast"); readFrame gives them, else 0 (drawn anew).
    virtual bool hasKickClocks() const = 0;
    /// Whether the file marks the frames where a fish was not found (particles/school/missing,
    /// an imported file's: docs/data.md).
    virtual bool hasMissing() const = 0;
    /// Each fish's flag at `frame`, one a fish: 1 where it was not found (its position and
    /// velocity there are 0, not values), 0 where it was; all 0 in a file without the mask.
    virtual std::span<const std::uint8_t> missingAt(std::size_t frame) const = 0;
    virtual const TrajectoryMeasures& measures() const = 0;
    /// Frame `frame`'s positions, velocities, species and kick clocks into `out` (resized to
    /// fishCount(), accelerations zero). An error (bad input) names the object: a value that is
    /// not finite, a kick clock out of its range, a read failure.
    [[nodiscard]] virtual Result<void> readFrame(std::size_t frame, School& out) = 0;
};

/// Whether `file` starts as an HDF5 file does (its signature at offset 0), so that --state-in
/// tells a trajectory from a state CSV by its content.
FISHSCHOOL_API bool isHdf5File(const std::filesystem::path& file);

}  // namespace fishschool
