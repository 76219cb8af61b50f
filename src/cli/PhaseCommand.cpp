#include <iostream>
#include <limits>

#include "Commands.h"
#include "backends/BackendRegistry.h"
#include "io/ConfigIO.h"
#include "io/ExitStatus.h"
#include "io/OutputFiles.h"
#include "io/StateIO.h"
#include "io/TextInput.h"
#include "library/WorkerBackends.h"
#include "runs/PhaseSweep.h"

namespace fishschool::cli {

void addPhaseCommand(CLI::App& app, PhaseOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "phase", "Sweep one parameter and write the school's polarization and milling as CSV");
    cmd->add_option("--config", o.params.configPath, "Config JSON (default: the built-in defaults)")
        ->check(nonEmpty());
    cmd->add_option("--vary", o.vary,
                    "orientation-width (rAlignment - rSeparation, with rSeparation and "
                    "rCohesion - rAlignment held), attraction-width (rCohesion - rAlignment), "
                    "density (fish per unit area, 2D), species[K].share, seed (each value a "
                    "run's seed) or a numeric config key")
        ->required()
        ->check(nonEmpty());
    cmd->add_option("--from", o.from, "First value")->required()->type_name("NUMBER");
    cmd->add_option("--to", o.to, "Last value")->required()->type_name("NUMBER");
    cmd->add_option("--count", o.count, "Number of values, evenly from --from to --to (>= 1)")
        ->required()
        ->check(wholeNumber(1, 100000));
    cmd->add_option("--steps", o.steps, "Steps at each value (>= 1); the last half is averaged")
        ->required()
        ->check(wholeNumber(1));
    cmd->add_option("--csv", o.csvPath, "Where to write value,direction,polarization,milling")
        ->required()
        ->check(nonEmpty());
    cmd->add_flag("--hysteresis", o.hysteresis,
                  "Carry one school up through the values and back down (else a fresh school "
                  "at each value)");
    cmd->add_option("--backend", o.backend, backendNameList())
        ->default_val("tbb")
        ->check(nonEmpty());
    cmd->add_option("--jobs", o.jobs,
                    "Values run at once from fresh starts, a thread each (default: the CPU "
                    "threads; 1 with --hysteresis or --backend gpu)")
        ->check(wholeNumber(1, kMaxJobs));
}

int runPhase(const PhaseOptions& o) {
    const auto fail = badInput;
    const auto kind = parseBackendFlag("--backend", o.backend);
    if (!kind) return fail(kind.error());
    const auto from = parseFiniteNumber("--from", o.from);
    if (!from) return fail(from.error());
    const auto to = parseFiniteNumber("--to", o.to);
    if (!to) return fail(to.error());
    // A carried school keeps its first count and its start: rows labelled with other counts or
    // seeds would describe schools that never ran.
    if (o.hysteresis && (o.vary == "fishCount" || o.vary == "seed"))
        return fail("--vary " + quote(o.vary) +
                    " cannot be used with --hysteresis: the carried school keeps the first "
                    "value's " +
                    o.vary + "; sweep it without --hysteresis");
    OutputFiles outputs;
    if (auto ok = outputs.add("--csv", o.csvPath, {{"--config", o.params.configPath.value_or("")}});
        !ok)
        return fail(ok.error());
    auto base = loadParams(o.params);
    if (!base) return fail(base.error());

    // Every value is checked before the first step, so a bad one cannot end a long run.
    const std::vector<double> values = sweepValues(*from, *to, o.count);
    std::vector<SimParams> varied;
    for (double value : values) {
        auto p = withVaried(*base, "--vary", o.vary, value);
        if (!p) return fail(p.error());
        varied.push_back(*p);
    }
    if (o.validateOnly) return 0;
    auto backends = makeWorkerBackends(*kind, varied.front(), o.hysteresis ? 1 : o.jobs);
    if (!backends) return backendFailure(*kind, backends.error());
    const auto points = runPhaseSweep(phaseEnsemble(*base, o.vary, values, o.steps, o.hysteresis),
                                      backends->size(), backends->backendFor());
    if (!points) return internalFailure(points.error());
    if (auto ok = outputs.write("--csv", phaseCsv(o.vary, *points)); !ok)
        return internalFailure(ok.error());
    if (auto ok = outputs.commit(); !ok) return internalFailure(ok.error());
    return 0;
}

}  // namespace fishschool::cli
