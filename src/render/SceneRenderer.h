#pragma once

#include <glad/gl.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "Camera.h"
#include "fishschool/Fish.h"
#include "fishschool/SimParams.h"
#include "gpu/GlObjects.h"
#include "gpu/GpuLayout.h"

namespace fishschool::render {

enum class FishColoring { BySpeed, ByHeading, BySpecies };

/// Where the fish to draw are: a storage buffer of GpuFish and the range in it.
struct FishSource {
    GLuint buffer = 0;
    std::size_t firstFish = 0;
    std::size_t count = 0;
};

/// The fish of one frame as the GPU drew them: how many at each level of detail (those outside
/// the view are drawn at none) and the triangles they took.
struct FishDrawStats {
    /// The full mesh, the low-poly one, one triangle turned to the camera.
    static constexpr std::size_t kLevels = 3;
    std::array<std::uint64_t, kLevels> fishPerLevel{};
    std::uint64_t triangles = 0;
    std::uint64_t fishDrawn() const { return fishPerLevel[0] + fishPerLevel[1] + fishPerLevel[2]; }
};

/// Draws the tank, the floor, the rocks and the fish, with an underwater look. The fish are
/// sorted on the GPU (fish_cull.comp): those outside the view are not drawn, the others are drawn
/// with a mesh as detailed as their size on screen needs, through indirect draws, so the CPU
/// reads nothing back and never waits.
class SceneRenderer {
  public:
    /// Loads the shaders and assets/fish.obj; needs a current GL 4.5 context.
    [[nodiscard]] static Result<SceneRenderer> create();

    /// Copies a CPU school into the renderer's own fish buffer (one upload a frame), species
    /// included, and returns where it lies. The gpu backend skips this: its buffer is drawn
    /// directly.
    FishSource uploadSchool(std::span<const Fish> school);

    /// Each fish drawn as long as its species' bodyLength (the config's without species);
    /// BySpecies colours it with its species' colour, the others ignore the species.
    void draw(const SimParams& params, const OrbitCamera& camera, int width, int height,
              const FishSource& fish, float wallSeconds, FishColoring coloring);

    /// The counts of the latest frame the GPU has finished, a few frames behind the one drawn
    /// (read without waiting); nullopt until the first comes back.
    const std::optional<FishDrawStats>& drawStats();
    /// Waits for every frame drawn so far and returns the last one's counts (tests only).
    const std::optional<FishDrawStats>& waitForDrawStats();

    /// A fish at least levelPixels[0] pixels long on screen gets the full mesh, one at least
    /// levelPixels[1] the low-poly one, a smaller one two darts. Below about 24 pixels the full
    /// mesh's facets are under a pixel each, so the low-poly one looks the same there.
    std::array<float, 2> levelPixels = {9.0f, 6.0f};
    /// Pixels by which the picture's centre moves (x right, y down), to the middle of the part
    /// of the window that the panel and the overlay leave.
    glm::vec2 centerShiftPixels{0.0f};

  private:
    struct MeshBuffer {
        gpu::GlBuffer vertices;
        GLsizei count = 0;
    };
    MeshBuffer makeMesh(const std::vector<struct MeshVertex>& mesh);
    void drawMesh(const MeshBuffer& mesh, GLenum mode, GLsizei instances = 1);

    /// Sorts the fish into the levels' lists and draw commands (fish_cull.comp).
    void cullFish(const SimParams& params, const FishSource& fish, const glm::mat4& viewProjection,
                  const OrbitCamera& camera, int height);
    /// fish_draw.glsl's uniforms: how long each fish is drawn (its species' bodyLength, or the
    /// config's, times the leaders' and predators' multiples).
    void setFishSizes(const gpu::GlProgram& program, const SimParams& params) const;
    /// Copies the draw commands for reading back once the GPU is past them.
    void queueDrawStats();

    gpu::GlProgram fishProgram_, sceneProgram_, cullProgram_;
    gpu::GlVertexArray vertexArray_;
    gpu::GlVertexArray fishVertexArray_;    ///< the instanced levels' meshes from fishMeshVertices_
    gpu::GlVertexArray pulledVertexArray_;  ///< no attributes: the pulled level reads its own
    /// The fish meshes of every level, one after the other (fish.vert's MeshVertices), and
    /// where each level's begins and how many vertices it has.
    gpu::GlBuffer fishMeshVertices_;
    std::array<GLuint, FishDrawStats::kLevels> fishMeshFirst_{}, fishMeshCount_{};
    MeshBuffer sphereMesh_, floorMesh_, edgeMesh_, wallMesh_;
    MeshBuffer cylinderEdgeMesh_, cylinderWallMesh_;  ///< the round tank (arena "cylinder")
    gpu::GlBuffer schoolBuffer_;
    std::vector<gpu::GpuFish> staging_;
    gpu::GlBuffer drawCommands_;  ///< a DrawArraysIndirectCommand per level
    gpu::GlBuffer drawLists_;     ///< the fish of each level, listCapacity_ a level
    std::size_t listCapacity_ = 0;
    /// Copies of the draw commands on their way back, each with the fence that says it is there.
    struct PendingStats {
        gpu::GlBuffer commands;
        gpu::GlFence fence;
    };
    std::vector<PendingStats> pendingStats_;  ///< oldest first
    std::vector<gpu::GlBuffer> freeStatsBuffers_;
    std::optional<FishDrawStats> drawStats_;
};

}  // namespace fishschool::render
