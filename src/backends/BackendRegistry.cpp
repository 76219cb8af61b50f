#include "BackendRegistry.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <string>

#include "GpuBackendEntry.h"
#include "core/CpuBackends.h"
#include "io/TextInput.h"

namespace fishschool {
namespace {

Result<void> alwaysAvailable() {
    return {};
}

/// A CPU backend made by `make`, with `params` set once.
template <std::unique_ptr<Backend> (*make)()>
Result<std::unique_ptr<Backend>> createOnCpu(const SimParams& params) {
    std::unique_ptr<Backend> backend = make();
    if (auto ok = backend->setParams(params); !ok) return fail(ok.error());
    return backend;
}

std::vector<BackendEntry> makeRegistry() {
    return {
        {.kind = BackendKind::Cpu,
         .name = "cpu",
         .label = "CPU single",
         .available = alwaysAvailable,
         .create = createOnCpu<makeCpuBackend>},
        {.kind = BackendKind::Tbb,
         .name = "tbb",
         .label = "CPU TBB",
         .available = alwaysAvailable,
         .create = createOnCpu<makeTbbBackend>},
        {.kind = BackendKind::Gpu,
         .name = "gpu",
         .label = "GPU compute",
         .onGpu = true,
         .built = gpuBackendBuilt(),
         .reproducible = false,
         .available = gpuBackendAvailable,
         .create = makeGpuBackend},
    };
}

}  // namespace

std::span<const BackendEntry> backendRegistry() {
    static const std::vector<BackendEntry> registry = makeRegistry();
    return registry;
}

std::size_t backendIndex(BackendKind kind) {
    const auto all = backendRegistry();
    const auto found = std::find_if(all.begin(), all.end(),
                                    [kind](const BackendEntry& e) { return e.kind == kind; });
    return static_cast<std::size_t>(found - all.begin());
}

const BackendEntry& backendEntry(BackendKind kind) {
    // Every BackendKind has an entry (a test holds this).
    return backendRegistry()[backendIndex(kind)];
}

std::string_view toString(BackendKind kind) {
    return backendEntry(kind).name;
}

std::optional<BackendKind> parseBackendKind(std::string_view text) {
    for (const BackendEntry& entry : backendRegistry())
        if (entry.name == text) return entry.kind;
    return std::nullopt;
}

std::string backendNameList() {
    std::string list;
    const auto all = backendRegistry();
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (i > 0) list += i + 1 == all.size() ? " or " : ", ";
        list += all[i].name;
    }
    return list;
}

Result<std::unique_ptr<Backend>> createBackend(BackendKind kind, const SimParams& params) {
    return backendEntry(kind).create(params);
}

Result<BackendKind> parseBackendFlag(std::string_view flag, std::string_view text) {
    if (const auto kind = parseBackendKind(text)) return *kind;
    return fail(std::string(flag) + ": " + quote(text) + " is not allowed; must be " +
                backendNameList());
}

Result<std::vector<BackendKind>> parseBackendList(std::string_view flag, std::string_view text) {
    return parseList(flag, text,
                     [&](std::string_view item) { return parseBackendFlag(flag, item); });
}

Result<std::optional<std::int64_t>> gpuMaxBufferBytes() {
    const char* value = std::getenv(kGpuMaxBufferBytesVariable);
    if (value == nullptr) return std::nullopt;
    auto bytes = parseWholeNumber(kGpuMaxBufferBytesVariable, value, 1,
                                  std::numeric_limits<std::int64_t>::max());
    if (!bytes) return fail(bytes.error() + " (bytes)");
    return *bytes;
}

bool isSoftwareRenderer(std::string_view renderer) {
    std::string lower(renderer);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const char* software : {"llvmpipe", "softpipe", "swiftshader", "swrast", "lavapipe",
                                 "software rasterizer", "gdi generic"})
        if (lower.find(software) != std::string::npos) return true;
    return false;
}

}  // namespace fishschool
