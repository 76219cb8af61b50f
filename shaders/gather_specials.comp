#version 430
// Position and velocity of every leader and predator of the half the step reads, by upload index,
// so that the step finds them without a search. WORKGROUP_SIZE is defined by the backend.
layout(local_size_x = WORKGROUP_SIZE) in;

#include "fish_layout.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= STEP_FISH_COUNT(params)) return;
    Fish f = fish[STEP_FIRST_FISH_READ(params) + i];
    if (f.id < STEP_PREDATORS_END(params)) {
        specials[2u * f.id] = vec4(f.position, 0.0);
        specials[2u * f.id + 1u] = vec4(f.velocity, 0.0);
    }
}
