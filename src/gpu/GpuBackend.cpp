#include "GpuBackend.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "ShaderFiles.h"
#include "core/GridShape.h"
#include "core/Messages.h"
#include "gpu/GpuErrors.h"

namespace fishschool::gpu {
namespace {

// Cells a little wider than on the CPU: the shaders find cells in float, not double.
constexpr float kGpuCellMargin = 1.001f;

std::string glString(GLenum name) {
    const auto* text = reinterpret_cast<const char*>(glGetString(name));
    return text ? text : "unknown";
}

std::string workgroupDefine(unsigned size) {
    return "#define WORKGROUP_SIZE " + std::to_string(size) + "u\n";
}

// The slots of the topological kept list (neighbor_sums.glsl's KEPT_CAPACITY): the smallest of
// 8, 16, 32 and 64 that holds the k of every species' pack. Few slots keep the list in
// registers; a new k compiles the step again only past a bucket.
std::uint32_t keptCapacity(std::uint32_t features, const std::vector<GpuStepParams>& packs) {
    std::uint32_t k = 1;
    if ((features & glsl::kFeatureTopological) != 0u) {
        for (const GpuStepParams& pack : packs)
            k = std::max(k, static_cast<std::uint32_t>(STEP_NEIGHBOR_COUNT(pack)));
    }
    return std::bit_ceil(std::clamp(k, 8u, glsl::kMaxNeighborCount));
}

GLuint groupsFor(std::size_t count) {
    return static_cast<GLuint>((count + GpuBackend::kWorkgroupSize - 1) /
                               GpuBackend::kWorkgroupSize);
}

}  // namespace

Result<void> probeComputeSupport() {
    if (glGetString == nullptr || glGetIntegerv == nullptr)
        return fail("GL 4.3 compute not available: no OpenGL context is current");
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    // Loaded once, but no context current now: GL answers nothing.
    if (major == 0) return fail("GL 4.3 compute not available: no OpenGL context is current");
    if (major < 4 || (major == 4 && minor < 3) || glDispatchCompute == nullptr)
        return fail("GL 4.3 compute not available: this context is " + std::to_string(major) + "." +
                    std::to_string(minor) + " (" + glString(GL_RENDERER) + ")");
    return {};
}

Result<std::unique_ptr<GpuBackend>> GpuBackend::create(
    const SimParams& params, const ShaderOverrides& overrides,
    const std::optional<GpuStorageLimit>& lowerLimit) {
    if (auto ok = probeComputeSupport(); !ok) return fail(ok.error());
    auto backend = std::unique_ptr<GpuBackend>(new GpuBackend);
    backend->renderer_ = "gpu, " + glString(GL_RENDERER);
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &backend->maxStorageBlockBytes_);
    backend->storageLimitName_ = "GL_MAX_SHADER_STORAGE_BLOCK_SIZE";
    // A lower limit can be asked for, to test a GPU's limit without its gigabytes or to leave
    // memory to other work.
    if (lowerLimit && lowerLimit->bytes < backend->maxStorageBlockBytes_) {
        backend->maxStorageBlockBytes_ = lowerLimit->bytes;
        backend->storageLimitName_ = lowerLimit->name;
    }
    GLint maxGroups = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &maxGroups);
    backend->maxWorkgroups_ = static_cast<std::size_t>(std::max(maxGroups, 1));
    if (params.fishCount > 0) {
        if (auto ok = backend->checkStorageFits(static_cast<std::size_t>(params.fishCount)); !ok)
            return fail(ok.error());
    }

    backend->overrides_ = overrides;
    const std::string defines = workgroupDefine(kWorkgroupSize);
    auto compile = [&](const char* file, const std::string& extra = "") -> Result<GlProgram> {
        return GlProgram::fromFiles({{GL_COMPUTE_SHADER, file}}, defines + extra);
    };
    struct Named {
        GlProgram* program;
        const char* file;
        const char* extra;
    };
    const Named programs[] = {
        {&backend->copyFish_, "copy_fish.comp", ""},
        {&backend->gridCount_, "grid_count.comp", ""},
        {&backend->gridScanBlocks_, "grid_scan.comp", "#define SCAN_PASS 0\n"},
        {&backend->gridScanSums_, "grid_scan.comp", "#define SCAN_PASS 1\n"},
        {&backend->gridScanAdd_, "grid_scan.comp", "#define SCAN_PASS 2\n"},
        {&backend->gridScatter_, "grid_scatter.comp", ""},
        {&backend->gatherSpecials_, "gather_specials.comp", ""},
    };
    for (const Named& named : programs) {
        auto program = compile(named.file, named.extra);
        if (!program) return fail(program.error());
        *named.program = std::move(*program);
    }

    backend->paramsBuffer_ =
        GlBuffer::create(sizeof(GpuStepParams), nullptr, GL_DYNAMIC_STORAGE_BIT);
    backend->speciesBuffer_ =
        GlBuffer::create(sizeof(GpuSpeciesTable), nullptr, GL_DYNAMIC_STORAGE_BIT);
    const std::uint32_t features = stepFeatures(params);
    if (auto programs = backend->stepProgramsFor(
            features, keptCapacity(features, makeSpeciesStepParams(params, nullptr)));
        !programs)
        return fail(programs.error());
    if (auto ok = backend->setParams(params); !ok) return fail(ok.error());
    if (auto ok = takeGlErrors("GpuBackend::create"); !ok) return fail("gpu: " + ok.error());
    return backend;
}

Result<void> GpuBackend::setParams(const SimParams& params) {
    if (!rockBuffer_ || params.rocks != params_.rocks) {  // a slider moves a weight far more often
        std::vector<GpuRock> rocks = packRocks(params);
        if (rocks.empty()) rocks.emplace_back(0.0f);  // a zero-sized buffer cannot be bound
        rockBuffer_ = GlBuffer::create(static_cast<GLsizeiptr>(rocks.size() * sizeof(GpuRock)),
                                       rocks.data(), 0);
    }
    params_ = params;
    auto flow = FlowField::forParams(params, flow_);
    if (flow != flow_ || !flowBuffer_) {
        const glm::vec4 none(0.0f);
        const auto bytes =
            static_cast<GLsizeiptr>((flow ? flow->nodes().size() : 1) * sizeof(glm::vec4));
        flowBuffer_ = GlBuffer::create(bytes, flow ? flow->nodes().data() : &none, 0);
        flow_ = std::move(flow);
    }
    stepParams_ = makeStepParams(params, flow_.get());
    speciesParams_ = makeSpeciesStepParams(params, flow_.get());
    const auto specialBytes = static_cast<GLsizeiptr>(
        (2 * std::size_t{STEP_PREDATORS_END(stepParams_)} + 2) * sizeof(glm::vec4));
    if (!specialBuffer_ || specialBuffer_.size() < specialBytes)
        specialBuffer_ = GlBuffer::create(specialBytes, nullptr, GL_DYNAMIC_STORAGE_BIT);
    // The step compiled for this set of behaviours: from the cache, or compiled now. Every set
    // compiles (a test builds them all), so a failure here is the driver's: the school is not to
    // be stepped with programs for other behaviours, so steps stop and health() says why.
    const std::uint32_t features = stepFeatures(params);
    auto programs = stepProgramsFor(features, keptCapacity(features, speciesParams_));
    (void)checkGlErrors("GpuBackend::setParams");  // on stderr, in runs with GL debugging
    if (!programs) {
        stepPrograms_ = nullptr;
        compileFault_ = "gpu: " + programs.error();
        if (fault_.empty()) fault_ = compileFault_;
        return fail(compileFault_);
    }
    stepPrograms_ = *programs;
    compileFault_.clear();
    return {};
}

Result<const GpuBackend::StepPrograms*> GpuBackend::stepProgramsFor(std::uint32_t features,
                                                                    std::uint32_t keptCapacity) {
    const auto key = std::make_pair(features, keptCapacity);
    auto cached = stepProgramCache_.find(key);
    if (cached != stepProgramCache_.end()) return &cached->second;
    std::string defines = workgroupDefine(kWorkgroupSize) + "#define STEP_FEATURES " +
                          std::to_string(features) + "u\n#define KEPT_CAPACITY " +
                          std::to_string(keptCapacity) + "u\n";
    if ((features & overrides_.brokenFeatures) != 0u)
        defines += "#error refused by ShaderOverrides::brokenFeatures\n";
    StepPrograms programs;
    if (overrides_.allPairsSource.empty()) {
        auto allPairs = GlProgram::fromFiles({{GL_COMPUTE_SHADER, "step_all_pairs.comp"}}, defines);
        if (!allPairs) return fail(allPairs.error());
        programs.allPairs = std::move(*allPairs);
    } else {
        auto allPairs = GlProgram::fromSources(
            {{GL_COMPUTE_SHADER, "step_all_pairs.comp (override)", overrides_.allPairsSource}});
        if (!allPairs) return fail(allPairs.error());
        programs.allPairs = std::move(*allPairs);
    }
    auto grid = GlProgram::fromFiles({{GL_COMPUTE_SHADER, "step_grid.comp"}}, defines);
    if (!grid) return fail(grid.error());
    programs.grid = std::move(*grid);
    return &stepProgramCache_.emplace(key, std::move(programs)).first->second;
}

Result<void> GpuBackend::checkStorageFits(std::size_t fishCount) const {
    const std::size_t bytes = std::max<std::size_t>(2 * fishCount, 1) * sizeof(GpuFish);
    if (groupsFor(fishCount) > maxWorkgroups_)
        return fail("gpu: " + std::to_string(fishCount) + " fish need " +
                    std::to_string(groupsFor(fishCount)) + " workgroups; this GPU runs at most " +
                    std::to_string(maxWorkgroups_) + " (GL_MAX_COMPUTE_WORK_GROUP_COUNT)");
    if (static_cast<GLint64>(bytes) <= maxStorageBlockBytes_) return {};
    return fail("gpu: " + std::to_string(fishCount) + " fish need a storage buffer of " +
                std::to_string(bytes) + " bytes (2 copies of 48 bytes per fish); this GPU allows " +
                "at most " + std::to_string(maxStorageBlockBytes_) + " (" + storageLimitName_ +
                "), that is " +
                std::to_string(maxStorageBlockBytes_ / GLint64(2 * sizeof(GpuFish))) + " fish");
}

Result<void> GpuBackend::upload(std::span<const Fish> school) {
    const std::size_t n = school.size();
    const std::size_t bytes = std::max<std::size_t>(2 * n, 1) * sizeof(GpuFish);
    if (auto ok = checkStorageFits(n); !ok) return ok;
    std::vector<GpuFish> data(std::max<std::size_t>(2 * n, 1), GpuFish{});
    for (std::size_t i = 0; i < n; ++i) {
        const Fish& f = school[i];
        data[i] = {f.position,     static_cast<std::uint32_t>(i), f.velocity, f.species,
                   f.acceleration, f.kickClock};
    }
    (void)checkGlErrors("before GpuBackend::upload");  // on stderr, in runs with GL debugging
    while (glGetError() != GL_NO_ERROR) {
    }  // so that the check below sees this allocation's error alone
    GlBuffer buffer =
        GlBuffer::create(static_cast<GLsizeiptr>(bytes), data.data(), GL_DYNAMIC_STORAGE_BIT);
    if (glGetError() == GL_OUT_OF_MEMORY)
        return fail("gpu: out of GPU memory for " + std::to_string(n) + " fish (" +
                    std::to_string(bytes) + " bytes)");
    fishBuffer_ = std::move(buffer);
    fishCount_ = n;
    currentHalf_ = 0;
    fault_ = compileFault_;  // a new school, but still no step for these parameters
    return {};
}

void GpuBackend::noteGlErrors(const char* where) {
    auto ok = takeGlErrors(where);
    if (!ok && fault_.empty())
        fault_ = "gpu: " + ok.error() + " with " + std::to_string(fishCount_) +
                 " fish; the school on the GPU is lost";
}

Result<void> GpuBackend::health() const {
    if (fault_.empty()) return {};
    return fail(fault_);
}

School GpuBackend::download() {
    School school(fishCount_);
    if (fishCount_ == 0) return school;
    const auto bytes = static_cast<GLsizeiptr>(fishCount_ * sizeof(GpuFish));
    // A shader copies the current half into a staging buffer that is read back: reading the
    // simulation buffer itself, even through glCopyBufferSubData, makes the NVIDIA driver move it
    // out of video memory (steps were 5 times slower at 1,000,000 fish afterwards).
    if (readbackBuffer_.size() < bytes) {
        noteGlErrors("before GpuBackend::download");
        readbackBuffer_ = GlBuffer::create(bytes, nullptr, GL_CLIENT_STORAGE_BIT | GL_MAP_READ_BIT);
        if (glGetError() == GL_OUT_OF_MEMORY) {
            readbackBuffer_ = GlBuffer{};
            if (fault_.empty())
                fault_ = "gpu: out of memory (GL_OUT_OF_MEMORY) for a read-back buffer of " +
                         std::to_string(bytes) + " bytes, " + std::to_string(fishCount_) + " fish";
        }
    }
    if (!fault_.empty()) return school;
    glBindBufferBase(GL_UNIFORM_BUFFER, kParamsBinding, paramsBuffer_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kFishBinding, fishBuffer_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kStagingBinding, readbackBuffer_.id());
    writeStepParams(currentFirstFish(), currentFirstFish(), GridShape{});
    glUseProgram(copyFish_.id());
    glDispatchCompute(groupsFor(fishCount_), 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);  // the copy's writes, before the read
    std::vector<GpuFish> data(fishCount_);
    glGetNamedBufferSubData(readbackBuffer_.id(), 0, bytes, data.data());
    for (const GpuFish& g : data) {
        if (g.id < fishCount_)
            school[g.id] = {g.position, g.velocity, g.acceleration, g.species, g.kickClock};
    }
    noteGlErrors("GpuBackend::download");
    return school;
}

namespace {

/// Fish in the mapped copy, read in place on the measures' thread.
class MappedSnapshot final : public SchoolSnapshot {
  public:
    MappedSnapshot(std::shared_ptr<const void> owner, const GpuFish* fish, std::size_t count)
        : owner_(std::move(owner)), fish_(fish), count_(count) {}
    School fish() const override {
        School school(count_);
        for (std::size_t k = 0; k < count_; ++k) {
            school[k].position = fish_[k].position;
            school[k].velocity = fish_[k].velocity;
            school[k].species = fish_[k].species;
        }
        return school;
    }

  private:
    std::shared_ptr<const void> owner_;
    const GpuFish* fish_;
    std::size_t count_;
};

}  // namespace

GpuBackend::~GpuBackend() {
    // A snapshot on another thread may still read a mapped copy: its buffer is deleted here, on
    // the GL thread, once it is done (a conversion of the school, milliseconds).
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    retiredSnapshotFish_.push_back(std::move(snapshotFish_));
    for (const auto& mapped : retiredSnapshotFish_)
        while (mapped.use_count() > 1 && std::chrono::steady_clock::now() < until)
            std::this_thread::yield();
    std::atomic_thread_fence(std::memory_order_acquire);
}

void GpuBackend::deleteUnreadSnapshotFish() {
    std::erase_if(retiredSnapshotFish_, [](const std::shared_ptr<MappedFish>& mapped) {
        return mapped.use_count() == 1;
    });
}

void GpuBackend::requestSnapshot() {
    deleteUnreadSnapshotFish();
    snapshotPending_ = false;
    snapshotCount_ = fishCount_;
    if (fishCount_ == 0 || !fault_.empty()) {
        snapshotCopied_ = GlFence::insert();
        snapshotPending_ = true;
        return;
    }
    if (!snapshotFish_ || snapshotFish_.use_count() > 1 || snapshotFish_->capacity < fishCount_) {
        if (snapshotFish_ && snapshotFish_.use_count() > 1)
            retiredSnapshotFish_.push_back(std::move(snapshotFish_));
        snapshotFish_.reset();
        noteGlErrors("before GpuBackend::requestSnapshot");
        auto mapped = std::make_shared<MappedFish>();
        const std::size_t capacity = fishCount_ + fishCount_ / 4;
        const auto bytes = static_cast<GLsizeiptr>(capacity * sizeof(GpuFish));
        constexpr GLbitfield kMapping =
            GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
        mapped->buffer = GlBuffer::create(bytes, nullptr, kMapping | GL_CLIENT_STORAGE_BIT);
        if (glGetError() == GL_OUT_OF_MEMORY) {
            if (fault_.empty())
                fault_ = "gpu: out of memory (GL_OUT_OF_MEMORY) for a snapshot buffer of " +
                         std::to_string(bytes) + " bytes, " + std::to_string(fishCount_) + " fish";
            return;
        }
        mapped->fish = static_cast<const GpuFish*>(
            glMapNamedBufferRange(mapped->buffer.id(), 0, bytes, kMapping));
        mapped->capacity = capacity;
        if (mapped->fish == nullptr) {
            noteGlErrors("GpuBackend::requestSnapshot (map)");
            return;
        }
        snapshotFish_ = std::move(mapped);
    }
    glBindBufferBase(GL_UNIFORM_BUFFER, kParamsBinding, paramsBuffer_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kFishBinding, fishBuffer_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kStagingBinding, snapshotFish_->buffer.id());
    writeStepParams(currentFirstFish(), currentFirstFish(), GridShape{});
    glUseProgram(copyFish_.id());
    glDispatchCompute(groupsFor(fishCount_), 1, 1);
    glMemoryBarrier(GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT);  // the copy's writes, seen mapped
    snapshotCopied_ = GlFence::insert();
    snapshotPending_ = true;
    noteGlErrors("GpuBackend::requestSnapshot");
}

std::shared_ptr<const SchoolSnapshot> GpuBackend::takeSnapshot() {
    if (!snapshotPending_ || !snapshotCopied_.signaled()) return nullptr;
    snapshotPending_ = false;
    snapshotCopied_.reset();
    if (snapshotCount_ == 0 || !fault_.empty() || !snapshotFish_)
        return std::make_shared<CopiedSchool>(School{});
    return std::make_shared<MappedSnapshot>(snapshotFish_, snapshotFish_->fish, snapshotCount_);
}

void GpuBackend::writeStepParams(std::size_t readFirst, std::size_t writeFirst,
                                 const GridShape& grid) {
    // The fields of this step, the same in every pack (the CPU sets the step's index in each
    // species' pack too).
    auto forThisStep = [&](GpuStepParams p) {
        p.gridOrigin = glm::vec4(glm::vec3(grid.origin), static_cast<float>(grid.cellSize));
        p.gridDims = {static_cast<unsigned>(grid.dimX), static_cast<unsigned>(grid.dimY),
                      static_cast<unsigned>(grid.dimZ), static_cast<unsigned>(grid.reach)};
        STEP_FISH_COUNT(p) = static_cast<unsigned>(fishCount_);
        STEP_FIRST_FISH_READ(p) = static_cast<unsigned>(readFirst);
        STEP_FIRST_FISH_WRITTEN(p) = static_cast<unsigned>(writeFirst);
        STEP_INDEX(p) = STEP_INDEX(stepParams_);
        return p;
    };
    const GpuStepParams p = forThisStep(stepParams_);
    glNamedBufferSubData(paramsBuffer_.id(), 0, sizeof p, &p);
    // The packs in use only: the shaders never read past counts.x.
    GpuSpeciesTable table{};
    const std::size_t packs = std::min(speciesParams_.size(), std::size_t{kMaxSpecies});
    table.counts = glm::uvec4(static_cast<unsigned>(packs), 0u, 0u, 0u);
    for (std::size_t s = 0; s < packs; ++s) table.packs[s] = forThisStep(speciesParams_[s]);
    glNamedBufferSubData(
        speciesBuffer_.id(), 0,
        static_cast<GLsizeiptr>(offsetof(GpuSpeciesTable, packs) + packs * sizeof(GpuStepParams)),
        &table);
}

void GpuBackend::ensureGridBuffers(std::size_t cells) {
    const auto bytes = [](std::size_t count, std::size_t size) {
        return static_cast<GLsizeiptr>(std::max<std::size_t>(count, 1) * size);
    };
    if (cells > gridCellCapacity_ || !cellCounts_) {
        gridCellCapacity_ = cells;
        cellCounts_ = GlBuffer::create(bytes(cells, 4), nullptr, GL_DYNAMIC_STORAGE_BIT);
        cellStarts_ = GlBuffer::create(bytes(cells + 1, 4), nullptr, GL_DYNAMIC_STORAGE_BIT);
        blockSums_ = GlBuffer::create(bytes((cells + kWorkgroupSize - 1) / kWorkgroupSize, 4),
                                      nullptr, GL_DYNAMIC_STORAGE_BIT);
    }
    if (!fishCells_ || fishCells_.size() < bytes(fishCount_, 8)) {
        fishCells_ = GlBuffer::create(bytes(fishCount_, 8), nullptr, GL_DYNAMIC_STORAGE_BIT);
        sortedPositions_ = GlBuffer::create(bytes(fishCount_, 16), nullptr, GL_DYNAMIC_STORAGE_BIT);
    }
}

void GpuBackend::dispatchOverFish(const GlProgram& program) {
    glUseProgram(program.id());
    glDispatchCompute(groupsFor(fishCount_), 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_UNIFORM_BARRIER_BIT);
}

void GpuBackend::stepImpl() {
    STEP_INDEX(stepParams_) = static_cast<std::uint32_t>(stepCount());
    if (fishCount_ == 0 || !fault_.empty() || !stepPrograms_) return;
    stepTimer_.begin();
    dispatchStep();
    stepTimer_.end();
}

std::optional<double> GpuBackend::collectStepMilliseconds() {
    const std::vector<double> steps = stepTimer_.collect();
    if (steps.empty()) return std::nullopt;
    double sum = 0.0;
    for (double ms : steps) sum += ms;
    return sum / static_cast<double>(steps.size());
}

void GpuBackend::dispatchStep() {
    const std::size_t n = fishCount_;
    const std::size_t read = currentHalf_ * n, other = (1 - currentHalf_) * n;
    glBindBufferBase(GL_UNIFORM_BUFFER, kParamsBinding, paramsBuffer_.id());
    glBindBufferBase(GL_UNIFORM_BUFFER, kSpeciesParamsBinding, speciesBuffer_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kFishBinding, fishBuffer_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kRockBinding, rockBuffer_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kFlowBinding, flowBuffer_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kSpecialBinding, specialBuffer_.id());
    const bool kinds = (stepFeatures(params_) & glsl::kFeatureKinds) != 0u;

    // At most about 2 cells per fish, so the scan stays cheap, and no more cells than one
    // dispatch of the scan covers.
    const std::size_t maxCells = std::min(2 * n + 64, maxWorkgroups_ * kWorkgroupSize - 1);
    const bool periodic = params_.boundary == Boundary::Periodic;
    // Open water hashes its cells (a reach of 1: step_grid.comp's 27 buckets).
    const GridShape grid =
        params_.boundary == Boundary::Open
            ? GridShape::forOpenWater(maxRadius(params_) * kGpuCellMargin, maxCells)
            : GridShape::forTank(gridBounds(params_), maxRadius(params_) * kGpuCellMargin, maxCells,
                                 1, periodic);
    // A periodic tank too small for the wrapped grid search is searched pair by pair, through
    // the nearest image (docs/model.md "Neighbour search").
    const bool useGrid = params_.neighborSearch == NeighborSearch::Grid &&
                         maxRadius(params_) > 0.0f && (!periodic || grid.holdsWrappedSearch());
    if (!useGrid) {
        writeStepParams(read, other, GridShape{});
        if (kinds) dispatchOverFish(gatherSpecials_);
        dispatchOverFish(stepPrograms_->allPairs);
        currentHalf_ = 1 - currentHalf_;
        noteGlErrors("GpuBackend::step (all-pairs)");
        return;
    }

    // Sort into the other half by cell, then step from there back into this half: the current
    // half stays the same, and the fish in it are in cell order.
    writeStepParams(read, other, grid);
    const std::size_t cells = grid.cellCount();
    ensureGridBuffers(cells);
    const GLuint zero = 0;
    glClearNamedBufferSubData(cellCounts_.id(), GL_R32UI, 0, GLsizeiptr(cells * 4), GL_RED_INTEGER,
                              GL_UNSIGNED_INT, &zero);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kCellCountBinding, cellCounts_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kCellStartBinding, cellStarts_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kFishCellBinding, fishCells_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kBlockSumBinding, blockSums_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kSortedPositionBinding, sortedPositions_.id());
    dispatchOverFish(gridCount_);

    const auto blocks = static_cast<GLuint>((cells + kWorkgroupSize - 1) / kWorkgroupSize);
    for (const GlProgram* scan : {&gridScanBlocks_, &gridScanSums_, &gridScanAdd_}) {
        glUseProgram(scan->id());
        glUniform1ui(scan->uniformLocation("cellCount"), static_cast<GLuint>(cells));
        glUniform1ui(scan->uniformLocation("blockCount"), blocks);
        glDispatchCompute(scan == &gridScanSums_ ? 1 : blocks, 1, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    dispatchOverFish(gridScatter_);

    writeStepParams(other, read, grid);
    if (kinds) dispatchOverFish(gatherSpecials_);
    dispatchOverFish(stepPrograms_->grid);
    noteGlErrors("GpuBackend::step (grid)");
}

void GpuBackend::finish() {
    glFinish();
}

}  // namespace fishschool::gpu
