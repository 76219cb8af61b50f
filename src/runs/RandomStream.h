#pragma once

// The random numbers of a fit and of the bootstrap: SplitMix64 streams, each started from a seed
// and the indices that name it, so that a number follows from what it is for and not from the
// thread or the order that asks for it (the same seed, the same bytes, whatever --jobs says). The
// standard library's distributions are left alone: their algorithms differ between libraries.

#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace fishschool {

class RandomStream {
  public:
    /// The stream of `seed` and the indices `names` (a population, a particle, ...).
    RandomStream(std::uint64_t seed, std::initializer_list<std::uint64_t> names) : state_(seed) {
        for (const std::uint64_t name : names) state_ = mix(state_ ^ mix(name + kGolden));
    }

    std::uint64_t next() {
        state_ += kGolden;
        return mix(state_);
    }
    /// Uniform in [0, 1), 53 bits.
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    /// Standard normal, by Box and Muller (one of the pair kept).
    double normal() {
        const double u = 1.0 - uniform();  // (0, 1]: its log is finite
        const double v = uniform();
        return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
    }

  private:
    static constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;
    static std::uint64_t mix(std::uint64_t z) {
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    std::uint64_t state_;
};

}  // namespace fishschool
