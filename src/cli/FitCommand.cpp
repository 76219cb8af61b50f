// `fit FIT.json --out DIR` (docs/data.md, "Fitting a model"): the library's runFitFile, with a
// line on stderr per population and the posterior's table on stdout.

#include <cmath>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>

#include <unistd.h>

#include "Commands.h"
#include "core/Messages.h"
#include "fishschool/Fit.h"
#include "io/ExitStatus.h"

namespace fishschool::cli {
namespace {

std::string number(double value, const char* format = "%.4g") {
    if (std::isinf(value)) return "inf";
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

}  // namespace

void addFitCommand(CLI::App& app, FitOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "fit",
        "Fit a model's parameters to a trajectory by ABC-SMC (docs/data.md): populations of "
        "particles, each run as an ensemble on every core; resumable");
    cmd->add_option("FILE", o.file, "The fit file (JSON)")->required()->check(nonEmpty());
    cmd->add_option("--out", o.folder, "The output folder: new, empty, or this fit's to resume")
        ->required()
        ->check(nonEmpty());
    cmd->add_option("--jobs", o.jobs,
                    "Simulations at once, a thread each (default: the CPU threads)")
        ->check(wholeNumber(1, kMaxJobs));
    cmd->add_flag("--dry-run", o.dryRun,
                  "Check the file, its target and the folder, then exit (0, or 2 when refused) "
                  "without making or running anything");
}

int runFit(const FitOptions& o) {
    FitRunOptions options;
    options.jobs = o.jobs;
    options.validateOnly = o.validateOnly || o.dryRun;
    // A line a population; on a terminal, the simulations between them on one line.
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    std::mutex mutex;
    options.onProgress = [&](const FitProgress& p) {
        const std::lock_guard lock(mutex);
        if (p.populationDone) {
            std::cerr << (terminal ? "\r\033[K" : "") << "fit: population " << p.population
                      << " done: tolerance " << number(p.epsilon) << ", " << p.simulations << " of "
                      << p.budget << " simulations\n";
        } else if (terminal) {
            std::cerr << "\rfit: population " << p.population << ": " << p.simulations << " of "
                      << p.budget << " simulations\033[K" << std::flush;
        }
    };
    auto fitted = runFitFile(o.file, o.folder, options);
    if (!fitted) return exitWith(fitted.error());
    if (options.validateOnly) {
        if (!o.validateOnly)
            std::cerr << "fit: --dry-run: " << quote(o.file, 200) << ", its target and --out "
                      << quote(o.folder, 200) << " are accepted; nothing was made or run\n";
        return 0;
    }
    const FitOutcome& f = *fitted;
    std::cout << o.file << ": " << f.populations.size() << " populations, " << f.simulations
              << " simulations";
    if (f.schoolsPerSimulation > 1)
        std::cout << " (" << f.schoolsPerSimulation
                  << " schools a simulation: one for each target trajectory)";
    std::cout << "; " << f.stopReason << "\n";
    std::cout << "  statistic                    target      scale\n";
    for (std::size_t c = 0; c < f.statistics.size(); ++c) {
        char line[160];
        std::snprintf(line, sizeof line, "  %-24s %10s %10s\n", f.statistics[c].c_str(),
                      number(f.targets[c]).c_str(), number(f.scales[c]).c_str());
        std::cout << line;
    }
    std::cout << "  population   tolerance  simulations  acceptance     ESS\n";
    for (const FitPopulationSummary& p : f.populations) {
        char line[160];
        std::snprintf(line, sizeof line, "  %10lld %11s %12lld %11s %7s\n",
                      static_cast<long long>(p.number), number(p.epsilon).c_str(),
                      static_cast<long long>(p.simulations), number(p.acceptance, "%.3f").c_str(),
                      number(p.effectiveSize, "%.0f").c_str());
        std::cout << line;
    }
    if (!f.populations.empty()) {
        const FitPopulationSummary& last = f.populations.back();
        std::cout << "posterior (population " << last.number;
        if (!f.posterior.empty()) std::cout << ", " << f.posterior.string();
        std::cout
            << "):\n  parameter                    median         5 %        95 %       mean\n";
        for (const FitParameterSummary& p : last.parameters) {
            char line[200];
            std::snprintf(line, sizeof line, "  %-24s %10s %11s %11s %10s\n", p.key.c_str(),
                          number(p.median).c_str(), number(p.low).c_str(), number(p.high).c_str(),
                          number(p.mean).c_str());
            std::cout << line;
        }
    }
    return 0;
}

}  // namespace fishschool::cli
