// docs/data.md "Anisotropy": Ballerini et al. 2008's gamma(n) on schools whose answer is known.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <glm/geometric.hpp>

#include "fishschool/Anisotropy.h"

namespace fishschool {
namespace {

/// A lattice of fish heading +x, `along` apart on x and `across` apart on y and z, each moved by
/// up to 2 % of `across` at random (so that which of several equal neighbours is nearest varies).
School lattice(float along, float across, int side) {
    std::mt19937 random(11);
    std::uniform_real_distribution<float> jitter(-0.02f * across, 0.02f * across);
    School school;
    for (int i = 0; i < side; ++i)
        for (int j = 0; j < side; ++j)
            for (int k = 0; k < side; ++k)
                school.push_back({{along * static_cast<float>(i) + jitter(random),
                                   across * static_cast<float>(j) + jitter(random),
                                   across * static_cast<float>(k) + jitter(random)},
                                  {1, 0, 0},
                                  {}});
    return school;
}

TEST(Anisotropy, NeighboursBesideAFishGiveOneAndAheadGiveZero) {
    const SimParams p;
    // Nearest neighbours beside (y, z): the direction with fewest is the heading.
    const AnisotropyFrame beside = anisotropyOfFrame(lattice(3.0f, 1.0f, 9), p, 4);
    ASSERT_GT(beside.counted[0], 0u);
    EXPECT_NEAR(beside.gamma[0], 1.0, 1e-3);
    // Nearest neighbours ahead and behind: the heading is where they are, gamma 0.
    const AnisotropyFrame ahead = anisotropyOfFrame(lattice(1.0f, 3.0f, 9), p, 2);
    EXPECT_NEAR(ahead.gamma[0], 0.0, 1e-3);
    // Fish at the border are left out: fewer than all 729 count.
    EXPECT_LT(beside.counted[0], 729u);
}

TEST(Anisotropy, PointsAtRandomAreIsotropic) {
    SimParams p;
    std::mt19937 random(7);
    std::uniform_real_distribution<float> coordinate(-10.0f, 10.0f);
    std::vector<AnisotropyFrame> frames;
    for (int frame = 0; frame < 60; ++frame) {
        School school;
        while (school.size() < 400) {
            const glm::vec3 x(coordinate(random), coordinate(random), coordinate(random));
            if (glm::dot(x, x) <= 100.0f) school.push_back({x, {1, 0, 0}, {}});
        }
        frames.push_back(anisotropyOfFrame(school, p, 6));
    }
    const Anisotropy a = summariseAnisotropy(frames, 3);
    EXPECT_DOUBLE_EQ(a.isotropic, 1.0 / 3.0);
    for (std::size_t n = 0; n < 6; ++n) {
        EXPECT_EQ(a.frames[n], 60u);
        EXPECT_NEAR(a.gamma[n], 1.0 / 3.0, 4.0 * a.error[n]) << "n = " << n + 1;
        EXPECT_LT(a.error[n], 0.06);
    }
    EXPECT_EQ(a.nc, 1u);
}

TEST(Anisotropy, InTwoDimensionsTheIsotropicValueIsOneHalf) {
    SimParams p;
    p.dimensions = 2;
    std::mt19937 random(3);
    std::uniform_real_distribution<float> coordinate(-10.0f, 10.0f);
    std::vector<AnisotropyFrame> frames;
    for (int frame = 0; frame < 60; ++frame) {
        School school;
        while (school.size() < 300) {
            const glm::vec3 x(coordinate(random), 0.0f, coordinate(random));
            if (x.x * x.x + x.z * x.z <= 100.0f) school.push_back({x, {0, 0, 1}, {}});
        }
        frames.push_back(anisotropyOfFrame(school, p, 3));
    }
    const Anisotropy a = summariseAnisotropy(frames, 2);
    EXPECT_DOUBLE_EQ(a.isotropic, 0.5);
    for (std::size_t n = 0; n < 3; ++n) EXPECT_NEAR(a.gamma[n], 0.5, 4.0 * a.error[n]);
}

TEST(Anisotropy, TooFewFishOrNoHeadingGiveNoValue) {
    const SimParams p;
    const School two{{{0, 0, 0}, {1, 0, 0}, {}}, {{1, 0, 0}, {1, 0, 0}, {}}};
    const AnisotropyFrame f = anisotropyOfFrame(two, p, 3);
    ASSERT_EQ(f.gamma.size(), 3u);
    EXPECT_TRUE(std::isnan(f.gamma[2]));  // there is no third neighbour
    const School still{{{0, 0, 0}, {}, {}}, {{1, 0, 0}, {}, {}}, {{0, 1, 0}, {}, {}}};
    EXPECT_TRUE(std::isnan(anisotropyOfFrame(still, p, 1).gamma[0]));
    const Anisotropy none = summariseAnisotropy({}, 3);
    EXPECT_TRUE(none.gamma.empty());
    EXPECT_EQ(none.nc, 0u);
}

}  // namespace
}  // namespace fishschool
