// Open water's table of buckets (boundary "open", docs/model.md "Neighbour search"), in the
// subset of C++ and GLSL that both read the same way: grid.glsl includes it, and C++ inside the
// struct fishschool::glsl::OpenWaterBuckets (src/core/GridShape.h), so the CPU and the GPU lay
// out their tables alike. No include guard: C++ includes it inside that struct.

// lowbias32 (Chris Wellons): integer multiplies, shifts and xors only.
uint hashGridBits(uint h) {
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

// The bucket of cell x of the row (y, z), before wrapping to the table, is bucketRowStart(y, z)
// + x. The rows come in blocks of 4 x 4 in (y, z): a block starts at a hashed bucket and its rows
// follow 128 buckets apart, so that the rows around a cell lie near each other in the sorted
// school (as a tank's grid keeps them), not scattered over the table.
uint bucketRowStart(int y, int z) {
    uint blockStart = hashGridBits(uint(y >> 2) * 0x9e3779b1u + hashGridBits(uint(z >> 2)));
    return blockStart + uint((y & 3) + 4 * (z & 3)) * 128u;
}
