#version 430
// Grid pass 1: the cell of each fish and its rank among the fish of that cell.
layout(local_size_x = WORKGROUP_SIZE) in;

#include "fish_layout.glsl"
#include "grid.glsl"

layout(std430, binding = 3) buffer CellCounts { uint cellCounts[]; };
layout(std430, binding = 5) writeonly buffer FishCells { uvec2 fishCells[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= STEP_FISH_COUNT(params)) return;
    uint cell = gridSlotOf(fish[STEP_FIRST_FISH_READ(params) + i].position);
    fishCells[i] = uvec2(cell, atomicAdd(cellCounts[cell], 1u));
}
