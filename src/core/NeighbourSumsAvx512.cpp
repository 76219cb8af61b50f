#include "NeighbourSumsAvx512.h"

#include <atomic>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FISHSCHOOL_AVX512_SUMS 1
#endif

namespace fishschool::avx512 {
namespace {
std::atomic<bool> enabled{true};
}  // namespace

#if defined(FISHSCHOOL_AVX512_SUMS)

bool available() {
    static const bool cpuHasIt =
        __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512vl") != 0;
    return cpuHasIt && enabled.load(std::memory_order_relaxed);
}

// Intrinsics, vector shuffles and plain arithmetic only: an inline function of another header
// compiled here for AVX-512 could be the copy the linker keeps for every caller, on any processor.
namespace {

// Each fish's sums from its accumulator's lanes, added in lane order as the eight-lane code adds
// them: fish a's from the low eight lanes of each register, fish b's (where wanted) from the
// high eight. Eight of the nine sums are added at once, one register a lane, after a transpose;
// the counts are integers, whose sums do not depend on the order.
[[gnu::target("avx512f,avx512vl")]] void addLanes(const __m512 (&lanes)[9],
                                                  const __m512i (&counts)[3], Sums& a, Sums* b) {
    // Rows 0..7 transposed within each half: column l holds lane l of every row, row k in its
    // lane k (and 8 + k). Constant shuffles, which GCC 12 compiles without the intrinsics'
    // undefined sources that it warns of.
    __m512 t[8], u[8];
    for (int k = 0; k < 4; ++k) {
        const __m512 a = lanes[2 * k], b = lanes[2 * k + 1];
        t[2 * k] =
            __builtin_shufflevector(a, b, 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29);
        t[2 * k + 1] = __builtin_shufflevector(a, b, 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14,
                                               30, 15, 31);
    }
    for (int h = 0; h < 2; ++h) {
        for (int p = 0; p < 2; ++p) {
            // In each 128-bit block, rows 4h..4h+3 at the block's element 2p, then 2p + 1.
            const __m512 a = t[4 * h + p], b = t[4 * h + p + 2];
            u[4 * h + 2 * p] = __builtin_shufflevector(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24,
                                                       25, 12, 13, 28, 29);
            u[4 * h + 2 * p + 1] = __builtin_shufflevector(a, b, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11,
                                                           26, 27, 14, 15, 30, 31);
        }
    }
    // Lanes 0..3 of each half lie in its first block, 4..7 in its second; rows 0..3 in u[e],
    // rows 4..7 in u[4 + e].
    __m512 sums = _mm512_setzero_ps();
    for (int e = 0; e < 4; ++e)
        sums = _mm512_add_ps(sums, __builtin_shufflevector(u[e], u[4 + e], 0, 1, 2, 3, 16, 17, 18,
                                                           19, 8, 9, 10, 11, 24, 25, 26, 27));
    for (int e = 0; e < 4; ++e)
        sums = _mm512_add_ps(sums, __builtin_shufflevector(u[e], u[4 + e], 4, 5, 6, 7, 20, 21, 22,
                                                           23, 12, 13, 14, 15, 28, 29, 30, 31));
    alignas(64) float eight[16], ninth[16];
    _mm512_store_ps(eight, sums);
    _mm512_store_ps(ninth, lanes[8]);
    // Each half's count in its first lane.
    std::int32_t total[3][2];
    for (int c = 0; c < 3; ++c) {
        using Ints = std::int32_t __attribute__((vector_size(64)));
        Ints n = reinterpret_cast<Ints>(counts[c]);
        n += __builtin_shufflevector(n, n, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11);
        n += __builtin_shufflevector(n, n, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
        n += __builtin_shufflevector(n, n, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
        total[c][0] = n[0];
        total[c][1] = n[8];
    }
    for (int half = 0; half < (b != nullptr ? 2 : 1); ++half) {
        Sums& out = half == 0 ? a : *b;
        const float* sum = eight + 8 * half;
        out.cohesion[0] = sum[0];
        out.cohesion[1] = sum[1];
        out.cohesion[2] = sum[2];
        out.separation[0] = sum[3];
        out.separation[1] = sum[4];
        out.separation[2] = sum[5];
        out.alignment[0] = sum[6];
        out.alignment[1] = sum[7];
        float last = 0.0f;
        for (int l = 0; l < 8; ++l) last += ninth[8 * half + l];
        out.alignment[2] = last;
        out.cohesionCount = static_cast<std::uint32_t>(total[0][half]);
        out.separationCount = static_cast<std::uint32_t>(total[1][half]);
        out.alignmentCount = static_cast<std::uint32_t>(total[2][half]);
    }
}

// `low` in the low eight lanes, `high` in the high eight.
[[gnu::target("avx512f,avx512vl")]] __m512 halves(float low, float high) {
    return _mm512_mask_blend_ps(0xff00, _mm512_set1_ps(low), _mm512_set1_ps(high));
}

// A block of eight in both halves: a load and a broadcast, no shuffle (masked with every lane:
// GCC 12 warns of the unmasked intrinsic's undefined source).
[[gnu::target("avx512f,avx512vl")]] __m512 twice(const float* p) {
    return _mm512_castpd_ps(
        _mm512_maskz_broadcast_f64x4(0xff, _mm256_castps_pd(_mm256_loadu_ps(p))));
}

// Two fish a pass: fish a in the low eight lanes of each 16-lane register, fish b in the high
// eight, each block of candidates loaded once for both. Each fish's lanes hold what the eight-lane
// code's hold, so the bits are the same; the 12 accumulators still fit in registers, which two
// fish of eight-lane registers (24) did not. Without b, the high lanes sum nothing.
[[gnu::target("avx512f,avx512vl")]] void sumsOfTwo(const Candidates& candidates, const Radii& radii,
                                                   const Seeker& a, const Seeker* b, Sums& sumsA,
                                                   Sums* sumsB) {
    const Seeker& high = b != nullptr ? *b : a;
    const __m512 pix = halves(a.x, high.x), piy = halves(a.y, high.y), piz = halves(a.z, high.z);
    const __m512 cohesion2 = _mm512_set1_ps(radii.cohesion2);
    const __m512 separation2 = _mm512_set1_ps(radii.separation2);
    const __m512 alignment2 = _mm512_set1_ps(radii.alignment2);
    const __m512i one = _mm512_set1_epi32(1);
    __m512 cx = _mm512_setzero_ps(), cy = cx, cz = cx, sx = cx, sy = cx, sz = cx, ax = cx, ay = cx,
           az = cx;
    __m512i nc = _mm512_setzero_si512(), ns = nc, na = nc;
    const bool images = candidates.imageX != nullptr;
    const std::size_t count = candidates.count;
    for (std::size_t j = 0; j < count; j += 8) {
        const unsigned inRange = count - j < 8 ? (1u << (count - j)) - 1u : 0xffu;
        // Every lane of a block but the fish itself and, in the last block, those past `count`.
        unsigned active = inRange | (b != nullptr ? inRange << 8 : 0u);
        if (a.self - j < 8) active &= ~(1u << (a.self - j));
        if (high.self - j < 8) active &= ~(1u << (high.self - j + 8));
        const auto use = static_cast<__mmask16>(active);
        const __m512 qx = twice(candidates.px + j);
        const __m512 qy = twice(candidates.py + j);
        const __m512 qz = twice(candidates.pz + j);
        __m512 dx = _mm512_sub_ps(qx, pix), dy = _mm512_sub_ps(qy, piy),
               dz = _mm512_sub_ps(qz, piz);
        __m512 px = qx, py = qy, pz = qz;
        if (images) {
            // The neighbour's nearest image, and where it lies, as the eight-lane code finds it.
            dx = _mm512_sub_ps(dx, twice(candidates.imageX + j));
            dy = _mm512_sub_ps(dy, twice(candidates.imageY + j));
            dz = _mm512_sub_ps(dz, twice(candidates.imageZ + j));
            px = _mm512_add_ps(pix, dx);
            py = _mm512_add_ps(piy, dy);
            pz = _mm512_add_ps(piz, dz);
        }
        const __m512 d2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)),
                                        _mm512_mul_ps(dz, dz));
        const __mmask16 inC = _mm512_mask_cmp_ps_mask(use, d2, cohesion2, _CMP_LT_OQ);
        const __mmask16 inS = _mm512_mask_cmp_ps_mask(use, d2, separation2, _CMP_LT_OQ);
        const __mmask16 inA = _mm512_mask_cmp_ps_mask(use, d2, alignment2, _CMP_LT_OQ);
        cx = _mm512_mask_add_ps(cx, inC, cx, px);
        cy = _mm512_mask_add_ps(cy, inC, cy, py);
        cz = _mm512_mask_add_ps(cz, inC, cz, pz);
        nc = _mm512_mask_add_epi32(nc, inC, nc, one);
        sx = _mm512_mask_add_ps(sx, inS, sx, dx);
        sy = _mm512_mask_add_ps(sy, inS, sy, dy);
        sz = _mm512_mask_add_ps(sz, inS, sz, dz);
        ns = _mm512_mask_add_epi32(ns, inS, ns, one);
        ax = _mm512_mask_add_ps(ax, inA, ax, twice(candidates.vx + j));
        ay = _mm512_mask_add_ps(ay, inA, ay, twice(candidates.vy + j));
        az = _mm512_mask_add_ps(az, inA, az, twice(candidates.vz + j));
        na = _mm512_mask_add_epi32(na, inA, na, one);
    }
    addLanes({cx, cy, cz, sx, sy, sz, ax, ay, az}, {nc, ns, na}, sumsA, sumsB);
}
}  // namespace

void sumsOfEach(const Candidates& candidates, const Radii& radii, const Seeker* fish,
                std::size_t count, Sums* sums) {
    std::size_t i = 0;
    for (; i + 1 < count; i += 2)
        sumsOfTwo(candidates, radii, fish[i], &fish[i + 1], sums[i], &sums[i + 1]);
    if (i < count) sumsOfTwo(candidates, radii, fish[i], nullptr, sums[i], nullptr);
}

[[gnu::target("avx512f,avx512vl,popcnt")]] std::size_t pack(const PackedRange& range,
                                                            std::size_t& markAt) {
    const __m256 low[3] = {_mm256_set1_ps(range.low[0]), _mm256_set1_ps(range.low[1]),
                           _mm256_set1_ps(range.low[2])};
    const __m256 high[3] = {_mm256_set1_ps(range.high[0]), _mm256_set1_ps(range.high[1]),
                            _mm256_set1_ps(range.high[2])};
    const __m256 image[3] = {_mm256_set1_ps(range.image[0]), _mm256_set1_ps(range.image[1]),
                             _mm256_set1_ps(range.image[2])};
    const bool shifted = range.image[0] != 0.0f || range.image[1] != 0.0f || range.image[2] != 0.0f;
    const __m256 reach2 = _mm256_set1_ps(range.reach2);
    const __m256 zero = _mm256_setzero_ps();
    // Local copies: a store through one of the targets would make each block load them again.
    const float* from[6];
    float* to[6];
    for (int k = 0; k < 6; ++k) {
        from[k] = range.from[k];
        to[k] = range.to[k];
    }
    float* const toImage[3] = {range.toImageX, range.toImageY, range.toImageZ};
    const std::int32_t* const fromSpecies = range.fromSpecies;
    const float* const fromEnergy = range.fromEnergy;
    std::int32_t* const toSpecies = range.toSpecies;
    float* const toEnergy = range.toEnergy;
    const std::int32_t* const fromIds = range.fromIds;
    std::int32_t* const toIds = range.toIds;
    const std::size_t first = range.first, last = range.last, at = range.at, mark = range.mark;
    std::size_t count = 0;
    for (std::size_t j = first; j < last; j += 8) {
        __m256 d2 = zero;
        for (int axis = 0; axis < 3; ++axis) {
            // How far the candidate lies from the box on this axis (CpuSolver::packCandidates).
            const __m256 q = _mm256_loadu_ps(from[axis] + j);
            __m256 fromLow = _mm256_sub_ps(q, low[axis]), fromHigh = _mm256_sub_ps(q, high[axis]);
            if (shifted) {
                fromLow = _mm256_sub_ps(fromLow, image[axis]);
                fromHigh = _mm256_sub_ps(fromHigh, image[axis]);
            }
            const __mmask8 beyondHigh = _mm256_cmp_ps_mask(fromHigh, zero, _CMP_GT_OQ);
            const __mmask8 belowLow = _mm256_cmp_ps_mask(fromLow, zero, _CMP_LT_OQ);
            __m256 gap = _mm256_maskz_sub_ps(belowLow, zero, fromLow);
            gap = _mm256_mask_mov_ps(gap, beyondHigh, fromHigh);
            const __m256 gap2 = _mm256_mul_ps(gap, gap);
            d2 = axis == 0 ? gap2 : _mm256_add_ps(d2, gap2);
        }
        const unsigned inRange = last - j < 8 ? (1u << (last - j)) - 1u : 0xffu;
        const unsigned bits =
            _mm256_mask_cmp_ps_mask(static_cast<__mmask8>(inRange), d2, reach2, _CMP_LT_OQ);
        // No branch on an empty block: it writes lanes the next overwrites, and counts none.
        const std::size_t out = at + count;
        if (mark - j < 8 && mark < last)
            markAt = out +
                     static_cast<std::size_t>(__builtin_popcount(bits & ((1u << (mark - j)) - 1u)));
        const __m256i order =
            _mm256_load_si256(reinterpret_cast<const __m256i*>(kPackOrders.lanes[bits]));
        for (int k = 0; k < 6; ++k)
            _mm256_storeu_ps(to[k] + out,
                             _mm256_permutexvar_ps(order, _mm256_loadu_ps(from[k] + j)));
        if (toImage[0] != nullptr) {
            for (int axis = 0; axis < 3; ++axis) _mm256_storeu_ps(toImage[axis] + out, image[axis]);
        }
        if (toSpecies != nullptr) {
            const __m256i species =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(fromSpecies + j));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(toSpecies + out),
                                _mm256_permutexvar_epi32(order, species));
            _mm256_storeu_ps(toEnergy + out,
                             _mm256_permutexvar_ps(order, _mm256_loadu_ps(fromEnergy + j)));
        }
        if (toIds != nullptr) {
            const __m256i ids = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(fromIds + j));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(toIds + out),
                                _mm256_permutexvar_epi32(order, ids));
        }
        count += static_cast<std::size_t>(__builtin_popcount(bits));
    }
    return count;
}

#else

bool available() {
    return false;
}

std::size_t pack(const PackedRange&, std::size_t&) {
    return 0;
}

void sumsOfEach(const Candidates&, const Radii&, const Seeker*, std::size_t, Sums*) {}

#endif

void setEnabled(bool on) {
    enabled.store(on, std::memory_order_relaxed);
}

}  // namespace fishschool::avx512
