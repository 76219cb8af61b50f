// fishschool-cli ensemble run|status|merge (docs/ensembles.md): an ensemble's runs spread over
// workers, each finished run appended as one row to its worker's part file in the output folder,
// so that a stopped run loses at most the runs in flight and the same command resumes it.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "WorkerBackends.h"
#include "backends/BackendRegistry.h"
#include "core/Ensemble.h"
#include "core/OutputFiles.h"
#include "core/PhaseSweep.h"
#include "core/StateIO.h"
#include "core/TextInput.h"

namespace fishschool::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kManifestName = "manifest.json";

/// Which runs of the ensemble a `run` does: those with index % count == index.
struct Shard {
    std::int64_t index = 0;
    std::int64_t count = 1;
};

Result<Shard> parseShard(const std::string& text) {
    if (text.empty()) return Shard{};
    const auto refused = [&] {
        return fail("--shard: " + quote(text) + " is not allowed; must be K/N with N from 1 to " +
                    std::to_string(kMaxEnsembleRuns) +
                    " and K from 0 to N - 1 (task K of an array --array=0-(N-1))");
    };
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos) return refused();
    const auto k = parseWholeNumber("", text.substr(0, slash), 0, kMaxEnsembleRuns - 1);
    const auto n = parseWholeNumber("", text.substr(slash + 1), 1, kMaxEnsembleRuns);
    if (!k || !n || *k >= *n) return refused();
    return Shard{*k, *n};
}

/// What DIR/manifest.json says: which ensemble, made by which program, how many runs.
struct Manifest {
    std::string hash;
    std::string version;
    std::int64_t runs = 0;
    std::vector<EnsembleAxis> axes;  ///< their keys only
};

std::string manifestJson(const Manifest& m, const std::string& file) {
    nlohmann::ordered_json axes = nlohmann::ordered_json::array();
    for (const EnsembleAxis& axis : m.axes) axes.push_back(axis.key);
    const nlohmann::ordered_json root = {{"ensemble", m.hash},
                                         {"version", m.version},
                                         {"runs", m.runs},
                                         {"axes", axes},
                                         {"file", file}};
    return root.dump(2) + "\n";
}

/// The folder's manifest; nullopt when it has none.
Result<std::optional<Manifest>> readManifest(const fs::path& folder) {
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
        Manifest m;
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

bool isPartFileName(const std::string& name) {
    return name.starts_with("part-") && name.ends_with(".csv");
}

/// The longest row a part file may hold: far more than any run writes (its message is cut short).
constexpr std::size_t kMaxRowBytes = 1 << 20;

/// Calls `onLine(line, offset)` with each whole line of `path` (without its newline) and where it
/// starts, reading the file in pieces so that a part file of any size costs a row's memory; a
/// last line without its newline (a row cut short by a kill) is left out. A line longer than
/// `maxLine` is an error: no row is that long.
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
/// hold: a folder of 10^7 runs is read in 240 MB, not gigabytes); row() reads one back.
class FolderRows {
  public:
    enum class Status : std::uint8_t { None, Ok, Failed };
    FolderRows(std::vector<fs::path> parts, std::int64_t runs, std::size_t axisCount)
        : parts_(std::move(parts)),
          fds_(parts_.size(), -1),
          places_(std::size_t(runs)),
          axisCount_(axisCount) {}
    FolderRows(FolderRows&& other) noexcept
        : parts_(std::move(other.parts_)),
          fds_(std::exchange(other.fds_, {})),
          open_(other.open_),
          places_(std::move(other.places_)),
          count_(other.count_),
          axisCount_(other.axisCount_) {}
    FolderRows& operator=(FolderRows&&) = delete;
    ~FolderRows() { closeAll(); }

    Status status(std::int64_t run) const { return places_[std::size_t(run)].status; }
    /// Runs with a row.
    std::int64_t count() const { return count_; }

    /// The kept row of `run`, read back from its part file.
    Result<RunRow> row(std::int64_t run) {
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

    /// Keeps `row` (at `offset` of part `part`, `length` bytes) for its run: a finished ("ok")
    /// row before a failed one, then the least as merged text, so that any order of the files
    /// and any repeat of a run give the same choice.
    Result<void> offer(const RunRow& row, std::size_t part, std::uint64_t offset,
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

  private:
    /// Part `part`'s file, open to read rows back. A merge reads the runs in order, from every
    /// shard's files in turn: at most kOpenFiles stay open, so that an array of thousands of
    /// tasks keeps within the process's limit of open files.
    Result<int> partFile(std::size_t part) {
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
        if (fd < 0)
            return fail("part file " + name + " cannot be read back: " + std::strerror(errno));
        struct stat info {};
        if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
            ::close(fd);
            return fail("part file " + name + " is no longer a regular file");
        }
        ++open_;
        return fds_[part] = fd;
    }
    void closeAll() {
        for (int& fd : fds_)
            if (fd >= 0) ::close(std::exchange(fd, -1));
        open_ = 0;
    }

    static constexpr std::size_t kOpenFiles = 64;
    struct Place {
        std::uint64_t offset = 0;
        std::uint32_t part = 0;
        std::uint32_t length = 0;
        Status status = Status::None;
    };
    std::vector<fs::path> parts_;
    std::vector<int> fds_;  ///< parts_' files, open to read rows back; -1 where closed
    std::size_t open_ = 0;  ///< of fds_
    std::vector<Place> places_;
    std::int64_t count_ = 0;
    std::size_t axisCount_ = 0;
};

/// The rows of every part file of the folder, the one kept for each run (FolderRows::offer). A
/// last line without its newline is a row cut short by a kill: ignored.
Result<FolderRows> readRows(const fs::path& folder, const Manifest& m) {
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

/// A part file opened to append rows, locked against a second writer. A row cut short at its
/// end (a kill mid-write) is cut off, so that the next row starts on a line of its own.
class PartFile {
  public:
    static Result<PartFile> open(const fs::path& path, const std::string& header) {
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

    PartFile() = default;
    PartFile(PartFile&& other) noexcept
        : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}
    PartFile& operator=(PartFile&&) = delete;
    ~PartFile() {
        if (fd_ >= 0) ::close(fd_);
    }

    /// One write of the whole row: it reaches the kernel before the next run starts.
    Result<void> append(std::string_view text) {
        while (!text.empty()) {
            const ssize_t written = ::write(fd_, text.data(), text.size());
            if (written < 0 && errno == EINTR) continue;
            if (written <= 0) return failure("cannot be written");
            text.remove_prefix(std::size_t(written));
        }
        return {};
    }

  private:
    std::unexpected<std::string> failure(const char* what) const {
        const std::string reason = errno ? std::strerror(errno) : "unknown error";
        return fail("part file " + quote(path_, 200) + " " + what + ": " + reason +
                    "; the rows before stay and the same command resumes");
    }

    int fd_ = -1;
    std::string path_;
};

/// Runs done of the total, runs a second and the time left, on stderr: a line at each tenth and
/// at least every 30 s in a log, one line rewritten in place on a terminal.
class Progress {
  public:
    Progress(std::int64_t total, std::int64_t doneBefore)
        : total_(total),
          done_(doneBefore),
          doneBefore_(doneBefore),
          terminal_(::isatty(STDERR_FILENO) == 1) {}

    void add(bool ok) {
        const std::lock_guard lock(mutex_);
        ++done_;
        failed_ += ok ? 0 : 1;
        const auto now = Clock::now();
        const std::int64_t runs = total_ - doneBefore_, doneHere = done_ - doneBefore_;
        const bool nextTenth = doneHere * 10 / runs != (doneHere - 1) * 10 / runs;
        const bool due = terminal_ ? now - printed_ > std::chrono::milliseconds(250)
                                   : nextTenth || now - printed_ > std::chrono::seconds(30);
        if (due || done_ == total_) print(now);
    }

    void finish() {
        const std::lock_guard lock(mutex_);
        if (terminal_) std::cerr << "\n";
    }

  private:
    using Clock = std::chrono::steady_clock;

    void print(Clock::time_point now) {
        printed_ = now;
        const double seconds = std::chrono::duration<double>(now - start_).count();
        const double rate = double(done_ - doneBefore_) / std::max(seconds, 1e-9);
        char line[200];
        std::snprintf(line, sizeof line, "ensemble: %lld/%lld runs done, %lld failed, %.3g runs/s",
                      static_cast<long long>(done_), static_cast<long long>(total_),
                      static_cast<long long>(failed_), rate);
        std::string text = line;
        if (done_ < total_) {
            std::snprintf(line, sizeof line, ", about %.0f s left", double(total_ - done_) / rate);
            text += line;
        }
        if (terminal_)
            std::cerr << "\r" << text << "\033[K" << std::flush;
        else
            std::cerr << text << "\n";
    }

    std::mutex mutex_;
    std::int64_t total_, done_, doneBefore_, failed_ = 0;
    bool terminal_;
    Clock::time_point start_ = Clock::now(), printed_ = start_;
};

std::string runName(const RunRow& row, const Manifest& m) {
    std::string text = "run " + std::to_string(row.plan.index) + " (";
    for (std::size_t a = 0; a < m.axes.size(); ++a)
        text += m.axes[a].key + " = " + formatNumber(row.plan.values[a]) + ", ";
    return text + "replicate " + std::to_string(row.plan.replicate) + ")";
}

/// The folder of `status` and `merge`: its manifest and rows.
Result<std::pair<Manifest, FolderRows>> readFolder(const std::string& dir) {
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
    return std::pair<Manifest, FolderRows>{**manifest, std::move(*rows)};
}

/// Runs listed in this environment variable ("3,7") are recorded as failed: how the tests and
/// a user rehearsing a cluster's failures reach the failure and retry paths (the CPU backends
/// never fail a run).
constexpr const char* kFaultVariable = "FISHSCHOOL_FAULT_RUNS";

Result<std::set<std::int64_t>> injectedFaults() {
    const char* text = std::getenv(kFaultVariable);
    if (!text || !*text) return std::set<std::int64_t>{};
    auto parsed = parseList(kFaultVariable, text, [](std::string_view item) {
        return parseWholeNumber(kFaultVariable, item, 0, kMaxEnsembleRuns);
    });
    if (!parsed) return fail(parsed.error());
    return std::set<std::int64_t>(parsed->begin(), parsed->end());
}

int runEnsembleRun(const EnsembleOptions& o) {
    const auto shard = parseShard(o.shard);
    if (!shard) return badInput(shard.error());
    if (!o.only.empty() && !o.shard.empty())
        return badInput("--only and --shard cannot be used together: --only names the runs");
    auto spec = loadEnsemble(o.file);
    if (!spec) return badInput(spec.error());
    const std::int64_t runs = spec->runCount();
    std::vector<std::int64_t> only;
    if (!o.only.empty()) {
        auto parsed = parseList("--only", o.only, [&](std::string_view item) {
            return parseWholeNumber("--only", item, 0, runs - 1);
        });
        if (!parsed) return badInput(parsed.error());
        only = *parsed;
        std::vector<std::int64_t> sorted = only;
        std::sort(sorted.begin(), sorted.end());
        if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
            twice != sorted.end())
            return badInput("--only: run " + std::to_string(*twice) +
                            " is named twice; name each run once");
    }
    const auto kind = parseBackendFlag(o.file + ": key 'backend'", spec->backend);
    if (!kind) return badInput(kind.error());
    const auto faults = injectedFaults();
    if (!faults) return badInput(faults.error());

    // The folder: new, empty, or this ensemble's (by its manifest), nothing else.
    // "out/" is the folder "out", as a shell's completion writes it.
    fs::path folder = o.folder;
    while (!folder.has_filename() && folder.has_relative_path()) folder = folder.parent_path();
    std::error_code error;
    const auto status = fs::status(folder, error);
    if (error && status.type() != fs::file_type::not_found)  // too long, a loop of links, ...
        return badInput("--out: " + quote(o.folder, 200) + " cannot be used: " + error.message());
    if (fs::exists(status) && !fs::is_directory(status))
        return badInput("--out: " + quote(o.folder, 200) +
                        " is a file; give a folder (it is made if missing)");
    const Manifest manifest{spec->hash(), FISHSCHOOL_VERSION, runs, spec->axes};
    if (fs::exists(status)) {
        auto existing = readManifest(folder);
        if (!existing) return badInput(existing.error());
        if (*existing && (*existing)->hash != manifest.hash)
            return badInput("--out: " + quote(o.folder, 200) +
                            " holds the runs of another ensemble file (ensemble " +
                            (*existing)->hash + ", this file's is " + manifest.hash +
                            "); give another folder, never mix two");
        if (*existing && (*existing)->version != manifest.version)
            return badInput("--out: " + quote(o.folder, 200) + " was made by fishschool-cli " +
                            (*existing)->version + ", this is " + manifest.version +
                            "; give another folder, never mix two");
        if (!*existing)
            for (const auto& entry : fs::directory_iterator(folder, error)) {
                const std::string name = entry.path().filename().string();
                // Another task of the array may be writing the manifest right now: its
                // temporary file is no stranger.
                if (!isPartFileName(name) && name != kManifestName &&
                    !isTemporaryOf(name, kManifestName))
                    return badInput("--out: " + quote(o.folder, 200) + " holds " + quote(name) +
                                    " and no " + kManifestName +
                                    ": not an ensemble's folder; give a new or empty folder");
            }
    } else if (const fs::path parent = folder.parent_path().empty() ? "." : folder.parent_path();
               !fs::is_directory(parent, error)) {
        return badInput("--out: " + quote(o.folder, 200) + ": its parent folder " +
                        quote(parent.string(), 200) + " does not exist; make it first");
    }
    if (o.validateOnly) return 0;
    auto backends = makeWorkerBackends(*kind, spec->base, o.jobs);
    if (!backends) return backendFailure(*kind, backends.error());

    if (!fs::exists(folder, error) && !fs::create_directory(folder, error) &&
        !fs::is_directory(folder))
        return badInput("--out: " + quote(o.folder, 200) + " cannot be made: " + error.message());
    // Tasks of one array may all start at once: each writes the same bytes, by rename.
    if (!fs::exists(folder / kManifestName, error))
        if (auto ok = writeFileAtomically(folder / kManifestName, manifestJson(manifest, o.file));
            !ok)
            return internalFailure(ok.error());
    auto rows = readRows(folder, manifest);
    if (!rows) return badInput(rows.error());

    std::vector<std::int64_t> todo;
    std::int64_t total = 0;
    auto isDone = [&](std::int64_t i) {
        const FolderRows::Status status = rows->status(i);
        return status == FolderRows::Status::Ok ||
               (status == FolderRows::Status::Failed && !o.retryFailed);
    };
    if (!only.empty()) {
        todo = only;
        total = std::int64_t(todo.size());
    } else {
        for (std::int64_t i = shard->index; i < runs; i += shard->count) {
            ++total;
            if (!isDone(i)) todo.push_back(i);
        }
    }
    const std::string shardName =
        std::to_string(shard->index) + "of" + std::to_string(shard->count);
    if (todo.empty()) {
        std::cerr << "ensemble: all " << total << " runs of shard " << shardName
                  << " are done; nothing to run (ensemble status " << quote(o.folder, 200) << ")\n";
        return 0;
    }

    std::signal(SIGXFSZ, SIG_IGN);  // a file over its size limit: an error to report, not death
    const std::size_t workers = std::min(backends->size(), todo.size());
    std::vector<PartFile> parts;
    for (std::size_t w = 0; w < workers; ++w) {
        auto part =
            PartFile::open(folder / ("part-" + shardName + "-w" + std::to_string(w) + ".csv"),
                           ensembleCsvHeader(spec->axes, true));
        if (!part) return internalFailure(part.error());
        parts.push_back(std::move(*part));
    }
    Progress progress(total, total - std::int64_t(todo.size()));
    std::int64_t failed = 0;
    std::mutex failedMutex;
    EnsembleWork work{
        .runs = todo, .jobs = workers, .backendFor = backends->backendFor(), .onRow = {}};
    work.onRow = [&](std::size_t worker, const RunRow& ran) -> Result<void> {
        RunRow row = ran;
        if (faults->contains(row.plan.index)) {
            row.ok = false;
            row.message = std::string("a fault injected by ") + kFaultVariable;
        }
        if (auto ok = parts[worker].append(ensembleCsvRow(row, true)); !ok) return ok;
        progress.add(row.ok);
        if (!row.ok) {
            const std::lock_guard lock(failedMutex);
            ++failed;
        }
        return {};
    };
    const auto ran = runEnsemble(*spec, work);
    progress.finish();
    if (!ran) return internalFailure(ran.error());
    if (failed > 0)
        std::cerr << "ensemble: " << failed << " of " << todo.size()
                  << " runs failed; their rows say why (ensemble status " << quote(o.folder, 200)
                  << "), --retry-failed runs them again\n";
    return 0;
}

int runEnsembleStatus(const EnsembleOptions& o) {
    if (o.validateOnly) return 0;
    auto folder = readFolder(o.folder);
    if (!folder) return badInput(folder.error());
    auto& [manifest, rows] = *folder;
    std::int64_t ok = 0;
    std::vector<std::int64_t> failed;
    for (std::int64_t run = 0; run < manifest.runs; ++run) {
        if (rows.status(run) == FolderRows::Status::Ok) ++ok;
        if (rows.status(run) == FolderRows::Status::Failed) failed.push_back(run);
    }
    const std::int64_t left = manifest.runs - rows.count();
    std::cout << "ensemble " << manifest.hash << " (fishschool-cli " << manifest.version
              << "): " << manifest.runs << " runs\n"
              << "done " << ok << ", failed " << failed.size() << ", left " << left << "\n";
    constexpr std::size_t kShown = 10;
    for (std::size_t k = 0; k < std::min(failed.size(), kShown); ++k) {
        const auto row = rows.row(failed[k]);
        if (!row) return internalFailure(row.error());
        std::cout << "failed: " << printable(runName(*row, manifest), 200) << ": "
                  << printable(row->message, 300) << "\n";
    }
    if (failed.size() > kShown)
        std::cout << "failed: ... and " << failed.size() - kShown << " more\n";
    return 0;
}

/// Refuses an output that would replace the folder's own manifest or a part file: the merge
/// would destroy what it reads.
Result<void> checkNotTheFolders(std::string_view flag, const std::string& path,
                                const std::filesystem::path& folder) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(fs::absolute(path, ec), ec);
    if (ec) return {};  // checkOutputPath names what is wrong with it
    const fs::path dir = fs::weakly_canonical(fs::absolute(folder, ec), ec);
    if (ec || target.parent_path() != dir) return {};
    const std::string name = target.filename().string();
    if (name != kManifestName && !isPartFileName(name)) return {};
    return fail(std::string(flag) + ": " + quote(path) + " is the ensemble folder's " +
                (name == kManifestName ? "manifest" : "part file") +
                ", which the merge reads; give another file (e.g. " +
                quote((folder / "merged.csv").string()) + ")");
}

int runEnsembleMerge(const EnsembleOptions& o) {
    // Both outputs, or neither: each checked before the folder is read.
    OutputFiles outputs;
    for (const auto& [flag, path] : {std::pair{"--csv", &o.csvPath}, {"--timing", &o.timingPath}}) {
        if (path->empty()) continue;
        if (auto ok = checkNotTheFolders(flag, *path, o.folder); !ok) return badInput(ok.error());
        if (auto ok = o.validateOnly ? outputs.check(flag, *path) : outputs.add(flag, *path); !ok)
            return badInput(ok.error());
    }
    if (o.validateOnly) return 0;
    auto folder = readFolder(o.folder);
    if (!folder) return badInput(folder.error());
    auto& [manifest, rows] = *folder;
    // Row by row into the outputs' temporary files: a row's memory, whatever the run count.
    const bool timing = outputs.has("--timing");
    Result<void> written = outputs.write("--csv", ensembleCsvHeader(manifest.axes, false) + "\n");
    if (written && timing) written = outputs.write("--timing", "run,wall_s\n");
    std::int64_t failed = 0;
    for (std::int64_t run = 0; written && run < manifest.runs; ++run) {
        if (rows.status(run) == FolderRows::Status::None) continue;
        const auto row = rows.row(run);
        if (!row) return internalFailure(row.error());
        written = outputs.write("--csv", ensembleCsvRow(*row, false));
        char wall[64];
        std::snprintf(wall, sizeof wall, "%lld,%.6f\n", static_cast<long long>(run),
                      row->wallSeconds);
        if (written && timing) written = outputs.write("--timing", wall);
        failed += row->ok ? 0 : 1;
    }
    if (!written) return internalFailure(written.error());
    if (auto ok = outputs.commit(); !ok) return internalFailure(ok.error());
    const std::int64_t left = manifest.runs - rows.count();
    std::cerr << "ensemble: merged " << rows.count() << " of " << manifest.runs << " runs into "
              << quote(o.csvPath, 200) << " (" << failed << " failed, " << left
              << " not run yet)\n";
    return 0;
}

}  // namespace

void addEnsembleCommand(CLI::App& app, EnsembleOptions& o) {
    CLI::App* ensemble = app.add_subcommand(
        "ensemble", "Run many schools over a grid of parameters and seeds (docs/ensembles.md)");
    ensemble->require_subcommand(1);
    CLI::App* run = ensemble->add_subcommand(
        "run", "Run the ensemble's runs (or resume them) into a folder of part files");
    run->add_option("FILE", o.file, "The ensemble file (JSON)")->required()->check(nonEmpty());
    run->add_option("--out", o.folder,
                    "The output folder: new, empty, or this ensemble's to resume")
        ->required()
        ->check(nonEmpty());
    run->add_option("--jobs", o.jobs, "Runs at once, a thread each (default: the CPU threads)")
        ->check(wholeNumber(1, kMaxJobs));
    run->add_option("--shard", o.shard,
                    "K/N: only the runs whose index % N is K (an array task's share)")
        ->check(nonEmpty());
    run->add_option("--only", o.only,
                    "Comma-separated run indices: run them (again), whatever is done")
        ->check(nonEmpty());
    run->add_flag("--retry-failed", o.retryFailed, "Run the failed runs again");
    CLI::App* status =
        ensemble->add_subcommand("status", "Say how many runs are done, failed and left");
    status->add_option("DIR", o.folder, "The output folder")->required()->check(nonEmpty());
    CLI::App* merge =
        ensemble->add_subcommand("merge", "Write one CSV of the runs, sorted by run index");
    merge->add_option("DIR", o.folder, "The output folder")->required()->check(nonEmpty());
    merge->add_option("--csv", o.csvPath, "Where to write the merged CSV")
        ->required()
        ->check(nonEmpty());
    merge->add_option("--timing", o.timingPath, "Where to write run,wall_s")->check(nonEmpty());
}

int runEnsembleCommand(const std::string& command, const EnsembleOptions& options) {
    if (command == "run") return runEnsembleRun(options);
    if (command == "status") return runEnsembleStatus(options);
    return runEnsembleMerge(options);
}

}  // namespace fishschool::cli
