#include "Invariants.h"

#include <cmath>
#include <string>

#include "Messages.h"
#include "Scenario.h"

namespace fishschool {
namespace {

bool finite(const glm::vec3& v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

}  // namespace

Result<void> checkInvariants(std::span<const Fish> school, const SimParams& params) {
    constexpr const char* kAxes = "xyz";
    for (std::size_t i = 0; i < school.size(); ++i) {
        const Fish& f = school[i];
        const std::string fish = "fish " + std::to_string(i) + " at " + formatPoint(f.position);
        if (!finite(f.position)) return fail(fish + ": the position is not finite");
        if (!finite(f.velocity))
            return fail(fish + ": the velocity " + formatPoint(f.velocity) + " is not finite");
        if (!finite(f.acceleration))
            return fail(fish + ": the acceleration " + formatPoint(f.acceleration) +
                        " is not finite");
        for (int k = 0; k < 3; ++k) {
            // In double: neither the tolerance nor the sum can round or overflow here. Open
            // water's bound is its reach, which no step passes.
            const bool open = params.boundary == Boundary::Open;
            const double bound = open ? kOpenWaterReach : params.bounds[k];
            if (std::abs(static_cast<double>(f.position[k])) > bound * (1.0 + kInvariantTolerance))
                return fail(fish +
                            (open ? ": beyond open water's reach (" : ": outside the tank (") +
                            kAxes[k] + " beyond +-" + formatNumber(bound) + ")");
        }
        if (!withinRoundWall(f.position, params, kInvariantTolerance))
            return fail(fish + ": outside the round tank (farther than " +
                        formatNumber(arenaRadiusOf(params)) + " m from its axis)");
        for (std::size_t r = 0; r < params.rocks.size(); ++r) {
            const Rock& rock = params.rocks[r];
            double squared = 0.0;
            for (int k = 0; k < 3; ++k) {
                const double d = static_cast<double>(f.position[k]) - rock.center[k];
                squared += d * d;
            }
            const double inner = rock.radius * (1.0 - kInvariantTolerance);
            if (squared < inner * inner)
                return fail(fish + ": inside rock " + std::to_string(r) + " (centre " +
                            formatPoint(rock.center) + ", radius " + formatNumber(rock.radius) +
                            "): " + formatNumber(std::sqrt(squared)) + " from its centre");
        }
    }
    return {};
}

}  // namespace fishschool
