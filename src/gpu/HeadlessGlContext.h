#pragma once

#include <memory>
#include <string>

#include "fishschool/Result.h"

namespace fishschool::gpu {

/// An OpenGL 4.5 (or 4.3) core context with no window, made current on the calling thread: the
/// EGL device platform where a GPU driver offers one, else Mesa's surfaceless platform, else the
/// default display. For the CLI, the tests and the benchmarks.
class HeadlessGlContext {
  public:
    [[nodiscard]] static Result<std::unique_ptr<HeadlessGlContext>> create();
    ~HeadlessGlContext();
    HeadlessGlContext(const HeadlessGlContext&) = delete;
    HeadlessGlContext& operator=(const HeadlessGlContext&) = delete;

    /// Makes this context current on the calling thread again (after another one was).
    [[nodiscard]] Result<void> makeCurrent();

    /// GL_RENDERER and GL_VERSION, e.g. "llvmpipe (LLVM 15.0.6, 256 bits), 4.5 (Core Profile)
    /// Mesa 22.3.6".
    std::string renderer() const;

  private:
    HeadlessGlContext() = default;
    void* display_ = nullptr;
    void* context_ = nullptr;
};

}  // namespace fishschool::gpu
