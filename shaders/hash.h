// lowbias32 (Chris Wellons): a hash of 32 bits of integer multiplies, shifts and xors only, so the
// same bits in C++ and GLSL. The noise (step_rule.h) and open water's buckets
// (open_water_buckets.h) draw from it. Once a compile in both languages: C++ includes it in the
// struct that both of its users derive from (src/core/Hash.h), the guard skipping theirs.
#ifndef FISHSCHOOL_HASH_H
#define FISHSCHOOL_HASH_H
uint lowbias32(uint x) {
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}
#endif
