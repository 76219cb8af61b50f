#pragma once

#include <glm/vec3.hpp>
#include <vector>

namespace fishschool {

/// One fish as the backends exchange it (upload, download, files). Each backend keeps its own
/// internal layout; this is the common currency.
struct Fish {
    glm::vec3 position{0.0f};      ///< m, inside the tank and outside every rock
    glm::vec3 velocity{0.0f};      ///< m/s, length <= maxVelocity after a step
    glm::vec3 acceleration{0.0f};  ///< m/s^2, the acceleration of the last step

    bool operator==(const Fish&) const = default;
};

using School = std::vector<Fish>;

}  // namespace fishschool
