// The data shared with C++: the step's parameters (step_params.h), the fish and binding points
// (gpu_layout.h), and the blocks that hold them under the names step_rule.h reads.

#include "step_params.h"
#include "gpu_layout.h"

#ifdef STEP_PACK_PER_FISH
// The step shaders: each fish steps with its species' pack, which step_rule.h reads as `params`.
// main sets stepSpecies from the fish when kFeatureSpecies is on; otherwise it stays 0, a
// constant, and every read is of the one pack at a fixed offset, as from a plain block.
layout(std140, binding = 14) uniform SpeciesParams { SpeciesTable speciesTable; };
uint stepSpecies = 0u;
#define params speciesTable.packs[stepSpecies]
// step_rule.h's per-fish types and branches: on the GPU an invocation steps one fish.
#define real float
#define flag bool
#define rvec3 vec3
#define rvec4 vec4
#define ruint uint
#define LaneSums NeighborSums
#define LaneUpdate FishUpdate
#define select(c, a, b) ((c) ? (a) : (b))
#define anyLane(c) (c)
#define STEP_IF_HAS(feature) if (STEP_HAS(feature))
#else
layout(std140, binding = 0) uniform StepParams { StepParamsData params; };
#endif

layout(std430, binding = 1) buffer FishBuffer { Fish fish[]; };
layout(std430, binding = 2) readonly buffer RockBuffer { vec4 rocks[]; };  // xyz centre, w radius
layout(std430, binding = 9) readonly buffer FlowField { vec4 flow[]; };    // a direction per node
// Position and velocity of each leader and predator, by upload index (gather_specials.comp).
layout(std430, binding = 10) buffer Specials { vec4 specials[]; };

// The school as steering "burst-and-coast" reads it (step_rule.h): the fish of the half read.
uint schoolCount() {
    return STEP_FISH_COUNT(params);
}
vec3 schoolPosition(uint j) {
    return fish[STEP_FIRST_FISH_READ(params) + j].position;
}
vec3 schoolVelocity(uint j) {
    return fish[STEP_FIRST_FISH_READ(params) + j].velocity;
}
uint schoolId(uint j) {
    return fish[STEP_FIRST_FISH_READ(params) + j].id;
}

