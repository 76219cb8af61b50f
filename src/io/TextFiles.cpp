#include "TextFiles.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/Messages.h"

namespace fishschool {

namespace {

/// "a config file", "an ensemble file"
std::string withArticle(std::string_view what) {
    const bool vowel =
        std::string_view("aeiou").find(what.empty() ? 'x' : what.front()) != std::string_view::npos;
    return (vowel ? "an " : "a ") + std::string(what);
}

}  // namespace

InputFile::~InputFile() {
    if (fd_ >= 0) ::close(fd_);
}

Result<InputFile> openInputFile(const std::filesystem::path& path, std::string_view what) {
    const std::string name = printable(path.string(), 200);
    const std::string aWhat = withArticle(what);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return fail(name + ": is a folder; give " + aWhat);
    // O_NONBLOCK: opening a FIFO (or a terminal, a device) for reading can wait for ever for a
    // writer; so opened, it returns at once and fstat refuses it below. A regular file ignores it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return fail(name + ": cannot open the " + std::string(what) + ": " + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        return fail(name + ": is not a regular file (a FIFO, a device or a socket); give " + aWhat);
    }
    return InputFile(fd, static_cast<std::uintmax_t>(info.st_size));
}

Result<std::string> readTextFile(const std::filesystem::path& path, std::uintmax_t maxBytes,
                                 std::string_view what) {
    const std::string name = printable(path.string(), 200);
    const std::string aWhat = withArticle(what);
    auto file = openInputFile(path, what);
    if (!file) return fail(file.error());
    const int fd = file->fd();
    auto size = file->size();
    // Refused before reading, so that a huge file costs nothing and the limit is named.
    if (size > maxBytes) {
        return fail(name + ": " + std::to_string(size) + " bytes is larger than " + aWhat +
                    " may be (at most " + std::to_string(maxBytes) + " bytes)");
    }
    // Filled straight from read(): zeroing hundreds of MB first would cost a fifth of the load.
    std::string text;
    int readError = 0;
    text.resize_and_overwrite(static_cast<std::size_t>(size), [&](char* data, std::size_t n) {
        std::size_t done = 0;
        while (done < n) {
            const ssize_t got = ::read(fd, data + done, n - done);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) readError = errno;
            if (got <= 0) break;  // an error, or a file that shrank while read
            done += static_cast<std::size_t>(got);
        }
        return done;
    });
    // Beyond its size, as far as the limit: a file that grew while read, or one whose size says
    // 0 although it has text (/proc, /sys).
    char more[4096];
    while (readError == 0 && text.size() == size) {
        const ssize_t got = ::read(fd, more, sizeof more);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) readError = errno;
        if (got <= 0) break;
        if (text.size() + static_cast<std::size_t>(got) > maxBytes) {
            return fail(name + ": larger than a " + std::string(what) + " may be (at most " +
                        std::to_string(maxBytes) + " bytes)");
        }
        text.append(more, static_cast<std::size_t>(got));
        size = text.size();
    }
    if (readError != 0)
        return fail(name + ": cannot read the " + std::string(what) + ": " +
                    std::strerror(readError));
    return text;
}

}  // namespace fishschool
