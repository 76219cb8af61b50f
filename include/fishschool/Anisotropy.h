#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <vector>

#include "fishschool/Export.h"
#include "fishschool/Fish.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// Ballerini et al. 2008's anisotropy of one frame (docs/model.md "Anisotropy"): for each n from 1
/// to the largest asked, over the fish away from the school's border, M(n) = mean of u u^T with u
/// the unit vector to a fish's n-th nearest neighbour, W(n) the eigenvector of M(n)'s smallest
/// eigenvalue and gamma(n) = (W(n) . V)^2, V the school's mean heading. In two dimensions
/// (params.dimensions 2) all of it in the x-z plane.
struct AnisotropyFrame {
    std::vector<double> gamma;         ///< gamma(n) at index n - 1; NaN where no fish counts
    std::vector<std::size_t> counted;  ///< the fish away from the border for each n
};

/// A fish counts for n when the ball about it out to its n-th neighbour lies within the ball
/// about the school's centre out to its farthest fish: |p_i - c| + d_n(i) <= max_j |p_j - c|.
/// Offsets are plain differences (no periodic images). Every pair is tested: O(N^2 log n).
FISHSCHOOL_API AnisotropyFrame anisotropyOfFrame(std::span<const Fish> school,
                                                 const SimParams& params, std::size_t largestN);

/// gamma(n) over frames: its mean, the standard error of that mean, the isotropic value (1/3 in
/// three dimensions, 1/2 in two) and n_c, the first n whose gamma is within two standard errors
/// of it (0 when none is).
struct Anisotropy {
    std::vector<double> gamma, error;
    std::vector<std::size_t> frames;  ///< the frames with a value of gamma(n)
    double isotropic = 1.0 / 3.0;
    std::size_t nc = 0;
};
FISHSCHOOL_API Anisotropy summariseAnisotropy(std::span<const AnisotropyFrame> frames,
                                              int dimensions);

/// The most neighbours trajectoryAnisotropy takes: each fish sorts its others up to it.
inline constexpr std::size_t kMaxAnisotropyNeighbours = 1000;

/// The anisotropy of frames `first` to `last` (inclusive; last past the end: to the end) of a
/// trajectory, each with the config in force at its frame; missing fish left out.
[[nodiscard]] FISHSCHOOL_API Result<Anisotropy> trajectoryAnisotropy(
    const std::filesystem::path& file, std::size_t largestN, std::size_t first = 0,
    std::size_t last = static_cast<std::size_t>(-1));

}  // namespace fishschool
