// The AVX-512 sums of a group's fish two a pass (avx512::sumsOfEach) against one a pass
// (avx512::sumsOf), which the WideLanes tests hold to the eight-lane code's bits.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
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
                    const avx512::Sums one =
                        avx512::sumsOf(run.candidates, radii, seekers[i].self, seekers[i].x,
                                       seekers[i].y, seekers[i].z);
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

INSTANTIATE_TEST_SUITE_P(Images, NeighbourSums, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Images" : "NoImages"; });

}  // namespace
}  // namespace fishschool
