#include "SpeciesMeasures.h"

#include <glm/geometric.hpp>

namespace fishschool::app {

std::vector<ui::SpeciesMeasure> measureSpecies(std::span<const Fish> school, std::size_t kinds) {
    std::vector<ui::SpeciesMeasure> measures(kinds);
    std::vector<double> speedSums(kinds, 0.0);
    for (const Fish& fish : school) {
        if (fish.species >= kinds) continue;
        ++measures[fish.species].fish;
        speedSums[fish.species] += static_cast<double>(glm::length(fish.velocity));
    }
    for (std::size_t s = 0; s < kinds; ++s)
        if (measures[s].fish > 0)
            measures[s].meanSpeed = speedSums[s] / static_cast<double>(measures[s].fish);
    return measures;
}

}  // namespace fishschool::app
