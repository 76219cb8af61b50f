#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/Backend.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// One kind of backend: its names, how to make one, and whether this build and machine can.
struct BackendEntry {
    BackendKind kind;
    std::string_view name;   ///< "cpu": flags, config, CSV files
    std::string_view label;  ///< "CPU single": the panel
    bool onGpu = false;      ///< runs on the GPU (the app allows it bigger all-pairs schools)
    bool built = true;       ///< compiled into this build (false: the gpu one without GL)
    /// The same school and parameters step to the same bits on every run (the gpu's grid sorts
    /// with atomics, so its sums come in any order).
    bool reproducible = true;
    /// Whether one can run here (a GL 4.3 context for the gpu one); the error says why not.
    Result<void> (*available)() = nullptr;
    /// A backend with `params` already set (setParams is called once, by the backend's own
    /// creation), or why this build or machine cannot run it.
    Result<std::unique_ptr<Backend>> (*create)(const SimParams& params) = nullptr;
};

/// Every kind of backend, in the order the app's keys 1, 2, 3... and the panel show them.
std::span<const BackendEntry> backendRegistry();
const BackendEntry& backendEntry(BackendKind kind);
/// The position of `kind` in backendRegistry().
std::size_t backendIndex(BackendKind kind);

/// "cpu", "tbb", "gpu": the names used by the CLI, the CSV files and the config.
std::string_view toString(BackendKind kind);
std::optional<BackendKind> parseBackendKind(std::string_view text);

/// "cpu, tbb or gpu": for help texts and errors.
std::string backendNameList();

/// A backend of `kind` with `params` set, or why it cannot run here (e.g. "GL 4.3 compute not
/// available: ..."). The gpu backend uses the GL context current on this thread (the app's
/// window); where none is, it makes a headless one, kept for the life of the process.
[[nodiscard]] Result<std::unique_ptr<Backend>> createBackend(BackendKind kind,
                                                             const SimParams& params);

/// One backend named by a flag, e.g. "--backend: 'cuda' is not allowed; must be cpu, tbb or gpu".
[[nodiscard]] Result<BackendKind> parseBackendFlag(std::string_view flag, std::string_view text);
/// A comma-separated list of backends named by a flag.
[[nodiscard]] Result<std::vector<BackendKind>> parseBackendList(std::string_view flag,
                                                                std::string_view text);

/// The environment variable that lowers the GPU's storage buffer limit (docs/robustness.md).
inline constexpr const char* kGpuMaxBufferBytesVariable = "FISHSCHOOL_GPU_MAX_BUFFER_BYTES";
/// Its value: unset, or a whole number of bytes from 1 to 2^63 - 1 in plain digits. Checked by
/// both programs before they run (exit status 2), and read by the GPU backend.
[[nodiscard]] Result<std::optional<std::int64_t>> gpuMaxBufferBytes();

/// Whether GL_RENDERER `renderer` (the gpu backend's description()) names a GL that draws on the
/// CPU (Mesa's llvmpipe and softpipe, SwiftShader, Microsoft's GDI renderer...): the app draws
/// lighter there, and the CLI's bench says its gpu figures are the CPU's.
bool isSoftwareRenderer(std::string_view renderer);

}  // namespace fishschool
