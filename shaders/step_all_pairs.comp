#version 430
// One step, all-pairs, with the classic N-body tiling: each workgroup loads a tile of fish into
// shared memory, then every invocation reads the whole tile from there.
// WORKGROUP_SIZE is defined by the backend.
layout(local_size_x = WORKGROUP_SIZE) in;

#include "fish_layout.glsl"
#include "step_rule.glsl"

shared vec4 tilePosition[WORKGROUP_SIZE];
shared vec4 tileVelocity[WORKGROUP_SIZE];

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = params.counts.x;
    uint src = params.counts.z;
    bool inRange = i < n;
    Fish self = fish[src + min(i, n - 1u)];
    vec3 heading = normalizeOrZero(self.velocity);  // the field of view is centred on it
    NeighborSums sums = emptySums();

    for (uint tileStart = 0u; tileStart < n; tileStart += WORKGROUP_SIZE) {
        uint j = tileStart + gl_LocalInvocationID.x;
        if (j < n) {
            tilePosition[gl_LocalInvocationID.x] = vec4(fish[src + j].position, 0.0);
            tileVelocity[gl_LocalInvocationID.x] = vec4(fish[src + j].velocity, 0.0);
        }
        barrier();
        uint tileCount = min(uint(WORKGROUP_SIZE), n - tileStart);
        for (uint k = 0u; k < tileCount; ++k) {
            if (tileStart + k != i)
                accumulateNeighbor(self.position, heading, tilePosition[k].xyz, tileVelocity[k].xyz, sums);
        }
        barrier();
    }
    if (inRange) fish[params.counts.w + i] = integrateFish(self, sums);
}
