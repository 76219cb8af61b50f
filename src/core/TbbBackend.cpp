#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>

#include "CpuBackends.h"
#include "CpuSolver.h"

namespace fishschool {
namespace {

/// docs/model.md's step with tbb::parallel_for over fish. Every fish's result depends only on the
/// previous state, so the split across threads cannot change it.
class TbbBackend final : public CpuSolverBackend {
  public:
    TbbBackend()
        : CpuSolverBackend([](std::size_t count, std::size_t grain,
                              const std::function<void(std::size_t, std::size_t)>& body) {
              tbb::parallel_for(
                  tbb::blocked_range<std::size_t>(0, count, grain),
                  [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); });
          }) {}

    BackendKind kind() const override { return BackendKind::Tbb; }
    std::string description() const override {
        return "tbb, " + std::to_string(tbb::info::default_concurrency()) + " threads";
    }
};

}  // namespace

std::unique_ptr<Backend> makeTbbBackend() {
    return std::make_unique<TbbBackend>();
}

}  // namespace fishschool
