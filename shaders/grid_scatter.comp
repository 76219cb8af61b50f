#version 430
// Grid pass 3: copies each fish from the half it was read from into the other half, in cell
// order, so that the fish of a row of cells sit together for the search (the whole fish, species
// too), and packs their positions.
layout(local_size_x = WORKGROUP_SIZE) in;

#include "fish_layout.glsl"

layout(std430, binding = 4) readonly buffer CellStarts { uint cellStarts[]; };
layout(std430, binding = 5) readonly buffer FishCells { uvec2 fishCells[]; };
layout(std430, binding = 7) writeonly buffer SortedPositions { vec4 sortedPositions[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= STEP_FISH_COUNT(params)) return;
    uvec2 cellAndRank = fishCells[i];
    uint slot = cellStarts[cellAndRank.x] + cellAndRank.y;
    Fish f = fish[STEP_FIRST_FISH_READ(params) + i];
    fish[STEP_FIRST_FISH_WRITTEN(params) + slot] = f;
    // A packed copy of the positions: the search reads every candidate's position but only the
    // velocities of alignment neighbours. w: the species (schoolsWith "own" reads every
    // candidate's), as a float, exact up to the table's size.
    sortedPositions[slot] = vec4(f.position, float(min(f.species, kSpeciesTableSize)));
}
