// fishschool: the desktop app. `fishschool --help` lists the flags; docs/app.md the controls.

#include <exception>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "App.h"

int main(int argc, char** argv) {
    using namespace fishschool;
    app::AppOptions options;
    std::string backend, sweep;
    std::int64_t fish = -1;
    std::string neighbors;
    bool noVsync = false;

    CLI::App cli{"FishSchool: a 3D fish school you tune live"};
    cli.add_option("--config", options.configPath, "Config JSON to start from");
    cli.add_option("--backend", backend, "cpu, tbb or gpu (default tbb)");
    cli.add_option("--fish", fish, "Fish count; overrides the config");
    cli.add_option("--neighbors", neighbors, "all-pairs or grid; overrides the config");
    cli.add_option("--frames", options.frames, "Quit after this many frames")
        ->check(CLI::NonNegativeNumber);
    cli.add_option("--screenshot", options.screenshotPath,
                   "Write a PNG of the last frame (with --frames)");
    cli.add_option("--sweep", sweep,
                   "Comma-separated fish counts: run the FPS sweep on every backend, then quit");
    cli.add_option("--csv", options.sweepCsvPath,
                   "Where --sweep writes backend,fish,fps,sim_ms,render_ms");
    cli.add_option("--sweep-frames", options.sweepFrames, "Measured frames per sweep case")
        ->check(CLI::Range(1, 100000));
    cli.add_flag("--no-vsync", noVsync, "Do not wait for the display's refresh");
    cli.add_flag("--hide-ui", options.hideUi, "Start without the panel and the overlay");
    std::string color = "speed";
    cli.add_option("--color", color, "Colour the fish by speed or by heading")
        ->check(CLI::IsMember({"speed", "heading"}));
    cli.add_option("--msaa", options.msaaSamples, "Multisampling: 0 (off), 2, 4 or 8 samples")
        ->check(CLI::IsMember({0, 2, 4, 8}));
    cli.add_option("--width", options.width, "Window width in pixels")
        ->check(CLI::Range(64, 16384));
    cli.add_option("--height", options.height, "Window height in pixels")
        ->check(CLI::Range(64, 16384));
    try {
        cli.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return cli.exit(e);
        std::cerr << "error: " << e.what() << " (see fishschool --help)\n";
        return 2;
    }

    if (!backend.empty()) {
        options.backend = parseBackendKind(backend);
        if (!options.backend) {
            std::cerr << "error: --backend: '" << backend
                      << "' is not allowed; must be cpu, tbb or gpu\n";
            return 2;
        }
    }
    if (fish >= 0)
        options.fish = fish;
    else if (cli.count("--fish")) {
        std::cerr << "error: --fish: " << fish << " is not allowed; must be >= 0\n";
        return 2;
    }
    if (!neighbors.empty()) options.neighbors = neighbors;
    options.vsync = !noVsync;
    options.colorByHeading = color == "heading";
    if (!sweep.empty()) {
        std::stringstream list(sweep);
        std::string item;
        while (std::getline(list, item, ',')) {
            try {
                std::size_t used = 0;
                const long long n = std::stoll(item, &used);
                if (used != item.size() || n < 0) throw std::invalid_argument(item);
                options.sweepFish.push_back(n);
            } catch (const std::exception&) {
                std::cerr << "error: --sweep: '" << item
                          << "' is not a fish count (whole numbers >= 0, comma-separated)\n";
                return 2;
            }
        }
        if (options.sweepCsvPath.empty()) {
            std::cerr << "error: --sweep needs --csv FILE\n";
            return 2;
        }
        options.vsync = false;  // measure the machine, not the display
    }
    try {
        return app::runApp(options);
    } catch (const std::exception& e) {
        std::cerr << "internal error: " << e.what() << "\n";
        return 1;
    }
}
