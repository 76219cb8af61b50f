// The panel's parameter sections. The controls of paramTable()'s keys come from the table (their
// label, range and help); a section draws by hand only what the table cannot: the fish count,
// the target, the rocks, leaders and predators, presets and files.

#include <imgui.h>

#include <algorithm>
#include <string>

#include "Panel.h"
#include "app_model/AppLimits.h"
#include "app_model/Presets.h"
#include "app_model/SteeringReads.h"
#include "core/ParamTable.h"
#include "core/Scenario.h"
#include "io/TextInput.h"

namespace fishschool::ui {

template <class DrawCustom>
bool Panel::drawKeys(const char* section, SimParams& edited, DrawCustom&& drawCustom) {
    bool changed = false;
    // The keys the running steering does not read are dimmed, the reason in their tooltips.
    const std::string note = app::unreadNote(edited);
    for (const ParamInfo& info : paramTable()) {
        if (std::string_view(info.panel.section) != section) continue;
        const bool read = app::steeringReads(edited, info);
        if (info.panel.widget == Widget::Table) {
            changed |= widgets_.param(info, edited, read ? nullptr : note.c_str());
        } else if (info.panel.widget == Widget::Custom) {
            if (!read) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, ImGui::GetStyle().Alpha * 0.45f);
            changed |= drawCustom(info);
            if (!read) ImGui::PopStyleVar();
            widgets_.noteDimmed(info.panel.label, !read);
        }
    }
    return changed;
}

void Panel::drawParameters(const PanelState& state, PanelActions& actions) {
    SimParams edited = *state.params;
    bool changed = drawSchool(state, edited, actions);
    changed |= drawSpecies(state, edited);
    changed |= drawBehaviour(edited);
    changed |= drawTargetAndAvoidance(edited);
    changed |= drawTank(edited);
    drawView(state);
    drawFiles(state, actions);
    changed |= drawSteering(edited);
    changed |= drawBurst(edited);
    if (changed) actions.newParams = edited;
}

bool Panel::drawBurst(SimParams& edited) {
    // Open the first time the school swims in kicks (the preset "Rummy-nose tetras").
    if (edited.steering == Steering::BurstAndCoast) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
    if (!widgets_.section("Burst and coast")) return false;
    return drawKeys("Burst and coast", edited, [](const ParamInfo&) { return false; });
}

bool Panel::drawSchool(const PanelState& state, SimParams& edited, PanelActions& actions) {
    if (!widgets_.section("School", ImGuiTreeNodeFlags_DefaultOpen)) return false;
    bool changed = drawKeys("School", edited, [&](const ParamInfo& info) {
        if (std::string_view(info.key) != "fishCount") return false;
        bool fishChanged = false;
        int fish = static_cast<int>(std::min<std::int64_t>(edited.fishCount, kMaxAppFishCount));
        // With species the count is their sum: a new one is shared among them (setFishCount), so
        // that the counts still add up.
        if (widgets_.sliderInt(info.panel.label, &fish, 0, static_cast<int>(kMaxAppFishCount), "%d",
                               ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp,
                               static_cast<int>(SimParams{}.fishCount))) {
            setFishCount(edited, fish);
            fishChanged = true;
        }
        const std::string help =
            edited.species.empty()
                ? std::string(info.help)
                : std::string(info.help) +
                      " With species this is the sum of their counts: a new count is shared "
                      "among them in proportion to their counts (each one's own is in Species).";
        tip(help.c_str());
        // A typed count takes effect on Enter, so half-typed numbers never resize the school.
        // While the field is being edited ImGui keeps its own text, so this only seeds it.
        if (auto typed = wholeNumberField("fish count", fishText_, std::to_string(fish))) {
            auto count = parseWholeNumber("fish count", *typed, 0, kMaxAppFishCount);
            if (!count) {
                error_ = count.error();
            } else if (*count != fish) {
                setFishCount(edited, *count);
                fishChanged = true;
            }
        }
        widgets_.noteRect("fish count");
        tip("Type a count, then Enter or click elsewhere.");
        bool keepDensity = state.density == Density::Fixed;
        if (ImGui::Checkbox("keep the density", &keepDensity))
            actions.density = keepDensity ? Density::Fixed : Density::Tank;
        tip("On: a new fish count grows or shrinks the tank, its rocks and the target, so the "
            "fish per unit volume stay those of the preset, config, tank or school you set (as "
            "fishschool-cli bench --density fixed); the sweep does the same. Off: the tank stays, "
            "and more fish make a denser school.");
        return fishChanged;
    });

    ImGui::TextUnformatted("Presets");
    const auto all = presets();
    presetIndex_ = std::clamp(presetIndex_, 0, static_cast<int>(all.size()) - 1);
    const bool open = ImGui::BeginCombo("##preset", presetBoxLabel().c_str());
    widgets_.noteRect("preset box");
    if (open) {
        for (std::size_t p = 0; p < all.size(); ++p) {
            if (ImGui::Selectable(all[p].name.c_str(),
                                  presetPicked_ && static_cast<int>(p) == presetIndex_)) {
                presetIndex_ = static_cast<int>(p);
                presetPicked_ = true;
                // A preset whose count is what it shows comes with it, unless unticked.
                presetFishCount_ = all[p].ownFishCount;
            }
            widgets_.noteRect("preset " + all[p].name);
            tip(all[p].description.c_str());
        }
        ImGui::EndCombo();
    }
    tip("A starting point: hover an entry for what it shows.");
    // Apply applies the preset the box names: one picked there, or the one applied last.
    const Preset* named =
        presetPicked_ ? &all[static_cast<std::size_t>(presetIndex_)] : findPreset(sourceName_);
    sameLineIfFits(buttonWidth("Apply preset"), rowRight_);
    ImGui::BeginDisabled(named == nullptr);
    const bool apply = ImGui::Button("Apply preset");
    ImGui::EndDisabled();
    widgets_.noteRect("Apply preset");
    tip("Replace every parameter with the preset's; the school keeps swimming, and its fish "
        "count unless \"its fish count\" is ticked.");
    const std::string ownCount =
        named ? "its fish count (" + std::to_string(named->params.fishCount) + ")###presetfish"
              : std::string("its fish count###presetfish");
    sameLineIfFits(ImGui::GetFrameHeight() +
                       ImGui::CalcTextSize(ownCount.c_str(), nullptr, true).x +
                       ImGui::GetStyle().ItemInnerSpacing.x,
                   rowRight_);
    ImGui::Checkbox(ownCount.c_str(), &presetFishCount_);
    widgets_.noteRect("its fish count");
    tip("Ticked: the preset's own fish count too. Unticked: the school keeps its count (at "
        "\"keep the density\" the preset's tank grows or shrinks to hold it).");
    if (apply && named) {
        actions.applyPreset = PanelActions::PresetRequest{
            static_cast<std::size_t>(named - all.data()), presetFishCount_};
    }
    return changed;
}

std::string Panel::presetBoxLabel() const {
    const auto all = presets();
    if (presetPicked_) return all[static_cast<std::size_t>(presetIndex_)].name;
    return sourceName_;
}

bool Panel::drawBehaviour(SimParams& edited) {
    if (!widgets_.section("Behaviour", ImGuiTreeNodeFlags_DefaultOpen)) return false;
    return drawKeys("Behaviour", edited, [](const ParamInfo&) { return false; });
}

bool Panel::drawSpecies(const PanelState& state, SimParams& edited) {
    // Open the first time the school has species (a mixed school loaded or started from).
    if (!edited.species.empty()) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
    if (!widgets_.section("Species")) return false;
    pushTextWrapWithin(rowRight_);
    ImGui::TextDisabled(edited.species.empty()
                            ? "Every fish's values; Add species makes kinds of fish, each with "
                              "its own count, colour and values."
                            : "The values of every fish whose species does not set its own:");
    ImGui::PopTextWrapPos();
    return drawKeys("Species", edited, [&](const ParamInfo& info) {
        return std::string_view(info.key) == "species" && drawSpeciesList(state, edited);
    });
}

bool Panel::drawTargetAndAvoidance(SimParams& edited) {
    if (!widgets_.section("Target and avoidance")) return false;
    return drawKeys("Target and avoidance", edited, [&](const ParamInfo& info) {
        if (std::string_view(info.key) != "target") return false;
        // Anywhere in the tank, whatever its size.
        const float reach = std::max({edited.bounds.x, edited.bounds.y, edited.bounds.z});
        static const SimParams kDefaults;
        const std::string help = app::steeringReads(edited, info)
                                     ? std::string(info.help)
                                     : std::string(info.help) + " " + app::unreadNote(edited);
        return widgets_.sliderFloat3(info.panel.label, &edited.target.x, -reach, reach,
                                     help.c_str(), "%.1f", 0, &kDefaults.target.x);
    });
}

bool Panel::drawTank(SimParams& edited) {
    if (!widgets_.section("Tank and rocks")) return false;
    return drawKeys("Tank and rocks", edited, [&](const ParamInfo& info) {
        return std::string_view(info.key) == "rocks" && drawRocks(edited);
    });
}

void Panel::drawView(const PanelState& state) {
    if (!widgets_.section("View")) return;
    int coloring = static_cast<int>(view.coloring(*state.params));
    if (widgets_.choose("colour fish by", coloring, kFishColorNames,
                        "Speed: slow blue to fast orange. Heading: the direction each fish swims, "
                        "as a hue. Species: each species' colour (Species); the default when the "
                        "school has species, else speed."))
        view.color = static_cast<FishColor>(coloring);
    ImGui::Checkbox("vsync", &view.vsync);
    tip("Wait for the display's refresh; off to measure the machine.");
    ImGui::Checkbox("measure the school", &view.measureSchool);
    tip("Polarization, milling and nearest-neighbour distance in the overlay.");
    int follow = static_cast<int>(view.follow);
    if (widgets_.choose("camera follows", follow, kCameraFollowNames,
                        "Keep the school in view as it swims: the camera looks at the centre of "
                        "every fish or of the largest group, from the same angle and distance "
                        "(it reads the measures, which it turns on). G cycles through them.")) {
        view.follow = static_cast<CameraFollow>(follow);
        if (view.follow != CameraFollow::Off) view.measureSchool = true;
    }
}

void Panel::drawFiles(const PanelState& state, PanelActions& actions) {
    if (!widgets_.section("Files")) return;
    pathFieldWithBrowse("config", configPath_, sizeof configPath_, PathField::Config,
                        app::FileKind::Config, actions,
                        "A config JSON: every parameter (docs/config.md). Type a path, or "
                        "Browse.");
    if (ImGui::Button("Load config")) actions.loadConfigPath = configPath_;
    widgets_.noteRect("Load config");
    tip("Replace the parameters with the file's; the school keeps swimming.");
    ImGui::SameLine();
    if (ImGui::Button("Save config")) actions.saveConfigPath = configPath_;
    widgets_.noteRect("Save config");
    tip("Write the running parameters to the config file.");
    pathFieldWithBrowse("school", statePath_, sizeof statePath_, PathField::School,
                        app::FileKind::State, actions,
                        "The school itself, as a state CSV: positions and velocities of every "
                        "fish. Type a path, or Browse.");
    if (ImGui::Button("Load school")) actions.loadStatePath = statePath_;
    tip("Replace the school with the file's, whatever its size.");
    ImGui::SameLine();
    if (ImGui::Button("Save school")) actions.saveStatePath = statePath_;
    tip("Write the school as a state CSV.");
    ImGui::InputText("video", videoPath_, sizeof videoPath_);
    tip("Where Record video writes the window, as a video ffmpeg can write (.mp4).");
    if (!state.recordingVideo) {
        if (ImGui::Button("Record video")) {
            actions.startVideoPath = videoPath_;
            actions.videoSceneOnly = videoSceneOnly_;
        }
        tip("Record the window, one video frame per drawn frame at a fixed rate; the "
            "simulation then advances one video frame's time per frame.");
        ImGui::SameLine();
        ImGui::Checkbox("scene only", &videoSceneOnly_);
        tip("The video shows the tank alone, framed in the whole frame: no panel, no overlay "
            "(as --record-clean). The window still shows them.");
    } else {
        if (ImGui::Button("Stop video")) actions.stopVideo = true;
        tip("Finish the video and write it.");
        ImGui::SameLine();
        ImGui::Text("%lld frames", state.videoFrames);
    }
    drawTrajectoryFiles(state, actions);
}

bool Panel::drawSteering(SimParams& edited) {
    if (!widgets_.section("Steering, leaders and predators")) return false;
    // Leaders and predators are the first fish of the school; the sliders stop at its size.
    const int most = static_cast<int>(std::min<std::int64_t>(edited.fishCount, 100));
    return drawKeys("Steering, leaders and predators", edited, [&](const ParamInfo& info) {
        const bool leaders = std::string_view(info.key) == "leaders";
        if (leaders) ImGui::Separator();
        std::int64_t& count = leaders ? edited.leaders : edited.predators;
        std::int64_t& other = leaders ? edited.predators : edited.leaders;
        int shown = static_cast<int>(std::min<std::int64_t>(count, most));
        const bool changed = widgets_.sliderInt(info.panel.label, &shown, 0, most, "%d",
                                                ImGuiSliderFlags_AlwaysClamp, 0);
        if (changed) {
            count = shown;
            other = std::min<std::int64_t>(other, edited.fishCount - shown);
        }
        tip(app::steeringReads(edited, info)
                ? info.help
                : (std::string(info.help) + " " + app::unreadNote(edited)).c_str());
        return changed;
    });
}

bool Panel::drawRocks(SimParams& edited) {
    bool changed = false;
    int removeIndex = -1;
    for (std::size_t r = 0; r < edited.rocks.size(); ++r) {
        ImGui::PushID(static_cast<int>(r));
        Rock& rock = edited.rocks[r];
        ImGui::Text("rock %zu", r);
        ImGui::SameLine();
        if (ImGui::SmallButton("remove")) removeIndex = static_cast<int>(r);
        tip("Remove this rock.");
        const float reach = std::max({edited.bounds.x, edited.bounds.y, edited.bounds.z});
        // The default scene's rock of this number, where it has one.
        static const SimParams kDefaults;
        const Rock* initial = r < kDefaults.rocks.size() ? &kDefaults.rocks[r] : nullptr;
        changed |= widgets_.sliderFloat3("center", &rock.center.x, -reach, reach,
                                         "The rock's centre; fish it lands on are moved out.",
                                         "%.1f", 0, initial ? &initial->center.x : nullptr);
        changed |= widgets_.sliderFloat("radius", &rock.radius, 0.1f, reach,
                                        "The rock's radius; a rock keeps a step's gap to the "
                                        "walls and the other rocks.",
                                        "%.2f", 0, initial ? &initial->radius : nullptr);
        widgets_.noteRect("rocks[" + std::to_string(r) + "].radius");
        ImGui::PopID();
    }
    if (removeIndex >= 0) {
        edited.rocks.erase(edited.rocks.begin() + removeIndex);
        changed = true;
    }
    if (ImGui::Button("Add rock")) {
        edited.rocks.push_back({{0.0f, -0.5f * edited.bounds.y, 0.0f},
                                0.2f * std::min(edited.bounds.x, edited.bounds.y)});
        changed = true;
    }
    tip("A new rock on the floor, in the middle of the tank.");
    return changed;
}

}  // namespace fishschool::ui
