// The renderer's fish levels of detail, sorted on the GPU (fish_cull.comp) on whatever GL the
// machine has (Mesa's llvmpipe in CI): what lies outside the view is not drawn, far fish take the
// cheap level, near ones the full mesh, and leaders are sized as they are drawn.

#include <gtest/gtest.h>

#include <glad/gl.h>

#include <glm/geometric.hpp>

#include "gpu/GlObjects.h"
#include "gpu/HeadlessGlContext.h"
#include "gpu/ShaderFiles.h"
#include "render/Mesh.h"
#include "render/SceneRenderer.h"

namespace fishschool::render {
namespace {

constexpr int kWidth = 640, kHeight = 360;

class FishLevels : public ::testing::Test {
  protected:
    void SetUp() override {
        auto made = gpu::HeadlessGlContext::create();
        ASSERT_TRUE(made) << made.error();
        context_ = std::move(*made);
        // A surfaceless context has no window to draw in: a framebuffer of our own.
        glCreateFramebuffers(1, &framebuffer_);
        glCreateRenderbuffers(2, renderbuffers_);
        glNamedRenderbufferStorage(renderbuffers_[0], GL_RGBA8, kWidth, kHeight);
        glNamedRenderbufferStorage(renderbuffers_[1], GL_DEPTH_COMPONENT24, kWidth, kHeight);
        glNamedFramebufferRenderbuffer(framebuffer_, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                                       renderbuffers_[0]);
        glNamedFramebufferRenderbuffer(framebuffer_, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER,
                                       renderbuffers_[1]);
        ASSERT_EQ(glCheckNamedFramebufferStatus(framebuffer_, GL_FRAMEBUFFER),
                  GLenum(GL_FRAMEBUFFER_COMPLETE));
        glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
        auto renderer = SceneRenderer::create();
        ASSERT_TRUE(renderer) << renderer.error();
        renderer_.emplace(std::move(*renderer));
        camera_.reset(params_.bounds);
    }
    void TearDown() override {
        renderer_.reset();
        if (framebuffer_ != 0) glDeleteFramebuffers(1, &framebuffer_);
        glDeleteRenderbuffers(2, renderbuffers_);
    }

    /// A fish `distance` m straight ahead of the camera, `sideways` m to its right.
    Fish ahead(float distance, float sideways = 0.0f) const {
        const glm::vec3 forward = camera_.forward();
        const glm::vec3 right = glm::normalize(glm::cross(forward, glm::vec3(0, 1, 0)));
        Fish f;
        f.position = camera_.eye() + distance * forward + sideways * right;
        f.velocity = {1.0f, 0.0f, 0.0f};
        return f;
    }
    /// The length on screen, in pixels, of a fish of drawn length `length` m at `distance`.
    float pixels(float length, float distance) const {
        return length * camera_.focalPixels(static_cast<float>(kHeight)) / distance;
    }
    /// The distance at which an ordinary fish is `pixelLength` pixels long.
    float distanceFor(float pixelLength) const {
        return params_.bodyLength * camera_.focalPixels(static_cast<float>(kHeight)) / pixelLength;
    }
    FishDrawStats draw(const School& school, FishColoring coloring = FishColoring::BySpeed) {
        const FishSource source = renderer_->uploadSchool(school);
        renderer_->draw(params_, camera_, kWidth, kHeight, source, 0.0f, coloring);
        const auto& stats = renderer_->waitForDrawStats();
        EXPECT_TRUE(stats);
        EXPECT_TRUE(gpu::takeGlErrors("FishLevels::draw"));
        return stats.value_or(FishDrawStats{});
    }
    /// Triangles of each level's mesh, as the assets hold them.
    static std::array<std::uint64_t, FishDrawStats::kLevels> meshTriangles() {
        std::array<std::uint64_t, FishDrawStats::kLevels> triangles{};
        const char* files[] = {"fish.obj", "fish_low.obj", "fish_tiny.obj"};
        for (std::size_t level = 0; level < triangles.size(); ++level) {
            auto mesh = loadObj(gpu::assetDirectory() / files[level]);
            EXPECT_TRUE(mesh) << mesh.error();
            triangles[level] = mesh ? mesh->size() / 3 : 0;
        }
        return triangles;
    }

    std::unique_ptr<gpu::HeadlessGlContext> context_;
    GLuint framebuffer_ = 0, renderbuffers_[2] = {};
    std::optional<SceneRenderer> renderer_;
    SimParams params_;
    OrbitCamera camera_;
};

TEST_F(FishLevels, FishOutOfViewAreNotDrawnAndFarOnesTakeTheCheapLevel) {
    const float full = renderer_->levelPixels[0], low = renderer_->levelPixels[1];
    const School school = {
        ahead(distanceFor(2.0f * full)),          // near: the full mesh
        ahead(distanceFor(0.5f * (full + low))),  // between: the low-poly one
        ahead(distanceFor(0.5f * low)),           // far: one triangle
        ahead(distanceFor(0.25f * low)),          // further still
        ahead(-10.0f),                            // behind the camera
        ahead(20.0f, 1000.0f),                    // far to the right
        ahead(20.0f, -1000.0f),                   // far to the left
    };
    ASSERT_GT(pixels(params_.bodyLength, distanceFor(2.0f * full)), full);
    const FishDrawStats stats = draw(school);
    EXPECT_EQ(stats.fishPerLevel[0], 1u);
    EXPECT_EQ(stats.fishPerLevel[1], 1u);
    EXPECT_EQ(stats.fishPerLevel[2], 2u);
    EXPECT_EQ(stats.fishDrawn(), 4u) << "the three fish out of view were drawn";
    const auto triangles = meshTriangles();
    EXPECT_EQ(stats.triangles, triangles[0] + triangles[1] + 2 * triangles[2]);
    EXPECT_LT(triangles[2], triangles[1]);
    EXPECT_LT(triangles[1], triangles[0]);
}

TEST_F(FishLevels, AFishHalfOutOfViewIsStillDrawn) {
    // Its centre a little past the left edge, its body still in view.
    const float distance = 20.0f;
    const float halfWidth =
        distance * static_cast<float>(kWidth) / (2.0f * camera_.focalPixels(float(kHeight)));
    const FishDrawStats stats = draw({ahead(distance, -(halfWidth + 0.3f))});
    EXPECT_EQ(stats.fishDrawn(), 1u);
}

TEST_F(FishLevels, LeadersArePlacedByTheLengthTheyAreDrawnAt) {
    // At a distance where an ordinary fish is one triangle, a leader (drawn 2.2 times as long)
    // is long enough for the low-poly mesh.
    params_.leaders = 1;
    const float distance = distanceFor(0.6f * renderer_->levelPixels[1]);
    const float leaderPixels = pixels(2.2f * params_.bodyLength, distance);
    ASSERT_GE(leaderPixels, renderer_->levelPixels[1]);
    ASSERT_LT(leaderPixels, renderer_->levelPixels[0]);
    const FishDrawStats stats = draw({ahead(distance), ahead(distance)});
    EXPECT_EQ(stats.fishPerLevel[2], 1u);
    EXPECT_EQ(stats.fishPerLevel[1], 1u);
}

TEST_F(FishLevels, ACountReadBackLateIsOfAFrameTheGpuFinished) {
    // Counts come back without waiting: after draws of 3 then 5 fish, whatever arrived is one of
    // them, and once waited for, the last.
    School three(3, ahead(distanceFor(0.5f * renderer_->levelPixels[1])));
    School five(5, three.front());
    renderer_->draw(params_, camera_, kWidth, kHeight, renderer_->uploadSchool(three), 0.0f,
                    FishColoring::BySpeed);
    renderer_->draw(params_, camera_, kWidth, kHeight, renderer_->uploadSchool(five), 0.0f,
                    FishColoring::BySpeed);
    if (const auto& early = renderer_->drawStats()) {
        EXPECT_TRUE(early->fishDrawn() == 3u || early->fishDrawn() == 5u);
    }
    const auto& last = renderer_->waitForDrawStats();
    ASSERT_TRUE(last);
    EXPECT_EQ(last->fishDrawn(), 5u);
}

// Each fish is drawn as long as its species' bodyLength, and the config's without species.
TEST_F(FishLevels, EachFishIsPlacedByItsSpeciesBodyLength) {
    // Where a fish of the config's length is one triangle, one three times as long gets the full
    // mesh.
    const float distance = distanceFor(0.6f * renderer_->levelPixels[1]);
    ASSERT_GE(pixels(3.0f * params_.bodyLength, distance), renderer_->levelPixels[0]);
    params_.fishCount = 2;
    params_.species = {{"small", 1, {0.2f, 0.4f, 1.0f}, {}},
                       {"big", 1, {1.0f, 0.5f, 0.1f}, {{"bodyLength", 3.0f * params_.bodyLength}}}};
    ASSERT_TRUE(validate(params_)) << validate(params_).error();
    Fish small = ahead(distance), big = ahead(distance);
    big.species = 1;
    FishDrawStats stats = draw({small, big});
    EXPECT_EQ(stats.fishPerLevel[0], 1u);
    EXPECT_EQ(stats.fishPerLevel[2], 1u);
    // Without species the config's bodyLength sizes every fish.
    params_.species.clear();
    params_.bodyLength *= 3.0f;
    stats = draw({ahead(distance), ahead(distance)});
    EXPECT_EQ(stats.fishPerLevel[0], 2u);
}

// Coloured by species, a fish takes its species' colour from the fish buffer.
TEST_F(FishLevels, BySpeciesAFishTakesItsSpeciesColour) {
    params_.fishCount = 2;
    params_.species = {{"red", 1, {1.0f, 0.0f, 0.0f}, {}}, {"green", 1, {0.0f, 1.0f, 0.0f}, {}}};
    ASSERT_TRUE(validate(params_)) << validate(params_).error();
    // One large fish across the middle of the picture, broadside on.
    Fish fish = ahead(3.0f);
    fish.velocity = glm::normalize(glm::cross(camera_.forward(), glm::vec3(0, 1, 0)));
    const auto centre = [&] {
        std::array<unsigned char, 4 * 9> rgba{};
        glReadPixels(kWidth / 2 - 1, kHeight / 2 - 1, 3, 3, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
        glm::vec3 sum(0.0f);
        for (std::size_t p = 0; p < 9; ++p)
            sum += glm::vec3(rgba[4 * p], rgba[4 * p + 1], rgba[4 * p + 2]);
        return sum / 9.0f;
    };
    for (const std::uint32_t species : {0u, 1u}) {
        fish.species = species;
        draw({fish}, FishColoring::BySpecies);
        const glm::vec3 colour = centre();
        if (species == 0)
            EXPECT_GT(colour.r, colour.g + 30.0f) << colour.r << " " << colour.g << " " << colour.b;
        else
            EXPECT_GT(colour.g, colour.r + 30.0f) << colour.r << " " << colour.g << " " << colour.b;
    }
}

}  // namespace
}  // namespace fishschool::render
