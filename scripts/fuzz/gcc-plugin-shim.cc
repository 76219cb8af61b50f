// A GCC plugin that loads Debian's AFL++ GCC plugin (afl-gcc-pass.so) into a GCC whose Debian
// revision differs from the one the plugin was built with: the plugin refuses any GCC whose
// configure line differs, and Debian's afl++ 4.04c-4 was built with GCC 12.2.0-14 while bookworm
// now ships 12.2.0-14+deb12u1, the same GCC 12.2.0 with the same ABI. The shim hands the plugin
// GCC's version with the configure line the plugin was built for. Used by scripts/fuzz.sh only.
//
// Build: g++ -shared -fPIC -I"$(gcc -print-file-name=plugin)/include" gcc-plugin-shim.cc -ldl

#include <gcc-plugin.h>
#include <plugin-version.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

int plugin_is_GPL_compatible;

namespace {

const char* kRealPlugin = "/usr/lib/afl/afl-gcc-pass.so";

/// The configure line compiled into the real plugin: its one string that starts as GCC's does.
std::string configureLineOf(const char* path, const char* gccLine) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), {}};
    const std::string prefix(gccLine, std::min<std::size_t>(std::strlen(gccLine), 24));
    const std::size_t at = bytes.find(prefix);
    if (at == std::string::npos) return gccLine;
    return std::string(bytes.c_str() + at);
}

}  // namespace

extern "C" int plugin_init(plugin_name_args* info, plugin_gcc_version* version) {
    void* real = dlopen(kRealPlugin, RTLD_NOW | RTLD_GLOBAL);
    if (real == nullptr) {
        std::fprintf(stderr, "gcc-plugin-shim: %s\n", dlerror());
        return 1;
    }
    using Init = int (*)(plugin_name_args*, plugin_gcc_version*);
    auto init = reinterpret_cast<Init>(dlsym(real, "plugin_init"));
    if (init == nullptr) {
        std::fprintf(stderr, "gcc-plugin-shim: no plugin_init in %s\n", kRealPlugin);
        return 1;
    }
    static std::string line;
    line = configureLineOf(kRealPlugin, version->configuration_arguments);
    static plugin_gcc_version patched;
    patched = *version;
    patched.configuration_arguments = line.c_str();
    return init(info, &patched);
}
