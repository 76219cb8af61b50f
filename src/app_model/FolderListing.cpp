#include "FolderListing.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "core/Messages.h"

namespace fishschool::app {
namespace {

namespace fs = std::filesystem;

std::string plain(const std::string& folder) {
    const std::string normal = fs::path(folder).lexically_normal().string();
    if (normal.empty()) return ".";
    // "runs/" is "runs": the trailing separator adds nothing.
    return normal.size() > 1 && normal.back() == '/' ? normal.substr(0, normal.size() - 1) : normal;
}

std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

}  // namespace

std::span<const char* const> extensionsOf(FileKind kind) {
    static constexpr const char* kConfig[] = {".json"};
    static constexpr const char* kState[] = {".csv"};
    static constexpr const char* kTrajectory[] = {".h5", ".h5md", ".hdf5"};
    switch (kind) {
        case FileKind::State:
            return kState;
        case FileKind::Trajectory:
            return kTrajectory;
        case FileKind::Config:
            break;
    }
    return kConfig;
}

const char* describe(FileKind kind) {
    switch (kind) {
        case FileKind::State:
            return "schools (.csv)";
        case FileKind::Trajectory:
            return "trajectories (.h5)";
        case FileKind::Config:
            break;
    }
    return "configs (.json)";
}

Result<FolderListing> listFolder(const std::string& folder, FileKind kind) {
    FolderListing listing;
    listing.folder = plain(folder);
    listing.kind = kind;
    const std::string named = quote(listing.folder, 200);
    std::error_code ec;
    if (!fs::is_directory(listing.folder, ec))
        return fail(named +
                    (fs::exists(listing.folder, ec) ? " is not a folder" : " does not exist"));
    fs::directory_iterator it(listing.folder, fs::directory_options::skip_permission_denied, ec);
    if (ec) return fail("cannot read the folder " + named + ": " + ec.message());
    listing.absolute = fs::absolute(listing.folder, ec).lexically_normal().string();
    if (ec) listing.absolute = listing.folder;
    const auto extensions = extensionsOf(kind);
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) return fail("cannot read the folder " + named + ": " + ec.message());
        const std::string name = it->path().filename().string();
        if (name.empty() || name.front() == '.') continue;
        std::error_code entryError;
        if (it->is_directory(entryError)) {
            listing.entries.push_back({name, true, 0});
        } else if (it->is_regular_file(entryError) &&
                   std::ranges::find(extensions, lower(it->path().extension().string())) !=
                       extensions.end()) {
            const auto bytes = it->file_size(entryError);
            listing.entries.push_back({name, false, entryError ? 0 : bytes});
        }
        if (listing.entries.size() > kMaxEntries) {
            listing.truncated = true;
            listing.entries.pop_back();
            break;
        }
    }
    std::ranges::sort(listing.entries, [](const FolderEntry& a, const FolderEntry& b) {
        if (a.folder != b.folder) return a.folder;
        return a.name < b.name;
    });
    return listing;
}

std::string folderOfField(const std::string& field) {
    std::error_code ec;
    if (!field.empty() && fs::is_directory(field, ec)) return plain(field);
    const std::string parent = fs::path(field).parent_path().string();
    return plain(parent.empty() ? "." : parent);
}

std::string pathInFolder(const std::string& folder, const std::string& name) {
    const std::string here = plain(folder);
    return here == "." ? name : (fs::path(here) / name).string();
}

std::string parentFolder(const std::string& folder) {
    const std::string here = plain(folder);
    if (here == "/") return here;
    const fs::path path(here);
    // Above "." and "..": one more "..".
    if (path.filename() == "." || path.filename() == "..") return plain(here + "/..");
    const std::string parent = path.parent_path().string();
    return plain(parent.empty() ? "." : parent);
}

}  // namespace fishschool::app
