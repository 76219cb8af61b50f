#include <csignal>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "Commands.h"
#include "backends/BackendRegistry.h"
#include "core/Invariants.h"
#include "core/Scenario.h"
#include "core/StepRule.h"
#include "fishschool/Metrics.h"
#include "fishschool/Run.h"
#include "fishschool/Simulation.h"
#include "fishschool/Trajectory.h"
#include "io/ConfigIO.h"
#include "io/ExitStatus.h"
#include "io/OutputFiles.h"
#include "io/StateIO.h"
#include "io/TextInput.h"
#include "io/Trajectory.h"

namespace fishschool::cli {
namespace {

/// --metrics-every: a whole number of steps, at least 1 (default 1).
/// Empty: not given (the flag itself refuses an empty value), so one row a step.
Result<std::int64_t> parseMetricsEvery(const std::string& text) {
    if (text.empty()) return 1;
    return parseWholeNumber("--metrics-every", text, 1, std::numeric_limits<std::int64_t>::max());
}

/// --trajectory-every, as --metrics-every.
Result<std::int64_t> parseTrajectoryEvery(const std::string& text) {
    if (text.empty()) return 1;
    return parseWholeNumber("--trajectory-every", text, 1,
                            std::numeric_limits<std::int64_t>::max());
}

const char* signalName(int number) {
    return number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "a signal";
}

}  // namespace

void addSimulateCommand(CLI::App& app, SimulateOptions& o) {
    CLI::App* cmd = app.add_subcommand("simulate", "Run K steps and write the state CSV");
    cmd->add_option("--config", o.params.configPath, "Config JSON (default: the built-in defaults)")
        ->check(nonEmpty());
    cmd->add_option("--steps", o.steps, "Number of steps K (>= 0)")
        ->required()
        ->check(wholeNumber(0));
    cmd->add_option(
           "--state-out", o.stateOut,
           "Where to write the state CSV (required unless --metrics or --trajectory is given)")
        ->check(nonEmpty());
    cmd->add_option("--metrics", o.metricsPath,
                    "Write the school's measures as CSV: " + metricsCsvHeader())
        ->check(nonEmpty());
    cmd->add_option("--metrics-every", o.metricsEvery,
                    "A --metrics row at step 0, then every N steps (default 1)")
        ->type_name("N")
        ->check(wholeNumber(1));
    cmd->add_option("--trajectory", o.trajectoryPath,
                    "Write the run's frames (positions, velocities) and measures as an H5MD "
                    "file (docs/trajectories.md)")
        ->check(nonEmpty());
    cmd->add_option("--trajectory-every", o.trajectoryEvery,
                    "A --trajectory frame at step 0, then every N steps (default 1)")
        ->type_name("N")
        ->check(wholeNumber(1));
    cmd->add_option("--state-in", o.stateIn,
                    "Initial state CSV, whose rows are the fish, whatever fishCount says; or a "
                    "trajectory (H5MD, told by its content), whose frame and config start the run")
        ->check(nonEmpty());
    cmd->add_option("--frame", o.frame,
                    "With a trajectory --state-in: the frame to start from, 0 to its last "
                    "(default the last)")
        ->type_name("K")
        ->check(nonEmpty());
    cmd->add_option("--fish", o.params.fish, "Fish count; overrides the config's fishCount")
        ->type_name("INT");
    cmd->add_option("--seed", o.params.seed,
                    "Seed of the initial state; overrides the config's seed")
        ->type_name("UINT64")
        ->check(nonEmpty());
    cmd->add_option("--backend", o.backend, backendNameList())
        ->default_val("tbb")
        ->check(nonEmpty());
    cmd->add_option("--neighbors", o.params.neighbors,
                    "all-pairs or grid; overrides the config's neighborSearch")
        ->check(nonEmpty());
    cmd->add_option("--change-config", o.changeConfig,
                    "Config JSON whose parameters replace the running ones at --change-at, as "
                    "the app's panel changes them: fish the new tank or rocks leave outside are "
                    "moved in, and its fishCount is the school's new count")
        ->check(nonEmpty());
    cmd->add_option("--change-at", o.changeAt,
                    "The step (0 to --steps) after which --change-config applies")
        ->type_name("STEP")
        ->check(nonEmpty());
    cmd->add_flag("--check", o.check,
                  "After every step, read the school back and check that every fish is finite, "
                  "inside the tank and outside every rock; exit 1 at the first that is not");
}

int runSimulate(const SimulateOptions& o) {
    const auto fail = badInput;
    const auto kind = parseBackendFlag("--backend", o.backend);
    if (!kind) return fail(kind.error());
    std::optional<std::int64_t> frame;
    if (!o.frame.empty()) {
        auto k = parseWholeNumber("--frame", o.frame, 0, std::numeric_limits<std::int64_t>::max());
        if (!k) return fail(k.error());
        frame = *k;
    }
    // The start as the library reads it for every front end (fishschool/Run.h).
    auto start = runStartOf(o.params, o.stateIn, frame);
    if (!start) return exitWith(start.error());

    if (o.stateOut.empty() && o.metricsPath.empty() && o.trajectoryPath.empty())
        return fail("--state-out is required (or --metrics, or --trajectory)");
    const auto every = parseMetricsEvery(o.metricsEvery);
    if (!every) return fail(every.error());
    if (o.metricsPath.empty() && !o.metricsEvery.empty())
        return fail("--metrics-every needs --metrics FILE");
    const auto frameEvery = parseTrajectoryEvery(o.trajectoryEvery);
    if (!frameEvery) return fail(frameEvery.error());
    if (o.trajectoryPath.empty() && !o.trajectoryEvery.empty())
        return fail("--trajectory-every needs --trajectory FILE");
    if (o.changeConfig.empty() != o.changeAt.empty())
        return fail("--change-config and --change-at go together: give both or neither");
    std::int64_t changeAt = -1;
    if (!o.changeAt.empty()) {
        const auto at = parseWholeNumber("--change-at", o.changeAt, 0, o.steps);
        if (!at) return fail(at.error());
        changeAt = *at;
    }
    if (!o.trajectoryPath.empty())
        if (auto format = outputFormatOf(o.trajectoryPath); !format)
            return fail("--trajectory: " + format.error());
    // Every output, checked and its temporary file made before anything runs. --state-in may
    // be the state output: the school is read first and the file replaced at the end.
    const NamedPath config{"--config", o.params.configPath.value_or("")};
    const NamedPath changeConfig{"--change-config", o.changeConfig};
    const NamedPath stateIn{"--state-in", o.stateIn};
    std::vector<RunOutput> outputs;
    if (!o.stateOut.empty())
        outputs.push_back({.kind = OutputKind::State,
                           .path = o.stateOut,
                           .name = "--state-out",
                           .inputs = {config, changeConfig}});
    if (!o.metricsPath.empty())
        outputs.push_back({.kind = OutputKind::Measures,
                           .path = o.metricsPath,
                           .every = *every,
                           .name = "--metrics",
                           .inputs = {config, stateIn, changeConfig}});
    if (!o.trajectoryPath.empty())
        outputs.push_back({.kind = OutputKind::Trajectory,
                           .path = o.trajectoryPath,
                           .every = *frameEvery,
                           .name = "--trajectory",
                           .inputs = {config, stateIn, changeConfig}});

    auto starting = readStart(*start);
    if (!starting) return exitWith(starting.error());
    std::optional<SimParams> change;
    if (!o.changeConfig.empty()) {
        auto loaded = loadParams(ParamFlags{.configPath = o.changeConfig});
        if (!loaded) return fail("--change-config: " + loaded.error());
        change = *loaded;
    }
    // A trajectory holds one school: a change of its size has no frame to go in.
    if (change && !o.trajectoryPath.empty() && change->fishCount != starting->params.fishCount)
        return fail("--trajectory: --change-config makes the school " +
                    std::to_string(change->fishCount) + " fish from " +
                    std::to_string(starting->params.fishCount) +
                    "; a trajectory holds one school size: give the change the same fishCount");
    if (o.validateOnly) return 0;

    // The backend first: one that cannot hold the school says so before the school is made.
    auto simulation = Simulation::create(*starting, toString(*kind));
    if (!simulation) return backendFailure(*kind, simulation.error());
    starting->school.reset();
    Simulation& sim = *simulation;
    if (const std::string note = searchNotice(sim.params(), sim.fishCount()); !note.empty())
        std::cerr << "simulate: note: " << note << "\n";
    if (auto ok = sim.startRecording(outputs); !ok) return exitWith(ok.error());

    auto check = [&](std::int64_t step, const char* when) {
        if (!o.check) return true;
        if (auto ok = checkInvariants(sim.school(), sim.params()); !ok) {
            printError("--check: " + std::string(when) + std::to_string(step) + ": " + ok.error());
            return false;
        }
        return true;
    };
    // The change, as the panel makes it: on the running backend, between two steps.
    auto applyChange = [&](std::int64_t step) {
        if (!change || step != changeAt) return true;
        if (auto ok = sim.setParams(*change); !ok) {
            printError("--change-config after step " + std::to_string(step) + ": " + ok.error());
            return false;
        }
        return check(step, "the change after step ");
    };
    // Ctrl+C or SIGTERM stops the run between two steps; what ran is written as a whole run's.
    stopOnInterrupt();
    std::int64_t done = 0;
    for (; done < o.steps && !stopRequested(); ++done) {
        if (!applyChange(done)) return kExitInternal;
        if (auto ok = sim.step(); !ok) return exitWith(ok.error());
        if (!check(done + 1, "step ")) return kExitInternal;
        if (o.steps >= 100 && (done + 1) % (o.steps / 10) == 0)
            std::cerr << "step " << (done + 1) << "/" << o.steps << "\n";
    }
    const int stoppedBy = done < o.steps ? stopRequested() : 0;
    if (!stoppedBy && !applyChange(o.steps)) return kExitInternal;
    // Only now, the whole run done, does any existing file get replaced.
    auto recorded = sim.finishRecording();
    if (!recorded) return exitWith(recorded.error());
    if (!stoppedBy) return 0;
    std::string kept;
    if (!o.stateOut.empty())
        kept += ", --state-out " + quote(o.stateOut, 200) + " (that step's school)";
    if (!o.metricsPath.empty())
        kept += ", --metrics " + quote(o.metricsPath, 200) + " (its rows so far)";
    if (!o.trajectoryPath.empty())
        kept += ", --trajectory " + quote(o.trajectoryPath, 200) + " (" +
                std::to_string(recorded->frames) + " frames, ended cleanly)";
    std::cerr << "simulate: stopped by " << signalName(stoppedBy) << " after step " << done
              << " of " << o.steps << "; kept" << kept.substr(1) << "\n";
    return 128 + stoppedBy;
}

}  // namespace fishschool::cli
