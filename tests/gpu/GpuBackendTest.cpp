// The GL compute backend against the cpu backend, on whatever GL this machine has (Mesa's
// llvmpipe in CI). Skipped, with the reason, only where no GL 4.3 context can be made at all.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <glm/geometric.hpp>

#include "backends/BackendRegistry.h"
#include "core/CpuBackends.h"
#include "core/HandBuiltScenes.h"
#include "core/Invariants.h"
#include "core/Scenario.h"
#include "core/StepRule.h"
#include "gpu/GpuBackend.h"
#include "gpu/HeadlessGlContext.h"

namespace fishschool {
namespace {

class Gpu : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        // Every GL call path checks for errors, and GL reports its own, in every build type.
        ::setenv("FISHSCHOOL_GL_DEBUG", "1", 1);
        auto made = gpu::HeadlessGlContext::create();
        if (made) {
            context_ = std::move(*made).release();
            std::printf("GL renderer: %s\n", context_->renderer().c_str());
        } else {
            skipReason_ = new std::string(made.error());
        }
    }
    void SetUp() override {
        if (context_ == nullptr) GTEST_SKIP() << "no GL 4.3 context: " << *skipReason_;
        errorsBefore_ = gpu::reportedGlErrorCount();
    }
    void TearDown() override {
        if (context_ == nullptr) return;
        (void)gpu::checkGlErrors("the end of the test");
        EXPECT_EQ(gpu::reportedGlErrorCount(), errorsBefore_) << "GL reported errors (see stderr)";
    }

    static std::unique_ptr<gpu::GpuBackend> makeGpu(const SimParams& p) {
        auto backend = gpu::GpuBackend::create(p);
        EXPECT_TRUE(backend) << backend.error();
        return backend ? std::move(*backend) : nullptr;
    }

    static gpu::HeadlessGlContext* context_;
    static std::string* skipReason_;
    std::size_t errorsBefore_ = 0;
};
gpu::HeadlessGlContext* Gpu::context_ = nullptr;
std::string* Gpu::skipReason_ = nullptr;

/// A random scene of 1,000 to 4,000 fish with random weights and radii, fish pressed against
/// every wall and fish about to swim into the rocks. Seed 4 has no rocks; even seeds lock
/// vertical steering; seeds 2, 3 and 7 seek a target (seed 3 along a flow field) and avoid the
/// rocks; seeds 21 and 22 add the steering modes of the other sources (a minimum speed,
/// inverse-square separation, the prioritised sum, avoidance by rays, leaders and predators;
/// Reynolds steering on 21).
std::pair<SimParams, School> randomScene(std::uint32_t seed, NeighborSearch search) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    SimParams p;
    p.fishCount = 1000 + static_cast<std::int64_t>(3000 * unit(rng));
    p.seed = seed;
    p.neighborSearch = search;
    p.bounds = {25.0f + 10 * unit(rng), 12.0f + 5 * unit(rng), 25.0f + 10 * unit(rng)};
    p.rCohesion = 4.0f + 6.0f * unit(rng);
    p.rSeparation = 1.0f + 2.0f * unit(rng);
    p.rAlignment = 3.0f + 5.0f * unit(rng);
    p.kCohesion = 0.5f + 1.5f * unit(rng);
    p.kSeparation = 0.5f + 2.0f * unit(rng);
    p.kAlignment = 0.5f + 1.5f * unit(rng);
    p.lockVerticalSteering = seed % 2 == 0;
    // A narrow field of view (cone under 180 degrees), a wide one, or all around.
    p.viewAngle = seed % 3 == 1 ? 150.0f : seed % 3 == 2 ? 270.0f : 360.0f;
    p.rocks = {{{-8.0f, -4.0f, 3.0f}, 3.0f}, {{9.0f, 2.0f, -6.0f}, 2.0f}};
    if (seed == 4) p.rocks.clear();
    if (seed % 4 >= 2 || seed >= 21) {
        p.targetPath = seed == 3 ? TargetPath::FlowField : TargetPath::Straight;
        p.kTarget = 0.5f + unit(rng);
        p.target = glm::vec3(unit(rng) - 0.5f, unit(rng) - 0.5f, unit(rng) - 0.5f) * p.bounds;
        p.kAvoidance = 1.0f + 2.0f * unit(rng);
        p.avoidanceDistance = 3.0f + 3.0f * unit(rng);
    }
    if (seed >= 21) {
        p.minVelocity = 1.0f + unit(rng);
        p.separationFalloff = SeparationFalloff::InverseSquare;
        p.combine = Combine::Prioritized;
        p.avoidance = Avoidance::Rays;
        if (seed == 21) p.steering = Steering::Reynolds;
        p.leaders = 4;
        p.predators = 2;
        p.predatorMaxVelocity = 6.0f;
    }
    p.dt = 0.05f;
    EXPECT_TRUE(validate(p)) << validate(p).error();
    School school = makeInitialSchool(p);
    for (std::size_t i = 0; i < 60; ++i) {
        Fish& f = school[i];
        const int axis = static_cast<int>(i % 3);
        const float side = (i / 3) % 2 ? 1.0f : -1.0f;
        f.position[axis] = side * p.bounds[axis];  // on the wall, heading out
        f.velocity[axis] = side * p.maxVelocity * 0.9f;
    }
    // Just outside a rock, heading for its centre: the step's segment enters the rock.
    for (std::size_t i = 60; i < 120 && !p.rocks.empty(); ++i) {
        const Rock& rock = p.rocks[i % p.rocks.size()];
        const glm::vec3 direction =
            glm::normalize(glm::vec3(unit(rng) - 0.5f, unit(rng) - 0.5f, unit(rng) - 0.5f));
        school[i].position = rock.center + direction * (rock.radius + 0.3f * p.maxVelocity * p.dt);
        school[i].velocity = -direction * 0.9f * p.maxVelocity;
    }
    return {p, school};
}

using test::maxRelativeError;

/// How many fish of `after` bounced off a rock or a wall: their velocity turned round.
std::size_t countReversals(const School& before, const School& after) {
    std::size_t reversed = 0;
    for (std::size_t i = 0; i < before.size(); ++i)
        if (glm::dot(before[i].velocity, after[i].velocity) < 0.0f) ++reversed;
    return reversed;
}

void expectOneStepAgrees(NeighborSearch search) {
    for (std::uint32_t seed : {1u, 2u, 3u, 4u, 21u, 22u}) {
        const auto [p, school] = randomScene(seed, search);
        auto gpu = gpu::GpuBackend::create(p);
        ASSERT_TRUE(gpu) << gpu.error();
        auto cpu = makeCpuBackend();
        ASSERT_TRUE(cpu->setParams(p));
        ASSERT_TRUE(cpu->upload(school));
        ASSERT_TRUE((*gpu)->upload(school));
        cpu->step();
        (*gpu)->step();
        const School expected = cpu->download(), actual = (*gpu)->download();
        ASSERT_EQ(actual.size(), expected.size());
        EXPECT_LT(maxRelativeError(actual, expected, p), 1e-4)
            << "seed " << seed << ", " << school.size() << " fish";
        // The scene really tested the walls and the rocks.
        EXPECT_GE(countReversals(school, expected), p.rocks.empty() ? 60u : 120u);
    }
}

TEST_F(Gpu, OneAllPairsStepAgreesWithCpu) {
    expectOneStepAgrees(NeighborSearch::AllPairs);
}
TEST_F(Gpu, OneGridStepAgreesWithCpu) {
    expectOneStepAgrees(NeighborSearch::Grid);
}

// boundary "periodic": the wrapped grid, all-pairs through the nearest image and, in a tank under
// 3 cells a side, the grid's fallback to it; the random scenes' fish on the faces heading out
// cross them, and avoidance and the kinds look across them.
TEST_F(Gpu, PeriodicStepsAgreeWithCpu) {
    for (NeighborSearch search : {NeighborSearch::AllPairs, NeighborSearch::Grid}) {
        for (std::uint32_t seed : {1u, 3u, 21u, 22u}) {
            auto [p, school] = randomScene(seed, search);
            p.boundary = Boundary::Periodic;
            if (seed == 22u) {
                p.rCohesion = p.bounds.y * 0.8f;  // fewer than 3 cells on y: every pair
                EXPECT_EQ(searchNotice(p, school.size()).empty(), search != NeighborSearch::Grid);
            }
            auto gpu = gpu::GpuBackend::create(p);
            ASSERT_TRUE(gpu) << gpu.error();
            auto cpu = makeCpuBackend();
            ASSERT_TRUE(cpu->setParams(p));
            ASSERT_TRUE(cpu->upload(school));
            ASSERT_TRUE((*gpu)->upload(school));
            for (int s = 0; s < 2; ++s) {
                cpu->step();
                (*gpu)->step();
            }
            const School expected = cpu->download(), actual = (*gpu)->download();
            EXPECT_LT(maxRelativeError(actual, expected, p), 1e-4)
                << "seed " << seed << ", " << toString(search);
            EXPECT_TRUE(checkInvariants(actual, p)) << checkInvariants(actual, p).error();
        }
    }
}

/// docs/model.md's guarantees (What a step guarantees) after every one of 500 steps.
void expectFishStayInTheSceneFor500Steps(NeighborSearch search) {
    auto [p, school] = randomScene(7, search);
    school.resize(600);
    auto gpu = gpu::GpuBackend::create(p);
    ASSERT_TRUE(gpu) << gpu.error();
    ASSERT_TRUE((*gpu)->upload(school));
    School after;
    for (int s = 0; s < 500; ++s) {
        (*gpu)->step();
        after = (*gpu)->download();
        ASSERT_EQ(after.size(), school.size());
        for (const Fish& f : after) {
            for (int k = 0; k < 3; ++k)
                ASSERT_TRUE(std::isfinite(f.position[k]) && std::isfinite(f.velocity[k]))
                    << "step " << s;
            ASSERT_TRUE(isInScene(f.position, p)) << "step " << s << ": " << f.position.x << " "
                                                  << f.position.y << " " << f.position.z;
        }
    }
    EXPECT_NE(after, school);
}

TEST_F(Gpu, EveryFishStaysInTheSceneFor500AllPairsSteps) {
    expectFishStayInTheSceneFor500Steps(NeighborSearch::AllPairs);
}
TEST_F(Gpu, EveryFishStaysInTheSceneFor500GridSteps) {
    expectFishStayInTheSceneFor500Steps(NeighborSearch::Grid);
}

TEST_F(Gpu, UploadThenDownloadIsBitIdentical) {
    SimParams p;
    p.fishCount = 2345;
    School school = makeInitialSchool(p);
    for (std::size_t i = 0; i < school.size(); ++i)
        school[i].acceleration = {float(i), -1.5f, 0.25f};
    auto gpu = makeGpu(p);
    ASSERT_TRUE(gpu);
    ASSERT_TRUE(gpu->upload(school));
    const School back = gpu->download();
    ASSERT_EQ(back.size(), school.size());
    EXPECT_EQ(std::memcmp(back.data(), school.data(), school.size() * sizeof(Fish)), 0);
    EXPECT_EQ(gpu->fishCount(), school.size());
}

TEST_F(Gpu, GridKeepsDownloadInUploadOrder) {
    const auto [p, school] = randomScene(11, NeighborSearch::Grid);
    auto gpu = makeGpu(p);
    ASSERT_TRUE(gpu);
    ASSERT_TRUE(gpu->upload(school));
    gpu->step();
    const School after = gpu->download();
    // A fish moves at most maxVelocity * dt in a step (plus a reflection): it is still near
    // where it was uploaded, so the order is the upload order.
    for (std::size_t i = 0; i < school.size(); ++i)
        ASSERT_LT(glm::distance(after[i].position, school[i].position),
                  2.0f * p.maxVelocity * p.dt + 1e-3f)
            << i;
}

TEST_F(Gpu, ABrokenShaderGivesTheGlLogAndTheProgramGoesOn) {
    gpu::GpuBackend::ShaderOverrides broken;
    broken.allPairsSource =
        "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { undeclaredThing = 1; }\n";
    auto failed = gpu::GpuBackend::create(SimParams{}, broken);
    ASSERT_FALSE(failed);
    EXPECT_THAT(failed.error(), ::testing::HasSubstr("failed to compile"));
    EXPECT_THAT(failed.error(), ::testing::HasSubstr("undeclaredThing"));
    // The context is still usable.
    auto working = makeGpu(SimParams{});
    ASSERT_TRUE(working);
    ASSERT_TRUE(working->upload(School{{{0, 0, 0}, {1, 0, 0}, {}}}));
    working->step();
    EXPECT_EQ(working->download().size(), 1u);
}

TEST_F(Gpu, AnEmptySchoolSteps) {
    auto gpu = makeGpu(SimParams{});
    ASSERT_TRUE(gpu);
    ASSERT_TRUE(gpu->upload({}));
    gpu->step();
    EXPECT_TRUE(gpu->download().empty());
}

TEST_F(Gpu, TheRegistryMakesEveryKindAndTheyAgree) {
    auto [p, school] = randomScene(9, NeighborSearch::Grid);
    school.resize(500);
    std::vector<School> results;
    ASSERT_EQ(backendRegistry().size(), 3u);
    for (const BackendEntry& entry : backendRegistry()) {
        const BackendKind kind = entry.kind;
        ASSERT_TRUE(entry.built);
        auto backend = createBackend(kind, p);
        ASSERT_TRUE(backend) << toString(kind) << ": " << backend.error();
        EXPECT_EQ((*backend)->kind(), kind);
        EXPECT_FALSE((*backend)->description().empty());
        ASSERT_TRUE((*backend)->upload(school));
        (*backend)->step();
        (*backend)->finish();
        results.push_back((*backend)->download());
    }
    EXPECT_EQ(results[0], results[1]) << "cpu and tbb are bit-identical";
    EXPECT_LT(maxRelativeError(results[2], results[0], p), 1e-4);
}

TEST_F(Gpu, ASecondContextComesAndGoesWithoutEndingTheFirst) {
    {
        auto second = gpu::HeadlessGlContext::create();
        ASSERT_TRUE(second) << second.error();
        EXPECT_FALSE((*second)->renderer().empty());
    }
    ASSERT_TRUE(context_->makeCurrent());
    auto gpu = makeGpu(SimParams{});
    ASSERT_TRUE(gpu);
    ASSERT_TRUE(gpu->upload(School{{{0, 0, 0}, {1, 0, 0}, {}}}));
    gpu->step();
    EXPECT_EQ(gpu->download().at(0).position, glm::vec3(SimParams{}.dt, 0, 0));
}

/// The renderer draws drawSource(): fishBuffer() from currentFirstFish(); that range must hold the
/// school.
TEST_F(Gpu, TheCurrentHalfOfTheBufferHoldsTheSchool) {
    for (NeighborSearch search : {NeighborSearch::AllPairs, NeighborSearch::Grid}) {
        const auto [p, school] = randomScene(5, search);
        auto gpu = makeGpu(p);
        ASSERT_TRUE(gpu);
        ASSERT_TRUE(gpu->upload(school));
        const std::size_t n = school.size();
        for (int s = 0; s < 3; ++s) {
            const std::size_t before = gpu->currentFirstFish();
            gpu->step();
            const std::size_t first = gpu->currentFirstFish();
            ASSERT_TRUE(first == 0 || first == n) << first;
            // What the app draws from: the same buffer and range.
            const auto source = gpu->drawSource();
            ASSERT_TRUE(source);
            EXPECT_EQ(source->buffer, gpu->fishBuffer());
            EXPECT_EQ(source->firstFish, first);
            EXPECT_EQ(source->fishCount, n);
            // All-pairs writes the other half; grid sorts into the other half and steps back.
            if (search == NeighborSearch::AllPairs) {
                EXPECT_NE(first, before);
            }

            std::vector<gpu::GpuFish> drawn(n);
            glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
            glGetNamedBufferSubData(
                gpu->fishBuffer(), static_cast<GLintptr>(first * sizeof(gpu::GpuFish)),
                static_cast<GLsizeiptr>(n * sizeof(gpu::GpuFish)), drawn.data());
            const School downloaded = gpu->download();
            std::vector<bool> seen(n, false);
            for (const gpu::GpuFish& g : drawn) {
                ASSERT_LT(g.id, n);
                ASSERT_FALSE(seen[g.id]) << "fish " << g.id << " twice";
                seen[g.id] = true;
                EXPECT_EQ(g.position, downloaded[g.id].position);
                EXPECT_EQ(g.velocity, downloaded[g.id].velocity);
            }
        }
    }
}

/// The step shaders with every behaviour compiled in (seeking along the flow field, which reads
/// every buffer), so that none of their blocks is optimised away.
const std::string kEveryFeature =
    "#define STEP_FEATURES " +
    std::to_string(glsl::kFeatureFieldOfView | glsl::kFeatureFlowField | glsl::kFeatureAvoidance |
                   glsl::kFeatureKinds) +
    "u\n";

/// The step compiles for every set of behaviours.
TEST_F(Gpu, TheStepCompilesForEverySetOfBehaviours) {
    for (std::uint32_t features = 0; features < glsl::kFeatureSetCount; ++features) {
        if (!usedFeatureSet(features)) continue;
        for (const char* file : {"step_all_pairs.comp", "step_grid.comp"}) {
            auto program = gpu::GlProgram::fromFiles(
                {{GL_COMPUTE_SHADER, file}}, "#define WORKGROUP_SIZE 64u\n#define STEP_FEATURES " +
                                                 std::to_string(features) + "u\n");
            EXPECT_TRUE(program) << file << " with features " << features << ": "
                                 << program.error();
        }
    }
}

/// A set of behaviours is compiled on its first use only: switching one on, off and on again
/// takes the programs of a set seen before from the cache.
TEST_F(Gpu, EachSetOfBehavioursIsCompiledOnce) {
    SimParams p;
    auto backend = gpu::GpuBackend::create(p);
    ASSERT_TRUE(backend) << backend.error();
    gpu::GpuBackend& gpu = **backend;
    EXPECT_EQ(gpu.compiledStepSets(), 1u);
    SimParams withView = p;
    withView.viewAngle = 200.0f;
    ASSERT_TRUE(gpu.setParams(withView));
    EXPECT_EQ(gpu.compiledStepSets(), 2u);
    ASSERT_TRUE(gpu.setParams(p));
    ASSERT_TRUE(gpu.setParams(withView));
    SimParams otherWeights = withView;
    otherWeights.kCohesion = 2.0f;  // a new value, the same set of behaviours
    ASSERT_TRUE(gpu.setParams(otherWeights));
    EXPECT_EQ(gpu.compiledStepSets(), 2u);
}

/// Topological selection's kept list comes in 8, 16, 32 or 64 slots: a new k compiles the step
/// again only when it needs more slots (or fewer).
TEST_F(Gpu, ANewNeighbourCountCompilesOnlyPastItsListSize) {
    SimParams p;
    p.neighborSelection = NeighborSelection::Topological;
    p.neighborCount = 7;
    auto backend = gpu::GpuBackend::create(p);
    ASSERT_TRUE(backend) << backend.error();
    gpu::GpuBackend& gpu = **backend;
    EXPECT_EQ(gpu.compiledStepSets(), 1u);
    p.neighborCount = 8;
    ASSERT_TRUE(gpu.setParams(p));
    EXPECT_EQ(gpu.compiledStepSets(), 1u);
    p.neighborCount = 9;
    ASSERT_TRUE(gpu.setParams(p));
    EXPECT_EQ(gpu.compiledStepSets(), 2u);
    p.neighborCount = 1;
    ASSERT_TRUE(gpu.setParams(p));
    EXPECT_EQ(gpu.compiledStepSets(), 2u);
}

/// A step that does not compile for a new set of behaviours is the answer of setParams and of
/// health(), and the school stops rather than run the old step with the new parameters.
TEST_F(Gpu, AStepThatDoesNotCompileForNewBehavioursIsReported) {
    SimParams p;
    gpu::GpuBackend::ShaderOverrides overrides;
    overrides.brokenFeatures = glsl::kFeatureFieldOfView;
    auto backend = gpu::GpuBackend::create(p, overrides);
    ASSERT_TRUE(backend) << backend.error();
    gpu::GpuBackend& gpu = **backend;
    const School school{{{0, 0, 0}, {1, 0, 0}, {}}};
    ASSERT_TRUE(gpu.upload(school));
    SimParams withView = p;
    withView.viewAngle = 200.0f;
    const auto set = gpu.setParams(withView);
    ASSERT_FALSE(set);
    EXPECT_THAT(set.error(), ::testing::HasSubstr("brokenFeatures"));
    ASSERT_FALSE(gpu.health());
    EXPECT_EQ(gpu.health().error(), set.error());
    gpu.step();
    EXPECT_EQ(gpu.download()[0].position, school[0].position) << "stepped without a program";
    EXPECT_FALSE(gpu.upload(school) && gpu.health()) << "a new school, still no step";
    ASSERT_TRUE(gpu.setParams(p));
    ASSERT_TRUE(gpu.upload(school));
    EXPECT_TRUE(gpu.health());
}

/// The shaders and GpuLayout.h, both from gpu_layout.h, describe the same bytes, as GL itself
/// lays them out.
TEST_F(Gpu, TheShaderLayoutMatchesGpuLayout) {
    auto program = gpu::GlProgram::fromFiles({{GL_COMPUTE_SHADER, "step_grid.comp"}},
                                             "#define WORKGROUP_SIZE 64u\n" + kEveryFeature);
    ASSERT_TRUE(program) << program.error();
    GLuint inspected = program->id();
    auto property = [&](GLenum interface, const char* name, GLenum what) {
        const GLuint index = glGetProgramResourceIndex(inspected, interface, name);
        EXPECT_NE(index, GL_INVALID_INDEX) << name;
        GLint value = -1;
        if (index != GL_INVALID_INDEX)
            glGetProgramResourceiv(inspected, interface, index, 1, &what, 1, nullptr, &value);
        return value;
    };
    EXPECT_EQ(property(GL_BUFFER_VARIABLE, "fish[0].position", GL_OFFSET),
              GLint(offsetof(gpu::GpuFish, position)));
    EXPECT_EQ(property(GL_BUFFER_VARIABLE, "fish[0].id", GL_OFFSET),
              GLint(offsetof(gpu::GpuFish, id)));
    EXPECT_EQ(property(GL_BUFFER_VARIABLE, "fish[0].velocity", GL_OFFSET),
              GLint(offsetof(gpu::GpuFish, velocity)));
    EXPECT_EQ(property(GL_BUFFER_VARIABLE, "fish[0].species", GL_OFFSET),
              GLint(offsetof(gpu::GpuFish, species)));
    EXPECT_EQ(property(GL_BUFFER_VARIABLE, "fish[0].acceleration", GL_OFFSET),
              GLint(offsetof(gpu::GpuFish, acceleration)));
    EXPECT_EQ(property(GL_BUFFER_VARIABLE, "fish[0].position", GL_TOP_LEVEL_ARRAY_STRIDE),
              GLint(sizeof(gpu::GpuFish)));
    // The step reads each fish's pack from the species table.
    EXPECT_EQ(property(GL_UNIFORM_BLOCK, "SpeciesParams", GL_BUFFER_DATA_SIZE),
              GLint(sizeof(gpu::GpuSpeciesTable)));
    EXPECT_EQ(property(GL_UNIFORM, "speciesTable.counts", GL_OFFSET),
              GLint(offsetof(gpu::GpuSpeciesTable, counts)));
    const GLint second = GLint(offsetof(gpu::GpuSpeciesTable, packs) + sizeof(gpu::GpuStepParams));
    EXPECT_EQ(property(GL_UNIFORM, "speciesTable.packs[1].limits", GL_OFFSET),
              second + GLint(offsetof(gpu::GpuStepParams, limits)));
    EXPECT_EQ(property(GL_UNIFORM, "speciesTable.packs[1].gridOrigin", GL_OFFSET),
              second + GLint(offsetof(gpu::GpuStepParams, gridOrigin)));
    EXPECT_EQ(property(GL_UNIFORM, "speciesTable.packs[1].counts", GL_OFFSET),
              second + GLint(offsetof(gpu::GpuStepParams, counts)));
    EXPECT_EQ(property(GL_UNIFORM, "speciesTable.packs[15].preferred", GL_OFFSET),
              GLint(offsetof(gpu::GpuSpeciesTable, packs) + 15 * sizeof(gpu::GpuStepParams) +
                    offsetof(gpu::GpuStepParams, preferred)));

    // The other passes read the school's one pack.
    auto gather = gpu::GlProgram::fromFiles({{GL_COMPUTE_SHADER, "gather_specials.comp"}},
                                            "#define WORKGROUP_SIZE 64u\n");
    ASSERT_TRUE(gather) << gather.error();
    inspected = gather->id();
    EXPECT_EQ(property(GL_UNIFORM_BLOCK, "StepParams", GL_BUFFER_DATA_SIZE),
              GLint(sizeof(gpu::GpuStepParams)));
    EXPECT_EQ(property(GL_UNIFORM, "params.limits", GL_OFFSET),
              GLint(offsetof(gpu::GpuStepParams, limits)));
    EXPECT_EQ(property(GL_UNIFORM, "params.gridOrigin", GL_OFFSET),
              GLint(offsetof(gpu::GpuStepParams, gridOrigin)));
    EXPECT_EQ(property(GL_UNIFORM, "params.counts", GL_OFFSET),
              GLint(offsetof(gpu::GpuStepParams, counts)));
}

/// The binding points that the shaders write as literals (GLSL 4.30 takes no constant in a
/// layout qualifier) are the constants of gpu_layout.h that the backend binds to.
TEST_F(Gpu, TheShaderBindingsMatchGpuLayout) {
    struct Block {
        GLenum interface;
        const char* name;
        GLuint binding;
    };
    struct Shader {
        const char* file;
        const char* defines;
        std::vector<Block> blocks;
        GLenum stage = GL_COMPUTE_SHADER;
    };
    const Block params{GL_UNIFORM_BLOCK, "StepParams", gpu::kParamsBinding};
    const Block species{GL_UNIFORM_BLOCK, "SpeciesParams", gpu::kSpeciesParamsBinding};
    const Block fish{GL_SHADER_STORAGE_BLOCK, "FishBuffer", gpu::kFishBinding};
    const Block rocks{GL_SHADER_STORAGE_BLOCK, "RockBuffer", gpu::kRockBinding};
    const Block cellCounts{GL_SHADER_STORAGE_BLOCK, "CellCounts", gpu::kCellCountBinding};
    const Block cellStarts{GL_SHADER_STORAGE_BLOCK, "CellStarts", gpu::kCellStartBinding};
    const Block fishCells{GL_SHADER_STORAGE_BLOCK, "FishCells", gpu::kFishCellBinding};
    const Block blockSums{GL_SHADER_STORAGE_BLOCK, "BlockSums", gpu::kBlockSumBinding};
    const Block sortedPositions{GL_SHADER_STORAGE_BLOCK, "SortedPositions",
                                gpu::kSortedPositionBinding};
    const Block staging{GL_SHADER_STORAGE_BLOCK, "Staging", gpu::kStagingBinding};
    const Block flow{GL_SHADER_STORAGE_BLOCK, "FlowField", gpu::kFlowBinding};
    const Block specials{GL_SHADER_STORAGE_BLOCK, "Specials", gpu::kSpecialBinding};
    const Block drawCommands{GL_SHADER_STORAGE_BLOCK, "DrawCommands", gpu::kDrawCommandBinding};
    const Block drawLists{GL_SHADER_STORAGE_BLOCK, "DrawLists", gpu::kDrawListBinding};
    const Block meshVertices{GL_SHADER_STORAGE_BLOCK, "MeshVertices", gpu::kMeshVertexBinding};
    const std::vector<Shader> shaders = {
        {"step_all_pairs.comp", kEveryFeature.c_str(), {species, fish, rocks, flow, specials}},
        {"step_grid.comp",
         kEveryFeature.c_str(),
         {species, fish, rocks, cellStarts, sortedPositions, flow, specials}},
        {"gather_specials.comp", "", {params, fish, specials}},
        {"grid_count.comp", "", {params, fish, cellCounts, fishCells}},
        {"grid_scan.comp", "#define SCAN_PASS 0\n", {cellCounts, cellStarts, blockSums}},
        {"grid_scatter.comp", "", {params, fish, cellStarts, fishCells, sortedPositions}},
        {"copy_fish.comp", "", {params, fish, staging}},
        {"fish_cull.comp", "", {fish, drawCommands, drawLists}},
        {"fish.vert", "", {fish, drawLists, meshVertices}, GL_VERTEX_SHADER},
    };
    for (const Shader& shader : shaders) {
        auto program =
            gpu::GlProgram::fromFiles({{shader.stage, shader.file}},
                                      std::string("#define WORKGROUP_SIZE 64u\n") + shader.defines);
        ASSERT_TRUE(program) << program.error();
        for (const Block& block : shader.blocks) {
            const GLuint index =
                glGetProgramResourceIndex(program->id(), block.interface, block.name);
            ASSERT_NE(index, GL_INVALID_INDEX) << shader.file << ": " << block.name;
            const GLenum property = GL_BUFFER_BINDING;
            GLint binding = -1;
            glGetProgramResourceiv(program->id(), block.interface, index, 1, &property, 1, nullptr,
                                   &binding);
            EXPECT_EQ(binding, GLint(block.binding)) << shader.file << ": " << block.name;
        }
    }
}

TEST_F(Gpu, ALinkErrorNamesTheStagesAndGivesTheLog) {
    const std::string vertex = "#version 450\nvoid main() { gl_Position = vec4(0.0); }\n";
    const std::string fragment =
        "#version 450\nvec3 shade();\nout vec4 color;\nvoid main() { color = vec4(shade(), 1.0); "
        "}\n";
    auto program = gpu::GlProgram::fromSources(
        {{GL_VERTEX_SHADER, "plain.vert", vertex}, {GL_FRAGMENT_SHADER, "shaded.frag", fragment}});
    ASSERT_FALSE(program);
    EXPECT_THAT(program.error(), ::testing::HasSubstr("failed to link"));
    EXPECT_THAT(program.error(), ::testing::HasSubstr("plain.vert, shaded.frag"));
    EXPECT_THAT(program.error(), ::testing::HasSubstr("shade"));
}

TEST_F(Gpu, ACompileErrorNamesTheFile) {
    auto program = gpu::GlProgram::fromSources(
        {{GL_COMPUTE_SHADER, "typo.comp",
          "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { flaot x; }\n"}});
    ASSERT_FALSE(program);
    EXPECT_THAT(program.error(), ::testing::HasSubstr("typo.comp"));
    EXPECT_THAT(program.error(), ::testing::HasSubstr("failed to compile"));
}

/// The largest school this GL can hold in 2N fish, or nullopt when every allowed school fits.
std::optional<std::size_t> firstFishCountTooLarge() {
    GLint64 limit = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &limit);
    const auto count = static_cast<std::size_t>(limit) / (2 * sizeof(gpu::GpuFish)) + 1;
    if (count > static_cast<std::size_t>(kMaxFishCount)) return std::nullopt;
    return count;
}

TEST_F(Gpu, ASchoolOverTheStorageLimitIsRefusedAndTheOldOneKept) {
    const auto tooMany = firstFishCountTooLarge();
    if (!tooMany) GTEST_SKIP() << "this GL holds every school up to kMaxFishCount";
    SimParams p;
    p.fishCount = static_cast<std::int64_t>(*tooMany);
    auto refused = gpu::GpuBackend::create(p);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), ::testing::HasSubstr("GL_MAX_SHADER_STORAGE_BLOCK_SIZE"));

    p.fishCount = 100;
    const School small = makeInitialSchool(p);
    auto gpu = makeGpu(p);
    ASSERT_TRUE(gpu);
    ASSERT_TRUE(gpu->upload(small));
    const School huge(*tooMany, small.front());
    auto upload = gpu->upload(huge);
    ASSERT_FALSE(upload);
    EXPECT_THAT(upload.error(), ::testing::HasSubstr(std::to_string(*tooMany) + " fish"));
    EXPECT_EQ(gpu->download(), small);
}

}  // namespace
}  // namespace fishschool

namespace fishschool {
namespace {

TEST_F(Gpu, AGlErrorMidRunIsReportedWithTheFishCountAndTheStepsStop) {
    SimParams p;
    p.fishCount = 300;
    const School school = makeInitialSchool(p);
    auto gpu = makeGpu(p);
    ASSERT_TRUE(gpu);
    ASSERT_TRUE(gpu->upload(school));
    gpu->step();
    ASSERT_TRUE(gpu->health()) << gpu->health().error();

    // A failure that GL reports while the school runs: here a binding GL refuses.
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1u << 20, 0);
    gpu->step();
    const auto health = gpu->health();
    ASSERT_FALSE(health);
    EXPECT_THAT(health.error(), ::testing::HasSubstr("GL_INVALID_VALUE"));
    EXPECT_THAT(health.error(), ::testing::HasSubstr("300 fish"));
    errorsBefore_ = gpu::reportedGlErrorCount();  // the error above was meant

    // A new upload starts clean.
    ASSERT_TRUE(gpu->upload(school));
    EXPECT_TRUE(gpu->health());
    gpu->step();
    EXPECT_TRUE(gpu->health());
    EXPECT_NE(gpu->download(), school);
}

TEST_F(Gpu, ALowerStorageLimitCanBeAskedForAndIsNamed) {
    ::setenv("FISHSCHOOL_GPU_MAX_BUFFER_BYTES", "96000", 1);  // 1,000 fish of 2 x 48 bytes
    SimParams p;
    p.fishCount = 1001;
    auto refused = createBackend(BackendKind::Gpu, p);
    p.fishCount = 1000;
    auto fits = createBackend(BackendKind::Gpu, p);
    ::setenv("FISHSCHOOL_GPU_MAX_BUFFER_BYTES", "lots", 1);
    auto bad = createBackend(BackendKind::Gpu, p);
    ::unsetenv("FISHSCHOOL_GPU_MAX_BUFFER_BYTES");
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), ::testing::HasSubstr("1001 fish"));
    EXPECT_THAT(refused.error(),
                ::testing::HasSubstr("at most 96000 (FISHSCHOOL_GPU_MAX_BUFFER_BYTES)"));
    ASSERT_TRUE(fits) << fits.error();
    EXPECT_FALSE((*fits)->upload(School(1001)));
    EXPECT_TRUE((*fits)->upload(School(1000)));
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), ::testing::HasSubstr("'lots' is not allowed"));
}

}  // namespace
}  // namespace fishschool

namespace fishschool {
namespace {

SpeciesSetting numberSetting(const std::string& key, float value) {
    return {key, value, glm::vec3(0.0f), 0};
}

/// 1,200 fish of two species that differ in limits, radii, weights, view and mass ("tuna" fast,
/// heavy, sees all around and keeps further apart), with rocks to avoid and a target to seek.
SimParams twoSpecies() {
    SimParams p;
    p.fishCount = 1200;
    p.seed = 17;
    p.bounds = {24.0f, 12.0f, 24.0f};
    p.rocks = {{{-8.0f, -4.0f, 3.0f}, 3.0f}, {{9.0f, 2.0f, -6.0f}, 2.0f}};
    p.kAvoidance = 2.0f;
    p.avoidanceDistance = 4.0f;
    p.kTarget = 0.5f;
    p.target = {5.0f, 0.0f, -5.0f};
    p.rCohesion = 6.0f;
    p.rSeparation = 1.5f;
    p.rAlignment = 4.0f;
    p.viewAngle = 240.0f;
    p.dt = 0.05f;
    p.species = {{"sardine", 900, {0.55f, 0.7f, 0.9f}, {}},
                 {"tuna",
                  300,
                  {0.9f, 0.45f, 0.2f},
                  {numberSetting("maxVelocity", 6.0f), numberSetting("maxAcceleration", 9.0f),
                   numberSetting("rCohesion", 9.0f), numberSetting("rSeparation", 2.5f),
                   numberSetting("kSeparation", 3.0f), numberSetting("kAlignment", 0.5f),
                   numberSetting("viewAngle", 360.0f), numberSetting("mass", 20.0f)}}};
    return p;
}

/// p's school (every 40th fish at rest: no heading, no kinetic energy) stepped `steps` times on
/// the gpu and the cpu, with each search: they agree, every fish keeps its species, and the
/// behaviour under test shows: `without` it the cpu's school ends elsewhere. At most
/// `departures` fish may end elsewhere: a fish at an edge of the rule (a neighbour on a radius or
/// on the rim of its view, forces that fill the prioritised budget) may take the other side
/// where the GPU rounds otherwise (fused multiply-adds), and its neighbours follow.
void expectSpeciesStepAsOnCpu(const SimParams& p, const SimParams& without, int steps = 8,
                              std::size_t departures = 0) {
    ASSERT_TRUE(validate(p)) << validate(p).error();
    ASSERT_TRUE(validate(without)) << validate(without).error();
    School school = makeInitialSchool(p);
    for (std::size_t i = 0; i < school.size(); i += 40) school[i].velocity = glm::vec3(0.0f);
    for (NeighborSearch search : {NeighborSearch::AllPairs, NeighborSearch::Grid}) {
        SimParams with = p, off = without;
        with.neighborSearch = off.neighborSearch = search;
        auto cpu = test::makeBackend(BackendKind::Cpu, with);
        auto gpu = test::makeBackend(BackendKind::Gpu, with);
        auto cpuOff = test::makeBackend(BackendKind::Cpu, off);
        ASSERT_TRUE(cpu && gpu && cpuOff);
        ASSERT_TRUE(cpu->upload(school) && gpu->upload(school) && cpuOff->upload(school));
        for (int s = 0; s < steps; ++s) {
            cpu->step();
            gpu->step();
            cpuOff->step();
        }
        const School expected = cpu->download(), actual = gpu->download();
        ASSERT_TRUE(gpu->health()) << gpu->health().error();
        ASSERT_EQ(actual.size(), school.size());
        const char* name = search == NeighborSearch::Grid ? "grid" : "all-pairs";
        // A fault in the few leaders or predators shows in the fish that follow or flee them:
        // a chase 10 % weaker put 193 fish off.
        std::size_t departed = 0;
        for (std::size_t i = 0; i < school.size(); ++i)
            if (maxRelativeError({actual[i]}, {expected[i]}, with) >= 1e-4) ++departed;
        EXPECT_LE(departed, departures) << name << ": fish off the cpu's by more than 1e-4";
        EXPECT_GT(maxRelativeError(cpuOff->download(), expected, with), 1e-2)
            << name << ": the behaviour under test changes nothing in this scene";
        for (std::size_t i = 0; i < school.size(); ++i)
            ASSERT_EQ(actual[i].species, school[i].species) << name << ", fish " << i;
    }
}

TEST_F(Gpu, EachSpeciesStepsWithItsOwnLimitsRadiiWeightsAndViewAsOnCpu) {
    const SimParams p = twoSpecies();
    SimParams oneKind = p;
    oneKind.species.clear();
    expectSpeciesStepAsOnCpu(p, oneKind);
}

TEST_F(Gpu, SchoolingWithTheOwnSpeciesOnlyStepsAsOnCpu) {
    SimParams p = twoSpecies();
    p.schoolsWith = SchoolsWith::Own;
    SimParams all = p;
    all.schoolsWith = SchoolsWith::All;
    expectSpeciesStepAsOnCpu(p, all);
    // One species schools with its own, the other with all.
    SimParams mixed = all;
    mixed.species[0].settings.push_back({"schoolsWith", 0.0f, glm::vec3(0.0f), 1});
    expectSpeciesStepAsOnCpu(mixed, all);
}

TEST_F(Gpu, SeparationScaledByKineticEnergyStepsAsOnCpu) {
    SimParams p = twoSpecies();
    p.separationScaling = SeparationScaling::KineticEnergy;
    SimParams unscaled = p;
    unscaled.separationScaling = SeparationScaling::None;
    expectSpeciesStepAsOnCpu(p, unscaled);
    // With inverse-square offsets, and alone (no species: the config's one kind).
    p.separationFalloff = unscaled.separationFalloff = SeparationFalloff::InverseSquare;
    expectSpeciesStepAsOnCpu(p, unscaled);
    p.species.clear();
    p.separationFalloff = SeparationFalloff::None;
    p.rSeparation = 2.5f;
    unscaled = p;
    unscaled.separationScaling = SeparationScaling::None;
    expectSpeciesStepAsOnCpu(p, unscaled);
}

TEST_F(Gpu, TheSidestepStepsAsOnCpu) {
    SimParams p = twoSpecies();
    p.kSidestep = 2.0f;
    p.species[1].settings.push_back(numberSetting("kSidestep", 0.0f));  // tuna do not give way
    SimParams none = p;
    none.kSidestep = 0.0f;
    expectSpeciesStepAsOnCpu(p, none);
}

TEST_F(Gpu, InformedFishStepAsOnCpu) {
    // Article steering: the force kPreferred g added, for the sardines alone.
    SimParams p = twoSpecies();
    p.preferredDirection = {0.0f, 0.3f, 1.0f};
    p.species[0].settings.push_back(numberSetting("kPreferred", 1.5f));
    SimParams naive = p;
    naive.species[0].settings.pop_back();
    expectSpeciesStepAsOnCpu(p, naive);
    // Couzin steering: (d + omega g) / |d + omega g|, with each species' turn rate and speed.
    SimParams couzin = twoSpecies();
    couzin.steering = Steering::Couzin;
    couzin.rSeparation = 1.0f;
    couzin.maxTurnRate = 120.0f;
    couzin.preferredDirection = {1.0f, 0.0f, 0.0f};
    couzin.species[0].settings.push_back(numberSetting("kPreferred", 0.8f));
    couzin.species[1].settings.push_back(numberSetting("maxTurnRate", 60.0f));
    SimParams uninformed = couzin;
    uninformed.species[0].settings.pop_back();
    expectSpeciesStepAsOnCpu(couzin, uninformed);
}

/// Every behaviour at once, with leaders and predators, noise (drawn with the step's index in
/// every species' pack), the prioritised sum, avoidance by rays and a minimum speed.
TEST_F(Gpu, SpeciesWithEveryOtherBehaviourStepAsOnCpu) {
    SimParams p = twoSpecies();
    p.schoolsWith = SchoolsWith::Own;
    p.separationScaling = SeparationScaling::KineticEnergy;
    p.kSidestep = 1.0f;
    p.kPreferred = 0.5f;
    p.leaders = 3;
    p.predators = 2;
    p.noise = 0.05f;
    p.combine = Combine::Prioritized;
    p.avoidance = Avoidance::Rays;
    p.minVelocity = 0.5f;
    p.species[1].settings.push_back(numberSetting("minVelocity", 1.0f));
    SimParams plain = p;
    plain.species.clear();
    // On an H200 one sardine of this scene took the other side of an edge at the second step,
    // and 9 fish were off by the sixth (llvmpipe: none); seeds 18 and 19 had none in 8 steps.
    expectSpeciesStepAsOnCpu(p, plain, 6, /*departures=*/24);
}

/// A full table: each of kMaxSpecies species at its own speed and separation radius.
TEST_F(Gpu, EverySpeciesOfAFullTableStepsWithItsOwnPack) {
    SimParams p = twoSpecies();
    p.species.clear();
    for (std::size_t s = 0; s < kMaxSpecies; ++s) {
        const float k = static_cast<float>(s);
        p.species.push_back({std::to_string(s),
                             75,
                             glm::vec3(0.5f),
                             {numberSetting("maxVelocity", 1.0f + 0.3f * k),
                              numberSetting("rSeparation", 0.5f + 0.15f * k),
                              numberSetting("kCohesion", 0.1f * k)}});
    }
    SimParams oneKind = p;
    oneKind.species.clear();
    expectSpeciesStepAsOnCpu(p, oneKind);
}

/// Fish::species goes up and comes back as it was, after the grid has reordered the school and
/// in a snapshot; a species past the table (a school uploaded before its species were set) is
/// kept too, and steps as the last, as on the cpu.
TEST_F(Gpu, SpeciesComeBackThroughUploadDownloadTheGridAndSnapshots) {
    SimParams p = twoSpecies();
    p.neighborSearch = NeighborSearch::Grid;
    School school = makeInitialSchool(p);
    school[3].species = 2;
    school[4].species = 15;
    school[5].species = 1000;
    auto gpu = makeGpu(p);
    ASSERT_TRUE(gpu);
    ASSERT_TRUE(gpu->upload(school));
    School back = gpu->download();
    ASSERT_EQ(back.size(), school.size());
    EXPECT_EQ(std::memcmp(back.data(), school.data(), school.size() * sizeof(Fish)), 0);

    auto cpu = test::makeBackend(BackendKind::Cpu, p);
    ASSERT_TRUE(cpu && cpu->upload(school));
    for (int s = 0; s < 4; ++s) {
        gpu->step();
        cpu->step();
    }
    back.clear();
    gpu->downloadInto(back);
    ASSERT_EQ(back.size(), school.size());
    for (std::size_t i = 0; i < school.size(); ++i)
        ASSERT_EQ(back[i].species, school[i].species) << "fish " << i;
    EXPECT_LT(maxRelativeError(back, cpu->download(), p), 1e-4);

    // A snapshot holds the school in the backend's order: the same species, as many of each.
    gpu->requestSnapshot();
    std::shared_ptr<const SchoolSnapshot> snapshot;
    for (int tries = 0; tries < 1000 && !snapshot; ++tries) {
        gpu->finish();
        snapshot = gpu->takeSnapshot();
    }
    ASSERT_TRUE(snapshot);
    std::map<std::uint32_t, std::size_t> counted, expected;
    for (const Fish& f : snapshot->fish()) ++counted[f.species];
    for (const Fish& f : school) ++expected[f.species];
    EXPECT_EQ(counted, expected);
}

}  // namespace
}  // namespace fishschool
