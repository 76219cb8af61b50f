#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "Fish.h"
#include "Result.h"
#include "SimParams.h"

namespace fishschool {

enum class BackendKind { Cpu, Tbb, Gpu };

/// "cpu", "tbb", "gpu": the names used by the CLI, the CSV files and the config.
std::string_view toString(BackendKind kind);
std::optional<BackendKind> parseBackendKind(std::string_view text);

/// One way of running SPEC.md's step over a school. A backend owns its copy of the state in its
/// own layout; upload and download move the school in and out, so the app can hand a school
/// from one backend to another without losing a fish.
class Backend {
  public:
    virtual ~Backend() = default;

    virtual BackendKind kind() const = 0;
    /// What it runs on, for the overlay and the bench table ("tbb, 2 threads", the GL renderer).
    virtual std::string description() const = 0;

    /// Takes parameters that passed validate(). The fish count is that of the uploaded school,
    /// not params.fishCount.
    virtual void setParams(const SimParams& params) = 0;
    /// Replaces the school. Fails (and keeps the old school) when the backend cannot hold it.
    virtual Result<void> upload(std::span<const Fish> school) = 0;
    /// The school in the order it was uploaded.
    virtual School download() = 0;
    virtual std::size_t fishCount() const = 0;

    /// Advances the school by one step of params.dt.
    virtual void step() = 0;
    /// Waits until the work already issued has finished (GPU); for timing.
    virtual void finish() {}
};

}  // namespace fishschool
