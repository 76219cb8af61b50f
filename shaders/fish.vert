#version 450
// The fish of one level of detail, the entries of the level's list that the cull pass
// (fish_cull.comp) wrote: one mesh instance per fish, or, for the one-triangle level, without
// instancing (a software rasteriser pays for every instance): vertex k is vertex
// k % meshVertexCount of the mesh on the fish of entry k / meshVertexCount. The fish itself is
// read straight from the storage buffer of fish (the gpu backend's own simulation buffer, or the
// copy the CPU backends upload each frame).
#include "fish_layout.glsl"
#include "fish_draw.glsl"

uniform mat4 viewProjection;
uniform uint listStart;        // where this level's list begins in drawList
uniform uint meshFirstVertex;  // where this level's mesh begins in meshVertices
uniform uint meshVertexCount;
uniform bool pulled;           // this level's vertices are pulled from meshVertices

layout(location = 0) in vec3 instancedPosition;  // the mesh of an instanced level
layout(location = 1) in vec3 instancedNormal;
uniform float time;        // s, wall clock
uniform float maxVelocity;  // the fastest fish's limit, the top of the speed colours
uniform int colorMode;     // 0 by speed, 1 by heading, 2 by species
uniform vec3 speciesColor[16];  // each species' colour (colorMode 2)
uniform bool faceCamera;   // turn the mesh's y-z plane to the camera (the one-triangle level)
uniform vec3 cameraPosition;

out vec3 worldNormal;
out vec3 worldPosition;
out vec3 baseColor;

vec3 hsv(float h, float s, float v) {
    vec3 k = clamp(abs(mod(h * 6.0 + vec3(0.0, 4.0, 2.0), 6.0) - 3.0) - 1.0, 0.0, 1.0);
    return v * mix(vec3(1.0), k, s);
}

void main() {
    uint entry = uint(gl_InstanceID);
    vec3 meshPosition = instancedPosition;  // 1 m fish along +z, head at +z
    vec3 meshNormal = instancedNormal;
    if (pulled) {
        entry = uint(gl_VertexID) / meshVertexCount;
        MeshVertex vertex = meshVertices[meshFirstVertex + uint(gl_VertexID) % meshVertexCount];
        meshPosition = vertex.position.xyz;
        meshNormal = vertex.normal.xyz;
    }
    Fish f = fish[drawList[listStart + entry]];
    float speed = length(f.velocity);
    vec3 forward = speed > 1e-6 ? f.velocity / speed : vec3(0.0, 0.0, 1.0);
    vec3 side = cross(vec3(0.0, 1.0, 0.0), forward);
    side = length(side) > 1e-4 ? normalize(side) : vec3(1.0, 0.0, 0.0);
    vec3 up = cross(forward, side);
    mat3 basis = mat3(side, up, forward);
    if (faceCamera) {
        // Across the fish, in the screen's plane: the triangle shows the fish's length from any
        // side, foreshortened only when it swims toward the camera or away.
        vec3 across = cross(forward, cameraPosition - f.position);
        float acrossLength = length(across);
        if (acrossLength > 1e-6) basis[1] = across / acrossLength;
    }

    // The tail sways more toward its end and wider when the fish swims faster. Each fish beats at
    // its own fixed rate: a rate that followed the speed would jump the phase (time * rate) at
    // every change of speed, and the tails would flicker once time grows large.
    float speedRatio = clamp(speed / max(maxVelocity, 1e-6), 0.0, 1.0);
    float tail = clamp(-meshPosition.z * 2.0, 0.0, 1.0);
    uint id = f.id;  // the fish's own, however the simulation reorders the buffer
    float phase = float(id % 97u) * 0.61;
    float rate = 7.0 + 4.0 * fract(float(id % 89u) * 0.137);  // rad/s
    float sway = 0.03 + 0.11 * speedRatio;
    vec3 local = meshPosition;
    local.x += tail * tail * sway * sin(time * rate + phase);

    float size = drawnLength(f);
    worldPosition = f.position + basis * (local * size);
    // Lit as the upright fish would be, whichever way the triangle was turned.
    worldNormal = faceCamera ? up : basis * meshNormal;
    gl_Position = viewProjection * vec4(worldPosition, 1.0);

    if (colorMode == 0) {
        // A school swims near its top speed: the cube spreads the top of the range over most of
        // the colours (half the top speed is already deep blue), so slowing fish stand out. The
        // panel's legend draws the same map (Panel.cpp, speedColor).
        float t = speedRatio * speedRatio * speedRatio;
        baseColor = t < 0.5 ? mix(vec3(0.15, 0.25, 0.85), vec3(0.2, 0.85, 0.75), t * 2.0)
                            : mix(vec3(0.2, 0.85, 0.75), vec3(1.0, 0.55, 0.15), t * 2.0 - 1.0);
    } else if (colorMode == 1) {
        baseColor = hsv(atan(forward.z, forward.x) / 6.2831853 + 0.5, 0.65, 0.95);
    } else {
        baseColor = speciesColor[min(f.species, max(speciesCount, 1u) - 1u)];
    }
    // Hues the speed colours never take: the orange of a fast fish would hide a red predator.
    if (id < leaderCount) baseColor = vec3(1.0, 0.92, 0.2);
    else if (id < specialCount) baseColor = vec3(0.95, 0.1, 0.85);
    // A lighter belly.
    baseColor = mix(baseColor, vec3(0.9), clamp(-meshPosition.y * 4.0, 0.0, 0.6));
}
