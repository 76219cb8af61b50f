// Underwater lighting shared by the fish and the scene: sun from above, soft ambient, and fog
// that fades to the water colour with distance.
uniform vec3 cameraPosition;
uniform vec3 fogColor;
uniform float fogDensity;

vec3 shadeUnderwater(vec3 color, vec3 normal, vec3 position) {
    vec3 n = normalize(normal);
    vec3 toSun = normalize(vec3(0.3, 1.0, 0.2));
    float diffuse = abs(dot(n, toSun));  // two-sided: fins are thin
    float skyLight = 0.5 + 0.5 * n.y;
    vec3 lit = color * (0.25 + 0.55 * diffuse + 0.25 * skyLight);
    float distance = length(position - cameraPosition);
    float fog = 1.0 - exp(-fogDensity * distance);
    return mix(lit, fogColor, clamp(fog, 0.0, 0.85));
}
