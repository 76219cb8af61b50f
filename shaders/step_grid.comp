#version 430
// One step with the grid: the fish were sorted by cell into the half read here; each fish visits
// the rows of cells within `reach` of its own, each row one contiguous run of fish.
layout(local_size_x = WORKGROUP_SIZE) in;

#include "fish_layout.glsl"
#include "step_rule.glsl"

layout(std430, binding = 4) readonly buffer CellStarts { uint cellStarts[]; };
layout(std430, binding = 7) readonly buffer SortedPositions { vec4 sortedPositions[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= params.counts.x) return;
    uint src = params.counts.z;
    Fish self = fish[src + i];
    vec3 heading = normalizeOrZero(self.velocity);  // the field of view is centred on it
    NeighborSums sums = emptySums();
    ivec3 cell = ivec3(cellOf(self.position));
    ivec3 dims = ivec3(params.gridDims.xyz);
    int reach = int(params.gridDims.w);
    int x0 = max(cell.x - reach, 0), x1 = min(cell.x + reach, dims.x - 1);
    for (int z = max(cell.z - reach, 0); z <= min(cell.z + reach, dims.z - 1); ++z) {
        for (int y = max(cell.y - reach, 0); y <= min(cell.y + reach, dims.y - 1); ++y) {
            uint first = cellStarts[cellIndex(uvec3(x0, y, z))];
            uint last = cellStarts[cellIndex(uvec3(x1, y, z)) + 1u];
            for (uint j = first; j < last; ++j) {
                vec3 pj = sortedPositions[j].xyz;
                vec3 d = pj - self.position;
                float d2 = dot(d, d);
                if (j == i || !inView(heading, d, d2)) continue;
                if (d2 < params.radiiSquared.x) {
                    sums.cohesion += pj;
                    sums.cohesionCount++;
                }
                if (d2 < params.radiiSquared.y) {
                    sums.separation += d;
                    sums.separationCount++;
                }
                if (d2 < params.radiiSquared.z) {
                    sums.alignment += fish[src + j].velocity;
                    sums.alignmentCount++;
                }
            }
        }
    }
    fish[params.counts.w + i] = integrateFish(self, sums);
}
