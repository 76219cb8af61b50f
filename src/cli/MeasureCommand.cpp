// `measure` and `compare`: a trajectory's measures at every frame and its distributions, and two
// trajectories' distributions side by side (docs/data.md). The plots are gnuplot's
// (scripts/plot_compare.sh), from the histograms these write: no plotting code here.

#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "Commands.h"
#include "core/Messages.h"
#include "fishschool/Anisotropy.h"
#include "fishschool/Distributions.h"
#include "io/ExitStatus.h"
#include "io/OutputFiles.h"

namespace fishschool::cli {

void addMeasureCommand(CLI::App& app, MeasureOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "measure",
        "Measure every frame of a trajectory and its distributions (wall distance and angle, "
        "nearest neighbour, neighbour heading, viewing angle, speed, polarization, milling, "
        "turning angle, turn axis change); print a summary");
    cmd->add_option("file", o.file, "The trajectory (H5MD, as simulate --trajectory writes)")
        ->required()
        ->check(nonEmpty());
    cmd->add_option("--csv", o.csvPath, "Where to write the measures of every frame as CSV")
        ->check(nonEmpty());
    cmd->add_option("--histograms", o.histogramsPath,
                    "Where to write the histograms, a row a bin, as CSV")
        ->check(nonEmpty());
}

void addCompareCommand(CLI::App& app, CompareOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "compare",
        "Compare two trajectories' distributions: the Hellinger distance of each (0 equal, 1 "
        "disjoint)");
    cmd->add_option("a", o.a, "The first trajectory")->required()->check(nonEmpty());
    cmd->add_option("b", o.b, "The second trajectory")->required()->check(nonEmpty());
    cmd->add_option("--histograms", o.histogramsPath,
                    "Where to write both histograms, a row a bin, as CSV (count_a, count_b): "
                    "scripts/plot_compare.sh plots them")
        ->check(nonEmpty());
}

void addAnisotropyCommand(CLI::App& app, AnisotropyOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "anisotropy",
        "Ballerini's anisotropy gamma(n) of the n-th nearest neighbour over a trajectory's "
        "frames (1/3 isotropic in 3D, 1/2 in 2D)");
    cmd->add_option("file", o.file, "The trajectory (H5MD)")->required()->check(nonEmpty());
    cmd->add_option("--neighbours", o.neighbours, "gamma(n) for n = 1 to this (1 to 1000)")
        ->check(CLI::Range(std::int64_t{1}, static_cast<std::int64_t>(kMaxAnisotropyNeighbours)));
    cmd->add_option("--first", o.first, "The first frame (default 0)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--last", o.last, "The last frame, included (default: the file's last)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--csv", o.csvPath, "Where to write n, gamma, error, frames as CSV")
        ->check(nonEmpty());
}

namespace {

std::string number(double value, const char* format = "%.4g") {
    if (std::isnan(value)) return "-";
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

/// The bins of a distribution as the tables name them: "80 x 0.25 m from 0".
std::string binsText(const DistributionSpec& spec) {
    const double width = (spec.high - spec.low) / static_cast<double>(spec.bins);
    return std::to_string(spec.bins) + " x " + number(width) + " from " + number(spec.low);
}

/// The mean of a histogram's values, each at its bin's centre (NaN without values in range).
double binnedMean(const Histogram& h) {
    const std::vector<double> edges = h.edges();
    double sum = 0.0, count = 0.0;
    for (std::size_t k = 0; k < h.counts.size(); ++k) {
        sum += 0.5 * (edges[k] + edges[k + 1]) * static_cast<double>(h.counts[k]);
        count += static_cast<double>(h.counts[k]);
    }
    return count > 0.0 ? sum / count : std::numeric_limits<double>::quiet_NaN();
}

void printSummary(const std::string& file, const TrajectoryMeasurement& m) {
    const std::size_t frames = m.step.size();
    std::size_t fewest = std::numeric_limits<std::size_t>::max(), most = 0;
    for (std::size_t n : m.fish) {
        fewest = std::min(fewest, n);
        most = std::max(most, n);
    }
    std::printf("%s: %zu frames (steps %lld to %lld), %s fish a frame\n",
                printable(file, 200).c_str(), frames, static_cast<long long>(m.step.front()),
                static_cast<long long>(m.step.back()),
                fewest == most ? std::to_string(most).c_str()
                               : (std::to_string(fewest) + " to " + std::to_string(most)).c_str());
    std::printf("  %-22s %12s %12s %12s\n", "measure (per frame)", "mean", "min", "max");
    for (const SchoolMeasure& measure : kSchoolMeasures) {
        // A state's mean is no state: its shares of the frames, below the table.
        if (measure.member == &SchoolMetrics::state) continue;
        double sum = 0.0, low = std::numeric_limits<double>::infinity(), high = -low;
        std::size_t count = 0;
        for (const SchoolMetrics& frame : m.measures) {
            const double value = frame.*measure.member;
            if (std::isnan(value)) continue;
            sum += value;
            low = std::min(low, value);
            high = std::max(high, value);
            ++count;
        }
        if (count == 0) {
            std::printf("  %-22s %12s %12s %12s\n", measure.column, "-", "-", "-");
            continue;
        }
        std::printf("  %-22s %12s %12s %12s\n", measure.column,
                    number(sum / static_cast<double>(count)).c_str(), number(low).c_str(),
                    number(high).c_str());
    }
    std::array<std::size_t, 4> states{};
    for (const SchoolMetrics& frame : m.measures) {
        const double state = frame.state;
        if (state >= 0.0 && state < 4.0) ++states[static_cast<std::size_t>(state)];
    }
    const auto share = [&](std::size_t k) {
        return number(100.0 * static_cast<double>(states[k]) / static_cast<double>(frames), "%.1f");
    };
    std::printf(
        "  state (share of the frames): swarm %s %%, milling %s %%, polarized %s %%, "
        "transitional %s %%\n",
        share(0).c_str(), share(1).c_str(), share(2).c_str(), share(3).c_str());
    std::printf("  %-18s %-5s %-24s %10s %10s %8s %8s\n", "distribution", "unit", "bins", "values",
                "mean", "below", "above");
    for (std::size_t d = 0; d < kDistributions.size(); ++d) {
        const DistributionSpec& spec = kDistributions[d];
        const Histogram& h = m.histograms[d];
        std::printf("  %-18s %-5s %-24s %10llu %10s %8llu %8llu\n", spec.name, spec.unit,
                    binsText(spec).c_str(), static_cast<unsigned long long>(h.total()),
                    number(binnedMean(h)).c_str(), static_cast<unsigned long long>(h.below),
                    static_cast<unsigned long long>(h.above));
    }
    if (!m.walls)
        std::printf(
            "  (wall_distance counts only frames in a tank of walls: this file has "
            "frames without walls)\n");
}

}  // namespace

int runMeasure(const MeasureOptions& o) {
    OutputFiles outputs;
    const NamedInput input{"FILE", o.file};
    if (!o.csvPath.empty())
        if (auto ok = outputs.add("--csv", o.csvPath, {input}); !ok) return badInput(ok.error());
    if (!o.histogramsPath.empty())
        if (auto ok = outputs.add("--histograms", o.histogramsPath, {input}); !ok)
            return badInput(ok.error());
    if (o.validateOnly) return kExitSuccess;
    auto measured = measureTrajectory(o.file);
    if (!measured) return exitWith(measured.error());
    if (!o.csvPath.empty())
        if (auto ok = outputs.write("--csv", frameMeasuresCsv(*measured)); !ok)
            return internalFailure(ok.error());
    if (!o.histogramsPath.empty()) {
        const Histograms* one[] = {&measured->histograms};
        const std::string columns[] = {"count"};
        if (auto ok = outputs.write("--histograms", histogramsCsv(one, columns)); !ok)
            return internalFailure(ok.error());
    }
    if (auto ok = outputs.commit(); !ok) return internalFailure(ok.error());
    printSummary(o.file, *measured);
    return kExitSuccess;
}

int runAnisotropy(const AnisotropyOptions& o) {
    OutputFiles outputs;
    if (!o.csvPath.empty())
        if (auto ok = outputs.add("--csv", o.csvPath, {{"FILE", o.file}}); !ok)
            return badInput(ok.error());
    if (o.validateOnly) return kExitSuccess;
    const auto last = o.last < 0 ? static_cast<std::size_t>(-1) : static_cast<std::size_t>(o.last);
    auto result = trajectoryAnisotropy(o.file, static_cast<std::size_t>(o.neighbours),
                                       static_cast<std::size_t>(o.first), last);
    if (!result) return exitWith(result.error());
    // An empty field where there is no value, as the measures' CSVs write NaN.
    const auto field = [](double value) {
        return std::isnan(value) ? std::string() : number(value, "%.9g");
    };
    std::string csv = "n,gamma,error,frames\n";
    for (std::size_t k = 0; k < result->gamma.size(); ++k)
        csv += std::to_string(k + 1) + "," + field(result->gamma[k]) + "," +
               field(result->error[k]) + "," + std::to_string(result->frames[k]) + "\n";
    if (!o.csvPath.empty())
        if (auto ok = outputs.write("--csv", csv); !ok) return internalFailure(ok.error());
    if (auto ok = outputs.commit(); !ok) return internalFailure(ok.error());
    std::printf("%s: anisotropy gamma(n), isotropic %.4f\n", printable(o.file, 200).c_str(),
                result->isotropic);
    std::printf("  %4s %10s %10s %8s\n", "n", "gamma", "error", "frames");
    for (std::size_t k = 0; k < result->gamma.size(); ++k)
        std::printf("  %4zu %10s %10s %8zu\n", k + 1, number(result->gamma[k], "%.4f").c_str(),
                    number(result->error[k], "%.4f").c_str(), result->frames[k]);
    if (result->nc > 0)
        std::printf("  n_c = %zu: the first n within two errors of the isotropic value\n",
                    result->nc);
    else
        std::printf("  n_c: no n within two errors of the isotropic value\n");
    return kExitSuccess;
}

int runCompare(const CompareOptions& o) {
    OutputFiles outputs;
    if (!o.histogramsPath.empty())
        if (auto ok = outputs.add("--histograms", o.histogramsPath, {{"A", o.a}, {"B", o.b}}); !ok)
            return badInput(ok.error());
    if (o.validateOnly) return kExitSuccess;
    auto compared = compareTrajectories(o.a, o.b);
    if (!compared) return exitWith(compared.error());
    if (!o.histogramsPath.empty()) {
        const Histograms* both[] = {&compared->a.histograms, &compared->b.histograms};
        const std::string columns[] = {"count_a", "count_b"};
        if (auto ok = outputs.write("--histograms", histogramsCsv(both, columns)); !ok)
            return internalFailure(ok.error());
    }
    if (auto ok = outputs.commit(); !ok) return internalFailure(ok.error());
    std::printf("A: %s (%zu frames)\nB: %s (%zu frames)\n", printable(o.a, 200).c_str(),
                compared->a.step.size(), printable(o.b, 200).c_str(), compared->b.step.size());
    std::printf("  %-18s %-5s %-24s %12s %12s %10s\n", "distribution", "unit", "bins", "values A",
                "values B", "hellinger");
    for (std::size_t d = 0; d < kDistributions.size(); ++d) {
        const DistributionSpec& spec = kDistributions[d];
        std::printf("  %-18s %-5s %-24s %12llu %12llu %10s\n", spec.name, spec.unit,
                    binsText(spec).c_str(),
                    static_cast<unsigned long long>(compared->a.histograms[d].total()),
                    static_cast<unsigned long long>(compared->b.histograms[d].total()),
                    number(compared->hellinger[d], "%.4f").c_str());
    }
    std::printf(
        "  (hellinger: 0 the same distribution, 1 disjoint; - where a file has no value)\n");
    return kExitSuccess;
}

}  // namespace fishschool::cli
