#pragma once

#include <memory>
#include <string>

#include "core/Backend.h"
#include "core/Result.h"

namespace fishschool::cli {

/// Makes backends for the command line. The gpu backend gets a headless GL context, made on first
/// use and kept for the life of this object.
class CliBackends {
  public:
    CliBackends();
    ~CliBackends();

    Result<std::unique_ptr<Backend>> create(BackendKind kind, const SimParams& params);

  private:
    struct GpuSession;
    std::unique_ptr<GpuSession> gpu_;
};

/// Exit status for bad input (flags, config, state): 2. For an internal failure: 1.
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 1;

}  // namespace fishschool::cli
