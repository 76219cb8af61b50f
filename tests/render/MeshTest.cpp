// The fish mesh loader: the shipped mesh loads, bad files are refused with file and line.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include "render/Mesh.h"

namespace fishschool::render {
namespace {

namespace fs = std::filesystem;

class Obj : public ::testing::Test {
  protected:
    fs::path write(const std::string& text) {
        // A name of its own: ctest runs the tests of this fixture at once, in processes apart.
        const fs::path file = fs::temp_directory_path() /
                              ("fishschool_mesh_test_" + std::to_string(::getpid()) + "_" +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                               "_" + std::to_string(files_.size()) + ".obj");
        std::ofstream(file) << text;
        files_.push_back(file);
        return file;
    }
    void TearDown() override {
        for (const fs::path& f : files_) fs::remove(f);
    }
    std::vector<fs::path> files_;
};

TEST_F(Obj, TheShippedFishIsALowPolyMeshAlongZ) {
    auto mesh = loadObj(FISHSCHOOL_SOURCE_DIR "/assets/fish.obj");
    ASSERT_TRUE(mesh) << mesh.error();
    ASSERT_EQ(mesh->size() % 3, 0u);
    EXPECT_GE(mesh->size() / 3, 20u);
    EXPECT_LE(mesh->size() / 3, 2000u);
    glm::vec3 low(1e9f), high(-1e9f);
    for (const MeshVertex& v : *mesh) {
        low = glm::min(low, v.position);
        high = glm::max(high, v.position);
        EXPECT_NEAR(glm::length(v.normal), 1.0f, 1e-4f);
    }
    // About 1 m long along z (the shader scales it), head at +z, narrower than long.
    EXPECT_NEAR(high.z - low.z, 1.0f, 0.1f);
    EXPECT_GT(high.z, 0.0f);
    EXPECT_LT(high.x - low.x, 0.5f * (high.z - low.z));
}

TEST_F(Obj, PolygonsBecomeTrianglesWithFaceNormals) {
    auto mesh =
        loadObj(write("# a unit square in the xy plane\nv 0 0 0\nv 1 0 0\nv 1 1 0\n"
                      "v 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 4//1\n"));
    ASSERT_TRUE(mesh) << mesh.error();
    ASSERT_EQ(mesh->size(), 6u);
    for (const MeshVertex& v : *mesh) EXPECT_EQ(v.normal, glm::vec3(0, 0, 1));
    auto negative = loadObj(write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n"));
    ASSERT_TRUE(negative) << negative.error();
    EXPECT_EQ(negative->size(), 3u);
}

TEST_F(Obj, ErrorsNameTheFileAndTheLine) {
    const auto expectError = [&](const std::string& text, const std::string& where,
                                 const std::string& what) {
        const fs::path file = write(text);
        auto mesh = loadObj(file);
        ASSERT_FALSE(mesh) << text;
        EXPECT_THAT(mesh.error(), ::testing::HasSubstr(file.string() + where)) << text;
        EXPECT_THAT(mesh.error(), ::testing::HasSubstr(what)) << text;
    };
    expectError("v 0 0 0\nv 1 0\n", ":2:", "three numbers");
    expectError("v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 9\n", ":5:", "refers to no vertex");
    expectError("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 x 3\n", ":4:", "bad face index");
    expectError("v 0 0 0\nv 1 0 0\nf 1 2\n", ":3:", "at least three");
    expectError("v 0 0 0\n", "", "no faces");
    auto missing = loadObj("/nonexistent/fish.obj");
    ASSERT_FALSE(missing);
    EXPECT_THAT(missing.error(), ::testing::HasSubstr("/nonexistent/fish.obj"));
}

}  // namespace
}  // namespace fishschool::render
