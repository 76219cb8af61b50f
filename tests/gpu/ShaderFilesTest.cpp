// Finding and loading shader files; needs no GL.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <unistd.h>

#include "gpu/GpuTimer.h"
#include "gpu/ShaderFiles.h"

namespace fishschool {
namespace {

namespace fs = std::filesystem;

/// A folder of shader files that FISHSCHOOL_SHADER_DIR points at for the length of a test.
class ShaderFiles : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        folder_ = fs::temp_directory_path() / (std::string("fishschool_shaders_") + info->name() +
                                               "_" + std::to_string(::getpid()));
        fs::create_directories(folder_);
        if (const char* old = std::getenv("FISHSCHOOL_SHADER_DIR")) previous_ = old;
        ::setenv("FISHSCHOOL_SHADER_DIR", folder_.c_str(), 1);
    }
    void TearDown() override {
        if (previous_)
            ::setenv("FISHSCHOOL_SHADER_DIR", previous_->c_str(), 1);
        else
            ::unsetenv("FISHSCHOOL_SHADER_DIR");
        fs::remove_all(folder_);
    }
    void write(const std::string& name, const std::string& text) {
        std::ofstream(folder_ / name) << text;
    }

    fs::path folder_;
    std::optional<std::string> previous_;
};

TEST_F(ShaderFiles, TheEnvironmentChoosesTheFolder) {
    EXPECT_EQ(gpu::shaderDirectory(), folder_);
}

TEST_F(ShaderFiles, IncludesAreExpandedInPlaceAndDefinesFollowTheVersion) {
    write("main.comp", "#version 430\n#include \"outer.glsl\"\nvoid main() {}\n");
    write("outer.glsl", "#include \"inner.glsl\"\nint outer;\n");
    write("inner.glsl", "int inner;\n");
    auto text = gpu::loadShaderFile("main.comp", "#define SIZE 64u\n");
    ASSERT_TRUE(text) << text.error();
    EXPECT_EQ(*text, "#version 430\n#define SIZE 64u\nint inner;\nint outer;\nvoid main() {}\n");
}

TEST_F(ShaderFiles, AMissingFileIsAnErrorNamingItsPath) {
    auto text = gpu::loadShaderFile("absent.comp");
    ASSERT_FALSE(text);
    EXPECT_THAT(text.error(), ::testing::HasSubstr((folder_ / "absent.comp").string()));
}

TEST_F(ShaderFiles, AMissingIncludeIsAnErrorNamingItsPath) {
    write("main.comp", "#version 430\n#include \"gone.glsl\"\n");
    auto text = gpu::loadShaderFile("main.comp");
    ASSERT_FALSE(text);
    EXPECT_THAT(text.error(), ::testing::HasSubstr((folder_ / "gone.glsl").string()));
}

TEST_F(ShaderFiles, AnIncludeCycleIsAnErrorNotAHang) {
    write("loop.glsl", "#include \"loop.glsl\"\n");
    auto text = gpu::loadShaderFile("loop.glsl");
    ASSERT_FALSE(text);
    EXPECT_THAT(text.error(), ::testing::HasSubstr("nested too deeply"));
}

TEST_F(ShaderFiles, DefinesNeedAVersionLineFirst) {
    write("bare.comp", "void main() {}\n");
    auto text = gpu::loadShaderFile("bare.comp", "#define SIZE 64u\n");
    ASSERT_FALSE(text);
    EXPECT_THAT(text.error(), ::testing::HasSubstr("#version"));
}

/// Without the override the shaders come from next to the executable, where the build copies them.
TEST(ShaderFolder, TheProjectShadersAreNextToTheExecutable) {
    if (std::getenv("FISHSCHOOL_SHADER_DIR") != nullptr)
        GTEST_SKIP() << "FISHSCHOOL_SHADER_DIR is set";
    // Linked into this test's executable, the library's code lies in the executable's folder.
    std::error_code ec;
    const auto exe = std::filesystem::canonical("/proc/self/exe", ec);
    ASSERT_FALSE(ec);
    EXPECT_EQ(gpu::codeDirectory(), exe.parent_path());
    EXPECT_EQ(gpu::shaderDirectory(), exe.parent_path() / "shaders");
    EXPECT_EQ(gpu::assetDirectory(), exe.parent_path() / "assets");
    auto text = gpu::loadShaderFile("step_all_pairs.comp");
    ASSERT_TRUE(text) << text.error();
    EXPECT_THAT(*text, ::testing::HasSubstr("struct Fish"));  // from fish_layout.glsl
    EXPECT_THAT(*text, ::testing::Not(::testing::HasSubstr("#include")));
}

/// An installed library (PREFIX/lib) finds PREFIX/share/fishschool/shaders; a folder beside the
/// code, as the build lays it out, comes first.
TEST(ShaderFolder, AnInstalledLibraryFindsItsSharedData) {
    const auto prefix = std::filesystem::temp_directory_path() /
                        ("fishschool-prefix-" + std::to_string(::getpid()));
    std::filesystem::create_directories(prefix / "lib");
    std::filesystem::create_directories(prefix / "share" / "fishschool" / "shaders");
    EXPECT_EQ(gpu::runtimeDirectory("shaders", prefix / "lib"),
              prefix / "share" / "fishschool" / "shaders");
    const auto python = prefix / "lib" / "python3" / "dist-packages";
    std::filesystem::create_directories(python);
    EXPECT_EQ(gpu::runtimeDirectory("shaders", python),
              prefix / "share" / "fishschool" / "shaders");
    std::filesystem::create_directories(prefix / "lib" / "shaders");
    EXPECT_EQ(gpu::runtimeDirectory("shaders", prefix / "lib"), prefix / "lib" / "shaders");
    std::filesystem::remove_all(prefix);
}

}  // namespace
}  // namespace fishschool

// The overlay read "render 2311312.40 ms (GPU)" for a 166 s run on a software GL. A
// span the GPU timed beyond the wall time since it began is not shown.
TEST(GpuTimerSpans, AGpuTimeLongerThanTheWallTimeIsNotReal) {
    EXPECT_TRUE(fishschool::gpu::GpuTimer::plausible(3.2, 16.0));
    EXPECT_TRUE(fishschool::gpu::GpuTimer::plausible(16.0, 16.0));
    EXPECT_FALSE(fishschool::gpu::GpuTimer::plausible(2'311'312.4, 166'000.0));
    EXPECT_FALSE(fishschool::gpu::GpuTimer::plausible(-1.0, 16.0));
}
