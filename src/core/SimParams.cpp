#include "SimParams.h"

#include <algorithm>
#include <cmath>

#include <glm/vec3.hpp>

#include "TextInput.h"

namespace fishschool {
namespace {

std::string vec3Text(const glm::vec3& v) {
    std::string text = "[";
    text += formatNumber(v.x);
    text += ", ";
    text += formatNumber(v.y);
    text += ", ";
    text += formatNumber(v.z);
    text += "]";
    return text;
}

std::unexpected<std::string> refuse(const std::string& key, const std::string& value,
                                    const std::string& rule) {
    return fail(key + ": " + value + " is not allowed; " + rule);
}

Result<void> requireFinite(const std::string& key, float value) {
    if (!std::isfinite(value)) return refuse(key, formatNumber(value), "must be finite");
    return {};
}

Result<void> requirePositive(const std::string& key, float value) {
    if (!std::isfinite(value) || value <= 0.0f)
        return refuse(key, formatNumber(value), "must be finite and > 0");
    return {};
}

/// SPEC.md's largest weight, limit and bound: so that no sum of the step can overflow a float.
constexpr float kLargestMagnitude = 1e6f;

Result<void> requireAtMostLargest(const std::string& key, float value) {
    if (std::abs(value) > kLargestMagnitude)
        return refuse(key, formatNumber(value), "its size must be at most 1e6");
    return {};
}

Result<void> requireNonNegative(const std::string& key, float value) {
    if (!std::isfinite(value) || value < 0.0f)
        return refuse(key, formatNumber(value), "must be finite and >= 0");
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

std::string_view toString(Steering steering) {
    switch (steering) {
        case Steering::Reynolds:
            return "reynolds";
        case Steering::Couzin:
            return "couzin";
        case Steering::Article:
            break;
    }
    return "article";
}

std::optional<Steering> parseSteering(std::string_view text) {
    if (text == "article") return Steering::Article;
    if (text == "reynolds") return Steering::Reynolds;
    if (text == "couzin") return Steering::Couzin;
    return std::nullopt;
}

std::string_view toString(SeparationFalloff falloff) {
    return falloff == SeparationFalloff::None ? "none" : "inverse-square";
}

std::optional<SeparationFalloff> parseSeparationFalloff(std::string_view text) {
    if (text == "none") return SeparationFalloff::None;
    if (text == "inverse-square") return SeparationFalloff::InverseSquare;
    return std::nullopt;
}

std::string_view toString(Combine combine) {
    return combine == Combine::Sum ? "sum" : "prioritized";
}

std::optional<Combine> parseCombine(std::string_view text) {
    if (text == "sum") return Combine::Sum;
    if (text == "prioritized") return Combine::Prioritized;
    return std::nullopt;
}

std::string_view toString(Avoidance avoidance) {
    return avoidance == Avoidance::Repel ? "repel" : "rays";
}

std::optional<Avoidance> parseAvoidance(std::string_view text) {
    if (text == "repel") return Avoidance::Repel;
    if (text == "rays") return Avoidance::Rays;
    return std::nullopt;
}

FishKind fishKind(std::size_t index, const SimParams& params) {
    const auto i = static_cast<std::int64_t>(index);
    if (i < params.leaders) return FishKind::Leader;
    if (i < params.leaders + params.predators) return FishKind::Predator;
    return FishKind::Fish;
}

std::string_view toString(FishKind kind) {
    switch (kind) {
        case FishKind::Leader:
            return "leader";
        case FishKind::Predator:
            return "predator";
        case FishKind::Fish:
            break;
    }
    return "fish";
}

bool hasKinds(const SimParams& params) {
    return params.leaders > 0 || params.predators > 0;
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

    const std::pair<const char*, float> weights[] = {
        {"kCohesion", p.kCohesion}, {"kSeparation", p.kSeparation}, {"kAlignment", p.kAlignment},
        {"kTarget", p.kTarget},     {"kAvoidance", p.kAvoidance},   {"kLeader", p.kLeader},
        {"kFlee", p.kFlee}};
    for (const auto& [key, value] : weights) {
        if (auto ok = requireFinite(key, value); !ok) return ok;
        if (auto ok = requireAtMostLargest(key, value); !ok) return ok;
    }

    const std::pair<const char*, float> radii[] = {{"rCohesion", p.rCohesion},
                                                   {"rSeparation", p.rSeparation},
                                                   {"rAlignment", p.rAlignment},
                                                   {"avoidanceDistance", p.avoidanceDistance},
                                                   {"fleeRadius", p.fleeRadius}};
    for (const auto& [key, value] : radii)
        if (auto ok = requireNonNegative(key, value); !ok) return ok;

    for (const auto& [key, count] :
         {std::pair<const char*, std::int64_t>{"leaders", p.leaders},
          std::pair<const char*, std::int64_t>{"predators", p.predators}})
        if (count < 0 || count > kMaxFishCount)
            return refuse(key, std::to_string(count),
                          "must be an integer from 0 to " + std::to_string(kMaxFishCount));
    if (p.leaders + p.predators > p.fishCount)
        return fail("leaders + predators: " + std::to_string(p.leaders) + " + " +
                    std::to_string(p.predators) + " is not allowed; must be at most fishCount (" +
                    std::to_string(p.fishCount) + ")");
    if (auto ok = requirePositive("predatorMaxVelocity", p.predatorMaxVelocity); !ok) return ok;
    if (auto ok = requireAtMostLargest("predatorMaxVelocity", p.predatorMaxVelocity); !ok)
        return ok;

    if (!std::isfinite(p.minVelocity) || p.minVelocity < 0.0f || p.minVelocity > p.maxVelocity)
        return refuse(
            "minVelocity", formatNumber(p.minVelocity),
            "must be finite, >= 0 and <= maxVelocity (" + formatNumber(p.maxVelocity) + ")");

    if (!std::isfinite(p.noise) || p.noise < 0.0f || p.noise > 10.0f)
        return refuse("noise", formatNumber(p.noise), "must be finite, >= 0 and <= 10 radians");

    if (auto ok = requirePositive("maxTurnRate", p.maxTurnRate); !ok) return ok;
    if (auto ok = requireAtMostLargest("maxTurnRate", p.maxTurnRate); !ok) return ok;

    if (!std::isfinite(p.viewAngle) || p.viewAngle <= 0.0f || p.viewAngle > 360.0f)
        return refuse("viewAngle", formatNumber(p.viewAngle),
                      "must be finite, > 0 and <= 360 degrees");

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
    // The longest move of a step: a predator's, when there are predators faster than the fish.
    const bool predatorsFastest = p.predators > 0 && p.predatorMaxVelocity > p.maxVelocity;
    const std::string speedKey = predatorsFastest ? "predatorMaxVelocity" : "maxVelocity";
    const float fastest = predatorsFastest ? p.predatorMaxVelocity : p.maxVelocity;
    const float stepLength = fastest * p.dt;
    const float smallestHalfExtent = std::min({p.bounds.x, p.bounds.y, p.bounds.z});
    if (!(stepLength < smallestHalfExtent))
        return fail(speedKey + " * dt: " + formatNumber(fastest) + " * " + formatNumber(p.dt) +
                    " = " + formatNumber(stepLength) +
                    " is not allowed; must be < min(bounds) = " + formatNumber(smallestHalfExtent) +
                    " so that a reflection at a wall lands inside");

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
                return fail(key + ": center " + vec3Text(rock.center) + " radius " +
                            formatNumber(rock.radius) +
                            " is not allowed; the rock must lie inside the tank " +
                            vec3Text(p.bounds) + " with a gap of at least " + speedKey +
                            " * dt = " + formatNumber(stepLength) + " to every wall");
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
                            "]: a gap of " + formatNumber(gap) +
                            " m is not allowed; rocks must keep a gap of at least " + speedKey +
                            " * dt = " + formatNumber(stepLength) + " m between them");
        }
    }
    return {};
}

}  // namespace fishschool
