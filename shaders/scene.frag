#version 450
#include "lighting.glsl"

uniform vec3 color;
uniform bool unlit;
uniform bool sandPattern;

in vec3 worldNormal;
in vec3 worldPosition;
out vec4 outColor;

void main() {
    vec3 c = color;
    if (sandPattern) {
        // Soft ripples of light on the sand.
        float ripple = sin(worldPosition.x * 0.35 + sin(worldPosition.z * 0.2) * 2.0) *
                       sin(worldPosition.z * 0.3 + sin(worldPosition.x * 0.15) * 2.0);
        c *= 0.9 + 0.12 * ripple;
    }
    outColor = vec4(unlit ? c : shadeUnderwater(c, worldNormal, worldPosition), 1.0);
}
