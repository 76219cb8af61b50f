#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/Scenario.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// A named starting point for the panel's preset menu.
struct Preset {
    std::string name;
    std::string description;
    SimParams params;
    /// Its fish count is what it shows (100k fish, the paper's 100): the panel offers it
    /// with the preset's count ticked.
    bool ownFishCount = false;
};

/// The presets: "Default", "Article" and a few of our own.
std::span<const Preset> presets();
/// The preset of this name, or null.
const Preset* findPreset(std::string_view name);

/// The parameters applying `preset` gives a school of `runningFish`: the preset's, with its own
/// fish count when `withItsFishCount`, else with the running count. At Density::Fixed the
/// preset's tank, rocks and target then grow or shrink to hold that count at the preset's
/// density (fixedDensityParams); at Density::Tank they stay the preset's.
SimParams presetScene(const Preset& preset, std::int64_t runningFish, Density density,
                      bool withItsFishCount);

}  // namespace fishschool
