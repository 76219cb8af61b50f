// The GPU's uniform grid (gridOrigin, gridDims of the step parameters) and the neighbour sums of
// the compute shaders' search loops.

// The grid cell of a position, clamped to the grid (fish outside it fall in the border cells).
uvec3 cellOf(vec3 p) {
    vec3 f = (p - params.gridOrigin.xyz) / params.gridOrigin.w;
    vec3 highest = vec3(params.gridDims.xyz) - 1.0;
    return uvec3(clamp(floor(f), vec3(0.0), highest));
}

uint cellIndex(uvec3 c) {
    return c.x + params.gridDims.x * (c.y + params.gridDims.y * c.z);
}
