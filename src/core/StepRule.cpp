#include "StepRule.h"

#include <algorithm>
#include <cmath>

#include "FlowField.h"

namespace fishschool {

std::uint32_t stepFeatures(const SimParams& params) {
    std::uint32_t features = 0;
    if (params.viewAngle < 360.0f) features |= glsl::kFeatureFieldOfView;
    if (params.steering == Steering::Couzin) return features | glsl::kFeatureCouzin;
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
    const float viewCos = std::cos(params.viewAngle * 0.5f * 0.017453292519943295f);
    p.radiiSquared = {params.rCohesion * params.rCohesion, params.rSeparation * params.rSeparation,
                      params.rAlignment * params.rAlignment, viewCos};
    p.weights = {params.kCohesion, params.kSeparation, params.kAlignment, 0.0f};
    p.limits = {params.maxAcceleration, params.maxVelocity, params.dt,
                params.lockVerticalSteering ? 1.0f : 0.0f};
    p.bounds = glm::vec4(params.bounds, 0.0f);
    p.counts = {0u, static_cast<std::uint32_t>(params.rocks.size()), 0u, 0u};
    p.target = glm::vec4(params.target, params.kTarget);
    p.avoidance = {params.kAvoidance, params.avoidanceDistance, 0.0f, 0.0f};
    // Steering "couzin" is a set of behaviours of its own (kFeatureCouzin), not a mode here.
    const float reynolds = params.steering == Steering::Reynolds ? 1.0f : 0.0f;
    p.modes = {params.minVelocity, reynolds, params.combine == Combine::Prioritized ? 1.0f : 0.0f,
               params.avoidance == Avoidance::Rays ? 1.0f : 0.0f};
    p.kinds = {static_cast<std::uint32_t>(params.leaders),
               static_cast<std::uint32_t>(params.leaders + params.predators), 0u, 0u};
    p.kindWeights = {params.kLeader, params.kFlee, params.fleeRadius, params.predatorMaxVelocity};
    // The largest turn of a step, at most half a turn (then any direction can be reached).
    const double turn =
        std::min(double(params.maxTurnRate) * params.dt * 0.017453292519943295, 3.141592653589793);
    p.noise = {params.noise, static_cast<float>(std::cos(turn)), static_cast<float>(std::sin(turn)),
               0.0f};
    p.random = {static_cast<std::uint32_t>(params.seed),
                static_cast<std::uint32_t>(params.seed >> 32), 0u, 0u};
    if (flow) {
        p.flowOrigin = glm::vec4(flow->origin(), flow->spacing());
        p.flowDims = glm::uvec4(glm::uvec3(flow->dims()), 0u);
    }
    return p;
}

std::vector<glm::vec4> packRocks(const SimParams& params) {
    std::vector<glm::vec4> rocks;
    rocks.reserve(params.rocks.size());
    for (const Rock& rock : params.rocks) rocks.emplace_back(rock.center, rock.radius);
    return rocks;
}

}  // namespace fishschool
