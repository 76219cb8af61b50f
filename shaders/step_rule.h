// docs/model.md's "One step" for one fish after the neighbour sums (steps 2 to 7), with the
// behaviours beyond it, in the subset of C++ and GLSL that both compile. Every backend runs it.
//
// It reads four names that each language provides before including it:
//   params    the StepParamsData of the step (step_params.h);
//   rocks     the rocks, vec4 each: xyz centre, w radius (STEP_ROCK_COUNT(params) of them);
//   flow      the flow field's nodes, vec4 each, x fastest (when kFeatureFlowField is on);
//   specials  position and velocity (xyz of two vec4) of each leader and predator, by upload
//             index (STEP_PREDATORS_END(params) of them, when kFeatureKinds is on);
// and the macro STEP_FEATURES, the set of behaviours compiled in (kFeature* bits).
// GLSL: the uniform block and storage buffers of fish_layout.glsl, STEP_FEATURES a #define.
// C++: src/core/StepRule.h includes it inside the class template StepRule<features>, whose
// members these are. So: no references, pointers, swizzles or struct constructors; float
// literals carry an f; functions are declared before use.
//
// The step of a fish is written over per-fish types, so that the CPU steps eight fish at a time
// with the same text: `real`, `flag`, `rvec3`, `rvec4`, `ruint`, `LaneSums` and `LaneUpdate`
// (GLSL's float, bool, vec3, vec4, uint, NeighborSums and FishUpdate, which they are on the GPU
// and for one fish), `select(c, a, b)` for c ? a : b where c differs between fish, and
// `anyLane(c)` around a block that only some fish need; a fish's way out, `if (!anyLane(!c))
// return x;` with a select of x at the end, is the early return on the GPU, which keeps what
// follows out of the registers a GPU counts for the step. A branch on a value of `params` stays an
// `if`; a behaviour the lanes do not run (StepRule.h's stepsInLanes) sits behind
// STEP_IF_HAS(feature), which C++ compiles only where the behaviour is on.

// The largest of x's components in size: dividing by it keeps a length's square finite.
real largestComponent(rvec3 x) {
    return max(max(abs(x.x), abs(x.y)), abs(x.z));
}

// x / |x| for finite x, and the zero vector for |x| < 1e-12. A component past
// kLargestSafeComponent could overflow |x|^2, so such an x is scaled down first: the direction
// is the same.
rvec3 normalizeOrZero(rvec3 x) {
    real largest = largestComponent(x);
    x = select(largest > kLargestSafeComponent, x * kOverflowScale, x);
    real len = length(x);
    return select(len < 1e-12f, rvec3(0.0f), x / len);
}

// x when |x| <= m, else x scaled to length m (x finite; scaled down first where |x|^2 overflows).
rvec3 clampLength(rvec3 x, float m) {
    real largest = largestComponent(x);
    x = select(largest > kLargestSafeComponent, x * kOverflowScale, x);
    real len = length(x);
    return select(largest <= kLargestSafeComponent && len <= m, x, x * (m / len));
}

// docs/model.md "The school and the tank": the offset d from one point to another, taken to the
// nearest image of the other in a periodic tank (each component within half the tank's size);
// d itself between walls. Every offset the step measures goes through it.
rvec3 nearestImage(rvec3 d) {
    if (STEP_BOUNDARY(params) != kBoundaryPeriodic) return d;
    vec3 size = 2.0f * vec3(params.bounds);
    return d - size * floor(d / size + 0.5f);
}

// The centre of rock r, or in a periodic tank its image nearest to p.
rvec3 rockCenterNear(uint r, rvec3 p) {
    if (STEP_BOUNDARY(params) != kBoundaryPeriodic) return vec3(rocks[r]);
    return p + nearestImage(vec3(rocks[r]) - p);
}

// Whether some point of the segment a -> b lies strictly inside the sphere.
flag segmentEntersSphere(rvec3 a, rvec3 b, rvec3 center, float radius) {
    rvec3 ab = b - a;
    real lengthSquared = dot(ab, ab);
    // Quick reject without a division: every point of the segment lies within |ab| of a. The
    // margin keeps it conservative under rounding, so the answer is the exact test's.
    rvec3 fromCenter = a - center;
    real reach = (radius + sqrt(lengthSquared)) * 1.001f;
    flag far = dot(fromCenter, fromCenter) > reach * reach;
    flag enters = flag(false);
    if (anyLane(!far)) {
        real t =
            select(lengthSquared > 0.0f,
                   clamp(dot(center - a, ab) / lengthSquared, real(0.0f), real(1.0f)), real(0.0f));
        rvec3 offset = a + t * ab - center;
        enters = !far && dot(offset, offset) < radius * radius;
    }
    return enters;
}

// Field of view: whether a fish with unit `heading` sees a neighbour at offset d (|d|^2 = d2),
// inside the cone of half-angle acos(viewCos), compared without a square root. A fish standing
// still (zero heading), or one whose cone is the whole sphere (a species that sees all around
// among others that do not), sees all around.
bool inView(vec3 heading, vec3 d, float d2) {
    float viewCos = STEP_VIEW_COS(params);
    if (heading == vec3(0.0f) || viewCos <= -1.0f) return true;
    float along = dot(heading, d);
    float bound = viewCos * viewCos * d2;
    return viewCos >= 0.0f ? (along >= 0.0f && along * along >= bound)
                           : (along >= 0.0f || along * along <= bound);
}

// Avoidance: away from each rock whose surface is closer than avoidanceDistance, weighted from 1
// at its surface to 0 at that distance; the sum shortened to length 1.
rvec3 rockAvoidance(rvec3 p) {
    rvec3 away = rvec3(0.0f);
    float reach = STEP_AVOIDANCE_DISTANCE(params);
    for (uint r = 0u; r < STEP_ROCK_COUNT(params); ++r) {
        rvec3 offset = p - rockCenterNear(r, p);
        real distance = length(offset);
        real gap = distance - rocks[r].w;
        away = select(gap < reach && distance > 0.0f,
                      away + offset / distance * min(1.0f - gap / reach, real(1.0f)), away);
    }
    return clampLength(away, 1.0f);
}

vec3 flowNode(ivec3 n) {
    uvec3 dims = STEP_FLOW_DIMS(params);
    uint index = uint(n.x) + dims.x * (uint(n.y) + dims.y * uint(n.z));
    return vec3(flow[index]);
}

// The flow field at p: the 8 nodes around p blended (trilinear). Points outside the lattice take
// the nearest nodes' values.
vec3 sampleFlow(vec3 p) {
    vec3 highest = vec3(STEP_FLOW_DIMS(params)) - 1.0f;
    vec3 f = (p - STEP_FLOW_ORIGIN(params)) / STEP_FLOW_SPACING(params);
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

// Whether the segment from p to p + ray enters a rock.
flag rayBlocked(rvec3 p, rvec3 ray) {
    flag blocked = flag(false);
    for (uint r = 0u; r < STEP_ROCK_COUNT(params); ++r) {
        blocked = blocked || segmentEntersSphere(p, p + ray, rockCenterNear(r, p), rocks[r].w);
        if (!anyLane(!blocked)) break;
    }
    return blocked;
}

// Avoidance "rays": when the ray of length avoidanceDistance along the heading enters a rock, the
// first free direction of a fixed set ordered by angle from the heading: 8 rings at 20, 40, ...,
// 160 degrees, 8 directions each, from the heading's side (x) round through its up (y), then
// straight back. Zero when the way ahead is free, when every ray is blocked, or standing still.
// The angles step by rotation, so no trigonometric function differs between languages.
rvec3 rayAvoidance(rvec3 p, rvec3 v) {
    rvec3 heading = normalizeOrZero(v);
    float reach = STEP_AVOIDANCE_DISTANCE(params);
    // done: the fish whose direction is found (zero for a free way ahead or no heading).
    flag done = heading == rvec3(0.0f) || !rayBlocked(p, heading * reach);
    rvec3 away = rvec3(0.0f);
    if (!anyLane(!done)) return away;
    rvec3 helper = select(abs(heading.y) < 0.9f, rvec3(0.0f, 1.0f, 0.0f), rvec3(1.0f, 0.0f, 0.0f));
    rvec3 side = normalizeOrZero(cross(helper, heading));
    rvec3 up = cross(heading, side);
    float ringCos = 0.93969262f;  // cos 20 degrees
    float ringSin = 0.34202014f;
    for (int ring = 0; ring < 8; ++ring) {
        float aroundCos = 1.0f;
        float aroundSin = 0.0f;
        for (int k = 0; k < 8; ++k) {
            rvec3 d = ringCos * heading + ringSin * (aroundCos * side + aroundSin * up);
            flag found = !done && !rayBlocked(p, d * reach);
            away = select(found, d, away);
            done = done || found;
            if (!anyLane(!done)) return away;
            float c = aroundCos;
            aroundCos = 0.70710678f * (c - aroundSin);  // + 45 degrees
            aroundSin = 0.70710678f * (c + aroundSin);
        }
        float c = ringCos;
        ringCos = c * 0.93969262f - ringSin * 0.34202014f;  // + 20 degrees
        ringSin = ringSin * 0.93969262f + c * 0.34202014f;
    }
    return select(!done && !rayBlocked(p, -heading * reach), -heading, away);
}

// A rule's force from its direction u (a unit vector or shorter; zero when the rule has none).
// Steering "article": u itself. "reynolds": the change from velocity v to the desired velocity
// u * speed (the fish's maxVelocity), clamped to maxAcceleration; zero when u is.
rvec3 ruleForce(rvec3 u, rvec3 v, float speed) {
    if (STEP_REYNOLDS(params) == 0.0f) return u;
    return select(u == rvec3(0.0f), u, clampLength(u * speed - v, STEP_MAX_ACCELERATION(params)));
}

uint kindOf(uint id) {
    if (id < STEP_LEADERS_END(params)) return kKindLeader;
    return id < STEP_PREDATORS_END(params) ? kKindPredator : kKindFish;
}

// Leaders: the unit vector toward the nearest leader the fish sees (closer than rCohesion,
// strictly, and in its field of view); zero when it sees none. Ties go to the lower index.
vec3 towardNearestLeader(vec3 p, vec3 v) {
    vec3 heading = normalizeOrZero(v);
    float nearest = STEP_COHESION_RADIUS2(params);
    vec3 toward = vec3(0.0f);
    for (uint l = 0u; l < STEP_LEADERS_END(params); ++l) {
        vec3 d = nearestImage(vec3(specials[2u * l]) - p);
        float d2 = dot(d, d);
        if (d2 < nearest && (!STEP_HAS(kFeatureFieldOfView) || inView(heading, d, d2))) {
            nearest = d2;
            toward = d;
        }
    }
    return normalizeOrZero(toward);
}

// Fleeing: for every predator closer than fleeRadius, the unit vector away from it weighted from 1
// at contact to 0 at fleeRadius; their sum.
vec3 awayFromPredators(vec3 p) {
    vec3 away = vec3(0.0f);
    float radius = STEP_FLEE_RADIUS(params);
    for (uint q = STEP_LEADERS_END(params); q < STEP_PREDATORS_END(params); ++q) {
        vec3 d = nearestImage(p - vec3(specials[2u * q]));
        float distance = length(d);
        if (distance < radius && distance > 0.0f) away += d / distance * (1.0f - distance / radius);
    }
    return away;
}

// Combine "prioritized": acc (xyz) plus force f, as much of it as the budget maxAcceleration
// leaves: all of f if it fits, else f shortened to the length left, and then acc.w = 1 (spent),
// after which nothing more is added.
rvec4 addWithinBudget(rvec4 acc, rvec3 f) {
    flag spent = acc.w != 0.0f;
    if (!anyLane(!spent)) return acc;
    rvec3 sum = rvec3(acc);
    real left = STEP_MAX_ACCELERATION(params) - length(sum);
    real len = length(f);
    rvec4 next =
        select(len <= left, rvec4(sum + f, 0.0f),
               select(left <= 0.0f, rvec4(sum, 1.0f), rvec4(sum + f * (left / len), 1.0f)));
    return select(spent, acc, next);
}

// The speed limit of a fish of `kind`.
float speedLimit(uint kind) {
    return STEP_HAS(kFeatureKinds) && kind == kKindPredator ? STEP_PREDATOR_MAX_VELOCITY(params)
                                                            : STEP_MAX_VELOCITY(params);
}

// docs/model.md "One step", steps 2 and 3, with the behaviours beyond it: the weighted sum of
// the rules, clamped. A
// behaviour that is off adds nothing, not even a rounding. `kind` and `prey` (the position of
// the nearest other fish, for a predator) matter only with kFeatureKinds.
rvec3 steeringAcceleration(rvec3 p, rvec3 v, LaneSums s, uint kind, rvec3 prey) {
    rvec3 cohesion = rvec3(0.0f);
    rvec3 separation = rvec3(0.0f);
    rvec3 alignment = rvec3(0.0f);
    // Leaders and predators ignore the flock.
    bool flocks = !STEP_HAS(kFeatureKinds) || kind == kKindFish;
    if (flocks) {
        cohesion = select(s.cohesionCount > 0u,
                          normalizeOrZero(s.cohesion / real(s.cohesionCount) - p), cohesion);
        separation = select(s.separationCount > 0u,
                            normalizeOrZero(-s.separation / real(s.separationCount)), separation);
        alignment = select(s.alignmentCount > 0u,
                           normalizeOrZero(s.alignment / real(s.alignmentCount)), alignment);
    }
    float speed = speedLimit(kind);

    rvec3 cohesionForce = STEP_K_COHESION(params) * ruleForce(cohesion, v, speed);
    rvec3 separationForce = STEP_K_SEPARATION(params) * ruleForce(separation, v, speed);
    rvec3 alignmentForce = STEP_K_ALIGNMENT(params) * ruleForce(alignment, v, speed);
    // With kFeatureSpecies these three are compiled in whether on or not (one set of behaviours
    // for every species), so each also asks whether it is on.
    rvec3 targetForce = rvec3(0.0f);
    if (STEP_HAS(kFeatureSeek) && STEP_K_TARGET(params) != 0.0f)
        targetForce = STEP_K_TARGET(params) *
                      ruleForce(normalizeOrZero(nearestImage(STEP_TARGET(params) - p)), v, speed);
    STEP_IF_HAS(kFeatureFlowField) {
        if (STEP_K_TARGET(params) != 0.0f)
            targetForce =
                STEP_K_TARGET(params) * ruleForce(normalizeOrZero(sampleFlow(p)), v, speed);
    }
    rvec3 avoidanceForce = rvec3(0.0f);
    if (STEP_HAS(kFeatureAvoidance) && STEP_K_AVOIDANCE(params) != 0.0f &&
        STEP_AVOIDANCE_DISTANCE(params) > 0.0f) {
        rvec3 away = STEP_RAYS(params) != 0.0f ? rayAvoidance(p, v) : rockAvoidance(p);
        avoidanceForce = STEP_K_AVOIDANCE(params) * ruleForce(away, v, speed);
    }
    rvec3 leaderForce = rvec3(0.0f);
    rvec3 fleeForce = rvec3(0.0f);
    STEP_IF_HAS(kFeatureKinds) {
        if (kind == kKindFish)
            leaderForce = STEP_K_LEADER(params) * ruleForce(towardNearestLeader(p, v), v, speed);
        if (kind != kKindPredator) {
            fleeForce = STEP_K_FLEE(params) * ruleForce(awayFromPredators(p), v, speed);
        } else {
            // A predator chases its prey at full acceleration, in place of seeking.
            targetForce = STEP_MAX_ACCELERATION(params) *
                          ruleForce(normalizeOrZero(nearestImage(prey - p)), v, speed);
        }
    }

    // Seed 004's sidestep (away, across the heading, from the neighbours that close in) and an
    // informed fish's preferred direction: plain fish only, as the flock's rules.
    rvec3 sidestepForce = rvec3(0.0f);
    rvec3 preferredForce = rvec3(0.0f);
    STEP_IF_HAS(kFeatureSpecies) {
        if (flocks && STEP_K_SIDESTEP(params) != 0.0f)
            sidestepForce =
                STEP_K_SIDESTEP(params) * ruleForce(normalizeOrZero(-s.sidestep), v, speed);
        if (flocks && STEP_K_PREFERRED(params) != 0.0f)
            preferredForce =
                STEP_K_PREFERRED(params) * ruleForce(STEP_PREFERRED_DIRECTION(params), v, speed);
    }

    rvec3 steer;
    if (STEP_PRIORITIZED(params) == 0.0f) {
        steer = cohesionForce + separationForce + alignmentForce;
        if (STEP_HAS(kFeatureSeek) || STEP_HAS(kFeatureFlowField) || STEP_HAS(kFeatureKinds))
            steer += targetForce;
        if (STEP_HAS(kFeatureAvoidance)) steer += avoidanceForce;
        if (STEP_HAS(kFeatureKinds)) steer += fleeForce + leaderForce;
        if (STEP_HAS(kFeatureSpecies)) steer += sidestepForce + preferredForce;
    } else {
        // By priority: avoidance, fleeing, separation, sidestep, target (or prey), preferred
        // direction, leader, alignment, cohesion.
        rvec4 acc = rvec4(0.0f);
        if (STEP_HAS(kFeatureAvoidance)) acc = addWithinBudget(acc, avoidanceForce);
        if (STEP_HAS(kFeatureKinds)) acc = addWithinBudget(acc, fleeForce);
        acc = addWithinBudget(acc, separationForce);
        if (STEP_HAS(kFeatureSpecies)) acc = addWithinBudget(acc, sidestepForce);
        if (STEP_HAS(kFeatureSeek) || STEP_HAS(kFeatureFlowField) || STEP_HAS(kFeatureKinds))
            acc = addWithinBudget(acc, targetForce);
        if (STEP_HAS(kFeatureSpecies)) acc = addWithinBudget(acc, preferredForce);
        if (STEP_HAS(kFeatureKinds)) acc = addWithinBudget(acc, leaderForce);
        acc = addWithinBudget(acc, alignmentForce);
        acc = addWithinBudget(acc, cohesionForce);
        steer = rvec3(acc);
    }
    rvec3 a = clampLength(steer, STEP_MAX_ACCELERATION(params));
    if (STEP_LOCK_VERTICAL(params) != 0.0f) a.y = 0.0f;
    return a;
}

// minVelocity: a fish slower than it (after the velocity clamp) is sped up to it along its
// velocity, or along its acceleration a when it stands still (then, with a zero too, it stays).
rvec3 atLeastMinVelocity(rvec3 vNext, rvec3 a) {
    float minimum = STEP_MIN_VELOCITY(params);
    flag fastEnough = length(vNext) >= minimum;
    if (!anyLane(!fastEnough)) return vNext;
    rvec3 direction = normalizeOrZero(vNext);
    direction = select(direction == rvec3(0.0f), normalizeOrZero(a), direction);
    return select(fastEnough, vNext, direction * minimum);
}

// Noise: a counter-based generator, the same bits in both languages (hash.h).
#include "hash.h"

// The key of fish `id`'s draws in this step: the seed, the step's index and the fish hashed.
ruint noiseKey(ruint id) {
    uint stepKey = lowbias32(STEP_INDEX(params));
    return lowbias32(lowbias32(stepKey ^ STEP_SEED_LOW(params)) ^ STEP_SEED_HIGH(params)) + id;
}

// Draw number `draw` of a key: uniform on [0, 1) in steps of 2^-24 (exact as a float).
real uniformDraw(ruint key, uint draw) {
    return real(lowbias32(lowbias32(key) + draw * 0x9e3779b9u) >> 8u) * (1.0f / 16777216.0f);
}

// A standard normal draw, approximated by the sum of 12 uniform draws minus 6 (Irwin-Hall: mean
// 0, variance 1, bounded by 6): additions only, so C++ and GLSL agree but for the order of
// rounding, where a logarithm (Box-Muller) would differ by the GPU's precision.
real normalDraw(ruint key, uint first) {
    real sum = real(0.0f);
    for (uint k = 0u; k < 12u; ++k) sum += uniformDraw(key, first + k);
    return sum - 6.0f;
}

// The velocity v turned by an angle of noise * (a normal draw), its speed kept: about a random
// axis across the heading, or about the vertical when lockVerticalSteering is on. A fish standing
// still stays so. Only cos and sin differ between languages (by the GPU's precision).
rvec3 withNoise(rvec3 v, ruint id) {
    rvec3 heading = normalizeOrZero(v);
    flag still = heading == rvec3(0.0f);
    if (!anyLane(!still)) return v;
    ruint key = noiseKey(id);
    real angle = STEP_NOISE(params) * normalDraw(key, 0u);
    real c = cos(angle);
    real s = sin(angle);
    rvec3 turned;
    if (STEP_LOCK_VERTICAL(params) != 0.0f) {
        turned = rvec3(c * v.x + s * v.z, v.y, c * v.z - s * v.x);
    } else {
        real around = 6.2831853f * uniformDraw(key, 12u);
        rvec3 helper =
            select(abs(heading.y) < 0.9f, rvec3(0.0f, 1.0f, 0.0f), rvec3(1.0f, 0.0f, 0.0f));
        rvec3 side = normalizeOrZero(cross(helper, heading));
        rvec3 up = cross(heading, side);
        rvec3 across = cos(around) * side + sin(around) * up;
        turned = c * v + (s * length(v)) * across;
    }
    return select(still, v, turned);
}

// Steering "couzin" (Couzin et al. 2002): the desired direction of a fish with velocity v and
// unit `heading`, from the sums of kFeatureCouzin (unit offsets). Any neighbour in the repulsion
// zone (closer than rSeparation): away from them, and nothing else counts. Otherwise the mean of
// the orientation direction (the velocities within rAlignment, the fish's own among them) and
// the attraction direction (the unit offsets toward those from rAlignment to rCohesion), either
// alone when the other zone is empty. No neighbour, or the directions cancelling: the heading.
vec3 couzinDirection(vec3 v, vec3 heading, NeighborSums s) {
    vec3 desired = vec3(0.0f);
    if (s.separationCount > 0u) {
        desired = normalizeOrZero(-s.separation);
    } else {
        vec3 orientation = vec3(0.0f);
        vec3 attraction = vec3(0.0f);
        if (s.alignmentCount > 0u) orientation = normalizeOrZero(s.alignment + v);
        if (s.cohesionCount > 0u) attraction = normalizeOrZero(s.cohesion);
        desired = normalizeOrZero(orientation + attraction);
    }
    return desired == vec3(0.0f) ? heading : desired;
}

// The unit heading h turned toward the unit direction d by at most the largest turn of a step
// (STEP_TURN_COS and STEP_TURN_SIN): d itself when it is that close. Straight back, the turn
// goes toward h's side (as for avoidance by rays).
vec3 turnToward(vec3 h, vec3 d) {
    if (h == vec3(0.0f) || dot(h, d) >= STEP_TURN_COS(params)) return d;
    // The part of d across h. Straight back it is zero, or a rounding's few 1e-8 (h and d are
    // unit vectors; a GPU's fused multiply-adds round otherwise): then any axis across h will do.
    vec3 across = d - dot(d, h) * h;
    across = dot(across, across) > 1e-12f ? normalizeOrZero(across) : vec3(0.0f);
    if (across == vec3(0.0f)) {
        vec3 helper = abs(h.y) < 0.9f ? vec3(0.0f, 1.0f, 0.0f) : vec3(1.0f, 0.0f, 0.0f);
        across = normalizeOrZero(cross(helper, h));
    }
    return normalizeOrZero(STEP_TURN_COS(params) * h + STEP_TURN_SIN(params) * across);
}

// Steering "couzin": the next velocity, at the constant speed maxVelocity, along the heading
// turned toward the desired direction (an informed fish's balanced with its preferred one), with
// the noise added to that direction first.
vec3 couzinVelocity(vec3 v, NeighborSums s, uint id) {
    vec3 heading = normalizeOrZero(v);
    vec3 desired = couzinDirection(v, heading, s);
    // Informed fish (Couzin et al. 2005): the zone rule's direction balanced with the preferred
    // one, (d + omega g) / |d + omega g|; the heading where they cancel.
    if (STEP_HAS(kFeatureSpecies) && STEP_K_PREFERRED(params) != 0.0f) {
        vec3 informed = normalizeOrZero(
            desired + STEP_K_PREFERRED(params) * STEP_PREFERRED_DIRECTION(params));
        desired = informed == vec3(0.0f) ? heading : informed;
    }
    if (STEP_LOCK_VERTICAL(params) != 0.0f) {
        desired.y = 0.0f;
        desired = normalizeOrZero(desired);
    }
    if (STEP_NOISE(params) != 0.0f) desired = withNoise(desired, id);
    return turnToward(heading, desired) * STEP_MAX_VELOCITY(params);
}

// Steering "vicsek" (docs/model.md, "Vicsek et al. 1995"): the next velocity, at the constant
// speed maxVelocity, along the mean heading of the neighbours within rAlignment and the fish
// itself (the sum of their unit headings, kFeatureVicsek's alignment sum: every fish weighs the
// same whatever its speed; one standing still adds nothing), turned by a random angle uniform in
// [-noise/2, noise/2]: about the vertical under lockVerticalSteering or in 2D (the mean's vertical
// part dropped), else to a direction uniform on the cap of that half-angle about the mean. The
// mean cancelling: the fish's own heading. A fish with neither stays still.
vec3 vicsekVelocity(vec3 v, NeighborSums s, uint id) {
    vec3 sum = normalizeOrZero(v);
    if (s.alignmentCount > 0u) sum += s.alignment;
    vec3 own = v;
    bool inPlane = STEP_LOCK_VERTICAL(params) != 0.0f;
    if (inPlane) {
        sum.y = 0.0f;
        own.y = 0.0f;
    }
    vec3 heading = normalizeOrZero(sum);
    if (heading == vec3(0.0f)) heading = normalizeOrZero(own);
    if (heading == vec3(0.0f) || STEP_NOISE(params) == 0.0f)
        return heading * STEP_MAX_VELOCITY(params);
    uint key = noiseKey(id);
    if (inPlane) {
        float angle = STEP_NOISE(params) * (uniformDraw(key, 0u) - 0.5f);
        float c = cos(angle);
        float sn = sin(angle);
        heading = vec3(c * heading.x + sn * heading.z, 0.0f, c * heading.z - sn * heading.x);
    } else {
        // Uniform on the cap: the cosine of the angle to the mean uniform in [cos(half), 1]
        // (1 - cos(x) as 2 sin^2(x / 2), exact for small x), the angle round it uniform.
        float halfAngle = min(0.5f * STEP_NOISE(params), 3.14159265f);
        float sinQuarter = sin(0.5f * halfAngle);
        float cosAngle = 1.0f - uniformDraw(key, 0u) * (2.0f * sinQuarter * sinQuarter);
        float sinAngle = sqrt(max(1.0f - cosAngle * cosAngle, 0.0f));
        float around = 6.2831853f * uniformDraw(key, 1u);
        vec3 helper = abs(heading.y) < 0.9f ? vec3(0.0f, 1.0f, 0.0f) : vec3(1.0f, 0.0f, 0.0f);
        vec3 side = normalizeOrZero(cross(helper, heading));
        vec3 up = cross(heading, side);
        heading = normalizeOrZero(cosAngle * heading +
                                  sinAngle * (cos(around) * side + sin(around) * up));
    }
    return heading * STEP_MAX_VELOCITY(params);
}

// Steering "burst-and-coast" (docs/model.md "Burst-and-coast swimming"; Calovi et al. 2018): a
// fish kicks at random instants and glides straight between kicks, its speed decaying with the
// time constant kickTau0. At each kick its heading turns by the wall, the neighbours it heeds and
// chance, and it draws the kick's peak speed and the time to its next kick. It swims in the x-z
// plane: its vertical velocity is 0 and its height is kept. The neighbours are read from the whole
// school (schoolCount, schoolPosition, schoolVelocity, schoolId: each language provides them),
// at kicks only, so the step's neighbour sums are not taken.

const float kPi = 3.14159265f;
// No wall (a periodic tank, open water): a distance at which the wall's terms are 0.
const float kNoWall = 1.0e6f;
// The most kicks of one fish in a step; a step longer than this many of the shortest kicks
// defers the rest to the next step.
const uint kMaxKicksPerStep = 64u;
// Draws per try of a kick (docs/model.md): the normal (12), the duration (2), the peak speed (at
// most kSpeedTries tries of 3); tries per kick, and the draws of a first kick's instant.
const uint kSpeedTries = 32u;
const uint kDrawsPerTry = 128u;
const uint kTriesPerKick = 1000u;
const uint kFirstKickDraw = 100000000u;

// An angle brought into [-pi, pi).
float wrapAngle(float a) {
    return a - 6.2831853f * floor(a / 6.2831853f + 0.5f);
}

// The direction of d in the x-z plane, as the heading phi is measured (0 along +x, pi/2 along
// +z); 0 for no direction.
float planeAngle(vec3 d) {
    if (d.x == 0.0f && d.z == 0.0f) return 0.0f;
    return atan(d.z, d.x);
}

// The wall nearest p in the x-z plane: x the distance to it, y the direction of its outward
// normal (a plane angle). The round tank's is radial; a box's is that of the nearest side.
vec2 nearestWall(vec3 p) {
    if (STEP_BOUNDARY(params) != kBoundaryWalls) return vec2(kNoWall, 0.0f);
    float radius = STEP_ARENA_RADIUS(params);
    if (radius > 0.0f) return vec2(radius - sqrt(p.x * p.x + p.z * p.z), planeAngle(p));
    float bx = STEP_HALF_EXTENT(params, 0);
    float bz = STEP_HALF_EXTENT(params, 2);
    vec2 wall = vec2(bx - p.x, 0.0f);
    if (bx + p.x < wall.x) wall = vec2(bx + p.x, kPi);
    if (bz - p.z < wall.x) wall = vec2(bz - p.z, 0.5f * kPi);
    if (bz + p.z < wall.x) wall = vec2(bz + p.z, -0.5f * kPi);
    return wall;
}

// Whether q lies inside the tank's walls in the x-z plane (everywhere without walls).
bool insideWalls(vec3 q) {
    if (STEP_BOUNDARY(params) != kBoundaryWalls) return true;
    float radius = STEP_ARENA_RADIUS(params);
    if (radius > 0.0f) return q.x * q.x + q.z * q.z < radius * radius;
    return abs(q.x) < STEP_HALF_EXTENT(params, 0) && abs(q.z) < STEP_HALF_EXTENT(params, 2);
}

// The turn at a kick toward a neighbour at distance d, seen at angle psi from the heading, whose
// heading differs by dphi: attraction plus alignment.
float neighbourTurn(float d, float psi, float dphi) {
    float range = d / STEP_ATTRACTION_LENGTH(params);
    float attraction = STEP_GAMMA_ATTRACTION(params) *
                       ((d - STEP_ATTRACTION_D0(params)) / STEP_ATTRACTION_SCALE(params)) /
                       (1.0f + range * range) * sin(psi) * (1.0f - 0.33f * cos(psi)) *
                       (1.0f - 0.48f * cos(dphi) - 0.31f * cos(2.0f * dphi));
    float reach = d / STEP_ALIGNMENT_LENGTH(params);
    float alignment = STEP_GAMMA_ALIGNMENT(params) * ((d + 0.03f) / 0.06f) * exp(-reach * reach) *
                      sin(dphi) * (1.0f + 0.3f * cos(2.0f * dphi)) *
                      (1.0f + 0.6f * cos(psi) - 0.32f * cos(2.0f * psi));
    return attraction + alignment;
}

// The order in which neighbours are kept (topological and influential selection): the smaller
// key first, ties to the lower id.
bool nearerThan(float key, uint id, float otherKey, uint otherId) {
    return key < otherKey || (key == otherKey && id < otherId);
}

// The summed turn toward the neighbours a fish at p heading phi heeds at a kick `elapsed` into
// the step: every other fish within rCohesion (metric), the neighborCount nearest of them
// (topological) or the neighborCount of largest turn in size (influential), ties by the lower
// id, summed in that order. The neighbours are read where they glide to by then.
float neighboursTurn(vec3 p, float phi, uint id, float elapsed) {
    float tau0 = STEP_KICK_TAU0(params);
    float glide = tau0 * (1.0f - exp(-elapsed / tau0));
    float reach2 = STEP_COHESION_RADIUS2(params);
    float selection = STEP_NEIGHBOR_SELECTION(params);
    uint k = uint(STEP_NEIGHBOR_COUNT(params));
    float keptKey[kMaxNeighborCount];
    uint keptId[kMaxNeighborCount];
    float keptTurn[kMaxNeighborCount];
    for (uint n = 0u; n < kMaxNeighborCount; ++n) {
        keptKey[n] = 0.0f;
        keptId[n] = 0u;
        keptTurn[n] = 0.0f;
    }
    uint kept = 0u;
    float total = 0.0f;
    for (uint j = 0u; j < schoolCount(); ++j) {
        uint other = schoolId(j);
        if (other == id) continue;
        vec3 vj = schoolVelocity(j);
        vec3 d = nearestImage(schoolPosition(j) + vj * glide - p);
        float d2 = d.x * d.x + d.z * d.z;
        if (!(d2 < reach2)) continue;
        float turn = neighbourTurn(sqrt(d2), wrapAngle(planeAngle(d) - phi),
                                   wrapAngle(planeAngle(vj) - phi));
        if (selection == kSelectionMetric) {
            total += turn;
            continue;
        }
        // Kept in order of (key, id): the nearest, or the largest turns, first.
        float key = selection == kSelectionTopological ? d2 : -abs(turn);
        if (kept == k && !nearerThan(key, other, keptKey[k - 1u], keptId[k - 1u])) continue;
        uint at = min(kept, k - 1u);
        if (kept < k) kept++;
        while (at > 0u && nearerThan(key, other, keptKey[at - 1u], keptId[at - 1u])) {
            keptKey[at] = keptKey[at - 1u];
            keptId[at] = keptId[at - 1u];
            keptTurn[at] = keptTurn[at - 1u];
            at--;
        }
        keptKey[at] = key;
        keptId[at] = other;
        keptTurn[at] = turn;
    }
    for (uint n = 0u; n < kept; ++n) total += keptTurn[n];
    return total;
}

// A uniform draw in (0, 1], whose logarithm is finite.
float positiveDraw(uint key, uint draw) {
    return 1.0f - uniformDraw(key, draw);
}

// The time from a kick to the next: kickDurationMin + (mean - min) Gamma(2, 1/2).
float kickDuration(uint key, uint first) {
    float shortest = STEP_KICK_DURATION_MIN(params);
    float spread = STEP_KICK_DURATION_MEAN(params) - shortest;
    return shortest - 0.5f * spread * log(positiveDraw(key, first) * positiveDraw(key, first + 1u));
}

// A kick's peak speed: kickSpeedMin + kickSpeedMean Gamma(3, 1/3), drawn again while above
// kickSpeedMax (at most kSpeedTries times, then kickSpeedMax).
float kickSpeed(uint key, uint first) {
    for (uint t = 0u; t < kSpeedTries; ++t) {
        uint at = first + 3u * t;
        float product = positiveDraw(key, at) * positiveDraw(key, at + 1u) *
                        positiveDraw(key, at + 2u);
        float speed =
            STEP_KICK_SPEED_MIN(params) - STEP_KICK_SPEED_MEAN(params) / 3.0f * log(product);
        if (speed <= STEP_KICK_SPEED_MAX(params)) return speed;
    }
    return STEP_KICK_SPEED_MAX(params);
}

// Kick number `m` of the step of fish `id` at p, gliding with velocity v, `elapsed` into the step:
// its new velocity (xyz) and the time to its next kick (w). A kick whose glide would end outside
// the walls is drawn again; after kTriesPerKick draws the fish turns along the wall instead.
vec4 kickOf(vec3 p, vec3 v, uint id, float elapsed, uint m) {
    float phi = planeAngle(v);
    vec2 wall = nearestWall(p);
    float thetaW = wrapAngle(phi - wall.y);
    float near = wall.x / STEP_WALL_LENGTH(params);
    float closeness = exp(-near * near);
    float turn = STEP_GAMMA_WALL(params) * closeness * sin(thetaW) *
                 (1.0f + STEP_WALL_COS2(params) * cos(2.0f * thetaW));
    turn += neighboursTurn(p, phi, id, elapsed);
    float randomness = STEP_GAMMA_RANDOM(params) * (1.0f - STEP_ALPHA_WALL(params) * closeness);
    float tau0 = STEP_KICK_TAU0(params);
    uint key = noiseKey(id);
    float heading = phi;
    float duration = 0.0f;
    float speed = 0.0f;
    bool inside = false;
    for (uint t = 0u; t < kTriesPerKick && !inside; ++t) {
        uint first = (m * kTriesPerKick + t) * kDrawsPerTry;
        heading = phi + turn + randomness * normalDraw(key, first);
        duration = kickDuration(key, first + 12u);
        speed = kickSpeed(key, first + 14u);
        float reach = speed * tau0 * (1.0f - exp(-duration / tau0)) + 0.01f;
        inside = insideWalls(p + reach * vec3(cos(heading), 0.0f, sin(heading)));
    }
    if (!inside) {
        // Along the wall, on the side nearer the heading.
        float left = wall.y + 0.5f * kPi;
        float right = wall.y - 0.5f * kPi;
        heading = abs(wrapAngle(phi - left)) <= abs(wrapAngle(phi - right)) ? left : right;
    }
    return vec4(speed * cos(heading), 0.0f, speed * sin(heading), duration);
}

// One step of a burst-and-coast fish at p with velocity v and `clock` seconds to its next kick
// (0: none drawn yet, then uniform within a kick's duration): it glides to each kick that falls
// in the step, kicks, and glides on to the step's end. The acceleration is left to the caller.
FishUpdate burstAndCoast(vec3 p, vec3 v, float clock, uint id) {
    float dt = STEP_DT(params);
    float tau0 = STEP_KICK_TAU0(params);
    vec3 position = p;
    vec3 velocity = vec3(v.x, 0.0f, v.z);
    if (!(clock > 0.0f)) {
        uint key = noiseKey(id);
        clock = uniformDraw(key, kFirstKickDraw) * kickDuration(key, kFirstKickDraw + 1u);
    }
    float elapsed = 0.0f;
    for (uint m = 0u; m < kMaxKicksPerStep && clock <= dt - elapsed; ++m) {
        float decay = exp(-clock / tau0);
        position += velocity * (tau0 * (1.0f - decay));
        velocity *= decay;
        elapsed += clock;
        vec4 kicked = kickOf(position, velocity, id, elapsed, m);
        velocity = vec3(kicked);
        clock = kicked.w;
    }
    float rest = max(dt - elapsed, 0.0f);
    float decay = exp(-rest / tau0);
    FishUpdate next;
    next.position = position + velocity * (tau0 * (1.0f - decay));
    next.velocity = velocity * decay;
    next.acceleration = vec3(0.0f);
    // Past kMaxKicksPerStep the next kick comes at once, in the next step.
    next.kickClock = max(clock - rest, 1.0e-6f);
    return next;
}

// docs/model.md "One step", steps 2 to 7: from the fish's previous state and its neighbour sums
// to its next state.
// `id` is its upload index; `prey`, for a predator, the position of its nearest other fish;
// `kickClock`, under steering "burst-and-coast", the time to its next kick.
LaneUpdate integrateFish(rvec3 p, rvec3 v, real kickClock, LaneSums s, ruint id, rvec3 prey) {
    float dt = STEP_DT(params);
    rvec3 a = rvec3(0.0f);
    rvec3 vNext = rvec3(0.0f);
    rvec3 pNext = rvec3(0.0f);
    real clock = real(0.0f);
    // The steerings that set the velocity come alone (StepRule.h's usedFeatureSet).
    STEP_IF_HAS(kFeatureBurst) {
        FishUpdate glided = burstAndCoast(p, v, kickClock, id);
        pNext = glided.position;
        vNext = glided.velocity;
        clock = glided.kickClock;
        a = (vNext - v) / dt;
        if (largestComponent(a) > kOverflowing) a = vec3(0.0f);
    }
    STEP_IF_HAS(kFeatureCouzin) {
        // Steering "couzin" sets the velocity; the acceleration reported is its change.
        vNext = couzinVelocity(v, s, id);
        a = (vNext - v) / dt;
        if (largestComponent(a) > kOverflowing) a = vec3(0.0f);
    }
    STEP_IF_HAS(kFeatureVicsek) {
        // Steering "vicsek" sets the velocity too: one heading update a step, then the move.
        vNext = vicsekVelocity(v, s, id);
        a = (vNext - v) / dt;
        if (largestComponent(a) > kOverflowing) a = vec3(0.0f);
    }
    if (!STEP_HAS(kFeatureBurst | kFeatureCouzin | kFeatureVicsek)) {
        uint kind = kKindFish;
        STEP_IF_HAS(kFeatureKinds) kind = kindOf(id);
        a = steeringAcceleration(p, v, s, kind, prey);
        rvec3 change = a * dt;
        float limit = speedLimit(kind);
        // A change past the range of a float (a huge dt) dwarfs any speed a fish can have (1e6
        // at most): the clamp keeps its direction alone.
        vNext = select(largestComponent(change) > kOverflowing, normalizeOrZero(a) * limit,
                       clampLength(v + change, limit));
        if (STEP_MIN_VELOCITY(params) > 0.0f) vNext = atLeastMinVelocity(vNext, a);
        if (STEP_NOISE(params) != 0.0f) vNext = withNoise(vNext, id);
    }
    if (!STEP_HAS(kFeatureBurst)) pNext = p + vNext * dt;

    // Step 6: the first rock, in list order, that the segment enters bounces the fish back.
    flag bounced = flag(false);
    for (uint r = 0u; r < STEP_ROCK_COUNT(params); ++r) {
        flag hit = !bounced && segmentEntersSphere(p, pNext, rockCenterNear(r, p), rocks[r].w);
        if (anyLane(hit)) {
            rvec3 back = p - vNext * dt;
            // The gap between rocks (one step) keeps the way back clear only while a fish turns
            // less than a right angle in a step. A sharper turn (steering "couzin", a huge
            // maxAcceleration) can send it back into another rock: it then waits where it is.
            flag blocked = flag(false);
            for (uint other = 0u; other < STEP_ROCK_COUNT(params); ++other) {
                rvec3 fromCenter = back - rockCenterNear(other, back);
                blocked = blocked || dot(fromCenter, fromCenter) < rocks[other].w * rocks[other].w;
            }
            pNext = select(hit, select(blocked, p, back), pNext);
            vNext = select(hit, -vNext, vNext);
            bounced = bounced || hit;
        }
        if (!anyLane(!bounced)) break;
    }

    // Step 7: reflect at the walls, or in a periodic tank come in by the opposite face, the
    // velocity kept (a step moves a fish less than the tank's size: one wrap is enough). Open
    // water has neither.
    if (STEP_BOUNDARY(params) == kBoundaryPeriodic) {
        for (int k = 0; k < 3; ++k) {
            float b = STEP_HALF_EXTENT(params, k);
            real q = pNext[k];
            pNext[k] = select(q >= b, q - 2.0f * b, select(q < -b, q + 2.0f * b, q));
        }
    } else if (STEP_BOUNDARY(params) != kBoundaryOpen) {
        // A round tank (docs/model.md "The round tank"): the floor and the surface as the box's,
        // the curved wall below.
        float radius = STEP_ARENA_RADIUS(params);
        for (int k = 0; k < 3; ++k) {
            if (radius > 0.0f && k != 1) continue;
            float b = STEP_HALF_EXTENT(params, k);
            real q = pNext[k];
            real w = vNext[k];
            flag above = q > b;
            flag below = q < -b;
            pNext[k] = select(above, 2.0f * b - q, select(below, -2.0f * b - q, q));
            vNext[k] = select(above, -abs(w), select(below, abs(w), w));
        }
        // Past the curved wall: mirrored back across it, the velocity's outward radial part
        // reversed. A step is shorter than the radius, so the mirror lands inside.
        real r2 = real(0.0f);
        if (radius > 0.0f) r2 = pNext.x * pNext.x + pNext.z * pNext.z;
        flag outside = r2 > radius * radius;
        if (anyLane(outside)) {
            real r = sqrt(r2);
            real nx = pNext.x / r;
            real nz = pNext.z / r;
            real mirrored = 2.0f * radius - r;
            pNext.x = select(outside, nx * mirrored, pNext.x);
            pNext.z = select(outside, nz * mirrored, pNext.z);
            real outward = vNext.x * nx + vNext.z * nz;
            flag turns = outside && outward > 0.0f;
            vNext.x = select(turns, vNext.x - 2.0f * outward * nx, vNext.x);
            vNext.z = select(turns, vNext.z - 2.0f * outward * nz, vNext.z);
        }
    }
    LaneUpdate next;
    next.position = pNext;
    next.velocity = vNext;
    next.acceleration = a;
    next.kickClock = clock;
    return next;
}
