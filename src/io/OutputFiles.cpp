#include "OutputFiles.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/ioctl.h>
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
#include <vector>

#include "core/Messages.h"

namespace fishschool {
namespace {
/// A system call's failure as an error's kind: a place the user named that refuses (rights, a
/// read-only file system) is bad input; the machine failing (a full disk, an I/O error) is not.
ErrorKind kindOfSystemError(int error) {
    return error == EACCES || error == EPERM || error == EROFS || error == ENOENT ||
                   error == ENOTDIR || error == ENAMETOOLONG || error == EISDIR
               ? ErrorKind::BadInput
               : ErrorKind::System;
}
}  // namespace

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
        return fail(named(target) + ": cannot create a file beside it: " + std::strerror(errno),
                    kindOfSystemError(errno));
    return std::pair{fd, temp};
}

/// A file no name points to yet, in `target`'s folder (O_TMPFILE): however the process ends, the
/// kernel removes it. -1 where the file system has no such files (the caller names one instead).
int createUnnamedBeside(const fs::path& target) {
    // It is named at the end through /proc/self/fd: without /proc, a name from the start.
    static const bool procMounted = ::access("/proc/self/fd", X_OK) == 0;
    if (!procMounted) return -1;
    fs::path folder = target.parent_path();
    if (folder.empty()) folder = ".";
    return ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
}

/// Gives an unnamed file (createUnnamedBeside) a temporary name beside `target`, so that it can
/// be renamed into place.
Result<fs::path> nameUnnamed(int fd, const fs::path& target) {
    static std::atomic<unsigned> counter{0};
    const std::string prefix = temporaryPrefix(target.filename().string());
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    for (int attempt = 0; attempt < 100; ++attempt) {
        const fs::path temp = target.parent_path() / (prefix + std::to_string(::getpid()) + "-u" +
                                                      std::to_string(counter.fetch_add(1)));
        if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, temp.c_str(), AT_SYMLINK_FOLLOW) == 0)
            return temp;
        if (errno != EEXIST) break;
    }
    return fail(named(target) + ": cannot write the file beside it: " + std::strerror(errno),
                ErrorKind::System);
}

Result<void> writeAll(int fd, std::string_view data, const fs::path& target) {
    while (!data.empty()) {
        const ssize_t written = ::write(fd, data.data(), data.size());
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0)
            return fail(
                named(target) + ": writing failed: " + std::strerror(written < 0 ? errno : EIO),
                ErrorKind::System);
        data.remove_prefix(static_cast<std::size_t>(written));
    }
    return {};
}

/// Every signal whose default action ends the process, held back while a set of outputs is put
/// into place: none can stop the set half replaced (SIGKILL and SIGSTOP cannot be held).
class SignalsHeld {
  public:
    SignalsHeld() {
        sigset_t all;
        sigfillset(&all);
        ::pthread_sigmask(SIG_BLOCK, &all, &before_);
    }
    ~SignalsHeld() { ::pthread_sigmask(SIG_SETMASK, &before_, nullptr); }
    SignalsHeld(const SignalsHeld&) = delete;
    SignalsHeld& operator=(const SignalsHeld&) = delete;

  private:
    sigset_t before_{};
};

/// Where a path leads, for telling two outputs apart however they are spelt.
fs::path identity(const fs::path& path) {
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(fs::absolute(outputTarget(path), ec), ec);
    return ec ? path.lexically_normal() : resolved;
}

constexpr std::size_t kWriteBufferBytes = 1 << 16;

// The temporary files in flight, so that a run stopped by a signal (Ctrl+C, kill, a closed pipe,
// a file size limit) leaves none behind: the handler may only call async-signal-safe functions,
// so the paths are kept as C strings in fixed slots.
constexpr std::size_t kTrackedSlots = 32;
std::atomic<char*> trackedTemporaries[kTrackedSlots];

/// Every signal whose default action ends the process (signal(7)), but SIGKILL and SIGSTOP.
std::vector<int> endingSignals() {
    std::vector<int> numbers = {SIGHUP,  SIGINT,  SIGQUIT,   SIGILL,  SIGTRAP, SIGABRT,
                                SIGBUS,  SIGFPE,  SIGUSR1,   SIGSEGV, SIGUSR2, SIGPIPE,
                                SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM,
                                SIGPROF, SIGIO,   SIGPWR,    SIGSYS};
    for (int number = SIGRTMIN; number <= SIGRTMAX; ++number) numbers.push_back(number);
    return numbers;
}

extern "C" void removeTemporariesAndStop(int number) {
    for (auto& slot : trackedTemporaries)
        if (char* path = slot.load()) ::unlink(path);
    std::signal(number, SIG_DFL);
    std::raise(number);
}

/// The signal that asked the run to stop (stopOnInterrupt), 0 while none has.
std::atomic<int> stopSignal{0};
static_assert(std::atomic<int>::is_always_lock_free, "read and written by a signal handler");

extern "C" void requestStop(int number) {
    int none = 0;
    // The first asks; a second (an impatient Ctrl+C) ends the process as before.
    if (!stopSignal.compare_exchange_strong(none, number)) removeTemporariesAndStop(number);
}

void track(const fs::path& temp) {
    // Only where the program left a signal to its default (the app's SDL, a sanitizer, have
    // their own): every signal whose default action ends the process, those that dump core too.
    static const bool installed = [] {
        for (const int number : endingSignals()) {
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

/// Why a rename over the existing file `target` would fail, found before the run: an immutable
/// or append-only file (chattr +i, +a), or another user's file in a folder with the sticky bit
/// (as /tmp) that this user does not own either. Empty when it can be replaced (or is new).
std::string whyNotReplaceable(const fs::path& target) {
    struct stat info {};
    if (::lstat(target.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return {};
    const int fd = ::open(target.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        int flags = 0;
        const bool known = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
        ::close(fd);
        if (known && (flags & (FS_IMMUTABLE_FL | FS_APPEND_FL)))
            return "is immutable or append-only (chattr +i or +a), so no run can replace it";
    }
    fs::path folder = target.parent_path();
    if (folder.empty()) folder = ".";
    struct stat folderInfo {};
    const uid_t user = ::geteuid();
    // As the kernel's sticky check: root (CAP_FOWNER) may, as may the file's or folder's owner.
    if (::stat(folder.c_str(), &folderInfo) == 0 && (folderInfo.st_mode & S_ISVTX) && user != 0 &&
        info.st_uid != user && folderInfo.st_uid != user)
        return "belongs to another user in a folder with the sticky bit (as /tmp), so this user "
               "cannot replace it";
    return {};
}

/// How one output was put into place, so that a set that fails midway can be put back.
enum class Placed { Not, New, Exchanged, BackedUp, Replaced };

/// Puts `temp` over `target`: a new file by a rename that replaces nothing; an existing one by
/// an exchange (the old file then under `temp`), else by a hard link to `backup` and a rename.
Result<Placed> place(const fs::path& temp, const fs::path& target, const fs::path& backup) {
    struct stat info {};
    const bool exists = ::lstat(target.c_str(), &info) == 0;
    // An exchange would move a folder, a device or a link aside: only a file is replaced.
    if (exists && !S_ISREG(info.st_mode))
        return fail(
            std::string(S_ISDIR(info.st_mode) ? "it is a folder" : "it is not a regular file"));
    if (!exists) {
        if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0)
            return Placed::New;
        if (errno != EINVAL && errno != ENOSYS) return fail(std::strerror(errno));
        if (::rename(temp.c_str(), target.c_str()) == 0) return Placed::New;
        return fail(std::strerror(errno));
    }
    if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0)
        return Placed::Exchanged;
    if (errno != EINVAL && errno != ENOSYS) return fail(std::strerror(errno));
    // A file system without exchanges: keep the old file under a second name first.
    const bool backedUp = ::link(target.c_str(), backup.c_str()) == 0;
    if (::rename(temp.c_str(), target.c_str()) != 0) {
        const int error = errno;
        if (backedUp) ::unlink(backup.c_str());
        return fail(std::strerror(error));
    }
    return backedUp ? Placed::BackedUp : Placed::Replaced;
}

/// Undoes place(): the old file back, or the new one gone.
void putBack(Placed placed, const fs::path& temp, const fs::path& target, const fs::path& backup) {
    switch (placed) {
        case Placed::New:
            ::unlink(target.c_str());
            break;
        case Placed::Exchanged:
            ::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE);
            ::unlink(temp.c_str());
            break;
        case Placed::BackedUp:
            ::rename(backup.c_str(), target.c_str());
            break;
        case Placed::Not:
        case Placed::Replaced:
            break;  // nothing kept to put back
    }
}

/// What is left once the whole set is in place: the old files kept for putting back.
void forget(Placed placed, const fs::path& temp, const fs::path& backup) {
    if (placed == Placed::Exchanged) ::unlink(temp.c_str());
    if (placed == Placed::BackedUp) ::unlink(backup.c_str());
}

/// Files written, synced and closed, put over their targets as one set: all or none. Signals
/// are held meanwhile. On a failure the targets already replaced get their old files back, the
/// new ones go, and the error names the file that failed.
struct Commit {
    fs::path temp;  ///< named, complete, closed
    fs::path target;
    fs::path backup;
    Placed placed = Placed::Not;
};

Result<void> commitSet(std::vector<Commit>& set) {
    const SignalsHeld held;
    for (std::size_t k = 0; k < set.size(); ++k) {
        Commit& c = set[k];
        c.backup = c.temp;
        c.backup += "-old";
        auto placed = place(c.temp, c.target, c.backup);
        if (!placed) {
            for (std::size_t back = k; back-- > 0;)
                putBack(set[back].placed, set[back].temp, set[back].target, set[back].backup);
            for (std::size_t rest = k; rest < set.size(); ++rest) ::unlink(set[rest].temp.c_str());
            return fail(named(c.target) + ": cannot replace the file: " + placed.error() +
                            (k > 0 ? "; the outputs already replaced were put back as they were"
                                   : "; no output was replaced"),
                        ErrorKind::System);
        }
        c.placed = *placed;
    }
    for (const Commit& c : set) forget(c.placed, c.temp, c.backup);
    // The renames on disk too: each folder once.
    std::vector<fs::path> folders;
    for (const Commit& c : set) {
        fs::path folder = c.target.parent_path();
        if (folder.empty()) folder = ".";
        if (std::find(folders.begin(), folders.end(), folder) != folders.end()) continue;
        folders.push_back(folder);
        if (const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
            ::fsync(dir);
            ::close(dir);
        }
    }
    return {};
}

/// Syncs and closes `out`'s file and gives it a name beside its target (an unnamed file is
/// linked in): ready for commitSet. On a failure the file is gone.
Result<void> finishFile(int fd, fs::path& temp, const fs::path& target) {
    // On disk before the rename, so that a crash leaves the old file or the new one, whole.
    if (::fsync(fd) != 0) {
        const int error = errno;
        ::close(fd);
        if (!temp.empty()) ::unlink(temp.c_str());
        return fail(named(target) + ": writing failed: " + std::strerror(error), ErrorKind::System);
    }
    if (temp.empty()) {
        auto name = nameUnnamed(fd, target);
        ::close(fd);
        if (!name) return fail(name.error());
        temp = *name;
        return {};
    }
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(temp.c_str());
        return fail(named(target) + ": writing failed: " + std::strerror(error), ErrorKind::System);
    }
    return {};
}

/// A new file to write `target` into: unnamed where the file system allows (no ending of the
/// process can leave it), else a hidden temporary name, removed on every signal that ends the
/// process. `temp` is empty for an unnamed file.
Result<int> createFor(const fs::path& target, fs::path& temp) {
    const int unnamed = createUnnamedBeside(target);
    if (unnamed >= 0) {
        temp.clear();
        return unnamed;
    }
    auto made = createTemporaryBeside(target);
    if (!made) return fail(made.error());
    temp = made->second;
    track(temp);
    return made->first;
}

}  // namespace

OutputFiles::~OutputFiles() {
    discard();
}

Result<void> OutputFiles::check(std::string_view flag, const std::string& path,
                                std::span<const NamedInput> inputs) {
    if (auto ok = checkOutputPath(flag, path); !ok) return ok;
    if (auto ok = checkNotAnInput(flag, path, inputs); !ok) return ok;
    const fs::path target = outputTarget(path);
    // A link's target is where the file goes: its folder must be there, and so on.
    if (target != fs::path(path))
        if (auto ok = checkOutputPath(flag, target.string()); !ok) return ok;
    if (const std::string why = whyNotReplaceable(target); !why.empty())
        return fail(std::string(flag) + ": " + quote(path, 200) + " " + why +
                    "; give another file");
    for (const Output& other : outputs_) {
        std::error_code ec;
        if (identity(other.target) == identity(target) || fs::equivalent(other.target, target, ec))
            return fail(std::string(flag) + ": " + quote(path, 200) + " is also the file of " +
                        other.flag + "; give each output its own file");
    }
    outputs_.push_back({std::string(flag), target, {}, -1, {}, false});
    return {};
}

Result<void> OutputFiles::add(std::string_view flag, const std::string& path,
                              std::span<const NamedInput> inputs) {
    if (auto ok = check(flag, path, inputs); !ok) return ok;
    Output& out = outputs_.back();
    auto fd = createFor(out.target, out.temp);
    if (!fd) {
        outputs_.pop_back();
        return fail(std::string(flag) + ": " + fd.error());
    }
    out.fd = *fd;
    return {};
}

Result<fs::path> OutputFiles::addExternal(std::string_view flag, const std::string& path,
                                          std::span<const NamedInput> inputs) {
    if (auto ok = add(flag, path, inputs); !ok) return fail(ok.error());
    Output& out = outputs_.back();
    out.external = true;
    if (!out.temp.empty()) return out.temp;
    return fs::path("/proc/self/fd/" + std::to_string(out.fd));
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
    if (!out || out->fd < 0 || out->external)
        return fail(std::string(flag) + ": no output file to write to");
    out->buffer.append(text);
    if (out->buffer.size() < kWriteBufferBytes) return {};
    return flush(*out);
}

Result<void> OutputFiles::commit() {
    std::erase_if(outputs_, [](const Output& out) { return out.fd < 0; });  // checked only
    // Every file complete, on disk and named before the first replaces its target.
    for (Output& out : outputs_)
        if (auto ok = flush(out); !ok) {
            discard();
            return ok;
        }
    std::vector<Commit> set;
    Result<void> finished;
    for (Output& out : outputs_) {
        const bool wasNamed = !out.temp.empty();
        if (finished) finished = finishFile(std::exchange(out.fd, -1), out.temp, out.target);
        if (wasNamed) untrack(out.temp);
        if (finished) set.push_back({out.temp, out.target, {}, Placed::Not});
    }
    if (!finished) {
        for (const Commit& c : set) ::unlink(c.temp.c_str());
        discard();
        return finished;
    }
    outputs_.clear();
    return commitSet(set);
}

void OutputFiles::discard() {
    for (Output& out : outputs_) {
        if (out.fd >= 0) ::close(std::exchange(out.fd, -1));
        if (out.temp.empty()) continue;  // unnamed: gone with its descriptor
        std::error_code ignored;
        fs::remove(out.temp, ignored);
        untrack(out.temp);
    }
    outputs_.clear();
}

fs::path outputTarget(const fs::path& path) {
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

void stopOnInterrupt() {
    for (const int number : {SIGINT, SIGTERM}) {
        struct sigaction current {};
        if (::sigaction(number, nullptr, &current) != 0) continue;
        // Left at its default, or given the temporaries' handler by track(): not one ignored.
        if (current.sa_handler != SIG_DFL && current.sa_handler != removeTemporariesAndStop)
            continue;
        struct sigaction stop {};
        stop.sa_handler = requestStop;
        sigemptyset(&stop.sa_mask);
        stop.sa_flags = SA_RESTART;  // a write in progress goes on
        ::sigaction(number, &stop, nullptr);
    }
}

int stopRequested() {
    return stopSignal.load();
}

bool isTemporaryOf(std::string_view name, std::string_view target) {
    return name.starts_with(temporaryPrefix(target));
}

Result<void> writeFileAtomically(const fs::path& named, std::string_view content) {
    const fs::path path = outputTarget(named);
    fs::path temp;
    auto fd = createFor(path, temp);
    if (!fd) return fail(fd.error());
    const bool wasNamed = !temp.empty();
    const auto untrackNamed = [&] {
        if (wasNamed) untrack(temp);
    };
    if (auto ok = writeAll(*fd, content, path); !ok) {
        ::close(*fd);
        if (wasNamed) ::unlink(temp.c_str());
        untrackNamed();
        return ok;
    }
    auto finished = finishFile(*fd, temp, path);
    untrackNamed();
    if (!finished) return finished;
    std::vector<Commit> set{{temp, path, {}, Placed::Not}};
    return commitSet(set);
}

Result<void> flushStandardOutput() {
    std::cout.flush();
    errno = 0;
    // The error flag stays set from any earlier write that failed, whose text is lost.
    if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout)
        return fail(std::string("stdout: writing failed") +
                        (errno != 0 ? std::string(": ") + std::strerror(errno) : std::string()),
                    ErrorKind::System);
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
                             std::span<const NamedInput> inputs) {
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
