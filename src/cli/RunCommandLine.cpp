#include "RunCommandLine.h"

#include <exception>
#include <new>

#include <CLI/CLI.hpp>

#include "Commands.h"
#include "backends/BackendRegistry.h"
#include "io/ExitStatus.h"
#include "io/OutputFiles.h"
#include "io/TextInput.h"

namespace fishschool::cli {

int runCommandLine(int argc, const char* const* argv, bool validateOnly) {
    CLI::App app{
        "FishSchool on the command line: simulate a school, benchmark the backends, sweep a "
        "parameter, run an ensemble, import tracked fish, measure and compare trajectories and "
        "their anisotropy, or fit a model to one"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "fishschool-cli " FISHSCHOOL_VERSION);
    SimulateOptions simulate;
    BenchOptions bench;
    PhaseOptions phase;
    EnsembleOptions ensemble;
    ImportOptions importing;
    MeasureOptions measure;
    CompareOptions compare;
    AnisotropyOptions anisotropy;
    FitOptions fit;
    addSimulateCommand(app, simulate);
    addBenchCommand(app, bench);
    addPhaseCommand(app, phase);
    addEnsembleCommand(app, ensemble);
    addImportCommand(app, importing);
    addMeasureCommand(app, measure);
    addCompareCommand(app, compare);
    addAnisotropyCommand(app, anisotropy);
    addFitCommand(app, fit);
    // CLI11 would only say "A subcommand is required" for a misspelt one (`ensemble rnu` too).
    const CLI::App* level = &app;
    std::string path = "fishschool-cli";
    int arg = 1;
    for (; arg < argc && argv[arg][0] != '-' && !level->get_subcommands({}).empty(); ++arg) {
        std::string names;
        const CLI::App* chosen = nullptr;
        for (const CLI::App* command : level->get_subcommands({})) {
            if (command->get_name() == argv[arg]) chosen = command;
            names += (names.empty() ? "" : ", ") + command->get_name();
        }
        const std::string kind = level == &app ? "command " : level->get_name() + " command ";
        if (!chosen)
            return badInput("unknown " + kind + quote(argv[arg]) + "; the " +
                            kind.substr(0, kind.size() - 1) + "s are " + names + " (see " + path +
                            " --help)");
        path += " " + chosen->get_name();
        level = chosen;
    }
    // What the command printed on stdout must have arrived (bench >/dev/full, a closed stdout).
    auto withStdoutChecked = [](int status) {
        if (status != kExitSuccess) return status;
        if (auto ok = flushStandardOutput(); !ok) return internalFailure(ok.error());
        return status;
    };
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return withStdoutChecked(app.exit(e));
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return withStdoutChecked(app.exit(e));
        if (auto unknown = unknownFlagError(*level, {argv + arg, argv + argc}, path))
            return badInput(*unknown);
        // CLI11 quotes the values it refuses as they are: printError cuts and escapes them.
        return badInput(std::string(e.what()) + " (see fishschool-cli --help)");
    }
    // Read only where the GPU runs, but a bad value is bad input wherever it is found.
    if (auto limit = gpuMaxBufferBytes(); !limit) return badInput(limit.error());
    simulate.validateOnly = bench.validateOnly = phase.validateOnly = ensemble.validateOnly =
        importing.validateOnly = measure.validateOnly = compare.validateOnly =
            anisotropy.validateOnly = fit.validateOnly = validateOnly;
    try {
        if (app.got_subcommand("simulate")) return withStdoutChecked(runSimulate(simulate));
        if (app.got_subcommand("phase")) return withStdoutChecked(runPhase(phase));
        if (app.got_subcommand("import")) return withStdoutChecked(runImport(importing));
        if (app.got_subcommand("measure")) return withStdoutChecked(runMeasure(measure));
        if (app.got_subcommand("compare")) return withStdoutChecked(runCompare(compare));
        if (app.got_subcommand("anisotropy")) return withStdoutChecked(runAnisotropy(anisotropy));
        if (app.got_subcommand("fit")) return withStdoutChecked(runFit(fit));
        if (const CLI::App* cmd = app.get_subcommand("ensemble"); cmd->parsed())
            return withStdoutChecked(
                runEnsembleCommand(cmd->get_subcommands().front()->get_name(), ensemble));
        return withStdoutChecked(runBench(bench));
    } catch (const std::bad_alloc&) {
        return internalFailure("out of memory");
    } catch (const std::exception& e) {
        return internalFailure(std::string("internal: ") + e.what());
    }
}

}  // namespace fishschool::cli
