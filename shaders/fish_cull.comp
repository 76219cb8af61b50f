#version 450
// Sorts the school for drawing, on the GPU, so nothing is read back: a fish outside the view
// frustum is dropped; the others go to a level of detail by their length on screen (the full
// mesh near the camera, a low-poly one further away, two darts for a fish of a few pixels).
// Each level's draw command (indirect) counts its fish: as instances of its mesh, or, for the
// one-triangle level, as three more vertices (fish.vert pulls them: a software rasteriser pays
// for every instance).
layout(local_size_x = WORKGROUP_SIZE) in;

#include "fish_layout.glsl"
#include "fish_draw.glsl"

struct DrawCommand {
    uint vertexCount;
    uint instanceCount;
    uint firstVertex;
    uint baseInstance;
};
layout(std430, binding = 11) buffer DrawCommands { DrawCommand commands[3]; };

uniform uint firstFish;      // the current half of the fish buffer
uniform uint fishCount;
uniform uint listCapacity;   // fish per level's list
uniform vec4 frustum[6];     // planes, normalized, inside where dot(xyz, p) + w >= 0
uniform vec3 eye;
uniform vec3 viewForward;    // unit
uniform float focalPixels;   // a 1 m object 1 m ahead is this many pixels long
uniform vec2 levelPixels;    // at least x pixels long: full mesh; at least y: low-poly
uniform uint meshVertexCounts[3];
uniform uint pulledLevel;    // the level drawn as vertices rather than instances

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= fishCount) return;
    Fish f = fish[firstFish + i];
    float length = drawnLength(f);
    // Every mesh lies within 0.6 lengths of the fish's position, sway included.
    float radius = 0.6 * length;
    for (int k = 0; k < 6; ++k)
        if (dot(frustum[k].xyz, f.position) + frustum[k].w < -radius) return;
    float depth = max(dot(f.position - eye, viewForward), 1e-3);
    float pixels = length * focalPixels / depth;
    uint level = pixels >= levelPixels.x ? 0u : (pixels >= levelPixels.y ? 1u : 2u);
    uint slot = level == pulledLevel
                    ? atomicAdd(commands[level].vertexCount, meshVertexCounts[level]) /
                          meshVertexCounts[level]
                    : atomicAdd(commands[level].instanceCount, 1u);
    drawList[level * listCapacity + slot] = firstFish + i;
}
