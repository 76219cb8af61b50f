#pragma once

#include <string>
#include <utility>

#include "fishschool/Result.h"

namespace fishschool::gpu {

/// A failure of the GL backend: the device's, not the input's (ErrorKind::Internal, Python's
/// RuntimeError). Every error the gpu code makes is one, this name hiding fishschool::fail.
inline std::unexpected<Error> fail(std::string message) {
    return fishschool::fail(std::move(message), ErrorKind::Internal);
}
// An Error passed on keeps its kind: fishschool::fail(Error), found by its argument.

}  // namespace fishschool::gpu
