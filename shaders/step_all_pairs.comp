#version 430
// One step, all-pairs, with the classic N-body tiling: each workgroup loads a tile of fish into
// shared memory, then every invocation reads the whole tile from there.
// WORKGROUP_SIZE and STEP_FEATURES are defined by the backend.
layout(local_size_x = WORKGROUP_SIZE) in;

#define STEP_PACK_PER_FISH
#include "fish_layout.glsl"
#include "step_rule.h"

// xyz the position and velocity; with kFeatureSpecies, w the table species and kinetic energy.
shared vec4 tilePosition[WORKGROUP_SIZE];
shared vec4 tileVelocity[WORKGROUP_SIZE];
shared uint tileId[WORKGROUP_SIZE];  // topological: ties go to the lower id

#define NEIGHBOR_VELOCITY(k) tileVelocity[k].xyz
#define NEIGHBOR_SPECIES(k) uint(tilePosition[k].w)
#define NEIGHBOR_ENERGY(k) tileVelocity[k].w
#define NEIGHBOR_ID(k) tileId[k]
#define NEIGHBOR_HANDLE(k) tileId[k]  // its id: the tile's slots are taken again
#define HANDLE_ID(h) (h)
#include "neighbor_sums.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = STEP_FISH_COUNT(params);
    uint src = STEP_FIRST_FISH_READ(params);
    bool inRange = i < n;
    Fish self = fish[src + min(i, n - 1u)];
    // From here on `params` is the pack of this fish's species.
    if (STEP_HAS(kFeatureSpecies)) stepSpecies = tableSpecies(self.species);
    Searcher me = searcherOf(self);
    NeighborSums sums = emptySums();

    if (firstPass() == 0u) startNearest();
    for (uint pass = firstPass(); pass < 2u; ++pass) {
        for (uint tileStart = 0u; tileStart < n; tileStart += WORKGROUP_SIZE) {
            uint j = tileStart + gl_LocalInvocationID.x;
            if (j < n) {
                Fish other = fish[src + j];
                uint species = 0u;
                float energy = 0.0;
                if (STEP_HAS(kFeatureSpecies)) {
                    species = tableSpecies(other.species);
                    energy = kineticEnergy(other.velocity, species);
                }
                tilePosition[gl_LocalInvocationID.x] = vec4(other.position, float(species));
                tileVelocity[gl_LocalInvocationID.x] = vec4(other.velocity, energy);
                if (STEP_HAS(kFeatureTopological)) tileId[gl_LocalInvocationID.x] = other.id;
            }
            barrier();
            uint tileCount = min(uint(WORKGROUP_SIZE), n - tileStart);
            for (uint k = 0u; k < tileCount; ++k) {
                vec3 pj = tilePosition[k].xyz;
                vec3 d = pj - self.position;
                // A periodic tank: the neighbour's nearest image.
                if (STEP_BOUNDARY(params) == kBoundaryPeriodic) {
                    d = nearestImage(d);
                    pj = self.position + d;
                }
                if (tileStart + k != i) visitNeighbor(pass, me, pj, d, dot(d, d), k, sums);
            }
            barrier();
        }
    }
    vec3 prey = self.position;
    if (STEP_HAS(kFeatureKinds) && kindOf(self.id) == kKindPredator)
        prey = nearestPrey(min(i, n - 1u), self.position);
    if (inRange) {
        FishUpdate next =
            integrateFish(self.position, self.velocity, self.kickClock, sums, self.id, prey);
        fish[STEP_FIRST_FISH_WRITTEN(params) + i] =
            Fish(next.position, self.id, next.velocity, self.species, next.acceleration,
                 next.kickClock);
    }
}
