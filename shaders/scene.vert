#version 450
// Static geometry: the floor, the rocks (a unit sphere scaled and moved), the tank's edges.
layout(location = 0) in vec3 meshPosition;
layout(location = 1) in vec3 meshNormal;

uniform mat4 viewProjection;
uniform mat4 model;

out vec3 worldNormal;
out vec3 worldPosition;

void main() {
    worldPosition = (model * vec4(meshPosition, 1.0)).xyz;
    worldNormal = mat3(model) * meshNormal;
    gl_Position = viewProjection * vec4(worldPosition, 1.0);
}
