// The AVX-512 sums of a group's fish two a pass (avx512::sumsOfEach) against each fish alone (in
// the low lanes), which the WideLanes tests hold to the eight-lane code's bits; and the AVX-512
// packing (avx512::pack) against the rule CpuSolver::packCandidates states, NaN and infinities
// included.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/NeighbourSumsAvx512.h"

namespace fishschool {
namespace {

/// A packed run of `count` candidates in a cube of 20 m (padded by a block, as the step's), with
/// images where `withImages` (shifts of 2 m, which keep most within the radii); its first `fish`
/// slots are the group.
struct PackedRun {
    std::array<std::vector<float>, 9> columns;
    avx512::Candidates candidates;

    PackedRun(std::size_t count, bool withImages) {
        std::mt19937 random(7);
        std::uniform_real_distribution<float> position(-10.0f, 10.0f), velocity(-5.0f, 5.0f);
        std::uniform_int_distribution<int> image(-1, 1);
        for (auto& column : columns) column.assign(count + 8, 0.0f);
        for (std::size_t i = 0; i < count; ++i) {
            for (int k = 0; k < 3; ++k) columns[k][i] = position(random);
            for (int k = 3; k < 6; ++k) columns[k][i] = velocity(random);
            for (int k = 6; k < 9; ++k) columns[k][i] = 2.0f * static_cast<float>(image(random));
        }
        candidates = {columns[0].data(), columns[1].data(), columns[2].data(),
                      columns[3].data(), columns[4].data(), columns[5].data()};
        if (withImages) {
            candidates.imageX = columns[6].data();
            candidates.imageY = columns[7].data();
            candidates.imageZ = columns[8].data();
        }
        candidates.count = count;
    }
};

bool sameBits(const avx512::Sums& a, const avx512::Sums& b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

class NeighbourSums : public ::testing::TestWithParam<bool> {};

// Every group size to two blocks and more (odd sizes end with one fish a pass), each fish in its
// own slot or, as a group's first fish can be, past the candidates' first block.
TEST_P(NeighbourSums, TwoFishAPassSumTheBitsOfOne) {
    if (!avx512::available()) GTEST_SKIP() << "this processor has no AVX-512";
    const avx512::Radii radii{49.0f, 4.0f, 16.0f};
    for (const std::size_t count : {1u, 5u, 8u, 13u, 40u, 203u}) {
        const PackedRun run(count, GetParam());
        for (std::size_t fish = 1; fish <= std::min<std::size_t>(count, 19); ++fish) {
            for (const std::size_t firstSlot : {std::size_t{0}, count - fish}) {
                std::vector<avx512::Seeker> seekers(fish);
                for (std::size_t i = 0; i < fish; ++i) {
                    const std::size_t slot = firstSlot + i;
                    seekers[i] = {run.columns[0][slot], run.columns[1][slot], run.columns[2][slot],
                                  slot};
                }
                std::vector<avx512::Sums> twoAPass(fish);
                avx512::sumsOfEach(run.candidates, radii, seekers.data(), fish, twoAPass.data());
                std::size_t summed = 0;
                for (std::size_t i = 0; i < fish; ++i) {
                    avx512::Sums one;
                    avx512::sumsOfEach(run.candidates, radii, &seekers[i], 1, &one);
                    EXPECT_TRUE(sameBits(one, twoAPass[i]))
                        << count << " candidates, " << fish << " fish from slot " << firstSlot
                        << ", fish " << i;
                    summed += one.cohesionCount;
                }
                // The cube is dense for these radii: the sums compared are not all empty.
                if (count >= 40) {
                    EXPECT_GT(summed, fish);
                }
            }
        }
    }
}

// A candidate is packed when its squared distance to the box, from its offsets to the box's faces
// found as a fish finds its offset ((q - face) - image), is below the reach; a NaN coordinate lies
// at distance 0 on its axis (both comparisons fail), an infinite one infinitely far.
TEST_P(NeighbourSums, PackKeepsTheCandidatesWithinReachOfTheBox) {
    if (!avx512::available()) GTEST_SKIP() << "this processor has no AVX-512";
    const bool withImages = GetParam();
    constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
    constexpr float kInf = std::numeric_limits<float>::infinity();
    constexpr std::size_t kCount = 203;
    PackedRun from(kCount, false);
    // Specials along each axis in turn, the other two axes at the box's centre: NaN (distance 0
    // on its axis, so packed) and infinities (never packed).
    const float specials[] = {kNaN, kInf, -kInf};
    const float centre[3] = {-1.0f, 0.5f, -1.0f};
    for (std::size_t k = 0; k < 9; ++k) {
        for (int axis = 0; axis < 3; ++axis) from.columns[axis][17 * k + 6] = centre[axis];
        from.columns[k % 3][17 * k + 6] = specials[k / 3];
    }
    PackedRun to(kCount, false);
    avx512::PackedRange range;
    for (int k = 0; k < 6; ++k) {
        range.from[k] = from.columns[k].data();
        range.to[k] = to.columns[k].data();
    }
    range.first = 5;
    range.last = kCount;
    const float low[3] = {-3.0f, -1.0f, -2.5f}, high[3] = {1.0f, 2.0f, 0.5f};
    const float image[3] = {withImages ? 4.0f : 0.0f, 0.0f, withImages ? -3.0f : 0.0f};
    for (int axis = 0; axis < 3; ++axis) {
        range.low[axis] = low[axis];
        range.high[axis] = high[axis];
        range.image[axis] = image[axis];
    }
    range.reach2 = 25.0f;
    std::vector<std::size_t> kept;
    for (std::size_t j = range.first; j < range.last; ++j) {
        float d2 = 0.0f;
        for (int axis = 0; axis < 3; ++axis) {
            const float q = from.columns[axis][j];
            const float fromLow = (q - low[axis]) - image[axis];
            const float fromHigh = (q - high[axis]) - image[axis];
            const float gap = fromHigh > 0.0f ? fromHigh : (fromLow < 0.0f ? -fromLow : 0.0f);
            d2 = axis == 0 ? gap * gap : d2 + gap * gap;
        }
        if (d2 < range.reach2) kept.push_back(j);
    }
    ASSERT_FALSE(kept.empty());
    // Where a kept candidate went, as packCandidates asks where the group's first fish went.
    range.mark = kept[kept.size() / 2];
    std::size_t markAt = kCount;
    const std::size_t packed = avx512::pack(range, markAt);
    ASSERT_EQ(packed, kept.size());
    // Some are left out, some kept, and the NaN ones among those kept.
    EXPECT_LT(kept.size(), kCount - range.first);
    EXPECT_GT(kept.size(), 10u);
    std::size_t nanKept = 0;
    for (std::size_t at = 0; at < kept.size(); ++at) {
        for (int k = 0; k < 6; ++k) {
            const float want = from.columns[k][kept[at]], got = to.columns[k][at];
            EXPECT_TRUE(std::memcmp(&want, &got, sizeof want) == 0)
                << "column " << k << ", candidate " << kept[at];
        }
        nanKept += std::isnan(from.columns[0][kept[at]]) || std::isnan(from.columns[1][kept[at]]) ||
                   std::isnan(from.columns[2][kept[at]]);
    }
    EXPECT_EQ(nanKept, 3u);
    EXPECT_EQ(markAt, kept.size() / 2);
}

INSTANTIATE_TEST_SUITE_P(Images, NeighbourSums, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Images" : "NoImages"; });

}  // namespace
}  // namespace fishschool
