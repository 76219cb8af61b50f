#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "Commands.h"
#include "backends/BackendRegistry.h"
#include "core/Scenario.h"
#include "core/StepRule.h"
#include "fishschool/Metrics.h"
#include "io/ConfigIO.h"
#include "io/ExitStatus.h"
#include "io/OutputFiles.h"
#include "io/StateIO.h"
#include "io/TextInput.h"

namespace fishschool::cli {
namespace {

struct BenchRow {
    std::string backend;
    std::string neighbors;
    std::int64_t fish = 0;
    std::int64_t steps = 0;
    double msPerStep = 0.0;
    double meanNeighbors = 0.0;
    std::uint64_t pairsPerStep = 0;

    double stepsPerSecond() const { return msPerStep > 0.0 ? 1000.0 / msPerStep : 0.0; }
};

std::string csvLine(const BenchRow& r) {
    char line[320];
    // Every column to 6 significant digits: the table shows mean neighbours to 0.1 (1038.4).
    std::snprintf(line, sizeof line, "%s,%s,%lld,%lld,%.6g,%.6g,%.6g,%.6g,%.6g\n",
                  r.backend.c_str(), r.neighbors.c_str(), static_cast<long long>(r.fish),
                  static_cast<long long>(r.steps), r.msPerStep, r.stepsPerSecond(),
                  r.stepsPerSecond() * static_cast<double>(r.fish),
                  r.stepsPerSecond() * static_cast<double>(r.pairsPerStep), r.meanNeighbors);
    return line;
}

/// Most timed steps a case may take: their times are kept for the median (80 MB at most).
constexpr std::int64_t kMaxBenchSteps = 10'000'000;

void printTableHeader() {
    std::printf("%-8s %-10s %10s %12s %10s %14s %14s %10s\n", "backend", "neighbors", "fish",
                "ms/step", "steps/s", "fish-steps/s", "pairs/s", "neighbors");
}

/// A row lost (stdout on a full disk, closed, a pipe with no reader) fails the run at once, not
/// after an hour of measuring.
Result<void> printTableRow(const BenchRow& r) {
    std::printf("%-8s %-10s %10lld %12.4f %10.2f %14.4g %14.4g %10.1f\n", r.backend.c_str(),
                r.neighbors.c_str(), static_cast<long long>(r.fish), r.msPerStep,
                r.stepsPerSecond(), r.stepsPerSecond() * static_cast<double>(r.fish),
                r.stepsPerSecond() * static_cast<double>(r.pairsPerStep), r.meanNeighbors);
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
        return fail(std::string("stdout: writing failed: ") + std::strerror(errno));
    return {};
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

double nowMs() {
    using Clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(Clock::now().time_since_epoch()).count();
}

}  // namespace

void addBenchCommand(CLI::App& app, BenchOptions& o) {
    CLI::App* cmd =
        app.add_subcommand("bench", "Time the step per backend, neighbour search and fish count");
    cmd->add_option("--backend", o.backends, "Comma-separated backends: " + backendNameList())
        ->default_val("cpu,tbb")
        ->check(nonEmpty());
    cmd->add_option("--fish", o.fish, "Comma-separated fish counts")
        ->default_val("1000,2000,5000,10000")
        ->check(nonEmpty());
    cmd->add_option("--neighbors", o.neighbors,
                    "Comma-separated searches: all-pairs, grid (default: the config's)")
        ->check(nonEmpty());
    cmd->add_option("--density", o.density,
                    "tank: the config's tank for every count (as the article); fixed: the "
                    "config's tank, rocks and target scale with the count to keep its density")
        ->default_val("tank");
    cmd->add_option("--steps", o.steps, "Timed steps per case (1 to 10000000)")
        ->required()
        ->check(wholeNumber(1, kMaxBenchSteps));
    cmd->add_option("--warmup", o.warmup, "Untimed steps first, to let the school form (>= 0)")
        ->default_val(20)
        ->check(wholeNumber(0));
    cmd->add_option("--config", o.params.configPath, "Config JSON (default: the built-in defaults)")
        ->check(nonEmpty());
    cmd->add_option("--csv", o.csvPath, "Also write the results as CSV to this file")
        ->check(nonEmpty());
}

int runBench(const BenchOptions& o) {
    const auto fail = badInput;
    if (o.steps < 1 || o.steps > kMaxBenchSteps)
        return fail("--steps: " + std::to_string(o.steps) + " is not allowed; must be from 1 to " +
                    std::to_string(kMaxBenchSteps));
    if (o.warmup < 0)
        return fail("--warmup: " + std::to_string(o.warmup) + " is not allowed; must be >= 0");
    if (o.density != "tank" && o.density != "fixed")
        return fail("--density: " + quote(o.density) + " is not allowed; must be tank or fixed");

    auto base = loadParams(o.params);
    if (!base) return fail(base.error());
    // A scene of no fish has no density: any scale would be one nobody gave.
    if (o.density == "fixed" && base->fishCount < 1)
        return fail("--density fixed: the config " + quote(o.params.configPath.value_or(""), 200) +
                    " has fishCount 0, which has no density to keep; give a config with "
                    "fishCount >= 1, or --density tank");
    auto kinds = parseBackendList("--backend", o.backends);
    if (!kinds) return fail(kinds.error());
    std::vector<NeighborSearch> searches{base->neighborSearch};
    if (!o.neighbors.empty()) {
        auto listed = parseNeighborSearchList("--neighbors", o.neighbors);
        if (!listed) return fail(listed.error());
        searches = std::move(*listed);
    }
    auto counts = parseFishCounts("--fish", o.fish, 1);
    if (!counts) return fail(counts.error());

    // Check every scene before the first long run.
    auto sceneFor = [&](std::int64_t n, NeighborSearch search) {
        SimParams p = o.density == "fixed" ? fixedDensityParams(n, *base) : *base;
        setFishCount(p, n);
        p.neighborSearch = search;
        return p;
    };
    for (std::int64_t n : *counts)
        if (auto ok = validate(sceneFor(n, searches.front())); !ok) return fail(ok.error());

    OutputFiles outputs;
    if (!o.csvPath.empty())
        if (auto ok =
                outputs.add("--csv", o.csvPath, {{"--config", o.params.configPath.value_or("")}});
            !ok)
            return fail(ok.error());
    if (o.validateOnly) return 0;
    // Each kind asked for is checked before the first case spends its time: a GPU that cannot run
    // the largest scene (its limits are checked before any allocation) fails now, not after the
    // CPU cases.
    const std::int64_t largest = *std::max_element(counts->begin(), counts->end());
    for (BackendKind kind : *kinds) {
        auto probe = createBackend(kind, sceneFor(largest, searches.front()));
        if (!probe) return backendFailure(kind, probe.error());
        // Figures of a GL that draws on the CPU are its rasteriser's, not a GPU's: say so.
        if (kind == BackendKind::Gpu && isSoftwareRenderer((*probe)->description()))
            std::cerr << "bench: note: the GL here is software (" << (*probe)->description()
                      << "): the gpu figures are this CPU's, not a GPU's\n";
    }
    // Rows go to the CSV's temporary file as they are measured; it replaces --csv at the end.
    auto csv = [&](const std::string& line) -> Result<void> {
        return o.csvPath.empty() ? Result<void>{} : outputs.write("--csv", line);
    };
    if (auto ok = csv("backend,neighbors,fish,steps,ms_per_step,steps_per_s,fish_steps_per_s,"
                      "pairs_per_s,mean_neighbors\n");
        !ok)
        return internalFailure(ok.error());
    printTableHeader();
    for (BackendKind kind : *kinds) {
        for (NeighborSearch search : searches) {
            for (std::int64_t n : *counts) {
                const SimParams params = sceneFor(n, search);
                if (const std::string note = searchNotice(params, static_cast<std::size_t>(n));
                    !note.empty())
                    std::cerr << "bench: note: " << note << "\n";
                auto backend = createBackend(kind, params);
                if (!backend) return backendFailure(kind, backend.error());
                Backend& b = **backend;
                if (auto ok = b.upload(makeInitialSchool(params)); !ok)
                    return internalFailure(ok.error());

                BenchRow row{std::string(toString(kind)), std::string(toString(search)), n,
                             o.steps};
                const std::string label =
                    row.backend + " " + row.neighbors + " " + std::to_string(n) + " fish";
                double lastReport = nowMs();
                for (std::int64_t s = 0; s < o.warmup; ++s) {
                    b.step();
                    b.finish();
                    if (nowMs() - lastReport > 2000.0) {
                        std::cerr << label << ": warm-up " << (s + 1) << "/" << o.warmup << "\n";
                        lastReport = nowMs();
                    }
                }
                std::vector<double> times;
                times.reserve(static_cast<std::size_t>(o.steps));
                for (std::int64_t s = 0; s < o.steps; ++s) {
                    const double start = nowMs();
                    b.step();
                    b.finish();
                    times.push_back(nowMs() - start);
                    if (nowMs() - lastReport > 2000.0) {
                        std::cerr << label << ": step " << (s + 1) << "/" << o.steps << "\n";
                        lastReport = nowMs();
                    }
                }
                if (auto ok = b.health(); !ok) return internalFailure(ok.error());
                row.msPerStep = median(times);
                // The school is read back only after the timing: a read-back can make a GPU
                // driver move the simulation buffer out of video memory.
                {
                    const School formed = b.download();
                    row.meanNeighbors = measureSchool(formed, params).meanNeighbors;
                    row.pairsPerStep = pairsTestedPerStep(formed, params);
                }
                if (auto ok = printTableRow(row); !ok) return internalFailure(ok.error());
                if (auto ok = csv(csvLine(row)); !ok) return internalFailure(ok.error());
            }
        }
    }
    if (auto ok = flushStandardOutput(); !ok) return internalFailure(ok.error());
    if (auto ok = outputs.commit(); !ok) return internalFailure(ok.error());
    return 0;
}

}  // namespace fishschool::cli
