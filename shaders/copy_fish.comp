#version 430
// Copies the current half of the fish buffer into a staging buffer for read-back, so that the
// simulation buffer itself is never the source of a transfer (drivers may move a buffer that is
// read back out of video memory).
layout(local_size_x = WORKGROUP_SIZE) in;

#include "fish_layout.glsl"

layout(std430, binding = 8) writeonly buffer Staging { Fish staged[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < STEP_FISH_COUNT(params)) staged[i] = fish[STEP_FIRST_FISH_READ(params) + i];
}
