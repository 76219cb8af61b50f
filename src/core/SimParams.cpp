#include "fishschool/SimParams.h"

#include <algorithm>
#include <span>

namespace fishschool {

std::vector<Rock> defaultRocks() {
    return {
        {{-14.0f, -13.0f, -10.0f}, 6.0f},
        {{12.0f, -14.0f, 9.0f}, 5.0f},
        {{2.0f, -15.0f, 22.0f}, 4.0f},
    };
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

float arenaRadiusOf(const SimParams& params) {
    if (params.arena != Arena::Cylinder) return 0.0f;
    return params.arenaRadius > 0.0f ? params.arenaRadius
                                     : std::min(params.bounds.x, params.bounds.z);
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
