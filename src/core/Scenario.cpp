#include "Scenario.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <glm/geometric.hpp>

#include "Messages.h"

namespace fishschool {
namespace {

/// splitmix64: a small, well-mixed generator whose output is the same on every platform
/// (std::uniform_real_distribution is not).
struct SplitMix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, 1).
    float unit() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }
    float symmetric() { return 2.0f * unit() - 1.0f; }
};

constexpr float kSpawnMargin = 0.05f;  // fraction of the tank kept free at the walls
constexpr int kSpawnTries = 1000;

bool insideRock(const glm::vec3& p, const Rock& rock) {
    const glm::vec3 d = p - rock.center;
    return glm::dot(d, d) < rock.radius * rock.radius;
}

/// The nearest point on or outside the rock's surface, nudged out so that rounding keeps it
/// outside; in 2D (`flat`) the nearest in the plane y = 0, where p lies.
glm::vec3 pushOutOfRock(const glm::vec3& p, const Rock& rock, bool flat) {
    glm::vec3 center = rock.center;
    if (flat) center.y = 0.0f;
    const glm::vec3 d = p - center;
    const float len = glm::length(d);
    const glm::vec3 away = flat ? glm::vec3(1.0f, 0.0f, 0.0f) : glm::vec3(0.0f, 1.0f, 0.0f);
    const glm::vec3 direction = len > 0.0f ? d / len : away;
    // Out of the rock's circle in the plane, or its sphere: at most its radius from the centre.
    float distance = rock.radius;
    glm::vec3 out = center + direction * distance;
    while (insideRock(out, rock)) {
        distance = std::nextafter(distance, INFINITY) * (1.0f + 1e-6f);
        out = center + direction * distance;
    }
    return out;
}

}  // namespace

bool isInScene(const glm::vec3& position, const SimParams& params) {
    for (int k = 0; k < 3; ++k) {
        // Open water has no walls: any position within its reach (the rocks still stand).
        const float reach = params.boundary == Boundary::Open ? kOpenWaterReach : params.bounds[k];
        if (!(std::abs(position[k]) <= reach)) return false;
    }
    return withinRoundWall(position, params) &&
           std::none_of(params.rocks.begin(), params.rocks.end(),
                        [&](const Rock& rock) { return insideRock(position, rock); });
}

bool withinRoundWall(const glm::vec3& position, const SimParams& params, double slack) {
    const double radius = arenaRadiusOf(params);
    if (radius <= 0.0) return true;
    const double x = position.x, z = position.z;
    const double reach = radius * (1.0 + slack);
    return x * x + z * z <= reach * reach;
}

namespace {

/// maxVelocity of species `s`, without copying the parameters (a school of a million fish asks
/// it a million times).
float speciesMaxVelocity(const SimParams& params, std::uint32_t s) {
    if (s >= params.species.size()) return params.maxVelocity;
    for (const SpeciesSetting& setting : params.species[s].settings)
        if (setting.key == "maxVelocity") return setting.number;
    return params.maxVelocity;
}

}  // namespace

Fish makeInitialFish(const SimParams& params, std::uint64_t index) {
    SplitMix64 rng{params.seed ^ (index * 0xD1B54A32D192ED03ull)};
    rng.next();
    // startRadius: the ball about the centre, by rejection from the cube around it (cut to the
    // tank); 0 draws exactly as before it was a key.
    const float radius = params.startRadius;
    glm::vec3 spawnExtent = params.bounds * (1.0f - kSpawnMargin);
    if (radius > 0.0f)
        for (int k = 0; k < 3; ++k) spawnExtent[k] = std::min(spawnExtent[k], radius);
    // A round tank: the square around its disc, with the same margin at the wall.
    if (const float round = arenaRadiusOf(params) * (1.0f - kSpawnMargin); round > 0.0f) {
        spawnExtent.x = std::min(spawnExtent.x, round);
        spawnExtent.z = std::min(spawnExtent.z, round);
    }
    // 2D: in the plane y = 0 (the y draw is still made, and dropped).
    const bool flat = params.dimensions == 2;
    if (flat) spawnExtent.y = 0.0f;
    Fish fish;
    for (int attempt = 0; attempt < kSpawnTries; ++attempt) {
        fish.position = spawnExtent * glm::vec3(rng.symmetric(), rng.symmetric(), rng.symmetric());
        const bool inBall =
            radius <= 0.0f || glm::dot(fish.position, fish.position) <= radius * radius;
        if (inBall && withinRoundWall(fish.position, params, -kSpawnMargin) &&
            isInScene(fish.position, params))
            break;
    }
    if (!isInScene(fish.position, params)) {
        School one{fish};
        moveIntoScene(one, params);
        fish = one.front();
    }
    // A direction uniform on the sphere (the circle in 2D), by rejection (no trigonometry: same
    // bits everywhere).
    // Burst-and-coast fish swim in the x-z plane at the speeds of their kicks.
    const bool bursts = params.steering == Steering::BurstAndCoast;
    glm::vec3 direction(1.0f, 0.0f, 0.0f);
    for (int attempt = 0; attempt < kSpawnTries; ++attempt) {
        glm::vec3 d(rng.symmetric(), rng.symmetric(), rng.symmetric());
        if (flat || bursts) d.y = 0.0f;
        const float len2 = glm::dot(d, d);
        if (len2 > 0.01f && len2 <= 1.0f) {
            direction = d / std::sqrt(len2);
            break;
        }
    }
    fish.species = speciesOf(index, params);
    fish.velocity = direction * (0.5f * (bursts ? params.kickSpeedMax
                                                : speciesMaxVelocity(params, fish.species)));
    return fish;
}

School makeInitialSchool(const SimParams& params) {
    School school(static_cast<std::size_t>(std::max<std::int64_t>(params.fishCount, 0)));
    for (std::size_t i = 0; i < school.size(); ++i) school[i] = makeInitialFish(params, i);
    return school;
}

void resizeSchool(School& school, std::size_t count, const SimParams& params) {
    if (params.species.empty()) {
        const std::size_t old = school.size();
        school.resize(count);
        for (std::size_t i = old; i < count; ++i) school[i] = makeInitialFish(params, i);
        return;
    }
    // Each species keeps its first fish, up to its count, and gains new ones after the others.
    const std::size_t kinds = params.species.size();
    std::vector<std::int64_t> kept(kinds, 0);
    School resized;
    resized.reserve(count);
    for (const Fish& fish : school) {
        if (fish.species < kinds && kept[fish.species] < params.species[fish.species].count) {
            resized.push_back(fish);
            ++kept[fish.species];
        }
    }
    std::uint64_t first = 0;  // the first index of a species' range in a new school
    for (std::size_t s = 0; s < kinds; ++s) {
        for (std::int64_t k = kept[s]; k < params.species[s].count; ++k)
            resized.push_back(makeInitialFish(params, first + static_cast<std::uint64_t>(k)));
        first += static_cast<std::uint64_t>(params.species[s].count);
    }
    school = std::move(resized);
}

void renameSpecies(School& school, const SimParams& from, const SimParams& to) {
    if (to.species.empty()) {
        for (Fish& fish : school) fish.species = 0;
        return;
    }
    if (from.species.empty()) {
        // One kind becomes several: the fish split in index order, as a new school's would.
        for (std::size_t i = 0; i < school.size(); ++i) school[i].species = speciesOf(i, to);
        return;
    }
    // By name: a species that is gone loses its fish (past the last index, dropped on resize).
    const auto named = [](const SimParams& list, const std::string& name) {
        return std::any_of(list.species.begin(), list.species.end(),
                           [&](const Species& species) { return species.name == name; });
    };
    std::vector<std::uint32_t> index(from.species.size(), static_cast<std::uint32_t>(kMaxSpecies));
    for (std::size_t a = 0; a < from.species.size(); ++a) {
        for (std::size_t b = 0; b < to.species.size(); ++b)
            if (from.species[a].name == to.species[b].name)
                index[a] = static_cast<std::uint32_t>(b);
        // Renamed where it stands (the panel's name field): the same fish, another name.
        if (a < to.species.size() && !named(to, from.species[a].name) &&
            !named(from, to.species[a].name))
            index[a] = static_cast<std::uint32_t>(a);
    }
    for (Fish& fish : school)
        fish.species = fish.species < index.size() ? index[fish.species]
                                                   : static_cast<std::uint32_t>(kMaxSpecies);
}

void setFishCount(SimParams& params, std::int64_t count) {
    params.fishCount = count;
    if (params.species.empty()) return;
    std::int64_t total = 0;
    for (const Species& species : params.species) total += std::max<std::int64_t>(species.count, 0);
    const std::size_t kinds = params.species.size();
    // Each species' share of `count`, in whole fish, and what the rounding down left of it.
    std::vector<std::pair<double, std::size_t>> remainders;
    std::int64_t given = 0;
    for (std::size_t s = 0; s < kinds; ++s) {
        const double share =
            total > 0
                ? static_cast<double>(count) *
                      static_cast<double>(std::max<std::int64_t>(params.species[s].count, 0)) /
                      static_cast<double>(total)
                : static_cast<double>(count) / static_cast<double>(kinds);
        const auto whole = static_cast<std::int64_t>(std::floor(share));
        params.species[s].count = whole;
        given += whole;
        remainders.emplace_back(share - static_cast<double>(whole), s);
    }
    // The largest remainders first, the first species on a tie: the same counts every time.
    std::stable_sort(remainders.begin(), remainders.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t k = 0; given < count; k = (k + 1) % kinds, ++given)
        ++params.species[remainders[k].second].count;
}

void countSchool(SimParams& params, std::span<const Fish> school) {
    params.fishCount = static_cast<std::int64_t>(school.size());
    if (params.species.empty()) return;
    for (Species& species : params.species) species.count = 0;
    for (const Fish& fish : school)
        if (fish.species < params.species.size()) ++params.species[fish.species].count;
}

bool sameSpeciesCounts(const SimParams& a, const SimParams& b) {
    if (a.species.size() != b.species.size()) return false;
    for (std::size_t s = 0; s < a.species.size(); ++s)
        if (a.species[s].name != b.species[s].name || a.species[s].count != b.species[s].count)
            return false;
    return true;
}

std::size_t moveIntoScene(School& school, const SimParams& params) {
    std::size_t moved = 0;
    const bool flat = params.dimensions == 2;
    for (Fish& fish : school) {
        // 2D: into the plane y = 0, moving along it only.
        const bool offPlane = flat && (fish.position.y != 0.0f || fish.velocity.y != 0.0f);
        if (offPlane) {
            fish.position.y = 0.0f;
            fish.velocity.y = 0.0f;
            fish.acceleration.y = 0.0f;
        }
        if (isInScene(fish.position, params)) {
            moved += offPlane ? 1u : 0u;
            continue;
        }
        glm::vec3 p = fish.position;
        // Overlapping rocks can push a fish from one into another: a few rounds settle it.
        for (int round = 0; round < 8 && !isInScene(p, params); ++round) {
            for (int k = 0; k < 3; ++k) {
                const float b = params.bounds[k];
                if (!std::isfinite(p[k])) p[k] = 0.0f;
                const float reach = params.boundary == Boundary::Open ? kOpenWaterReach : b;
                p[k] = std::clamp(p[k], -reach, reach);
            }
            if (!withinRoundWall(p, params, 0.0)) {
                // Onto the radius to it, just inside the round wall.
                const float r = std::sqrt(p.x * p.x + p.z * p.z);
                const float inside = arenaRadiusOf(params) * (1.0f - 1e-6f) / r;
                p.x *= inside;
                p.z *= inside;
            }
            for (const Rock& rock : params.rocks) {
                if (insideRock(p, rock)) p = pushOutOfRock(p, rock, flat);
            }
        }
        fish.position = p;
        ++moved;
    }
    return moved;
}

Result<bool> changeParams(Backend& backend, const SimParams& running, const SimParams& next) {
    const bool sceneChanged = next.bounds != running.bounds || next.rocks != running.rocks ||
                              next.boundary != running.boundary ||
                              arenaRadiusOf(next) != arenaRadiusOf(running) ||
                              next.dimensions != running.dimensions;
    const bool speciesChanged = !sameSpeciesCounts(running, next);
    const bool countChanged =
        static_cast<std::size_t>(next.fishCount) != backend.fishCount() || speciesChanged;
    if (!sceneChanged && !countChanged) {
        if (auto ok = backend.setParams(next); !ok) return fail(ok.error());
        return false;
    }
    School school = backend.download();
    if (speciesChanged) renameSpecies(school, running, next);
    if (countChanged) resizeSchool(school, static_cast<std::size_t>(next.fishCount), next);
    moveIntoScene(school, next);
    if (auto ok = backend.setParams(next); !ok) return fail(ok.error());
    if (auto ok = backend.upload(school); !ok) {
        // The parameters the backend ran before: they set up before, so they do again.
        (void)backend.setParams(running);
        return fail(ok.error());
    }
    return true;
}

SimParams fixedDensityParams(std::int64_t fishCount, const SimParams& base) {
    SimParams params = base;
    setFishCount(params, fishCount);  // the species' counts too, so that the rocks validate
    // No fish, no density: any scale would be a density nobody gave.
    if (base.fishCount < 1) return params;
    const double ratio = static_cast<double>(std::max<std::int64_t>(fishCount, 1)) /
                         static_cast<double>(base.fishCount);
    const float scale = static_cast<float>(std::max(std::cbrt(ratio), 0.05));
    params.bounds = base.bounds * scale;
    params.target = base.target * scale;
    params.arenaRadius = base.arenaRadius * scale;
    params.rocks.clear();
    for (const Rock& rock : base.rocks) {
        SimParams candidate = params;
        candidate.rocks = {{rock.center * scale, rock.radius * scale}};
        // A tiny tank cannot keep a rock's gap to the walls: such a rock is left out.
        if (validate(candidate)) params.rocks.push_back(candidate.rocks.front());
    }
    return params;
}

std::string_view toString(Density density) {
    return density == Density::Fixed ? "fixed" : "tank";
}

Result<Density> parseDensity(std::string_view flag, std::string_view text) {
    if (text == "fixed") return Density::Fixed;
    if (text == "tank") return Density::Tank;
    return fail(std::string(flag) + ": " + quote(text) + " is not allowed; must be fixed or tank");
}

SimParams articleParams() {
    SimParams p;
    p.kCohesion = 1.0f;
    p.kSeparation = 1.5f;
    p.kAlignment = 1.0f;
    p.rCohesion = 10.0f;
    p.rSeparation = 2.5f;
    p.rAlignment = 6.0f;
    p.maxAcceleration = 3.0f;
    p.maxVelocity = 5.0f;
    return p;
}

SimParams rummyNoseParams() {
    SimParams p;
    p.fishCount = 5;
    p.steering = Steering::BurstAndCoast;
    p.neighborSelection = NeighborSelection::Influential;
    p.neighborCount = 1;
    p.arena = Arena::Cylinder;
    p.bounds = {0.25f, 0.035f, 0.25f};
    p.dimensions = 2;
    p.rocks.clear();
    p.dt = 0.01f;
    p.rCohesion = 1.0f;  // every fish of the tank within reach
    p.maxVelocity = p.kickSpeedMax;
    p.bodyLength = 0.03f;
    return p;
}

}  // namespace fishschool
