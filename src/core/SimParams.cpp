#include "fishschool/SimParams.h"

#include <algorithm>
#include <span>

namespace fishschool {
namespace {

/// The value of `Enum` named `text` among `names` (in the order of the enum).
template <class Enum>
std::optional<Enum> parseName(std::span<const char* const> names, std::string_view text) {
    for (std::size_t k = 0; k < names.size(); ++k)
        if (text == names[k]) return static_cast<Enum>(k);
    return std::nullopt;
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
    return kNeighborSearchNames[static_cast<std::size_t>(search)];
}

std::optional<NeighborSearch> parseNeighborSearch(std::string_view text) {
    return parseName<NeighborSearch>(kNeighborSearchNames, text);
}

std::string_view toString(Boundary boundary) {
    return kBoundaryNames[static_cast<std::size_t>(boundary)];
}

std::optional<Boundary> parseBoundary(std::string_view text) {
    return parseName<Boundary>(kBoundaryNames, text);
}

std::string_view toString(TargetPath path) {
    return kTargetPathNames[static_cast<std::size_t>(path)];
}

std::optional<TargetPath> parseTargetPath(std::string_view text) {
    return parseName<TargetPath>(kTargetPathNames, text);
}

std::string_view toString(Steering steering) {
    return kSteeringNames[static_cast<std::size_t>(steering)];
}

std::optional<Steering> parseSteering(std::string_view text) {
    return parseName<Steering>(kSteeringNames, text);
}

std::string_view toString(SeparationFalloff falloff) {
    return kSeparationFalloffNames[static_cast<std::size_t>(falloff)];
}

std::optional<SeparationFalloff> parseSeparationFalloff(std::string_view text) {
    return parseName<SeparationFalloff>(kSeparationFalloffNames, text);
}

std::string_view toString(Combine combine) {
    return kCombineNames[static_cast<std::size_t>(combine)];
}

std::optional<Combine> parseCombine(std::string_view text) {
    return parseName<Combine>(kCombineNames, text);
}

std::string_view toString(Avoidance avoidance) {
    return kAvoidanceNames[static_cast<std::size_t>(avoidance)];
}

std::optional<Avoidance> parseAvoidance(std::string_view text) {
    return parseName<Avoidance>(kAvoidanceNames, text);
}

std::string_view toString(SchoolsWith schoolsWith) {
    return kSchoolsWithNames[static_cast<std::size_t>(schoolsWith)];
}

std::optional<SchoolsWith> parseSchoolsWith(std::string_view text) {
    return parseName<SchoolsWith>(kSchoolsWithNames, text);
}

std::string_view toString(SeparationScaling scaling) {
    return kSeparationScalingNames[static_cast<std::size_t>(scaling)];
}

std::optional<SeparationScaling> parseSeparationScaling(std::string_view text) {
    return parseName<SeparationScaling>(kSeparationScalingNames, text);
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

std::size_t speciesCount(const SimParams& params) {
    return std::max<std::size_t>(params.species.size(), 1);
}

std::uint32_t speciesOf(std::uint64_t index, const SimParams& params) {
    std::uint64_t end = 0;
    for (std::size_t s = 0; s < params.species.size(); ++s) {
        end += static_cast<std::uint64_t>(std::max<std::int64_t>(params.species[s].count, 0));
        if (index < end) return static_cast<std::uint32_t>(s);
    }
    return 0;
}

bool usesSpecies(const SimParams& params) {
    if (!params.species.empty()) return true;
    return params.separationScaling != SeparationScaling::None || params.kSidestep != 0.0f ||
           params.kPreferred != 0.0f;
}

float maxRadius(const SimParams& params) {
    if (params.species.empty())
        return std::max({params.rCohesion, params.rSeparation, params.rAlignment});
    // Every fish is of a species: the config's own radii may be unused.
    float largest = 0.0f;
    for (std::size_t s = 0; s < params.species.size(); ++s) {
        const SimParams own = paramsOfSpecies(params, s);
        largest = std::max({largest, own.rCohesion, own.rSeparation, own.rAlignment});
    }
    return largest;
}

glm::vec3 gridBounds(const SimParams& params) {
    if (params.dimensions != 2) return params.bounds;
    return {params.bounds.x, 0.0f, params.bounds.z};
}

float fastestSpeed(const SimParams& params) {
    float fastest = params.species.empty() ? params.maxVelocity : 0.0f;
    for (std::size_t s = 0; s < params.species.size(); ++s)
        fastest = std::max(fastest, paramsOfSpecies(params, s).maxVelocity);
    if (params.predators > 0) fastest = std::max(fastest, params.predatorMaxVelocity);
    return fastest;
}

}  // namespace fishschool
