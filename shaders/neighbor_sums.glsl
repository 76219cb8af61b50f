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
        vec3 d = nearestImage(other.position - p);
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

// The species the step tells apart: one past the table steps as the last (as on the CPU).
uint tableSpecies(uint species) {
    return min(species, speciesTable.counts.x - 1u);
}

// KE = m |v|^2 / 2 with the mass of `species` (a table species), for separationScaling
// "kinetic-energy".
float kineticEnergy(vec3 v, uint species) {
    return 0.5 * STEP_MASS(speciesTable.packs[species]) * dot(v, v);
}

// The fish whose sums are taken, as addNeighbor reads it: what it compares each candidate with,
// read from its pack once rather than per candidate (as the CPU's SearchConstants): with species
// the pack is indexed by each fish's species, a load that differs from lane to lane.
struct Searcher {
    vec3 heading;   // unit, or zero standing still: the field of view's axis, and the sidestep's
    vec3 velocity;  // for the closing speeds of the sidestep
    float cohesionRadius2, separationRadius2, alignmentRadius2;
    uint species;        // kFeatureSpecies: its table species
    float energy;        // kFeatureSpecies: its kinetic energy
    bool ownSpecies;     // kFeatureSpecies: schoolsWith "own"
    bool energyScaling;  // kFeatureSpecies: separationScaling "kinetic-energy"
    bool sidestep;       // kFeatureSpecies: kSidestep != 0
};

Searcher searcherOf(Fish self) {
    Searcher me;
    me.heading = vec3(0.0);
    if (STEP_HAS(kFeatureFieldOfView) || STEP_HAS(kFeatureSpecies))
        me.heading = normalizeOrZero(self.velocity);
    me.velocity = self.velocity;
    me.cohesionRadius2 = STEP_COHESION_RADIUS2(params);
    me.separationRadius2 = STEP_SEPARATION_RADIUS2(params);
    me.alignmentRadius2 = STEP_ALIGNMENT_RADIUS2(params);
    me.species = 0u;
    me.energy = 0.0;
    me.ownSpecies = me.energyScaling = me.sidestep = false;
    if (STEP_HAS(kFeatureSpecies)) {
        me.species = tableSpecies(self.species);
        me.energy = kineticEnergy(self.velocity, me.species);
        me.ownSpecies = STEP_OWN_SPECIES(params) != 0.0;
        me.energyScaling = STEP_ENERGY_SCALING(params) != 0.0;
        me.sidestep = STEP_K_SIDESTEP(params) != 0.0;
    }
    return me;
}

// kFeatureSpecies, separationScaling "kinetic-energy": j's separation offset weighted by
// KE_j / KE_i, at most 100 (100 for a moving j when the fish stands still, 1 when both do).
// CpuSolver.cpp's RangeAccumulator does the same, eight lanes at a time.
vec3 scaledByEnergy(Searcher me, vec3 offset, uint j) {
    if (!STEP_HAS(kFeatureSpecies) || !me.energyScaling) return offset;
    float theirs = NEIGHBOR_ENERGY(j);
    float ratio = me.energy > 0.0 ? min(theirs / me.energy, 100.0) : (theirs > 0.0 ? 100.0 : 1.0);
    return offset * ratio;
}

// kFeatureSpecies, kSidestep: a separation neighbour that closes in (d . (v_j - v_i) < 0) adds
// the part of its offset across the heading, times the closing speed over d^2.
void addSidestep(Searcher me, vec3 d, float d2, uint j, inout NeighborSums s) {
    if (!me.sidestep) return;
    float closing = -dot(d, NEIGHBOR_VELOCITY(j) - me.velocity);
    if (closing > 0.0 && d2 > 0.0)
        s.sidestep += (d - dot(me.heading, d) * me.heading) * (closing / d2);
}

// neighborSelection "topological": a first pass over the candidates keeps the k nearest within
// the largest radius, in the order of nearerThan (d2, ties by the lower id); the second pass sums
// only them. (The CPU keeps the same set: CpuSolver.cpp.)
// The list is sorted in the last k of KEPT_CAPACITY slots (a define of the backend's: a power of
// two from 8 that holds k), so that the k-th kept, which every candidate is weighed against, has
// a fixed index, and every index is fixed once the loops unroll: the list stays in registers,
// where a list indexed at run time lives in memory. The slots before the last k hold -1, which no
// candidate displaces; an empty slot holds reach2, which no candidate within reach ties. The list
// holds each kept fish's handle (NEIGHBOR_HANDLE, a macro of the including shader: where it lies
// in the school read); its id, one more read, is read (HANDLE_ID) only for a tie in d2.
#ifndef KEPT_CAPACITY
#define KEPT_CAPACITY 8u
#endif
float keptD2[KEPT_CAPACITY];
uint keptHandle[KEPT_CAPACITY];
const uint kKthKept = KEPT_CAPACITY - 1u;

float nearestReach2() {
    return max(max(STEP_COHESION_RADIUS2(params), STEP_SEPARATION_RADIUS2(params)),
               STEP_ALIGNMENT_RADIUS2(params));
}

void startNearest() {
    uint k = uint(STEP_NEIGHBOR_COUNT(params));
    for (uint n = 0u; n < KEPT_CAPACITY; ++n) {
        keptD2[n] = n + k >= KEPT_CAPACITY ? nearestReach2() : -1.0;
        keptHandle[n] = 0u;
    }
}

// Whether candidate j at d2 comes before the kept (otherD2, otherHandle) in nearerThan's order.
bool nearerThanKept(float d2, uint j, float otherD2, uint otherHandle) {
    if (d2 != otherD2) return d2 < otherD2;
    return NEIGHBOR_ID(j) < HANDLE_ID(otherHandle);
}

void considerNearest(float d2, uint j) {
    if (!(d2 < nearestReach2()) || !nearerThanKept(d2, j, keptD2[kKthKept], keptHandle[kKthKept]))
        return;
    // The candidate takes the k-th's slot, then moves down past each kept that comes after it.
    uint handle = NEIGHBOR_HANDLE(j);
    keptD2[kKthKept] = d2;
    keptHandle[kKthKept] = handle;
    bool moving = true;
    for (uint n = kKthKept; n > 0u; --n) {
        // Slot n - 1 before the last k holds -1: the candidate stops there.
        bool past = moving && nearerThanKept(d2, j, keptD2[n - 1u], keptHandle[n - 1u]);
        keptD2[n] = past ? keptD2[n - 1u] : keptD2[n];
        keptHandle[n] = past ? keptHandle[n - 1u] : keptHandle[n];
        keptD2[n - 1u] = past ? d2 : keptD2[n - 1u];
        keptHandle[n - 1u] = past ? handle : keptHandle[n - 1u];
        moving = past;
    }
}

// After the first pass: whether candidate j at d2 is one of the nearest kept. With fewer than k
// within reach, every one within reach is (the k-th slot is empty; the rules' radii lie within
// the reach).
bool isNearest(float d2, uint j) {
    float kth = keptD2[kKthKept];
    if (d2 != kth) return d2 < kth;
    return d2 < nearestReach2() && NEIGHBOR_ID(j) <= HANDLE_ID(keptHandle[kKthKept]);
}

// pj: the candidate's position; d = pj - pi, d2 = |d|^2; j: where NEIGHBOR_VELOCITY(j), a macro
// of the including shader, finds its velocity (read only for an alignment or, with kSidestep or
// energy scaling, a separation neighbour); with kFeatureSpecies NEIGHBOR_SPECIES(j) its table
// species and NEIGHBOR_ENERGY(j) its kinetic energy.
void addNeighbor(Searcher me, vec3 pj, vec3 d, float d2, uint j, inout NeighborSums s) {
    if (STEP_HAS(kFeatureTopological) && !isNearest(d2, j)) return;
    if (STEP_HAS(kFeatureFieldOfView) && !inView(me.heading, d, d2)) return;
    // schoolsWith "own": cohesion and alignment count the fish's own species only.
    bool schools = true;
    if (STEP_HAS(kFeatureSpecies) && me.ownSpecies) schools = NEIGHBOR_SPECIES(j) == me.species;
    if (STEP_HAS(kFeatureSpecies) && d2 < me.separationRadius2) addSidestep(me, d, d2, j, s);
    if (STEP_HAS(kFeatureCouzin)) {
        // The paper's zones: unit offsets (none for a neighbour at the same point), attraction
        // from the shell beyond the orientation zone.
        vec3 unit = d2 > 0.0 ? d * inversesqrt(d2) : vec3(0.0);
        if (schools && d2 < me.cohesionRadius2 && d2 >= me.alignmentRadius2) {
            s.cohesion += unit;
            s.cohesionCount++;
        }
        if (d2 < me.separationRadius2) {
            s.separation += scaledByEnergy(me, unit, j);
            s.separationCount++;
        }
        if (schools && d2 < me.alignmentRadius2) {
            s.alignment += NEIGHBOR_VELOCITY(j);
            s.alignmentCount++;
        }
        return;
    }
    if (schools && d2 < me.cohesionRadius2) {
        s.cohesion += pj;
        s.cohesionCount++;
    }
    if (d2 < me.separationRadius2) {
        // separationFalloff "inverse-square": each offset over its squared length (0 at d2 = 0).
        if (STEP_HAS(kFeatureInverseSquare)) {
            if (d2 > 0.0) s.separation += scaledByEnergy(me, d / d2, j);
        } else {
            s.separation += scaledByEnergy(me, d, j);
        }
        s.separationCount++;
    }
    if (schools && d2 < me.alignmentRadius2) {
        if (STEP_HAS(kFeatureVicsek)) {
            // Steering "vicsek": the neighbour's unit heading (none for one standing still).
            vec3 vj = NEIGHBOR_VELOCITY(j);
            float v2 = dot(vj, vj);
            s.alignment += v2 > 0.0 ? vj * inversesqrt(v2) : vec3(0.0);
        } else {
            s.alignment += NEIGHBOR_VELOCITY(j);
        }
        s.alignmentCount++;
    }
}

// A candidate of `pass`: 0 (topological only) finds the nearest, 1 sums.
void visitNeighbor(uint pass, Searcher me, vec3 pj, vec3 d, float d2, uint j,
                   inout NeighborSums s) {
    if (STEP_HAS(kFeatureTopological) && pass == 0u) {
        considerNearest(d2, j);
        return;
    }
    addNeighbor(me, pj, d, d2, j, s);
}

// The first pass: 0 to find the nearest first (topological), else 1; none (2) for steering
// "burst-and-coast", whose rule reads the neighbours itself at kicks.
uint firstPass() {
    if (STEP_HAS(kFeatureBurst)) return 2u;
    return STEP_HAS(kFeatureTopological) ? 0u : 1u;
}
