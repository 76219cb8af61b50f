#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "fishschool/Result.h"

namespace fishschool {
class OutputFiles;
}

namespace fishschool::app {

/// Writes the window as a video: each drawn frame, read back from GL, goes raw to an `ffmpeg`
/// process as one video frame at a fixed frame rate, so the video is exact whatever the
/// machine's speed.
///
/// Nothing of a video is left behind when the app ends without finishing it, however it ends:
/// ffmpeg writes a file without a name (createAnonymousFile), which it reaches as
/// `file:/proc/self/fd/N`, a path it cannot read as a URL, and it dies with the app
/// (PR_SET_PDEATHSIG). finish() hands the video to the caller's OutputFiles, which writes it
/// into place with the run's other outputs at commit().
class VideoRecorder {
  public:
    VideoRecorder() = default;
    VideoRecorder(const VideoRecorder&) = delete;
    VideoRecorder& operator=(const VideoRecorder&) = delete;
    ~VideoRecorder();

    /// Starts a video of `width` x `height` pixels (even sizes: odd ones lose a column or row)
    /// for `path`, the output of `flag` ("--record", or "video" from the panel).
    [[nodiscard]] Result<void> start(const std::filesystem::path& path, std::string_view flag,
                                     int width, int height, int framesPerSecond);
    /// Appends the current framebuffer (read with glReadPixels, cropped or padded to the video's
    /// size if the window was resized). An error stops the recording.
    [[nodiscard]] Result<void> addFrame(int width, int height);
    /// Ends the video and adds it to `files` as the output of its flag; the caller's commit()
    /// puts it in place. Returns how many frames it holds.
    [[nodiscard]] Result<long long> finish(OutputFiles& files);

    bool recording() const { return ffmpeg_ > 0; }
    const std::filesystem::path& path() const { return path_; }
    long long frames() const { return frames_; }
    int framesPerSecond() const { return framesPerSecond_; }

  private:
    void abandon();

    pid_t ffmpeg_ = -1;
    int input_ = -1;  ///< ffmpeg's stdin: a socket, so a dead ffmpeg is EPIPE, not SIGPIPE
    int video_ = -1;  ///< the file ffmpeg writes, with no name
    std::filesystem::path path_;
    std::string flag_;
    int width_ = 0, height_ = 0, framesPerSecond_ = 60;
    long long frames_ = 0;
    std::vector<unsigned char> pixels_, frame_;
};

/// A new, empty file in `folder` (read and write, closed on exec) that has no name, so that no
/// ending of the process can leave it behind: made with O_TMPFILE, or, where the file system
/// refuses that (NFS, FAT) or `allowTmpfile` is false, made under a unique name
/// (`.NAME.tmp-PID-vN`, NAME cut to 64 bytes) and unlinked at once. The error names the folder.
Result<int> createAnonymousFile(const std::filesystem::path& folder, std::string_view name,
                                bool allowTmpfile = true);

}  // namespace fishschool::app
