#include "SceneRenderer.h"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "Mesh.h"
#include "core/ParamTable.h"
#include "gpu/ShaderFiles.h"

namespace fishschool::render {
namespace {

constexpr glm::vec3 kWaterColor{0.05f, 0.28f, 0.38f};
constexpr unsigned kCullWorkgroupSize = 256;
/// The level whose mesh is one triangle, turned to the camera.
constexpr std::size_t kOneTriangleLevel = 2;
/// Frames whose draw counts may be on their way back at once; beyond, a frame's go unread.
constexpr std::size_t kStatsInFlight = 4;

// fish_draw.glsl and fish.vert hold a length and a colour for each of at most 16 species.
static_assert(kMaxSpecies == 16);

/// GL's DrawArraysIndirectCommand, as fish_cull.comp's DrawCommand writes it.
struct DrawCommand {
    GLuint vertexCount, instanceCount, firstVertex, baseInstance;
};

/// The six planes of the view frustum of `m` (Gribb and Hartmann), each scaled to a unit normal
/// so that a plane's value at a point is its signed distance.
std::array<glm::vec4, 6> frustumPlanes(const glm::mat4& m) {
    const glm::vec4 row0(m[0][0], m[1][0], m[2][0], m[3][0]);
    const glm::vec4 row1(m[0][1], m[1][1], m[2][1], m[3][1]);
    const glm::vec4 row2(m[0][2], m[1][2], m[2][2], m[3][2]);
    const glm::vec4 row3(m[0][3], m[1][3], m[2][3], m[3][3]);
    std::array<glm::vec4, 6> planes = {row3 + row0, row3 - row0, row3 + row1,
                                       row3 - row1, row3 + row2, row3 - row2};
    for (glm::vec4& plane : planes) plane /= glm::length(glm::vec3(plane));
    return planes;
}

Mesh unitQuadXZ() {
    const glm::vec3 n(0, 1, 0);
    return {{{-1, 0, -1}, n}, {{1, 0, 1}, n},  {{1, 0, -1}, n},
            {{-1, 0, -1}, n}, {{-1, 0, 1}, n}, {{1, 0, 1}, n}};
}

/// The 12 edges of the cube [-1,1]^3 as line pairs.
Mesh unitCubeEdges() {
    Mesh lines;
    const glm::vec3 n(0, 1, 0);
    for (int axis = 0; axis < 3; ++axis) {
        for (int a : {-1, 1}) {
            for (int b : {-1, 1}) {
                glm::vec3 p(0.0f), q(0.0f);
                p[axis] = -1.0f;
                q[axis] = 1.0f;
                p[(axis + 1) % 3] = q[(axis + 1) % 3] = static_cast<float>(a);
                p[(axis + 2) % 3] = q[(axis + 2) % 3] = static_cast<float>(b);
                lines.push_back({p, n});
                lines.push_back({q, n});
            }
        }
    }
    return lines;
}

/// The six faces of the cube [-1,1]^3, normals outward.
Mesh unitCubeFaces() {
    Mesh faces;
    for (int axis = 0; axis < 3; ++axis) {
        for (float side : {-1.0f, 1.0f}) {
            glm::vec3 n(0.0f);
            n[axis] = side;
            glm::vec3 u(0.0f), v(0.0f);
            u[(axis + 1) % 3] = 1.0f;
            v[(axis + 2) % 3] = 1.0f;
            const glm::vec3 a = n - u - v, b = n + u - v, c = n + u + v, d = n - u + v;
            for (const glm::vec3& p : {a, b, c, a, c, d}) faces.push_back({p, n});
        }
    }
    return faces;
}

/// Segments of a round tank's circles: smooth at any size the window shows.
constexpr int kCylinderSegments = 96;

glm::vec3 onUnitCircle(int k, float y) {
    const float angle = 6.2831853f * static_cast<float>(k) / kCylinderSegments;
    return {std::cos(angle), y, std::sin(angle)};
}

/// The round tank's edges: the circles of radius 1 at y = -1 and 1, and 8 vertical lines.
Mesh unitCylinderEdges() {
    Mesh lines;
    const glm::vec3 n(0, 1, 0);
    for (float y : {-1.0f, 1.0f}) {
        for (int k = 0; k < kCylinderSegments; ++k) {
            lines.push_back({onUnitCircle(k, y), n});
            lines.push_back({onUnitCircle(k + 1, y), n});
        }
    }
    for (int k = 0; k < kCylinderSegments; k += kCylinderSegments / 8) {
        lines.push_back({onUnitCircle(k, -1.0f), n});
        lines.push_back({onUnitCircle(k, 1.0f), n});
    }
    return lines;
}

/// The round tank's glass: the side of the cylinder of radius 1 from y = -1 to 1, normals
/// outward.
Mesh unitCylinderSide() {
    Mesh faces;
    for (int k = 0; k < kCylinderSegments; ++k) {
        const glm::vec3 a = onUnitCircle(k, -1.0f), b = onUnitCircle(k + 1, -1.0f);
        const glm::vec3 c = onUnitCircle(k + 1, 1.0f), d = onUnitCircle(k, 1.0f);
        const glm::vec3 na(a.x, 0.0f, a.z), nb(b.x, 0.0f, b.z);
        faces.insert(faces.end(), {{a, na}, {b, nb}, {c, nb}, {a, na}, {c, nb}, {d, na}});
    }
    return faces;
}

}  // namespace

Result<SceneRenderer> SceneRenderer::create() {
    SceneRenderer r;
    auto fishProgram = gpu::GlProgram::fromFiles(
        {{GL_VERTEX_SHADER, "fish.vert"}, {GL_FRAGMENT_SHADER, "fish.frag"}});
    if (!fishProgram) return fail(fishProgram.error());
    auto sceneProgram = gpu::GlProgram::fromFiles(
        {{GL_VERTEX_SHADER, "scene.vert"}, {GL_FRAGMENT_SHADER, "scene.frag"}});
    if (!sceneProgram) return fail(sceneProgram.error());
    auto cullProgram = gpu::GlProgram::fromFiles(
        {{GL_COMPUTE_SHADER, "fish_cull.comp"}},
        "#define WORKGROUP_SIZE " + std::to_string(kCullWorkgroupSize) + "u\n");
    if (!cullProgram) return fail(cullProgram.error());
    // One mesh per level of detail, the most detailed first, in one buffer that fish.vert reads
    // (std430: a vec4 for the position, one for the normal).
    constexpr std::array<const char*, FishDrawStats::kLevels> kMeshFiles = {
        "fish.obj", "fish_low.obj", "fish_tiny.obj"};
    std::vector<glm::vec4> meshVertices;
    for (std::size_t level = 0; level < kMeshFiles.size(); ++level) {
        auto mesh = loadObj(gpu::assetDirectory() / kMeshFiles[level]);
        if (!mesh) return fail(mesh.error());
        r.fishMeshFirst_[level] = static_cast<GLuint>(meshVertices.size() / 2);
        r.fishMeshCount_[level] = static_cast<GLuint>(mesh->size());
        for (const MeshVertex& v : *mesh) {
            meshVertices.emplace_back(v.position, 1.0f);
            meshVertices.emplace_back(v.normal, 0.0f);
        }
    }
    r.fishMeshVertices_ = gpu::GlBuffer::create(
        static_cast<GLsizeiptr>(meshVertices.size() * sizeof(glm::vec4)), meshVertices.data(), 0);
    r.fishVertexArray_ = gpu::GlVertexArray::create();
    const GLuint fishVao = r.fishVertexArray_.id();
    glEnableVertexArrayAttrib(fishVao, 0);
    glEnableVertexArrayAttrib(fishVao, 1);
    glVertexArrayAttribFormat(fishVao, 0, 3, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribFormat(fishVao, 1, 3, GL_FLOAT, GL_FALSE, sizeof(glm::vec4));
    glVertexArrayAttribBinding(fishVao, 0, 0);
    glVertexArrayAttribBinding(fishVao, 1, 0);
    glVertexArrayVertexBuffer(fishVao, 0, r.fishMeshVertices_.id(), 0, 2 * sizeof(glm::vec4));
    r.pulledVertexArray_ = gpu::GlVertexArray::create();

    r.fishProgram_ = std::move(*fishProgram);
    r.sceneProgram_ = std::move(*sceneProgram);
    r.cullProgram_ = std::move(*cullProgram);
    r.vertexArray_ = gpu::GlVertexArray::create();
    const GLuint vao = r.vertexArray_.id();
    glEnableVertexArrayAttrib(vao, 0);
    glEnableVertexArrayAttrib(vao, 1);
    glVertexArrayAttribFormat(vao, 0, 3, GL_FLOAT, GL_FALSE, offsetof(MeshVertex, position));
    glVertexArrayAttribFormat(vao, 1, 3, GL_FLOAT, GL_FALSE, offsetof(MeshVertex, normal));
    glVertexArrayAttribBinding(vao, 0, 0);
    glVertexArrayAttribBinding(vao, 1, 0);

    r.drawCommands_ =
        gpu::GlBuffer::create(static_cast<GLsizeiptr>(FishDrawStats::kLevels * sizeof(DrawCommand)),
                              nullptr, GL_DYNAMIC_STORAGE_BIT);
    r.sphereMesh_ = r.makeMesh(makeSphere(10, 14));
    r.floorMesh_ = r.makeMesh(unitQuadXZ());
    r.edgeMesh_ = r.makeMesh(unitCubeEdges());
    r.wallMesh_ = r.makeMesh(unitCubeFaces());
    r.cylinderEdgeMesh_ = r.makeMesh(unitCylinderEdges());
    r.cylinderWallMesh_ = r.makeMesh(unitCylinderSide());
    if (auto ok = gpu::checkGlErrors("SceneRenderer::create"); !ok) return fail(ok.error());
    return r;
}

SceneRenderer::MeshBuffer SceneRenderer::makeMesh(const std::vector<MeshVertex>& mesh) {
    MeshBuffer m;
    m.vertices = gpu::GlBuffer::create(static_cast<GLsizeiptr>(mesh.size() * sizeof(MeshVertex)),
                                       mesh.data(), 0);
    m.count = static_cast<GLsizei>(mesh.size());
    return m;
}

void SceneRenderer::drawMesh(const MeshBuffer& mesh, GLenum mode, GLsizei instances) {
    glVertexArrayVertexBuffer(vertexArray_.id(), 0, mesh.vertices.id(), 0, sizeof(MeshVertex));
    glDrawArraysInstanced(mode, 0, mesh.count, instances);
}

FishSource SceneRenderer::uploadSchool(std::span<const Fish> school) {
    staging_.resize(school.size());
    for (std::size_t i = 0; i < school.size(); ++i) {
        const Fish& f = school[i];
        staging_[i] = {
            f.position, static_cast<std::uint32_t>(i), f.velocity, f.species, f.acceleration, 0.0f};
    }
    const auto bytes =
        static_cast<GLsizeiptr>(std::max<std::size_t>(school.size(), 1) * sizeof(gpu::GpuFish));
    if (schoolBuffer_.size() <
        bytes)  // grows by half again, so a growing school rarely reallocates
        schoolBuffer_ = gpu::GlBuffer::create(bytes + bytes / 2, nullptr, GL_DYNAMIC_STORAGE_BIT);
    if (!school.empty())
        glNamedBufferSubData(schoolBuffer_.id(), 0,
                             static_cast<GLsizeiptr>(school.size() * sizeof(gpu::GpuFish)),
                             staging_.data());
    return {schoolBuffer_.id(), 0, school.size()};
}

void SceneRenderer::draw(const SimParams& params, const OrbitCamera& camera, int width, int height,
                         const FishSource& fish, float wallSeconds, FishColoring coloring) {
    glViewport(0, 0, width, height);
    glClearColor(kWaterColor.r, kWaterColor.g, kWaterColor.b, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glBindVertexArray(vertexArray_.id());

    const glm::mat4 viewProjection =
        camera.projection(static_cast<float>(width) / static_cast<float>(std::max(height, 1)),
                          lensShift(centerShiftPixels, glm::vec2(width, height))) *
        camera.view();
    const glm::vec3 eye = camera.eye();
    const float fogDensity = 0.7f / glm::length(params.bounds) / 2.0f;
    auto setCommon = [&](const gpu::GlProgram& program) {
        glUseProgram(program.id());
        glUniformMatrix4fv(program.uniformLocation("viewProjection"), 1, GL_FALSE,
                           glm::value_ptr(viewProjection));
        glUniform3fv(program.uniformLocation("cameraPosition"), 1, glm::value_ptr(eye));
        glUniform3fv(program.uniformLocation("fogColor"), 1, glm::value_ptr(kWaterColor));
        glUniform1f(program.uniformLocation("fogDensity"), fogDensity);
    };

    // Floor, rocks, tank edges.
    setCommon(sceneProgram_);
    const GLint model = sceneProgram_.uniformLocation("model");
    const GLint color = sceneProgram_.uniformLocation("color");
    const GLint unlit = sceneProgram_.uniformLocation("unlit");
    const GLint sand = sceneProgram_.uniformLocation("sandPattern");
    const GLint opacity = sceneProgram_.uniformLocation("opacity");
    glUniform1f(opacity, 1.0f);
    const glm::vec3& b = params.bounds;
    // In open water the sea floor lies under the camera wherever it looks, far wider than the
    // fog lets one see, and its ripples stay put in the world: they scroll past as the camera
    // follows a school, so its motion reads. A tank (walls or periodic) has its own floor.
    const bool openWater = params.boundary == Boundary::Open;
    const glm::vec3 floorCentre =
        openWater ? glm::vec3(camera.target().x, -b.y - 0.01f, camera.target().z)
                  : glm::vec3(0.0f, -b.y - 0.01f, 0.0f);
    const float floorReach = openWater ? 4.0f * std::max(camera.distance(), glm::length(b)) : 0.0f;
    glm::mat4 floor = glm::translate(glm::mat4(1.0f), floorCentre);
    floor = openWater ? glm::scale(floor, {floorReach, 1.0f, floorReach})
                      : glm::scale(floor, {b.x * 1.6f, 1.0f, b.z * 1.6f});
    glUniformMatrix4fv(model, 1, GL_FALSE, glm::value_ptr(floor));
    glUniform3f(color, 0.76f, 0.70f, 0.52f);
    glUniform1i(unlit, 0);
    glUniform1i(sand, 1);
    drawMesh(floorMesh_, GL_TRIANGLES);
    glUniform1i(sand, 0);
    glUniform3f(color, 0.56f, 0.50f, 0.43f);
    for (const Rock& rock : params.rocks) {
        const glm::mat4 m =
            glm::scale(glm::translate(glm::mat4(1.0f), rock.center), glm::vec3(rock.radius));
        glUniformMatrix4fv(model, 1, GL_FALSE, glm::value_ptr(m));
        drawMesh(sphereMesh_, GL_TRIANGLES);
    }
    if (params.kTarget != 0.0f) {
        // The target the school seeks (or flees): a small glowing ball, unlit so it reads from
        // afar; green to seek, red to flee.
        const float size = 0.012f * glm::length(b);
        const glm::mat4 m =
            glm::scale(glm::translate(glm::mat4(1.0f), params.target), glm::vec3(size));
        glUniformMatrix4fv(model, 1, GL_FALSE, glm::value_ptr(m));
        if (params.kTarget > 0.0f)
            glUniform3f(color, 0.45f, 1.0f, 0.55f);
        else
            glUniform3f(color, 1.0f, 0.4f, 0.35f);
        glUniform1i(unlit, 1);
        drawMesh(sphereMesh_, GL_TRIANGLES);
    }
    // The tank's edges: the walls, or the periodic box's faces where fish wrap round (then
    // dimmer); none in open water.
    // A round tank: its cylinder, scaled to its radius and the box's height.
    const float roundRadius = arenaRadiusOf(params);
    const bool round = roundRadius > 0.0f;
    const glm::mat4 tankScale =
        glm::scale(glm::mat4(1.0f), round ? glm::vec3(roundRadius, b.y, roundRadius) : b);
    if (!openWater) {
        glUniformMatrix4fv(model, 1, GL_FALSE, glm::value_ptr(tankScale));
        if (params.boundary == Boundary::Periodic)
            glUniform3f(color, 0.35f, 0.6f, 0.7f);
        else
            glUniform3f(color, 0.55f, 0.85f, 0.95f);
        glUniform1i(unlit, 1);
        drawMesh(round ? cylinderEdgeMesh_ : edgeMesh_, GL_LINES);
    }

    // Fish, straight from the storage buffer: sorted into levels on the GPU, then one indirect
    // draw per level.
    if (fish.count > 0 && fish.buffer != 0) {
        cullFish(params, fish, viewProjection, camera, height);
        setCommon(fishProgram_);
        glUniform1f(fishProgram_.uniformLocation("time"), wallSeconds);
        glUniform1f(fishProgram_.uniformLocation("maxVelocity"), topSpeedOfSpecies(params));
        setFishSizes(fishProgram_, params);
        // fish.vert's colorMode: 0 by speed, 1 by heading, 2 by species (by speed without).
        const bool bySpecies = coloring == FishColoring::BySpecies && !params.species.empty();
        const int colorMode = bySpecies ? 2 : coloring == FishColoring::ByHeading ? 1 : 0;
        glUniform1i(fishProgram_.uniformLocation("colorMode"), colorMode);
        if (bySpecies) {
            std::array<glm::vec3, kMaxSpecies> colors{};
            for (std::size_t s = 0; s < params.species.size() && s < colors.size(); ++s)
                colors[s] = params.species[s].color;
            glUniform3fv(fishProgram_.uniformLocation("speciesColor"),
                         static_cast<GLsizei>(colors.size()), glm::value_ptr(colors[0]));
        }
        const GLint listStart = fishProgram_.uniformLocation("listStart");
        const GLint meshFirst = fishProgram_.uniformLocation("meshFirstVertex");
        const GLint meshCount = fishProgram_.uniformLocation("meshVertexCount");
        const GLint faceCamera = fishProgram_.uniformLocation("faceCamera");
        const GLint pulled = fishProgram_.uniformLocation("pulled");
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, gpu::kMeshVertexBinding, fishMeshVertices_.id());
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, drawCommands_.id());
        for (std::size_t level = 0; level < FishDrawStats::kLevels; ++level) {
            const bool oneTriangle = level == kOneTriangleLevel;
            glBindVertexArray(oneTriangle ? pulledVertexArray_.id() : fishVertexArray_.id());
            glUniform1ui(listStart, static_cast<GLuint>(level * listCapacity_));
            glUniform1ui(meshFirst, fishMeshFirst_[level]);
            glUniform1ui(meshCount, fishMeshCount_[level]);
            glUniform1i(faceCamera, oneTriangle ? 1 : 0);
            glUniform1i(pulled, oneTriangle ? 1 : 0);
            glDrawArraysIndirect(GL_TRIANGLES,
                                 reinterpret_cast<const void*>(level * sizeof(DrawCommand)));
        }
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
        glBindVertexArray(vertexArray_.id());
        queueDrawStats();
    }

    // Glass walls last, blended over everything, so the school shows through them; only where
    // there are walls.
    if (params.boundary == Boundary::Walls) {
        setCommon(sceneProgram_);
        glUniformMatrix4fv(model, 1, GL_FALSE, glm::value_ptr(tankScale));
        glUniform3f(color, 0.6f, 0.9f, 1.0f);
        glUniform1i(unlit, 0);
        glUniform1i(sand, 0);
        glUniform1f(opacity, 0.07f);
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        glDepthMask(GL_FALSE);
        drawMesh(round ? cylinderWallMesh_ : wallMesh_, GL_TRIANGLES);
        glDepthMask(GL_TRUE);
        glDisable(GL_BLEND);
    }
    glBindVertexArray(0);
    glUseProgram(0);
    (void)gpu::checkGlErrors("SceneRenderer::draw");  // on stderr, in runs with GL debugging
}

void SceneRenderer::cullFish(const SimParams& params, const FishSource& fish,
                             const glm::mat4& viewProjection, const OrbitCamera& camera,
                             int height) {
    if (listCapacity_ < fish.count) {
        // Grows by half again, as the school buffer does.
        listCapacity_ = fish.count + fish.count / 2;
        drawLists_ = gpu::GlBuffer::create(
            static_cast<GLsizeiptr>(FishDrawStats::kLevels * listCapacity_ * sizeof(GLuint)),
            nullptr, 0);
    }
    // No fish yet: the cull pass adds each fish as an instance of its level's mesh, or, on the
    // one-triangle level (one instance), as its mesh's vertices.
    std::array<DrawCommand, FishDrawStats::kLevels> commands{};
    for (std::size_t level = 0; level < commands.size(); ++level) {
        if (level == kOneTriangleLevel)
            commands[level] = {0, 1, 0, 0};
        else
            commands[level] = {fishMeshCount_[level], 0, fishMeshFirst_[level], 0};
    }
    glNamedBufferSubData(drawCommands_.id(), 0, sizeof commands, commands.data());

    const GLuint program = cullProgram_.id();
    glUseProgram(program);
    const auto planes = frustumPlanes(viewProjection);
    glUniform4fv(cullProgram_.uniformLocation("frustum"), 6, glm::value_ptr(planes[0]));
    glUniform3fv(cullProgram_.uniformLocation("eye"), 1, glm::value_ptr(camera.eye()));
    glUniform3fv(cullProgram_.uniformLocation("viewForward"), 1, glm::value_ptr(camera.forward()));
    glUniform1f(cullProgram_.uniformLocation("focalPixels"),
                camera.focalPixels(static_cast<float>(height)));
    glUniform2f(cullProgram_.uniformLocation("levelPixels"), levelPixels[0], levelPixels[1]);
    glUniform1uiv(cullProgram_.uniformLocation("meshVertexCounts"), FishDrawStats::kLevels,
                  fishMeshCount_.data());
    glUniform1ui(cullProgram_.uniformLocation("pulledLevel"), GLuint{kOneTriangleLevel});
    setFishSizes(cullProgram_, params);
    glUniform1ui(cullProgram_.uniformLocation("firstFish"), static_cast<GLuint>(fish.firstFish));
    glUniform1ui(cullProgram_.uniformLocation("fishCount"), static_cast<GLuint>(fish.count));
    glUniform1ui(cullProgram_.uniformLocation("listCapacity"), static_cast<GLuint>(listCapacity_));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, gpu::kFishBinding, fish.buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, gpu::kDrawCommandBinding, drawCommands_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, gpu::kDrawListBinding, drawLists_.id());
    // The fish buffer may have just been written, by the step or by an upload.
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glDispatchCompute(
        static_cast<GLuint>((fish.count + kCullWorkgroupSize - 1) / kCullWorkgroupSize), 1, 1);
    glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
}

void SceneRenderer::setFishSizes(const gpu::GlProgram& program, const SimParams& params) const {
    glUniform1f(program.uniformLocation("fishLength"), params.bodyLength);
    const std::size_t kinds = std::min(params.species.size(), kMaxSpecies);
    glUniform1ui(program.uniformLocation("speciesCount"), static_cast<GLuint>(kinds));
    if (kinds > 0) {
        std::array<float, kMaxSpecies> lengths{};
        for (std::size_t s = 0; s < kinds; ++s) lengths[s] = paramsOfSpecies(params, s).bodyLength;
        glUniform1fv(program.uniformLocation("speciesLength"), static_cast<GLsizei>(kinds),
                     lengths.data());
    }
    // Leaders and predators, the first fish by upload index, are drawn larger.
    glUniform1ui(program.uniformLocation("leaderCount"), static_cast<GLuint>(params.leaders));
    glUniform1ui(program.uniformLocation("specialCount"),
                 static_cast<GLuint>(params.leaders + params.predators));
}

void SceneRenderer::queueDrawStats() {
    if (pendingStats_.size() >= kStatsInFlight) return;  // read no frame's counts by waiting
    PendingStats pending;
    if (!freeStatsBuffers_.empty()) {
        pending.commands = std::move(freeStatsBuffers_.back());
        freeStatsBuffers_.pop_back();
    } else {
        pending.commands = gpu::GlBuffer::create(
            static_cast<GLsizeiptr>(FishDrawStats::kLevels * sizeof(DrawCommand)), nullptr, 0);
    }
    glCopyNamedBufferSubData(drawCommands_.id(), pending.commands.id(), 0, 0,
                             pending.commands.size());
    pending.fence = gpu::GlFence::insert();
    pendingStats_.push_back(std::move(pending));
}

const std::optional<FishDrawStats>& SceneRenderer::drawStats() {
    std::size_t done = 0;
    while (done < pendingStats_.size() && pendingStats_[done].fence.signaled()) ++done;
    if (done == 0) return drawStats_;
    // The newest finished frame's counts; the older finished ones are passed over.
    std::array<DrawCommand, FishDrawStats::kLevels> commands{};
    PendingStats& newest = pendingStats_[done - 1];
    glGetNamedBufferSubData(newest.commands.id(), 0, sizeof commands, commands.data());
    FishDrawStats stats;
    for (std::size_t level = 0; level < commands.size(); ++level) {
        const std::uint64_t fish = level == kOneTriangleLevel
                                       ? commands[level].vertexCount / fishMeshCount_[level]
                                       : commands[level].instanceCount;
        stats.fishPerLevel[level] = fish;
        stats.triangles += fish * (fishMeshCount_[level] / 3);
    }
    drawStats_ = stats;
    for (std::size_t k = 0; k < done; ++k)
        freeStatsBuffers_.push_back(std::move(pendingStats_[k].commands));
    pendingStats_.erase(pendingStats_.begin(), pendingStats_.begin() + static_cast<long>(done));
    return drawStats_;
}

const std::optional<FishDrawStats>& SceneRenderer::waitForDrawStats() {
    if (!pendingStats_.empty()) pendingStats_.back().fence.wait();
    return drawStats();
}

}  // namespace fishschool::render
