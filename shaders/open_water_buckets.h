// Open water's table of buckets (boundary "open", docs/model.md "Neighbour search"), in the
// subset of C++ and GLSL that both read the same way: grid.glsl includes it, and C++ inside the
// struct fishschool::glsl::OpenWaterBuckets (src/core/GridShape.h), so the CPU and the GPU lay
// out their tables alike. No include guard: C++ includes it inside that struct.

#include "hash.h"

// The bucket of cell x of the row (y, z), before wrapping to the table, is bucketRowStart(y, z)
// + x. The rows come in blocks of 4 x 4 in (y, z): a block starts at a hashed bucket and its rows
// follow 128 buckets apart, so that the rows around a cell lie near each other in the sorted
// school (as a tank's grid keeps them), not scattered over the table.
uint bucketRowStart(int y, int z) {
    uint blockStart = lowbias32(uint(y >> 2) * 0x9e3779b1u + lowbias32(uint(z >> 2)));
    return blockStart + uint((y & 3) + 4 * (z & 3)) * 128u;
}
