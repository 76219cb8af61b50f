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
