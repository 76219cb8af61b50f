#include "Screenshot.h"

#include <glad/gl.h>
#include <stb_image_write.h>

#include <algorithm>
#include <string>
#include <vector>

#include "io/OutputFiles.h"

namespace fishschool::app {

Result<std::string> encodeScreenshotPng(int width, int height) {
    if (width <= 0 || height <= 0) return fail("screenshot: the window has no pixels");
    const auto rowBytes = static_cast<std::size_t>(width) * 3;
    std::vector<unsigned char> pixels(rowBytes * static_cast<std::size_t>(height));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
    // GL's first row is the bottom one; PNG's is the top.
    std::vector<unsigned char> flipped(pixels.size());
    for (int y = 0; y < height; ++y)
        std::copy_n(
            pixels.begin() +
                static_cast<std::ptrdiff_t>(rowBytes * static_cast<std::size_t>(height - 1 - y)),
            rowBytes,
            flipped.begin() + static_cast<std::ptrdiff_t>(rowBytes * static_cast<std::size_t>(y)));
    std::string png;
    const int ok = stbi_write_png_to_func(
        [](void* context, void* data, int size) {
            static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                                       static_cast<std::size_t>(size));
        },
        &png, width, height, 3, flipped.data(), static_cast<int>(rowBytes));
    if (!ok) return fail("screenshot: could not encode the PNG");
    return png;
}

Result<void> saveScreenshot(const std::filesystem::path& path, int width, int height) {
    auto png = encodeScreenshotPng(width, height);
    if (!png) return fail(png.error());
    return writeFileAtomically(path, *png);
}

}  // namespace fishschool::app
