// The distributions of a trajectory (fishschool/Distributions.h) on hand-built schools whose
// distances, headings and speeds are known, and the Hellinger distance between histograms.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

#include <glm/geometric.hpp>

#include "fishschool/Distributions.h"
#include "fishschool/Trajectory.h"

namespace fishschool {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kWall = distributionIndex("wall_distance");
constexpr std::size_t kNearest = distributionIndex("nearest_neighbor");
constexpr std::size_t kHeading = distributionIndex("neighbor_heading");
constexpr std::size_t kSpeed = distributionIndex("speed");
constexpr std::size_t kPolarization = distributionIndex("polarization");
constexpr std::size_t kTurning = distributionIndex("turning_angle");
constexpr std::size_t kTurnAxis = distributionIndex("turn_axis_change");

glm::vec3 direction(double degrees) {
    const double a = degrees * std::numbers::pi / 180.0;
    return {static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a)), 0.0f};
}

/// Three fish in a tank of walls 20 m wide on each axis, every value inside a bin, away from
/// its edges: A and B 3.05 m apart, C 7.55 m below A (A is its nearest).
///   wall distance: A 9.9 (bin 39 of 0.25 m), B 6.85 (27), C 2.55 (10)
///   nearest neighbour: A 3.05, B 3.05 (bin 30 of 0.1 m), C 7.55 (75)
///   neighbour heading: A and B 62.5 degrees (bin 12 of 5), C 137.5 (27)
///   speed: A 1.025 (bin 20 of 0.05 m/s), B 2.025 (40), C 1.525 (30)
School threeFish() {
    School s(3);
    s[0].position = {0.1f, 0.1f, 0.1f};
    s[0].velocity = 1.025f * direction(0.0);
    s[1].position = {3.15f, 0.1f, 0.1f};
    s[1].velocity = 2.025f * direction(62.5);
    s[2].position = {0.1f, -7.45f, 0.1f};
    s[2].velocity = 1.525f * direction(137.5);
    return s;
}

SimParams tank() {
    SimParams p;
    p.bounds = {10.0f, 10.0f, 10.0f};
    p.boundary = Boundary::Walls;
    p.rocks.clear();
    p.fishCount = 3;
    return p;
}

/// The bins that hold a value, as (bin, count) pairs.
std::vector<std::pair<std::size_t, std::uint64_t>> filled(const Histogram& h) {
    std::vector<std::pair<std::size_t, std::uint64_t>> out;
    for (std::size_t k = 0; k < h.counts.size(); ++k)
        if (h.counts[k] != 0) out.emplace_back(k, h.counts[k]);
    return out;
}

using Bins = std::vector<std::pair<std::size_t, std::uint64_t>>;

TEST(Distributions, AHandBuiltFrameFillsTheBinsOfItsKnownValues) {
    Histograms h = emptyHistograms();
    const FrameMeasures m = measureFrame(threeFish(), {}, tank(), h);
    EXPECT_EQ(m.fish, 3u);
    EXPECT_EQ(filled(h[kWall]), (Bins{{10, 1}, {27, 1}, {39, 1}}));
    EXPECT_EQ(filled(h[kNearest]), (Bins{{30, 2}, {75, 1}}));
    EXPECT_EQ(filled(h[kHeading]), (Bins{{12, 2}, {27, 1}}));
    EXPECT_EQ(filled(h[kSpeed]), (Bins{{20, 1}, {30, 1}, {40, 1}}));
    const auto polarizationBin = static_cast<std::size_t>(std::floor(m.measures.polarization * 50));
    EXPECT_EQ(filled(h[kPolarization]), (Bins{{polarizationBin, 1}}));
    EXPECT_NEAR(m.measures.meanNearestNeighborDistance, (3.05 + 3.05 + 7.55) / 3.0, 1e-5);
}

TEST(Distributions, AMissingFishIsLeftOutOfEveryMeasure) {
    Histograms h = emptyHistograms();
    const std::vector<std::uint8_t> present{1, 0,
                                            1};  // B missing: C and A are each other's nearest
    const FrameMeasures m = measureFrame(threeFish(), present, tank(), h);
    EXPECT_EQ(m.fish, 2u);
    EXPECT_EQ(filled(h[kWall]), (Bins{{10, 1}, {39, 1}}));
    EXPECT_EQ(filled(h[kNearest]), (Bins{{75, 2}}));
    EXPECT_EQ(filled(h[kHeading]), (Bins{{27, 2}}));
    EXPECT_EQ(filled(h[kSpeed]), (Bins{{20, 1}, {30, 1}}));
    EXPECT_NEAR(m.measures.meanNearestNeighborDistance, 7.55, 1e-5);
}

/// threeFish() a frame later: A turned by 12.25 degrees (bin 24 of 0.5), B by 90.25 (bin 180)
/// and C stopped.
School threeFishTurned() {
    School s = threeFish();
    s[0].velocity = 1.025f * direction(12.25);
    s[1].velocity = 2.025f * direction(62.5 - 90.25);
    s[2].velocity = glm::vec3(0.0f);
    return s;
}

TEST(Distributions, TheTurningAngleIsEachFishsTurnSinceTheFrameBefore) {
    Histograms h = emptyHistograms();
    (void)measureFrame(threeFishTurned(), {}, tank(), h, {threeFish()});
    EXPECT_EQ(filled(h[kTurning]), (Bins{{24, 1}, {180, 1}}));  // C does not move: none
    // A fish missing from either frame has no turn.
    Histograms missing = emptyHistograms();
    const std::vector<std::uint8_t> withoutA{0, 1, 1}, withoutB{1, 0, 1};
    (void)measureFrame(threeFishTurned(), withoutA, tank(), missing, {threeFish(), withoutB});
    EXPECT_EQ(missing[kTurning].total(), 0u);
    // None without a frame before, or against one of another school.
    Histograms first = emptyHistograms();
    (void)measureFrame(threeFishTurned(), {}, tank(), first);
    School two = threeFish();
    two.pop_back();
    (void)measureFrame(threeFishTurned(), {}, tank(), first, {two});
    EXPECT_EQ(first[kTurning].total(), 0u);
    EXPECT_EQ(first[kNearest].total(), 6u);
}

TEST(Distributions, TheTurnAxisChangeIsTheAngleBetweenTwoTurnsAxes) {
    // A turns about z into the frame before (x to y), then about the axis (1, 0, 2) / sqrt(5):
    // cross(y, (-2, 0.5, 1)) = (1, 0, 2), at atan2(1, 2) = 26.57 degrees from z (bin 106 of
    // 0.25). B turns about z twice, the second time the other way: pi (the last bin). C does not
    // turn into the frame before (the same heading): none.
    School first(3), second(3), third(3);
    for (School* s : {&first, &second, &third})
        for (std::size_t i = 0; i < 3; ++i) (*s)[i].position = {3.0f * float(i), 0.0f, 0.0f};
    first[0].velocity = {1.0f, 0.0f, 0.0f};
    second[0].velocity = {0.0f, 1.0f, 0.0f};
    third[0].velocity = {-2.0f, 0.5f, 1.0f};
    first[1].velocity = direction(0.0);
    second[1].velocity = direction(30.0);
    third[1].velocity = direction(10.0);
    first[2].velocity = direction(45.0);
    second[2].velocity = direction(45.0);
    third[2].velocity = direction(60.0);
    Histograms h = emptyHistograms();
    (void)measureFrame(third, {}, tank(), h, {second}, {first});
    EXPECT_EQ(filled(h[kTurnAxis]), (Bins{{106, 1}, {719, 1}}));
    EXPECT_EQ(h[kTurning].total(), 3u);
    // A fish missing from the first frame has none; no first frame, none at all.
    Histograms missing = emptyHistograms();
    const std::vector<std::uint8_t> withoutA{0, 1, 1};
    (void)measureFrame(third, {}, tank(), missing, {second}, {first, withoutA});
    EXPECT_EQ(filled(missing[kTurnAxis]), (Bins{{719, 1}}));
    Histograms none = emptyHistograms();
    (void)measureFrame(third, {}, tank(), none, {second});
    EXPECT_EQ(none[kTurnAxis].total(), 0u);
}

TEST(Distributions, AQuantileLiesWithinTheBinThatHoldsItsShare) {
    Histogram h(DistributionSpec{"x", "1", "", 0.0, 10.0, 10});
    for (double v : {0.5, 1.5, 1.5, 1.5, 7.5}) h.add(v);
    EXPECT_DOUBLE_EQ(histogramQuantile(h, 0.2), 1.0);  // the first value: bin 0 whole
    EXPECT_DOUBLE_EQ(histogramQuantile(h, 0.5), 1.5);  // 2.5 of 5: half of bin 1's three
    EXPECT_DOUBLE_EQ(histogramQuantile(h, 0.9), 7.5);  // 4.5 of 5: half of bin 7's one
    h.add(-3.0);                                       // below the range: at its low end
    EXPECT_DOUBLE_EQ(histogramQuantile(h, 0.1), 0.0);
    EXPECT_TRUE(
        std::isnan(histogramQuantile(Histogram(DistributionSpec{"x", "1", "", 0.0, 1.0, 2}), 0.5)));
    EXPECT_TRUE(std::isnan(histogramQuantile(h, 1.5)));
}

TEST(Distributions, OpenWaterHasNoWallDistance) {
    Histograms h = emptyHistograms();
    SimParams open = tank();
    open.boundary = Boundary::Open;
    (void)measureFrame(threeFish(), {}, open, h);
    EXPECT_EQ(h[kWall].total(), 0u);
    EXPECT_EQ(h[kNearest].total(), 3u);
}

TEST(Distributions, ValuesOutsideTheRangeAreCountedApart) {
    Histogram h(kDistributions[kSpeed]);
    h.add(-1.0);
    h.add(5.0);  // the range's top: the last bin
    h.add(7.0);
    h.add(std::nan(""));
    EXPECT_EQ(h.below, 1u);
    EXPECT_EQ(h.above, 1u);
    EXPECT_EQ(h.counts.back(), 1u);
    EXPECT_EQ(h.total(), 3u);
    EXPECT_EQ(h.edges().size(), h.counts.size() + 1);
    EXPECT_DOUBLE_EQ(h.edges()[1], 0.05);
}

TEST(Distributions, HellingerIsZeroForEqualOneForDisjointAndKnownBetween) {
    Histogram a(kDistributions[kSpeed]), b(kDistributions[kSpeed]), c(kDistributions[kSpeed]);
    a.counts[3] = 10;
    a.counts[4] = 10;
    b.counts[3] = 1;  // normalised: p = (1/2, 1/2), q = (1, 0)
    c.counts[90] = 5;
    EXPECT_DOUBLE_EQ(hellingerDistance(a, a), 0.0);
    EXPECT_DOUBLE_EQ(hellingerDistance(a, c), 1.0);
    // sqrt(1 - sqrt(1/2)) = 0.5411961...
    EXPECT_NEAR(hellingerDistance(a, b), std::sqrt(1.0 - std::sqrt(0.5)), 1e-12);
    EXPECT_NEAR(hellingerDistance(b, a), hellingerDistance(a, b), 1e-15);
    // Values beyond the range count as bins of their own.
    Histogram d(kDistributions[kSpeed]);
    d.above = 4;
    EXPECT_DOUBLE_EQ(hellingerDistance(c, d), 1.0);
    EXPECT_TRUE(std::isnan(hellingerDistance(a, Histogram(kDistributions[kSpeed]))));
}

class TrajectoryDistributions : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("fishschool_distributions_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    /// A trajectory of `frames` frames of `school`, its speeds times `speedScale`.
    fs::path write(const std::string& name, const School& school, std::size_t frames,
                   float speedScale = 1.0f) {
        const fs::path file = dir_ / name;
        auto writer = TrajectoryWriter::create(file, tank(), school.size());
        EXPECT_TRUE(writer) << writer.error();
        School scaled = school;
        for (Fish& f : scaled) f.velocity *= speedScale;
        for (std::size_t k = 0; k < frames; ++k)
            EXPECT_TRUE((*writer)->addFrame(static_cast<std::int64_t>(10 * k), 0.1 * k, scaled));
        EXPECT_TRUE((*writer)->finish());
        return file;
    }

    fs::path dir_;
};

TEST_F(TrajectoryDistributions, EveryFrameIsMeasuredAndCounted) {
    const fs::path file = write("three.h5", threeFish(), 4);
    auto m = measureTrajectory(file);
    ASSERT_TRUE(m) << m.error();
    EXPECT_EQ(m->step, (std::vector<std::int64_t>{0, 10, 20, 30}));
    EXPECT_EQ(m->fish, (std::vector<std::size_t>{3, 3, 3, 3}));
    EXPECT_TRUE(m->walls);
    EXPECT_EQ(filled(m->histograms[kNearest]), (Bins{{30, 8}, {75, 4}}));
    EXPECT_EQ(filled(m->histograms[kSpeed]), (Bins{{20, 4}, {30, 4}, {40, 4}}));
    EXPECT_EQ(m->histograms[kPolarization].total(), 4u);
    EXPECT_NE(frameMeasuresCsv(*m).find("step,time_s,polarization"), std::string::npos);
}

TEST_F(TrajectoryDistributions, TurnsAreCountedFromFrameToFrameAcrossReadBatches) {
    // 70 frames, more than one batch of reads, each fish turning 10.25 degrees a frame (bin 20),
    // to the right into each frame k with k % 3 == 0 and to the left into the others: the turn
    // axis flips (pi, the last bin) into frames k % 3 == 0 and k % 3 == 1, else stays (bin 0).
    const fs::path file = dir_ / "turning.h5";
    {
        auto writer = TrajectoryWriter::create(file, tank(), 3);
        ASSERT_TRUE(writer) << writer.error();
        double turned = 0.0;
        for (std::size_t k = 0; k < 70; ++k) {
            if (k > 0) turned += k % 3 == 0 ? -10.25 : 10.25;
            School s = threeFish();
            for (Fish& f : s)
                f.velocity =
                    glm::length(f.velocity) *
                    direction(std::atan2(f.velocity.y, f.velocity.x) * 180.0 / std::numbers::pi +
                              turned);
            ASSERT_TRUE((*writer)->addFrame(std::int64_t(k), 0.1 * double(k), s));
        }
        ASSERT_TRUE((*writer)->finish());
    }
    auto all = measureTrajectory(file);
    ASSERT_TRUE(all) << all.error();
    EXPECT_EQ(filled(all->histograms[kTurning]), (Bins{{20, 3 * 69}}));
    // Frames 2 to 69: 45 flips (3, 6, ..., 69 and 4, 7, ..., 67), 23 not.
    EXPECT_EQ(filled(all->histograms[kTurnAxis]), (Bins{{0, 3 * 23}, {719, 3 * 45}}));
    // A window's first frame has no turn and its second no turn axis change: 10 frames, 9
    // turns, 8 changes (frames 62 to 69: flips at 63, 64, 66, 67 and 69).
    auto window = measureTrajectory(file, 60, 69);
    ASSERT_TRUE(window) << window.error();
    EXPECT_EQ(filled(window->histograms[kTurning]), (Bins{{20, 3 * 9}}));
    EXPECT_EQ(filled(window->histograms[kTurnAxis]), (Bins{{0, 3 * 3}, {719, 3 * 5}}));
}

TEST_F(TrajectoryDistributions, AFileAgainstItselfIsZeroAndAgainstOtherSpeedsDisjoint) {
    const fs::path slow = write("slow.h5", threeFish(), 3);
    const fs::path fast = write("fast.h5", threeFish(), 2, 2.5f);  // 2.5625, 5.0625, 3.8125 m/s
    auto same = compareTrajectories(slow, slow);
    ASSERT_TRUE(same) << same.error();
    for (std::size_t d = 0; d < kDistributions.size(); ++d) {
        if (d == kTurnAxis) {  // fish that never turn: an empty distribution
            EXPECT_TRUE(std::isnan(same->hellinger[d]));
            continue;
        }
        EXPECT_DOUBLE_EQ(same->hellinger[d], 0.0) << kDistributions[d].name;
    }
    auto other = compareTrajectories(slow, fast);
    ASSERT_TRUE(other) << other.error();
    EXPECT_DOUBLE_EQ(other->hellinger[kSpeed], 1.0);
    EXPECT_DOUBLE_EQ(other->hellinger[kNearest], 0.0);  // the same places
}

TEST_F(TrajectoryDistributions, AFileThatIsNotATrajectoryIsBadInputNamingIt) {
    const fs::path text = dir_ / "notes.txt";
    std::ofstream(text) << "not a trajectory\n";
    auto m = measureTrajectory(text);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().kind(), ErrorKind::BadInput);
    EXPECT_NE(m.error().find("notes.txt"), std::string::npos) << m.error();
}

}  // namespace
}  // namespace fishschool
