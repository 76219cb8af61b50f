#include "Sobol.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <string>

#include "RandomStream.h"
#include "core/Messages.h"

namespace fishschool {
namespace {

/// Joe and Kuo's primitive polynomials and initial direction numbers m_1..m_s for the first
/// dimensions (new-joe-kuo-6.21201): the polynomial with its leading and trailing terms as bits
/// (7 is x^2 + x + 1, of degree 2). Dimension 0 is van der Corput's.
struct Direction {
    std::uint32_t polynomial;
    std::array<std::uint32_t, 7> m;
};
constexpr std::array<Direction, kMaxSobolDimensions> kDirections{{
    {1, {1}},
    {3, {1}},
    {7, {1, 3}},
    {11, {1, 3, 1}},
    {13, {1, 1, 1}},
    {19, {1, 1, 3, 3}},
    {25, {1, 3, 5, 13}},
    {37, {1, 1, 5, 5, 17}},
    {41, {1, 1, 5, 5, 5}},
    {47, {1, 1, 7, 11, 19}},
    {55, {1, 1, 5, 1, 1}},
    {59, {1, 1, 1, 3, 11}},
    {61, {1, 3, 5, 5, 31}},
    {67, {1, 3, 3, 9, 7, 49}},
    {91, {1, 1, 1, 15, 21, 21}},
    {97, {1, 3, 1, 13, 27, 49}},
    {103, {1, 1, 1, 15, 7, 5}},
    {109, {1, 3, 1, 15, 13, 25}},
    {115, {1, 1, 5, 5, 19, 61}},
    {131, {1, 3, 7, 11, 23, 15, 103}},
    {137, {1, 3, 7, 13, 13, 15, 69}},
    {143, {1, 1, 3, 13, 7, 35, 63}},
    {145, {1, 3, 5, 9, 1, 25, 53}},
    {157, {1, 3, 1, 13, 9, 35, 107}},
    {167, {1, 3, 1, 5, 27, 61, 31}},
    {171, {1, 1, 5, 11, 19, 41, 61}},
    {185, {1, 3, 5, 3, 3, 13, 69}},
    {191, {1, 1, 7, 13, 1, 19, 1}},
    {193, {1, 3, 7, 5, 13, 19, 59}},
    {203, {1, 1, 3, 9, 25, 29, 41}},
    {211, {1, 3, 5, 13, 23, 1, 55}},
    {213, {1, 3, 7, 3, 13, 59, 17}},
}};

constexpr int kBits = 32;

/// The direction numbers V_1..V_32 of one dimension, as 32-bit fractions.
std::array<std::uint32_t, kBits> directionNumbers(std::size_t dimension) {
    std::array<std::uint32_t, kBits> v{};
    const Direction& d = kDirections[dimension];
    if (dimension == 0) {
        for (int k = 0; k < kBits; ++k) v[std::size_t(k)] = std::uint32_t(1) << (kBits - 1 - k);
        return v;
    }
    const int degree = std::bit_width(d.polynomial) - 1;
    std::array<std::uint32_t, kBits> m{};
    for (int k = 0; k < degree; ++k) m[std::size_t(k)] = d.m[std::size_t(k)];
    // m_k = 2 a_1 m_{k-1} ^ 4 a_2 m_{k-2} ^ ... ^ 2^s m_{k-s} ^ m_{k-s}, a_j the polynomial's
    // inner coefficients.
    for (int k = degree; k < kBits; ++k) {
        std::uint32_t value = m[std::size_t(k - degree)] ^ (m[std::size_t(k - degree)] << degree);
        for (int j = 1; j < degree; ++j)
            if ((d.polynomial >> (degree - j)) & 1u) value ^= m[std::size_t(k - j)] << j;
        m[std::size_t(k)] = value;
    }
    for (int k = 0; k < kBits; ++k) v[std::size_t(k)] = m[std::size_t(k)] << (kBits - 1 - k);
    return v;
}

/// The p-th smallest of `sorted` by linear interpolation (NumPy's default percentile).
double percentile(const std::vector<double>& sorted, double p) {
    const double at = p * double(sorted.size() - 1);
    const auto below = std::size_t(std::floor(at));
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (at - double(below)) * (sorted[above] - sorted[below]);
}

struct Estimate {
    std::vector<double> first, total;
};

/// The indices from the base points `rows` (each j of 0..N-1, repeated as a resample draws them).
Estimate estimate(std::span<const double> values, std::size_t k,
                  std::span<const std::size_t> rows) {
    const std::size_t stride = k + 2;
    const auto f = [&](std::size_t j, std::size_t column) { return values[j * stride + column]; };
    double mean = 0.0;
    for (const std::size_t j : rows) mean += f(j, 0) + f(j, k + 1);
    mean /= double(2 * rows.size());
    double variance = 0.0;
    for (const std::size_t j : rows)
        variance +=
            (f(j, 0) - mean) * (f(j, 0) - mean) + (f(j, k + 1) - mean) * (f(j, k + 1) - mean);
    variance /= double(2 * rows.size());
    Estimate e{std::vector<double>(k, 0.0), std::vector<double>(k, 0.0)};
    for (std::size_t i = 0; i < k; ++i) {
        double first = 0.0, total = 0.0;
        for (const std::size_t j : rows) {
            const double a = f(j, 0), ab = f(j, 1 + i), b = f(j, k + 1);
            // f(B) less the mean: the same expectation (f(A_B^i) and f(A) share theirs), a
            // far smaller variance where the values lie far from 0.
            first += (b - mean) * (ab - a);
            total += (a - ab) * (a - ab);
        }
        const double n = double(rows.size());
        // No variance in a resample (every draw one point): no information, indices 0.
        e.first[i] = variance > 0.0 ? first / n / variance : 0.0;
        e.total[i] = variance > 0.0 ? total / (2.0 * n) / variance : 0.0;
    }
    return e;
}

}  // namespace

std::vector<std::vector<double>> sobolPoints(std::size_t dimensions, std::int64_t first,
                                             std::int64_t count) {
    dimensions = std::min(dimensions, kMaxSobolDimensions);
    std::vector<std::array<std::uint32_t, kBits>> v(dimensions);
    for (std::size_t d = 0; d < dimensions; ++d) v[d] = directionNumbers(d);
    std::vector<std::vector<double>> points;
    points.reserve(std::size_t(std::max<std::int64_t>(count, 0)));
    // Point i in Gray-code order: the XOR of the direction numbers of the bits of i ^ (i >> 1).
    const auto pointAt = [&](std::uint64_t i, std::vector<std::uint32_t>& x) {
        const std::uint64_t gray = i ^ (i >> 1);
        for (std::size_t d = 0; d < dimensions; ++d) {
            std::uint32_t value = 0;
            for (int b = 0; b < kBits; ++b)
                if ((gray >> b) & 1u) value ^= v[d][std::size_t(b)];
            x[d] = value;
        }
    };
    std::vector<std::uint32_t> x(dimensions);
    for (std::int64_t n = 0; n < count; ++n) {
        const auto i = std::uint64_t(first + n);
        if (n == 0) {
            pointAt(i, x);
        } else {
            // From point i - 1: one direction number, that of the lowest zero bit of i - 1.
            const int c = std::countr_one(i - 1);
            for (std::size_t d = 0; d < dimensions; ++d) x[d] ^= v[d][std::size_t(c)];
        }
        std::vector<double> point(dimensions);
        for (std::size_t d = 0; d < dimensions; ++d) point[d] = double(x[d]) * 0x1.0p-32;
        points.push_back(std::move(point));
    }
    return points;
}

std::vector<std::vector<double>> saltelliPoints(std::span<const ParameterRange> ranges,
                                                std::int64_t samples) {
    const std::size_t k = ranges.size();
    const auto base = sobolPoints(2 * k, 1, samples);
    std::vector<std::vector<double>> points;
    points.reserve(base.size() * (k + 2));
    const auto scaled = [&](std::size_t i, double u) {
        return ranges[i].low + u * (ranges[i].high - ranges[i].low);
    };
    for (const std::vector<double>& u : base) {
        std::vector<double> a(k), b(k);
        for (std::size_t i = 0; i < k; ++i) {
            a[i] = scaled(i, u[i]);
            b[i] = scaled(i, u[k + i]);
        }
        points.push_back(a);
        for (std::size_t i = 0; i < k; ++i) {
            std::vector<double> ab = a;
            ab[i] = b[i];
            points.push_back(std::move(ab));
        }
        points.push_back(std::move(b));
    }
    return points;
}

Result<std::vector<SobolIndex>> sobolIndices(std::span<const double> values, std::size_t k,
                                             const SobolOptions& options) {
    if (k == 0) return fail("a Sobol design needs at least one parameter");
    if (values.empty() || values.size() % (k + 2) != 0)
        return fail(std::to_string(values.size()) + " values for " + std::to_string(k) +
                    " parameters; a Saltelli design of N base points gives N (k + 2) = N x " +
                    std::to_string(k + 2));
    for (std::size_t n = 0; n < values.size(); ++n)
        if (!std::isfinite(values[n]))
            return fail("value " + std::to_string(n) + " is " + formatNumber(values[n]) +
                        "; every value must be finite");
    if (!(options.confidence > 0.0 && options.confidence < 1.0))
        return fail("a confidence of " + formatNumber(options.confidence) +
                    " is not allowed; must be between 0 and 1");
    const std::size_t n = values.size() / (k + 2);
    std::vector<std::size_t> rows(n);
    for (std::size_t j = 0; j < n; ++j) rows[j] = j;
    const Estimate point = estimate(values, k, rows);
    {
        double low = values[0], high = values[0];
        for (std::size_t j = 0; j < n; ++j)
            for (const std::size_t c : {std::size_t(0), k + 1}) {
                low = std::min(low, values[j * (k + 2) + c]);
                high = std::max(high, values[j * (k + 2) + c]);
            }
        if (low == high)
            return fail("every value of A and B is " + formatNumber(low) +
                        ": no variance to share among the parameters");
    }
    std::vector<SobolIndex> out(k);
    for (std::size_t i = 0; i < k; ++i) {
        out[i] = {point.first[i], point.first[i], point.first[i],
                  point.total[i], point.total[i], point.total[i]};
    }
    if (options.bootstrap <= 0) return out;
    std::vector<std::vector<double>> firsts(k), totals(k);
    for (std::int64_t r = 0; r < options.bootstrap; ++r) {
        RandomStream random(options.seed, {std::uint64_t(r)});
        for (std::size_t j = 0; j < n; ++j)
            rows[j] = std::min(n - 1, std::size_t(random.uniform() * double(n)));
        const Estimate e = estimate(values, k, rows);
        for (std::size_t i = 0; i < k; ++i) {
            firsts[i].push_back(e.first[i]);
            totals[i].push_back(e.total[i]);
        }
    }
    const double tail = (1.0 - options.confidence) / 2.0;
    for (std::size_t i = 0; i < k; ++i) {
        std::sort(firsts[i].begin(), firsts[i].end());
        std::sort(totals[i].begin(), totals[i].end());
        out[i].firstLow = percentile(firsts[i], tail);
        out[i].firstHigh = percentile(firsts[i], 1.0 - tail);
        out[i].totalLow = percentile(totals[i], tail);
        out[i].totalHigh = percentile(totals[i], 1.0 - tail);
    }
    return out;
}

}  // namespace fishschool
