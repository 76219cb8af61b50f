#pragma once

#include <glad/gl.h>

#include <span>
#include <vector>

#include "Camera.h"
#include "core/Fish.h"
#include "core/SimParams.h"
#include "gpu/GlObjects.h"
#include "gpu/GpuLayout.h"

namespace fishschool::render {

enum class FishColoring { BySpeed, ByHeading };

/// Where the fish to draw are: a storage buffer of GpuFish and the range in it.
struct FishSource {
    GLuint buffer = 0;
    std::size_t firstFish = 0;
    std::size_t count = 0;
};

/// Draws the tank, the floor, the rocks and the fish, with an underwater look.
class SceneRenderer {
  public:
    /// Loads the shaders and assets/fish.obj; needs a current GL 4.5 context.
    [[nodiscard]] static Result<SceneRenderer> create();

    /// Copies a CPU school into the renderer's own fish buffer (one upload a frame), and returns
    /// where it lies. The gpu backend skips this: its buffer is drawn directly.
    FishSource uploadSchool(std::span<const Fish> school);

    void draw(const SimParams& params, const OrbitCamera& camera, int width, int height,
              const FishSource& fish, float wallSeconds, FishColoring coloring);

    float fishLength = 1.5f;  ///< m, the drawn length of a fish
    /// Pixels by which the tank's picture moves right, so that a panel on the left hides less.
    float centerShiftPixels = 0.0f;

  private:
    struct MeshBuffer {
        gpu::GlBuffer vertices;
        GLsizei count = 0;
    };
    MeshBuffer makeMesh(const std::vector<struct MeshVertex>& mesh);
    void drawMesh(const MeshBuffer& mesh, GLenum mode, GLsizei instances = 1);

    gpu::GlProgram fishProgram_, sceneProgram_;
    gpu::GlVertexArray vertexArray_;
    MeshBuffer fishMesh_, sphereMesh_, floorMesh_, edgeMesh_, wallMesh_;
    gpu::GlBuffer schoolBuffer_;
    std::vector<gpu::GpuFish> staging_;
};

}  // namespace fishschool::render
