// What the fish cull pass and the fish vertex shader share: how large each fish is drawn and
// where the cull pass leaves the fish of each level of detail.

uniform float fishLength;   // m, the config's bodyLength: a fish's length without species
uniform uint speciesCount;  // the school's species; 0 without
uniform float speciesLength[16];  // m, each species' bodyLength (kMaxSpecies of them at most)
uniform uint leaderCount;   // fish [0, leaderCount) lead: drawn larger, in gold
uniform uint specialCount;  // fish [leaderCount, specialCount) are predators: larger still

// To scale by its species; leaders and predators large enough to be found among thousands at a
// glance.
float drawnLength(Fish f) {
    float length =
        speciesCount == 0u ? fishLength : speciesLength[min(f.species, speciesCount - 1u)];
    if (f.id < leaderCount) return 2.2 * length;
    if (f.id < specialCount) return 4.0 * length;
    return length;
}

// The fish to draw at each level, as indices into the fish buffer: level k's list starts at
// k * listCapacity.
layout(std430, binding = 12) buffer DrawLists { uint drawList[]; };

// The meshes of every level, one after the other, as unindexed triangles.
struct MeshVertex {
    vec4 position;  // xyz, m, for a fish 1 m long along +z
    vec4 normal;    // xyz
};
layout(std430, binding = 13) readonly buffer MeshVertices { MeshVertex meshVertices[]; };
