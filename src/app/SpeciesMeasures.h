#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "fishschool/Fish.h"
#include "ui/Panel.h"

namespace fishschool::app {

/// Each of `kinds` species' fish in `school` and their mean speed, one pass over the school (a
/// fish past the species counts for none), for the panel's Species section and the overlay.
std::vector<ui::SpeciesMeasure> measureSpecies(std::span<const Fish> school, std::size_t kinds);

}  // namespace fishschool::app
