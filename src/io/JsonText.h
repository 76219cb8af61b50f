#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "fishschool/Result.h"

namespace fishschool {

/// Parses the JSON text of a file a user gives, as a config is read (ConfigIO.cpp): a NUL byte,
/// nesting deeper than 16, a key given twice in one object and a number below the double range
/// are refused, and every error names `source` and the key. Keys stay in the file's order.
[[nodiscard]] Result<nlohmann::ordered_json> parseJsonText(std::string_view text,
                                                           std::string_view source);

}  // namespace fishschool
