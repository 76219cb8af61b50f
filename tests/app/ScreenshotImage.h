#pragma once

#include <stb_image.h>

#include <cstddef>
#include <string>
#include <vector>

namespace fishschool::app_tests {

/// A screenshot the app wrote, as RGB pixels, row by row from the top; empty when the file
/// cannot be read.
struct Image {
    int width = 0, height = 0;
    std::vector<unsigned char> rgb;
    const unsigned char* at(int x, int y) const {
        return &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
    }
};

inline Image loadImage(const std::string& file) {
    Image image;
    int channels = 0;
    unsigned char* data = stbi_load(file.c_str(), &image.width, &image.height, &channels, 3);
    if (data) {
        image.rgb.assign(data, data + static_cast<std::size_t>(image.width) * image.height * 3);
        stbi_image_free(data);
    }
    return image;
}

}  // namespace fishschool::app_tests
