#include <charconv>
#include <iostream>

#include "CliBackends.h"
#include "Commands.h"
#include "core/ConfigIO.h"
#include "core/Scenario.h"
#include "core/StateIO.h"
#include "core/TextInput.h"

namespace fishschool::cli {

void addSimulateCommand(CLI::App& app, SimulateOptions& o) {
    CLI::App* cmd = app.add_subcommand("simulate", "Run K steps and write the state CSV");
    cmd->add_option("--config", o.configPath, "Config JSON (default: the built-in defaults)")
        ->check(nonEmpty());
    cmd->add_option("--steps", o.steps, "Number of steps K (>= 0)")->required();
    cmd->add_option("--state-out", o.stateOut, "Where to write the state CSV")
        ->required()
        ->check(nonEmpty());
    cmd->add_option("--state-in", o.stateIn,
                    "Initial state CSV; its rows are the fish, whatever fishCount says")
        ->check(nonEmpty());
    cmd->add_option("--fish", o.fish, "Fish count; overrides the config's fishCount");
    cmd->add_option("--seed", o.seed, "Seed of the initial state; overrides the config's seed")
        ->type_name("UINT64")
        ->check(nonEmpty());
    cmd->add_option("--backend", o.backend, "cpu, tbb or gpu")
        ->default_val("cpu")
        ->check(nonEmpty());
    cmd->add_option("--neighbors", o.neighbors,
                    "all-pairs or grid; overrides the config's neighborSearch")
        ->check(nonEmpty());
}

int runSimulate(const SimulateOptions& o) {
    auto fail = [](const std::string& message) {
        std::cerr << "error: " << message << "\n";
        return kExitBadInput;
    };
    if (o.steps < 0)
        return fail("--steps: " + std::to_string(o.steps) + " is not allowed; must be >= 0");
    const auto kind = parseBackendKind(o.backend);
    if (!kind)
        return fail("--backend: '" + o.backend + "' is not allowed; must be cpu, tbb or gpu");
    if (!o.stateIn.empty() && o.fish)
        return fail("--fish cannot be used with --state-in: the fish are the file's rows");
    if (!o.stateIn.empty() && o.seed)
        return fail("--seed cannot be used with --state-in: the fish come from the file");

    if (auto ok = checkOutputPath("--state-out", o.stateOut); !ok) return fail(ok.error());

    SimParams params;
    if (!o.configPath.empty()) {
        auto loaded = loadConfig(o.configPath);
        if (!loaded) return fail(loaded.error());
        params = *loaded;
    }
    if (o.fish) params.fishCount = *o.fish;
    if (o.seed) {
        const std::string& text = *o.seed;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, params.seed);
        if (ec != std::errc() || ptr != end || text.empty())
            return fail("--seed: '" + text +
                        "' is not allowed; must be a whole number from 0 to 18446744073709551615");
    }
    if (!o.neighbors.empty()) {
        const auto search = parseNeighborSearch(o.neighbors);
        if (!search)
            return fail("--neighbors: '" + o.neighbors +
                        "' is not allowed; must be all-pairs or grid");
        params.neighborSearch = *search;
    }
    if (auto ok = validate(params); !ok)
        return fail((o.fish ? "--fish/config: " : "") + ok.error());

    School school;
    if (!o.stateIn.empty()) {
        auto loaded = loadStateCsv(o.stateIn, params);
        if (!loaded) return fail(loaded.error());
        school = std::move(*loaded);
        params.fishCount = static_cast<std::int64_t>(school.size());
    } else {
        school = makeInitialSchool(params);
    }

    CliBackends backends;
    auto backend = backends.create(*kind, params);
    if (!backend) return fail(backend.error());
    Backend& b = **backend;
    b.setParams(params);
    if (auto ok = b.upload(school); !ok) return fail(ok.error());
    for (std::int64_t s = 0; s < o.steps; ++s) {
        b.step();
        if (o.steps >= 100 && (s + 1) % (o.steps / 10) == 0)
            std::cerr << "step " << (s + 1) << "/" << o.steps << "\n";
    }
    const School result = b.download();
    if (auto ok = saveStateCsv(o.stateOut, result); !ok) return fail(ok.error());
    return 0;
}

}  // namespace fishschool::cli
