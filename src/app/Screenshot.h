#pragma once

#include <filesystem>

#include "core/Result.h"

namespace fishschool::app {

/// Writes the current framebuffer (width x height) as a PNG, through a temporary file.
[[nodiscard]] Result<void> saveScreenshot(const std::filesystem::path& path, int width, int height);

}  // namespace fishschool::app
