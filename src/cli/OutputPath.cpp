#include "OutputPath.h"

#include <unistd.h>

#include <filesystem>

namespace fishschool::cli {

Result<void> checkOutputPath(std::string_view flag, const std::string& path) {
    namespace fs = std::filesystem;
    const std::string where = std::string(flag) + ": '" + path + "': ";
    std::error_code ec;
    if (fs::is_directory(path, ec)) return fail(where + "is a folder; give a file name");
    fs::path folder = fs::path(path).parent_path();
    if (folder.empty()) folder = ".";
    if (!fs::is_directory(folder, ec))
        return fail(where + "the folder '" + folder.string() + "' does not exist");
    if (::access(folder.c_str(), W_OK) != 0)
        return fail(where + "the folder '" + folder.string() + "' is not writable");
    return {};
}

}  // namespace fishschool::cli
