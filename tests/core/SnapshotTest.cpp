// Snapshots of a running school (Backend::requestSnapshot): what the app's measures read on
// another thread while the backend steps on, on every backend.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "HandBuiltScenes.h"
#include "core/Scenario.h"

namespace fishschool {
namespace {

/// Position and velocity of each fish, sorted: a snapshot keeps the backend's own order.
std::vector<std::array<float, 6>> sorted(const School& school) {
    std::vector<std::array<float, 6>> rows;
    for (const Fish& f : school)
        rows.push_back(
            {f.position.x, f.position.y, f.position.z, f.velocity.x, f.velocity.y, f.velocity.z});
    std::sort(rows.begin(), rows.end());
    return rows;
}

/// Asks until the snapshot is there (the GPU's comes once its copy is done), for at most 10 s.
std::shared_ptr<const SchoolSnapshot> awaitSnapshot(Backend& backend) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        if (auto snapshot = backend.takeSnapshot()) return snapshot;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return nullptr;
}

class Snapshots : public test::PerBackend {};

TEST_P(Snapshots, HoldTheSchoolAsItWasWhileTheBackendStepsOn) {
    SimParams p;
    p.fishCount = 500;
    p.seed = 3;
    p.neighborSearch = GetParam().search;
    auto backend = test::makeBackend(GetParam().backend, p);
    ASSERT_TRUE(backend);
    ASSERT_TRUE(backend->upload(makeInitialSchool(p)));
    for (int s = 0; s < 3; ++s) backend->step();
    const School atRequest = backend->download();

    backend->requestSnapshot();
    auto snapshot = awaitSnapshot(*backend);
    ASSERT_TRUE(snapshot) << "no snapshot within 10 s";
    EXPECT_EQ(backend->takeSnapshot(), nullptr) << "one request, one snapshot";
    // Steps while the snapshot is held write elsewhere: it still reads the school it was of.
    for (int s = 0; s < 4; ++s) backend->step();
    const School later = backend->download();
    ASSERT_NE(sorted(later), sorted(atRequest));
    EXPECT_EQ(sorted(snapshot->fish()), sorted(atRequest));

    // Let go, the backend steps on as a backend that never gave one out: to the bit on the CPU
    // (the GPU's grid counts fish with atomics, whose order varies from run to run).
    snapshot.reset();
    backend->step();
    auto reference = test::makeBackend(GetParam().backend, p);
    ASSERT_TRUE(reference->upload(makeInitialSchool(p)));
    for (int s = 0; s < 8; ++s) reference->step();
    if (GetParam().backend == BackendKind::Gpu)
        EXPECT_LT(test::maxRelativeError(backend->download(), reference->download(), p), 1e-3);
    else
        EXPECT_EQ(backend->download(), reference->download());
}

TEST_P(Snapshots, HoldEachFishsSpecies) {
    // The measures per species (the share in the largest group) read them from the snapshot.
    SimParams p;
    p.fishCount = 300;
    p.neighborSearch = GetParam().search;
    p.species = {{"a", 100, {1.0f, 0.0f, 0.0f}, {}}, {"b", 200, {0.0f, 0.0f, 1.0f}, {}}};
    auto backend = test::makeBackend(GetParam().backend, p);
    ASSERT_TRUE(backend);
    ASSERT_TRUE(backend->upload(makeInitialSchool(p)));
    for (int s = 0; s < 2; ++s) backend->step();
    const School atRequest = backend->download();
    backend->requestSnapshot();
    const auto snapshot = awaitSnapshot(*backend);
    ASSERT_TRUE(snapshot);
    // Each fish, found by its position, has its species.
    const auto bySpecies = [](const School& school) {
        std::vector<std::pair<std::array<float, 3>, std::uint32_t>> rows;
        for (const Fish& f : school)
            rows.push_back({{f.position.x, f.position.y, f.position.z}, f.species});
        std::sort(rows.begin(), rows.end());
        return rows;
    };
    const auto held = bySpecies(snapshot->fish());
    EXPECT_EQ(held, bySpecies(atRequest));
    EXPECT_EQ(std::ranges::count(held, 1u, &std::pair<std::array<float, 3>, std::uint32_t>::second),
              200);
}

TEST_P(Snapshots, OfAnEmptySchoolHoldNoFish) {
    SimParams p;
    p.fishCount = 0;
    p.neighborSearch = GetParam().search;
    auto backend = test::makeBackend(GetParam().backend, p);
    ASSERT_TRUE(backend);
    ASSERT_TRUE(backend->upload(School{}));
    backend->requestSnapshot();
    const auto snapshot = awaitSnapshot(*backend);
    ASSERT_TRUE(snapshot);
    EXPECT_TRUE(snapshot->fish().empty());
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Snapshots, ::testing::ValuesIn(test::everyBuiltBackend()),
                         test::setupName);

}  // namespace
}  // namespace fishschool
