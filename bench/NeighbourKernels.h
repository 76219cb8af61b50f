#pragma once

namespace fishschool {

/// Registers the Google Benchmark cases of the CPU step's inner loops (NeighbourKernels.cpp).
void registerKernelBenchmarks();

}  // namespace fishschool
