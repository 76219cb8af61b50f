#pragma once

// The step rule of every CPU path: shaders/step_rule.h, the text the compute shaders run too,
// compiled as C++ inside StepRule<features>. Its parameter pack, StepParamsData, comes from
// makeStepParams(), which the GPU backend fills its uniform block with as well.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/common.hpp>
#include <glm/exponential.hpp>
#include <glm/geometric.hpp>
#include <glm/trigonometric.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "core/Hash.h"
#include "core/StepLanes.h"
#include "fishschool/SimParams.h"

namespace fishschool {

class FlowField;

/// The GLSL names the shared headers use, so that their text reads as C++.
namespace glsl {
using vec2 = glm::vec2;
using vec3 = glm::vec3;
using vec4 = glm::vec4;
using ivec3 = glm::ivec3;
using uvec4 = glm::uvec4;
using uvec3 = glm::uvec3;
using uint = std::uint32_t;
using glm::abs;
using glm::atan;
using glm::clamp;
using glm::cos;
using glm::cross;
using glm::dot;
using glm::exp;
using glm::floor;
using glm::length;
using glm::log;
using glm::max;
using glm::min;
using glm::mix;
using glm::sin;
using glm::sqrt;

#include "step_params.h"

/// The per-fish types of step_rule.h: one fish (kWidth 1, GLSL's types) or eight in lanes.
template <int kWidth>
struct StepLanes {
    using Real = float;
    using Flag = bool;
    using Vec3 = vec3;
    using Vec4 = vec4;
    using UInt = uint;
    using Sums = NeighborSums;
    using Update = FishUpdate;
};
template <>
struct StepLanes<kStepLanes> {
    using Real = Real8;
    using Flag = Flag8;
    using Vec3 = Vec3L;
    using Vec4 = Vec4L;
    using UInt = UInt8;
    using Sums = NeighborSums8;
    using Update = FishUpdate8;
};

/// shaders/step_rule.h for one set of behaviours (kFeature* bits). Its functions read `params`,
/// `rocks`, `flow` and `specials` as the shaders read their uniform block and buffers. kWidth:
/// the fish a call steps, one, or kStepLanes in lanes (the behaviours stepsInLanes() allows).
template <uint kFeatures, int kWidth = 1>
class StepRule : Hash {
  public:
    using real = typename StepLanes<kWidth>::Real;
    using flag = typename StepLanes<kWidth>::Flag;
    using rvec3 = typename StepLanes<kWidth>::Vec3;
    using rvec4 = typename StepLanes<kWidth>::Vec4;
    using ruint = typename StepLanes<kWidth>::UInt;
    using LaneSums = typename StepLanes<kWidth>::Sums;
    using LaneUpdate = typename StepLanes<kWidth>::Update;
    using Hash::lowbias32;
    static UInt8 lowbias32(UInt8 x) { return glsl::lowbias32(x); }

    /// `rockData` holds STEP_ROCK_COUNT(params) rocks; `flowData` the flow field's nodes when
    /// kFeatureFlowField is on (else it may be null). All must outlive the rule.
    /// `specialData`: position and velocity (two vec4 each) of the STEP_PREDATORS_END(params)
    /// leaders and predators, by upload index, when kFeatureKinds is on.
    StepRule(const StepParamsData& stepParams, const vec4* rockData, const vec4* flowData,
             const vec4* specialData = nullptr)
        : params(stepParams), rocks(rockData), flow(flowData), specials(specialData) {}

    const StepParamsData& params;
    const vec4* rocks;
    const vec4* flow;
    const vec4* specials;

    /// Steering "burst-and-coast": the school as the step reads it, slot by slot (positions and
    /// velocities a float array a coordinate, and each slot's upload index).
    struct SchoolArrays {
        const float *px = nullptr, *py = nullptr, *pz = nullptr;
        const float *vx = nullptr, *vy = nullptr, *vz = nullptr;
        const uint* ids = nullptr;
        uint count = 0;
    };
    SchoolArrays school;
    uint schoolCount() { return school.count; }
    vec3 schoolPosition(uint j) { return vec3(school.px[j], school.py[j], school.pz[j]); }
    vec3 schoolVelocity(uint j) { return vec3(school.vx[j], school.vy[j], school.vz[j]); }
    uint schoolId(uint j) { return school.ids[j]; }

#define STEP_FEATURES kFeatures
// A behaviour's code compiled only where it is on: the lanes' types need no code for the rest.
#define STEP_IF_HAS(feature) if constexpr (STEP_HAS(feature))
#include "step_rule.h"
#undef STEP_IF_HAS
#undef STEP_FEATURES
};

static_assert(sizeof(StepParamsData) == 368, "StepParamsData in step_params.h: std140 size");
static_assert(offsetof(StepParamsData, radiiSquared) == 0);
static_assert(offsetof(StepParamsData, weights) == 16);
static_assert(offsetof(StepParamsData, limits) == 32);
static_assert(offsetof(StepParamsData, bounds) == 48);
static_assert(offsetof(StepParamsData, gridOrigin) == 64);
static_assert(offsetof(StepParamsData, gridDims) == 80);
static_assert(offsetof(StepParamsData, counts) == 96);
static_assert(offsetof(StepParamsData, target) == 112);
static_assert(offsetof(StepParamsData, avoidance) == 128);
static_assert(offsetof(StepParamsData, flowOrigin) == 144);
static_assert(offsetof(StepParamsData, flowDims) == 160);
static_assert(offsetof(StepParamsData, modes) == 176);
static_assert(offsetof(StepParamsData, kinds) == 192);
static_assert(offsetof(StepParamsData, kindWeights) == 208);
static_assert(offsetof(StepParamsData, noise) == 224);
static_assert(offsetof(StepParamsData, random) == 240);
static_assert(offsetof(StepParamsData, unit) == 256);
static_assert(offsetof(StepParamsData, preferred) == 272);
static_assert(offsetof(StepParamsData, kick) == 288);
static_assert(offsetof(StepParamsData, alignmentTurn) == 352);

}  // namespace glsl

using glsl::FishUpdate;
using glsl::NeighborSums;
using glsl::StepParamsData;
using glsl::StepRule;

/// Whether the CPU steps a set of behaviours eight fish at a time (StepRule<features, 8>): the
/// sets whose rule reads nothing per fish but its state and sums (no species, kinds, flow
/// field, or steerings "couzin", "vicsek" and "burst-and-coast"); the others step one at a time.
constexpr bool stepsInLanes(std::uint32_t features) {
    constexpr std::uint32_t kOneByOne = glsl::kFeatureFlowField | glsl::kFeatureKinds |
                                        glsl::kFeatureCouzin | glsl::kFeatureSpecies |
                                        glsl::kFeatureVicsek | glsl::kFeatureTopological |
                                        glsl::kFeatureBurst;
    return (features & kOneByOne) == 0u;
}

/// The behaviours of `params` that cost work (kFeature* bits of step_params.h).
std::uint32_t stepFeatures(const SimParams& params);

/// Whether stepFeatures() ever gives `features`: steering "burst-and-coast" comes alone; "couzin"
/// or "vicsek" comes alone or
/// with the field of view (and species) only, and the target is sought straight or along the
/// flow field, never both. With species or topological neighbours: the field of view, and, but
/// for "couzin" and "vicsek", one way to the target, avoidance and the kinds, always. The other
/// sets are never compiled.
constexpr bool usedFeatureSet(std::uint32_t features) {
    // Burst-and-coast reads no behaviour of the others: it comes alone.
    if ((features & glsl::kFeatureBurst) != 0u) return features == glsl::kFeatureBurst;
    // Topological neighbours take the sets species take, with or without species.
    if ((features & glsl::kFeatureTopological) != 0u)
        return usedFeatureSet((features & ~glsl::kFeatureTopological) | glsl::kFeatureSpecies);
    constexpr std::uint32_t kBothPaths = glsl::kFeatureSeek | glsl::kFeatureFlowField;
    constexpr std::uint32_t kWithSteering = glsl::kFeatureFieldOfView | glsl::kFeatureSpecies;
    const bool couzin = (features & glsl::kFeatureCouzin) != 0u;
    const bool vicsek = (features & glsl::kFeatureVicsek) != 0u;
    if ((features & kBothPaths) == kBothPaths ||
        (couzin && (features & ~(kWithSteering | glsl::kFeatureCouzin)) != 0u) ||
        (vicsek && (features & ~(kWithSteering | glsl::kFeatureVicsek)) != 0u))
        return false;
    if ((features & glsl::kFeatureSpecies) == 0u) return true;
    if ((features & glsl::kFeatureFieldOfView) == 0u) return false;
    constexpr std::uint32_t kAlwaysWithSpecies = glsl::kFeatureAvoidance | glsl::kFeatureKinds;
    return couzin || vicsek ||
           ((features & kAlwaysWithSpecies) == kAlwaysWithSpecies && (features & kBothPaths) != 0u);
}

/// The parameter pack of the step for `params`, for every backend: radii squared, weights,
/// limits, the tank, the rock count, seeking, avoidance and, when `flow` is given, where its
/// nodes lie. The GPU backend adds its grid and its buffer halves.
StepParamsData makeStepParams(const SimParams& params, const FlowField* flow);

/// The parameter pack of each species (paramsOfSpecies), in the order of params.species; one
/// pack, makeStepParams(params), without species. The GPU backend keeps them in a small buffer.
std::vector<StepParamsData> makeSpeciesStepParams(const SimParams& params, const FlowField* flow);

/// Why the step searches every pair where the config asks for the grid: a periodic tank with fewer
/// than 3 cells as wide as the largest radius on some axis, which the wrapped search of the 27
/// cells around a fish cannot cover (docs/model.md "Neighbour search"). Empty when the grid is
/// searched as asked.
std::string searchNotice(const SimParams& params, std::size_t fishCount);

/// The rocks as the step reads them: xyz centre, w radius.
std::vector<glm::vec4> packRocks(const SimParams& params);

/// One rule's helpers that depend on no parameter (normalizeOrZero, segmentEntersSphere, ...),
/// for code outside the step.
/// (Not const: the shared text has no const member functions; none of them writes.)
inline StepRule<0u>& geometry() {
    static const StepParamsData none{};
    static StepRule<0u> rule(none, nullptr, nullptr);
    return rule;
}

}  // namespace fishschool
