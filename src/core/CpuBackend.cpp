#include "CpuBackends.h"
#include "CpuSolver.h"

namespace fishschool {
namespace {

/// docs/model.md's step ("One step") on the calling thread.
class CpuBackend final : public CpuSolverBackend {
  public:
    CpuBackend()
        : CpuSolverBackend([](std::size_t count, std::size_t,
                              const std::function<void(std::size_t, std::size_t)>& body) {
              if (count > 0) body(0, count);
          }) {}

    BackendKind kind() const override { return BackendKind::Cpu; }
    std::string description() const override { return "cpu, 1 thread"; }
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend() {
    return std::make_unique<CpuBackend>();
}

}  // namespace fishschool
