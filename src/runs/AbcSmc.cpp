#include "AbcSmc.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <optional>

#include "RandomStream.h"
#include "core/Messages.h"

namespace fishschool {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Draws of a proposal before the kernel is said to leave the prior.
constexpr int kMaxDraws = 100000;

/// A value in the space the kernel moves it in: its log for a log-uniform prior.
double toKernel(const Prior& p, double x) {
    return p.logUniform ? std::log(x) : x;
}
double fromKernel(const Prior& p, double u) {
    return p.logUniform ? std::exp(u) : u;
}
double kernelLow(const Prior& p) {
    return toKernel(p, p.low);
}
double kernelHigh(const Prior& p) {
    return toKernel(p, p.high);
}

/// The Gaussian kernel of a population: twice its weighted covariance, by its Cholesky factor.
struct Kernel {
    std::size_t k = 0;
    std::vector<double> lower;    ///< L, row-major k x k, L L^T = 2 Sigma
    std::vector<double> inverse;  ///< (2 Sigma)^-1, row-major
};

Kernel kernelOf(const std::vector<Prior>& priors, const AbcPopulation& population) {
    const std::size_t k = priors.size();
    std::vector<double> mean(k, 0.0), sigma(k * k, 0.0);
    for (const AbcParticle& p : population.particles)
        for (std::size_t a = 0; a < k; ++a) mean[a] += p.weight * toKernel(priors[a], p.values[a]);
    for (const AbcParticle& p : population.particles)
        for (std::size_t a = 0; a < k; ++a)
            for (std::size_t b = 0; b < k; ++b)
                sigma[a * k + b] += p.weight * (toKernel(priors[a], p.values[a]) - mean[a]) *
                                    (toKernel(priors[b], p.values[b]) - mean[b]);
    Kernel kernel{k, std::vector<double>(k * k, 0.0), std::vector<double>(k * k, 0.0)};
    // Twice the covariance, each variance at least a millionth of its range squared: a
    // population that has collapsed onto one value still moves.
    std::vector<double> c(k * k);
    for (std::size_t a = 0; a < k; ++a)
        for (std::size_t b = 0; b < k; ++b) c[a * k + b] = 2.0 * sigma[a * k + b];
    for (std::size_t a = 0; a < k; ++a) {
        const double range = kernelHigh(priors[a]) - kernelLow(priors[a]);
        c[a * k + a] = std::max(c[a * k + a], 1e-12 * range * range);
    }
    // Cholesky; where rounding makes the matrix not positive definite, its diagonal alone.
    bool ok = true;
    std::vector<double>& L = kernel.lower;
    for (std::size_t i = 0; i < k && ok; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            double sum = c[i * k + j];
            for (std::size_t m = 0; m < j; ++m) sum -= L[i * k + m] * L[j * k + m];
            if (i == j) {
                if (!(sum > 0.0)) {
                    ok = false;
                    break;
                }
                L[i * k + i] = std::sqrt(sum);
            } else {
                L[i * k + j] = sum / L[j * k + j];
            }
        }
    if (!ok) {
        std::fill(L.begin(), L.end(), 0.0);
        for (std::size_t a = 0; a < k; ++a) {
            L[a * k + a] = std::sqrt(c[a * k + a]);
            for (std::size_t b = 0; b < k; ++b)
                if (a != b) c[a * k + b] = 0.0;
        }
    }
    // The inverse from L: solve L Y = I, then L^T X = Y.
    std::vector<double> y(k * k, 0.0);
    for (std::size_t col = 0; col < k; ++col)
        for (std::size_t i = 0; i < k; ++i) {
            double sum = i == col ? 1.0 : 0.0;
            for (std::size_t m = 0; m < i; ++m) sum -= L[i * k + m] * y[m * k + col];
            y[i * k + col] = sum / L[i * k + i];
        }
    for (std::size_t col = 0; col < k; ++col)
        for (std::size_t i = k; i-- > 0;) {
            double sum = y[i * k + col];
            for (std::size_t m = i + 1; m < k; ++m)
                sum -= L[m * k + i] * kernel.inverse[m * k + col];
            kernel.inverse[i * k + col] = sum / L[i * k + i];
        }
    return kernel;
}

/// exp(-1/2 d^T (2 Sigma)^-1 d), d = u - v: the kernel's density up to its constant, which the
/// weights' normalisation cancels.
double kernelDensity(const Kernel& kernel, const std::vector<double>& u,
                     const std::vector<double>& v) {
    const std::size_t k = kernel.k;
    double q = 0.0;
    for (std::size_t a = 0; a < k; ++a)
        for (std::size_t b = 0; b < k; ++b)
            q += (u[a] - v[a]) * kernel.inverse[a * k + b] * (u[b] - v[b]);
    return std::exp(-0.5 * q);
}

bool insidePrior(const std::vector<Prior>& priors, const std::vector<double>& u) {
    for (std::size_t a = 0; a < priors.size(); ++a)
        if (!(u[a] >= kernelLow(priors[a]) && u[a] <= kernelHigh(priors[a]))) return false;
    return true;
}

std::vector<double> inKernelSpace(const std::vector<Prior>& priors, const std::vector<double>& x) {
    std::vector<double> u(x.size());
    for (std::size_t a = 0; a < x.size(); ++a) u[a] = toKernel(priors[a], x[a]);
    return u;
}

/// A value that reads back from a file as it was: the population kept in memory is the one a
/// resumed fit reads, bit for bit.
double roundTripped(double value) {
    return std::strtod(exactNumber(value).c_str(), nullptr);
}

/// Proposal `index` of population `t`: from the prior (t = 0), else a particle of `previous` by
/// weight, moved by the kernel, until it lies within the prior.
Result<AbcProposal> propose(const AbcSettings& s, std::int64_t t, std::int64_t index,
                            const AbcPopulation* previous, const Kernel* kernel,
                            const std::vector<double>& cumulative) {
    RandomStream random(s.seed, {std::uint64_t(t), std::uint64_t(index)});
    const std::size_t k = s.priors.size();
    AbcProposal proposal{index, std::vector<double>(k), random.next()};
    std::vector<double> u(k);
    if (!previous) {
        for (std::size_t a = 0; a < k; ++a) {
            const Prior& p = s.priors[a];
            u[a] = kernelLow(p) + random.uniform() * (kernelHigh(p) - kernelLow(p));
        }
    } else {
        bool inside = false;
        for (int draw = 0; draw < kMaxDraws && !inside; ++draw) {
            const double pick = random.uniform() * cumulative.back();
            const auto at = std::size_t(
                std::upper_bound(cumulative.begin(), cumulative.end(), pick) - cumulative.begin());
            const AbcParticle& from =
                previous->particles[std::min(at, previous->particles.size() - 1)];
            std::vector<double> z(k);
            for (double& value : z) value = random.normal();
            const std::vector<double> base = inKernelSpace(s.priors, from.values);
            for (std::size_t a = 0; a < k; ++a) {
                u[a] = base[a];
                for (std::size_t b = 0; b <= a; ++b) u[a] += kernel->lower[a * k + b] * z[b];
            }
            inside = insidePrior(s.priors, u);
        }
        if (!inside)
            return fail("population " + std::to_string(t) + ", proposal " + std::to_string(index) +
                        ": the kernel left the prior " + std::to_string(kMaxDraws) +
                        " times in a row");
    }
    for (std::size_t a = 0; a < k; ++a) {
        // Clamped: exp(log(x)) may round just past an end of the range.
        const Prior& p = s.priors[a];
        proposal.values[a] = std::clamp(fromKernel(p, u[a]), p.low, p.high);
    }
    return proposal;
}

double distanceOf(const AbcSettings& s, const std::vector<double>& scales,
                  const std::vector<double>& stats) {
    double sum = 0.0;
    for (std::size_t c = 0; c < stats.size(); ++c) {
        const double d = (stats[c] - s.statistics[c].target) / scales[c];
        sum += d * d;
    }
    return std::isfinite(sum) ? std::sqrt(sum) : kInfinity;
}

/// The median absolute deviation of each scaled statistic over `simulated` (its finite values),
/// else 1; its mean absolute deviation where half its values are one number, 1 where all are.
std::vector<double> scalesOf(const AbcSettings& s,
                             const std::vector<std::vector<double>>& simulated) {
    std::vector<double> scales(s.statistics.size(), 1.0);
    const auto median = [](std::vector<double> x) {
        std::sort(x.begin(), x.end());
        const std::size_t n = x.size();
        return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
    };
    for (std::size_t c = 0; c < scales.size(); ++c) {
        if (!s.statistics[c].scaled) continue;
        std::vector<double> v;
        for (const std::vector<double>& stats : simulated)
            if (c < stats.size() && std::isfinite(stats[c])) v.push_back(stats[c]);
        if (v.empty()) continue;
        const double m = median(v);
        std::vector<double> deviations;
        double meanDeviation = 0.0;
        for (double x : v) {
            deviations.push_back(std::abs(x - m));
            meanDeviation += std::abs(x - m);
        }
        meanDeviation /= double(v.size());
        const double mad = median(deviations);
        scales[c] = mad > 0.0 ? mad : meanDeviation > 0.0 ? meanDeviation : 1.0;
    }
    return scales;
}

/// A population made, or why none was: the budget spent, or a request to stop.
struct Made {
    std::optional<AbcPopulation> population;
    AbcStop stop = AbcStop::Budget;
};

/// Population t from `previous` (none for t = 0), `spent` simulations having run before it.
Result<Made> makePopulation(const AbcSettings& s, std::int64_t t, const AbcPopulation* previous,
                            std::int64_t spent, const AbcCallbacks& callbacks) {
    const auto n = std::size_t(s.particles);
    // The scales, and the tolerance as the quantile of the last population's distances in them.
    std::vector<double> scales =
        previous ? scalesOf(s, previous->simulated) : std::vector<double>(s.statistics.size(), 1.0);
    double epsilon = kInfinity;
    Kernel kernel;
    std::vector<double> cumulative;
    if (previous) {
        std::vector<double> distances, weights;
        double sum = 0.0;
        for (const AbcParticle& p : previous->particles) {
            distances.push_back(distanceOf(s, scales, p.stats));
            weights.push_back(p.weight);
            cumulative.push_back(sum += p.weight);
        }
        epsilon = weightedQuantile(distances, weights, s.quantile);
        kernel = kernelOf(s.priors, *previous);
    }
    // Batches until N are accepted, each as large as the acceptance so far says it needs (the
    // last population's, or the quantile for the first after the prior). Which proposals are
    // accepted does not depend on the batches: the first N within the tolerance, in index order.
    std::int64_t next = 0;
    double rate = t == 0 ? 1.0 : t == 1 ? s.quantile : std::max(previous->acceptance(), 1e-3);
    std::vector<std::vector<double>> simulated;  // every proposal's, in index order
    std::vector<AbcParticle> accepted;
    while (accepted.size() < n) {
        const std::int64_t left = s.budget - spent - next;
        if (left <= 0) return Made{std::nullopt, AbcStop::Budget};
        const auto needed = std::int64_t(n - accepted.size());
        const auto wanted = std::int64_t(std::ceil(double(needed) / rate));
        const std::int64_t batch = std::min({std::max(wanted, needed), 100 * s.particles, left});
        std::vector<AbcProposal> proposals;
        for (std::int64_t i = next; i < next + batch; ++i) {
            auto p = propose(s, t, i, previous, previous ? &kernel : nullptr, cumulative);
            if (!p) return fail(p.error());
            proposals.push_back(std::move(*p));
        }
        auto stats = callbacks.simulate(t, proposals);
        if (!stats) return fail(stats.error());
        if (!*stats) return Made{std::nullopt, AbcStop::Requested};
        for (std::size_t i = 0; i < proposals.size() && accepted.size() < n; ++i) {
            const std::vector<double>& st = (**stats)[i];
            simulated.push_back(st);
            // Population 0 takes every run that did not fail.
            const bool within =
                t == 0 ? std::ranges::none_of(st, [](double v) { return std::isnan(v); })
                       : distanceOf(s, scales, st) <= epsilon;
            if (!within) continue;
            AbcParticle particle;
            particle.index = proposals[i].index;
            particle.values = proposals[i].values;
            particle.stats = st;
            accepted.push_back(std::move(particle));
        }
        next += batch;
        rate = accepted.empty() ? rate / 4.0 : double(accepted.size()) / double(next);
    }
    AbcPopulation population;
    population.number = t;
    population.epsilon = epsilon;
    population.simulations = next;
    population.simulated = std::move(simulated);
    // Population 0's distances in its own scales, as population 1 will measure them.
    population.scales = previous ? scales : scalesOf(s, population.simulated);
    population.particles = std::move(accepted);
    for (AbcParticle& p : population.particles)
        p.distance = distanceOf(s, population.scales, p.stats);
    // Importance weights: the prior (flat in the kernel's space) over the mixture the proposals
    // came from, sum_j w_j K(theta | theta_j); equal in population 0.
    double total = 0.0;
    for (AbcParticle& p : population.particles) {
        if (!previous) {
            p.weight = 1.0;
        } else {
            const std::vector<double> u = inKernelSpace(s.priors, p.values);
            double mixture = 0.0;
            for (const AbcParticle& q : previous->particles)
                mixture += q.weight * kernelDensity(kernel, u, inKernelSpace(s.priors, q.values));
            p.weight = mixture > 0.0 ? 1.0 / mixture : 0.0;
        }
        total += p.weight;
    }
    if (!(total > 0.0) || !std::isfinite(total))
        return fail("population " + std::to_string(t) + ": the importance weights sum to " +
                    formatNumber(total));
    // As a file holds them: a resumed fit goes on from the same bits.
    for (AbcParticle& p : population.particles) {
        p.weight = roundTripped(p.weight / total);
        p.distance = roundTripped(p.distance);
    }
    population.epsilon = roundTripped(population.epsilon);
    for (double& scale : population.scales) scale = roundTripped(scale);
    return Made{std::move(population), AbcStop::Populations};
}

}  // namespace

std::string exactNumber(double value) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

double AbcPopulation::acceptance() const {
    return simulations > 0 ? double(particles.size()) / double(simulations) : 0.0;
}

double AbcPopulation::effectiveSize() const {
    double sum = 0.0;
    for (const AbcParticle& p : particles) sum += p.weight * p.weight;
    return sum > 0.0 ? 1.0 / sum : 0.0;
}

const char* describeStop(AbcStop stop) {
    switch (stop) {
        case AbcStop::Populations:
            return "the last population was made";
        case AbcStop::Acceptance:
            return "the acceptance fell below min_acceptance";
        case AbcStop::Budget:
            return "the budget of simulations is spent";
        case AbcStop::Requested:
            return "asked to stop";
    }
    return "";
}

double weightedQuantile(std::vector<double> values, std::vector<double> weights, double q) {
    std::vector<std::size_t> order(values.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return values[a] < values[b] || (values[a] == values[b] && a < b);
    });
    double total = 0.0;
    for (double w : weights) total += w;
    double reached = 0.0;
    for (const std::size_t i : order) {
        reached += weights[i];
        if (reached >= q * total) return values[i];
    }
    return order.empty() ? kInfinity : values[order.back()];
}

Result<void> checkAbcSettings(const AbcSettings& s) {
    if (s.priors.empty()) return fail("parameters: none given; fit at least one");
    for (const Prior& p : s.priors) {
        if (!std::isfinite(p.low) || !std::isfinite(p.high) || !(p.low < p.high))
            return fail("parameters." + p.key + ": from " + formatNumber(p.low) + " to " +
                        formatNumber(p.high) +
                        " is not allowed; a prior's range must be finite, its low end below "
                        "its high end");
        if (p.logUniform && !(p.low > 0.0))
            return fail("parameters." + p.key + ": a log-uniform prior from " +
                        formatNumber(p.low) + " is not allowed; its low end must be > 0");
    }
    if (s.statistics.empty()) return fail("statistics: none given; compare at least one");
    if (s.particles < 2) return fail("particles: must be at least 2");
    if (!(s.quantile > 0.0 && s.quantile < 1.0))
        return fail("quantile: " + formatNumber(s.quantile) + " is not allowed; must be in (0, 1)");
    if (s.budget < s.particles)
        return fail("budget: " + std::to_string(s.budget) +
                    " simulations is not allowed; must be at least the particles (" +
                    std::to_string(s.particles) + "), which population 0 runs");
    if (s.maxPopulations < 1) return fail("populations: must be at least 1");
    if (!(s.minAcceptance >= 0.0 && s.minAcceptance <= 1.0))
        return fail("min_acceptance: must be from 0 to 1");
    return {};
}

Result<AbcOutcome> runAbcSmc(const AbcSettings& s, const AbcCallbacks& callbacks) {
    if (auto ok = checkAbcSettings(s); !ok) return fail(ok.error());
    AbcOutcome out;
    out.scales.assign(s.statistics.size(), 1.0);
    for (std::int64_t t = 0; t < s.maxPopulations; ++t) {
        const AbcPopulation* previous = t > 0 ? &out.populations.back() : nullptr;
        std::optional<AbcPopulation> population;
        if (callbacks.load) {
            auto loaded = callbacks.load(t);
            if (!loaded) return fail(loaded.error());
            population = std::move(*loaded);
        }
        if (!population) {
            auto made = makePopulation(s, t, previous, out.simulations, callbacks);
            if (!made) return fail(made.error());
            if (!made->population) {
                out.stop = made->stop;
                return out;
            }
            population = std::move(made->population);
            if (callbacks.save)
                if (auto ok = callbacks.save(*population); !ok) return fail(ok.error());
        }
        out.simulations += population->simulations;
        out.scales = population->scales;
        out.populations.push_back(std::move(*population));
        if (t > 0 && out.populations.back().acceptance() < s.minAcceptance) {
            out.stop = AbcStop::Acceptance;
            return out;
        }
    }
    out.stop = AbcStop::Populations;
    return out;
}

}  // namespace fishschool
