#pragma once

// Helpers for the tests that check one step on small hand-built scenes.

#include <gtest/gtest.h>

#include <glm/vec3.hpp>

#include "core/CpuBackends.h"

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

/// One step of `school` on a fresh cpu or tbb backend.
inline School stepOnce(BackendKind kind, const SimParams& p, const School& school) {
    auto backend = kind == BackendKind::Tbb ? makeTbbBackend() : makeCpuBackend();
    backend->setParams(p);
    EXPECT_TRUE(backend->upload(school));
    backend->step();
    return backend->download();
}

inline void expectVec(const glm::vec3& actual, const glm::vec3& expected, float tolerance = 1e-5f) {
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(actual[k], expected[k], tolerance) << "component " << k;
}

}  // namespace fishschool::test
