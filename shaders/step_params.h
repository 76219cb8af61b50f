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
const uint kFeatureSetCount = 128u;  // the indices of the sets, used or not
// The cheap modes (minVelocity, steering "reynolds", combine, avoidance "rays", noise) have no bit:
// they are a branch on a value of StepParamsData.modes or .noise, the same for every fish of the
// step.

// Whether the step being compiled has `feature` on: a constant in both languages, so the code
// behind a feature that is off is never generated.
#define STEP_HAS(feature) ((STEP_FEATURES & (feature)) != 0u)

// The kind of a fish, from its upload index: the first params.kinds.x lead, those up to
// params.kinds.y prey on the others, the rest are fish.
const uint kKindFish = 0u;
const uint kKindLeader = 1u;
const uint kKindPredator = 2u;

// The step's parameters, as the step reads them (makeStepParams builds them from SimParams). On
// the GPU the one member of the std140 uniform block StepParams.
struct StepParamsData {
    vec4 radiiSquared;  // cohesion, separation, alignment; w: cos(viewAngle / 2)
    vec4 weights;       // kCohesion, kSeparation, kAlignment; w unused
    vec4 limits;        // maxAcceleration, maxVelocity, dt, lockVerticalSteering (0 or 1)
    vec4 bounds;        // xyz half extents of the tank
    vec4 gridOrigin;    // GPU grid: xyz origin, w cell size
    uvec4 gridDims;     // GPU grid: xyz cells per axis, w cells searched on each side (reach)
    uvec4 counts;       // fish, rocks, first fish read, first fish written (GPU halves)
    vec4 target;        // xyz the point the school seeks, w kTarget
    vec4 avoidance;     // x kAvoidance, y avoidanceDistance
    vec4 flowOrigin;    // xyz the flow field's first node, w node spacing
    uvec4 flowDims;     // xyz nodes per axis
    vec4 modes;         // minVelocity; steering, combine, avoidance: 1 for the mode beyond the
                        // article's ("reynolds", "prioritized", "rays"), else 0
    uvec4 kinds;        // leaders, leaders + predators (the first index of a plain fish)
    vec4 kindWeights;   // kLeader, kFlee, fleeRadius, predatorMaxVelocity
    vec4 noise;         // x noise (radians, standard deviation per step); y, z the cos and sin
                        // of the largest turn of a step (steering "couzin"); w unused
    uvec4 random;       // the seed's low and high 32 bits; z the step's index (mod 2^32)
};

// SPEC step 1's sums over the neighbours of one fish.
// With kFeatureCouzin: cohesion and separation sum unit offsets, cohesion over the neighbours
// at rAlignment or further only (the paper's attraction shell).
struct NeighborSums {
    vec3 cohesion;    // sum of neighbour positions
    vec3 separation;  // sum of (p_j - p_i)
    vec3 alignment;   // sum of neighbour velocities
    uint cohesionCount;
    uint separationCount;
    uint alignmentCount;
};

// The next state of one fish.
struct FishUpdate {
    vec3 position;      // m
    vec3 velocity;      // m/s
    vec3 acceleration;  // m/s^2, the acceleration of this step
};
