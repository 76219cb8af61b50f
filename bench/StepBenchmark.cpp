// Google Benchmark of one simulation step per backend, neighbour search and fish count, on the
// fixed-density scene that `fishschool-cli bench --density fixed` and the app's presets use.
//
//   build/bin/fishschool_bench --benchmark_filter='tbb/grid' --benchmark_min_time=1
//
// The step's inner loops alone: NeighbourKernels.cpp.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>

#include "NeighbourKernels.h"
#include "backends/BackendRegistry.h"
#include "core/Scenario.h"

namespace fishschool {
namespace {

constexpr int kWarmupSteps = 10;

void stepBenchmark(benchmark::State& state, BackendKind kind, NeighborSearch search) {
    SimParams params = fixedDensityParams(state.range(0));
    params.neighborSearch = search;
    auto backend = createBackend(kind, params);
    if (!backend) {
        state.SkipWithError(backend.error().c_str());
        return;
    }
    Backend& b = **backend;
    if (auto ok = b.upload(makeInitialSchool(params)); !ok) {
        state.SkipWithError(ok.error().c_str());
        return;
    }
    for (int i = 0; i < kWarmupSteps; ++i) b.step();
    b.finish();
    for (auto _ : state) {
        b.step();
        b.finish();
    }
    state.counters["fish_steps_per_s"] = benchmark::Counter(
        static_cast<double>(params.fishCount), benchmark::Counter::kIsIterationInvariantRate);
}

/// The most fish each search is timed with, per step of a CPU thread or of a GPU.
std::int64_t maxFish(const BackendEntry& entry, NeighborSearch search) {
    if (search == NeighborSearch::Grid) return 1'000'000;
    if (entry.onGpu) return 100'000;
    return entry.kind == BackendKind::Cpu ? 10'000 : 20'000;
}

/// Every kind of the registry that this build has, with both searches.
void registerAll() {
    for (const BackendEntry& entry : backendRegistry()) {
        if (!entry.built) continue;
        for (NeighborSearch search : {NeighborSearch::AllPairs, NeighborSearch::Grid}) {
            const std::string name = std::string(entry.name) + "/" + std::string(toString(search));
            auto* bench = benchmark::RegisterBenchmark(
                name.c_str(), [kind = entry.kind, search](benchmark::State& state) {
                    stepBenchmark(state, kind, search);
                });
            for (std::int64_t fish : {1'000, 10'000, 100'000, 1'000'000})
                if (fish <= maxFish(entry, search)) bench->Arg(fish);
            bench->Unit(benchmark::kMillisecond)->UseRealTime();
        }
    }
}

}  // namespace
}  // namespace fishschool

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    fishschool::registerAll();
    fishschool::registerKernelBenchmarks();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
