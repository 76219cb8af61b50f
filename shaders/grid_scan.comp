#version 430
// Grid pass 2: exclusive prefix sum of the cell counts into the cell starts, in three passes
// chosen by SCAN_PASS: 0 scans blocks of WORKGROUP_SIZE cells, 1 scans the block sums (one
// workgroup), 2 adds each block's offset.
layout(local_size_x = WORKGROUP_SIZE) in;

layout(std430, binding = 3) readonly buffer CellCounts { uint cellCounts[]; };
layout(std430, binding = 4) buffer CellStarts { uint cellStarts[]; };
layout(std430, binding = 6) buffer BlockSums { uint blockSums[]; };

uniform uint cellCount;
uniform uint blockCount;

shared uint partial[WORKGROUP_SIZE];

// Inclusive scan of partial[] across the workgroup (Hillis-Steele); returns this lane's value.
uint scanWorkgroup(uint value) {
    uint lane = gl_LocalInvocationID.x;
    partial[lane] = value;
    barrier();
    for (uint offset = 1u; offset < WORKGROUP_SIZE; offset <<= 1) {
        uint add = lane >= offset ? partial[lane - offset] : 0u;
        barrier();
        partial[lane] += add;
        barrier();
    }
    return partial[lane];
}

void main() {
    uint lane = gl_LocalInvocationID.x;
#if SCAN_PASS == 0
    uint i = gl_GlobalInvocationID.x;
    uint value = i < cellCount ? cellCounts[i] : 0u;
    uint inclusive = scanWorkgroup(value);
    if (i < cellCount) cellStarts[i] = inclusive - value;
    if (lane == WORKGROUP_SIZE - 1u) blockSums[gl_WorkGroupID.x] = inclusive;
#elif SCAN_PASS == 1
    uint carry = 0u;
    for (uint base = 0u; base < blockCount; base += WORKGROUP_SIZE) {
        uint b = base + lane;
        uint value = b < blockCount ? blockSums[b] : 0u;
        uint inclusive = scanWorkgroup(value);
        if (b < blockCount) blockSums[b] = carry + inclusive - value;
        uint total = partial[WORKGROUP_SIZE - 1u];
        barrier();
        carry += total;
    }
    if (lane == 0u) cellStarts[cellCount] = carry;
#else
    uint i = gl_GlobalInvocationID.x;
    if (i < cellCount) cellStarts[i] += blockSums[gl_WorkGroupID.x];
#endif
}
