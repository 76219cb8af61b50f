#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/Backend.h"
#include "core/ConfigIO.h"
#include "core/Scenario.h"

namespace fishschool::app {

/// The app's command-line options.
struct AppOptions {
    ParamFlags params;  ///< --config, --fish, --neighbors: read by loadParams
    std::optional<BackendKind> backend;
    /// What a new fish count does to the tank: Fixed scales the tank, rocks and target from the
    /// config (as `fishschool-cli bench --density fixed`), Tank keeps them.
    Density density = Density::Fixed;
    std::int64_t frames = 0;  ///< quit after this many frames (0: run until closed)
    std::string screenshotPath;
    std::vector<std::int64_t> sweepFish;  ///< run the FPS sweep over these counts, then quit
    std::string sweepCsvPath;
    std::vector<BackendKind> sweepBackends;  ///< empty: every backend of the registry
    double sweepSeconds = 3.0;  ///< measured seconds per sweep case
    /// Simulated steps that form each sweep case's school, from the config's seed, before it is
    /// measured.
    std::int64_t sweepWarmupSteps = 200;
    std::int64_t switchEveryFrames = 0;  ///< hand the school to the next backend this often
    std::string stateOutPath;            ///< write the school's state CSV on quitting
    std::string stateInPath;             ///< start from this state CSV's school
    std::string configOutPath;           ///< write the parameters as a config JSON on quitting
    std::string recordPath;              ///< write the window as a video (through ffmpeg)
    int recordFps = 60;                  ///< the video's frame rate: one frame per drawn frame
    bool vsync = true;
    bool startPaused = false;
    bool hideUi = false;
    bool colorByHeading = false;
    int msaaSamples = 4;        ///< multisampling of the window; 0 turns it off
    int width = 0, height = 0;  ///< 0: fit the display's usable area, at most 1600 x 900
};

/// Opens the window and runs until the user quits or the options say so. Returns the exit
/// status: 0, 2 for bad input or no usable display/GL, 1 for an internal failure.
int runApp(const AppOptions& options);

}  // namespace fishschool::app
