// The data shared with C++: the step's parameters (step_params.h), the fish and binding points
// (gpu_layout.h), and the blocks that hold them under the names step_rule.h reads.

#include "step_params.h"
#include "gpu_layout.h"

layout(std140, binding = 0) uniform StepParams { StepParamsData params; };

layout(std430, binding = 1) buffer FishBuffer { Fish fish[]; };
layout(std430, binding = 2) readonly buffer RockBuffer { vec4 rocks[]; };  // xyz centre, w radius
layout(std430, binding = 9) readonly buffer FlowField { vec4 flow[]; };    // a direction per node
// Position and velocity of each leader and predator, by upload index (gather_specials.comp).
layout(std430, binding = 10) buffer Specials { vec4 specials[]; };
