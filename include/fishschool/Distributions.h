#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fishschool/Export.h"
#include "fishschool/Fish.h"
#include "fishschool/Metrics.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// The distributions of a trajectory that the fish-schooling papers compare (docs/data.md,
/// "Measuring and comparing trajectories"), each a histogram over fixed bins, the same for every
/// file so that any two can be compared bin by bin.
struct DistributionSpec {
    const char* name;  ///< its key in files and in Python
    const char* unit;  ///< "1" for none
    const char* help;  ///< what one value is, in a sentence
    double low;        ///< the first bin's left edge
    double high;       ///< the last bin's right edge (the last bin holds it)
    std::size_t bins;  ///< bins of equal width between them
    /// Successive frames of a fish one value reads: 2 for a turn, 3 for a change of turn.
    std::size_t frames = 1;
};

/// The one list of distributions: every writer, reader and plot walks it.
inline constexpr std::array<DistributionSpec, 10> kDistributions{{
    {"wall_distance", "m",
     "Each fish's distance to the tank's wall (the round wall, or the box's nearest face; "
     "boundary \"walls\" only), per frame.",
     0.0, 20.0, 80},
    {"wall_angle", "rad",
     "Each fish's heading in the x-z plane against the wall's outward normal (0 at the wall, "
     "+-pi/2 along it; boundary \"walls\" only), per frame.",
     -3.14159265358979323846, 3.14159265358979323846, 72},
    {"nearest_neighbor", "m", "Each fish's distance to its nearest other fish, per frame.", 0.0,
     10.0, 100},
    {"neighbor_heading", "rad",
     "Angle between each fish's heading and its nearest neighbour's, per frame (fish that move).",
     0.0, 3.14159265358979323846, 36},
    {"viewing_angle", "rad",
     "Where each fish sees its nearest neighbour, in the x-z plane against its heading (0 ahead, "
     "+-pi behind), per frame (fish that move).",
     -3.14159265358979323846, 3.14159265358979323846, 72},
    {"speed", "m/s", "Each fish's speed, per frame.", 0.0, 5.0, 100},
    {"polarization", "1", "The school's polarization, one value a frame.", 0.0, 1.0, 50},
    {"milling", "1", "The school's milling, one value a frame.", 0.0, 1.0, 50},
    {"turning_angle", "rad",
     "Angle each fish's heading turned since the frame before, per frame (fish that move in "
     "both).",
     0.0, 3.14159265358979323846, 360, 2},
    {"turn_axis_change", "rad",
     "Angle between the axes of each fish's turn into the frame before and its turn since (in 2D "
     "0 for a turn to the same side, pi for the other), per frame (fish that turn in both).",
     0.0, 3.14159265358979323846, 720, 3},
}};

/// The index in kDistributions of the distribution of this name (its size for none).
constexpr std::size_t distributionIndex(std::string_view name) {
    for (std::size_t k = 0; k < kDistributions.size(); ++k)
        if (name == kDistributions[k].name) return k;
    return kDistributions.size();
}

/// Counts of values in a DistributionSpec's bins: bin k holds low + k w <= value < low + (k+1) w
/// (w = (high - low) / bins), the last bin value == high too. Values below low or above high
/// are counted apart, never dropped; NaN is not counted.
struct Histogram {
    double low = 0.0, high = 1.0;
    std::vector<std::uint64_t> counts;
    std::uint64_t below = 0, above = 0;

    Histogram() = default;
    explicit Histogram(const DistributionSpec& spec)
        : low(spec.low), high(spec.high), counts(spec.bins, 0) {}

    void add(double value) {
        if (std::isnan(value)) return;
        if (value < low) {
            ++below;
            return;
        }
        if (value > high) {
            ++above;
            return;
        }
        const double bins = static_cast<double>(counts.size());
        auto k = static_cast<std::size_t>(std::floor((value - low) * (bins / (high - low))));
        if (k >= counts.size()) k = counts.size() - 1;
        ++counts[k];
    }
    /// Every value counted: in the bins, below and above.
    std::uint64_t total() const {
        std::uint64_t sum = below + above;
        for (std::uint64_t c : counts) sum += c;
        return sum;
    }
    /// The bins' edges, bins + 1 of them from low to high.
    std::vector<double> edges() const {
        std::vector<double> e(counts.size() + 1);
        for (std::size_t k = 0; k <= counts.size(); ++k)
            e[k] = low + (high - low) * static_cast<double>(k) / static_cast<double>(counts.size());
        return e;
    }
    void merge(const Histogram& other) {
        for (std::size_t k = 0; k < counts.size() && k < other.counts.size(); ++k)
            counts[k] += other.counts[k];
        below += other.below;
        above += other.above;
    }
};

/// One histogram a distribution, in kDistributions' order.
using Histograms = std::array<Histogram, kDistributions.size()>;

/// Empty histograms over kDistributions' bins.
FISHSCHOOL_API Histograms emptyHistograms();

/// A frame before the one measured: its fish, and their flags (empty: every fish present).
struct EarlierFrame {
    std::span<const Fish> school = {};
    std::span<const std::uint8_t> present = {};
};

/// The measures of one frame: the school's measures (measureSchool) of the fish present, their
/// count, and each present fish's values added to `histograms`. `present` holds one flag a fish
/// (non-zero: present) or is empty (every fish present); a missing fish is left out of every
/// measure and is nobody's neighbour. The wall distance is counted only in a tank of walls
/// (params.boundary), the heading difference only where both fish move. The turning angle is
/// counted against `previous`, the turn axis change against `previous` and `beforePrevious`: fish
/// i of one against fish i of the others, where it is present and moves in each (and turns, for
/// the axis); none where a frame is empty (a first frame) or holds another number of fish.
struct FrameMeasures {
    SchoolMetrics measures;
    std::size_t fish = 0;  ///< the fish present
};
FISHSCHOOL_API FrameMeasures measureFrame(std::span<const Fish> school,
                                          std::span<const std::uint8_t> present,
                                          const SimParams& params, Histograms& histograms,
                                          EarlierFrame previous = {},
                                          EarlierFrame beforePrevious = {});

/// The value below which a share `p` (0 to 1) of a histogram's values lie, linear within the bin
/// that holds it (the values below and above the range at its ends); NaN for an empty histogram.
FISHSCHOOL_API double histogramQuantile(const Histogram& histogram, double p);

/// The Hellinger distance sqrt(1 - sum_k sqrt(p_k q_k)) of two histograms over the same bins,
/// each normalised to sum 1 (the counts below and above the range taken as two more bins): 0
/// for equal distributions, 1 for disjoint ones. NaN when either has no value or their bins
/// differ.
FISHSCHOOL_API double hellingerDistance(const Histogram& a, const Histogram& b);

/// The measures of every frame of a trajectory, and its distributions.
struct TrajectoryMeasurement {
    std::vector<std::int64_t> step;
    std::vector<double> time;
    std::vector<SchoolMetrics> measures;  ///< of the fish present at each frame
    std::vector<std::size_t> fish;        ///< the fish present at each frame
    Histograms histograms;
    /// Whether every frame's tank has walls (else wall_distance holds only the frames that do).
    bool walls = true;
};

/// Reads `file` (TrajectoryReader) frame by frame and measures each with measureFrame, in the
/// config in force at that frame, its turns against the frames before it. Errors are the
/// reader's (bad input, naming the file and the object).
[[nodiscard]] FISHSCHOOL_API Result<TrajectoryMeasurement> measureTrajectory(
    const std::filesystem::path& file);
/// The same of the frames whose step lies from `fromStep` to `toStep` (both included) alone: a
/// fit's target window (its first frame's turns and its second's turn axis change left out). No
/// frame there is no error: the measurement is empty.
[[nodiscard]] FISHSCHOOL_API Result<TrajectoryMeasurement> measureTrajectory(
    const std::filesystem::path& file, std::int64_t fromStep, std::int64_t toStep);

/// Two trajectories' distributions and, for each, the Hellinger distance between them.
struct TrajectoryComparison {
    TrajectoryMeasurement a, b;
    std::array<double, kDistributions.size()> hellinger{};
};
[[nodiscard]] FISHSCHOOL_API Result<TrajectoryComparison> compareTrajectories(
    const std::filesystem::path& a, const std::filesystem::path& b);

/// The per-frame CSV of a measurement: step, time_s, kSchoolMeasures' columns and fish (the
/// fish measured), a row a frame, as metricsCsvRow writes numbers.
FISHSCHOOL_API std::string frameMeasuresCsv(const TrajectoryMeasurement& measurement);

/// The histograms as CSV, a row a bin: distribution, unit, bin_low, bin_high, then a count
/// column for each of `columns` (e.g. "count" for one file, "count_a,count_b" for two). Each
/// distribution ends with two rows for the values outside its range: bin_low -inf (below) and
/// bin_high inf (above).
FISHSCHOOL_API std::string histogramsCsv(std::span<const Histograms* const> histograms,
                                         std::span<const std::string> columns);

}  // namespace fishschool
