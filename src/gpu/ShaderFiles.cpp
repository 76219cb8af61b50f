#include "ShaderFiles.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace fishschool::gpu {
namespace {

Result<std::string> readText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(path.string() + ": cannot open the shader file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Result<std::string> expandIncludes(const std::filesystem::path& path, int depth) {
    if (depth > 8) return fail(path.string() + ": #include nested too deeply");
    auto text = readText(path);
    if (!text) return text;
    std::istringstream lines(*text);
    std::string out, line;
    while (std::getline(lines, line)) {
        const auto start = line.find("#include \"");
        if (start == 0) {
            const auto end = line.find('"', start + 10);
            if (end == std::string::npos)
                return fail(path.string() + ": malformed #include: " + line);
            auto included = expandIncludes(
                path.parent_path() / line.substr(start + 10, end - start - 10), depth + 1);
            if (!included) return included;
            out += *included;
            continue;
        }
        out += line;
        out += '\n';
    }
    return out;
}

}  // namespace

std::filesystem::path executableDirectory() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    // Never the working directory: without /proc a relative path would find whatever shaders
    // lie where the user happens to stand. This one fails to open, and the error names it.
    if (ec) return "/proc/self/exe unreadable: executable folder unknown";
    return exe.parent_path();
}

std::filesystem::path shaderDirectory() {
    if (const char* env = std::getenv("FISHSCHOOL_SHADER_DIR"); env && *env) return env;
    return executableDirectory() / "shaders";
}

std::filesystem::path assetDirectory() {
    return executableDirectory() / "assets";
}

Result<std::string> loadShaderFile(const std::string& name, const std::string& defines) {
    auto text = expandIncludes(shaderDirectory() / name, 0);
    if (!text) return text;
    if (defines.empty()) return text;
    const auto versionEnd = text->find('\n');
    if (text->rfind("#version", 0) != 0 || versionEnd == std::string::npos)
        return fail((shaderDirectory() / name).string() + ": the first line must be #version");
    text->insert(versionEnd + 1, defines);
    return text;
}

}  // namespace fishschool::gpu
