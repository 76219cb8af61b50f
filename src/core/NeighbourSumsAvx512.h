#pragma once

#include <cstddef>
#include <cstdint>

namespace fishschool::avx512 {

/// A group's packed candidates (CpuSolver's CandidateRun): `count` fish, padded by a block of
/// eight, each with its nearest image where `imageX` is not null.
struct Candidates {
    const float *px = nullptr, *py = nullptr, *pz = nullptr;
    const float *vx = nullptr, *vy = nullptr, *vz = nullptr;
    const float *imageX = nullptr, *imageY = nullptr, *imageZ = nullptr;
    std::size_t count = 0;
};

/// The squared radii a fish's sums compare against.
struct Radii {
    float cohesion2 = 0.0f, separation2 = 0.0f, alignment2 = 0.0f;
};

/// One fish's neighbour sums, as CpuSolver's eight-lane accumulator reduces its lanes.
struct Sums {
    float cohesion[3] = {}, separation[3] = {}, alignment[3] = {};
    std::uint32_t cohesionCount = 0, separationCount = 0, alignmentCount = 0;
};

/// Whether this processor runs sumsOfEach and pack (AVX-512 F and VL), and they are not
/// switched off.
bool available();
/// Switches them off (for tests: the eight-lane code they stand in for is then what runs).
void setEnabled(bool enabled);

/// A fish whose sums are wanted: where it is, and its slot among the candidates.
struct Seeker {
    float x = 0.0f, y = 0.0f, z = 0.0f;
    std::size_t self = 0;
};

/// The sums of each of `count` fish over `candidates` but its own slot, with no field of view,
/// inverse-square separation, couzin zones or species: the same bits, in the same lanes and
/// order, as CpuSolver's eight-lane accumulator, with masked adds in place of selects. Two fish
/// a pass in 16-lane registers, each block of candidates loaded once for both; a lone fish in
/// the low lanes. Only where available().
void sumsOfEach(const Candidates& candidates, const Radii& radii, const Seeker* fish,
                std::size_t count, Sums* sums);

/// For each set of eight lanes (bit l: lane l), the lanes in order, then zeros: the permutation
/// that packs them to the front of a block, for this packing and the eight-lane code's. Data
/// only, so the same table serves code compiled for any instruction set.
struct PackOrders {
    alignas(32) std::int32_t lanes[256][8] = {};
    constexpr PackOrders() {
        for (unsigned bits = 0; bits < 256; ++bits) {
            int to = 0;
            for (int l = 0; l < 8; ++l)
                if ((bits >> l & 1u) != 0u) lanes[bits][to++] = l;
        }
    }
};
inline constexpr PackOrders kPackOrders;

/// One range of slots to pack (CpuSolver::packCandidates): the candidates in slots
/// [first, last) of `from` that may lie within `reach2` (squared) of a fish in the box
/// [low, high], seen `image` away (subtracted from their offsets), written from `to`'s slot `at`.
struct PackedRange {
    const float* from[6] = {};                  ///< positions x, y, z, velocities x, y, z
    const std::int32_t* fromSpecies = nullptr;  ///< with species: and these two
    const float* fromEnergy = nullptr;
    float* to[6] = {};
    float *toImageX = nullptr, *toImageY = nullptr, *toImageZ = nullptr;  ///< when not null
    std::int32_t* toSpecies = nullptr;
    float* toEnergy = nullptr;
    const std::int32_t* fromIds = nullptr;  ///< topological: the ids, packed to toIds
    std::int32_t* toIds = nullptr;
    std::size_t first = 0, last = 0, at = 0;
    float low[3] = {}, high[3] = {}, image[3] = {};
    float reach2 = 0.0f;
    std::size_t mark = 0;  ///< a slot whose packed place is wanted
};

/// The same candidates, in the same order, as CpuSolver's eight-lane packing. Returns how many
/// it wrote; `markAt` gets where `mark` went when the range holds it. Only where available().
std::size_t pack(const PackedRange& range, std::size_t& markAt);

}  // namespace fishschool::avx512
