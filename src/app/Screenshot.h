#pragma once

#include <filesystem>
#include <string>

#include "fishschool/Result.h"

namespace fishschool::app {

/// The current framebuffer (width x height) as a PNG file's bytes.
Result<std::string> encodeScreenshotPng(int width, int height);
/// Writes the current framebuffer (width x height) as a PNG, through a temporary file.
[[nodiscard]] Result<void> saveScreenshot(const std::filesystem::path& path, int width, int height);

}  // namespace fishschool::app
