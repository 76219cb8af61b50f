#version 450
#include "lighting.glsl"

uniform vec3 color;
uniform bool unlit;
uniform bool sandPattern;
uniform float opacity;  // 1 for solid geometry, low for the glass walls

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
    float alpha = opacity;
    if (opacity < 1.0) {
        // Glass seen edge-on reflects more.
        vec3 toEye = normalize(cameraPosition - worldPosition);
        alpha *= 1.0 + 3.0 * pow(1.0 - abs(dot(normalize(worldNormal), toEye)), 3.0);
    }
    outColor = vec4(unlit ? c : shadeUnderwater(c, worldNormal, worldPosition), alpha);
}
