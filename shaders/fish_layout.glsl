// The data shared with C++: the structs and binding points of gpu_layout.h, and the blocks that
// hold them.

#include "gpu_layout.h"

layout(std140, binding = 0) uniform StepParams { StepParamsData params; };

layout(std430, binding = 1) buffer FishBuffer { Fish fish[]; };
layout(std430, binding = 2) readonly buffer RockBuffer { vec4 rocks[]; };  // xyz centre, w radius
