#pragma once

#include <memory>

#include "Backend.h"

namespace fishschool {

/// docs/model.md's step ("One step") on one thread.
std::unique_ptr<Backend> makeCpuBackend();
/// docs/model.md's step with tbb::parallel_for over fish; bit-identical to the cpu backend.
std::unique_ptr<Backend> makeTbbBackend();

}  // namespace fishschool
