#pragma once

#include <span>
#include <string>

#include "fishschool/SimParams.h"

namespace fishschool {

/// A named starting point for the panel's preset menu.
struct Preset {
    std::string name;
    std::string description;
    SimParams params;
};

/// The presets: "Default", "Article" and a few of our own.
std::span<const Preset> presets();

}  // namespace fishschool
