#include "TextInput.h"

#include <unistd.h>

#include <charconv>
#include <filesystem>

#include "SimParams.h"

namespace fishschool {

Result<std::vector<std::string>> splitList(std::string_view what, std::string_view text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = text.find(',', start);
        const std::string_view item =
            text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
        if (item.empty())
            return fail(std::string(what) + ": '" + std::string(text) +
                        "' has an empty item; give comma-separated values");
        items.emplace_back(item);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return items;
}

Result<std::int64_t> parseFishCount(std::string_view what, std::string_view text,
                                    std::int64_t min) {
    std::int64_t n = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n < min ||
        n > kMaxFishCount)
        return fail(std::string(what) + ": '" + std::string(text) +
                    "' is not allowed; fishCount must be a whole number from " +
                    std::to_string(min) + " to " + std::to_string(kMaxFishCount));
    return n;
}

Result<std::vector<std::int64_t>> parseFishCounts(std::string_view what, std::string_view text,
                                                  std::int64_t min) {
    return parseList(what, text,
                     [&](std::string_view item) { return parseFishCount(what, item, min); });
}

Result<NeighborSearch> parseNeighborSearchFlag(std::string_view flag, std::string_view text) {
    if (const auto search = parseNeighborSearch(text)) return *search;
    return fail(std::string(flag) + ": '" + std::string(text) +
                "' is not allowed; must be all-pairs or grid");
}

Result<std::vector<NeighborSearch>> parseNeighborSearchList(std::string_view flag,
                                                            std::string_view text) {
    return parseList(flag, text,
                     [&](std::string_view item) { return parseNeighborSearchFlag(flag, item); });
}

Result<void> checkOutputPath(std::string_view what, const std::string& path) {
    namespace fs = std::filesystem;
    const std::string where = std::string(what) + ": '" + path + "': ";
    if (path.empty()) return fail(std::string(what) + ": an empty file name is not allowed");
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

}  // namespace fishschool
