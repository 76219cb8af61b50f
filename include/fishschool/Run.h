#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fishschool/Export.h"
#include "fishschool/Fish.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// Where a run starts, the one rule of the CLI's simulate, the app, Python and ensembles:
/// - the parameters: `config` (a file) or `configJson` (its text), else, from a trajectory, its
///   config at the frame, else the built-in defaults; then `fishCount`, `seed` and
///   `neighborSearch` over them;
/// - the school: a state CSV's rows or a trajectory's frame (`state`, told by its content), else
///   a fresh school of fishCount fish from the seed. A new fishCount is shared among the
///   species by their counts (each species keeps its share, rounded to whole fish).
/// From a trajectory's frame the run goes on from that frame's step and time, so its noise is
/// the one the run that wrote the file drew, and the frames it records carry those steps on.
struct RunStart {
    std::filesystem::path config{};
    std::string configJson{};
    std::filesystem::path state{};
    /// With a trajectory `state`: the frame (0 to its last; default the last).
    std::optional<std::int64_t> frame{};
    std::optional<std::int64_t> fishCount{};
    std::optional<std::uint64_t> seed{};
    std::optional<std::string> neighborSearch{};  ///< "all-pairs" or "grid"
    /// How errors name the fields (a program's flags): empty, the field's own name.
    struct Names {
        std::string config = "config", state = "state", frame = "frame", fishCount = "fishCount",
                    seed = "seed", neighborSearch = "neighborSearch";
    } names{};
};

/// A start read and checked (readStart): the parameters, the school, and the step and time the
/// run goes on from.
struct StartingSchool {
    SimParams params{};
    /// The school read from the state; none: a fresh school of params, made with the backend
    /// (so that one that cannot hold it says so first).
    std::optional<School> school{};
    std::uint64_t step = 0;
    double time = 0.0;
};
/// Reads and checks `start`. Errors name the field (RunStart::names) or the file and what is
/// allowed.
[[nodiscard]] FISHSCHOOL_API Result<StartingSchool> readStart(const RunStart& start);

/// `base` with the keys of a config's JSON object `json` over it, read and checked as a config
/// file is: a fishCount without species is shared among base's species by their counts.
[[nodiscard]] FISHSCHOOL_API Result<SimParams> withConfigKeys(const SimParams& base,
                                                              std::string_view json);

/// What a recording writes. A trajectory's format is told by the path's extension
/// (outputFormatOf): H5MD (.h5, .hdf5, .h5md) or extended XYZ (.xyz).
enum class OutputKind {
    Trajectory,  ///< the school's frames (and its measures, when Measures is recorded too)
    Measures,    ///< the school's measures as CSV, a row a frame (metricsCsvHeader())
    State,       ///< the school at the end as a state CSV
};

/// An input of a run by name, so that no output replaces it ("--config", "config.json").
struct NamedPath {
    std::string name{};
    std::filesystem::path path{};
};

/// One output of a recording.
struct RunOutput {
    OutputKind kind = OutputKind::Trajectory;
    std::filesystem::path path{};
    /// A frame or a row when the recording starts, then every `every` steps (1 or more); 0:
    /// only when Simulation::recordFrame() asks. Not read for State.
    std::int64_t every = 1;
    /// Trajectory: its frames carry the school's measures, as they always do when Measures is
    /// recorded too (measuring costs about a step).
    bool measured = false;
    /// How errors name it (a flag, "--trajectory"); empty: the kind's name.
    std::string name{};
    /// Files it must not replace (checked by identity, so a link or another spelling is caught).
    std::vector<NamedPath> inputs{};
};

/// The formats a trajectory is written in.
enum class TrajectoryFormat { H5md, Xyz };
/// The format the extension of `path` names (any case), or an error that names the path and
/// the extensions allowed.
[[nodiscard]] FISHSCHOOL_API Result<TrajectoryFormat> outputFormatOf(
    const std::filesystem::path& path);

/// What a finished recording wrote.
struct RecordingSummary {
    std::size_t frames = 0;          ///< frames of its trajectories (the most of any)
    std::size_t rows = 0;            ///< rows of its measures
    std::int64_t lastFrameStep = 0;  ///< the step of the last frame recorded
};

}  // namespace fishschool
