// docs/model.md "One step", step 1, on the GPU: one candidate neighbour added to the sums of a
// fish, with the view test of step_rule.h compiled in only when the field of view is on. (The
// CPU's loop is the same test, eight lanes at a time, in CpuSolver.cpp.)

// A predator's prey: the position of the nearest fish of the half read that is not a predator
// (p itself when there is none). Every fish is a candidate, whatever the search: predators are
// few. Ties go to the lower slot.
vec3 nearestPrey(uint self, vec3 p) {
    vec3 prey = p;
    float nearest = 3.40282347e38;
    for (uint j = 0u; j < STEP_FISH_COUNT(params); ++j) {
        Fish other = fish[STEP_FIRST_FISH_READ(params) + j];
        bool predator =
            other.id >= STEP_LEADERS_END(params) && other.id < STEP_PREDATORS_END(params);
        if (j == self || predator) continue;
        vec3 d = other.position - p;
        float d2 = dot(d, d);
        if (d2 < nearest) {
            nearest = d2;
            prey = other.position;
        }
    }
    return prey;
}

NeighborSums emptySums() {
    return NeighborSums(vec3(0.0), vec3(0.0), vec3(0.0), vec3(0.0), 0u, 0u, 0u);
}

// pj: the candidate's position; d = pj - pi, d2 = |d|^2; j: where NEIGHBOR_VELOCITY(j), a macro
// of the including shader, finds its velocity (read only for an alignment neighbour).
void addNeighbor(vec3 heading, vec3 pj, vec3 d, float d2, uint j, inout NeighborSums s) {
    if (STEP_HAS(kFeatureFieldOfView) && !inView(heading, d, d2)) return;
    if (STEP_HAS(kFeatureCouzin)) {
        // The paper's zones: unit offsets (none for a neighbour at the same point), attraction
        // from the shell beyond the orientation zone.
        vec3 unit = d2 > 0.0 ? d * inversesqrt(d2) : vec3(0.0);
        if (d2 < STEP_COHESION_RADIUS2(params) && d2 >= STEP_ALIGNMENT_RADIUS2(params)) {
            s.cohesion += unit;
            s.cohesionCount++;
        }
        if (d2 < STEP_SEPARATION_RADIUS2(params)) {
            s.separation += unit;
            s.separationCount++;
        }
        if (d2 < STEP_ALIGNMENT_RADIUS2(params)) {
            s.alignment += NEIGHBOR_VELOCITY(j);
            s.alignmentCount++;
        }
        return;
    }
    if (d2 < STEP_COHESION_RADIUS2(params)) {
        s.cohesion += pj;
        s.cohesionCount++;
    }
    if (d2 < STEP_SEPARATION_RADIUS2(params)) {
        // separationFalloff "inverse-square": each offset over its squared length (0 at d2 = 0).
        if (STEP_HAS(kFeatureInverseSquare)) {
            if (d2 > 0.0) s.separation += d / d2;
        } else {
            s.separation += d;
        }
        s.separationCount++;
    }
    if (d2 < STEP_ALIGNMENT_RADIUS2(params)) {
        s.alignment += NEIGHBOR_VELOCITY(j);
        s.alignmentCount++;
    }
}
