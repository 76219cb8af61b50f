#pragma once

// The app's command line, apart from the window so that the flag fuzz target (tests/fuzz) and
// the tests parse exactly what the app parses, without SDL or GL.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/Backend.h"
#include "core/Scenario.h"
#include "fishschool/Result.h"
#include "io/ConfigIO.h"

namespace fishschool::app {

/// The app's command-line options.
struct AppOptions {
    ParamFlags params;  ///< --config, --fish, --neighbors: read by loadParams
    std::optional<BackendKind> backend;
    /// What a new fish count does to the tank: Fixed scales the tank, rocks and target from the
    /// config (as `fishschool-cli bench --density fixed`), Tank keeps them.
    Density density = Density::Fixed;
    std::int64_t frames = 0;  ///< quit after this many frames (0: not given, run until closed)
    std::string screenshotPath;
    std::vector<std::int64_t> sweepFish;  ///< run the FPS sweep over these counts, then quit
    std::string sweepCsvPath;
    std::vector<BackendKind> sweepBackends;  ///< empty: every backend of the registry
    double sweepSeconds = 3.0;               ///< measured seconds per sweep case
    /// Simulated steps that form each sweep case's school, from the config's seed, before it is
    /// measured.
    std::int64_t sweepWarmupSteps = 200;
    std::int64_t switchEveryFrames = 0;  ///< hand the school to the next backend this often
    std::string stateOutPath;            ///< write the school's state CSV on quitting
    std::string stateInPath;             ///< start from this state CSV's school
    std::string configOutPath;           ///< write the parameters as a config JSON on quitting
    std::string recordPath;              ///< write the window as a video (through ffmpeg)
    int recordFps = 60;                  ///< the video's frame rate: one frame per drawn frame
    /// The video shows the scene alone, framed in the whole window: no panel, no overlay.
    bool recordClean = false;
    std::string replayPath;  ///< replay this trajectory (H5MD) instead of a live school
    std::optional<std::int64_t> replayFrame;  ///< the replay's first frame shown (paused there)
    std::string trajectoryPath;               ///< record the school to this trajectory
    std::int64_t trajectoryEvery = 1;         ///< a trajectory frame every this many steps
    bool vsync = true;
    bool startPaused = false;
    bool hideUi = false;
    /// Quit on Esc or the window's close without asking, even with parameters changed since
    /// they were last saved or loaded.
    bool noConfirmQuit = false;
    /// --color: "speed", "heading" or "species"; unset: by species when the school has species,
    /// else by speed.
    std::optional<std::string> color;
    /// --follow: "school" or "group": the camera follows the school's centre or its largest
    /// group from the start (View's "camera follows"); unset: it stays.
    std::optional<std::string> follow;
    int msaaSamples = 4;        ///< multisampling of the window; 0 turns it off
    bool msaaGiven = false;     ///< --msaa was given: kept even on software GL
    int width = 0, height = 0;  ///< 0: fit the display's usable area, at most 1600 x 900
    /// --help or --version: the text to print on stdout, and nothing to run.
    std::string help;
};

/// The app's flags (argv[0] the program name) as options, every one checked before a window
/// opens: its value, the flags it needs or excludes, the outputs (checkOutputPath, no two on one
/// file, none on an input), FISHSCHOOL_GPU_MAX_BUFFER_BYTES, and, with `checkTools`, that ffmpeg
/// runs for --record. An error is bad input (exit status 2) and names the flag, e.g.
/// "--record: 'a.webm' is not allowed; the video is H.264 in .mp4, .m4v, .mov or .mkv".
Result<AppOptions> parseAppOptions(int argc, const char* const* argv, bool checkTools = true);

/// The window's multisampling on the GL `renderer`: --msaa's when given, else 0 on software GL
/// (4x there draws at a third of the frame rate), else the default.
int msaaSamplesFor(const AppOptions& options, std::string_view renderer);

/// The ffmpeg muxer of a video file, by its extension as ffmpeg would pick it: .mp4 "mp4", .m4v
/// "ipod", .mov "mov", .mkv "matroska"; nullopt for any other (--record refuses it).
std::optional<std::string_view> videoMuxer(const std::string& path);

/// Whether `ffmpeg` can be run here; the error says how to get it.
Result<void> checkFfmpeg();

}  // namespace fishschool::app
