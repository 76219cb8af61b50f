// The GPU's uniform grid (gridOrigin, gridDims of the step parameters) and the neighbour sums of
// the compute shaders' search loops.

// The grid cell of a position, clamped to the grid (fish outside it fall in the border cells).
uvec3 cellOf(vec3 p) {
    vec3 f = (p - STEP_GRID_ORIGIN(params)) / STEP_GRID_CELL_SIZE(params);
    vec3 highest = vec3(STEP_GRID_DIMS(params)) - 1.0;
    return uvec3(clamp(floor(f), vec3(0.0), highest));
}

uint cellIndex(uvec3 c) {
    uvec3 dims = STEP_GRID_DIMS(params);
    return c.x + dims.x * (c.y + dims.y * c.z);
}

// Open water (boundary "open"): cells over all of space, never clamped, hashed into a table of
// gridDims.x buckets (a power of two), as GridShape::forOpenWater on the CPU: the cell of p,
// each coordinate clamped to +-2^30 (NaN to 0).
ivec3 openCellOf(vec3 p) {
    vec3 f = floor(p / STEP_GRID_CELL_SIZE(params));
    ivec3 c = ivec3(0);
    for (int k = 0; k < 3; ++k) {
        float limit = 1073741824.0;
        c[k] = f[k] > -limit ? (f[k] < limit ? int(f[k]) : 1073741824) : (f[k] <= -limit ? -1073741824 : 0);
    }
    return c;
}

#include "open_water_buckets.h"

// The bucket of cell c: the cells of a row along x in consecutive buckets (open_water_buckets.h).
uint bucketOf(ivec3 c) {
    return (bucketRowStart(c.y, c.z) + uint(c.x)) & (STEP_GRID_DIMS(params).x - 1u);
}

// The cell, or in open water the bucket, a fish at p is sorted into.
uint gridSlotOf(vec3 p) {
    if (STEP_BOUNDARY(params) == kBoundaryOpen) return bucketOf(openCellOf(p));
    return cellIndex(cellOf(p));
}
