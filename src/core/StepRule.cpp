#include "StepRule.h"

#include <algorithm>
#include <cmath>

#include "FlowField.h"
#include "GridShape.h"
#include "Messages.h"
#include "ParamTable.h"

namespace fishschool {

std::uint32_t stepFeatures(const SimParams& params) {
    // Burst-and-coast reads the neighbours itself, at kicks, and none of the behaviours below.
    if (params.steering == Steering::BurstAndCoast) return glsl::kFeatureBurst;
    std::uint32_t features = 0;
    if (params.viewAngle < 360.0f) features |= glsl::kFeatureFieldOfView;
    const bool topological = params.neighborSelection == NeighborSelection::Topological;
    if (usesSpecies(params) || topological) {
        // One set for every species, whatever each has on: the field of view, the target (straight
        // unless along the flow field), avoidance and the kinds. Each asks at run time whether it
        // is on for the fish (a species that sees all around skips the view test), so a school
        // of species compiles a handful of sets, not one per combination. Topological neighbours
        // take the same few sets.
        features |= glsl::kFeatureFieldOfView;
        if (usesSpecies(params)) features |= glsl::kFeatureSpecies;
        if (topological) features |= glsl::kFeatureTopological;
        if (params.steering == Steering::Couzin) return features | glsl::kFeatureCouzin;
        if (params.steering == Steering::Vicsek) return features | glsl::kFeatureVicsek;
        const bool flowField = params.kTarget != 0.0f && params.targetPath == TargetPath::FlowField;
        features |= flowField ? glsl::kFeatureFlowField : glsl::kFeatureSeek;
        features |= glsl::kFeatureAvoidance | glsl::kFeatureKinds;
        if (params.separationFalloff == SeparationFalloff::InverseSquare)
            features |= glsl::kFeatureInverseSquare;
        return features;
    }
    if (params.steering == Steering::Couzin) return features | glsl::kFeatureCouzin;
    // Vicsek's rule reads the alignment sum alone, of unit headings: none of the others acts.
    if (params.steering == Steering::Vicsek) return features | glsl::kFeatureVicsek;
    if (params.kTarget != 0.0f)
        features |= params.targetPath == TargetPath::FlowField ? glsl::kFeatureFlowField
                                                               : glsl::kFeatureSeek;
    if (params.kAvoidance != 0.0f && params.avoidanceDistance > 0.0f)
        features |= glsl::kFeatureAvoidance;
    if (params.separationFalloff == SeparationFalloff::InverseSquare)
        features |= glsl::kFeatureInverseSquare;
    if (params.leaders > 0 || params.predators > 0) features |= glsl::kFeatureKinds;
    return features;
}

StepParamsData makeStepParams(const SimParams& params, const FlowField* flow) {
    StepParamsData p{};
    // The plain numbers, each into its slot (paramTable()'s stepSlot); then those the step reads
    // in another form.
    for (const ParamInfo& info : paramTable())
        if (info.stepSlot) info.stepSlot(p, params.*std::get<float SimParams::*>(info.field));
    STEP_COHESION_RADIUS2(p) = params.rCohesion * params.rCohesion;
    STEP_SEPARATION_RADIUS2(p) = params.rSeparation * params.rSeparation;
    STEP_ALIGNMENT_RADIUS2(p) = params.rAlignment * params.rAlignment;
    STEP_VIEW_COS(p) = std::cos(params.viewAngle * 0.5f * 0.017453292519943295f);
    // Two dimensions steer as lockVerticalSteering does: a school in the plane y = 0 stays there.
    STEP_LOCK_VERTICAL(p) = params.lockVerticalSteering || params.dimensions == 2 ? 1.0f : 0.0f;
    const float boundary = params.boundary == Boundary::Periodic ? glsl::kBoundaryPeriodic
                           : params.boundary == Boundary::Open   ? glsl::kBoundaryOpen
                                                                 : glsl::kBoundaryWalls;
    p.bounds = glm::vec4(params.bounds, boundary);
    STEP_ARENA_RADIUS(p) = arenaRadiusOf(params);
    STEP_ROCK_COUNT(p) = static_cast<std::uint32_t>(params.rocks.size());
    p.target = glm::vec4(params.target, params.kTarget);
    STEP_NEIGHBOR_COUNT(p) = static_cast<float>(params.neighborCount);
    STEP_NEIGHBOR_SELECTION(p) =
        params.neighborSelection == NeighborSelection::Influential ? glsl::kSelectionInfluential
        : params.neighborSelection == NeighborSelection::Topological ? glsl::kSelectionTopological
                                                                     : glsl::kSelectionMetric;
    // Steering "couzin" is a set of behaviours of its own (kFeatureCouzin), not a mode here.
    STEP_REYNOLDS(p) = params.steering == Steering::Reynolds ? 1.0f : 0.0f;
    // Steering "vicsek": its rule is a set (kFeatureVicsek), whose sums add unit headings.
    STEP_VICSEK(p) = params.steering == Steering::Vicsek ? 1.0f : 0.0f;
    STEP_PRIORITIZED(p) = params.combine == Combine::Prioritized ? 1.0f : 0.0f;
    STEP_RAYS(p) = params.avoidance == Avoidance::Rays ? 1.0f : 0.0f;
    STEP_LEADERS_END(p) = static_cast<std::uint32_t>(params.leaders);
    STEP_PREDATORS_END(p) = static_cast<std::uint32_t>(params.leaders + params.predators);
    // The largest turn of a step, at most half a turn (then any direction can be reached).
    const double turn =
        std::min(double(params.maxTurnRate) * params.dt * 0.017453292519943295, 3.141592653589793);
    STEP_TURN_COS(p) = static_cast<float>(std::cos(turn));
    STEP_TURN_SIN(p) = static_cast<float>(std::sin(turn));
    STEP_SEED_LOW(p) = static_cast<std::uint32_t>(params.seed);
    STEP_SEED_HIGH(p) = static_cast<std::uint32_t>(params.seed >> 32);
    STEP_ENERGY_SCALING(p) =
        params.separationScaling == SeparationScaling::KineticEnergy ? 1.0f : 0.0f;
    STEP_OWN_SPECIES(p) = params.schoolsWith == SchoolsWith::Own ? 1.0f : 0.0f;
    const glm::vec3 preferred = geometry().normalizeOrZero(params.preferredDirection);
    p.preferred = glm::vec4(preferred, params.kPreferred);
    if (flow) {
        p.flowOrigin = glm::vec4(flow->origin(), flow->spacing());
        p.flowDims = glm::uvec4(glm::uvec3(flow->dims()), 0u);
    }
    return p;
}

std::vector<StepParamsData> makeSpeciesStepParams(const SimParams& params, const FlowField* flow) {
    std::vector<StepParamsData> packs;
    packs.reserve(speciesCount(params));
    if (params.species.empty()) {
        packs.push_back(makeStepParams(params, flow));
    } else {
        for (std::size_t s = 0; s < params.species.size(); ++s)
            packs.push_back(makeStepParams(paramsOfSpecies(params, s), flow));
    }
    return packs;
}

std::string searchNotice(const SimParams& params, std::size_t fishCount) {
    if (params.boundary != Boundary::Periodic || params.neighborSearch != NeighborSearch::Grid ||
        !(maxRadius(params) > 0.0f))
        return {};
    const GridShape grid =
        GridShape::forTank(gridBounds(params), maxRadius(params), 2 * fishCount + 64, 1, true);
    if (grid.holdsWrappedSearch()) return {};
    return "boundary \"periodic\": the tank holds " + std::to_string(grid.dimX) + " x " +
           std::to_string(grid.dimY) + " x " + std::to_string(grid.dimZ) + " cells of " +
           formatNumber(grid.cellSize) +
           " m, fewer than the 3 a side that the wrapped grid search needs; every pair is "
           "searched instead (all-pairs through the nearest image)";
}

std::vector<glm::vec4> packRocks(const SimParams& params) {
    std::vector<glm::vec4> rocks;
    rocks.reserve(params.rocks.size());
    for (const Rock& rock : params.rocks) rocks.emplace_back(rock.center, rock.radius);
    return rocks;
}

}  // namespace fishschool
