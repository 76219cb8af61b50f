#include "OutputFiles.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <utility>

#include "core/Messages.h"

namespace fishschool {
namespace {

namespace fs = std::filesystem;

/// A path as messages name it: escaped and cut short.
std::string named(const fs::path& path) {
    return printable(path.string(), 200);
}

/// `.NAME.tmp-`, NAME the target's name cut to 64 bytes: the start of its temporary files.
std::string temporaryPrefix(std::string_view target) {
    std::string prefix(1, '.');  // appended, not "." + ...: GCC 12 warns wrongly on that
    prefix.append(target.substr(0, 64)).append(".tmp-");
    return prefix;
}

/// A new, empty temporary file beside `target`, hidden and short-named (`.NAME.tmp-PID-N`, NAME
/// cut to 64 bytes) so that any name the folder takes leaves room for it. Unique among
/// processes (pid) and among the files of this one (counter); O_EXCL never opens another's file.

Result<std::pair<int, fs::path>> createTemporaryBeside(const fs::path& target) {
    static std::atomic<unsigned> counter{0};
    const std::string prefix = temporaryPrefix(target.filename().string());
    int fd = -1;
    fs::path temp;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        temp = target.parent_path() /
               (prefix + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)));
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0)
        return fail(named(target) + ": cannot create a file beside it: " + std::strerror(errno));
    return std::pair{fd, temp};
}

Result<void> writeAll(int fd, std::string_view data, const fs::path& target) {
    while (!data.empty()) {
        const ssize_t written = ::write(fd, data.data(), data.size());
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0)
            return fail(named(target) +
                        ": writing failed: " + std::strerror(written < 0 ? errno : EIO));
        data.remove_prefix(static_cast<std::size_t>(written));
    }
    return {};
}

/// Syncs and closes `fd`, then renames `temp` over `target`; on any failure removes `temp`.
Result<void> finishTemporary(int fd, const fs::path& temp, const fs::path& target) {
    // On disk before the rename, so that a crash leaves the old file or the new one, whole.
    const bool synced = ::fsync(fd) == 0;
    const int syncError = errno;
    const bool closed = ::close(fd) == 0;
    std::error_code ec;
    if (!synced || !closed) {
        const int error = !synced ? syncError : errno;
        fs::remove(temp, ec);
        return fail(named(target) + ": writing failed: " + std::strerror(error));
    }
    fs::rename(temp, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        return fail(named(target) + ": cannot replace the file: " + ec.message());
    }
    return {};
}

/// The file an output replaces: a symbolic link's target, so that the link stays a link (and a
/// link such as /dev/stdout to a regular file is never itself replaced by one).
fs::path throughLinks(const fs::path& path) {
    std::error_code ec;
    fs::path at = fs::absolute(path, ec);
    if (ec) return path;
    // By hand, link by link, so that a link to a file not made yet leads to that file too
    // (weakly_canonical stops at a link whose target does not exist).
    for (int hops = 0; fs::is_symlink(at, ec) && hops < 40; ++hops) {
        const fs::path target = fs::read_symlink(at, ec);
        if (ec) return path;
        at = target.is_absolute() ? target : at.parent_path() / target;
    }
    const fs::path resolved = fs::weakly_canonical(at, ec);
    return ec ? path : resolved;
}

/// Where a path leads, for telling two outputs apart however they are spelt.
fs::path identity(const fs::path& path) {
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(fs::absolute(throughLinks(path), ec), ec);
    return ec ? path.lexically_normal() : resolved;
}

constexpr std::size_t kWriteBufferBytes = 1 << 16;

// The temporary files in flight, so that a run stopped by a signal (Ctrl+C, kill, a closed pipe,
// a file size limit) leaves none behind: the handler may only call async-signal-safe functions,
// so the paths are kept as C strings in fixed slots.
constexpr std::size_t kTrackedSlots = 32;
std::atomic<char*> trackedTemporaries[kTrackedSlots];

extern "C" void removeTemporariesAndStop(int number) {
    for (auto& slot : trackedTemporaries)
        if (char* path = slot.load()) ::unlink(path);
    std::signal(number, SIG_DFL);
    std::raise(number);
}

void track(const fs::path& temp) {
    // Only where the program left these signals to their default (the app's SDL has its own).
    static const bool installed = [] {
        // SIGPIPE: a reader of stdout that went away; SIGXFSZ: a file size limit.
        // The others that end a process by default, as `kill -USR1` or an alarm would.
        for (int number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ, SIGUSR1, SIGUSR2,
                           SIGALRM, SIGVTALRM, SIGPROF}) {
            struct sigaction current {};
            if (::sigaction(number, nullptr, &current) == 0 && current.sa_handler == SIG_DFL)
                std::signal(number, removeTemporariesAndStop);
        }
        return true;
    }();
    (void)installed;
    for (auto& slot : trackedTemporaries) {
        char* expected = nullptr;
        char* copy = ::strdup(temp.c_str());
        if (slot.compare_exchange_strong(expected, copy)) return;
        std::free(copy);
    }
}

void untrack(const fs::path& temp) {
    for (auto& slot : trackedTemporaries) {
        char* path = slot.load();
        if (path && temp == path && slot.compare_exchange_strong(path, nullptr)) {
            std::free(path);
            return;
        }
    }
}

}  // namespace

OutputFiles::~OutputFiles() {
    discard();
}

Result<void> OutputFiles::check(std::string_view flag, const std::string& path,
                                std::initializer_list<NamedInput> inputs) {
    if (auto ok = checkOutputPath(flag, path); !ok) return ok;
    if (auto ok = checkNotAnInput(flag, path, inputs); !ok) return ok;
    const fs::path target = throughLinks(path);
    // A link's target is where the file goes: its folder must be there, and so on.
    if (target != fs::path(path))
        if (auto ok = checkOutputPath(flag, target.string()); !ok) return ok;
    for (const Output& other : outputs_) {
        std::error_code ec;
        if (identity(other.target) == identity(target) || fs::equivalent(other.target, target, ec))
            return fail(std::string(flag) + ": " + quote(path, 200) + " is also the file of " +
                        other.flag + "; give each output its own file");
    }
    outputs_.push_back({std::string(flag), target, {}, -1, {}});
    return {};
}

Result<void> OutputFiles::add(std::string_view flag, const std::string& path,
                              std::initializer_list<NamedInput> inputs) {
    if (auto ok = check(flag, path, inputs); !ok) return ok;
    auto temp = createTemporaryBeside(outputs_.back().target);
    if (!temp) {
        outputs_.pop_back();
        return fail(std::string(flag) + ": " + temp.error());
    }
    outputs_.back().fd = temp->first;
    outputs_.back().temp = temp->second;
    track(temp->second);
    return {};
}

bool OutputFiles::has(std::string_view flag) const {
    return std::any_of(outputs_.begin(), outputs_.end(),
                       [&](const Output& out) { return out.flag == flag; });
}

OutputFiles::Output* OutputFiles::find(std::string_view flag) {
    for (Output& out : outputs_)
        if (out.flag == flag) return &out;
    return nullptr;
}

Result<void> OutputFiles::flush(Output& out) {
    auto ok = writeAll(out.fd, out.buffer, out.target);
    out.buffer.clear();
    return ok;
}

Result<void> OutputFiles::write(std::string_view flag, std::string_view text) {
    Output* out = find(flag);
    if (!out || out->fd < 0) return fail(std::string(flag) + ": no output file to write to");
    out->buffer.append(text);
    if (out->buffer.size() < kWriteBufferBytes) return {};
    return flush(*out);
}

Result<void> OutputFiles::commit() {
    // Every file complete and on disk before the first replaces its target.
    std::erase_if(outputs_, [](const Output& out) { return out.fd < 0; });  // checked only
    for (Output& out : outputs_) {
        if (auto ok = flush(out); !ok) {
            discard();
            return ok;
        }
        if (::fsync(out.fd) != 0) {
            const std::string message =
                named(out.target) + ": writing failed: " + std::strerror(errno);
            discard();
            return fail(message);
        }
    }
    for (Output& out : outputs_) {
        const int fd = std::exchange(out.fd, -1);
        untrack(out.temp);
        if (auto ok = finishTemporary(fd, out.temp, out.target); !ok) {
            discard();
            return ok;
        }
    }
    outputs_.clear();
    return {};
}

void OutputFiles::discard() {
    for (Output& out : outputs_) {
        if (out.fd < 0) continue;
        ::close(out.fd);
        out.fd = -1;
        std::error_code ignored;
        fs::remove(out.temp, ignored);
        untrack(out.temp);
    }
    outputs_.clear();
}

bool isTemporaryOf(std::string_view name, std::string_view target) {
    return name.starts_with(temporaryPrefix(target));
}

Result<void> writeFileAtomically(const fs::path& named, std::string_view content) {
    const fs::path path = throughLinks(named);
    auto temp = createTemporaryBeside(path);
    if (!temp) return fail(temp.error());
    const auto [fd, tempPath] = *temp;
    if (auto ok = writeAll(fd, content, path); !ok) {
        ::close(fd);
        std::error_code ignored;
        fs::remove(tempPath, ignored);
        return ok;
    }
    return finishTemporary(fd, tempPath, path);
}

Result<void> flushStandardOutput() {
    std::cout.flush();
    errno = 0;
    // The error flag stays set from any earlier write that failed, whose text is lost.
    if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout)
        return fail(std::string("stdout: writing failed") +
                    (errno != 0 ? std::string(": ") + std::strerror(errno) : std::string()));
    return {};
}

void guardStandardStreams() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        // open() takes the lowest free number: this one.
        const int opened = ::open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
        if (opened >= 0 && opened != fd) ::close(opened);
    }
}

Result<void> checkOutputPath(std::string_view what, const std::string& path) {
    namespace fs = std::filesystem;
    const std::string where = std::string(what) + ": " + quote(path, 160) + ": ";
    if (path.empty()) return fail(std::string(what) + ": an empty file name is not allowed");
    std::error_code ec;
    if (fs::is_directory(path, ec)) return fail(where + "is a folder; give a file name");
    fs::path folder = fs::path(path).parent_path();
    if (folder.empty()) folder = ".";
    const std::string folderName = quote(folder.string(), 120);  // both fit a 400-character line
    if (!fs::is_directory(folder, ec))
        return fail(where + "the folder " + folderName + " does not exist");
    if (::access(folder.c_str(), W_OK) != 0)
        return fail(where + "the folder " + folderName + " is not writable");
    // A name the file system cannot hold is found now, not when the run's output is renamed.
    const long nameMax = ::pathconf(folder.c_str(), _PC_NAME_MAX);
    const std::size_t nameLength = fs::path(path).filename().string().size();
    struct stat info {};
    if ((nameMax > 0 && nameLength > static_cast<std::size_t>(nameMax)) ||
        (::stat(path.c_str(), &info) != 0 && errno == ENAMETOOLONG))
        return fail(where + "the name is too long for the file system (" +
                    std::to_string(nameLength) + " bytes; at most " + std::to_string(nameMax) +
                    " a name, " + std::to_string(PATH_MAX) + " a path)");
    // The file is replaced by a rename: a device, a FIFO or a socket in its place would be
    // replaced by a regular file (as root, /dev/null itself).
    if (::stat(path.c_str(), &info) != 0) return {};  // a new file
    if (!S_ISREG(info.st_mode))
        return fail(where +
                    "is not a regular file (a device, a FIFO or a socket); give a file's "
                    "path");
    // The file the shell sent this program's stdout or stderr to (as /dev/stdout, or by its
    // name): the rename would replace what the program and the shell wrote there.
    for (const int stream : {STDOUT_FILENO, STDERR_FILENO}) {
        struct stat streamInfo {};
        if (::fstat(stream, &streamInfo) == 0 && streamInfo.st_dev == info.st_dev &&
            streamInfo.st_ino == info.st_ino)
            return fail(where + "is where this program's standard " +
                        (stream == STDOUT_FILENO ? "output" : "error") +
                        " goes; give a file of its own");
    }
    return {};
}

Result<void> checkNotAnInput(std::string_view flag, const std::string& path,
                             std::initializer_list<NamedInput> inputs) {
    for (const NamedInput& input : inputs) {
        if (input.path.empty() || path.empty()) continue;
        std::error_code ec;
        // False, with an error, while the output does not exist yet: it cannot be the input.
        if (std::filesystem::equivalent(path, input.path, ec))
            return fail(std::string(flag) + ": " + quote(path, 200) + " is the same file as " +
                        std::string(input.flag) + "; give another path");
    }
    return {};
}

}  // namespace fishschool
