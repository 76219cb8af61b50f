#pragma once

#include <glad/gl.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "GlObjects.h"
#include "GpuLayout.h"
#include "GpuTimer.h"
#include "core/Backend.h"
#include "core/FlowField.h"
#include "core/GridShape.h"

#ifndef FISHSCHOOL_GPU_WORKGROUP_SIZE
#error "FISHSCHOOL_GPU_WORKGROUP_SIZE comes from src/gpu/CMakeLists.txt: link fishschool_gpu"
#endif

namespace fishschool::gpu {

/// Shader sources can be replaced (by file name) for tests of the failure path.
struct GpuShaderOverrides {
    std::string allPairsSource;  ///< replaces step_all_pairs.comp when not empty
    /// The step fails to compile for every set of behaviours with one of these kFeature* bits,
    /// as a driver's bug would.
    std::uint32_t brokenFeatures = 0;
};

/// A storage buffer limit lower than the GL's, and the name messages give it (the environment
/// variable that asked for it): a GPU's limit tested without its gigabytes.
struct GpuStorageLimit {
    std::int64_t bytes = 0;
    std::string name;
};

/// docs/model.md's step as OpenGL compute shaders, one invocation per fish, over one storage buffer
/// of 2N fish: one half holds the previous state, the other receives the next, and the halves swap
/// roles by offset, never by copy. The renderer draws straight from that buffer.
class GpuBackend final : public Backend {
  public:
    using ShaderOverrides = GpuShaderOverrides;

    /// Needs a current OpenGL 4.3+ context on this thread. Fails with the reason (missing
    /// compute support, a shader's compile log, ...) rather than crashing.
    [[nodiscard]] static Result<std::unique_ptr<GpuBackend>> create(
        const SimParams& params, const ShaderOverrides& overrides = {},
        const std::optional<GpuStorageLimit>& lowerLimit = std::nullopt);

    ~GpuBackend() override;
    GpuBackend(const GpuBackend&) = delete;
    GpuBackend& operator=(const GpuBackend&) = delete;

    BackendKind kind() const override { return BackendKind::Gpu; }
    std::string description() const override { return renderer_; }
    [[nodiscard]] Result<void> setParams(const SimParams& params) override;
    [[nodiscard]] Result<void> upload(std::span<const Fish> school) override;
    School download() override;
    /// Copies the current half into a mapped buffer on the GPU; takeSnapshot() hands it out once
    /// a fence says the copy is done, and the snapshot reads the mapped memory from any thread.
    void requestSnapshot() override;
    std::shared_ptr<const SchoolSnapshot> takeSnapshot() override;
    std::size_t fishCount() const override { return fishCount_; }
    void finish() override;
    bool stepsAsynchronously() const override { return true; }
    std::optional<double> collectStepMilliseconds() override;
    [[nodiscard]] Result<void> health() const override;
    std::optional<GpuDrawSource> drawSource() const override {
        return GpuDrawSource{fishBuffer(), currentFirstFish(), fishCount_};
    }

    /// How many sets of behaviours the step has been compiled for (each once, then cached).
    std::size_t compiledStepSets() const { return stepProgramCache_.size(); }

    /// The storage buffer of 2N GpuFish, and the index of the first fish of the current half.
    GLuint fishBuffer() const { return fishBuffer_.id(); }
    std::size_t currentFirstFish() const { return currentHalf_ * fishCount_; }

    /// Invocations per compute workgroup, passed to the shaders as WORKGROUP_SIZE; set with the
    /// CMake cache variable FISHSCHOOL_GPU_WORKGROUP_SIZE.
    static constexpr unsigned kWorkgroupSize = FISHSCHOOL_GPU_WORKGROUP_SIZE;
    static_assert(kWorkgroupSize >= 32 && kWorkgroupSize <= 1024 &&
                      (kWorkgroupSize & (kWorkgroupSize - 1)) == 0,
                  "FISHSCHOOL_GPU_WORKGROUP_SIZE must be a power of two from 32 to 1024");

  protected:
    void stepImpl() override;

  private:
    GpuBackend() = default;
    /// Fails when 2 * fishCount fish exceed GL_MAX_SHADER_STORAGE_BLOCK_SIZE, or one invocation
    /// per fish exceeds GL_MAX_COMPUTE_WORK_GROUP_COUNT.
    [[nodiscard]] Result<void> checkStorageFits(std::size_t fishCount) const;
    /// The school's pack (StepParams) and each species' (SpeciesParams), with the step's grid,
    /// halves and index.
    void writeStepParams(std::size_t readFirst, std::size_t writeFirst, const GridShape& grid);
    void ensureGridBuffers(std::size_t cells);
    void dispatchOverFish(const GlProgram& program);
    /// The step's dispatches, timed by stepTimer_.
    void dispatchStep();
    GpuTimer stepTimer_;
    /// Takes GL's errors; the first of them since the upload becomes the backend's fault.
    void noteGlErrors(const char* where);

    std::string renderer_;
    SimParams params_;
    GLint64 maxStorageBlockBytes_ = 0;
    std::string storageLimitName_;       ///< what set maxStorageBlockBytes_, for messages
    std::size_t maxWorkgroups_ = 65535;  ///< GL_MAX_COMPUTE_WORK_GROUP_COUNT along x

    /// The step's two programs, compiled for one set of behaviours (STEP_FEATURES).
    struct StepPrograms {
        GlProgram allPairs, grid;
    };
    /// The programs for `features` with a topological kept list of `keptCapacity` slots,
    /// compiled on first use and kept: switching a behaviour on and off again compiles nothing.
    /// Fails with the compile log.
    [[nodiscard]] Result<const StepPrograms*> stepProgramsFor(std::uint32_t features,
                                                              std::uint32_t keptCapacity);

    ShaderOverrides overrides_;
    GlProgram copyFish_, gridCount_, gridScanBlocks_, gridScanSums_, gridScanAdd_, gridScatter_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, StepPrograms> stepProgramCache_;
    const StepPrograms* stepPrograms_ = nullptr;  ///< those of params_, from the cache
    GpuStepParams stepParams_{};                  ///< params_ as the step reads them
    /// Each species' pack (makeSpeciesStepParams: one without species), which the step shaders
    /// read from speciesBuffer_ by the species of each fish.
    std::vector<GpuStepParams> speciesParams_;
    GlBuffer paramsBuffer_, speciesBuffer_, fishBuffer_, rockBuffer_;
    std::shared_ptr<const FlowField> flow_;  ///< when seeking along a flow field
    GlBuffer specialBuffer_;  ///< leaders and predators, by upload index (two vec4 each)
    GlProgram gatherSpecials_;
    GlBuffer flowBuffer_;      ///< flow_'s nodes, or one zero when there is none
    GlBuffer readbackBuffer_;  ///< client-side copy of the current half, for download()
    /// A persistently mapped copy of the current half for a snapshot.
    struct MappedFish {
        GlBuffer buffer;
        const GpuFish* fish = nullptr;
        std::size_t capacity = 0;
    };
    std::shared_ptr<MappedFish> snapshotFish_;
    /// Mapped copies that snapshots still read; each is deleted here once they let go.
    std::vector<std::shared_ptr<MappedFish>> retiredSnapshotFish_;
    GlFence snapshotCopied_;
    std::size_t snapshotCount_ = 0;
    bool snapshotPending_ = false;
    void deleteUnreadSnapshotFish();
    GlBuffer cellCounts_, cellStarts_, fishCells_, blockSums_, sortedPositions_;
    std::size_t gridCellCapacity_ = 0;
    std::size_t fishCount_ = 0;
    std::size_t currentHalf_ = 0;  ///< 0 or 1
    /// The first GL error since the upload ("" for none): the school is not to be trusted, and
    /// steps do nothing until the next upload.
    std::string fault_;
    /// Why the step did not compile for the parameters set last ("" when it did).
    std::string compileFault_;
};

/// Whether this thread's current context can run the gpu backend; the error says why not.
[[nodiscard]] Result<void> probeComputeSupport();

}  // namespace fishschool::gpu
