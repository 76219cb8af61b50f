#include "Presets.h"

#include <vector>

#include "core/Scenario.h"

namespace fishschool {

std::span<const Preset> presets() {
    static const std::vector<Preset> all = [] {
        std::vector<Preset> list;
        list.push_back({"Default",
                        "2,000 fish, three rocks, grid search: a school within 20 seconds",
                        SimParams{}});

        SimParams round;
        round.arena = Arena::Cylinder;
        list.push_back({"Round tank",
                        "The default school in a round tank as wide as the box, as fish "
                        "experiments use",
                        round});

        SimParams article = articleParams();
        article.neighborSearch = NeighborSearch::AllPairs;
        article.lockVerticalSteering = true;
        list.push_back({"Article",
                        "The article's set-up: all-pairs search, steering locked to the horizontal",
                        article});

        SimParams tight = articleParams();
        tight.kCohesion = 2.0f;
        tight.kAlignment = 0.5f;
        tight.rSeparation = 1.5f;
        list.push_back({"Tight ball", "Strong cohesion, weak alignment: a dense bait ball", tight});

        SimParams swarm = articleParams();
        swarm.kAlignment = 0.0f;
        swarm.kCohesion = 1.5f;
        list.push_back({"Swarm", "No alignment: a milling, disordered swarm", swarm});

        SimParams streams = articleParams();
        streams.kAlignment = 2.5f;
        streams.rAlignment = 10.0f;
        streams.kCohesion = 0.5f;
        list.push_back(
            {"Streams", "Strong alignment: polarised streams that sweep the tank", streams});

        SimParams seek = articleParams();
        seek.kTarget = 0.4f;
        seek.target = {10.0f, -6.0f, -10.0f};
        seek.targetPath = TargetPath::FlowField;
        seek.kAvoidance = 3.0f;
        seek.avoidanceDistance = 6.0f;
        seek.viewAngle = 270.0f;
        list.push_back({"Seek and avoid",
                        "The school seeks a target along a flow field around the rocks and mills "
                        "around it, steering clear of rocks; fish see 270 degrees around",
                        seek});

        // The article's 10 m radii keep a step of a million fish cheap (the cost grows with the
        // cube of the largest radius).
        list.push_back({"100k fish",
                        "100,000 fish, the article's weights, in a tank scaled to the default "
                        "density",
                        fixedDensityParams(100'000, articleParams()), true});
        list.push_back({"1M fish",
                        "1,000,000 fish, the article's weights, in a tank scaled to the default "
                        "density",
                        fixedDensityParams(1'000'000, articleParams()), true});

        // The steering of the other source documents.
        SimParams unity;
        unity.steering = Steering::Reynolds;
        unity.minVelocity = 2.0f;
        unity.separationFalloff = SeparationFalloff::InverseSquare;
        unity.rCohesion = 5.0f;
        unity.rAlignment = 5.0f;
        unity.rSeparation = 2.0f;
        unity.kAvoidance = 10.0f;
        unity.avoidanceDistance = 5.0f;
        unity.avoidance = Avoidance::Rays;
        list.push_back({"Unity boids",
                        "Reynolds steering under a maximum force, a minimum speed, inverse-square "
                        "separation and avoidance by rays, as in the Unity boids",
                        unity});

        SimParams leader;
        leader.leaders = 3;
        leader.kLeader = 2.0f;
        leader.minVelocity = 1.5f;
        leader.viewAngle = 270.0f;
        leader.kAvoidance = 3.0f;
        list.push_back({"Leader and followers",
                        "Three leaders (gold) swim on; fish that see one steer toward it, the "
                        "others flock and regroup",
                        leader});

        SimParams predator;
        predator.predators = 2;
        predator.predatorMaxVelocity = 6.0f;
        predator.kFlee = 6.0f;
        predator.fleeRadius = 12.0f;
        predator.minVelocity = 1.0f;
        predator.combine = Combine::Prioritized;
        predator.kAvoidance = 3.0f;
        list.push_back({"Predator",
                        "Two predators (magenta) chase the nearest fish; fish flee them first of "
                        "all (prioritized forces)",
                        predator});

        // Couzin et al. 2002 (docs/model.md): N = 100, r_r = 1, Δr_o = 1, Δr_a = 14, speed 3,
        // 40 degrees/s, a 90-degree blind angle, noise 0.05 rad, a step of 0.1 s.
        SimParams couzin;
        couzin.fishCount = 100;
        couzin.dt = 0.1f;
        couzin.steering = Steering::Couzin;
        couzin.rSeparation = 1.0f;
        couzin.rAlignment = 2.0f;
        couzin.rCohesion = 16.0f;
        couzin.maxVelocity = 3.0f;
        couzin.maxTurnRate = 40.0f;
        couzin.viewAngle = 270.0f;
        couzin.noise = 0.05f;
        couzin.bounds = {25.0f, 25.0f, 25.0f};
        couzin.rocks.clear();
        couzin.neighborSearch = NeighborSearch::AllPairs;
        list.push_back({"Couzin 2002",
                        "Couzin et al. 2002's zones, constant speed, limited turning and noise: "
                        "100 fish mill in a torus (a wider orientation zone makes them swim "
                        "in parallel)",
                        couzin, true});

        list.push_back({"Rummy-nose tetras",
                        "Five fish that swim in kicks and glides (Calovi et al. 2018) in a round "
                        "tank of 25 cm, each heeding its most influential neighbour",
                        rummyNoseParams(), true});
        return list;
    }();
    return all;
}

const Preset* findPreset(std::string_view name) {
    for (const Preset& preset : presets())
        if (preset.name == name) return &preset;
    return nullptr;
}

SimParams presetScene(const Preset& preset, std::int64_t runningFish, Density density,
                      bool withItsFishCount) {
    if (withItsFishCount || runningFish == preset.params.fishCount) return preset.params;
    if (density == Density::Fixed) return fixedDensityParams(runningFish, preset.params);
    SimParams params = preset.params;
    params.fishCount = runningFish;
    return params;
}

}  // namespace fishschool
