#include "AppLimits.h"

#include <string>

#include "backends/BackendRegistry.h"

namespace fishschool {

Result<void> checkAppFishCount(std::string_view what, std::int64_t fish) {
    if (fish <= kMaxAppFishCount) return {};
    return fail(std::string(what) + ": " + std::to_string(fish) +
                " is not allowed; the app runs 0 to " + std::to_string(kMaxAppFishCount) +
                " fish (fishschool-cli runs up to " + std::to_string(kMaxFishCount) +
                " without a window)");
}

Result<void> checkAppLimits(const SimParams& params, BackendKind kind) {
    if (auto ok = checkAppFishCount("fishCount", params.fishCount); !ok) return ok;
    if (params.neighborSearch != NeighborSearch::AllPairs) return {};
    const auto allPairsLimit = [](const BackendEntry& entry) {
        return entry.onGpu ? kMaxGpuAllPairsFish : kMaxCpuAllPairsFish;
    };
    const BackendEntry& here = backendEntry(kind);
    const std::int64_t limit = allPairsLimit(here);
    if (params.fishCount <= limit) return {};
    // Only what would take this school: another backend of this build with a higher limit.
    std::string others;
    for (const BackendEntry& entry : backendRegistry())
        if (entry.built && entry.onGpu != here.onGpu && params.fishCount <= allPairsLimit(entry))
            others += std::string(", the ") + (entry.onGpu ? "GPU" : "CPU") + " (all-pairs up to " +
                      std::to_string(allPairsLimit(entry)) + " fish)";
    return fail("neighborSearch: all-pairs with " + std::to_string(params.fishCount) +
                " fish on the " + (here.onGpu ? "GPU" : "CPU") +
                " makes every step last seconds or minutes (N^2 distance tests); choose grid" +
                others + ", or at most " + std::to_string(limit) + " fish");
}

}  // namespace fishschool
