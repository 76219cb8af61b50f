#include "ShaderFiles.h"
#include "gpu/GpuErrors.h"

#include <dlfcn.h>

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

std::filesystem::path codeDirectory() {
    Dl_info info{};
    // Never the working directory: a relative path would find whatever shaders lie where the
    // user happens to stand. This one fails to open, and the error names it.
    if (::dladdr(reinterpret_cast<void*>(&codeDirectory), &info) == 0 || !info.dli_fname)
        return "(the folder of the FishSchool library is unknown)";
    std::error_code ec;
    // The executable itself says only its name when it was started through PATH.
    const std::filesystem::path file = std::string(info.dli_fname).find('/') == std::string::npos
                                           ? std::filesystem::read_symlink("/proc/self/exe", ec)
                                           : std::filesystem::path(info.dli_fname);
    const auto absolute = std::filesystem::weakly_canonical(file, ec);
    return (ec ? file : absolute).parent_path();
}

std::filesystem::path runtimeDirectory(const std::string& name, const std::filesystem::path& code) {
    std::error_code ec;
    if (std::filesystem::is_directory(code / name, ec)) return code / name;
    // Installed: PREFIX/share/fishschool/NAME, the code in PREFIX/bin, PREFIX/lib or (a Python
    // module) PREFIX/lib/python3/dist-packages.
    std::filesystem::path prefix = code;
    for (int up = 0; up < 3 && prefix.has_parent_path() && prefix != prefix.parent_path(); ++up) {
        prefix = prefix.parent_path();
        const std::filesystem::path installed = prefix / "share" / "fishschool" / name;
        if (std::filesystem::is_directory(installed, ec)) return installed;
    }
    return code / name;  // missing: the error names where it was looked for
}

std::filesystem::path shaderDirectory() {
    if (const char* env = std::getenv("FISHSCHOOL_SHADER_DIR"); env && *env) return env;
    return runtimeDirectory("shaders");
}

std::filesystem::path assetDirectory() {
    return runtimeDirectory("assets");
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
