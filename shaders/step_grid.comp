#version 430
// One step with the grid: the fish were sorted by cell into the half read here; each fish visits
// the rows of cells within `reach` of its own, each row one contiguous run of fish. In a tank
// with walls the fish of a workgroup search those rows together, through shared memory.
// STEP_FEATURES is defined by the backend, which dispatches a workgroup a SEARCH_GROUP_SIZE fish.
#define SEARCH_GROUP_SIZE 256u
layout(local_size_x = SEARCH_GROUP_SIZE) in;

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
#include "neighbor_sums.glsl"

// Walls: the workgroup's fish (neighbours in the sorted school) search together. The box of
// their cells, widened by the reach, is read into shared memory a block of candidates at a time,
// and every fish tests the whole block: one loop for all, where each fish's own rows would give
// each its own trip counts. A candidate of the box outside a fish's reach lies beyond its radii,
// and the others come in the fish's own order (rows in z then y, each by slot): the same sums,
// bit for bit. A box with many more candidates than any of its fish would read alone (a
// workgroup across the end of a row of cells) is searched fish by fish:
// kStagedCandidatesPerOwn bounds the box's candidates by the most one fish reads.
const uint kStagedCandidatesPerOwn = 3u;
shared uint boxLow[3], boxHigh[3];
shared uint boxCandidates, mostOwnCandidates;
shared vec4 stagedPositions[SEARCH_GROUP_SIZE];

// The candidates of the walled grid's rows from low to high (cells, inclusive).
uint candidatesIn(ivec3 low, ivec3 high) {
    uint count = 0u;
    for (int z = low.z; z <= high.z; ++z)
        for (int y = low.y; y <= high.y; ++y)
            count += cellStarts[cellIndex(uvec3(high.x, y, z)) + 1u] -
                     cellStarts[cellIndex(uvec3(low.x, y, z))];
    return count;
}

// The sums of fish i at p over the walled grid's rows from low to high, fish by fish.
void sumRows(uint i, Searcher me, vec3 p, ivec3 low, ivec3 high, inout NeighborSums sums) {
    for (int z = low.z; z <= high.z; ++z) {
        for (int y = low.y; y <= high.y; ++y) {
            uint first = cellStarts[cellIndex(uvec3(low.x, y, z))];
            uint last = cellStarts[cellIndex(uvec3(high.x, y, z)) + 1u];
            for (uint j = first; j < last; ++j) {
                vec3 pj = sortedPositions[j].xyz;
                vec3 d = pj - p;
                if (j != i) addNeighbor(me, pj, d, dot(d, d), j, sums);
            }
        }
    }
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = STEP_FISH_COUNT(params);
    bool inRange = i < n;
    // Walls search as a workgroup: every invocation stays to the barriers.
    bool walls = STEP_BOUNDARY(params) == kBoundaryWalls;
    if (!inRange && !walls) return;
    Fish self = fish[STEP_FIRST_FISH_READ(params) + min(i, n - 1u)];
    // From here on `params` is the pack of this fish's species.
    if (STEP_HAS(kFeatureSpecies)) stepSpecies = tableSpecies(self.species);
    Searcher me = searcherOf(self);
    NeighborSums sums = emptySums();
    ivec3 cell = ivec3(cellOf(self.position));
    ivec3 dims = ivec3(STEP_GRID_DIMS(params));
    int reach = int(STEP_GRID_REACH(params));
    if (walls) {
        ivec3 ownLow = max(cell - reach, ivec3(0)), ownHigh = min(cell + reach, dims - 1);
        uint lane = gl_LocalInvocationID.x;
        if (lane == 0u) {
            for (int k = 0; k < 3; ++k) {
                boxLow[k] = 0xffffffffu;
                boxHigh[k] = 0u;
            }
            boxCandidates = 0u;
            mostOwnCandidates = 0u;
        }
        barrier();
        if (inRange) {
            for (int k = 0; k < 3; ++k) {
                atomicMin(boxLow[k], uint(ownLow[k]));
                atomicMax(boxHigh[k], uint(ownHigh[k]));
            }
            atomicMax(mostOwnCandidates, candidatesIn(ownLow, ownHigh));
        }
        barrier();
        ivec3 low = ivec3(boxLow[0], boxLow[1], boxLow[2]);
        ivec3 high = ivec3(boxHigh[0], boxHigh[1], boxHigh[2]);
        // The box's rows counted a row an invocation.
        int rowsY = high.y - low.y + 1, rows = rowsY * (high.z - low.z + 1);
        for (int row = int(lane); row < rows; row += int(SEARCH_GROUP_SIZE)) {
            ivec3 rowLow = ivec3(low.x, low.y + row % rowsY, low.z + row / rowsY);
            atomicAdd(boxCandidates, candidatesIn(rowLow, ivec3(high.x, rowLow.yz)));
        }
        barrier();
        if (boxCandidates > kStagedCandidatesPerOwn * mostOwnCandidates) {
            if (inRange) sumRows(i, me, self.position, ownLow, ownHigh, sums);
        } else {
            for (int z = low.z; z <= high.z; ++z) {
                for (int y = low.y; y <= high.y; ++y) {
                    uint first = cellStarts[cellIndex(uvec3(low.x, y, z))];
                    uint last = cellStarts[cellIndex(uvec3(high.x, y, z)) + 1u];
                    for (uint block = first; block < last; block += SEARCH_GROUP_SIZE) {
                        barrier();  // the block before is read by all
                        if (block + lane < last)
                            stagedPositions[lane] = sortedPositions[block + lane];
                        barrier();
                        uint count = min(SEARCH_GROUP_SIZE, last - block);
                        for (uint k = 0u; k < count; ++k) {
                            vec3 pj = stagedPositions[k].xyz;
                            vec3 d = pj - self.position;
                            if (block + k != i) addNeighbor(me, pj, d, dot(d, d), block + k, sums);
                        }
                    }
                }
            }
        }
        if (!inRange) return;
    } else if (STEP_BOUNDARY(params) == kBoundaryOpen) {
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
                        if (j != i) addNeighbor(me, pj, d, dot(d, d), j, sums);
                    }
                }
            }
        }
    } else if (STEP_BOUNDARY(params) == kBoundaryPeriodic) {
        // A periodic tank: the cells wrap round (the grid holds at least 2 reach + 1 on each
        // axis, so none is visited twice) and each candidate is seen at its nearest image.
        // A flat grid (2D: one layer in y) holds every fish in its one layer: no wrap in y.
        int reachY = dims.y == 1 ? 0 : reach;
        for (int dz = -reach; dz <= reach; ++dz) {
            for (int dy = -reachY; dy <= reachY; ++dy) {
                for (int dx = -reach; dx <= reach; ++dx) {
                    uvec3 c = uvec3((cell + ivec3(dx, dy, dz) + dims) % dims);
                    uint first = cellStarts[cellIndex(c)];
                    uint last = cellStarts[cellIndex(c) + 1u];
                    for (uint j = first; j < last; ++j) {
                        vec3 d = nearestImage(sortedPositions[j].xyz - self.position);
                        if (j != i) addNeighbor(me, self.position + d, d, dot(d, d), j, sums);
                    }
                }
            }
        }
    }
    vec3 prey = self.position;
    if (STEP_HAS(kFeatureKinds) && kindOf(self.id) == kKindPredator)
        prey = nearestPrey(i, self.position);
    FishUpdate next = integrateFish(self.position, self.velocity, sums, self.id, prey);
    fish[STEP_FIRST_FISH_WRITTEN(params) + i] =
        Fish(next.position, self.id, next.velocity, self.species, next.acceleration, 0.0);
}
