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
        ->default_val("cpu")
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
    if (!o.stateIn.empty() && o.params.fish)
        return fail("--fish cannot be used with --state-in: the fish are the file's rows");
    if (!o.stateIn.empty() && o.params.seed)
        return fail("--seed cannot be used with --state-in: the fish come from the file");
    // A trajectory by its content; a file named as one that is not (empty, not HDF5, a FIFO)
    // is refused as a trajectory, saying why, rather than read as a CSV.
    const bool fromTrajectory =
        !o.stateIn.empty() && (isHdf5File(o.stateIn) || hasTrajectoryExtension(o.stateIn));
    std::optional<std::int64_t> frame;
    if (!o.frame.empty()) {
        if (!fromTrajectory)
            return fail("--frame needs --state-in FILE.h5, a trajectory (HDF5); " +
                        (o.stateIn.empty() ? std::string("no --state-in was given")
                                           : quote(o.stateIn, 200) + " is not one"));
        auto k = parseWholeNumber("--frame", o.frame, 0, std::numeric_limits<std::int64_t>::max());
        if (!k) return fail(k.error());
        frame = *k;
    }

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
    // Every output checked, and its temporary file made, before anything runs. --state-in may
    // be the state output: the school is read first and the file replaced at the end.
    const std::string config = o.params.configPath.value_or("");
    OutputFiles outputs;
    if (!o.stateOut.empty())
        if (auto ok = outputs.add("--state-out", o.stateOut,
                                  {{"--config", config}, {"--change-config", o.changeConfig}});
            !ok)
            return fail(ok.error());
    if (!o.metricsPath.empty())
        if (auto ok = outputs.add("--metrics", o.metricsPath,
                                  {{"--config", config},
                                   {"--state-in", o.stateIn},
                                   {"--change-config", o.changeConfig}});
            !ok)
            return fail(ok.error());

    std::filesystem::path trajectoryFile;
    if (!o.trajectoryPath.empty()) {
        auto path = outputs.addExternal(
            "--trajectory", o.trajectoryPath,
            {{"--config", config}, {"--state-in", o.stateIn}, {"--change-config", o.changeConfig}});
        if (!path) return fail(path.error());
        trajectoryFile = *path;
    }

    // A trajectory's frame: its school, with its config at that frame unless --config is given.
    std::optional<TrajectoryStart> start;
    if (fromTrajectory) {
        auto read = readTrajectoryStart(o.stateIn, frame, o.params);
        if (!read) return fail(read.error());
        start = std::move(*read);
    }
    auto params = start ? Result<SimParams>(start->params) : loadParams(o.params);
    if (!params) return fail(params.error());
    std::optional<SimParams> change;
    if (!o.changeConfig.empty()) {
        auto loaded = loadParams(ParamFlags{.configPath = o.changeConfig});
        if (!loaded) return fail("--change-config: " + loaded.error());
        change = *loaded;
    }

    School school;
    if (!o.stateIn.empty()) {
        auto loaded =
            start ? Result<School>(std::move(start->school)) : loadStateCsv(o.stateIn, *params);
        if (!loaded) return fail(loaded.error());
        school = std::move(*loaded);
        countSchool(*params, school);
    }
    // A trajectory holds one school: a change of its size has no frame to go in.
    if (change && !o.trajectoryPath.empty() && change->fishCount != params->fishCount)
        return fail("--trajectory: --change-config makes the school " +
                    std::to_string(change->fishCount) + " fish from " +
                    std::to_string(params->fishCount) +
                    "; a trajectory holds one school size: give the change the same fishCount");
    if (o.validateOnly) return 0;

    // The backend first: one that cannot hold the school says so before the school is made.
    if (o.stateIn.empty()) school = makeInitialSchool(*params);
    auto simulation = Simulation::create(*params, toString(*kind), school);
    if (!simulation) return backendFailure(*kind, simulation.error());
    school = {};
    Simulation& sim = *simulation;
    if (const std::string note = searchNotice(sim.params(), sim.fishCount()); !note.empty())
        std::cerr << "simulate: note: " << note << "\n";
    // From a trajectory's frame, the noise goes on from that frame's step, as in the run that
    // wrote it (its steps and times here still count from 0).
    if (start) sim.backend().setStepCount(static_cast<std::uint64_t>(start->step));
    std::unique_ptr<TrajectoryWriter> trajectory;
    if (!o.trajectoryPath.empty()) {
        auto made = TrajectoryWriter::create(
            trajectoryFile, sim.params(), sim.fishCount(),
            TrajectoryWriterOptions{.queueBytes = TrajectoryWriterOptions{}.queueBytes,
                                    .name = o.trajectoryPath,
                                    .species = sim.params().species.empty()
                                                   ? std::vector<std::uint32_t>{}
                                                   : speciesOfSchool(sim.school())});
        if (!made) return internalFailure("--trajectory: " + made.error());
        trajectory = std::move(*made);
    }
    // Simulated time: step * dt, from the change on with the new dt.
    std::int64_t dtSinceStep = 0;
    double secondsThen = 0.0;
    auto secondsAt = [&](std::int64_t step) {
        return secondsThen + static_cast<double>(step - dtSinceStep) * params->dt;
    };
    // A trajectory's frame waits for the step after it, which copies each fish as it reads it
    // (Simulation::stepCopyingFrame): a fraction of a pass of its own. A frame that no step
    // follows (the last, one before a change or a stop) is copied alone.
    struct PendingFrame {
        std::int64_t step = 0;
        double seconds = 0.0;
        std::optional<SchoolMetrics> measures;
    };
    std::optional<PendingFrame> pendingFrame;
    auto addPendingFrameAlone = [&]() -> Result<void> {
        if (!pendingFrame) return {};
        const PendingFrame frame = *std::exchange(pendingFrame, std::nullopt);
        const auto copy = [&](std::span<float> positions, std::span<float> velocities) {
            sim.copyFrame(positions, velocities);
        };
        return trajectory->addFrameFrom(frame.step, frame.seconds, copy, frame.measures);
    };
    auto stepOnce = [&]() -> Result<void> {
        if (!pendingFrame) return sim.step();
        const PendingFrame frame = *std::exchange(pendingFrame, std::nullopt);
        Result<void> stepped;
        const auto copyWhileStepping = [&](std::span<float> positions,
                                           std::span<float> velocities) {
            stepped = sim.stepCopyingFrame(positions, velocities);
        };
        if (auto ok = trajectory->addFrameFrom(frame.step, frame.seconds, copyWhileStepping,
                                               frame.measures);
            !ok)
            return ok;
        return stepped;
    };
    // Each row goes to the file as it comes: a long run's measures cost no memory. With
    // --metrics, a trajectory's frames carry the measures at their steps (one value a frame, as
    // MDAnalysis reads them); without, frames only (measuring costs about a step). A step that
    // is both a frame and a row is measured once.
    auto measureAndRecord = [&](std::int64_t step) -> Result<void> {
        const bool frame = trajectory && step % *frameEvery == 0;
        const bool row = !o.metricsPath.empty() && step % *every == 0;
        std::optional<SchoolMetrics> measures;
        if (row || (frame && !o.metricsPath.empty())) measures = sim.measures();
        if (frame) pendingFrame = PendingFrame{step, secondsAt(step), measures};
        if (!row) return {};
        return outputs.write("--metrics", metricsCsvRow(step, secondsAt(step), *measures));
    };
    auto check = [&](std::int64_t step, const char* when) {
        if (!o.check) return true;
        if (auto ok = checkInvariants(sim.school(), *params); !ok) {
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
        secondsThen += static_cast<double>(step - dtSinceStep) * params->dt;
        dtSinceStep = step;
        *params = *change;
        if (trajectory)
            if (auto ok = trajectory->addParameterChange(step, secondsAt(step), sim.params());
                !ok) {
                printError(ok.error());
                return false;
            }
        return check(step, "the change after step ");
    };
    if (!o.metricsPath.empty())
        if (auto ok = outputs.write("--metrics", metricsCsvHeader() + "\n"); !ok)
            return internalFailure(ok.error());
    if (auto ok = measureAndRecord(0); !ok) return internalFailure(ok.error());
    // Ctrl+C or SIGTERM stops the run between two steps; what ran is written as a whole run's.
    stopOnInterrupt();
    std::int64_t done = 0;
    for (; done < o.steps && !stopRequested(); ++done) {
        const std::int64_t s = done;
        if (change && s == changeAt)
            if (auto ok = addPendingFrameAlone(); !ok) return internalFailure(ok.error());
        if (!applyChange(s)) return kExitInternal;
        if (auto ok = stepOnce(); !ok) return internalFailure(ok.error());
        if (!check(s + 1, "step ")) return kExitInternal;
        if (auto ok = measureAndRecord(s + 1); !ok) return internalFailure(ok.error());
        if (o.steps >= 100 && (s + 1) % (o.steps / 10) == 0)
            std::cerr << "step " << (s + 1) << "/" << o.steps << "\n";
    }
    if (auto ok = addPendingFrameAlone(); !ok) return internalFailure(ok.error());
    const int stoppedBy = done < o.steps ? stopRequested() : 0;
    if (!stoppedBy && !applyChange(o.steps)) return kExitInternal;
    const std::span<const Fish> result = sim.school();
    if (auto ok = sim.backend().health(); !ok) return internalFailure(ok.error());
    if (!o.stateOut.empty())
        if (auto ok = writeStateCsv(
                result, *params,
                [&](std::string_view rows) { return outputs.write("--state-out", rows); });
            !ok)
            return internalFailure(ok.error());
    std::size_t frames = 0;
    if (trajectory) {
        frames = trajectory->frameCount();
        if (auto ok = trajectory->finish(); !ok)
            return internalFailure("--trajectory: " + ok.error());
    }
    // Only now, the whole run done, does any existing file get replaced.
    if (auto ok = outputs.commit(); !ok) return internalFailure(ok.error());
    if (!stoppedBy) return 0;
    std::string kept;
    if (!o.stateOut.empty())
        kept += ", --state-out " + quote(o.stateOut, 200) + " (that step's school)";
    if (!o.metricsPath.empty())
        kept += ", --metrics " + quote(o.metricsPath, 200) + " (its rows so far)";
    if (trajectory)
        kept += ", --trajectory " + quote(o.trajectoryPath, 200) + " (" + std::to_string(frames) +
                " frames, ended cleanly)";
    std::cerr << "simulate: stopped by " << signalName(stoppedBy) << " after step " << done
              << " of " << o.steps << "; kept" << kept.substr(1) << "\n";
    return 128 + stoppedBy;
}

}  // namespace fishschool::cli
