#include "EnsembleFolder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/Messages.h"
#include "io/TextFiles.h"
#include "runs/PhaseSweep.h"

namespace fishschool {

namespace fs = std::filesystem;

std::string manifestJson(const EnsembleManifest& m, const std::string& file) {
    nlohmann::ordered_json axes = nlohmann::ordered_json::array();
    for (const EnsembleAxis& axis : m.axes) axes.push_back(axis.key);
    const nlohmann::ordered_json root = {{"ensemble", m.hash},
                                         {"version", m.version},
                                         {"runs", m.runs},
                                         {"axes", axes},
                                         {"file", file}};
    return root.dump(2) + "\n";
}

Result<std::optional<EnsembleManifest>> readManifest(const fs::path& folder) {
    const fs::path path = folder / kManifestName;
    std::error_code error;
    const auto status = fs::symlink_status(path, error);
    if (status.type() == fs::file_type::not_found) return std::nullopt;
    if (error || status.type() != fs::file_type::regular)
        return fail(quote(path.string(), 200) +
                    " is not a regular file (a link, a FIFO, a folder or a device): not a "
                    "manifest that `ensemble run` wrote");
    auto text = readTextFile(path, 1 << 20, "manifest");
    if (!text) return fail(text.error());
    const std::string broken = quote(path.string(), 200) +
                               ": not a manifest of fishschool-cli ensemble run (was it edited?)";
    try {
        const auto root = nlohmann::json::parse(*text);
        EnsembleManifest m;
        m.hash = root.at("ensemble").get<std::string>();
        m.version = root.at("version").get<std::string>();
        m.runs = root.at("runs").get<std::int64_t>();
        for (const auto& key : root.at("axes")) m.axes.push_back({key.get<std::string>(), {}});
        if (m.runs < 1 || m.runs > kMaxEnsembleRuns) return fail(broken);
        // What ensemble run writes, and nothing a stranger's folder could print raw.
        const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
        const auto versionChar = [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+';
        };
        if (m.hash.empty() || m.hash.size() > 64 ||
            !std::all_of(m.hash.begin(), m.hash.end(), hex) || m.version.empty() ||
            m.version.size() > 40 || !std::all_of(m.version.begin(), m.version.end(), versionChar))
            return fail(broken);
        for (const EnsembleAxis& axis : m.axes)
            if (!canVary(axis.key)) return fail(broken);
        return m;
    } catch (const nlohmann::json::exception&) {
        return fail(broken);
    }
}

bool isPartFileName(std::string_view name) {
    return name.starts_with("part-") && name.ends_with(".csv");
}

Result<void> forEachLine(
    const fs::path& path, std::size_t maxLine,
    const std::function<Result<void>(std::string_view, std::uint64_t)>& onLine) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail("part file " + quote(path.string(), 200) +
                    " cannot be read: " + std::strerror(errno));
    const auto tooLong = [&](std::int64_t line) -> Result<void> {
        return fail(quote(path.string(), 200) + ": line " + std::to_string(line) +
                    " is longer than " + std::to_string(maxLine) +
                    " bytes: not a row of an ensemble");
    };
    std::string pending;
    std::uint64_t pendingOffset = 0;  // of pending's first byte in the file
    std::vector<char> piece(1 << 16);
    Result<void> ok;
    for (std::int64_t line = 1; ok;) {
        const ssize_t got = ::read(fd, piece.data(), piece.size());
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            ok = fail("part file " + quote(path.string(), 200) +
                      " cannot be read: " + std::strerror(errno));
            break;
        }
        if (got == 0) break;
        pending.append(piece.data(), std::size_t(got));
        std::size_t start = 0;
        for (std::size_t end; ok && (end = pending.find('\n', start)) != std::string::npos;
             start = end + 1, ++line) {
            if (end - start > maxLine)
                ok = tooLong(line);
            else
                ok = onLine(std::string_view(pending).substr(start, end - start),
                            pendingOffset + start);
        }
        pending.erase(0, start);
        pendingOffset += start;
        if (ok && pending.size() > maxLine) ok = tooLong(line);
    }
    ::close(fd);
    return ok;
}

/// The row kept for each run of a folder, as where it lies (24 bytes a run, whatever the rows

FolderRows::FolderRows(std::vector<fs::path> parts, std::int64_t runs, std::size_t axisCount)
    : parts_(std::move(parts)),
      fds_(parts_.size(), -1),
      places_(std::size_t(runs)),
      axisCount_(axisCount) {}

FolderRows::FolderRows(FolderRows&& other) noexcept
    : parts_(std::move(other.parts_)),
      fds_(std::exchange(other.fds_, {})),
      open_(other.open_),
      places_(std::move(other.places_)),
      count_(other.count_),
      axisCount_(other.axisCount_) {}

FolderRows::~FolderRows() {
    closeAll();
}

Result<RunRow> FolderRows::row(std::int64_t run) {
    const Place& place = places_[std::size_t(run)];
    // Named only when it fails: a merge reads every row back.
    const auto name = [&] { return quote(parts_[place.part].string(), 200); };
    auto fd = partFile(place.part);
    if (!fd) return fail(fd.error());
    std::string text(place.length, '\0');
    if (::pread(*fd, text.data(), text.size(), off_t(place.offset)) != ssize_t(text.size()))
        return fail("part file " + name() + " cannot be read back (" + std::strerror(errno) +
                    "; did it change while it was read?)");
    auto parsed = parseEnsembleCsvRow(text, axisCount_);
    if (!parsed || parsed->plan.index != run)
        return fail("part file " + name() + " changed while it was read");
    return parsed;
}

Result<void> FolderRows::offer(const RunRow& row, std::size_t part, std::uint64_t offset,
                               std::size_t length) {
    Place& kept = places_[std::size_t(row.plan.index)];
    const Place offered{offset, std::uint32_t(part), std::uint32_t(length),
                        row.ok ? Status::Ok : Status::Failed};
    if (kept.status == Status::None) {
        kept = offered;
        ++count_;
        return {};
    }
    const bool keptOk = kept.status == Status::Ok;
    if (row.ok != keptOk) {
        if (row.ok) kept = offered;
        return {};
    }
    auto keptRow = this->row(row.plan.index);  // a run written twice: rare
    if (!keptRow) return fail(keptRow.error());
    if (ensembleCsvRow(row, false) < ensembleCsvRow(*keptRow, false)) kept = offered;
    return {};
}

Result<int> FolderRows::partFile(std::size_t part) {
    if (fds_[part] >= 0) return fds_[part];
    if (open_ >= kOpenFiles) closeAll();
    const std::string name = quote(parts_[part].string(), 200);
    const auto openPart = [&] {
        return ::open(parts_[part].c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    };
    int fd = openPart();
    if (fd < 0 && errno == EMFILE && open_ > 0) {  // a lower limit than kOpenFiles
        closeAll();
        fd = openPart();
    }
    if (fd < 0) return fail("part file " + name + " cannot be read back: " + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        return fail("part file " + name + " is no longer a regular file");
    }
    ++open_;
    return fds_[part] = fd;
}

void FolderRows::closeAll() {
    for (int& fd : fds_)
        if (fd >= 0) ::close(std::exchange(fd, -1));
    open_ = 0;
}

Result<FolderRows> readRows(const fs::path& folder, const EnsembleManifest& m) {
    const std::string header = ensembleCsvHeader(m.axes, true);
    std::vector<fs::path> parts;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        if (!isPartFileName(entry.path().filename().string())) continue;
        // The folder's own files only: a link, a FIFO or a device under a part file's name could
        // lead anywhere, block, or feed rows without end. It is left unread, and said; the shard
        // whose part file it is fails to write there (exit 1), naming it.
        std::error_code entryError;
        if (entry.symlink_status(entryError).type() != fs::file_type::regular) {
            std::cerr << "ensemble: left out " << quote(entry.path().string(), 200)
                      << ": not a regular file (a link, a FIFO, a folder or a device), so no "
                         "part file that `ensemble run` wrote\n";
            continue;
        }
        parts.push_back(entry.path());
    }
    if (error)
        return fail("--out: " + quote(folder.string(), 200) +
                    " cannot be read: " + error.message());
    std::sort(parts.begin(), parts.end());
    FolderRows rows(parts, m.runs, m.axes.size());
    for (std::size_t part = 0; part < parts.size(); ++part) {
        std::int64_t line = 0;
        const auto where = [&] {
            return quote(parts[part].string(), 200) + ": line " + std::to_string(line) + ": ";
        };
        auto read = forEachLine(
            parts[part], kMaxRowBytes,
            [&](std::string_view text, std::uint64_t offset) -> Result<void> {
                if (++line == 1) {
                    if (text != header)
                        return fail(where() + "the header is not " + quote(header, 200) +
                                    "; the part file is not this ensemble's");
                    return {};
                }
                auto parsed = parseEnsembleCsvRow(text, m.axes.size());
                if (!parsed) return fail(where() + parsed.error());
                if (parsed->plan.index >= m.runs)
                    return fail(where() + "run " + std::to_string(parsed->plan.index) +
                                " is beyond the ensemble's " + std::to_string(m.runs) + " runs");
                return rows.offer(*parsed, part, offset, text.size());
            });
        if (!read) return fail(read.error());
    }
    return rows;
}

std::string runName(const RunRow& row, const EnsembleManifest& m) {
    std::string text = "run " + std::to_string(row.plan.index) + " (";
    for (std::size_t a = 0; a < m.axes.size(); ++a)
        text += m.axes[a].key + " = " + formatNumber(row.plan.values[a]) + ", ";
    return text + "replicate " + std::to_string(row.plan.replicate) + ")";
}

Result<std::pair<EnsembleManifest, FolderRows>> readFolder(const std::string& dir) {
    std::error_code error;
    if (!fs::is_directory(dir, error))
        return fail("DIR: " + quote(dir, 200) + " is not a folder made by `ensemble run`");
    auto manifest = readManifest(dir);
    if (!manifest) return fail(manifest.error());
    if (!*manifest)
        return fail("DIR: " + quote(dir, 200) + " has no " + kManifestName +
                    ": not a folder made by `ensemble run`");
    auto rows = readRows(dir, **manifest);
    if (!rows) return fail(rows.error());
    return std::pair<EnsembleManifest, FolderRows>{**manifest, std::move(*rows)};
}

Result<PartFile> PartFile::open(const fs::path& path, const std::string& header) {
    PartFile file;
    file.path_ = path.string();
    // Never through a link, never blocking on a FIFO: anything but a regular file under
    // the part file's name fails the shard (readRows() left it unread).
    file.fd_ = ::open(file.path_.c_str(),
                      O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
    if (file.fd_ < 0) return file.failure("cannot be opened for writing");
    struct stat info {};
    if (::fstat(file.fd_, &info) != 0) return file.failure("cannot be read");
    if (!S_ISREG(info.st_mode))
        return fail("part file " + quote(file.path_, 200) + " is not a regular file");
    if (::flock(file.fd_, LOCK_EX | LOCK_NB) != 0)
        return fail("part file " + quote(file.path_, 200) +
                    ": another `ensemble run` is writing it (the same --shard twice?)");
    // Its size now that it is ours: another task may have written to it until the lock.
    if (::fstat(file.fd_, &info) != 0) return file.failure("cannot be read");
    // The last whole row ends in the file's last piece: readRows() refused longer lines.
    off_t size = info.st_size;
    if (size > 0) {
        const off_t from = size > off_t(kMaxRowBytes) + 1 ? size - off_t(kMaxRowBytes) - 1 : 0;
        std::string tail(std::size_t(size - from), '\0');
        if (::pread(file.fd_, tail.data(), tail.size(), from) != off_t(tail.size()))
            return file.failure("cannot be read");
        const std::size_t newline = tail.rfind('\n');
        if (newline == std::string::npos && from > 0)  // never cut whole rows away
            return fail("part file " + quote(file.path_, 200) + ": its last " +
                        std::to_string(tail.size()) + " bytes hold no row's end");
        const off_t keep = newline == std::string::npos ? 0 : from + off_t(newline) + 1;
        if (keep != size && ::ftruncate(file.fd_, keep) != 0)
            return file.failure("cannot be cut back to its last whole row");
        size = keep;
    }
    if (size == 0)
        if (auto ok = file.append(header + "\n"); !ok) return fail(ok.error());
    return file;
}

PartFile::~PartFile() {
    if (fd_ >= 0) ::close(fd_);
}

Result<void> PartFile::append(std::string_view text) {
    while (!text.empty()) {
        const ssize_t written = ::write(fd_, text.data(), text.size());
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return failure("cannot be written");
        text.remove_prefix(std::size_t(written));
    }
    return {};
}

std::unexpected<std::string> PartFile::failure(const char* what) const {
    const std::string reason = errno ? std::strerror(errno) : "unknown error";
    return fail("part file " + quote(path_, 200) + " " + what + ": " + reason +
                "; the rows before stay and the same command resumes");
}

}  // namespace fishschool
