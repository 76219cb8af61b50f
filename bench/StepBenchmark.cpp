// Google Benchmark of one simulation step per backend, neighbour search and fish count, on the
// fixed-density scene that `fishschool-cli bench --density fixed` and the app's presets use.
//
//   build/bin/fishschool_bench --benchmark_filter='tbb/grid' --benchmark_min_time=1

#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>

#include "core/CpuBackends.h"
#include "core/Scenario.h"
#ifdef FISHSCHOOL_HAS_GPU
#include "gpu/BackendFactory.h"
#include "gpu/HeadlessGlContext.h"
#endif

namespace fishschool {
namespace {

constexpr int kWarmupSteps = 10;

Result<std::unique_ptr<Backend>> makeBackend(BackendKind kind, const SimParams& params) {
#ifdef FISHSCHOOL_HAS_GPU
    if (kind == BackendKind::Gpu) {
        // One context for the whole run, made on first use.
        static auto context = gpu::HeadlessGlContext::create();
        if (!context) return fail(context.error());
    }
    return createBackend(kind, params);
#else
    (void)params;
    if (kind == BackendKind::Cpu) return makeCpuBackend();
    if (kind == BackendKind::Tbb) return makeTbbBackend();
    return fail("gpu: this build has no GL backend");
#endif
}

void stepBenchmark(benchmark::State& state, BackendKind kind, NeighborSearch search) {
    SimParams params = fixedDensityParams(state.range(0));
    params.neighborSearch = search;
    auto backend = makeBackend(kind, params);
    if (!backend) {
        state.SkipWithError(backend.error().c_str());
        return;
    }
    Backend& b = **backend;
    b.setParams(params);
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

void registerAll() {
    struct Case {
        const char* name;
        BackendKind kind;
        NeighborSearch search;
        std::int64_t maxFish;
    };
    const Case cases[] = {
        {"cpu/all-pairs", BackendKind::Cpu, NeighborSearch::AllPairs, 10'000},
        {"tbb/all-pairs", BackendKind::Tbb, NeighborSearch::AllPairs, 20'000},
        {"cpu/grid", BackendKind::Cpu, NeighborSearch::Grid, 1'000'000},
        {"tbb/grid", BackendKind::Tbb, NeighborSearch::Grid, 1'000'000},
#ifdef FISHSCHOOL_HAS_GPU
        {"gpu/all-pairs", BackendKind::Gpu, NeighborSearch::AllPairs, 100'000},
        {"gpu/grid", BackendKind::Gpu, NeighborSearch::Grid, 1'000'000},
#endif
    };
    for (const Case& c : cases) {
        auto* bench = benchmark::RegisterBenchmark(
            c.name, [c](benchmark::State& state) { stepBenchmark(state, c.kind, c.search); });
        for (std::int64_t fish : {1'000, 10'000, 100'000, 1'000'000})
            if (fish <= c.maxFish) bench->Arg(fish);
        bench->Unit(benchmark::kMillisecond)->UseRealTime();
    }
}

}  // namespace
}  // namespace fishschool

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    fishschool::registerAll();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
