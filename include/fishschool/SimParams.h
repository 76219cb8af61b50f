#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <glm/vec3.hpp>

#include "fishschool/Export.h"
#include "fishschool/Result.h"

namespace fishschool {

/// A static spherical rock.
struct Rock {
    glm::vec3 center{0.0f};  ///< m, inside the tank
    float radius = 1.0f;     ///< m, > 0

    bool operator==(const Rock&) const = default;
};

/// The three rocks on the floor of the default tank. (A function rather than a braced list in the
/// member initializer: GCC 12 warns falsely about such a list wherever SimParams is inlined.)
FISHSCHOOL_API std::vector<Rock> defaultRocks();

/// The names of the values of an enum of the config, in files and flags, in the order of the enum:
/// each such enum gives its table below, and toString and parseEnum read it.
template <class Enum>
inline constexpr std::span<const char* const> kEnumNames{};
/// The name of `value`: toString(Boundary::Open) is "open".
template <class Enum>
requires(!kEnumNames<Enum>.empty()) constexpr std::string_view toString(Enum value) {
    return kEnumNames<Enum>[static_cast<std::size_t>(value)];
}
/// The value named `text`, or nullopt: parseEnum<Boundary>("open") is Boundary::Open.
template <class Enum>
requires(!kEnumNames<Enum>.empty()) constexpr std::optional<Enum> parseEnum(std::string_view text) {
    for (std::size_t k = 0; k < kEnumNames<Enum>.size(); ++k)
        if (text == kEnumNames<Enum>[k]) return static_cast<Enum>(k);
    return std::nullopt;
}

/// How a backend finds the neighbours of a fish.
enum class NeighborSearch {
    AllPairs,  ///< every fish against every other, O(N^2): the article's algorithm
    Grid,      ///< uniform grid of cells as wide as the largest radius, O(N)
};

inline constexpr const char* kNeighborSearchNames[] = {"all-pairs", "grid"};
template <>
inline constexpr std::span<const char* const> kEnumNames<NeighborSearch> = kNeighborSearchNames;

/// Which of the fish within reach a fish heeds (docs/model.md "Neighbour selection").
enum class NeighborSelection {
    Metric,       ///< every fish within each rule's radius
    Topological,  ///< the neighborCount nearest within the largest radius, ties by index
    Influential,  ///< steering "burst-and-coast": the neighborCount of largest influence
};

inline constexpr const char* kNeighborSelectionNames[] = {"metric", "topological", "influential"};
template <>
inline constexpr std::span<const char* const> kEnumNames<NeighborSelection> =
    kNeighborSelectionNames;

/// The most neighbours neighborSelection "topological" heeds.
inline constexpr std::int64_t kMaxNeighborCount = 64;

/// What the faces of the tank [-bounds, bounds] are (docs/model.md "The school and the tank").
enum class Boundary {
    Walls,     ///< fish are reflected back inside (the article's tank)
    Periodic,  ///< a periodic box: a fish leaving by a face comes in by the opposite one
    Open,      ///< no walls: the school swims anywhere; the rocks still stand
};

inline constexpr const char* kBoundaryNames[] = {"walls", "periodic", "open"};
template <>
inline constexpr std::span<const char* const> kEnumNames<Boundary> = kBoundaryNames;

/// The tank's shape in the x-z plane (docs/model.md "The round tank").
enum class Arena {
    Box,       ///< the box [-bounds, bounds]
    Cylinder,  ///< a vertical cylinder of radius arenaRadius about the y axis, as tall as the box
};

inline constexpr const char* kArenaNames[] = {"box", "cylinder"};
template <>
inline constexpr std::span<const char* const> kEnumNames<Arena> = kArenaNames;

/// Open water's reach: every coordinate of a fish within +-1e15 m of the origin. Within it the
/// step stays finite for any school (the sum of 16,000,000 positions, the square of the distance
/// between two fish, stay far inside the float range), and no step can carry a fish past it (a
/// float there is coarser than any step); a start beyond it is refused, naming it.
inline constexpr float kOpenWaterReach = 1e15f;

/// How seeking (kTarget) finds its way to the target.
enum class TargetPath {
    Straight,   ///< straight at the target, into any rock in the way (then the bounce)
    FlowField,  ///< along a flow field that leads around the rocks (FlowField.h)
};

inline constexpr const char* kTargetPathNames[] = {"straight", "flow-field"};
template <>
inline constexpr std::span<const char* const> kEnumNames<TargetPath> = kTargetPathNames;

/// How each rule turns its direction into a force.
enum class Steering {
    Article,   ///< the direction times its weight
    Reynolds,  ///< (direction * maxVelocity - velocity) clamped to maxAcceleration, times its
               ///< weight
    Couzin,    ///< Couzin et al. 2002: zones, repulsion first, constant speed, limited turning
    Vicsek,    ///< Vicsek et al. 1995: the neighbours' mean heading plus a uniform random angle,
               ///< constant speed
    BurstAndCoast,  ///< Calovi et al. 2018: kicks at random instants, each turning the heading
                    ///< by the wall, the neighbours and chance, and glides between them
};

inline constexpr const char* kSteeringNames[] = {"article", "reynolds", "couzin", "vicsek",
                                                 "burst-and-coast"};
template <>
inline constexpr std::span<const char* const> kEnumNames<Steering> = kSteeringNames;

/// How the offsets of the separation neighbours are weighted before they are summed.
enum class SeparationFalloff {
    None,           ///< each offset as it is
    InverseSquare,  ///< each offset divided by its squared length
};

inline constexpr const char* kSeparationFalloffNames[] = {"none", "inverse-square"};
template <>
inline constexpr std::span<const char* const> kEnumNames<SeparationFalloff> =
    kSeparationFalloffNames;

/// How the weighted forces become one acceleration.
enum class Combine {
    Sum,          ///< their sum, clamped to maxAcceleration
    Prioritized,  ///< added in order of priority until maxAcceleration is spent
};

inline constexpr const char* kCombineNames[] = {"sum", "prioritized"};
template <>
inline constexpr std::span<const char* const> kEnumNames<Combine> = kCombineNames;

/// How avoidance (kAvoidance) steers clear of rocks.
enum class Avoidance {
    Repel,  ///< away from every rock within avoidanceDistance
    Rays,   ///< toward the first free one of a fixed set of directions round the heading
};

inline constexpr const char* kAvoidanceNames[] = {"repel", "rays"};
template <>
inline constexpr std::span<const char* const> kEnumNames<Avoidance> = kAvoidanceNames;

/// Whom a fish schools with: cohesion and alignment count these fish; separation counts every fish.
enum class SchoolsWith {
    All,  ///< every fish, of any species
    Own,  ///< the fish of its own species only
};

inline constexpr const char* kSchoolsWithNames[] = {"all", "own"};
template <>
inline constexpr std::span<const char* const> kEnumNames<SchoolsWith> = kSchoolsWithNames;

/// How the offsets of the separation neighbours are scaled.
enum class SeparationScaling {
    None,           ///< as they are
    KineticEnergy,  ///< by KE_j / KE_i (seed 004: small, light fish give way to big ones)
};

inline constexpr const char* kSeparationScalingNames[] = {"none", "kinetic-energy"};
template <>
inline constexpr std::span<const char* const> kEnumNames<SeparationScaling> =
    kSeparationScalingNames;

/// One per-fish key that a species sets (a key of paramTable() that is marked per fish), with its
/// value in the member its type takes: a number, an array of 3 numbers, or the index of a name.
struct SpeciesSetting {
    std::string key;
    float number = 0.0f;
    glm::vec3 vector{0.0f};
    int choice = 0;

    bool operator==(const SpeciesSetting&) const = default;
};

/// A kind of fish: its count, its colour and the per-fish keys it sets; the keys it does not set
/// are the config's (docs/model.md "Species").
struct Species {
    std::string name;                      ///< 1 to 64 printable characters, unique in the school
    std::int64_t count = 0;                ///< its fish; the species' counts add up to fishCount
    glm::vec3 color{1.0f};                 ///< linear RGB, each in [0, 1]
    std::vector<SpeciesSetting> settings;  ///< each key at most once

    bool operator==(const Species&) const = default;
};

/// Every tunable of the simulation; the config file keys are the member names, listed with their
/// units, ranges and help in paramTable() (ParamTable.h): docs/model.md's step ("One step"), then
/// the behaviours beyond it (viewAngle, seeking, avoidance, the neighbour search), which leave
/// that step unchanged at their defaults.
/// Defaults give a school of 2,000 fish in a 80 x 40 x 80 m tank with three rocks that polarises
/// within 20 simulated seconds (docs/model.md); articleParams() (Scenario.h) holds the article's.
struct SimParams {
    /// Number of fish N of a new school (makeInitialSchool), 0 to kMaxFishCount. Once a school
    /// runs, its backend's fishCount() is its count; Backend::setParams ignores this one.
    std::int64_t fishCount = 2000;
    /// Seed of the initial state. Any unsigned 64-bit value.
    std::uint64_t seed = 1;
    /// Fixed time step. Seconds, finite, > 0; maxVelocity * dt < min(bounds).
    float dt = 1.0f / 60.0f;

    /// Weight of the steer toward the centre of the cohesion neighbours. Finite, any sign.
    float kCohesion = 1.0f;
    /// Weight of the steer away from the separation neighbours. Finite, any sign.
    float kSeparation = 2.0f;
    /// Weight of the steer along the mean velocity of the alignment neighbours. Finite, any sign.
    float kAlignment = 3.0f;

    /// Cohesion neighbour radius. m, finite, >= 0.
    float rCohesion = 20.0f;
    /// Separation neighbour radius. m, finite, >= 0.
    float rSeparation = 2.5f;
    /// Alignment neighbour radius. m, finite, >= 0.
    float rAlignment = 20.0f;

    /// Limit on the length of the acceleration. m/s^2, finite, > 0.
    float maxAcceleration = 4.0f;
    /// Limit on the length of the velocity. m/s, finite, > 0.
    float maxVelocity = 3.0f;

    /// Half extents of the tank [-bx,bx] x [-by,by] x [-bz,bz]; y is up. m, finite, > 0.
    glm::vec3 bounds{40.0f, 20.0f, 40.0f};
    /// "walls" (the default), "periodic" or "open": what a fish meets at the tank's faces.
    Boundary boundary = Boundary::Walls;
    /// "box" (the default) or "cylinder": a round tank inside the box, with walls.
    Arena arena = Arena::Box;
    /// The round tank's radius. m, finite, >= 0, at most the smaller of bounds x and z; 0, the
    /// default, takes that smaller half extent. Read only with arena "cylinder".
    float arenaRadius = 0.0f;
    /// 3 (the default) or 2: a flat school in the plane y = 0, where positions, velocities, the
    /// noise and every rule stay (docs/model.md, "Two dimensions"); 2 steers as
    /// lockVerticalSteering does.
    std::int64_t dimensions = 3;
    /// When true the vertical (y) component of the acceleration is zeroed.
    bool lockVerticalSteering = false;
    /// Field of view: the full angle of the cone, centred on a fish's heading, in which it sees
    /// neighbours. Degrees, finite, > 0 and <= 360; 360 sees all around (the article's model).
    float viewAngle = 360.0f;

    /// Weight of the steer toward `target` (seeking, as in the Unity boids of the sources). Finite,
    /// any sign; 0, the default, turns it off.
    float kTarget = 0.0f;
    /// The point the school seeks. m, finite; anywhere, though inside the tank makes sense.
    glm::vec3 target{0.0f, 0.0f, 0.0f};
    /// How seeking finds its way: "straight" or "flow-field" (around the rocks).
    TargetPath targetPath = TargetPath::Straight;
    /// Weight of the steer away from rocks ahead of contact; 0, the default, leaves only the
    /// bounce of docs/model.md's "One step", step 6. Finite, any sign.
    float kAvoidance = 0.0f;
    /// How far from a rock's surface a fish starts to steer away. m, finite, >= 0.
    float avoidanceDistance = 6.0f;

    /// After the velocity clamp a slower fish is sped up to this speed. m/s, finite, 0 (off, the
    /// default) to maxVelocity.
    float minVelocity = 0.0f;
    /// Angular noise: each step a fish's velocity turns by a random angle, normally distributed
    /// with this standard deviation (drawn from the seed, the fish and the step); with steering
    /// "vicsek" the width of the uniform interval [-noise/2, noise/2] (Vicsek's eta). Radians,
    /// finite, 0 (off, the default) to 10.
    float noise = 0.0f;
    /// "article" (the default), "reynolds", "couzin", "vicsek" or "burst-and-coast"
    /// (docs/model.md): how the rules steer.
    Steering steering = Steering::Article;
    /// Steering "couzin": how fast a fish turns toward its desired direction at most. Degrees per
    /// second, finite, > 0 and <= 1e6.
    float maxTurnRate = 180.0f;
    /// "none" (the default) or "inverse-square": the weight of each separation offset.
    SeparationFalloff separationFalloff = SeparationFalloff::None;
    /// "sum" (the default) or "prioritized": how the forces are combined.
    Combine combine = Combine::Sum;
    /// "repel" (the default) or "rays": how avoidance steers.
    Avoidance avoidance = Avoidance::Repel;

    /// Leaders: the first `leaders` fish (by upload index) ignore the flock and swim on, or seek
    /// the target when kTarget is set. 0 (off, the default) to kMaxFishCount.
    std::int64_t leaders = 0;
    /// Weight of a follower's steer toward the nearest leader it sees. Finite, any sign.
    float kLeader = 1.0f;
    /// Predators: the `predators` fish after the leaders chase the nearest other fish. 0 (off,
    /// the default) to kMaxFishCount; leaders + predators at most fishCount.
    std::int64_t predators = 0;
    /// Limit on the length of a predator's velocity. m/s, finite, > 0, at most 1e6.
    float predatorMaxVelocity = 7.0f;
    /// Weight of a fish's steer away from the predators within fleeRadius. Finite, any sign.
    float kFlee = 4.0f;
    /// How far from a predator a fish starts to flee. m, finite, >= 0.
    float fleeRadius = 10.0f;

    /// Static spheres; each inside the tank with a gap >= maxVelocity * dt to every wall.
    std::vector<Rock> rocks = defaultRocks();

    /// Neighbour search: "all-pairs" (the article's, the reference) or "grid".
    NeighborSearch neighborSearch = NeighborSearch::Grid;
    /// "metric" (the default): every fish within each rule's radius; "topological": the
    /// neighborCount nearest other fish within the largest radius (Ballerini et al. 2008), each
    /// rule then applying its own radius and field of view to them.
    NeighborSelection neighborSelection = NeighborSelection::Metric;
    /// The neighbours neighborSelection "topological" or "influential" heeds: 1 to
    /// kMaxNeighborCount.
    std::int64_t neighborCount = 7;

    /// Steering "burst-and-coast" (docs/model.md "Burst-and-coast swimming"; Calovi et al. 2018,
    /// the paper's values by default). Between kicks a fish glides straight, its speed decaying
    /// with the time constant kickTau0 (s).
    float kickTau0 = 0.8f;
    /// A kick's duration: kickDurationMin + (kickDurationMean - kickDurationMin) * Gamma(2, 1/2).
    /// s, kickDurationMin > 0, kickDurationMean > kickDurationMin.
    float kickDurationMin = 0.2f;
    float kickDurationMean = 0.52f;
    /// A kick's peak speed: kickSpeedMin + kickSpeedMean * Gamma(3, 1/3), drawn again while above
    /// kickSpeedMax. m/s.
    float kickSpeedMin = 0.01f;
    float kickSpeedMean = 0.43f;
    float kickSpeedMax = 0.35f;
    /// The wall's turn: gammaWall exp(-(r_w / wallLength)^2) sin(theta_w) (1 + wallCos2 cos(2
    /// theta_w)). Radians, m, and a number.
    float gammaWall = 0.15f;
    float wallLength = 0.06f;
    float wallCos2 = 0.7f;
    /// The random turn: gammaRandom (1 - alphaWall exp(-(r_w / wallLength)^2)) g, g ~ N(0, 1).
    float gammaRandom = 0.45f;
    float alphaWall = 2.0f / 3.0f;
    /// The turn toward a neighbour at distance d: gammaAttraction ((d - attractionD0) /
    /// attractionScale) / (1 + (d / attractionLength)^2) times the angular functions.
    float gammaAttraction = 0.12f;
    float attractionD0 = 0.03f;
    float attractionScale = 0.03f;
    float attractionLength = 0.2f;
    /// The turn to a neighbour's heading: gammaAlignment ((d + 0.03) / 0.06) exp(-(d /
    /// alignmentLength)^2) times the angular functions.
    float gammaAlignment = 0.09f;
    float alignmentLength = 0.2f;
    /// The groups measure (docs/model.md "Measures of the school"): fish closer than this are
    /// in one group, and so are the fish linked by chains of such pairs. m, finite, >= 0; 0, the
    /// default, takes rCohesion. Measures only: the step does not read it.
    float groupDistance = 0.0f;
    /// The state measure (Tunstrøm et al. 2013): polarized when polarization is above
    /// stateHigh and rotation below stateLow, milling the other way round, swarm when both are
    /// below stateLow, else transitional. In [0, 1], stateLow < stateHigh. Measures only.
    float stateHigh = 0.65f;
    float stateLow = 0.35f;

    /// A fish's mass, for its kinetic energy (separationScaling "kinetic-energy"). kg, finite, > 0,
    /// at most 1e6.
    float mass = 1.0f;
    /// A fish's length as drawn. m, finite, > 0, at most 1e6.
    float bodyLength = 1.5f;
    /// "none" (the default) or "kinetic-energy": separation offsets scaled by KE_j / KE_i.
    SeparationScaling separationScaling = SeparationScaling::None;
    /// Weight of the sidestep (seed 004): a steer across the heading, away from the neighbours
    /// within rSeparation that close in. Finite, any sign; 0, the default, turns it off.
    float kSidestep = 0.0f;
    /// Whom a fish schools with: "all" (the default) or its "own" species.
    SchoolsWith schoolsWith = SchoolsWith::All;
    /// Informed fish (Couzin et al. 2005): the direction they prefer. Finite; not zero where
    /// kPreferred is not 0. Its length does not matter.
    glm::vec3 preferredDirection{1.0f, 0.0f, 0.0f};
    /// Weight of the preferred direction (the paper's omega); 0, the default, turns it off.
    /// Finite, size at most 1e6.
    float kPreferred = 0.0f;
    /// The species of the school, at most kMaxSpecies; none (the default): every fish is of the
    /// config's one kind. Species k holds the fish after those of species 0 to k-1 in a new school.
    std::vector<Species> species;
    /// Where a new school starts: uniform in the ball of this radius about the tank's centre
    /// (within the tank), rather than in the whole tank, so that a group that must start within
    /// reach of itself (Couzin et al. 2005) can swim in a tank much larger than it. m, finite,
    /// >= 0; 0, the default: the whole tank.
    float startRadius = 0.0f;

    bool operator==(const SimParams&) const = default;
};

/// What a fish of the school is, from its index: the first `leaders` lead, the next `predators`
/// prey on the others, the rest are plain fish.
enum class FishKind { Fish, Leader, Predator };

FISHSCHOOL_API FishKind fishKind(std::size_t index, const SimParams& params);
FISHSCHOOL_API std::string_view toString(FishKind kind);
/// Whether the school has fish of other kinds than plain fish (leaders or predators).
FISHSCHOOL_API bool hasKinds(const SimParams& params);

/// The largest fish count accepted anywhere (config, CLI, UI): 16 million fish, about 600 MB of
/// state per copy.
inline constexpr std::int64_t kMaxFishCount = 16'000'000;
/// Every fish tests every rock each step, and validation tests every pair of rocks.
inline constexpr std::size_t kMaxRocks = 256;

/// The most species a school may have: the GPU's table of species holds this many.
inline constexpr std::size_t kMaxSpecies = 16;

/// The number of species the step tells apart: params.species.size(), or 1 without species.
FISHSCHOOL_API std::size_t speciesCount(const SimParams& params);

/// The radius of the round tank (arenaRadius, or the box's smaller x-z half extent for 0); 0 for
/// the box.
FISHSCHOOL_API float arenaRadiusOf(const SimParams& params);
/// The species of fish `index` of a new school: the species whose range of indices holds it (0
/// without species, and past the last species).
FISHSCHOOL_API std::uint32_t speciesOf(std::uint64_t index, const SimParams& params);
/// The parameters the fish of species `s` step with: `params` with the keys the species sets,
/// and no species. Without species (s = 0): `params` without change.
FISHSCHOOL_API SimParams paramsOfSpecies(const SimParams& params, std::size_t s);
/// Whether any fish of `params` steps with species' own values or the seed-004 behaviours: the
/// step then reads the species of each fish and its neighbours.
FISHSCHOOL_API bool usesSpecies(const SimParams& params);

/// Checks the rule of every key of paramTable() and the rules that tie keys together (the tank,
/// the rocks). The error names the key, the value and what is allowed, e.g.
/// "rCohesion: -1 is not allowed; must be finite and >= 0".
[[nodiscard]] FISHSCHOOL_API Result<void> validate(const SimParams& params);

/// The largest of the three neighbour radii, of every species.
FISHSCHOOL_API float maxRadius(const SimParams& params);
/// The half extents the neighbour grid spans: the tank's, with y 0 in 2D (a school in the plane
/// y = 0 needs one layer of cells).
FISHSCHOOL_API glm::vec3 gridBounds(const SimParams& params);
/// The largest speed limit of any fish: maxVelocity of every species, and predatorMaxVelocity
/// when there are predators.
FISHSCHOOL_API float fastestSpeed(const SimParams& params);

}  // namespace fishschool
