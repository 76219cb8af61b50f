#include "RunCommandLine.h"

#include <exception>
#include <new>

#include <CLI/CLI.hpp>

#include "Commands.h"
#include "core/OutputFiles.h"
#include "core/TextInput.h"

namespace fishschool::cli {

int runCommandLine(int argc, const char* const* argv, bool validateOnly) {
    CLI::App app{
        "FishSchool on the command line: simulate a school, benchmark the backends or sweep a "
        "parameter"};
    app.require_subcommand(1);
    SimulateOptions simulate;
    BenchOptions bench;
    PhaseOptions phase;
    addSimulateCommand(app, simulate);
    addBenchCommand(app, bench);
    addPhaseCommand(app, phase);
    // CLI11 would only say "A subcommand is required" for a misspelt one.
    if (argc > 1 && argv[1][0] != '-') {
        std::string names;
        bool known = false;
        for (const CLI::App* command : app.get_subcommands({})) {
            known |= command->get_name() == argv[1];
            names += (names.empty() ? "" : ", ") + command->get_name();
        }
        if (!known)
            return badInput("unknown command " + quote(argv[1]) + "; the commands are " + names +
                            " (see fishschool-cli --help)");
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
        // CLI11 quotes the values it refuses as they are: printError cuts and escapes them.
        return badInput(std::string(e.what()) + " (see fishschool-cli --help)");
    }
    // Read only where the GPU runs, but a bad value is bad input wherever it is found.
    if (auto limit = gpuMaxBufferBytes(); !limit) return badInput(limit.error());
    simulate.validateOnly = bench.validateOnly = phase.validateOnly = validateOnly;
    try {
        if (app.got_subcommand("simulate")) return withStdoutChecked(runSimulate(simulate));
        if (app.got_subcommand("phase")) return withStdoutChecked(runPhase(phase));
        return withStdoutChecked(runBench(bench));
    } catch (const std::bad_alloc&) {
        return internalFailure("out of memory");
    } catch (const std::exception& e) {
        return internalFailure(std::string("internal: ") + e.what());
    }
}

}  // namespace fishschool::cli
