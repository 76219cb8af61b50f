#pragma once

// SPEC.md's step for one fish, shared by every CPU path so that all of them compute the same
// function. The GLSL compute shader mirrors it line by line.

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

#include "FlowField.h"
#include "SimParams.h"

namespace fishschool {

/// The three neighbour sums of SPEC step 1.
struct NeighborSums {
    glm::vec3 cohesion{0.0f};    ///< sum of neighbour positions
    glm::vec3 separation{0.0f};  ///< sum of (p_j - p_i)
    glm::vec3 alignment{0.0f};   ///< sum of neighbour velocities
    int cohesionCount = 0;
    int separationCount = 0;
    int alignmentCount = 0;
};

/// Parameters in the form the hot loop wants them: squared radii, compact rocks.
struct StepConstants {
    float cohesionRadius2 = 0.0f;
    float separationRadius2 = 0.0f;
    float alignmentRadius2 = 0.0f;
    float kCohesion = 0.0f;
    float kSeparation = 0.0f;
    float kAlignment = 0.0f;
    float maxAcceleration = 0.0f;
    float maxVelocity = 0.0f;
    float dt = 0.0f;
    glm::vec3 bounds{0.0f};
    bool lockVerticalSteering = false;
    float kTarget = 0.0f;
    glm::vec3 target{0.0f};
    /// Seeking along this field when set (targetPath "flow-field"); the solver that owns the
    /// field sets it, StepConstants::from leaves it null.
    const FlowField* flow = nullptr;
    float kAvoidance = 0.0f;
    float avoidanceDistance = 0.0f;
    /// Field of view: a neighbour at offset d is seen when dot(heading, d) >= viewCos * |d|.
    bool seesAllAround = true;
    float viewCos = -1.0f;
    const Rock* rocks = nullptr;
    int rockCount = 0;

    /// `params.rocks` must outlive the constants.
    static StepConstants from(const SimParams& params) {
        StepConstants c;
        c.cohesionRadius2 = params.rCohesion * params.rCohesion;
        c.separationRadius2 = params.rSeparation * params.rSeparation;
        c.alignmentRadius2 = params.rAlignment * params.rAlignment;
        c.kCohesion = params.kCohesion;
        c.kSeparation = params.kSeparation;
        c.kAlignment = params.kAlignment;
        c.maxAcceleration = params.maxAcceleration;
        c.maxVelocity = params.maxVelocity;
        c.dt = params.dt;
        c.bounds = params.bounds;
        c.lockVerticalSteering = params.lockVerticalSteering;
        c.kTarget = params.kTarget;
        c.target = params.target;
        c.kAvoidance = params.kAvoidance;
        c.avoidanceDistance = params.avoidanceDistance;
        c.seesAllAround = params.viewAngle >= 360.0f;
        c.viewCos = std::cos(params.viewAngle * 0.5f * 0.017453292519943295f);
        c.rocks = params.rocks.data();
        c.rockCount = static_cast<int>(params.rocks.size());
        return c;
    }
};

/// x / |x|, or the zero vector when |x| < 1e-12.
inline glm::vec3 normalizeOrZero(const glm::vec3& x) {
    const float len = glm::length(x);
    return len < 1e-12f ? glm::vec3(0.0f) : x / len;
}

/// x when |x| <= m, else x scaled to length m.
inline glm::vec3 clampLength(const glm::vec3& x, float m) {
    const float len = glm::length(x);
    return len <= m ? x : x * (m / len);
}

/// Whether some point of the segment a -> b lies strictly inside the sphere.
inline bool segmentEntersSphere(const glm::vec3& a, const glm::vec3& b, const glm::vec3& center,
                                float radius) {
    const glm::vec3 ab = b - a;
    const float lengthSquared = glm::dot(ab, ab);
    // Quick reject, without a division: every point of the segment lies within |ab| of a. The
    // margin keeps it conservative under rounding, so the answer is the exact test's.
    const glm::vec3 fromCenter = a - center;
    const float reach = (radius + std::sqrt(lengthSquared)) * 1.001f;
    if (glm::dot(fromCenter, fromCenter) > reach * reach) return false;
    float t = 0.0f;
    if (lengthSquared > 0.0f) t = std::clamp(glm::dot(center - a, ab) / lengthSquared, 0.0f, 1.0f);
    const glm::vec3 closest = a + t * ab;
    const glm::vec3 offset = closest - center;
    return glm::dot(offset, offset) < radius * radius;
}

/// The unit heading that a fish's field of view is centred on; zero (sees all) when it stands
/// still.
inline glm::vec3 headingOf(const glm::vec3& velocity) {
    return normalizeOrZero(velocity);
}

/// Whether a fish with unit `heading` sees a neighbour at offset `d` (|d|^2 = d2): inside the
/// cone of half-angle acos(viewCos), compared without a square root. A fish standing still, or
/// a neighbour at the same point, is seen.
inline bool inView(const StepConstants& c, const glm::vec3& heading, const glm::vec3& d, float d2) {
    if (c.seesAllAround || heading == glm::vec3(0.0f)) return true;
    const float along = glm::dot(heading, d);
    const float bound = c.viewCos * c.viewCos * d2;
    return c.viewCos >= 0.0f ? along >= 0.0f && along * along >= bound
                             : along >= 0.0f || along * along <= bound;
}

/// The steer away from the rocks near a fish: for each rock whose surface lies closer than
/// avoidanceDistance, the unit vector from its centre to the fish, weighted from 1 at the surface
/// down to 0 at that distance; the sum shortened to length 1.
inline glm::vec3 rockAvoidance(const StepConstants& c, const glm::vec3& p) {
    glm::vec3 away(0.0f);
    for (int r = 0; r < c.rockCount; ++r) {
        const glm::vec3 offset = p - c.rocks[r].center;
        const float distance = glm::length(offset);
        const float gap = distance - c.rocks[r].radius;
        if (gap < c.avoidanceDistance && distance > 0.0f)
            away += offset / distance * std::min(1.0f - gap / c.avoidanceDistance, 1.0f);
    }
    return clampLength(away, 1.0f);
}

/// The new state of one fish.
struct FishUpdate {
    glm::vec3 position;
    glm::vec3 velocity;
    glm::vec3 acceleration;
};

/// SPEC steps 2 to 7: from the neighbour sums and the fish's previous state to its next state.
inline FishUpdate integrateFish(const StepConstants& c, const glm::vec3& p, const glm::vec3& v,
                                const NeighborSums& s) {
    glm::vec3 cohesion(0.0f), separation(0.0f), alignment(0.0f);
    if (s.cohesionCount > 0)
        cohesion = normalizeOrZero(s.cohesion / static_cast<float>(s.cohesionCount) - p);
    if (s.separationCount > 0)
        separation = normalizeOrZero(-s.separation / static_cast<float>(s.separationCount));
    if (s.alignmentCount > 0)
        alignment = normalizeOrZero(s.alignment / static_cast<float>(s.alignmentCount));

    glm::vec3 steer =
        c.kCohesion * cohesion + c.kSeparation * separation + c.kAlignment * alignment;
    // The behaviours beyond SPEC.md add nothing, not even a rounding, while their weight is 0.
    if (c.kTarget != 0.0f)
        steer += c.kTarget * normalizeOrZero(c.flow ? c.flow->sample(p) : c.target - p);
    if (c.kAvoidance != 0.0f && c.avoidanceDistance > 0.0f)
        steer += c.kAvoidance * rockAvoidance(c, p);
    glm::vec3 a = clampLength(steer, c.maxAcceleration);
    if (c.lockVerticalSteering) a.y = 0.0f;

    glm::vec3 vNext = clampLength(v + a * c.dt, c.maxVelocity);
    glm::vec3 pNext = p + vNext * c.dt;

    for (int r = 0; r < c.rockCount; ++r) {
        if (segmentEntersSphere(p, pNext, c.rocks[r].center, c.rocks[r].radius)) {
            pNext = p - vNext * c.dt;
            vNext = -vNext;
            break;
        }
    }

    for (int k = 0; k < 3; ++k) {
        const float b = c.bounds[k];
        if (pNext[k] > b) {
            pNext[k] = 2.0f * b - pNext[k];
            vNext[k] = -std::abs(vNext[k]);
        } else if (pNext[k] < -b) {
            pNext[k] = -2.0f * b - pNext[k];
            vNext[k] = std::abs(vNext[k]);
        }
    }
    return {pNext, vNext, a};
}

}  // namespace fishschool
