#include "EnsembleFolder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/Messages.h"
#include "io/OutputFiles.h"
#include "io/TextFiles.h"
#include "runs/PhaseSweep.h"
#include "runs/Sobol.h"

namespace fishschool {

namespace fs = std::filesystem;

namespace {

/// What the manifest says, in the order it says it, without its check.
nlohmann::ordered_json manifestFields(const EnsembleManifest& m) {
    nlohmann::ordered_json axes = nlohmann::ordered_json::array();
    for (const EnsembleAxis& axis : m.axes) axes.push_back(axis.key);
    nlohmann::ordered_json root = {
        {"ensemble", m.hash}, {"version", m.version},       {"runs", m.runs}, {"axes", axes},
        {"seed", m.seed},     {"replicates", m.replicates}, {"file", m.file}};
    // A grid's manifest is what it was before designs.
    if (m.sobolSamples > 0) root["sobol_samples"] = m.sobolSamples;
    return root;
}

/// A file's name that is not UTF-8 is written with U+FFFD in its place, never refused.
std::string dumped(const nlohmann::ordered_json& json, int indent) {
    return json.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

/// FNV-1a 64, as 16 hex digits.
std::string fnv1a64(std::string_view text) {
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (unsigned char c : text) h = (h ^ c) * 0x100000001B3ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

std::string axisKeys(const EnsembleManifest& m) {
    std::string keys;
    for (const EnsembleAxis& axis : m.axes) keys += (keys.empty() ? "" : ", ") + axis.key;
    return keys.empty() ? "none" : keys;
}

}  // namespace

EnsembleManifest manifestOf(const EnsembleSpec& spec, const std::string& file,
                            const std::string& version) {
    return {spec.hash(),
            version,
            spec.runCount(),
            spec.axes,
            spec.seed,
            spec.replicates,
            file,
            spec.design == EnsembleDesign::Sobol ? spec.samples : 0};
}

std::string manifestJson(const EnsembleManifest& m) {
    nlohmann::ordered_json root = manifestFields(m);
    root["check"] = fnv1a64(dumped(root, -1));
    return dumped(root, 2) + "\n";
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
    const std::string broken =
        quote(path.string(), 200) +
        ": not a manifest of fishschool-cli ensemble run (was it edited, or written by an older "
        "version?); a folder's manifest is written once, by `ensemble run`: give a new folder";
    EnsembleManifest m;
    try {
        const auto root = nlohmann::json::parse(*text);
        m.hash = root.at("ensemble").get<std::string>();
        m.version = root.at("version").get<std::string>();
        m.runs = root.at("runs").get<std::int64_t>();
        for (const auto& key : root.at("axes")) m.axes.push_back({key.get<std::string>(), {}});
        m.seed = root.at("seed").get<std::uint64_t>();
        m.replicates = root.at("replicates").get<std::int64_t>();
        m.file = root.at("file").get<std::string>();
        if (root.contains("sobol_samples"))
            m.sobolSamples = root.at("sobol_samples").get<std::int64_t>();
    } catch (const nlohmann::json::exception&) {
        return fail(broken);
    }
    if (m.runs < 1 || m.runs > kMaxEnsembleRuns || m.replicates < 1 || m.runs % m.replicates != 0)
        return fail(broken);
    // A Sobol design's runs are N (k + 2) x replicates.
    if (m.sobolSamples < 0 ||
        (m.sobolSamples > 0 &&
         (m.sobolSamples > kMaxSobolRuns || m.axes.empty() || m.axes.size() > kMaxSobolParameters ||
          m.runs != m.sobolSamples * std::int64_t(m.axes.size() + 2) * m.replicates)))
        return fail(broken);
    // What ensemble run writes, and nothing a stranger's folder could print raw.
    const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
    const auto versionChar = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+';
    };
    if (m.hash.empty() || m.hash.size() > 64 || !std::all_of(m.hash.begin(), m.hash.end(), hex) ||
        m.version.empty() || m.version.size() > 40 ||
        !std::all_of(m.version.begin(), m.version.end(), versionChar))
        return fail(broken);
    for (const EnsembleAxis& axis : m.axes)
        if (!canVary(axis.key)) return fail(broken);
    // Byte for byte what ensemble run writes, its check included: a value edited by hand (the
    // run count, the seed) under the ensemble's own hash is refused here, by every command.
    if (manifestJson(m) != *text) return fail(broken);
    return m;
}

Result<EnsembleManifest> createManifest(const fs::path& folder, const EnsembleManifest& m) {
    const fs::path target = folder / kManifestName;
    const auto cannot = [&](int number) {
        return fail("--out: " + quote(target.string(), 200) +
                    " cannot be made: " + std::strerror(number));
    };
    // Hidden, and a temporary of the manifest's by isTemporaryOf(): a task that looks at the
    // folder meanwhile takes it for no stranger.
    static std::atomic<unsigned> counter{0};
    fs::path temp;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        // append() rather than "." + ...: GCC 12 warns (-Wrestrict) on the latter, wrongly.
        std::string name(1, '.');
        name.append(kManifestName).append(".tmp-").append(std::to_string(::getpid()));
        temp = folder / name.append("-m").append(std::to_string(counter++));
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) return cannot(errno);
    const std::string text = manifestJson(m);
    std::string_view rest = text;
    int writeError = 0;
    while (!rest.empty() && writeError == 0) {
        const ssize_t written = ::write(fd, rest.data(), rest.size());
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0)
            writeError = written < 0 ? errno : ENOSPC;
        else
            rest.remove_prefix(std::size_t(written));
    }
    if (writeError == 0 && ::fsync(fd) != 0) writeError = errno;
    ::close(fd);
    // link(2) fails where the name is taken: the first task's manifest stays. A file system
    // without hard links may still rename without replacing.
    int linkError = 0;
    if (writeError == 0 && ::link(temp.c_str(), target.c_str()) != 0) {
        linkError = errno;
        if ((linkError == EPERM || linkError == EOPNOTSUPP || linkError == ENOSYS) &&
            ::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0)
            linkError = 0;
        else if (linkError != EEXIST && errno == EEXIST)
            linkError = EEXIST;
    }
    ::unlink(temp.c_str());
    if (writeError != 0) return cannot(writeError);
    if (linkError != 0 && linkError != EEXIST) return cannot(linkError);
    // Ours or another task's, read as every command reads it.
    auto found = readManifest(folder);
    if (!found) return fail(found.error());
    if (!*found)
        return fail("--out: " + quote(target.string(), 200) +
                    " was removed as soon as it was made; is another program emptying the folder?");
    return **found;
}

Result<void> checkSameEnsemble(const std::string& folderName, const EnsembleManifest& found,
                               const EnsembleManifest& ours) {
    const std::string folder = "--out: " + quote(folderName, 200);
    if (found.hash != ours.hash)
        return fail(folder + " holds the runs of another ensemble file (ensemble " + found.hash +
                    ", this file's is " + ours.hash + "); give another folder, never mix two");
    if (found.version != ours.version)
        return fail(folder + " was made by fishschool-cli " + found.version + ", this is " +
                    ours.version + "; give another folder, never mix two");
    const auto keys = [](const EnsembleManifest& m) {
        std::vector<std::string> names;
        for (const EnsembleAxis& axis : m.axes) names.push_back(axis.key);
        return names;
    };
    if (found.runs != ours.runs || found.seed != ours.seed || found.replicates != ours.replicates ||
        keys(found) != keys(ours))
        return fail(folder + ": its " + kManifestName + " says ensemble " + found.hash + " has " +
                    std::to_string(found.runs) + " runs (seed " + std::to_string(found.seed) +
                    ", " + std::to_string(found.replicates) + " replicates, axes " +
                    axisKeys(found) + "), this file " + std::to_string(ours.runs) + " (seed " +
                    std::to_string(ours.seed) + ", " + std::to_string(ours.replicates) +
                    " replicates, axes " + axisKeys(ours) +
                    "): was it edited? give another folder");
    return {};
}

bool isPartFileName(std::string_view name) {
    return name.starts_with("part-") && name.ends_with(".csv");
}

std::string partFileName(const PartName& part) {
    return "part-" + std::to_string(part.shard) + "of" + std::to_string(part.shards) + "-w" +
           std::to_string(part.worker) + ".csv";
}

std::optional<PartName> parsePartFileName(std::string_view name) {
    if (!isPartFileName(name)) return std::nullopt;
    std::string_view rest = name.substr(5, name.size() - 9);  // "K" "of" "N" "-w" "W"
    // A whole number as std::to_string writes it, then `separator` (none for the last).
    const auto take = [&](std::string_view separator) -> std::optional<std::int64_t> {
        std::size_t digits = 0;
        while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits])))
            ++digits;
        if (digits == 0 || digits > 8 || (digits > 1 && rest[0] == '0')) return std::nullopt;
        if (rest.substr(digits, separator.size()) != separator) return std::nullopt;
        const std::int64_t value = std::stoll(std::string(rest.substr(0, digits)));
        rest.remove_prefix(digits + separator.size());
        return value;
    };
    const auto shard = take("of"), shards = take("-w"), worker = take("");
    if (!shard || !shards || !worker || !rest.empty() || *shards < 1 ||
        *shards > kMaxEnsembleRuns || *shard >= *shards)
        return std::nullopt;
    return PartName{*shard, *shards, *worker};
}

std::string partFileHeader(const EnsembleManifest& m) {
    return ensembleCsvHeader(m.axes, true) + ",ensemble=" + m.hash;
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
    const std::string header = partFileHeader(m);
    const std::string columns = ensembleCsvHeader(m.axes, true) + ",ensemble=";
    std::vector<fs::path> parts;
    std::vector<PartName> names;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        if (!isPartFileName(name)) continue;
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
    for (const fs::path& part : parts) {
        const auto name = parsePartFileName(part.filename().string());
        if (!name)
            return fail(quote(part.string(), 200) +
                        " is named like a part file but `ensemble run` writes none of that name "
                        "(part-KofN-wW.csv); move it out of the folder");
        names.push_back(*name);
    }
    FolderRows rows(parts, m.runs, m.axes.size());
    for (std::size_t part = 0; part < parts.size(); ++part) {
        const PartName& name = names[part];
        std::int64_t line = 0;
        const auto where = [&] {
            return quote(parts[part].string(), 200) + ": line " + std::to_string(line) + ": ";
        };
        const std::string notHere =
            "; `ensemble run` wrote no such row there: move the file out of the folder";
        auto read = forEachLine(
            parts[part], kMaxRowBytes,
            [&](std::string_view text, std::uint64_t offset) -> Result<void> {
                if (++line == 1) {
                    if (text == header) return {};
                    const std::string moveIt = "; move it out of the folder";
                    if (text.starts_with(columns))
                        return fail(where() + "the part file of ensemble " +
                                    quote(text.substr(columns.size()), 64) +
                                    ", not of this folder's " + m.hash + moveIt);
                    return fail(where() +
                                "the header is not this ensemble's part files' (the columns, "
                                "then ensemble=" +
                                m.hash + "); the part file is not this ensemble's" + moveIt);
                }
                auto parsed = parseEnsembleCsvRow(text, m.axes.size());
                if (!parsed) return fail(where() + parsed.error());
                const std::int64_t run = parsed->plan.index;
                const std::string runText = "run " + std::to_string(run);
                if (run >= m.runs)
                    return fail(where() + runText + " is beyond the ensemble's " +
                                std::to_string(m.runs) + " runs" + notHere);
                if (run % name.shards != name.shard)
                    return fail(where() + runText + " is not of shard " +
                                std::to_string(name.shard) + "of" + std::to_string(name.shards) +
                                " (the runs whose index % " + std::to_string(name.shards) + " is " +
                                std::to_string(name.shard) + ")" + notHere);
                if (parsed->plan.replicate != run % m.replicates)
                    return fail(where() + runText + " says replicate " +
                                std::to_string(parsed->plan.replicate) + "; it is replicate " +
                                std::to_string(run % m.replicates) + notHere);
                if (const std::uint64_t seed = runSeed(m.seed, run); parsed->plan.seed != seed)
                    return fail(where() + runText + " says seed " +
                                std::to_string(parsed->plan.seed) + "; this ensemble's " + runText +
                                " has seed " + std::to_string(seed) +
                                " (a row of another ensemble?)" + notHere);
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

Result<std::pair<EnsembleManifest, FolderRows>> readFolder(const fs::path& dir,
                                                           std::string_view flag) {
    const std::string name = std::string(flag) + ": " + quote(dir.string(), 200);
    std::error_code error;
    if (!fs::exists(fs::symlink_status(dir, error)))
        return fail(name + " does not exist; give a folder made by `ensemble run`");
    if (!fs::is_directory(dir, error))
        return fail(name + " is not a folder made by `ensemble run`");
    auto manifest = readManifest(dir);
    if (!manifest) return fail(manifest.error());
    if (!*manifest)
        return fail(name + " has no " + kManifestName + ": not a folder made by `ensemble run`");
    auto rows = readRows(dir, **manifest);
    if (!rows) return fail(rows.error());
    return std::pair<EnsembleManifest, FolderRows>{**manifest, std::move(*rows)};
}

namespace {

bool sameFile(const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

FolderPlace placeInFolder(const std::string& path, const fs::path& folder) {
    FolderPlace place;
    const fs::path target = outputTarget(path);
    struct stat folderInfo {};
    if (::stat(folder.c_str(), &folderInfo) != 0) {
        // No folder yet: only a path under its name, after links and "..", would be in it.
        place.inside =
            target.parent_path() == outputTarget(folder) || target == outputTarget(folder);
        return place;
    }
    const std::string name = target.filename().string();
    struct stat parentInfo {};
    struct stat targetInfo {};
    const bool exists = ::stat(target.c_str(), &targetInfo) == 0;
    if (exists && sameFile(targetInfo, folderInfo)) {
        place.inside = true;  // the folder itself
        return place;
    }
    if (::stat(target.parent_path().c_str(), &parentInfo) == 0 &&
        sameFile(parentInfo, folderInfo)) {
        place.inside = true;
        if (name == kManifestName || isTemporaryOf(name, kManifestName))
            place.ownFile = "manifest";
        else if (isPartFileName(name))
            place.ownFile = "part file " + quote(name, 100);
    }
    if (!place.ownFile.empty() || !exists) return place;
    // Another name of one of its files (a hard link): the same data, whatever the name.
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        const std::string own = entry.path().filename().string();
        if (own != kManifestName && !isPartFileName(own)) continue;
        struct stat ownInfo {};
        if (::lstat(entry.path().c_str(), &ownInfo) == 0 && sameFile(ownInfo, targetInfo)) {
            place.ownFile = own == kManifestName ? "manifest" : "part file " + quote(own, 100);
            break;
        }
    }
    return place;
}

Result<void> checkNotTheFolders(std::string_view flag, const std::string& path,
                                const fs::path& folder) {
    struct stat folderInfo {};
    if (::stat(folder.c_str(), &folderInfo) != 0) return {};  // readFolder says what is wrong
    const FolderPlace place = placeInFolder(path, folder);
    if (place.ownFile.empty()) return {};
    return fail(std::string(flag) + ": " + quote(path, 200) + " is the ensemble folder's " +
                place.ownFile + ", which the merge reads; give another file (e.g. " +
                quote((folder / "merged.csv").string(), 200) + ")");
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

std::unexpected<Error> PartFile::failure(const char* what) const {
    const std::string reason = errno ? std::strerror(errno) : "unknown error";
    return fail("part file " + quote(path_, 200) + " " + what + ": " + reason +
                    "; the rows before stay and the same command resumes",
                ErrorKind::System);
}

}  // namespace fishschool
