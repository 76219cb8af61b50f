#pragma once

#include <filesystem>
#include <vector>

#include <glm/vec3.hpp>

#include "fishschool/Result.h"

namespace fishschool::render {

/// Triangles with one normal per face (flat shading), unindexed: three vertices a triangle.
struct MeshVertex {
    glm::vec3 position;
    glm::vec3 normal;
};
using Mesh = std::vector<MeshVertex>;

/// Reads the `v` and `f` lines of a Wavefront OBJ file (triangles or convex polygons); other
/// lines are ignored. Errors name the file and the line.
[[nodiscard]] Result<Mesh> loadObj(const std::filesystem::path& path);

/// A sphere of radius 1 at the origin.
Mesh makeSphere(int rings, int segments);

}  // namespace fishschool::render
