// The panel's Species section: the config's values of the keys a species may set (from the
// table), then each species: its name, count and colour, what it measures, and the per-fish keys
// it sets for its own fish (perFishParams(), each drawn as the table draws the config's). Every
// edit is a new SimParams for the app to check and apply, as in the other sections. The section
// itself, with the config's values, is drawSpecies (PanelParameters.cpp).

#include <imgui.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "Panel.h"
#include "app_model/AppLimits.h"
#include "app_model/Readouts.h"
#include "core/Messages.h"
#include "core/ParamTable.h"
#include "io/ConfigIO.h"
#include "io/TextInput.h"

namespace fishschool::ui {
namespace {

/// "species N" for the first N from the count + 1 that no species is named.
std::string freeSpeciesName(const SimParams& params) {
    for (std::size_t n = params.species.size() + 1;; ++n) {
        const std::string name = "species " + std::to_string(n);
        if (std::none_of(params.species.begin(), params.species.end(),
                         [&](const Species& species) { return species.name == name; }))
            return name;
    }
}

bool setsKey(const Species& species, std::string_view key) {
    return std::any_of(species.settings.begin(), species.settings.end(),
                       [&](const SpeciesSetting& setting) { return setting.key == key; });
}

/// What a species sets, on one line: "maxVelocity 6, mass 20, schoolsWith own".
std::string settingsSummary(const Species& species) {
    std::string line;
    for (const SpeciesSetting& setting : species.settings) {
        const ParamInfo* info = findParam(setting.key);
        if (!info) continue;
        std::string value;
        if (const auto* choice = std::get_if<ChoiceField>(&info->field)) {
            if (setting.choice >= 0 && setting.choice < static_cast<int>(choice->names.size()))
                value = choice->names[static_cast<std::size_t>(setting.choice)];
        } else if (std::holds_alternative<glm::vec3 SimParams::*>(info->field)) {
            value = formatPoint(setting.vector);
        } else {
            value = formatNumber(setting.number);
        }
        if (!line.empty()) line += ", ";
        line.append(setting.key).append(" ").append(value);
    }
    return line;
}

}  // namespace

bool Panel::drawSpeciesList(const PanelState& state, SimParams& edited) {
    bool changed = false;
    speciesNameText_.resize(edited.species.size());
    speciesCountText_.resize(edited.species.size());
    std::optional<std::size_t> removed;
    for (std::size_t s = 0; s < edited.species.size(); ++s) {
        ImGui::Separator();
        ImGui::PushID(static_cast<int>(s));
        widgets_.setRectPrefix("species[" + std::to_string(s) + "].");
        bool remove = false;
        changed |= drawOneSpecies(state, edited, s, remove);
        widgets_.setRectPrefix("");
        ImGui::PopID();
        if (remove) removed = s;
    }
    if (removed) {
        const std::int64_t fish = edited.species[*removed].count;
        edited.species.erase(edited.species.begin() + static_cast<std::ptrdiff_t>(*removed));
        // The last one gone, the school is of one kind again and keeps its fish.
        if (!edited.species.empty()) edited.fishCount -= fish;
        changed = true;
    }
    ImGui::Separator();
    ImGui::BeginDisabled(edited.species.size() >= kMaxSpecies);
    if (ImGui::Button("Add species")) {
        Species added;
        added.name = freeSpeciesName(edited);
        added.color = defaultSpeciesColor(edited.species.size());
        if (edited.species.empty()) {
            added.count = edited.fishCount;  // the school as it is becomes the first species
        } else {
            added.count = std::clamp<std::int64_t>(edited.fishCount / 10, 1,
                                                   kMaxAppFishCount - edited.fishCount);
            added.count = std::max<std::int64_t>(added.count, 0);
            edited.fishCount += added.count;
        }
        edited.species.push_back(std::move(added));
        changed = true;
    }
    ImGui::EndDisabled();
    widgets_.noteRect("Add species");
    tip(edited.species.empty()
            ? "Make the school a species of its own (its fish as they are), to which more can be "
              "added."
            : "A new species of a tenth as many fish as the school (new fish; the others stay), "
              "in the next colour, with every fish value the config's until it sets its own. At "
              "most 16 species.");
    return changed;
}

bool Panel::drawOneSpecies(const PanelState& state, SimParams& edited, std::size_t s,
                           bool& remove) {
    Species& species = edited.species[s];
    bool changed = false;
    const float em = ImGui::GetFontSize();

    // Its colour, name and count on one line, then what it measures.
    if (ImGui::ColorEdit3("##color", &species.color.x,
                          ImGuiColorEditFlags_NoInputs | ImGuiColorEditFlags_NoLabel))
        changed = true;
    widgets_.noteRect("color");
    tip("The species' colour, when the fish are coloured by species (View): click to pick one.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(9.0f * em);
    if (auto typed = deferredTextField("##name", speciesNameText_[s], species.name)) {
        species.name = *typed;  // the app refuses an empty or a repeated name, with the reason
        changed = true;
    }
    widgets_.noteRect("name");
    tip("The species' name: 1 to 64 printable characters, each species its own. Enter applies "
        "it; its fish stay.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(6.0f * em);
    if (auto typed =
            wholeNumberField("fish##count", speciesCountText_[s], std::to_string(species.count))) {
        auto count = parseWholeNumber("species " + quote(species.name, 40) + " count", *typed, 0,
                                      kMaxAppFishCount);
        if (!count) {
            error_ = count.error();
        } else if (*count != species.count) {
            edited.fishCount += *count - species.count;
            species.count = *count;
            changed = true;
        }
    }
    widgets_.noteRect("count");
    tip("Its fish; the school's count is the sum. More adds fish, fewer removes its last ones; "
        "the other species' fish stay. Enter applies it.");
    sameLineIfFits(buttonWidth("remove"), rowRight_);
    if (ImGui::SmallButton("remove")) remove = true;
    widgets_.noteRect("remove");
    tip(edited.species.size() > 1
            ? "Remove this species and its fish; the others stay."
            : "Remove the last species: the school is of one kind again and keeps its fish.");

    if (s < state.species.size()) {
        const SpeciesMeasure& measured = state.species[s];
        ImGui::TextDisabled("%lld fish, mean speed %.2f m/s", static_cast<long long>(measured.fish),
                            measured.meanSpeed);
        widgets_.noteRect("measures");
        tip("Measured from a recent copy of the school, about twice a second.");
    }
    if (state.metrics && s < state.metrics->largestGroupShareBySpecies.size()) {
        ImGui::TextDisabled(
            "%s of its fish in the largest group",
            app::formatPercent(state.metrics->largestGroupShareBySpecies[s]).c_str());
        widgets_.noteRect("largest group");
        tip("Of this species' fish, the share in the school's largest group (groupDistance in "
            "School): two species that sort themselves show one near 100% and one near 0%.");
    }

    // The per-fish keys it sets: each one's box and control when opened, else what it sets in
    // a few wrapped lines.
    const std::string header =
        "own values (" + std::to_string(species.settings.size()) + " set)###own";
    const bool open = ImGui::TreeNode(header.c_str());
    widgets_.noteRect("own values");
    tip("The per-fish keys this species sets for its own fish; a key it does not set is the "
        "config's value above. Open to set one.");
    if (open) {
        changed |= drawOwnValues(edited, s);
        ImGui::TreePop();
    } else if (!species.settings.empty()) {
        ImGui::Indent();
        pushTextWrapWithin(rowRight_);
        ImGui::TextDisabled("%s", settingsSummary(species).c_str());
        ImGui::PopTextWrapPos();
        ImGui::Unindent();
    }
    return changed;
}

bool Panel::drawOwnValues(SimParams& edited, std::size_t s) {
    bool changed = false;
    Species& species = edited.species[s];
    for (const ParamInfo* info : perFishParams()) {
        ImGui::PushID(info->key);
        bool own = setsKey(species, info->key);
        if (ImGui::Checkbox("##own", &own)) {
            if (own)  // from the value its fish have now: nothing changes until it is moved
                species.settings.push_back(settingOf(*info, paramsOfSpecies(edited, s)));
            else
                std::erase_if(species.settings, [&](const SpeciesSetting& setting) {
                    return setting.key == info->key;
                });
            changed = true;
        }
        widgets_.noteRect(std::string(info->key) + ".own");
        tip(own ? "This species' own value; untick for the config's."
                : "Tick to give this species its own value of the key.");
        ImGui::SameLine();
        // The control shows what the species' fish step with: its own value or the config's.
        SimParams values = paramsOfSpecies(edited, s);
        ImGui::BeginDisabled(!own);
        if (widgets_.param(*info, values) && own) {
            const SpeciesSetting setting = settingOf(*info, values);
            for (SpeciesSetting& mine : species.settings)
                if (mine.key == setting.key) mine = setting;
            changed = true;
        }
        ImGui::EndDisabled();
        ImGui::PopID();
    }
    return changed;
}

}  // namespace fishschool::ui
