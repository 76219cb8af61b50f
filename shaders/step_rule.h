// SPEC.md's step for one fish after the neighbour sums (steps 2 to 7), with the behaviours beyond
// it, written once in the subset of C++ and GLSL that both compile. Every backend runs this text.
//
// It reads three names that each language provides before including it:
//   params  the StepParamsData of the step (step_params.h);
//   rocks   the rocks, vec4 each: xyz centre, w radius (params.counts.y of them);
//   flow    the flow field's nodes, vec4 each, x fastest (when kFeatureFlowField is on);
// and the macro STEP_FEATURES, the set of behaviours compiled in (kFeature* bits).
// GLSL: the uniform block and storage buffers of fish_layout.glsl, STEP_FEATURES a #define.
// C++: src/core/StepRule.h includes it inside the class template StepRule<features>, whose
// members these are. So: no references, pointers, swizzles or struct constructors; float
// literals carry an f; functions are declared before use.

// The largest of x's components in size: dividing by it keeps a length's square finite.
float largestComponent(vec3 x) {
    return max(max(abs(x.x), abs(x.y)), abs(x.z));
}

// x / |x| for finite x, and the zero vector for |x| < 1e-12. |x|^2 overflows past about 1.8e19,
// so such an x is scaled down first: the direction is the same.
vec3 normalizeOrZero(vec3 x) {
    float len = length(x);
    if (isinf(len)) {
        x = x / largestComponent(x);
        len = length(x);
    }
    return len < 1e-12f ? vec3(0.0f) : x / len;
}

// x when |x| <= m, else x scaled to length m (x finite; scaled down first where |x|^2 overflows).
vec3 clampLength(vec3 x, float m) {
    float len = length(x);
    if (len <= m) return x;
    if (isinf(len)) {
        x = x / largestComponent(x);
        len = length(x);
    }
    return x * (m / len);
}

// Whether some point of the segment a -> b lies strictly inside the sphere.
bool segmentEntersSphere(vec3 a, vec3 b, vec3 center, float radius) {
    vec3 ab = b - a;
    float lengthSquared = dot(ab, ab);
    // Quick reject without a division: every point of the segment lies within |ab| of a. The
    // margin keeps it conservative under rounding, so the answer is the exact test's.
    vec3 fromCenter = a - center;
    float reach = (radius + sqrt(lengthSquared)) * 1.001f;
    if (dot(fromCenter, fromCenter) > reach * reach) return false;
    float t = 0.0f;
    if (lengthSquared > 0.0f) t = clamp(dot(center - a, ab) / lengthSquared, 0.0f, 1.0f);
    vec3 offset = a + t * ab - center;
    return dot(offset, offset) < radius * radius;
}

// Field of view: whether a fish with unit `heading` sees a neighbour at offset d (|d|^2 = d2),
// inside the cone of half-angle acos(viewCos), compared without a square root. A fish standing
// still (zero heading) sees all around.
bool inView(vec3 heading, vec3 d, float d2) {
    if (heading == vec3(0.0f)) return true;
    float viewCos = params.radiiSquared.w;
    float along = dot(heading, d);
    float bound = viewCos * viewCos * d2;
    return viewCos >= 0.0f ? (along >= 0.0f && along * along >= bound)
                           : (along >= 0.0f || along * along <= bound);
}

// Avoidance: away from each rock whose surface is closer than avoidanceDistance, weighted from 1
// at its surface to 0 at that distance; the sum shortened to length 1.
vec3 rockAvoidance(vec3 p) {
    vec3 away = vec3(0.0f);
    float reach = params.avoidance.y;
    for (uint r = 0u; r < params.counts.y; ++r) {
        vec3 offset = p - vec3(rocks[r]);
        float distance = length(offset);
        float gap = distance - rocks[r].w;
        if (gap < reach && distance > 0.0f)
            away += offset / distance * min(1.0f - gap / reach, 1.0f);
    }
    return clampLength(away, 1.0f);
}

vec3 flowNode(ivec3 n) {
    uint index = uint(n.x) + params.flowDims.x * (uint(n.y) + params.flowDims.y * uint(n.z));
    return vec3(flow[index]);
}

// The flow field at p: the 8 nodes around p blended (trilinear). Points outside the lattice take
// the nearest nodes' values.
vec3 sampleFlow(vec3 p) {
    vec3 highest = vec3(params.flowDims) - 1.0f;
    vec3 f = (p - vec3(params.flowOrigin)) / params.flowOrigin.w;
    // Clamped to the lattice by hand, so that a NaN coordinate lands on node 0 rather than
    // indexing anywhere (clamp's result for NaN is undefined in GLSL and NaN in GLM).
    for (int k = 0; k < 3; ++k) {
        if (!(f[k] > 0.0f)) f[k] = 0.0f;
        if (f[k] > highest[k]) f[k] = highest[k];
    }
    vec3 low = min(floor(f), highest - 1.0f);
    vec3 t = f - low;
    ivec3 i = ivec3(low);
    vec3 x00 = mix(flowNode(i), flowNode(i + ivec3(1, 0, 0)), t.x);
    vec3 x10 = mix(flowNode(i + ivec3(0, 1, 0)), flowNode(i + ivec3(1, 1, 0)), t.x);
    vec3 x01 = mix(flowNode(i + ivec3(0, 0, 1)), flowNode(i + ivec3(1, 0, 1)), t.x);
    vec3 x11 = mix(flowNode(i + ivec3(0, 1, 1)), flowNode(i + ivec3(1, 1, 1)), t.x);
    return mix(mix(x00, x10, t.y), mix(x01, x11, t.y), t.z);
}

// SPEC steps 2 and 3 with the behaviours beyond it: the weighted sum of the rules, clamped. A
// behaviour that is off adds nothing, not even a rounding.
vec3 steeringAcceleration(vec3 p, NeighborSums s) {
    vec3 cohesion = vec3(0.0f);
    vec3 separation = vec3(0.0f);
    vec3 alignment = vec3(0.0f);
    if (s.cohesionCount > 0u) cohesion = normalizeOrZero(s.cohesion / float(s.cohesionCount) - p);
    if (s.separationCount > 0u)
        separation = normalizeOrZero(-s.separation / float(s.separationCount));
    if (s.alignmentCount > 0u) alignment = normalizeOrZero(s.alignment / float(s.alignmentCount));

    vec3 steer =
        params.weights.x * cohesion + params.weights.y * separation + params.weights.z * alignment;
    if (STEP_HAS(kFeatureSeek)) steer += params.target.w * normalizeOrZero(vec3(params.target) - p);
    if (STEP_HAS(kFeatureFlowField)) steer += params.target.w * normalizeOrZero(sampleFlow(p));
    if (STEP_HAS(kFeatureAvoidance)) steer += params.avoidance.x * rockAvoidance(p);
    vec3 a = clampLength(steer, params.limits.x);
    if (params.limits.w != 0.0f) a.y = 0.0f;
    return a;
}

// SPEC steps 2 to 7: from the fish's previous state and its neighbour sums to its next state.
FishUpdate integrateFish(vec3 p, vec3 v, NeighborSums s) {
    vec3 a = steeringAcceleration(p, s);
    float dt = params.limits.z;
    vec3 change = a * dt;
    // A change past the range of a float (a huge dt) dwarfs any speed a fish can have (1e6 at
    // most): the clamp keeps its direction alone.
    vec3 vNext = isinf(largestComponent(change)) ? normalizeOrZero(a) * params.limits.y
                                                 : clampLength(v + change, params.limits.y);
    vec3 pNext = p + vNext * dt;

    // Step 6: the first rock, in list order, that the segment enters bounces the fish back.
    for (uint r = 0u; r < params.counts.y; ++r) {
        if (segmentEntersSphere(p, pNext, vec3(rocks[r]), rocks[r].w)) {
            pNext = p - vNext * dt;
            vNext = -vNext;
            break;
        }
    }

    // Step 7: reflect at the walls.
    for (int k = 0; k < 3; ++k) {
        float b = params.bounds[k];
        if (pNext[k] > b) {
            pNext[k] = 2.0f * b - pNext[k];
            vNext[k] = -abs(vNext[k]);
        } else if (pNext[k] < -b) {
            pNext[k] = -2.0f * b - pNext[k];
            vNext[k] = abs(vNext[k]);
        }
    }
    FishUpdate next;
    next.position = pNext;
    next.velocity = vNext;
    next.acceleration = a;
    return next;
}
