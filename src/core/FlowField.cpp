#include "FlowField.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>

#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include "StepRule.h"

namespace fishschool {
namespace {

bool insideAnyRock(const glm::vec3& x, const std::vector<Rock>& rocks, const Rock** which) {
    for (const Rock& rock : rocks) {
        const glm::vec3 d = x - rock.center;
        if (glm::dot(d, d) < rock.radius * rock.radius) {
            *which = &rock;
            return true;
        }
    }
    return false;
}

/// Whether the straight way from `a` to `b` passes through no rock.
bool clearLine(const glm::vec3& a, const glm::vec3& b, const std::vector<Rock>& rocks) {
    return std::none_of(rocks.begin(), rocks.end(), [&](const Rock& rock) {
        return geometry().segmentEntersSphere(a, b, rock.center, rock.radius);
    });
}

}  // namespace

std::shared_ptr<const FlowField> FlowField::build(const SimParams& params) {
    auto field = std::make_shared<FlowField>();
    FlowField& f = *field;
    f.bounds_ = params.bounds;
    f.target_ = params.target;
    f.rocks_ = params.rocks;

    const glm::dvec3 extent = 2.0 * glm::dvec3(params.bounds);
    const double volume = extent.x * extent.y * extent.z;
    f.spacing_ = std::max(kMinSpacing, static_cast<float>(std::cbrt(volume / kTargetNodes)));
    // Nodes from one wall to past the other, at least two per axis so a point always has eight.
    // A flat tank keeps two nodes on its thin axis, so the spacing the volume gives would make
    // far more than kTargetNodes: it grows until the total is at most kMaxNodes, which bounds
    // the build's work whatever the tank's shape.
    for (;;) {
        std::size_t total = 1;
        for (int k = 0; k < 3; ++k) {
            const double cells = std::ceil(extent[k] / f.spacing_);
            f.dims_[k] = static_cast<int>(std::clamp(cells, 1.0, 4096.0)) + 1;
            total *= static_cast<std::size_t>(f.dims_[k]);
        }
        if (total <= kMaxNodes) break;
        f.spacing_ *= std::max(1.01f, static_cast<float>(std::cbrt(double(total) / kTargetNodes)));
    }
    f.origin_ = -params.bounds;
    const glm::ivec3 dims = f.dims_;
    const std::size_t count = static_cast<std::size_t>(dims.x) * dims.y * dims.z;
    auto position = [&](std::size_t n) {
        const int x = static_cast<int>(n % dims.x);
        const int y = static_cast<int>((n / dims.x) % dims.y);
        const int z = static_cast<int>(n / (static_cast<std::size_t>(dims.x) * dims.y));
        return f.origin_ + f.spacing_ * glm::vec3(x, y, z);
    };
    auto index = [&](int x, int y, int z) {
        return static_cast<std::size_t>(x) +
               static_cast<std::size_t>(dims.x) *
                   (static_cast<std::size_t>(y) + static_cast<std::size_t>(dims.y) * z);
    };

    // Dijkstra from the goal: the free nodes of the lattice cell that holds the target, each at
    // its straight distance to it.
    constexpr float kUnreached = std::numeric_limits<float>::infinity();
    std::vector<float> distance(count, kUnreached);
    std::vector<char> blocked(count, 0);
    for (std::size_t n = 0; n < count; ++n) {
        const Rock* rock = nullptr;
        blocked[n] = insideAnyRock(position(n), params.rocks, &rock);
    }
    using Entry = std::pair<float, std::size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
    glm::ivec3 goal;
    for (int k = 0; k < 3; ++k) {
        // Clamped as a float first: a target far outside the tank must not overflow the int.
        const float cell = (params.target[k] - f.origin_[k]) / f.spacing_;
        goal[k] = static_cast<int>(std::floor(std::clamp(cell, 0.0f, float(dims[k] - 2))));
    }
    // The rocks a step from each node to a neighbour could cross: those within a diagonal of
    // the lattice of it. Rocks keep gaps between them, so a node has few, and the steps' test
    // costs about the nodes, not the nodes times the rocks.
    std::vector<std::uint32_t> nearStart(count + 1, 0);
    static_assert(kMaxRocks <= 65536, "a rock's index must fit 16 bits");
    std::vector<std::uint16_t> nearRocks;
    const double reach = double(f.spacing_) * std::sqrt(3.0);
    for (std::size_t n = 0; n < count; ++n) {
        const glm::dvec3 here(position(n));
        for (std::size_t r = 0; r < params.rocks.size(); ++r) {
            const glm::dvec3 d = here - glm::dvec3(params.rocks[r].center);
            const double within = double(params.rocks[r].radius) + reach;
            if (glm::dot(d, d) <= within * within)
                nearRocks.push_back(static_cast<std::uint16_t>(r));
        }
        nearStart[n + 1] = static_cast<std::uint32_t>(nearRocks.size());
    }
    // A step between two nodes in water can still cross a rock thinner than the spacing.
    auto passable = [&](std::size_t from, const glm::vec3& b) {
        const glm::vec3 a = position(from);
        for (std::uint32_t i = nearStart[from]; i < nearStart[from + 1]; ++i) {
            const Rock& rock = params.rocks[nearRocks[i]];
            if (geometry().segmentEntersSphere(a, b, rock.center, rock.radius)) return false;
        }
        return true;
    };
    for (int corner = 0; corner < 8; ++corner) {
        const std::size_t n = index(goal.x + (corner & 1), goal.y + ((corner >> 1) & 1),
                                    goal.z + ((corner >> 2) & 1));
        if (blocked[n]) continue;
        distance[n] = glm::length(params.target - position(n));
        open.push({distance[n], n});
    }
    while (!open.empty()) {
        const auto [d, n] = open.top();
        open.pop();
        if (d > distance[n]) continue;  // a stale entry
        const glm::vec3 here = position(n);
        const int x = static_cast<int>(n % dims.x);
        const int y = static_cast<int>((n / dims.x) % dims.y);
        const int z = static_cast<int>(n / (static_cast<std::size_t>(dims.x) * dims.y));
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const int nx = x + dx, ny = y + dy, nz = z + dz;
                    if ((dx | dy | dz) == 0 || nx < 0 || ny < 0 || nz < 0 || nx >= dims.x ||
                        ny >= dims.y || nz >= dims.z)
                        continue;
                    const std::size_t m = index(nx, ny, nz);
                    if (blocked[m] || !passable(n, position(m))) continue;
                    const float through = d + glm::length(position(m) - here);
                    if (through < distance[m]) {
                        distance[m] = through;
                        open.push({through, m});
                    }
                }
    }

    f.nodes_.resize(count);
    for (std::size_t n = 0; n < count; ++n) {
        const glm::vec3 here = position(n);
        glm::vec3 direction;
        const Rock* rock = nullptr;
        if (insideAnyRock(here, params.rocks, &rock)) {
            // Out of the rock, the quickest way back to water.
            direction = geometry().normalizeOrZero(here - rock->center);
        } else if (distance[n] == kUnreached || clearLine(here, params.target, params.rocks)) {
            // In sight of the target, or cut off from it: straight at it.
            direction = geometry().normalizeOrZero(params.target - here);
        } else {
            // Toward the neighbour nearest the target by water (the first of equals).
            const int x = static_cast<int>(n % dims.x);
            const int y = static_cast<int>((n / dims.x) % dims.y);
            const int z = static_cast<int>(n / (static_cast<std::size_t>(dims.x) * dims.y));
            float best = distance[n];
            std::size_t next = n;
            for (int dz = -1; dz <= 1; ++dz)
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int nx = x + dx, ny = y + dy, nz = z + dz;
                        if (nx < 0 || ny < 0 || nz < 0 || nx >= dims.x || ny >= dims.y ||
                            nz >= dims.z)
                            continue;
                        const std::size_t m = index(nx, ny, nz);
                        if (distance[m] < best && passable(n, position(m))) {
                            best = distance[m];
                            next = m;
                        }
                    }
            direction = geometry().normalizeOrZero(position(next) - here);
        }
        f.nodes_[n] = glm::vec4(direction, 0.0f);
    }
    return field;
}

std::shared_ptr<const FlowField> FlowField::forParams(const SimParams& params,
                                                      std::shared_ptr<const FlowField> previous) {
    if (params.kTarget == 0.0f || params.targetPath != TargetPath::FlowField) return nullptr;
    if (previous && previous->matches(params)) return previous;
    return build(params);
}

bool FlowField::matches(const SimParams& params) const {
    return params.bounds == bounds_ && params.target == target_ && params.rocks == rocks_;
}

glm::vec3 FlowField::sample(const glm::vec3& p) const {
    // The step's own sampling (shaders/step_rule.h), so the CPU and the GPU blend alike.
    StepParamsData params{};
    params.flowOrigin = glm::vec4(origin_, spacing_);
    params.flowDims = glm::uvec4(glm::uvec3(dims_), 0u);
    StepRule<glsl::kFeatureFlowField> rule(params, nullptr, nodes_.data());
    return rule.sampleFlow(p);
}

}  // namespace fishschool
