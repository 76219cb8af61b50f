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

// Intrinsics and plain arithmetic only: an inline function of another header compiled here for
// AVX-512 could be the copy the linker keeps for every caller, on any processor.
[[gnu::target("avx512f,avx512vl")]] Sums sumsOf(const Candidates& candidates, const Radii& radii,
                                                std::size_t self, float x, float y, float z) {
    const __m256 pix = _mm256_set1_ps(x), piy = _mm256_set1_ps(y), piz = _mm256_set1_ps(z);
    const __m256 cohesion2 = _mm256_set1_ps(radii.cohesion2);
    const __m256 separation2 = _mm256_set1_ps(radii.separation2);
    const __m256 alignment2 = _mm256_set1_ps(radii.alignment2);
    const __m256i one = _mm256_set1_epi32(1);
    __m256 cx = _mm256_setzero_ps(), cy = cx, cz = cx, sx = cx, sy = cx, sz = cx, ax = cx, ay = cx,
           az = cx;
    __m256i nc = _mm256_setzero_si256(), ns = nc, na = nc;
    const bool images = candidates.imageX != nullptr;
    // Every lane of a block but the fish itself and, in the last block, those past `count`.
    const std::size_t count = candidates.count;
    for (std::size_t j = 0; j < count; j += 8) {
        unsigned active = count - j < 8 ? (1u << (count - j)) - 1u : 0xffu;
        if (self - j < 8) active &= ~(1u << (self - j));
        const auto use = static_cast<__mmask8>(active);
        const __m256 qx = _mm256_loadu_ps(candidates.px + j);
        const __m256 qy = _mm256_loadu_ps(candidates.py + j);
        const __m256 qz = _mm256_loadu_ps(candidates.pz + j);
        __m256 dx = _mm256_sub_ps(qx, pix), dy = _mm256_sub_ps(qy, piy),
               dz = _mm256_sub_ps(qz, piz);
        __m256 px = qx, py = qy, pz = qz;
        if (images) {
            // The neighbour's nearest image, and where it lies, as the eight-lane code finds it.
            dx = _mm256_sub_ps(dx, _mm256_loadu_ps(candidates.imageX + j));
            dy = _mm256_sub_ps(dy, _mm256_loadu_ps(candidates.imageY + j));
            dz = _mm256_sub_ps(dz, _mm256_loadu_ps(candidates.imageZ + j));
            px = _mm256_add_ps(pix, dx);
            py = _mm256_add_ps(piy, dy);
            pz = _mm256_add_ps(piz, dz);
        }
        const __m256 d2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
                                        _mm256_mul_ps(dz, dz));
        const __mmask8 inC = _mm256_mask_cmp_ps_mask(use, d2, cohesion2, _CMP_LT_OQ);
        const __mmask8 inS = _mm256_mask_cmp_ps_mask(use, d2, separation2, _CMP_LT_OQ);
        const __mmask8 inA = _mm256_mask_cmp_ps_mask(use, d2, alignment2, _CMP_LT_OQ);
        cx = _mm256_mask_add_ps(cx, inC, cx, px);
        cy = _mm256_mask_add_ps(cy, inC, cy, py);
        cz = _mm256_mask_add_ps(cz, inC, cz, pz);
        nc = _mm256_mask_add_epi32(nc, inC, nc, one);
        sx = _mm256_mask_add_ps(sx, inS, sx, dx);
        sy = _mm256_mask_add_ps(sy, inS, sy, dy);
        sz = _mm256_mask_add_ps(sz, inS, sz, dz);
        ns = _mm256_mask_add_epi32(ns, inS, ns, one);
        ax = _mm256_mask_add_ps(ax, inA, ax, _mm256_loadu_ps(candidates.vx + j));
        ay = _mm256_mask_add_ps(ay, inA, ay, _mm256_loadu_ps(candidates.vy + j));
        az = _mm256_mask_add_ps(az, inA, az, _mm256_loadu_ps(candidates.vz + j));
        na = _mm256_mask_add_epi32(na, inA, na, one);
    }

    // The lanes in order, as the eight-lane accumulator adds them.
    alignas(32) float lanes[9][8];
    alignas(32) std::int32_t counts[3][8];
    const __m256 vectors[9] = {cx, cy, cz, sx, sy, sz, ax, ay, az};
    for (int v = 0; v < 9; ++v) _mm256_store_ps(lanes[v], vectors[v]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(counts[0]), nc);
    _mm256_store_si256(reinterpret_cast<__m256i*>(counts[1]), ns);
    _mm256_store_si256(reinterpret_cast<__m256i*>(counts[2]), na);
    Sums sums;
    for (int l = 0; l < 8; ++l) {
        for (int axis = 0; axis < 3; ++axis) {
            sums.cohesion[axis] += lanes[axis][l];
            sums.separation[axis] += lanes[3 + axis][l];
            sums.alignment[axis] += lanes[6 + axis][l];
        }
        sums.cohesionCount += static_cast<std::uint32_t>(counts[0][l]);
        sums.separationCount += static_cast<std::uint32_t>(counts[1][l]);
        sums.alignmentCount += static_cast<std::uint32_t>(counts[2][l]);
    }
    return sums;
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

Sums sumsOf(const Candidates&, const Radii&, std::size_t, float, float, float) {
    return {};
}

#endif

void setEnabled(bool on) {
    enabled.store(on, std::memory_order_relaxed);
}

}  // namespace fishschool::avx512
