#pragma once

// Helpers for the tests that check one step on small hand-built scenes, on every kind of backend
// in the registry that this build has: a new backend gets these tests by joining the registry.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

#include "backends/BackendRegistry.h"
#include "core/Scenario.h"

namespace fishschool::test {

/// A quiet tank: no rock, no neighbour rule, limits far away; a test switches on what it checks.
inline SimParams quietScene(NeighborSearch search) {
    SimParams p;
    p.bounds = {50.0f, 50.0f, 50.0f};
    p.rocks.clear();
    p.kCohesion = p.kSeparation = p.kAlignment = 0.0f;
    p.rCohesion = p.rSeparation = p.rAlignment = 0.0f;
    p.maxAcceleration = 1000.0f;
    p.maxVelocity = 1000.0f;
    p.dt = 0.01f;
    p.neighborSearch = search;
    return p;
}

/// A backend kind and a neighbour search to run a test with.
struct BackendSetup {
    BackendKind backend;
    NeighborSearch search;
};

/// Every kind this build has (the gpu one too, on whatever GL there is), with both searches.
inline std::vector<BackendSetup> everyBuiltBackend() {
    std::vector<BackendSetup> setups;
    for (const BackendEntry& entry : backendRegistry()) {
        if (!entry.built) continue;
        for (NeighborSearch search : {NeighborSearch::AllPairs, NeighborSearch::Grid})
            setups.push_back({entry.kind, search});
    }
    return setups;
}

/// "cpuAllPairs", "gpuGrid": test names.
inline std::string setupName(const ::testing::TestParamInfo<BackendSetup>& info) {
    return std::string(toString(info.param.backend)) +
           (info.param.search == NeighborSearch::Grid ? "Grid" : "AllPairs");
}

/// Fails, rather than skips, a test whose backend cannot run here: a build that has a backend
/// tests it (CI has Mesa's llvmpipe for the gpu one).
inline void requireAvailable(BackendKind kind) {
    const auto available = backendEntry(kind).available();
    ASSERT_TRUE(available) << toString(kind)
                           << " is built but cannot run here: " << available.error();
}

/// A fresh backend of `kind` with `p` set; a test failure (and null) when it cannot be made.
inline std::unique_ptr<Backend> makeBackend(BackendKind kind, const SimParams& p) {
    auto backend = createBackend(kind, p);
    EXPECT_TRUE(backend) << toString(kind) << ": " << backend.error();
    return backend ? std::move(*backend) : nullptr;
}

/// One step of `school` on a fresh backend of `kind`. On a failure (recorded) the school comes
/// back unstepped, so the caller's checks fail rather than index an empty school.
inline School stepOnce(BackendKind kind, const SimParams& p, const School& school) {
    auto backend = makeBackend(kind, p);
    if (!backend) return school;
    const auto uploaded = backend->upload(school);
    EXPECT_TRUE(uploaded) << uploaded.error();
    if (!uploaded) return school;
    backend->step();
    School next = backend->download();
    EXPECT_EQ(next.size(), school.size());
    if (next.size() != school.size()) return school;
    return next;
}

/// The largest |a - b| / max(|b|, scale) over every component of every fish, with the scales of
/// the scene: a hundredth of the tank for positions, the limits for velocities and accelerations.
inline double maxRelativeError(const School& a, const School& b, const SimParams& p) {
    const double positionScale = glm::length(p.bounds) * 1e-2;
    auto relative = [](float x, float reference, double scale) {
        return std::abs(double(x) - reference) / std::max(std::abs(double(reference)), scale);
    };
    double worst = a.size() == b.size() ? 0.0 : 1e30;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        for (int k = 0; k < 3; ++k) {
            worst = std::max(worst, relative(a[i].position[k], b[i].position[k], positionScale));
            worst = std::max(worst, relative(a[i].velocity[k], b[i].velocity[k], p.maxVelocity));
            worst = std::max(
                worst, relative(a[i].acceleration[k], b[i].acceleration[k], p.maxAcceleration));
        }
    }
    return worst;
}

/// `school` after `steps` steps of `p` on a fresh backend of `kind` with `search`.
inline School afterSteps(BackendKind kind, NeighborSearch search, SimParams p, const School& school,
                         int steps) {
    p.neighborSearch = search;
    auto backend = makeBackend(kind, p);
    EXPECT_TRUE(backend && backend->upload(school));
    if (!backend) return {};
    for (int s = 0; s < steps; ++s) backend->step();
    return backend->download();
}

/// cpu and tbb give the same bits with each search, and the two searches find the same
/// neighbours (to the last bits of the sums), over 3 steps of `p`'s own school; cpu's grid
/// school.
inline School expectTbbMatchesCpuAndSearchesAgree(const SimParams& p, const School& school) {
    const auto run = [&](BackendKind kind, NeighborSearch search) {
        return afterSteps(kind, search, p, school, 3);
    };
    const School cpuGrid = run(BackendKind::Cpu, NeighborSearch::Grid);
    EXPECT_EQ(run(BackendKind::Tbb, NeighborSearch::Grid), cpuGrid);
    const School cpuPairs = run(BackendKind::Cpu, NeighborSearch::AllPairs);
    EXPECT_EQ(run(BackendKind::Tbb, NeighborSearch::AllPairs), cpuPairs);
    EXPECT_LT(maxRelativeError(cpuGrid, cpuPairs, p), 1e-4);
    return cpuGrid;
}
inline School expectTbbMatchesCpuAndSearchesAgree(const SimParams& p) {
    return expectTbbMatchesCpuAndSearchesAgree(p, makeInitialSchool(p));
}

/// A test run on every backend and search of everyBuiltBackend(); it fails, rather than skips,
/// where its backend cannot run.
class PerBackend : public ::testing::TestWithParam<BackendSetup> {
  protected:
    void SetUp() override { requireAvailable(GetParam().backend); }
    /// quietScene with a tiny separation radius at weight 0, which makes the grid search run
    /// (with every radius 0 there is nothing to search).
    SimParams quiet() const {
        SimParams p = quietScene(GetParam().search);
        p.rSeparation = 0.01f;
        return p;
    }
    /// One step of `school` on this test's backend.
    School step(const SimParams& p, const School& school) const {
        return stepOnce(GetParam().backend, p, school);
    }
};

/// maxRelativeError between `kind` and cpu after `steps` steps from the same school; 1e30 (a
/// recorded failure) where either cannot be made or take the school.
inline double errorAgainstCpu(BackendKind kind, const SimParams& p, const School& school,
                              int steps) {
    auto reference = makeBackend(BackendKind::Cpu, p);
    auto backend = makeBackend(kind, p);
    if (!reference || !backend) return 1e30;
    const auto referenceUpload = reference->upload(school);
    const auto upload = backend->upload(school);
    EXPECT_TRUE(referenceUpload && upload);
    if (!referenceUpload || !upload) return 1e30;
    for (int s = 0; s < steps; ++s) {
        reference->step();
        backend->step();
    }
    return maxRelativeError(backend->download(), reference->download(), p);
}

inline void expectVec(const glm::vec3& actual, const glm::vec3& expected, float tolerance = 1e-5f) {
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(actual[k], expected[k], tolerance) << "component " << k;
}

}  // namespace fishschool::test
