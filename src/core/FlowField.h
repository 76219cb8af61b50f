#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "fishschool/SimParams.h"

namespace fishschool {

/// A vector field over the tank that leads every point to `target` along the shortest way through
/// water, around the rocks (the flow fields of the crowd-simulation source: Dijkstra from the
/// goal over a grid, sampled between grid points). Seeking with targetPath "flow-field" steers
/// along it instead of straight at the target.
///
/// The field is a lattice of nodes spaced `spacing` apart from `origin` (a corner of the tank).
/// Each node holds a unit direction: toward its neighbour (of 26) nearest the target by water;
/// out of the rock for a node inside one; straight at the target where no way leads there.
/// sample() blends the 8 nodes around a point (trilinear), exactly as the compute shader does.
class FlowField {
  public:
    /// The field for params' tank, rocks and target. About kTargetNodes nodes whatever the tank's
    /// size (spacing at least kMinSpacing).
    static std::shared_ptr<const FlowField> build(const SimParams& params);

    /// Whether this field was built for the same tank, rocks and target as `params`.
    bool matches(const SimParams& params) const;

    /// The field a backend needs for `params`: none unless they seek along a flow field;
    /// `previous` when it still matches (a rebuild takes milliseconds), else a new one.
    static std::shared_ptr<const FlowField> forParams(const SimParams& params,
                                                      std::shared_ptr<const FlowField> previous);

    /// The blended direction at `p` (not normalised; zero only where directions cancel). Points
    /// outside the lattice take the nearest node's values.
    glm::vec3 sample(const glm::vec3& p) const;

    glm::vec3 origin() const { return origin_; }
    float spacing() const { return spacing_; }
    glm::ivec3 dims() const { return dims_; }
    /// The directions, x fastest, as vec4 (w = 0) for the GPU's storage buffer.
    const std::vector<glm::vec4>& nodes() const { return nodes_; }

    static constexpr std::size_t kTargetNodes = 64 * 1024;
    /// At most this many nodes, whatever the tank's shape (a flat tank has coarser ones).
    static constexpr std::size_t kMaxNodes = 2 * kTargetNodes;
    static constexpr float kMinSpacing = 0.5f;

  private:
    glm::vec3 origin_{0.0f};
    float spacing_ = 1.0f;
    glm::ivec3 dims_{1};
    std::vector<glm::vec4> nodes_;
    // What the field was built for.
    glm::vec3 bounds_{0.0f}, target_{0.0f};
    std::vector<Rock> rocks_;
};

}  // namespace fishschool
