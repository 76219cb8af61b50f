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

Result<std::vector<std::int64_t>> parseFishCounts(std::string_view what, std::string_view text,
                                                  std::int64_t min) {
    auto items = splitList(what, text);
    if (!items) return fail(items.error());
    std::vector<std::int64_t> counts;
    for (const std::string& item : *items) {
        std::int64_t n = -1;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
        if (ec != std::errc() || end != item.data() + item.size() || n < min || n > kMaxFishCount)
            return fail(std::string(what) + ": '" + item +
                        "' is not allowed; must be whole numbers from " + std::to_string(min) +
                        " to " + std::to_string(kMaxFishCount) + ", comma-separated");
        counts.push_back(n);
    }
    return counts;
}

Result<NeighborSearch> parseNeighborSearchFlag(std::string_view flag, std::string_view text) {
    if (const auto search = parseNeighborSearch(text)) return *search;
    return fail(std::string(flag) + ": '" + std::string(text) +
                "' is not allowed; must be all-pairs or grid");
}

Result<std::vector<NeighborSearch>> parseNeighborSearchList(std::string_view flag,
                                                            std::string_view text) {
    auto names = splitList(flag, text);
    if (!names) return fail(names.error());
    std::vector<NeighborSearch> searches;
    for (const std::string& name : *names) {
        auto search = parseNeighborSearchFlag(flag, name);
        if (!search) return fail(search.error());
        searches.push_back(*search);
    }
    return searches;
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
