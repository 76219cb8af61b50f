#pragma once

#include <cstdint>

#include <glm/vec3.hpp>
#include <span>
#include <vector>

namespace fishschool {

/// One fish as the backends exchange it (upload, download, files). Each backend keeps its own
/// internal layout; this is the common currency.
struct Fish {
    glm::vec3 position{0.0f};      ///< m, inside the tank and outside every rock
    glm::vec3 velocity{0.0f};      ///< m/s, length <= maxVelocity after a step
    glm::vec3 acceleration{0.0f};  ///< m/s^2, the acceleration of the last step
    std::uint32_t species = 0;     ///< index into SimParams::species; 0 without species
    /// Steering "burst-and-coast": seconds to the fish's next kick; 0 until its first is drawn
    /// (then at its first step, uniform within a kick's duration). 0 under other steerings.
    float kickClock = 0.0f;

    bool operator==(const Fish&) const = default;
};

using School = std::vector<Fish>;

/// The positions and velocities of `school`, fish by fish, as float triples into `positions` and
/// `velocities` (3 * school.size() floats each): a trajectory's frame.
inline void copyFrame(std::span<const Fish> school, std::span<float> positions,
                      std::span<float> velocities) {
    for (std::size_t i = 0; i < school.size(); ++i) {
        const Fish& fish = school[i];
        positions[3 * i] = fish.position.x;
        positions[3 * i + 1] = fish.position.y;
        positions[3 * i + 2] = fish.position.z;
        velocities[3 * i] = fish.velocity.x;
        velocities[3 * i + 1] = fish.velocity.y;
        velocities[3 * i + 2] = fish.velocity.z;
    }
}

}  // namespace fishschool
