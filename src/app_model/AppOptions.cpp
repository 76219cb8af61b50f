#include "AppOptions.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <utility>

#include <CLI/CLI.hpp>

#include "app_model/AppLimits.h"
#include "backends/BackendRegistry.h"
#include "io/ExitStatus.h"
#include "io/FlagValidators.h"
#include "io/OutputFiles.h"
#include "io/TextInput.h"

namespace fishschool::app {
namespace {

Result<void> checkVideoPath(const std::string& path) {
    if (videoMuxer(path)) return {};
    return fail("--record: " + quote(path, 200) +
                " is not allowed; the video is H.264 in a file ending .mp4, .m4v, .mov or .mkv");
}

}  // namespace

std::optional<std::string_view> videoMuxer(const std::string& path) {
    // The containers that take H.264, as ffmpeg picks them from the extension.
    static constexpr std::pair<std::string_view, std::string_view> kMuxers[] = {
        {".mp4", "mp4"}, {".m4v", "ipod"}, {".mov", "mov"}, {".mkv", "matroska"}};
    std::string extension = std::filesystem::path(path).extension().string();
    for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& [ending, muxer] : kMuxers)
        if (extension == ending) return muxer;
    return std::nullopt;
}

int msaaSamplesFor(const AppOptions& options, std::string_view renderer) {
    if (options.msaaGiven || !isSoftwareRenderer(renderer)) return options.msaaSamples;
    return 0;
}

Result<void> checkFfmpeg() {
    if (std::system("ffmpeg -version >/dev/null 2>&1") != 0)
        return fail(
            "--record: ffmpeg was not found; install it (the Debian package ffmpeg, which "
            "scripts/setup.sh installs)");
    return {};
}

Result<AppOptions> parseAppOptions(int argc, const char* const* argv, bool checkTools) {
    AppOptions options;
    std::string backend, sweep;
    bool noVsync = false;

    CLI::App cli{"FishSchool: a 3D fish school you tune live"};
    cli.set_version_flag("--version", "fishschool " FISHSCHOOL_VERSION);
    cli.add_option("--config", options.params.configPath, "Config JSON to start from")
        ->check(nonEmpty());
    cli.add_option("--backend", backend, backendNameList() + " (default tbb)")->check(nonEmpty());
    cli.add_option(
           "--fish", options.params.fish,
           "Fish count, 0 to " + std::to_string(kMaxAppFishCount) + "; overrides the config")
        ->type_name("INT");
    cli.add_option("--neighbors", options.params.neighbors,
                   "all-pairs or grid; overrides the config")
        ->check(nonEmpty());
    std::string density = "fixed";
    cli.add_option("--density", density,
                   "fixed (default): a fish count scales the config's tank, rocks and target to "
                   "keep its density, in the panel and the sweep too; tank: they stay");
    cli.add_option("--frames", options.frames, "Quit after this many frames (>= 1)")
        ->check(wholeNumber(1));
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
                   "Seconds measured per sweep case (0.01 to 3600), once its school has formed")
        ->check(finiteNumber(0.01, 3600.0));
    cli.add_option("--sweep-warmup-steps", options.sweepWarmupSteps,
                   "Simulated steps that form each case's school, from the config's seed, before "
                   "it is measured (0 to 1000000, default 200)")
        ->check(wholeNumber(0, 1'000'000));
    cli.add_option("--switch-every", options.switchEveryFrames,
                   "Hand the school to the next backend every this many frames")
        ->check(wholeNumber(1, 1'000'000'000));
    cli.add_option("--state-in", options.stateInPath,
                   "Start from this state CSV's school (its rows are the fish), or from a "
                   "trajectory's frame and its config there (H5MD, told by its content)")
        ->check(nonEmpty());
    cli.add_option("--state-out", options.stateOutPath,
                   "Write the school as a state CSV when the app quits");
    cli.add_option("--config-out", options.configOutPath,
                   "Write the parameters the app ends with as a config JSON when it quits");
    cli.add_option("--record", options.recordPath,
                   "Write the window as a video (FILE.mp4, .m4v, .mov or .mkv), one video frame "
                   "per drawn frame");
    cli.add_option("--record-fps", options.recordFps,
                   "The video's frame rate; the simulation advances 1/FPS s per frame (default 60)")
        ->check(wholeNumber(1, 240));
    cli.add_flag("--record-clean", options.recordClean,
                 "The video shows the scene alone, framed in the whole frame: no panel, no "
                 "overlay (the window still shows them)");
    cli.add_option("--replay", options.replayPath,
                   "Replay a trajectory (H5MD, as simulate --trajectory writes it): a timeline "
                   "to drag, play and pause")
        ->check(nonEmpty());
    cli.add_option("--frame", options.replayFrame,
                   "With --replay: show this frame first (0 is the first), paused; with a "
                   "trajectory --state-in: start from this frame (default the last)")
        ->check(wholeNumber(0, std::numeric_limits<std::int64_t>::max()));
    cli.add_option("--trajectory", options.trajectoryPath,
                   "Record the school to this trajectory (H5MD) from the start; written when the "
                   "app quits");
    cli.add_option("--trajectory-every", options.trajectoryEvery,
                   "A trajectory frame every this many steps (1 to 1000000, default 1)")
        ->check(wholeNumber(1, 1'000'000));
    cli.add_flag("--no-vsync", noVsync, "Do not wait for the display's refresh");
    cli.add_flag("--paused", options.startPaused, "Start paused (Space resumes)");
    cli.add_flag("--hide-ui", options.hideUi, "Start without the panel and the overlay");
    cli.add_flag("--no-confirm-quit", options.noConfirmQuit,
                 "Esc and closing the window quit at once, even with parameters changed since "
                 "they were last saved or loaded (without it the app asks)");
    std::string color;
    cli.add_option("--color", color,
                   "Colour the fish by speed, heading or species (default: species when the "
                   "school has species, else speed)")
        ->check(CLI::IsMember({"speed", "heading", "species"}));
    std::string follow;
    cli.add_option("--follow", follow,
                   "The camera follows the school's centre (school) or its largest group (group) "
                   "as it swims, as View's \"camera follows\" does (default: it stays)")
        ->check(CLI::IsMember({"school", "group"}));
    cli.add_option("--msaa", options.msaaSamples,
                   "Multisampling: 0 (off), 2, 4 or 8 samples (default 4, or 0 on software GL "
                   "such as llvmpipe)")
        ->check(wholeNumber(0, 8) & CLI::IsMember({0, 2, 4, 8}));
    cli.add_option("--width", options.width,
                   "Window width in pixels, 64 to 16384 (default: the display's usable width, "
                   "at most 1600)")
        ->check(wholeNumber(64, 16384));
    cli.add_option("--height", options.height,
                   "Window height in pixels, 64 to 16384 (default: the display's usable "
                   "height, at most 900)")
        ->check(wholeNumber(64, 16384));
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        options.help = cli.help();
        return options;
    } catch (const CLI::CallForVersion&) {
        options.help = "fishschool " FISHSCHOOL_VERSION "\n";
        return options;
    } catch (const CLI::ParseError& e) {
        if (auto unknown =
                unknownFlagError(cli, {argv + std::min(argc, 1), argv + argc}, "fishschool"))
            return fail(*unknown);
        // CLI11 quotes the values it refuses as they are: printError cuts and escapes them.
        return fail(std::string(e.what()) + " (see fishschool --help)");
    }

    if (cli.count("--backend")) {
        auto kind = parseBackendFlag("--backend", backend);
        if (!kind) return fail(kind.error());
        options.backend = *kind;
    }
    // The app's own limit, as its panel's and every school's it makes (AppLimits.h); the
    // config's rules follow in loadParams.
    if (options.params.fish) {
        auto fish = parseFishCount("--fish", *options.params.fish);
        if (!fish) return fail(fish.error());
        if (auto ok = checkAppFishCount("--fish", *fish); !ok) return fail(ok.error());
    }
    if (cli.count("--state-in") && cli.count("--fish"))
        return fail("--fish cannot be used with --state-in: the fish are the file's rows");
    auto parsedDensity = parseDensity("--density", density);
    if (!parsedDensity) return fail(parsedDensity.error());
    options.density = *parsedDensity;
    options.vsync = !noVsync;
    options.msaaGiven = cli.count("--msaa") > 0;
    if (cli.count("--color")) options.color = color;
    if (cli.count("--follow")) options.follow = follow;
    if (cli.count("--sweep")) {
        auto counts = parseFishCounts("--sweep", sweep);
        if (!counts) return fail(counts.error());
        for (const std::int64_t count : *counts)
            if (auto ok = checkAppFishCount("--sweep", count); !ok) return fail(ok.error());
        options.sweepFish = std::move(*counts);
        if (cli.count("--sweep-backends")) {
            auto kinds = parseBackendList("--sweep-backends", sweepBackends);
            if (!kinds) return fail(kinds.error());
            options.sweepBackends = std::move(*kinds);
        }
        if (!cli.count("--csv")) return fail("--sweep needs --csv FILE");
        if (cli.count("--frames"))
            return fail("--frames cannot be used with --sweep: the sweep ends the run");
        if (options.switchEveryFrames > 0 || options.startPaused)
            return fail(
                "--switch-every and --paused cannot be used with --sweep: the sweep sets the "
                "backend itself and measures a running school");
        options.vsync = false;  // measure the machine, not the display
    } else if (cli.count("--sweep-backends")) {
        return fail("--sweep-backends needs --sweep FISH_LIST");
    } else if (cli.count("--csv")) {
        return fail("--csv is where --sweep writes; give --sweep FISH_LIST too");
    } else if (cli.count("--sweep-seconds")) {
        return fail("--sweep-seconds needs --sweep FISH_LIST");
    } else if (cli.count("--sweep-warmup-steps")) {
        return fail("--sweep-warmup-steps needs --sweep FISH_LIST");
    }
    if (cli.count("--record-fps") && !cli.count("--record"))
        return fail("--record-fps needs --record FILE");
    if (options.recordClean && !cli.count("--record"))
        return fail("--record-clean needs --record FILE");
    if (cli.count("--record")) {
        if (!options.sweepFish.empty())
            return fail(
                "--record cannot be used with --sweep: recording slows what the sweep measures");
        if (auto ok = checkVideoPath(options.recordPath); !ok) return fail(ok.error());
    }
    if (cli.count("--replay")) {
        for (const char* flag :
             {"--state-in", "--fish", "--sweep", "--switch-every", "--trajectory"})
            if (cli.count(flag))
                return fail(std::string(flag) +
                            " cannot be used with --replay: a replay shows the file's school "
                            "(Continue from here in the panel starts a live one from it)");
    } else if (cli.count("--frame") && !cli.count("--state-in")) {
        return fail("--frame needs --replay FILE.h5 or a trajectory --state-in FILE.h5");
    }
    if (cli.count("--trajectory-every") && !cli.count("--trajectory"))
        return fail("--trajectory-every needs --trajectory FILE.h5");
    if (cli.count("--trajectory") && !options.sweepFish.empty())
        return fail("--trajectory cannot be used with --sweep: the sweep replaces the school");
    if (auto limit = gpuMaxBufferBytes(); !limit) return fail(limit.error());

    // Every output is checked before the window opens, not after minutes of running: no two on
    // one file, none on an input (--state-in and --state-out may name one file: the write is
    // atomic and comes after the read).
    const std::string config = options.params.configPath.value_or("");
    OutputFiles outputs;
    for (const auto& [flag, path] :
         {std::pair{"--csv", &options.sweepCsvPath}, std::pair{"--record", &options.recordPath},
          std::pair{"--screenshot", &options.screenshotPath},
          std::pair{"--state-out", &options.stateOutPath},
          std::pair{"--config-out", &options.configOutPath},
          std::pair{"--trajectory", &options.trajectoryPath}}) {
        if (!cli.count(flag)) continue;
        const std::string stateIn = path == &options.stateOutPath ? "" : options.stateInPath;
        if (auto ok = outputs.check(
                flag, *path,
                {{"--config", config}, {"--state-in", stateIn}, {"--replay", options.replayPath}});
            !ok)
            return fail(ok.error());
    }
    // Last, as it runs a program: every flag is known good by then.
    if (cli.count("--record") && checkTools)
        if (auto ok = checkFfmpeg(); !ok) return fail(ok.error());
    return options;
}

}  // namespace fishschool::app
