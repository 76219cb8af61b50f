// The run-time invariants (Invariants.h) that `simulate --check` and scripts/soak.sh test.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "backends/BackendRegistry.h"
#include "core/Invariants.h"
#include "core/Scenario.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;

SimParams oneRockScene() {
    SimParams p;
    p.bounds = {10.0f, 5.0f, 10.0f};
    p.rocks = {{{2.0f, -1.0f, 3.0f}, 2.0f}};
    return p;
}

School threeFish() {
    School school(3);
    school[0].position = {-9.0f, 4.0f, 0.0f};
    school[1].position = {5.0f, 0.0f, -5.0f};
    school[2].position = {0.0f, 0.0f, 0.0f};
    return school;
}

TEST(Invariants, AValidSchoolPasses) {
    EXPECT_TRUE(checkInvariants(threeFish(), oneRockScene()));
    EXPECT_TRUE(checkInvariants(School{}, oneRockScene()));
}

TEST(Invariants, TouchingAWallOrARockSurfaceIsAllowed) {
    const SimParams p = oneRockScene();
    School school = threeFish();
    school[0].position = {-10.0f, 5.0f, 10.0f};  // a corner of the tank
    school[1].position = {2.0f, 1.0f, 3.0f};     // the top of the rock
    // A rounding past the surface, far under the tolerance.
    school[2].position = {2.0f, -1.0f, 3.0f + 2.0f * (1.0f - 1e-6f)};
    EXPECT_TRUE(checkInvariants(school, p)) << checkInvariants(school, p).error();
}

TEST(Invariants, AFishOutsideTheTankIsNamed) {
    School school = threeFish();
    school[1].position.y = -5.01f;
    const auto result = checkInvariants(school, oneRockScene());
    ASSERT_FALSE(result);
    EXPECT_THAT(result.error(), HasSubstr("fish 1 at (5, -5.01"));
    EXPECT_THAT(result.error(), HasSubstr("outside the tank (y beyond +-5)"));
}

TEST(Invariants, AFishInsideARockIsNamed) {
    School school = threeFish();
    school[2].position = {2.0f, -1.0f, 4.9f};
    const auto result = checkInvariants(school, oneRockScene());
    ASSERT_FALSE(result);
    EXPECT_THAT(result.error(), HasSubstr("fish 2 at (2, -1, 4.9"));
    EXPECT_THAT(result.error(), HasSubstr("inside rock 0 (centre (2, -1, 3), radius 2)"));
}

TEST(Invariants, EveryNonFiniteValueIsNamed) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    struct Case {
        int field;  // 0 position, 1 velocity, 2 acceleration
        float value;
        const char* says;
    };
    for (const Case& c :
         {Case{0, nan, "the position is not finite"}, Case{0, -inf, "the position is not finite"},
          Case{1, nan, "the velocity"}, Case{2, inf, "the acceleration"}}) {
        School school = threeFish();
        glm::vec3* fields[] = {&school[0].position, &school[0].velocity, &school[0].acceleration};
        fields[c.field]->z = c.value;
        const auto result = checkInvariants(school, oneRockScene());
        ASSERT_FALSE(result) << c.says;
        EXPECT_THAT(result.error(), HasSubstr("fish 0 at"));
        EXPECT_THAT(result.error(), HasSubstr(c.says));
    }
}

TEST(Invariants, HoldOnEveryBackendForManySteps) {
    SimParams p;
    p.fishCount = 400;
    p.bounds = {12.0f, 6.0f, 12.0f};
    p.rocks = {{{0.0f, 0.0f, 0.0f}, 3.0f}, {{7.0f, -2.0f, 6.0f}, 1.5f}};
    p.kAvoidance = 2.0f;
    for (const BackendEntry& entry : backendRegistry()) {
        if (entry.onGpu) continue;  // tests/gpu runs the GL backend
        auto backend = createBackend(entry.kind, p);
        ASSERT_TRUE(backend) << backend.error();
        ASSERT_TRUE((*backend)->upload(makeInitialSchool(p)));
        for (int s = 0; s < 200; ++s) {
            (*backend)->step();
            const auto ok = checkInvariants((*backend)->download(), p);
            ASSERT_TRUE(ok) << entry.name << " step " << s + 1 << ": " << ok.error();
        }
        EXPECT_TRUE((*backend)->health());
    }
}

}  // namespace
}  // namespace fishschool
