#include "SceneRenderer.h"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "Mesh.h"
#include "gpu/ShaderFiles.h"

namespace fishschool::render {
namespace {

constexpr glm::vec3 kWaterColor{0.05f, 0.28f, 0.38f};

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

}  // namespace

Result<SceneRenderer> SceneRenderer::create() {
    SceneRenderer r;
    auto fishProgram = gpu::GlProgram::fromFiles(
        {{GL_VERTEX_SHADER, "fish.vert"}, {GL_FRAGMENT_SHADER, "fish.frag"}});
    if (!fishProgram) return fail(fishProgram.error());
    auto sceneProgram = gpu::GlProgram::fromFiles(
        {{GL_VERTEX_SHADER, "scene.vert"}, {GL_FRAGMENT_SHADER, "scene.frag"}});
    if (!sceneProgram) return fail(sceneProgram.error());
    auto fishMesh = loadObj(gpu::assetDirectory() / "fish.obj");
    if (!fishMesh) return fail(fishMesh.error());

    r.fishProgram_ = std::move(*fishProgram);
    r.sceneProgram_ = std::move(*sceneProgram);
    r.vertexArray_ = gpu::GlVertexArray::create();
    const GLuint vao = r.vertexArray_.id();
    glEnableVertexArrayAttrib(vao, 0);
    glEnableVertexArrayAttrib(vao, 1);
    glVertexArrayAttribFormat(vao, 0, 3, GL_FLOAT, GL_FALSE, offsetof(MeshVertex, position));
    glVertexArrayAttribFormat(vao, 1, 3, GL_FLOAT, GL_FALSE, offsetof(MeshVertex, normal));
    glVertexArrayAttribBinding(vao, 0, 0);
    glVertexArrayAttribBinding(vao, 1, 0);

    r.fishMesh_ = r.makeMesh(*fishMesh);
    r.sphereMesh_ = r.makeMesh(makeSphere(10, 14));
    r.floorMesh_ = r.makeMesh(unitQuadXZ());
    r.edgeMesh_ = r.makeMesh(unitCubeEdges());
    r.wallMesh_ = r.makeMesh(unitCubeFaces());
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
        staging_[i] = {f.position, static_cast<std::uint32_t>(i), f.velocity, 0.0f, f.acceleration,
                       0.0f};
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
                          2.0f * centerShiftPixels / static_cast<float>(std::max(width, 1))) *
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
    glm::mat4 floor = glm::translate(glm::mat4(1.0f), {0.0f, -b.y - 0.01f, 0.0f});
    floor = glm::scale(floor, {b.x * 1.6f, 1.0f, b.z * 1.6f});
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
    glUniformMatrix4fv(model, 1, GL_FALSE, glm::value_ptr(glm::scale(glm::mat4(1.0f), b)));
    glUniform3f(color, 0.55f, 0.85f, 0.95f);
    glUniform1i(unlit, 1);
    drawMesh(edgeMesh_, GL_LINES);

    // Fish, straight from the storage buffer.
    if (fish.count > 0 && fish.buffer != 0) {
        setCommon(fishProgram_);
        glUniform1ui(fishProgram_.uniformLocation("firstFish"),
                     static_cast<GLuint>(fish.firstFish));
        glUniform1f(fishProgram_.uniformLocation("time"), wallSeconds);
        glUniform1f(fishProgram_.uniformLocation("fishLength"), fishLength);
        glUniform1f(fishProgram_.uniformLocation("maxVelocity"), params.maxVelocity);
        // Leaders and predators, the first fish by upload index, are drawn apart.
        glUniform1ui(fishProgram_.uniformLocation("leaderCount"),
                     static_cast<GLuint>(params.leaders));
        glUniform1ui(fishProgram_.uniformLocation("specialCount"),
                     static_cast<GLuint>(params.leaders + params.predators));
        glUniform1i(fishProgram_.uniformLocation("colorMode"),
                    coloring == FishColoring::ByHeading ? 1 : 0);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, gpu::kFishBinding, fish.buffer);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        drawMesh(fishMesh_, GL_TRIANGLES, static_cast<GLsizei>(fish.count));
    }

    // Glass walls last, blended over everything, so the school shows through them.
    setCommon(sceneProgram_);
    glUniformMatrix4fv(model, 1, GL_FALSE, glm::value_ptr(glm::scale(glm::mat4(1.0f), b)));
    glUniform3f(color, 0.6f, 0.9f, 1.0f);
    glUniform1i(unlit, 0);
    glUniform1i(sand, 0);
    glUniform1f(opacity, 0.07f);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    drawMesh(wallMesh_, GL_TRIANGLES);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    glBindVertexArray(0);
    glUseProgram(0);
    (void)gpu::checkGlErrors("SceneRenderer::draw");  // on stderr, in runs with GL debugging
}

}  // namespace fishschool::render
