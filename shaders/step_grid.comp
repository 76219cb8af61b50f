#version 430
// One step with the grid: the fish were sorted by cell into the half read here; each fish visits
// the rows of cells within `reach` of its own, each row one contiguous run of fish.
// WORKGROUP_SIZE and STEP_FEATURES are defined by the backend.
layout(local_size_x = WORKGROUP_SIZE) in;

#define STEP_PACK_PER_FISH
#include "fish_layout.glsl"
#include "step_rule.h"
#include "grid.glsl"

layout(std430, binding = 4) readonly buffer CellStarts { uint cellStarts[]; };
// xyz the position, w the species (at most kSpeciesTableSize), in cell order (grid_scatter.comp).
layout(std430, binding = 7) readonly buffer SortedPositions { vec4 sortedPositions[]; };

#define NEIGHBOR_VELOCITY(j) fish[STEP_FIRST_FISH_READ(params) + (j)].velocity
#define NEIGHBOR_SPECIES(j) tableSpecies(uint(sortedPositions[j].w))
#define NEIGHBOR_ENERGY(j) kineticEnergy(NEIGHBOR_VELOCITY(j), NEIGHBOR_SPECIES(j))
#define NEIGHBOR_ID(j) fish[STEP_FIRST_FISH_READ(params) + (j)].id
#define NEIGHBOR_HANDLE(j) (j)  // its slot
#define HANDLE_ID(h) NEIGHBOR_ID(h)
#include "neighbor_sums.glsl"

// The offset on an axis of the m-th of a fish's 2 reach + 1 cells: in the first pass of
// topological selection its own first, then outwards (0, -1, 1, -2, 2...); else in order.
int cellOffset(uint pass, int m, int reach) {
    if (pass == 0u) return (m & 1) != 0 ? -(m + 1) / 2 : m / 2;
    return m - reach;
}

// The squared distance from p, in cell `own`, to the cell `offset` cells away, less a thousandth
// of a cell on each axis for rounding: no fish sorted there lies nearer by way of that offset. The
// whole cells between count a cell each: in a periodic tank the last on an axis may be wider,
// never narrower. In a tank, cellOf clamps to the grid, so a fish outside it lies beyond its border
// cell, on the far side from p. In a periodic tank a fish's other image lies the other way round,
// past at least `reach` cells of the 2 reach + 1 or more an axis, so beyond the largest radius:
// never kept, whatever the bound.
float cellGap2(vec3 p, ivec3 own, ivec3 offset) {
    float size = STEP_GRID_CELL_SIZE(params);
    vec3 low = STEP_GRID_ORIGIN(params) + vec3(own) * size;
    vec3 towardsHigh = max(low + size - p, vec3(0.0)) + vec3(offset - 1) * size;
    vec3 towardsLow = max(p - low, vec3(0.0)) + vec3(-offset - 1) * size;
    vec3 gap = mix(mix(vec3(0.0), towardsLow, lessThan(offset, ivec3(0))), towardsHigh,
                   greaterThan(offset, ivec3(0)));
    gap = max(gap - 0.001 * size, vec3(0.0));
    return dot(gap, gap);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= STEP_FISH_COUNT(params)) return;
    Fish self = fish[STEP_FIRST_FISH_READ(params) + i];
    // From here on `params` is the pack of this fish's species.
    if (STEP_HAS(kFeatureSpecies)) stepSpecies = tableSpecies(self.species);
    Searcher me = searcherOf(self);
    NeighborSums sums = emptySums();
    ivec3 cell = ivec3(cellOf(self.position));
    ivec3 dims = ivec3(STEP_GRID_DIMS(params));
    int reach = int(STEP_GRID_REACH(params));
    if (firstPass() == 0u) startNearest();
    for (uint pass = firstPass(); pass < 2u; ++pass) {
        if (STEP_BOUNDARY(params) == kBoundaryOpen) {
            // Open water: the 27 cells around (a reach of 1), each bucket once though two cells
            // share it; a bucket's fish of other cells lie beyond every radius or are counted once.
            cell = openCellOf(self.position);
            uint seen[27];
            int seenCount = 0;
            for (int dz = -1; dz <= 1; ++dz) {
                for (int dy = -1; dy <= 1; ++dy) {
                    for (int dx = -1; dx <= 1; ++dx) {
                        uint bucket = bucketOf(cell + ivec3(dx, dy, dz));
                        bool visited = false;
                        for (int k = 0; k < seenCount; ++k) visited = visited || seen[k] == bucket;
                        if (visited) continue;
                        seen[seenCount++] = bucket;
                        for (uint j = cellStarts[bucket]; j < cellStarts[bucket + 1u]; ++j) {
                            vec3 pj = sortedPositions[j].xyz;
                            vec3 d = pj - self.position;
                            if (j != i) visitNeighbor(pass, me, pj, d, dot(d, d), j, sums);
                        }
                    }
                }
            }
        } else if (STEP_BOUNDARY(params) == kBoundaryPeriodic) {
            // A periodic tank: the cells wrap round (the grid holds at least 2 reach + 1 on each
            // axis, so none is visited twice) and each candidate is seen at its nearest image.
            // A flat grid (2D: one layer in y) holds every fish in its one layer: no wrap in y.
            // Topological: cell by cell as in a tank below, each skipped past the k-th kept.
            int reachY = dims.y == 1 ? 0 : reach;
            for (int mz = 0; mz <= 2 * reach; ++mz) {
                for (int my = 0; my <= 2 * reachY; ++my) {
                    for (int mx = 0; mx <= 2 * reach; ++mx) {
                        ivec3 offset = ivec3(cellOffset(pass, mx, reach),
                                             cellOffset(pass, my, reachY),
                                             cellOffset(pass, mz, reach));
                        if (STEP_HAS(kFeatureTopological) &&
                            cellGap2(self.position, cell, offset) > keptD2[kKthKept])
                            continue;
                        uvec3 c = uvec3((cell + offset + dims) % dims);
                        uint first = cellStarts[cellIndex(c)];
                        uint last = cellStarts[cellIndex(c) + 1u];
                        for (uint j = first; j < last; ++j) {
                            vec3 d = nearestImage(sortedPositions[j].xyz - self.position);
                            vec3 pj = self.position + d;
                            if (j != i) visitNeighbor(pass, me, pj, d, dot(d, d), j, sums);
                        }
                    }
                }
            }
        } else if (STEP_HAS(kFeatureTopological)) {
            // A tank, topological: cell by cell, each skipped where it lies past the k-th kept
            // (in the first pass, the k-th so far: it holds none that would be kept). The first
            // pass starts at the fish's own cell and goes outwards, so that the k-th narrows
            // early; the second visits the cells in the order of the rows below (the sums' order).
            for (int mz = 0; mz <= 2 * reach; ++mz) {
                for (int my = 0; my <= 2 * reach; ++my) {
                    for (int mx = 0; mx <= 2 * reach; ++mx) {
                        ivec3 offset = ivec3(cellOffset(pass, mx, reach),
                                             cellOffset(pass, my, reach),
                                             cellOffset(pass, mz, reach));
                        ivec3 c = cell + offset;
                        if (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, dims))) continue;
                        if (cellGap2(self.position, cell, offset) > keptD2[kKthKept]) continue;
                        uint first = cellStarts[cellIndex(uvec3(c))];
                        uint last = cellStarts[cellIndex(uvec3(c)) + 1u];
                        for (uint j = first; j < last; ++j) {
                            vec3 pj = sortedPositions[j].xyz;
                            vec3 d = pj - self.position;
                            if (j != i) visitNeighbor(pass, me, pj, d, dot(d, d), j, sums);
                        }
                    }
                }
            }
        } else {
            int x0 = max(cell.x - reach, 0), x1 = min(cell.x + reach, dims.x - 1);
            for (int z = max(cell.z - reach, 0); z <= min(cell.z + reach, dims.z - 1); ++z) {
                for (int y = max(cell.y - reach, 0); y <= min(cell.y + reach, dims.y - 1); ++y) {
                    uint first = cellStarts[cellIndex(uvec3(x0, y, z))];
                    uint last = cellStarts[cellIndex(uvec3(x1, y, z)) + 1u];
                    for (uint j = first; j < last; ++j) {
                        vec3 pj = sortedPositions[j].xyz;
                        vec3 d = pj - self.position;
                        if (j != i) visitNeighbor(pass, me, pj, d, dot(d, d), j, sums);
                    }
                }
            }
        }
    }
    vec3 prey = self.position;
    if (STEP_HAS(kFeatureKinds) && kindOf(self.id) == kKindPredator)
        prey = nearestPrey(i, self.position);
    FishUpdate next =
        integrateFish(self.position, self.velocity, self.kickClock, sums, self.id, prey);
    fish[STEP_FIRST_FISH_WRITTEN(params) + i] =
        Fish(next.position, self.id, next.velocity, self.species, next.acceleration,
                 next.kickClock);
}
