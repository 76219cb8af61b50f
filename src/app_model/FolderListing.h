#pragma once

// The panel's file browser: a folder's subfolders and its files of one kind, which the app reads
// for the panel (the panel itself opens no file).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fishschool/Result.h"

namespace fishschool::app {

/// What the files of a path field are, by their extensions.
enum class FileKind { Config, State, Trajectory };
/// ".json"; ".csv"; ".h5", ".h5md", ".hdf5".
std::span<const char* const> extensionsOf(FileKind kind);
/// "configs (.json)", "schools (.csv)", "trajectories (.h5)".
const char* describe(FileKind kind);

struct FolderEntry {
    std::string name;
    bool folder = false;
    std::uintmax_t bytes = 0;  ///< files only
};

/// A folder as the browser shows it.
struct FolderListing {
    std::string folder;    ///< as asked, made plain ("a/../b" is "b"; "" is ".")
    std::string absolute;  ///< the same from the root, to show where it is
    FileKind kind = FileKind::Config;
    /// Its subfolders, then its files of `kind` (by extension, any case), each by name; hidden
    /// ones (a leading '.') left out. At most kMaxEntries.
    std::vector<FolderEntry> entries;
    bool truncated = false;  ///< the folder held more than kMaxEntries of these
};
inline constexpr std::size_t kMaxEntries = 2000;

/// Lists `folder` for the browser; an error names the folder (it does not exist, is not a
/// folder, cannot be read).
Result<FolderListing> listFolder(const std::string& folder, FileKind kind);

/// The folder a path field's text lies in, where the browser opens: "runs/a.json" is "runs",
/// "a.json" and "" are ".", and a folder's own path is itself.
std::string folderOfField(const std::string& field);
/// The path the browser puts in the field for `name` in `folder`: "a.json" in ".", else
/// "folder/a.json".
std::string pathInFolder(const std::string& folder, const std::string& name);
/// The folder above `folder`: "runs/a" is "runs", "." is "..", "/" is "/".
std::string parentFolder(const std::string& folder);

}  // namespace fishschool::app
