#pragma once

// The data the GL compute backend shares with its shaders. The fish and the binding points are
// defined once, in shaders/gpu_layout.h, and the step's parameters in shaders/step_params.h
// (through core/StepRule.h); GLSL includes both too. The static_asserts here and in StepRule.h
// pin every offset the shaders rely on (std430 for the fish, std140 for the parameters).

#include <cstddef>
#include <cstdint>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "core/StepRule.h"

namespace fishschool::glsl {
#include "gpu_layout.h"
}  // namespace fishschool::glsl

namespace fishschool::gpu {

/// One fish in the 2N storage buffer.
using GpuFish = glsl::Fish;
/// The step's parameters (the std140 uniform block StepParams).
using GpuStepParams = glsl::StepParamsData;
/// Each species' pack, as the step shaders read them (the std140 uniform block SpeciesParams).
using GpuSpeciesTable = glsl::SpeciesTable;
/// A rock: xyz centre, w radius.
using GpuRock = glm::vec4;

using glsl::kBlockSumBinding;
using glsl::kCellCountBinding;
using glsl::kCellStartBinding;
using glsl::kDrawCommandBinding;
using glsl::kDrawListBinding;
using glsl::kFishBinding;
using glsl::kFishCellBinding;
using glsl::kFlowBinding;
using glsl::kMeshVertexBinding;
using glsl::kParamsBinding;
using glsl::kRockBinding;
using glsl::kSortedPositionBinding;
using glsl::kSpecialBinding;
using glsl::kSpeciesParamsBinding;
using glsl::kStagingBinding;

static_assert(sizeof(GpuFish) == 48, "Fish in gpu_layout.h: std430 size");
static_assert(offsetof(GpuFish, position) == 0);
static_assert(offsetof(GpuFish, id) == 12);
static_assert(offsetof(GpuFish, velocity) == 16);
static_assert(offsetof(GpuFish, species) == 28);
static_assert(offsetof(GpuFish, acceleration) == 32);
static_assert(offsetof(GpuFish, kickClock) == 44);

static_assert(glsl::kSpeciesTableSize == kMaxSpecies, "the table holds every species allowed");
static_assert(offsetof(GpuSpeciesTable, counts) == 0);
static_assert(offsetof(GpuSpeciesTable, packs) == 16);
static_assert(sizeof(GpuSpeciesTable) == 16 + kMaxSpecies * sizeof(GpuStepParams),
              "SpeciesTable in gpu_layout.h: std140 size (an array of structs, stride 368)");

static_assert(sizeof(GpuRock) == 16, "RockBuffer in fish_layout.glsl: std430 vec4");

}  // namespace fishschool::gpu
