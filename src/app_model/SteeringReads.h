#pragma once

// Which controls the running steering reads: the panel shows those as they are and dims the
// others, so that a slider the step ignores does not look live.

#include <string>

#include "core/ParamTable.h"
#include "fishschool/SimParams.h"

namespace fishschool::app {

/// Whether the step of `params.steering` reads the key of `info` (ParamInfo::steerings).
bool steeringReads(const SimParams& params, const ParamInfo& info);
/// The same for a key by its name; true for a name the table does not hold.
bool steeringReads(const SimParams& params, std::string_view key);

/// What a dimmed control's tooltip adds: "Steering vicsek does not read it."
std::string unreadNote(const SimParams& params);

}  // namespace fishschool::app
