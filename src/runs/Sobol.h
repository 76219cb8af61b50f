#pragma once

// Variance-based sensitivity (docs/ensembles.md, "Sensitivity"): the Sobol sequence, Saltelli's
// sampling of N base points into the matrices A, B and A_B^i, and the first-order and total
// indices estimated from a model's values at those points with bootstrap confidence intervals.
// Nothing here runs a school: the estimators take plain numbers, so that a test can give them a
// function whose indices are known (Ishigami's).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "fishschool/Result.h"

namespace fishschool {

/// The most dimensions sobolPoints makes (Joe and Kuo's first direction numbers), so the most
/// parameters a Saltelli design takes is half of it.
inline constexpr std::size_t kMaxSobolDimensions = 32;
inline constexpr std::size_t kMaxSobolParameters = kMaxSobolDimensions / 2;
/// The most base points of a design: the sequence's 2^31 points, far more than anyone runs.
inline constexpr std::int64_t kMaxSobolSamples = std::int64_t(1) << 30;

/// Points first..first+count-1 of the unscrambled Sobol sequence in `dimensions` dimensions (at
/// most kMaxSobolDimensions), each in [0, 1), in Gray-code order with Joe and Kuo's direction
/// numbers (new-joe-kuo-6.21201): the points of scipy.stats.qmc.Sobol(d, scramble=False).
std::vector<std::vector<double>> sobolPoints(std::size_t dimensions, std::int64_t first,
                                             std::int64_t count);

/// A parameter's range in a design.
struct ParameterRange {
    double low = 0.0, high = 1.0;
};

/// Saltelli's design for k = ranges.size() parameters and N = samples base points: the Sobol
/// sequence's points 1 to N in 2k dimensions (point 0, every coordinate 0, left out), the first
/// k coordinates the row of A, the last k the row of B, each scaled to its range. Base point j
/// gives k + 2 points in a row: A_j, then A_B^i_j for i = 1..k (A_j with its i-th value from
/// B_j), then B_j; N (k + 2) points in all.
std::vector<std::vector<double>> saltelliPoints(std::span<const ParameterRange> ranges,
                                                std::int64_t samples);

/// One parameter's indices: a point estimate and its bootstrap confidence interval each.
struct SobolIndex {
    double first = 0.0, firstLow = 0.0, firstHigh = 0.0;
    double total = 0.0, totalLow = 0.0, totalHigh = 0.0;
};

/// How the indices' intervals are found.
struct SobolOptions {
    std::int64_t bootstrap = 1000;  ///< resamples of the base points; 0: no interval
    double confidence = 0.95;       ///< the interval's coverage, in (0, 1)
    std::uint64_t seed = 0;         ///< of the resampling
};

/// The first-order and total indices of each of the k parameters, from a model's values at a
/// saltelliPoints design (`values`: N (k + 2) numbers in its order): S_i by Saltelli et al.
/// (2010), (1/N) sum_j (f(B)_j - m) (f(A_B^i)_j - f(A)_j) / V with m the mean of f(A) and f(B)
/// (which leaves its expectation as it is), and S_Ti by Jansen (1999),
/// (1/2N) sum_j (f(A)_j - f(A_B^i)_j)^2 / V, V the variance of the 2N values of f(A) and f(B).
/// The intervals are the percentiles of the same estimates over `bootstrap` resamples (with
/// replacement) of the N base points. An error says what is wrong: a count that is not N (k + 2),
/// a value that is not finite, no variance.
Result<std::vector<SobolIndex>> sobolIndices(std::span<const double> values, std::size_t parameters,
                                             const SobolOptions& options = {});

}  // namespace fishschool
