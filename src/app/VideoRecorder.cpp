#include "VideoRecorder.h"

#include <fcntl.h>
#include <glad/gl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "app_model/AppOptions.h"
#include "core/Messages.h"
#include "io/OutputFiles.h"

namespace fishschool::app {
namespace {

namespace fs = std::filesystem;

std::string reason(int error) {
    return std::strerror(error);
}

/// Where a shell would find `name` on PATH; empty when nowhere.
std::string findOnPath(const std::string& name) {
    const char* variable = std::getenv("PATH");
    std::string_view folders = variable && *variable ? variable : "/usr/local/bin:/usr/bin:/bin";
    for (;;) {
        const std::size_t colon = folders.find(':');
        std::string candidate(folders.substr(0, colon));
        candidate.append(candidate.empty() ? "" : "/").append(name);
        struct stat info {};
        if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
            ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        if (colon == std::string_view::npos) return {};
        folders.remove_prefix(colon + 1);
    }
}

/// Starts `argv` (argv[0] a path) with `input` as its stdin, /dev/null as its stdout, and of
/// the app's other files only `video`. Returns its process id.
Result<pid_t> spawn(const std::vector<std::string>& argv, int input, int video) {
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    const int devNull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devNull < 0) return fail("video: cannot open /dev/null: " + reason(errno));
    // The child runs no handler of the app's (OutputFiles' would remove its files) between fork
    // and exec: signals wait, blocked, until it has set them back to their defaults.
    sigset_t all, before;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &before);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
        // Only async-signal-safe calls from here to exec: the app has other threads.
        // ffmpeg dies with the app however the app ends, rather than go on writing for nobody.
        // (The signal follows the thread that forks: the app's main thread, which ends last.)
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);  // the app ended before prctl
        // Its own process group: Ctrl+C on the terminal stops the app, and the app ffmpeg.
        ::setpgid(0, 0);
        for (int number = 1; number < NSIG; ++number) {
            struct sigaction action {};
            if (::sigaction(number, nullptr, &action) == 0 && action.sa_handler != SIG_IGN &&
                action.sa_handler != SIG_DFL) {
                action.sa_handler = SIG_DFL;
                action.sa_flags = 0;
                ::sigaction(number, &action, nullptr);
            }
        }
        if (::dup2(input, STDIN_FILENO) < 0 || ::dup2(devNull, STDOUT_FILENO) < 0) ::_exit(127);
        // Nothing else of the app's (its display connection, other outputs) reaches ffmpeg.
        ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
        if (::fcntl(video, F_SETFD, 0) != 0) ::_exit(127);
        ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    const int forkError = errno;
    ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
    ::close(devNull);
    if (pid < 0) return fail("video: could not start ffmpeg: " + reason(forkError));
    return pid;
}

/// Waits for `pid` to end; true when it exited with status 0.
bool succeeded(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

Result<int> createAnonymousFile(const fs::path& folder, std::string_view name, bool allowTmpfile) {
    const fs::path where = folder.empty() ? fs::path(".") : folder;
    if (allowTmpfile) {
        const int fd = ::open(where.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0) return fd;
        // EOPNOTSUPP: a file system without unnamed files; EISDIR: a kernel without O_TMPFILE.
        if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
            return fail("video: cannot create a file in " + quote(where.string(), 200) + ": " +
                        reason(errno));
    }
    static std::atomic<unsigned> counter{0};
    std::string prefix(1, '.');
    prefix.append(name.substr(0, 64)).append(".tmp-").append(std::to_string(::getpid()));
    for (int attempt = 0; attempt < 100; ++attempt) {
        const fs::path temp = where / (prefix + "-v" + std::to_string(counter.fetch_add(1)));
        const int fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd < 0 && errno == EEXIST) continue;
        if (fd < 0) break;
        // ffmpeg reaches the file through the app's descriptor: it needs no name past this.
        ::unlink(temp.c_str());
        return fd;
    }
    return fail("video: cannot create a file in " + quote(where.string(), 200) + ": " +
                reason(errno));
}

VideoRecorder::~VideoRecorder() {
    abandon();
}

Result<void> VideoRecorder::start(const fs::path& path, std::string_view flag, int width,
                                  int height, int framesPerSecond) {
    if (recording()) return fail("video: already recording to " + quote(path_.string(), 200));
    // H.264 in 4:2:0 needs even sizes.
    width_ = width - width % 2;
    height_ = height - height % 2;
    if (width_ <= 0 || height_ <= 0) return fail("video: the window has no pixels");
    // The file has no name, so ffmpeg cannot pick the container from its extension.
    const auto muxer = videoMuxer(path.string());
    if (!muxer)
        return fail("video: " + quote(path.string(), 200) +
                    " is not allowed; the video is H.264 in a file ending .mp4, .m4v, .mov or "
                    ".mkv");
    const std::string ffmpeg = findOnPath("ffmpeg");
    if (ffmpeg.empty())
        return fail(
            "video: ffmpeg was not found on PATH; install it (the Debian package ffmpeg, which "
            "scripts/setup.sh installs)");
    auto video = createAnonymousFile(path.parent_path(), path.filename().string());
    if (!video) return fail(video.error());
    int sockets[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
        const int error = errno;
        ::close(*video);
        return fail("video: could not start ffmpeg: " + reason(error));
    }
    // A video player's rows run top to bottom, GL's bottom to top: ffmpeg flips them.
    // `file:` makes the output a path whatever it looks like (`pipe:`, `take:1`).
    const std::vector<std::string> argv = {ffmpeg,
                                           "-nostdin",
                                           "-hide_banner",
                                           "-loglevel",
                                           "error",
                                           "-y",
                                           "-f",
                                           "rawvideo",
                                           "-pix_fmt",
                                           "rgb24",
                                           "-s",
                                           std::to_string(width_) + "x" + std::to_string(height_),
                                           "-r",
                                           std::to_string(framesPerSecond),
                                           "-i",
                                           "pipe:0",
                                           "-vf",
                                           "vflip",
                                           "-c:v",
                                           "libx264",
                                           "-preset",
                                           "veryfast",
                                           "-crf",
                                           "20",
                                           "-pix_fmt",
                                           "yuv420p",
                                           "-f",
                                           std::string(*muxer),
                                           "file:/proc/self/fd/" + std::to_string(*video)};
    const auto pid = spawn(argv, sockets[1], *video);
    ::close(sockets[1]);
    if (!pid) {
        ::close(sockets[0]);
        ::close(*video);
        return fail(pid.error());
    }
    ffmpeg_ = *pid;
    input_ = sockets[0];
    video_ = *video;
    path_ = path;
    flag_ = flag;
    framesPerSecond_ = framesPerSecond;
    frames_ = 0;
    return {};
}

Result<void> VideoRecorder::addFrame(int width, int height) {
    if (!recording()) return {};
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
    for (std::size_t sent = 0; sent < frame_.size();) {
        const ssize_t n = ::send(input_, frame_.data() + sent, frame_.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            abandon();
            return fail("video: ffmpeg stopped taking frames; " + quote(path_.string(), 200) +
                        " was not written");
        }
        sent += static_cast<std::size_t>(n);
    }
    ++frames_;
    return {};
}

Result<long long> VideoRecorder::finish(OutputFiles& files) {
    if (!recording()) return frames_;
    ::close(std::exchange(input_, -1));  // the end of the frames: ffmpeg writes the file's end
    const bool encoded = succeeded(std::exchange(ffmpeg_, -1));
    const std::string named = quote(path_.string(), 200);
    Result<long long> result = frames_;
    if (!encoded || frames_ == 0) {
        result = fail("video: ffmpeg could not write " + named +
                      (frames_ == 0 ? " (no frame was drawn)" : ""));
    } else if (auto added = files.add(flag_, path_.string()); !added) {
        result = fail(added.error());
    } else {
        // Copied into the output's own temporary file: the video is then replaced together with
        // the run's other outputs, or not at all.
        std::vector<char> buffer(std::size_t{1} << 20);
        for (off_t offset = 0;;) {
            const ssize_t n = ::pread(video_, buffer.data(), buffer.size(), offset);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                result = fail("video: reading what ffmpeg wrote for " + named +
                              " failed: " + reason(errno));
                break;
            }
            if (n == 0) break;
            if (auto ok = files.write(flag_, {buffer.data(), static_cast<std::size_t>(n)}); !ok) {
                result = fail(ok.error());
                break;
            }
            offset += n;
        }
    }
    ::close(std::exchange(video_, -1));
    return result;
}

void VideoRecorder::abandon() {
    if (input_ >= 0) ::close(std::exchange(input_, -1));
    if (ffmpeg_ > 0) {
        ::kill(ffmpeg_, SIGKILL);
        (void)succeeded(std::exchange(ffmpeg_, -1));
    }
    if (video_ >= 0) ::close(std::exchange(video_, -1));
}

}  // namespace fishschool::app
