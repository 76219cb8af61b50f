#include "SimParams.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <glm/vec3.hpp>

namespace fishschool {
namespace {

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

std::string vec3Text(const glm::vec3& v) {
    std::string text = "[";
    text += number(v.x);
    text += ", ";
    text += number(v.y);
    text += ", ";
    text += number(v.z);
    text += "]";
    return text;
}

std::unexpected<std::string> refuse(const std::string& key, const std::string& value,
                                    const std::string& rule) {
    return fail(key + ": " + value + " is not allowed; " + rule);
}

Result<void> requireFinite(const std::string& key, float value) {
    if (!std::isfinite(value)) return refuse(key, number(value), "must be finite");
    return {};
}

Result<void> requirePositive(const std::string& key, float value) {
    if (!std::isfinite(value) || value <= 0.0f)
        return refuse(key, number(value), "must be finite and > 0");
    return {};
}

/// SPEC.md's largest weight, limit and bound: so that no sum of the step can overflow a float.
constexpr float kLargestMagnitude = 1e6f;

Result<void> requireAtMostLargest(const std::string& key, float value) {
    if (std::abs(value) > kLargestMagnitude)
        return refuse(key, number(value), "its size must be at most 1e6");
    return {};
}

Result<void> requireNonNegative(const std::string& key, float value) {
    if (!std::isfinite(value) || value < 0.0f)
        return refuse(key, number(value), "must be finite and >= 0");
    return {};
}

}  // namespace

std::vector<Rock> defaultRocks() {
    return {
        {{-14.0f, -13.0f, -10.0f}, 6.0f},
        {{12.0f, -14.0f, 9.0f}, 5.0f},
        {{2.0f, -15.0f, 22.0f}, 4.0f},
    };
}

std::string_view toString(NeighborSearch search) {
    return search == NeighborSearch::AllPairs ? "all-pairs" : "grid";
}

std::optional<NeighborSearch> parseNeighborSearch(std::string_view text) {
    if (text == "all-pairs") return NeighborSearch::AllPairs;
    if (text == "grid") return NeighborSearch::Grid;
    return std::nullopt;
}

std::string_view toString(TargetPath path) {
    return path == TargetPath::Straight ? "straight" : "flow-field";
}

std::optional<TargetPath> parseTargetPath(std::string_view text) {
    if (text == "straight") return TargetPath::Straight;
    if (text == "flow-field") return TargetPath::FlowField;
    return std::nullopt;
}

float maxRadius(const SimParams& params) {
    return std::max({params.rCohesion, params.rSeparation, params.rAlignment});
}

Result<void> validate(const SimParams& p) {
    if (p.fishCount < 0 || p.fishCount > kMaxFishCount)
        return refuse("fishCount", std::to_string(p.fishCount),
                      "must be an integer from 0 to " + std::to_string(kMaxFishCount));

    const std::pair<const char*, float> positives[] = {
        {"dt", p.dt}, {"maxAcceleration", p.maxAcceleration}, {"maxVelocity", p.maxVelocity}};
    for (const auto& [key, value] : positives)
        if (auto ok = requirePositive(key, value); !ok) return ok;
    for (const auto& [key, value] : {positives[1], positives[2]})
        if (auto ok = requireAtMostLargest(key, value); !ok) return ok;

    const std::pair<const char*, float> weights[] = {{"kCohesion", p.kCohesion},
                                                     {"kSeparation", p.kSeparation},
                                                     {"kAlignment", p.kAlignment},
                                                     {"kTarget", p.kTarget},
                                                     {"kAvoidance", p.kAvoidance}};
    for (const auto& [key, value] : weights) {
        if (auto ok = requireFinite(key, value); !ok) return ok;
        if (auto ok = requireAtMostLargest(key, value); !ok) return ok;
    }

    const std::pair<const char*, float> radii[] = {{"rCohesion", p.rCohesion},
                                                   {"rSeparation", p.rSeparation},
                                                   {"rAlignment", p.rAlignment},
                                                   {"avoidanceDistance", p.avoidanceDistance}};
    for (const auto& [key, value] : radii)
        if (auto ok = requireNonNegative(key, value); !ok) return ok;

    if (!std::isfinite(p.viewAngle) || p.viewAngle <= 0.0f || p.viewAngle > 360.0f)
        return refuse("viewAngle", number(p.viewAngle), "must be finite, > 0 and <= 360 degrees");

    for (int k = 0; k < 3; ++k) {
        if (!std::isfinite(p.target[k]))
            return refuse("target", vec3Text(p.target), "every component must be finite");
    }
    for (int k = 0; k < 3; ++k) {
        if (!std::isfinite(p.bounds[k]) || p.bounds[k] <= 0.0f)
            return refuse("bounds", vec3Text(p.bounds), "every component must be finite and > 0");
        if (p.bounds[k] > kLargestMagnitude)
            return refuse("bounds", vec3Text(p.bounds), "every component must be at most 1e6");
    }
    const float stepLength = p.maxVelocity * p.dt;
    const float smallestHalfExtent = std::min({p.bounds.x, p.bounds.y, p.bounds.z});
    if (!(stepLength < smallestHalfExtent))
        return fail("maxVelocity * dt: " + number(p.maxVelocity) + " * " + number(p.dt) + " = " +
                    number(stepLength) + " is not allowed; must be < min(bounds) = " +
                    number(smallestHalfExtent) + " so that a reflection at a wall lands inside");

    if (p.rocks.size() > kMaxRocks)
        return fail("rocks: " + std::to_string(p.rocks.size()) +
                    " rocks are not allowed; at most " + std::to_string(kMaxRocks));
    for (std::size_t r = 0; r < p.rocks.size(); ++r) {
        const Rock& rock = p.rocks[r];
        const std::string key = "rocks[" + std::to_string(r) + "]";
        for (int k = 0; k < 3; ++k) {
            if (!std::isfinite(rock.center[k]))
                return refuse(key + ".center", vec3Text(rock.center), "must be finite");
        }
        if (auto ok = requirePositive(key + ".radius", rock.radius); !ok) return ok;
        for (int k = 0; k < 3; ++k) {
            const float gapLow = (rock.center[k] - rock.radius) + p.bounds[k];
            const float gapHigh = p.bounds[k] - (rock.center[k] + rock.radius);
            if (!(gapLow >= stepLength && gapHigh >= stepLength))
                return fail(
                    key + ": center " + vec3Text(rock.center) + " radius " + number(rock.radius) +
                    " is not allowed; the rock must lie inside the tank " + vec3Text(p.bounds) +
                    " with a gap of at least maxVelocity * dt = " + number(stepLength) +
                    " to every wall");
        }
    }
    // A bounce off one rock moves a fish by up to maxVelocity * dt: it must not land in another.
    for (std::size_t a = 0; a < p.rocks.size(); ++a) {
        for (std::size_t b = a + 1; b < p.rocks.size(); ++b) {
            const Rock& first = p.rocks[a];
            const Rock& second = p.rocks[b];
            const glm::dvec3 offset = glm::dvec3(first.center) - glm::dvec3(second.center);
            const double gap =
                std::sqrt(offset.x * offset.x + offset.y * offset.y + offset.z * offset.z) -
                double(first.radius) - double(second.radius);
            if (!(gap >= double(stepLength)))
                return fail("rocks[" + std::to_string(a) + "] and rocks[" + std::to_string(b) +
                            "]: a gap of " + number(gap) +
                            " m is not allowed; rocks must keep a gap of at least maxVelocity * "
                            "dt = " +
                            number(stepLength) + " m between them");
        }
    }
    return {};
}

}  // namespace fishschool
