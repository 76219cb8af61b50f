// The backend registry: every kind listed once with its names, flags read against it, and a build
// without the GL backend that says so.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "backends/BackendRegistry.h"
#include "fishschool/SimParams.h"

namespace fishschool {
namespace {

TEST(BackendRegistry, ListsEveryKindOnceWithItsNames) {
    const auto all = backendRegistry();
    ASSERT_EQ(all.size(), 3u);
    for (BackendKind kind : {BackendKind::Cpu, BackendKind::Tbb, BackendKind::Gpu}) {
        const std::size_t index = backendIndex(kind);
        ASSERT_LT(index, all.size());
        EXPECT_EQ(all[index].kind, kind);
        EXPECT_EQ(parseBackendKind(toString(kind)), kind);
        EXPECT_FALSE(all[index].label.empty());
        ASSERT_NE(all[index].create, nullptr);
        ASSERT_NE(all[index].available, nullptr);
    }
    EXPECT_EQ(toString(BackendKind::Cpu), "cpu");
    EXPECT_EQ(toString(BackendKind::Tbb), "tbb");
    EXPECT_EQ(toString(BackendKind::Gpu), "gpu");
    EXPECT_FALSE(parseBackendKind("cuda"));
    EXPECT_EQ(backendNameList(), "cpu, tbb or gpu");
    EXPECT_TRUE(backendEntry(BackendKind::Gpu).onGpu);
    EXPECT_FALSE(backendEntry(BackendKind::Tbb).onGpu);
}

TEST(BackendRegistry, FlagsNameTheFlagAndTheAllowedKinds) {
    EXPECT_EQ(parseBackendFlag("--backend", "tbb"), BackendKind::Tbb);
    const auto refused = parseBackendFlag("--backend", "cuda");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error(), "--backend: 'cuda' is not allowed; must be cpu, tbb or gpu");
    const auto list = parseBackendList("--sweep-backends", "gpu,cpu");
    ASSERT_TRUE(list) << list.error();
    EXPECT_EQ(*list, (std::vector<BackendKind>{BackendKind::Gpu, BackendKind::Cpu}));
    for (const char* bad : {"cpu,,tbb", "cpu,cuda", ""}) {
        const auto refusedList = parseBackendList("--sweep-backends", bad);
        ASSERT_FALSE(refusedList) << bad;
        EXPECT_THAT(refusedList.error(), ::testing::HasSubstr("--sweep-backends")) << bad;
    }
}

/// A build without the GL backend still lists it, and refuses it with the reason.
TEST(BackendRegistry, AGpuLessBuildSaysSo) {
    const BackendEntry& gpu = backendEntry(BackendKind::Gpu);
    if (gpu.built) {
        EXPECT_TRUE(gpu.available()) << gpu.available().error();
        return;
    }
    const auto made = createBackend(BackendKind::Gpu, SimParams{});
    ASSERT_FALSE(made);
    EXPECT_EQ(made.error(),
              "gpu: this build has no GL backend (configured with FISHSCHOOL_BUILD_GPU=OFF)");
    EXPECT_FALSE(gpu.available());
}

TEST(HostileEnvironment, TheGpuLimitVariableIsAPlainWholeNumber) {
    for (const char* bad :
         {"abc", "0", "-5", "", " 96000", "96000x", "12345678901234567890123", "0x100", "1e6"}) {
        ::setenv(kGpuMaxBufferBytesVariable, bad, 1);
        const auto limit = gpuMaxBufferBytes();
        ASSERT_FALSE(limit) << bad;
        EXPECT_THAT(limit.error(), ::testing::HasSubstr("FISHSCHOOL_GPU_MAX_BUFFER_BYTES: '"));
    }
    ::setenv(kGpuMaxBufferBytesVariable, "96000", 1);
    EXPECT_EQ(**gpuMaxBufferBytes(), 96000);
    ::unsetenv(kGpuMaxBufferBytesVariable);
    EXPECT_FALSE(*gpuMaxBufferBytes());
}

}  // namespace
}  // namespace fishschool
