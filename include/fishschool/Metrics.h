#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <glm/vec3.hpp>

#include "fishschool/Export.h"
#include "fishschool/Fish.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// The measures of collective motion used in the fish-schooling literature, and the counts the
/// benchmark reports. All O(N) on a grid.
struct SchoolMetrics {
    /// |mean of unit velocities|: 1 when all swim the same way, ~0 when disordered.
    double polarization = 0.0;
    /// |mean of unit angular momenta about the school's centre|: 1 for a perfect mill (torus).
    double milling = 0.0;
    /// Mean distance to the nearest other fish, m (0 with fewer than two fish).
    double meanNearestNeighborDistance = 0.0;
    /// Mean number of other fish within rCohesion.
    double meanNeighbors = 0.0;
    /// The angle, radians in [0, pi], between the group's direction (the mean of the unit
    /// headings) and the informed fish's preferred direction (informedDirection); NaN when no
    /// fish of the school is informed.
    double directionError = 0.0;
    /// The number of groups: fish linked by chains of neighbours closer than groupDistance(). A
    /// double, as the mean over a window of steps is one.
    double groups = 0.0;
    /// The share of the fish in the largest group, in (0, 1] (0 with no fish).
    double largestGroupShare = 0.0;
    /// |mean of the vertical part of unit(p_i - c) x unit(v_i)|: the rotation order Or of
    /// Tunstrøm et al. 2013 about the vertical axis through the centre c (milling in the plane).
    double rotation = 0.0;
    /// The school's state from polarization (Op) and rotation (Or) against stateHigh and
    /// stateLow: 0 swarm (both low), 1 milling (Or high, Op low), 2 polarized (Op high, Or low),
    /// 3 transitional (anything else). Its mean over a window is not a state.
    double state = 0.0;
    /// sqrt(mean |p_i - c|^2), m: how spread the school is about its centre (Lei et al. 2020).
    double dispersion = 0.0;
    /// Mean distance of a fish to the wall, m (the round wall, or the box's nearest face); NaN
    /// without walls.
    double meanWallDistance = 0.0;
    /// Mean |angle| of a fish's heading against the wall's outward normal, radians in [0, pi]:
    /// 0 at the wall, pi/2 along it; NaN without walls.
    double meanWallAngle = 0.0;
    /// The centre's distance to the wall, m, and the school's mean heading against it there
    /// (|angle|, radians); NaN without walls.
    double centreWallDistance = 0.0;
    double centreWallAngle = 0.0;
    /// Per species of the config, in its order: the share of its fish in the largest group (0
    /// for a species without fish); empty without species.
    std::vector<double> largestGroupShareBySpecies{};
    /// Where the school is and goes, for a camera that follows it: the mean position of every
    /// fish and of the largest group's, m, and the mean velocity of each, m/s.
    glm::dvec3 centre{0.0}, velocity{0.0};
    glm::dvec3 largestGroupCentre{0.0}, largestGroupVelocity{0.0};
};

/// One measure of SchoolMetrics as the files, the plots and Python name it. Every writer and
/// reader of measures walks kSchoolMeasures, so a new measure is a line there.
struct SchoolMeasure {
    const char* column;      ///< column of --metrics and ensemble CSVs, key in Python
    const char* observable;  ///< H5MD trajectories: observables/<observable>
    const char* unit;        ///< H5MD unit: "1" for none
    const char* label;       ///< the app's plot
    const char* help;        ///< what it measures, in a sentence
    double SchoolMetrics::*member;
    /// NaN where it does not apply (an empty field, no observable); the others are always there.
    bool mayBeAbsent = false;
    /// The top of its plot's scale; 0: the largest value plotted.
    double plotHigh = 0.0;
    /// The app plots it under "More measures", closed at first (the fish papers' measures).
    bool more = false;
};

inline constexpr std::array<SchoolMeasure, 14> kSchoolMeasures{{
    {"polarization", "polarization", "1", "polarization",
     "Length of the mean heading: 0 disordered, 1 all fish parallel.", &SchoolMetrics::polarization,
     false, 1.0},
    {"milling", "milling", "1", "milling",
     "Mean angular momentum about the school's centre: 1 for fish circling it.",
     &SchoolMetrics::milling, false, 1.0},
    {"nearest_neighbor_m", "nearest_neighbor", "m", "nearest",
     "Mean distance from each fish to the closest other fish.",
     &SchoolMetrics::meanNearestNeighborDistance},
    {"neighbors", "neighbors", "1", "neighbours", "Mean number of other fish within rCohesion.",
     &SchoolMetrics::meanNeighbors},
    {"direction_error", "direction_error", "rad", "direction error",
     "Angle between the group's heading and the informed fish's preferred direction.",
     &SchoolMetrics::directionError, true, 3.14159265358979},
    {"groups", "groups", "1", "groups",
     "Groups of fish linked by chains of neighbours closer than groupDistance.",
     &SchoolMetrics::groups},
    {"largest_group_share", "largest_group_share", "1", "largest group",
     "Share of the fish in the largest group.", &SchoolMetrics::largestGroupShare, false, 1.0},
    {"rotation", "rotation", "1", "rotation",
     "Rotation order about the vertical axis through the school's centre: 1 for a mill.",
     &SchoolMetrics::rotation, false, 1.0, true},
    {"state", "state", "1", "state",
     "0 swarm, 1 milling, 2 polarized, 3 transitional, from polarization and rotation.",
     &SchoolMetrics::state, false, 3.0, true},
    {"dispersion_m", "dispersion", "m", "dispersion",
     "Root mean square distance of the fish from the school's centre.", &SchoolMetrics::dispersion,
     false, 0.0, true},
    {"wall_distance_m", "wall_distance", "m", "wall distance",
     "Mean distance of a fish to the tank's wall (none without walls).",
     &SchoolMetrics::meanWallDistance, true, 0.0, true},
    {"wall_angle", "wall_angle", "rad", "wall angle",
     "Mean angle of a fish's heading to the wall's normal: 0 at it, pi/2 along it.",
     &SchoolMetrics::meanWallAngle, true, 3.14159265358979, true},
    {"centre_wall_distance_m", "centre_wall_distance", "m", "centre to wall",
     "Distance of the school's centre to the tank's wall.", &SchoolMetrics::centreWallDistance,
     true, 0.0, true},
    {"centre_wall_angle", "centre_wall_angle", "rad", "centre heading to wall",
     "Angle of the school's mean heading to the wall's normal at its centre.",
     &SchoolMetrics::centreWallAngle, true, 3.14159265358979, true},
}};

/// The index in kSchoolMeasures of the measure of this column (its size for none).
constexpr std::size_t schoolMeasureIndex(std::string_view column) {
    for (std::size_t k = 0; k < kSchoolMeasures.size(); ++k)
        if (column == kSchoolMeasures[k].column) return k;
    return kSchoolMeasures.size();
}

/// The distance that links two fish into one group: params.groupDistance, or rCohesion when it
/// is 0.
FISHSCHOOL_API float groupDistance(const SimParams& params);

/// The state measure (SchoolMetrics::state) of these orders under params' stateHigh, stateLow.
FISHSCHOOL_API double schoolState(double polarization, double rotation, const SimParams& params);

FISHSCHOOL_API SchoolMetrics measureSchool(std::span<const Fish> school, const SimParams& params);

/// What measureArrays needs beside the fish.
struct MeasureOptions {
    /// The radius within which another fish counts as a neighbour (the measure "neighbors"), m.
    float rCohesion = SimParams{}.rCohesion;
    /// The distance that links two fish into one group; 0: rCohesion.
    float groupDistance = 0.0f;
    /// A periodic box's full edges, centred on the origin, whose faces offsets wrap across; none:
    /// open water (no walls).
    std::optional<glm::vec3> periodicBox{};
};
/// The measures of any school, given as float triples fish by fish (3 floats a fish each), e.g.
/// a tracked one, without making a simulation. Errors name what is wrong: sizes that differ or
/// are not whole fish, a value that is not finite, a position outside the periodic box, a radius
/// that is not positive.
[[nodiscard]] FISHSCHOOL_API Result<SchoolMetrics> measureArrays(
    std::span<const float> positions, std::span<const float> velocities,
    const MeasureOptions& options = {});

/// The informed fish's preferred direction g, unit length: that of the first species with
/// kPreferred != 0 and a fish in `school`, or, without species, the config's when kPreferred != 0
/// and the school has a fish. nullopt when no fish is informed.
FISHSCHOOL_API std::optional<glm::vec3> informedDirection(std::span<const Fish> school,
                                                          const SimParams& params);

/// Whether any fish of `params` is informed (kPreferred != 0 in the config or a species): a
/// school of them has a direction error.
FISHSCHOOL_API bool hasInformedFish(const SimParams& params);

/// The angle, radians in [0, pi], between the mean of `unitHeadingSum`'s headings and the unit
/// vector `g`: pi / 2 for a zero sum (no direction, so none along g).
FISHSCHOOL_API double directionErrorOf(const glm::dvec3& unitHeadingSum, const glm::vec3& g);

/// Couzin et al. 2005's accuracy of a group's direction over replicates, from each replicate's
/// direction error: 1 - S / pi, S = sqrt(2 (1 - mean cos(error))) the angular deviation of the
/// directions about g (Batschelet's, about g rather than about their mean). 1 when every
/// replicate goes along g, 1 - sqrt(2) / pi (0.55) for directions at random, 1 - 2 / pi (0.36)
/// when all go against it. NaN without replicates.
FISHSCHOOL_API double directionAccuracy(std::span<const double> directionErrors);
/// The same from the mean of cos(error) over the replicates.
FISHSCHOOL_API double accuracyOfMeanCosine(double meanCosine);

/// The header of a measures CSV (`fishschool-cli simulate --metrics`), without its newline:
/// step, time_s and kSchoolMeasures' columns.
FISHSCHOOL_API std::string metricsCsvHeader();

/// One row of that CSV, newline included; numbers to 9 significant digits, an absent (NaN)
/// measure as an empty field.
FISHSCHOOL_API std::string metricsCsvRow(std::int64_t step, double timeSeconds,
                                         const SchoolMetrics& metrics);

/// How many (i, j) distance tests one step makes with the given neighbour search:
/// N(N-1) for all-pairs, the candidates of the 27 grid cells around each fish for grid.
FISHSCHOOL_API std::uint64_t pairsTestedPerStep(std::span<const Fish> school,
                                                const SimParams& params);

}  // namespace fishschool
