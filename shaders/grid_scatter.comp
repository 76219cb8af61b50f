#version 430
// Grid pass 3: copies each fish from the half it was read from into the other half, in cell
// order, so that the fish of a row of cells sit together for the search.
layout(local_size_x = WORKGROUP_SIZE) in;

#include "fish_layout.glsl"

layout(std430, binding = 4) readonly buffer CellStarts { uint cellStarts[]; };
layout(std430, binding = 5) readonly buffer FishCells { uvec2 fishCells[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= params.counts.x) return;
    uvec2 cellAndRank = fishCells[i];
    fish[params.counts.w + cellStarts[cellAndRank.x] + cellAndRank.y] = fish[params.counts.z + i];
}
