// The data the GL compute backend shares with its shaders, defined once, in the subset of C++
// and GLSL that both read the same way (the step's parameters are in step_params.h). GLSL
// includes it from fish_layout.glsl; C++ from src/gpu/GpuLayout.h, inside the namespace
// fishschool::glsl that names the GLSL types, whose static_asserts check the std430 offsets.
// No include guard: C++ must include it inside that namespace, once.

// One fish in the 2N storage buffer (std430: a vec3 followed by a 4-byte member shares its
// 16-byte slot).
struct Fish {
    vec3 position;  // m
    uint id;        // upload index, so a reordered school downloads in upload order
    vec3 velocity;  // m/s
    uint species;   // index into SimParams::species, as uploaded
    vec3 acceleration;  // m/s^2
    float kickClock;    // s: steering "burst-and-coast": the time to the next kick; else 0
};

// The parameter packs the step shaders read (makeSpeciesStepParams, with the step's grid, halves
// and index in each): the fish of species s step with packs[min(s, count - 1)]. Without species
// the one pack is the school's. The uniform block SpeciesParams (std140).
const uint kSpeciesTableSize = 16u;  // kMaxSpecies
struct SpeciesTable {
    uvec4 counts;  // x the packs in use (1 to kSpeciesTableSize); y, z, w unused
    StepParamsData packs[kSpeciesTableSize];
};

// Binding points. The shaders' layout(binding = ...) qualifiers repeat them as literals (GLSL
// 4.30 takes no constant there); a test checks every one against these.
const uint kParamsBinding = 0u;          // uniform StepParams
const uint kFishBinding = 1u;            // buffer FishBuffer: the 2N fish
const uint kRockBinding = 2u;            // buffer RockBuffer: xyz centre, w radius
const uint kCellCountBinding = 3u;       // buffer CellCounts: fish per cell
const uint kCellStartBinding = 4u;       // buffer CellStarts: first sorted slot per cell, cells + 1
const uint kFishCellBinding = 5u;        // buffer FishCells: (cell, rank in cell) per fish
const uint kBlockSumBinding = 6u;        // buffer BlockSums: scan partial sums
const uint kSortedPositionBinding = 7u;  // buffer SortedPositions: positions in cell order, packed
const uint kStagingBinding = 8u;         // buffer Staging: the current half, copied for read-back
const uint kFlowBinding = 9u;            // buffer FlowField: a vec4 direction per node
const uint kSpecialBinding = 10u;        // buffer Specials: leaders and predators, by upload index
const uint kDrawCommandBinding = 11u;    // buffer DrawCommands: the fish draws, one per level
const uint kDrawListBinding = 12u;       // buffer DrawLists: the fish of each level, to draw
const uint kMeshVertexBinding = 13u;     // buffer MeshVertices: the fish meshes of every level
const uint kSpeciesParamsBinding = 14u;  // uniform SpeciesParams: the step's packs, per species
