#include "VideoRecorder.h"

#include <glad/gl.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace fishschool::app {
namespace {

/// A path as one shell word.
std::string quoted(const std::string& text) {
    std::string out(1, '\'');
    for (char c : text) {
        if (c == '\'')
            out.append("'\\''");
        else
            out.push_back(c);
    }
    out.push_back('\'');
    return out;
}

}  // namespace

VideoRecorder::~VideoRecorder() {
    if (pipe_) abandon();
}

Result<void> VideoRecorder::start(const std::filesystem::path& path, int width, int height,
                                  int framesPerSecond) {
    if (pipe_) return fail("video: already recording to " + path_.string());
    // H.264 in 4:2:0 needs even sizes.
    width_ = width - width % 2;
    height_ = height - height % 2;
    if (width_ <= 0 || height_ <= 0) return fail("video: the window has no pixels");
    path_ = path;
    // ffmpeg picks the container from the extension, so the temporary name keeps it.
    // The stem cut short, so that any name the folder takes leaves room for the temporary one.
    std::string partialName(1, '.');
    partialName.append(path.stem().string().substr(0, 64))
        .append(".partial")
        .append(path.extension().string());
    partial_ = path.parent_path() / partialName;
    framesPerSecond_ = framesPerSecond;
    frames_ = 0;
    // A video player's rows run top to bottom, GL's bottom to top: ffmpeg flips them.
    std::string command =
        "ffmpeg -nostdin -hide_banner -loglevel error -y -f rawvideo -pix_fmt rgb24 -s ";
    command.append(std::to_string(width_)).append("x").append(std::to_string(height_));
    command.append(" -r ").append(std::to_string(framesPerSecond));
    command.append(" -i - -vf vflip -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p ");
    command.append(quoted(partial_.string()));
    std::signal(SIGPIPE, SIG_IGN);  // a dead ffmpeg is an error to report, not a crash
    pipe_ = ::popen(command.c_str(), "w");
    if (!pipe_) return fail("video: could not start ffmpeg: " + std::string(std::strerror(errno)));
    return {};
}

Result<void> VideoRecorder::addFrame(int width, int height) {
    if (!pipe_) return {};
    const auto rowBytes = static_cast<std::size_t>(width) * 3;
    pixels_.resize(rowBytes * static_cast<std::size_t>(std::max(height, 0)));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    if (width > 0 && height > 0)
        glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels_.data());
    // The video keeps its size: a resized window is cropped or padded with black, bottom-left
    // anchored as GL's rows are.
    const auto videoRow = static_cast<std::size_t>(width_) * 3;
    frame_.assign(videoRow * static_cast<std::size_t>(height_), 0);
    const std::size_t copyBytes = std::min(videoRow, rowBytes);
    for (int y = 0; y < std::min(height, height_); ++y)
        std::memcpy(frame_.data() + videoRow * static_cast<std::size_t>(y),
                    pixels_.data() + rowBytes * static_cast<std::size_t>(y), copyBytes);
    if (std::fwrite(frame_.data(), 1, frame_.size(), pipe_) != frame_.size()) {
        abandon();
        return fail("video: ffmpeg stopped taking frames; " + path_.string() + " was not written");
    }
    ++frames_;
    return {};
}

Result<long long> VideoRecorder::finish() {
    if (!pipe_) return frames_;
    const int status = ::pclose(pipe_);
    pipe_ = nullptr;
    std::error_code ec;
    if (status != 0 || frames_ == 0) {
        std::filesystem::remove(partial_, ec);
        return fail("video: ffmpeg could not write " + path_.string() +
                    (frames_ == 0 ? " (no frame was drawn)" : ""));
    }
    std::filesystem::rename(partial_, path_, ec);
    if (ec) {
        std::filesystem::remove(partial_, ec);
        return fail("video: " + path_.string() + ": " + ec.message());
    }
    return frames_;
}

void VideoRecorder::abandon() {
    if (pipe_) ::pclose(pipe_);
    pipe_ = nullptr;
    std::error_code ec;
    std::filesystem::remove(partial_, ec);
}

}  // namespace fishschool::app
