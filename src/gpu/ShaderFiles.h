#pragma once

#include <filesystem>
#include <string>

#include "fishschool/Result.h"

namespace fishschool::gpu {

/// The folder of the file that holds this code: the executable when the library is linked into
/// it, else the shared library or the Python module (never the working directory, nor the
/// interpreter that loaded a module).
std::filesystem::path codeDirectory();
/// The folder of runtime files named `name` ("shaders", "assets"): <code folder>/NAME as the
/// build lays them out, else PREFIX/share/fishschool/NAME as they are installed, PREFIX being
/// one to three folders above the code's (bin, lib, lib/python3/dist-packages).
std::filesystem::path runtimeDirectory(const std::string& name,
                                       const std::filesystem::path& code = codeDirectory());
/// runtimeDirectory("shaders"), or $FISHSCHOOL_SHADER_DIR when set.
std::filesystem::path shaderDirectory();
/// runtimeDirectory("assets").
std::filesystem::path assetDirectory();

/// A shader's GLSL text from the shader folder, with each `#include "file.glsl"` line replaced
/// by that file, and `defines` inserted after the #version line. Errors name the path.
[[nodiscard]] Result<std::string> loadShaderFile(const std::string& name,
                                                 const std::string& defines = "");

}  // namespace fishschool::gpu
