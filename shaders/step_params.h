// The step's parameter pack and the per-fish data of the step rule, defined once in the subset of
// C++ and GLSL that both read the same way. GLSL includes it from fish_layout.glsl; C++ from
// src/core/StepRule.h, inside the namespace fishschool::glsl that first names the GLSL types
// (vec3, vec4, uvec4, uint). No include guard: C++ includes it inside that namespace, once.

// The behaviours that cost work when on. A step is compiled for one set of them (STEP_FEATURES:
// a #define in the shaders, a template argument in C++), so a behaviour that is off costs
// nothing. makeStepParams()'s stepFeatures() says which are on.
const uint kFeatureFieldOfView = 1u;  // viewAngle < 360: the view test on every neighbour
const uint kFeatureSeek = 2u;         // kTarget != 0, straight at the target
const uint kFeatureFlowField = 4u;    // kTarget != 0 along the flow field (never with kFeatureSeek)
const uint kFeatureAvoidance = 8u;    // kAvoidance != 0 and avoidanceDistance > 0
const uint kFeatureInverseSquare = 16u;  // separationFalloff "inverse-square": 1/d^2 per offset
const uint kFeatureKinds = 32u;  // leaders or predators: the fish of other kinds, read per fish
// Steering "couzin": the paper's zones in the sums (unit offsets, attraction from the outer shell
// only) and its rule in place of steps 2 to 4. It reads none of the behaviours above but the
// field of view, so it comes alone or with kFeatureFieldOfView (usedFeatureSet in StepRule.h).
const uint kFeatureCouzin = 64u;
// Species, or seed 004's unit behaviours (separationScaling "kinetic-energy", kSidestep) or
// informed fish (kPreferred): each fish steps with its species' parameters (the species' own
// StepParamsData), and the sums read each neighbour's species and kinetic energy.
const uint kFeatureSpecies = 128u;
// Steering "vicsek": the alignment sum adds each neighbour's unit heading, not its velocity, and
// the paper's rule replaces steps 2 to 4. Like "couzin" it reads the field of view alone of the
// behaviours above, so it comes alone or with kFeatureFieldOfView (and species).
const uint kFeatureVicsek = 256u;
// neighborSelection "topological": each fish heeds its STEP_NEIGHBOR_COUNT nearest within the
// largest radius (the sums skip the others). Like species it comes with the field of view and,
// but for "couzin" and "vicsek", seeking, avoidance and the kinds, each asked at run time.
const uint kFeatureTopological = 512u;
// Steering "burst-and-coast": kicks and glides (docs/model.md "Burst-and-coast swimming"), the
// neighbours read by the rule itself at each kick, not summed every step. It comes alone.
const uint kFeatureBurst = 1024u;
const uint kFeatureSetCount = 2048u;  // the indices of the sets, used or not
// The most neighbours neighborSelection "topological" or "influential" keeps (kMaxNeighborCount
// of SimParams.h).
const uint kMaxNeighborCount = 64u;
// The cheap modes (minVelocity, steering "reynolds", combine, avoidance "rays", noise,
// dimensions) have no bit:
// they are a branch on a value of StepParamsData.modes or .noise, the same for every fish of the
// step.

// Whether the step being compiled has `feature` on: a constant in both languages, so the code
// behind a feature that is off is never generated.
#define STEP_HAS(feature) ((STEP_FEATURES & (feature)) != 0u)

// The kind of a fish, from its upload index: below STEP_LEADERS_END lead, those up to
// STEP_PREDATORS_END prey on the others, the rest are fish.
const uint kKindFish = 0u;
const uint kKindLeader = 1u;
const uint kKindPredator = 2u;

// Past this a component's square, summed with two others, may overflow a float (3.4e38). Tested
// by comparison, never by isinf() of a length: a GLSL compiler may assume there are no
// infinities.
const float kLargestSafeComponent = 1.0e19f;
// What such a vector is scaled by: 2^-100, a power of two, so exact. Not a division by its
// largest component: GPUs divide by multiplying with the reciprocal, and 1 / 3e38 is below the
// smallest normal float, flushed to zero (on an H100 a target at 3e38 gave no direction at all).
const float kOverflowScale = 7.8886090522101181e-31f;
// Past this a value is as good as infinite: a comparison that stands for isinf() (see above).
const float kOverflowing = 3.0e38f;

// The step's parameters, as the step reads them (makeStepParams builds them from SimParams). On
// the GPU the one member of the std140 uniform block StepParams.
struct StepParamsData {
    vec4 radiiSquared;  // cohesion, separation, alignment; w: cos(viewAngle / 2)
    vec4 weights;       // kCohesion, kSeparation, kAlignment; w the round tank's radius (0: box)
    vec4 limits;        // maxAcceleration, maxVelocity, dt, lockVerticalSteering (0 or 1)
    vec4 bounds;        // xyz half extents of the tank; w the boundary (kBoundary*)
    vec4 gridOrigin;    // GPU grid: xyz origin, w cell size
    uvec4 gridDims;     // GPU grid: xyz cells per axis, w cells searched on each side (reach)
    uvec4 counts;       // fish, rocks, first fish read, first fish written (GPU halves)
    vec4 target;        // xyz the point the school seeks, w kTarget
    vec4 avoidance;     // x kAvoidance, y avoidanceDistance; z neighborCount; w the neighbour
                        // selection (kSelection*)
    vec4 flowOrigin;    // xyz the flow field's first node, w node spacing
    uvec4 flowDims;     // xyz nodes per axis
    vec4 modes;         // minVelocity; steering, combine, avoidance: 1 for the mode beyond the
                        // article's ("reynolds", "prioritized", "rays"), else 0
    uvec4 kinds;        // leaders, leaders + predators (the first index of a plain fish)
    vec4 kindWeights;   // kLeader, kFlee, fleeRadius, predatorMaxVelocity
    vec4 noise;         // x noise (radians, standard deviation per step); y, z the cos and sin
                        // of the largest turn of a step (steering "couzin"); w 1 for steering
                        // "vicsek", else 0
    uvec4 random;       // the seed's low and high 32 bits; z the step's index (mod 2^32)
    vec4 unit;          // mass, kSidestep; z 1 for separationScaling "kinetic-energy", else 0;
                        // w 1 when the fish schools with its own species only, else 0
    vec4 preferred;     // xyz the preferred direction (a unit vector), w kPreferred
    // Steering "burst-and-coast":
    vec4 kick;           // kickTau0, kickDurationMin, kickDurationMean, kickSpeedMax
    vec4 kickSpeed;      // kickSpeedMin, kickSpeedMean, gammaRandom, alphaWall
    vec4 wallTurn;       // gammaWall, wallLength, wallCos2; w unused
    vec4 attraction;     // gammaAttraction, attractionD0, attractionScale, attractionLength
    vec4 alignmentTurn;  // gammaAlignment, alignmentLength; z, w unused
};

// neighborSelection, as STEP_NEIGHBOR_SELECTION holds it.
const float kSelectionMetric = 0.0f;
const float kSelectionTopological = 1.0f;
const float kSelectionInfluential = 2.0f;

// What the tank's faces are (STEP_BOUNDARY, boundary in the config): a branch on a value that is
// the same for every fish of the step, so walls run the step they ran before it existed.
const float kBoundaryWalls = 0.0f;     // reflect a fish back inside
const float kBoundaryPeriodic = 1.0f;  // a periodic box: wrap, and the nearest image of every offset
const float kBoundaryOpen = 2.0f;      // no walls; the GPU grid is hashed (grid.glsl)

// Named reads of the packed parameters: `p` is a StepParamsData (`params` in the step rule).
// Every reader names a value by these, never by its slot; in C++ they can be assigned too
// (makeStepParams fills the pack through them). A new number the step reads: a free slot here.
#define STEP_COHESION_RADIUS2(p) ((p).radiiSquared.x)    // rCohesion^2
#define STEP_SEPARATION_RADIUS2(p) ((p).radiiSquared.y)  // rSeparation^2
#define STEP_ALIGNMENT_RADIUS2(p) ((p).radiiSquared.z)   // rAlignment^2
#define STEP_VIEW_COS(p) ((p).radiiSquared.w)            // cos(viewAngle / 2)
#define STEP_K_COHESION(p) ((p).weights.x)
#define STEP_K_SEPARATION(p) ((p).weights.y)
#define STEP_K_ALIGNMENT(p) ((p).weights.z)
#define STEP_MAX_ACCELERATION(p) ((p).limits.x)
#define STEP_MAX_VELOCITY(p) ((p).limits.y)
#define STEP_DT(p) ((p).limits.z)
#define STEP_LOCK_VERTICAL(p) ((p).limits.w)  // 1 when lockVerticalSteering or 2D, else 0
#define STEP_FISH_COUNT(p) ((p).counts.x)
#define STEP_ROCK_COUNT(p) ((p).counts.y)
#define STEP_FIRST_FISH_READ(p) ((p).counts.z)     // GPU: the half read
#define STEP_FIRST_FISH_WRITTEN(p) ((p).counts.w)  // GPU: the half written
#define STEP_K_TARGET(p) ((p).target.w)
#define STEP_K_AVOIDANCE(p) ((p).avoidance.x)
#define STEP_AVOIDANCE_DISTANCE(p) ((p).avoidance.y)
#define STEP_NEIGHBOR_COUNT(p) ((p).avoidance.z)  // neighborSelection "topological": k
#define STEP_NEIGHBOR_SELECTION(p) ((p).avoidance.w)  // kSelectionMetric, ...
#define STEP_KICK_TAU0(p) ((p).kick.x)
#define STEP_KICK_DURATION_MIN(p) ((p).kick.y)
#define STEP_KICK_DURATION_MEAN(p) ((p).kick.z)
#define STEP_KICK_SPEED_MAX(p) ((p).kick.w)
#define STEP_KICK_SPEED_MIN(p) ((p).kickSpeed.x)
#define STEP_KICK_SPEED_MEAN(p) ((p).kickSpeed.y)
#define STEP_GAMMA_RANDOM(p) ((p).kickSpeed.z)
#define STEP_ALPHA_WALL(p) ((p).kickSpeed.w)
#define STEP_GAMMA_WALL(p) ((p).wallTurn.x)
#define STEP_WALL_LENGTH(p) ((p).wallTurn.y)
#define STEP_WALL_COS2(p) ((p).wallTurn.z)
#define STEP_GAMMA_ATTRACTION(p) ((p).attraction.x)
#define STEP_ATTRACTION_D0(p) ((p).attraction.y)
#define STEP_ATTRACTION_SCALE(p) ((p).attraction.z)
#define STEP_ATTRACTION_LENGTH(p) ((p).attraction.w)
#define STEP_GAMMA_ALIGNMENT(p) ((p).alignmentTurn.x)
#define STEP_ALIGNMENT_LENGTH(p) ((p).alignmentTurn.y)
#define STEP_MIN_VELOCITY(p) ((p).modes.x)
#define STEP_REYNOLDS(p) ((p).modes.y)     // 1 for steering "reynolds"
#define STEP_PRIORITIZED(p) ((p).modes.z)  // 1 for combine "prioritized"
#define STEP_RAYS(p) ((p).modes.w)         // 1 for avoidance "rays"
#define STEP_LEADERS_END(p) ((p).kinds.x)    // leaders: upload indices below it
#define STEP_PREDATORS_END(p) ((p).kinds.y)  // predators: from STEP_LEADERS_END up to it
#define STEP_K_LEADER(p) ((p).kindWeights.x)
#define STEP_K_FLEE(p) ((p).kindWeights.y)
#define STEP_FLEE_RADIUS(p) ((p).kindWeights.z)
#define STEP_PREDATOR_MAX_VELOCITY(p) ((p).kindWeights.w)
#define STEP_NOISE(p) ((p).noise.x)          // radians, standard deviation per step
#define STEP_TURN_COS(p) ((p).noise.y)       // steering "couzin": cos of the largest turn
#define STEP_TURN_SIN(p) ((p).noise.z)       // and its sin
#define STEP_VICSEK(p) ((p).noise.w)  // 1 for steering "vicsek": noise is its uniform width
#define STEP_SEED_LOW(p) ((p).random.x)
#define STEP_SEED_HIGH(p) ((p).random.y)
#define STEP_INDEX(p) ((p).random.z)  // the step's index (mod 2^32), for the noise
#define STEP_MASS(p) ((p).unit.x)
#define STEP_K_SIDESTEP(p) ((p).unit.y)
#define STEP_ENERGY_SCALING(p) ((p).unit.z)  // 1 for separationScaling "kinetic-energy"
#define STEP_OWN_SPECIES(p) ((p).unit.w)     // 1 when schoolsWith "own"
#define STEP_K_PREFERRED(p) ((p).preferred.w)
#define STEP_PREFERRED_DIRECTION(p) vec3((p).preferred)  // a unit vector
#define STEP_ARENA_RADIUS(p) ((p).weights.w)  // arena "cylinder": its radius; 0 for the box
#define STEP_HALF_EXTENT(p, k) ((p).bounds[k])  // the tank's half extent on axis k
#define STEP_BOUNDARY(p) ((p).bounds.w)          // kBoundaryWalls, kBoundaryPeriodic or kBoundaryOpen
#define STEP_TARGET(p) vec3((p).target)         // the point the school seeks
#define STEP_FLOW_ORIGIN(p) vec3((p).flowOrigin)  // the flow field's first node
#define STEP_FLOW_SPACING(p) ((p).flowOrigin.w)   // between its nodes
#define STEP_FLOW_DIMS(p) uvec3((p).flowDims)     // nodes per axis
#define STEP_GRID_ORIGIN(p) vec3((p).gridOrigin)  // GPU grid: its lowest corner
#define STEP_GRID_CELL_SIZE(p) ((p).gridOrigin.w)
#define STEP_GRID_DIMS(p) uvec3((p).gridDims)  // GPU grid: cells per axis (open: x the buckets)
#define STEP_GRID_REACH(p) ((p).gridDims.w)    // GPU grid: cells searched on each side

// docs/model.md "One step", step 1: the sums over the neighbours of one fish.
// With kFeatureCouzin: cohesion and separation sum unit offsets, cohesion over the neighbours
// at rAlignment or further only (the paper's attraction shell). With kFeatureSpecies: cohesion and
// alignment over the species the fish schools with, separation offsets scaled by KE_j / KE_i
// (separationScaling "kinetic-energy"), and the sidestep sum (kSidestep != 0).
struct NeighborSums {
    vec3 cohesion;    // sum of neighbour positions
    vec3 separation;  // sum of (p_j - p_i)
    vec3 alignment;   // sum of neighbour velocities (kFeatureVicsek: of their unit headings)
    vec3 sidestep;    // sum over the separation neighbours that close in: the part of
                      // (p_j - p_i) across the heading, times the closing speed over d^2
    uint cohesionCount;
    uint separationCount;
    uint alignmentCount;
};

// The next state of one fish.
struct FishUpdate {
    vec3 position;      // m
    vec3 velocity;      // m/s
    vec3 acceleration;  // m/s^2, the acceleration of this step
    float kickClock;    // steering "burst-and-coast": s to the next kick; else 0
};
