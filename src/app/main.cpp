// fishschool: the desktop app. `fishschool --help` lists the flags; docs/app.md the controls.

#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "App.h"
#include "VideoRecorder.h"
#include "core/BackendRegistry.h"
#include "core/CommandLine.h"
#include "core/Scenario.h"
#include "core/TextInput.h"

int main(int argc, char** argv) {
    using namespace fishschool;
    app::AppOptions options;
    std::string backend, sweep;
    bool noVsync = false;

    CLI::App cli{"FishSchool: a 3D fish school you tune live"};
    cli.add_option("--config", options.params.configPath, "Config JSON to start from");
    cli.add_option("--backend", backend, backendNameList() + " (default tbb)");
    cli.add_option("--fish", options.params.fish, "Fish count; overrides the config")
        ->type_name("INT");
    cli.add_option("--neighbors", options.params.neighbors,
                   "all-pairs or grid; overrides the config");
    std::string density = "fixed";
    cli.add_option("--density", density,
                   "fixed (default): a fish count scales the config's tank, rocks and target to "
                   "keep its density, in the panel and the sweep too; tank: they stay");
    cli.add_option("--frames", options.frames, "Quit after this many frames")
        ->check(wholeNumber(0));
    cli.add_option("--screenshot", options.screenshotPath,
                   "Write a PNG of the last frame (with --frames)");
    cli.add_option("--sweep", sweep,
                   "Comma-separated fish counts: run the FPS sweep on every backend, then quit");
    cli.add_option("--csv", options.sweepCsvPath,
                   "Where --sweep writes backend,fish,fps,sim_ms,render_ms");
    std::string sweepBackends;
    cli.add_option(
        "--sweep-backends", sweepBackends,
        "Comma-separated backends the sweep runs (default: all of " + backendNameList() + ")");
    cli.add_option("--sweep-seconds", options.sweepSeconds,
                   "Seconds measured per sweep case, once its school has formed")
        ->check(CLI::Range(0.01, 3600.0));
    cli.add_option("--sweep-warmup-steps", options.sweepWarmupSteps,
                   "Simulated steps that form each case's school, from the config's seed, before "
                   "it is measured (default 200)")
        ->check(wholeNumber(0, 1'000'000));
    cli.add_option("--switch-every", options.switchEveryFrames,
                   "Hand the school to the next backend every this many frames")
        ->check(wholeNumber(1, 1'000'000'000));
    cli.add_option("--state-in", options.stateInPath,
                   "Start from this state CSV's school: its rows are the fish");
    cli.add_option("--state-out", options.stateOutPath,
                   "Write the school as a state CSV when the app quits");
    cli.add_option("--config-out", options.configOutPath,
                   "Write the parameters the app ends with as a config JSON when it quits");
    cli.add_option("--record", options.recordPath,
                   "Write the window as a video (FILE.mp4), one video frame per drawn frame");
    cli.add_option("--record-fps", options.recordFps,
                   "The video's frame rate; the simulation advances 1/FPS s per frame (default 60)")
        ->check(wholeNumber(1, 240));
    cli.add_flag("--no-vsync", noVsync, "Do not wait for the display's refresh");
    cli.add_flag("--paused", options.startPaused, "Start paused (Space resumes)");
    cli.add_flag("--hide-ui", options.hideUi, "Start without the panel and the overlay");
    std::string color = "speed";
    cli.add_option("--color", color, "Colour the fish by speed or by heading")
        ->check(CLI::IsMember({"speed", "heading"}));
    cli.add_option("--msaa", options.msaaSamples, "Multisampling: 0 (off), 2, 4 or 8 samples")
        ->check(wholeNumber(0, 8) & CLI::IsMember({0, 2, 4, 8}));
    cli.add_option("--width", options.width,
                   "Window width in pixels (default: the display's usable width, at most 1600)")
        ->check(wholeNumber(64, 16384));
    cli.add_option("--height", options.height,
                   "Window height in pixels (default: the display's usable height, at most 900)")
        ->check(wholeNumber(64, 16384));
    try {
        cli.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return cli.exit(e);
        std::cerr << "error: " << e.what() << " (see fishschool --help)\n";
        return 2;
    }

    if (cli.count("--backend")) {
        auto kind = parseBackendFlag("--backend", backend);
        if (!kind) {
            std::cerr << "error: " << kind.error() << "\n";
            return 2;
        }
        options.backend = *kind;
    }
    if (cli.count("--state-in") && cli.count("--fish")) {
        std::cerr << "error: --fish cannot be used with --state-in: the fish are the file's rows\n";
        return 2;
    }
    if (auto parsed = parseDensity("--density", density)) {
        options.density = *parsed;
    } else {
        std::cerr << "error: " << parsed.error() << "\n";
        return 2;
    }
    options.vsync = !noVsync;
    options.colorByHeading = color == "heading";
    if (cli.count("--sweep")) {
        auto counts = parseFishCounts("--sweep", sweep);
        if (!counts) {
            std::cerr << "error: " << counts.error() << "\n";
            return 2;
        }
        options.sweepFish = std::move(*counts);
        if (cli.count("--sweep-backends")) {
            auto kinds = parseBackendList("--sweep-backends", sweepBackends);
            if (!kinds) {
                std::cerr << "error: " << kinds.error() << "\n";
                return 2;
            }
            options.sweepBackends = std::move(*kinds);
        }
        if (options.sweepCsvPath.empty()) {
            std::cerr << "error: --sweep needs --csv FILE\n";
            return 2;
        }
        if (options.frames > 0) {
            std::cerr << "error: --frames cannot be used with --sweep: the sweep ends the run\n";
            return 2;
        }
        if (options.switchEveryFrames > 0 || options.startPaused) {
            std::cerr << "error: --switch-every and --paused cannot be used with --sweep: the "
                         "sweep sets the backend itself and measures a running school\n";
            return 2;
        }
        options.vsync = false;  // measure the machine, not the display
    } else if (cli.count("--sweep-warmup-steps")) {
        std::cerr << "error: --sweep-warmup-steps needs --sweep FISH_LIST\n";
        return 2;
    } else if (cli.count("--sweep-backends")) {
        std::cerr << "error: --sweep-backends needs --sweep FISH_LIST\n";
        return 2;
    } else if (!options.sweepCsvPath.empty()) {
        std::cerr << "error: --csv is where --sweep writes; give --sweep FISH_LIST too\n";
        return 2;
    }
    if (cli.count("--record-fps") && options.recordPath.empty()) {
        std::cerr << "error: --record-fps needs --record FILE\n";
        return 2;
    }
    if (!options.recordPath.empty()) {
        if (!options.sweepFish.empty()) {
            std::cerr << "error: --record cannot be used with --sweep: recording slows what the "
                         "sweep measures\n";
            return 2;
        }
        if (auto ok = app::VideoRecorder::checkFfmpeg(); !ok) {
            std::cerr << "error: " << ok.error() << "\n";
            return 2;
        }
    }
    // Output files are checked before the run, not after minutes of it.
    for (const auto& [flag, path] :
         {std::pair{"--csv", &options.sweepCsvPath}, std::pair{"--record", &options.recordPath},
          std::pair{"--screenshot", &options.screenshotPath},
          std::pair{"--state-out", &options.stateOutPath},
          std::pair{"--config-out", &options.configOutPath}}) {
        if (!cli.count(flag)) continue;
        const std::string config = options.params.configPath.value_or("");
        // --state-in and --state-out may name one file: the write is atomic.
        const std::string stateIn = path == &options.stateOutPath ? "" : options.stateInPath;
        auto ok = checkOutputPath(flag, *path);
        if (ok) ok = checkNotAnInput(flag, *path, {{"--config", config}, {"--state-in", stateIn}});
        if (!ok) {
            std::cerr << "error: " << ok.error() << "\n";
            return 2;
        }
    }
    try {
        return app::runApp(options);
    } catch (const std::exception& e) {
        std::cerr << "internal error: " << e.what() << "\n";
        return 1;
    }
}
