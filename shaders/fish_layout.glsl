// The data shared with C++: src/gpu/GpuLayout.h defines the same layout and checks it.

struct Fish {
    vec3 position;
    uint id;
    vec3 velocity;
    float padding0;
    vec3 acceleration;
    float padding1;
};

layout(std140, binding = 0) uniform StepParams {
    vec4 radiiSquared;  // cohesion, separation, alignment; w: cos(viewAngle / 2)
    vec4 weights;       // kCohesion, kSeparation, kAlignment; w: 1 when seeing all around
    vec4 limits;        // maxAcceleration, maxVelocity, dt, lockVerticalSteering
    vec4 bounds;        // xyz half extents
    vec4 gridOrigin;    // xyz origin, w cell size
    uvec4 gridDims;     // xyz cells, w reach
    uvec4 counts;       // fish, rocks, first fish read, first fish written
} params;

layout(std430, binding = 1) buffer FishBuffer { Fish fish[]; };
layout(std430, binding = 2) readonly buffer RockBuffer { vec4 rocks[]; };  // xyz centre, w radius
