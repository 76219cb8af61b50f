#pragma once

#include <filesystem>
#include <string>

#include "core/Result.h"

namespace fishschool::gpu {

/// The folder of the running executable (from /proc/self/exe).
std::filesystem::path executableDirectory();
/// <executable folder>/shaders, or $FISHSCHOOL_SHADER_DIR when set.
std::filesystem::path shaderDirectory();
/// <executable folder>/assets.
std::filesystem::path assetDirectory();

/// A shader's GLSL text from the shader folder, with each `#include "file.glsl"` line replaced
/// by that file, and `defines` inserted after the #version line. Errors name the path.
[[nodiscard]] Result<std::string> loadShaderFile(const std::string& name,
                                                 const std::string& defines = "");

}  // namespace fishschool::gpu
