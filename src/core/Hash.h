#pragma once

#include <cstdint>

namespace fishschool::glsl {
/// shaders/hash.h as C++: a struct, so its function is inline as the shaders' text is in C++.
/// GridShape.h's OpenWaterBuckets and StepRule.h's StepRule derive from it; the guard of hash.h
/// then skips the includes of it inside them.
struct Hash {
    using uint = std::uint32_t;
#include "hash.h"
};
}  // namespace fishschool::glsl
