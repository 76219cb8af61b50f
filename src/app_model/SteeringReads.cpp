#include "SteeringReads.h"

namespace fishschool::app {

bool steeringReads(const SimParams& params, const ParamInfo& info) {
    return (info.steerings & steeringBit(params.steering)) != 0;
}

bool steeringReads(const SimParams& params, std::string_view key) {
    const ParamInfo* info = findParam(key);
    return info == nullptr || steeringReads(params, *info);
}

std::string unreadNote(const SimParams& params) {
    return std::string("Steering ") + kSteeringNames[static_cast<int>(params.steering)] +
           " does not read it.";
}

}  // namespace fishschool::app
