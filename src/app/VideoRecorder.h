#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "fishschool/Result.h"

namespace fishschool::app {

/// Writes the window as a video: each drawn frame, read back from GL, goes raw to an `ffmpeg`
/// process as one video frame at a fixed frame rate, so the video is exact whatever the
/// machine's speed. The file is written under a temporary name and renamed when it is complete.
class VideoRecorder {
  public:
    VideoRecorder() = default;
    VideoRecorder(const VideoRecorder&) = delete;
    VideoRecorder& operator=(const VideoRecorder&) = delete;
    ~VideoRecorder();

    /// Starts a video of `width` x `height` pixels (even sizes: odd ones lose a column or row).
    [[nodiscard]] Result<void> start(const std::filesystem::path& path, int width, int height,
                                     int framesPerSecond);
    /// Appends the current framebuffer (read with glReadPixels, cropped or padded to the video's
    /// size if the window was resized). An error stops the recording.
    [[nodiscard]] Result<void> addFrame(int width, int height);
    /// Closes the video and renames it into place; returns how many frames it holds.
    [[nodiscard]] Result<long long> finish();

    bool recording() const { return pipe_ != nullptr; }
    const std::filesystem::path& path() const { return path_; }
    long long frames() const { return frames_; }
    int framesPerSecond() const { return framesPerSecond_; }

  private:
    void abandon();

    std::FILE* pipe_ = nullptr;
    std::filesystem::path path_, partial_;
    int width_ = 0, height_ = 0, framesPerSecond_ = 60;
    long long frames_ = 0;
    std::vector<unsigned char> pixels_, frame_;
};

}  // namespace fishschool::app
