// The CPU step's two inner loops alone, on a fixed set of candidates, so that a change to one of
// them can be timed apart from the sort, the rule and this machine's noise in a whole step:
// avx512::sumsOfEach (a group's fish summing its packed candidates) and avx512::pack (the
// candidates of a cell's 27 cells packed for a group's box). Skipped on a processor without
// AVX-512, where the eight-lane code inside CpuSolver runs instead.
//
//   build/bin/fishschool_bench --benchmark_filter='kernel/' --benchmark_repetitions=10

#include "NeighbourKernels.h"

#include <benchmark/benchmark.h>

#include <array>
#include <random>
#include <vector>

#include "core/NeighbourSumsAvx512.h"

namespace fishschool {
namespace {

/// Positions uniform in a cube of side `side` metres around 0, velocities in [-5, 5) m/s, padded
/// as CpuSolver's runs are (a block of eight past the end).
struct CandidateColumns {
    std::array<std::vector<float>, 6> columns;
    std::size_t count = 0;

    CandidateColumns(std::size_t n, float side) : count(n) {
        std::mt19937 random(1);
        std::uniform_real_distribution<float> position(-side / 2, side / 2), velocity(-5, 5);
        for (auto& column : columns) column.assign(n + 8, 0.0f);
        for (std::size_t i = 0; i < n; ++i) {
            for (int k = 0; k < 3; ++k) columns[k][i] = position(random);
            for (int k = 3; k < 6; ++k) columns[k][i] = velocity(random);
        }
    }
};

/// One group of `fish` fish (the first slots) summing `candidates` candidates within radii of
/// the article's config (10, 2.5 and 6 m), in a cube as dense as a packed run at its density.
void sums(benchmark::State& state) {
    if (!avx512::available()) {
        state.SkipWithError("this processor has no AVX-512");
        return;
    }
    const auto count = static_cast<std::size_t>(state.range(0));
    const auto fish = static_cast<std::size_t>(state.range(1));
    const CandidateColumns c(count, 27.0f);
    avx512::Candidates candidates;
    candidates.px = c.columns[0].data();
    candidates.py = c.columns[1].data();
    candidates.pz = c.columns[2].data();
    candidates.vx = c.columns[3].data();
    candidates.vy = c.columns[4].data();
    candidates.vz = c.columns[5].data();
    candidates.count = count;
    const avx512::Radii radii{100.0f, 6.25f, 36.0f};
    std::vector<avx512::Seeker> seekers(fish);
    for (std::size_t i = 0; i < fish; ++i)
        seekers[i] = {c.columns[0][i], c.columns[1][i], c.columns[2][i], i};
    std::vector<avx512::Sums> found(fish);
    float sink = 0.0f;
    for (auto _ : state) {
        avx512::sumsOfEach(candidates, radii, seekers.data(), fish, found.data());
        sink += found[0].cohesion[0];
    }
    benchmark::DoNotOptimize(sink);
    state.counters["ns_per_candidate_test"] = benchmark::Counter(
        static_cast<double>(count * fish),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

/// `count` candidates in a cube of three cells of 10 m a side packed for the box of the middle
/// cell, within 10 m: about three quarters are kept, as at the article's density.
void pack(benchmark::State& state) {
    if (!avx512::available()) {
        state.SkipWithError("this processor has no AVX-512");
        return;
    }
    const auto count = static_cast<std::size_t>(state.range(0));
    const CandidateColumns c(count, 30.0f);
    CandidateColumns to(count, 0.0f);
    avx512::PackedRange range;
    for (int k = 0; k < 6; ++k) {
        range.from[k] = c.columns[k].data();
        range.to[k] = to.columns[k].data();
    }
    range.first = 0;
    range.last = count;
    for (int axis = 0; axis < 3; ++axis) {
        range.low[axis] = -5.0f;
        range.high[axis] = 5.0f;
    }
    range.reach2 = 100.0f;
    range.mark = 0;
    std::size_t kept = 0, markAt = 0;
    for (auto _ : state) kept = avx512::pack(range, markAt);
    benchmark::DoNotOptimize(markAt);
    state.counters["kept"] = static_cast<double>(kept);
    state.counters["ns_per_candidate"] = benchmark::Counter(
        static_cast<double>(count),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace

void registerKernelBenchmarks() {
    // Sums: a cell's group at the article's density (its 270 candidates packed to about 205),
    // and a half-cell's group in the default school. Packing: a cell's 27 cells at the article's
    // density, and as many candidates as the default school's 27 cells hold.
    benchmark::RegisterBenchmark("kernel/sums", sums)
        ->Args({205, 10})
        ->Args({760, 9})
        ->ArgNames({"candidates", "fish"});
    benchmark::RegisterBenchmark("kernel/pack", pack)->Arg(270)->Arg(1944)->ArgName("candidates");
}

}  // namespace fishschool
