#pragma once

// An ensemble's output folder (docs/ensembles.md): its manifest, which says whose runs it holds,
// and the part files each worker appends its finished runs to, one CSV row a run. What is kept of
// each run is where its row lies, so that a folder of millions of runs is read in little memory.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fishschool/Result.h"
#include "runs/Ensemble.h"

namespace fishschool {

inline constexpr const char* kManifestName = "manifest.json";
/// The longest row a part file may hold: far more than any run writes (its message is cut short).
inline constexpr std::size_t kMaxRowBytes = 1 << 20;

/// What DIR/manifest.json says: which ensemble, made by which program, and what the row of each
/// run must hold (its replicate, its seed), so that status and merge check rows without the file.
struct EnsembleManifest {
    std::string hash;
    std::string version;
    std::int64_t runs = 0;
    std::vector<EnsembleAxis> axes;  ///< their keys only
    std::uint64_t seed = 0;          ///< the master seed: run i's seed is runSeed(seed, i)
    std::int64_t replicates = 1;     ///< run i is replicate i % replicates
    std::string file;                ///< the ensemble file the folder was made from, as named
    /// A Sobol design's base points N (its runs are N (k + 2) x replicates); 0 for a grid.
    std::int64_t sobolSamples = 0;
};

/// The manifest of `spec`'s folder, made from the ensemble file named `file` by the program of
/// `version`.
EnsembleManifest manifestOf(const EnsembleSpec& spec, const std::string& file,
                            const std::string& version);

/// The manifest's text. Its "check" is a hash of the rest, so that a hand edit that keeps the
/// ensemble's hash (a run count, a seed) is found by every command that reads the folder.
std::string manifestJson(const EnsembleManifest& manifest);

/// The folder's manifest; nullopt when it has none. One that `ensemble run` did not write (a
/// link, a FIFO, an edited value, a key added or missing, any text but manifestJson's) is an
/// error.
[[nodiscard]] Result<std::optional<EnsembleManifest>> readManifest(
    const std::filesystem::path& folder);

/// Creates the folder's manifest exclusively: its whole text goes to a temporary file, linked
/// (link(2)) to the manifest's name only where no manifest is, so that of tasks started at once
/// the first one's wins and no reader sees half a manifest. Returns the manifest the folder then
/// holds, whoever wrote it, for the caller to compare with its own (checkSameEnsemble).
[[nodiscard]] Result<EnsembleManifest> createManifest(const std::filesystem::path& folder,
                                                      const EnsembleManifest& manifest);

/// Refuses the manifest `found` in the folder `folderName` where it is not `ours`: another
/// ensemble file, another version, or other values under the same hash.
[[nodiscard]] Result<void> checkSameEnsemble(const std::string& folderName,
                                             const EnsembleManifest& found,
                                             const EnsembleManifest& ours);

/// Whether `name` is a part file's, "part-*.csv": every such name in a folder is the ensemble's
/// (the merge never writes one), though only partFileName's spelling is read.
bool isPartFileName(std::string_view name);

/// Which runs a part file holds: `part-KofN-wW.csv` holds runs of shard K of N (index % N == K),
/// appended by worker W.
struct PartName {
    std::int64_t shard = 0;
    std::int64_t shards = 1;
    std::int64_t worker = 0;
};
std::string partFileName(const PartName& part);
/// The part file that `name` is, in partFileName's spelling only (no sign, no leading zero, K
/// below N, N at most kMaxEnsembleRuns); nullopt for any other name.
std::optional<PartName> parsePartFileName(std::string_view name);

/// A part file's first line: the rows' CSV header, then the ensemble's hash as one more column
/// ("ensemble=HASH", which no row fills), so that a part file says whose rows it holds.
std::string partFileHeader(const EnsembleManifest& manifest);

/// Calls `onLine(line, offset)` with each whole line of `path` (without its newline) and where it
/// starts, reading the file in pieces so that a part file of any size costs a row's memory; a
/// last line without its newline (a row cut short by a kill) is left out. A line longer than
/// `maxLine` is an error: no row is that long.
[[nodiscard]] Result<void> forEachLine(
    const std::filesystem::path& path, std::size_t maxLine,
    const std::function<Result<void>(std::string_view, std::uint64_t)>& onLine);

/// The row kept for each run of a folder, as where it lies (24 bytes a run, whatever the rows
/// hold: a folder of 10^7 runs is read in 240 MB, not gigabytes); row() reads one back.
class FolderRows {
  public:
    enum class Status : std::uint8_t { None, Ok, Failed };
    FolderRows(std::vector<std::filesystem::path> parts, std::int64_t runs, std::size_t axisCount);
    FolderRows(FolderRows&& other) noexcept;
    FolderRows& operator=(FolderRows&&) = delete;
    ~FolderRows();

    Status status(std::int64_t run) const { return places_[std::size_t(run)].status; }
    /// Runs with a row.
    std::int64_t count() const { return count_; }

    /// The kept row of `run`, read back from its part file.
    [[nodiscard]] Result<RunRow> row(std::int64_t run);

    /// Keeps `row` (at `offset` of part `part`, `length` bytes) for its run: a finished ("ok")
    /// row before a failed one, then the least as merged text, so that any order of the files
    /// and any repeat of a run give the same choice.
    [[nodiscard]] Result<void> offer(const RunRow& row, std::size_t part, std::uint64_t offset,
                                     std::size_t length);

  private:
    /// Part `part`'s file, open to read rows back. A merge reads the runs in order, from every
    /// shard's files in turn: at most kOpenFiles stay open, so that an array of thousands of
    /// tasks keeps within the process's limit of open files.
    Result<int> partFile(std::size_t part);
    void closeAll();

    static constexpr std::size_t kOpenFiles = 64;
    struct Place {
        std::uint64_t offset = 0;
        std::uint32_t part = 0;
        std::uint32_t length = 0;
        Status status = Status::None;
    };
    std::vector<std::filesystem::path> parts_;
    std::vector<int> fds_;  ///< parts_' files, open to read rows back; -1 where closed
    std::size_t open_ = 0;  ///< of fds_
    std::vector<Place> places_;
    std::int64_t count_ = 0;
    std::size_t axisCount_ = 0;
};

/// The rows of every part file of the folder, the one kept for each run (FolderRows::offer). A
/// last line without its newline is a row cut short by a kill: ignored. Anything but a regular
/// file under a part file's name is left unread, with a line on stderr. Every row is checked
/// against its run, and the folder is refused for a part file whose name is not partFileName's
/// or whose header is not this ensemble's (partFileHeader), and for a row whose run is beyond
/// the ensemble or not of its file's shard, or whose replicate or seed is not its run's.
[[nodiscard]] Result<FolderRows> readRows(const std::filesystem::path& folder,
                                          const EnsembleManifest& manifest);

/// The one reader of an ensemble's folder, for `ensemble run`, `status` and `merge` alike: the
/// manifest (readManifest) and the rows (readRows), each checked. `flag` names the folder in
/// errors ("DIR", "--out").
[[nodiscard]] Result<std::pair<EnsembleManifest, FolderRows>> readFolder(
    const std::filesystem::path& dir, std::string_view flag = "DIR");

/// Where an output at `path` would land in the ensemble folder `folder`: `path` followed link by
/// link as the output's writer follows it (to a file not made yet too), and its folder compared
/// with `folder` by device and inode (by the resolved path while `folder` is not made yet).
struct FolderPlace {
    bool inside = false;  ///< in the folder (or the folder itself), under any name
    /// "manifest" or "part file 'NAME'" where it is one of the folder's own files, by its name
    /// there or as another name of it (a hard link); empty otherwise.
    std::string ownFile;
};
[[nodiscard]] FolderPlace placeInFolder(const std::string& path,
                                        const std::filesystem::path& folder);

/// Refuses `path` as the merge's output `flag` where it would replace the folder's manifest or
/// a part file: the path is followed link by link as the output's writer follows it (to a file
/// not made yet too) and its folder compared with `folder` by device and inode; where the file
/// exists, it is compared with each of the folder's files too (a hard link).
[[nodiscard]] Result<void> checkNotTheFolders(std::string_view flag, const std::string& path,
                                              const std::filesystem::path& folder);

/// "run 3 (rCohesion = 2, replicate 1)": a run as messages name it.
std::string runName(const RunRow& row, const EnsembleManifest& manifest);

/// A part file opened to append rows, locked against a second writer. A row cut short at its
/// end (a kill mid-write) is cut off, so that the next row starts on a line of its own.
class PartFile {
  public:
    [[nodiscard]] static Result<PartFile> open(const std::filesystem::path& path,
                                               const std::string& header);

    PartFile() = default;
    PartFile(PartFile&& other) noexcept
        : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}
    PartFile& operator=(PartFile&&) = delete;
    ~PartFile();

    /// One write of the whole row: it reaches the kernel before the next run starts.
    [[nodiscard]] Result<void> append(std::string_view text);

  private:
    std::unexpected<Error> failure(const char* what) const;

    int fd_ = -1;
    std::string path_;
};

}  // namespace fishschool
