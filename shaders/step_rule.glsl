// SPEC.md's step for one fish: the GLSL twin of src/core/StepRule.h, line for line.

struct NeighborSums {
    vec3 cohesion;
    vec3 separation;
    vec3 alignment;
    uint cohesionCount;
    uint separationCount;
    uint alignmentCount;
};

NeighborSums emptySums() {
    return NeighborSums(vec3(0.0), vec3(0.0), vec3(0.0), 0u, 0u, 0u);
}

// Whether a fish with unit `heading` sees a neighbour at offset d (|d|^2 = d2): inside the cone
// of half-angle acos(viewCos), compared without a square root. A fish standing still sees all.
bool inView(vec3 heading, vec3 d, float d2) {
    if (params.weights.w != 0.0 || heading == vec3(0.0)) return true;
    float viewCos = params.radiiSquared.w;
    float along = dot(heading, d);
    float bound = viewCos * viewCos * d2;
    return viewCos >= 0.0 ? (along >= 0.0 && along * along >= bound)
                          : (along >= 0.0 || along * along <= bound);
}

void accumulateNeighbor(vec3 pi, vec3 heading, vec3 pj, vec3 vj, inout NeighborSums s) {
    vec3 d = pj - pi;
    float d2 = dot(d, d);
    if (!inView(heading, d, d2)) return;
    if (d2 < params.radiiSquared.x) {
        s.cohesion += pj;
        s.cohesionCount++;
    }
    if (d2 < params.radiiSquared.y) {
        s.separation += d;
        s.separationCount++;
    }
    if (d2 < params.radiiSquared.z) {
        s.alignment += vj;
        s.alignmentCount++;
    }
}

vec3 normalizeOrZero(vec3 x) {
    float len = length(x);
    return len < 1e-12 ? vec3(0.0) : x / len;
}

vec3 clampLength(vec3 x, float m) {
    float len = length(x);
    return len <= m ? x : x * (m / len);
}

bool segmentEntersSphere(vec3 a, vec3 b, vec3 center, float radius) {
    vec3 ab = b - a;
    float lengthSquared = dot(ab, ab);
    vec3 fromCenter = a - center;
    float reach = (radius + sqrt(lengthSquared)) * 1.001;
    if (dot(fromCenter, fromCenter) > reach * reach) return false;
    float t = 0.0;
    if (lengthSquared > 0.0) t = clamp(dot(center - a, ab) / lengthSquared, 0.0, 1.0);
    vec3 offset = a + t * ab - center;
    return dot(offset, offset) < radius * radius;
}

// StepRule.h's rockAvoidance: away from each rock closer than avoidanceDistance, weighted from
// 1 at its surface to 0 at that distance, the sum shortened to length 1.
vec3 rockAvoidance(vec3 p) {
    vec3 away = vec3(0.0);
    float reach = params.avoidance.y;
    for (uint r = 0u; r < params.counts.y; ++r) {
        vec3 offset = p - rocks[r].xyz;
        float distance = length(offset);
        float gap = distance - rocks[r].w;
        if (gap < reach && distance > 0.0) away += offset / distance * min(1.0 - gap / reach, 1.0);
    }
    return clampLength(away, 1.0);
}

layout(std430, binding = 9) readonly buffer FlowField { vec4 flow[]; };  // kFlowBinding

vec3 flowNode(ivec3 n) {
    uvec3 dims = params.flowDims.xyz;
    return flow[uint(n.x) + dims.x * (uint(n.y) + dims.y * uint(n.z))].xyz;
}

// FlowField::sample: the 8 nodes around p blended, the same operations in the same order.
vec3 sampleFlow(vec3 p) {
    vec3 highest = vec3(params.flowDims.xyz) - 1.0;
    vec3 f = clamp((p - params.flowOrigin.xyz) / params.flowOrigin.w, vec3(0.0), highest);
    vec3 low = min(floor(f), highest - 1.0);
    vec3 t = f - low;
    ivec3 i = ivec3(low);
    vec3 x00 = mix(flowNode(i), flowNode(i + ivec3(1, 0, 0)), t.x);
    vec3 x10 = mix(flowNode(i + ivec3(0, 1, 0)), flowNode(i + ivec3(1, 1, 0)), t.x);
    vec3 x01 = mix(flowNode(i + ivec3(0, 0, 1)), flowNode(i + ivec3(1, 0, 1)), t.x);
    vec3 x11 = mix(flowNode(i + ivec3(0, 1, 1)), flowNode(i + ivec3(1, 1, 1)), t.x);
    return mix(mix(x00, x10, t.y), mix(x01, x11, t.y), t.z);
}

Fish integrateFish(Fish f, NeighborSums s) {
    vec3 p = f.position;
    vec3 v = f.velocity;
    vec3 cohesion = vec3(0.0), separation = vec3(0.0), alignment = vec3(0.0);
    if (s.cohesionCount > 0u) cohesion = normalizeOrZero(s.cohesion / float(s.cohesionCount) - p);
    if (s.separationCount > 0u) separation = normalizeOrZero(-s.separation / float(s.separationCount));
    if (s.alignmentCount > 0u) alignment = normalizeOrZero(s.alignment / float(s.alignmentCount));

    vec3 steer = params.weights.x * cohesion + params.weights.y * separation +
                 params.weights.z * alignment;
    if (params.target.w != 0.0) {
        vec3 toward = params.flowOrigin.w > 0.0 ? sampleFlow(p) : params.target.xyz - p;
        steer += params.target.w * normalizeOrZero(toward);
    }
    if (params.avoidance.x != 0.0 && params.avoidance.y > 0.0)
        steer += params.avoidance.x * rockAvoidance(p);
    vec3 a = clampLength(steer, params.limits.x);
    if (params.limits.w != 0.0) a.y = 0.0;

    float dt = params.limits.z;
    vec3 vNext = clampLength(v + a * dt, params.limits.y);
    vec3 pNext = p + vNext * dt;

    for (uint r = 0u; r < params.counts.y; ++r) {
        if (segmentEntersSphere(p, pNext, rocks[r].xyz, rocks[r].w)) {
            pNext = p - vNext * dt;
            vNext = -vNext;
            break;
        }
    }

    for (int k = 0; k < 3; ++k) {
        float b = params.bounds[k];
        if (pNext[k] > b) {
            pNext[k] = 2.0 * b - pNext[k];
            vNext[k] = -abs(vNext[k]);
        } else if (pNext[k] < -b) {
            pNext[k] = -2.0 * b - pNext[k];
            vNext[k] = abs(vNext[k]);
        }
    }
    return Fish(pNext, f.id, vNext, 0.0, a, 0.0);
}

// The grid cell of a position, clamped to the grid (fish outside it fall in the border cells).
uvec3 cellOf(vec3 p) {
    vec3 f = (p - params.gridOrigin.xyz) / params.gridOrigin.w;
    vec3 highest = vec3(params.gridDims.xyz) - 1.0;
    return uvec3(clamp(floor(f), vec3(0.0), highest));
}

uint cellIndex(uvec3 c) {
    return c.x + params.gridDims.x * (c.y + params.gridDims.y * c.z);
}
