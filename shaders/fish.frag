#version 450
#include "lighting.glsl"

in vec3 worldNormal;
in vec3 worldPosition;
in vec3 baseColor;
out vec4 outColor;

void main() { outColor = vec4(shadeUnderwater(baseColor, worldNormal, worldPosition), 1.0); }
