#pragma once

// Where a fish stands and heads against the tank's wall (docs/model.md "Measures of the school":
// the wall's distance and angle), for the measures and the distributions.

#include <algorithm>
#include <cmath>
#include <limits>

#include <glm/vec3.hpp>

#include "fishschool/SimParams.h"

namespace fishschool {

/// a - 2 pi round(a / 2 pi): an angle in [-pi, pi].
inline double wrapAngle(double a) {
    constexpr double kTurn = 6.283185307179586;
    return a - kTurn * std::round(a / kTurn);
}

/// Whether the tank has a wall to measure against (boundary "walls").
inline bool hasWall(const SimParams& params) {
    return params.boundary == Boundary::Walls;
}

/// The distance from `p` to the wall: in a round tank its radius less p's distance from the axis;
/// in a box the nearest face (the plane's side faces only in two dimensions). Negative outside;
/// NaN without walls.
inline double wallDistanceOf(const glm::vec3& p, const SimParams& params) {
    if (!hasWall(params)) return std::numeric_limits<double>::quiet_NaN();
    if (const double radius = arenaRadiusOf(params); radius > 0.0)
        return radius - std::hypot(double(p.x), double(p.z));
    double nearest = std::numeric_limits<double>::infinity();
    for (int k = 0; k < 3; ++k) {
        if (k == 1 && params.dimensions == 2) continue;
        nearest = std::min(nearest, double(params.bounds[k]) - std::abs(double(p[k])));
    }
    return nearest;
}

/// The heading `v` in the x-z plane against the outward normal of the side wall nearest `p` (in a
/// round tank the radial direction): 0 straight at the wall, +-pi/2 along it, +-pi away. NaN
/// without walls, for a fish that does not move in the plane, or on a round tank's axis.
inline double wallAngleOf(const glm::vec3& p, const glm::vec3& v, const SimParams& params) {
    constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
    if (!hasWall(params) || (v.x == 0.0f && v.z == 0.0f)) return kNan;
    double normal = 0.0;
    if (arenaRadiusOf(params) > 0.0f) {
        if (p.x == 0.0f && p.z == 0.0f) return kNan;
        normal = std::atan2(double(p.z), double(p.x));
    } else {
        const double toX = double(params.bounds.x) - std::abs(double(p.x));
        const double toZ = double(params.bounds.z) - std::abs(double(p.z));
        const double pi = 3.141592653589793;
        normal = toX <= toZ ? (p.x < 0.0f ? pi : 0.0) : (p.z < 0.0f ? -pi / 2 : pi / 2);
    }
    return wrapAngle(std::atan2(double(v.z), double(v.x)) - normal);
}

}  // namespace fishschool
