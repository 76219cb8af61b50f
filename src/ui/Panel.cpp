#include "Panel.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "core/BackendRegistry.h"
#include "core/ConfigIO.h"
#include "core/Scenario.h"
#include "core/StateIO.h"
#include "core/TextInput.h"

namespace fishschool::ui {
namespace {

constexpr int kPanelMaxFish = 1'000'000;

/// A slider that edits a copy; the caller validates before anything changes.
bool sliderFloat(const char* label, float* value, float min, float max, const char* format = "%.3f",
                 ImGuiSliderFlags flags = 0) {
    return ImGui::SliderFloat(label, value, min, max, format, flags);
}

void helpMarker(const char* text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

/// The plot's colour for the backend at `index` in the registry.
ImU32 backendColor(std::size_t index) {
    constexpr ImU32 kColors[] = {IM_COL32(90, 170, 255, 255), IM_COL32(255, 170, 60, 255),
                                 IM_COL32(120, 220, 120, 255), IM_COL32(230, 110, 200, 255),
                                 IM_COL32(240, 230, 100, 255)};
    return kColors[index % std::size(kColors)];
}

/// Why backend number `index` of the registry cannot run; empty when it can (or is not listed).
const std::string& unavailableReason(const PanelState& state, std::size_t index) {
    static const std::string none;
    return index < state.unavailable.size() ? state.unavailable[index] : none;
}

/// FPS against fish count on log-log axes, one line per backend (the newest row of each case),
/// like the article's figure beside Table 1.
void drawFpsPlot(const std::vector<FpsRecord>& rows) {
    const auto backends = backendRegistry();
    double fishLow = 1e300, fishHigh = 0.0, fpsLow = 1e300, fpsHigh = 0.0;
    for (const FpsRecord& r : rows) {
        if (r.fish <= 0 || r.fps <= 0.0) continue;  // no place on a log axis
        fishLow = std::min(fishLow, double(r.fish));
        fishHigh = std::max(fishHigh, double(r.fish));
        fpsLow = std::min(fpsLow, r.fps);
        fpsHigh = std::max(fpsHigh, r.fps);
    }
    if (fishHigh <= 0.0) return;
    // Whole decades on both axes, so the gridlines fall on 10^k.
    const double x0 = std::floor(std::log10(fishLow)),
                 x1 = std::max(x0 + 1, std::ceil(std::log10(fishHigh)));
    const double y0 = std::floor(std::log10(fpsLow)),
                 y1 = std::max(y0 + 1, std::ceil(std::log10(fpsHigh)));

    ImGui::TextUnformatted("FPS against fish count (log-log)");
    const ImVec2 size(ImGui::GetFontSize() * 22.0f, ImGui::GetFontSize() * 11.0f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float left = ImGui::GetFontSize() * 3.0f, bottom = ImGui::GetFontSize() * 1.4f;
    const ImVec2 low(origin.x + left, origin.y + size.y - bottom);
    const ImVec2 high(origin.x + size.x, origin.y + 4.0f);
    auto at = [&](double fish, double fps) {
        const double u = (std::log10(fish) - x0) / (x1 - x0);
        const double v = (std::log10(fps) - y0) / (y1 - y0);
        return ImVec2(low.x + float(u) * (high.x - low.x), low.y + float(v) * (high.y - low.y));
    };
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(ImVec2(low.x, high.y), ImVec2(high.x, low.y), IM_COL32(20, 30, 45, 255));
    const ImU32 grid = IM_COL32(90, 100, 120, 255), text = ImGui::GetColorU32(ImGuiCol_Text);
    char label[32];
    for (double k = x0; k <= x1; ++k) {
        const ImVec2 p = at(std::pow(10.0, k), std::pow(10.0, y0));
        draw->AddLine(ImVec2(p.x, low.y), ImVec2(p.x, high.y), grid);
        std::snprintf(label, sizeof label, "%g", std::pow(10.0, k));
        draw->AddText(ImVec2(p.x - ImGui::CalcTextSize(label).x * 0.5f, low.y + 2.0f), text, label);
    }
    for (double k = y0; k <= y1; ++k) {
        const ImVec2 p = at(std::pow(10.0, x0), std::pow(10.0, k));
        draw->AddLine(ImVec2(low.x, p.y), ImVec2(high.x, p.y), grid);
        std::snprintf(label, sizeof label, "%g", std::pow(10.0, k));
        draw->AddText(
            ImVec2(low.x - ImGui::CalcTextSize(label).x - 4.0f, p.y - ImGui::GetFontSize() * 0.5f),
            text, label);
    }
    for (std::size_t k = 0; k < backends.size(); ++k) {
        std::vector<std::pair<double, double>> points;  // (fish, fps), newest row per count
        for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
            if (it->backend != backends[k].kind || it->fish <= 0 || it->fps <= 0.0) continue;
            if (std::none_of(points.begin(), points.end(),
                             [&](const auto& q) { return q.first == double(it->fish); }))
                points.emplace_back(double(it->fish), it->fps);
        }
        std::sort(points.begin(), points.end());
        for (std::size_t i = 0; i < points.size(); ++i) {
            const ImVec2 p = at(points[i].first, points[i].second);
            draw->AddCircleFilled(p, 3.0f, backendColor(k));
            if (i > 0)
                draw->AddLine(at(points[i - 1].first, points[i - 1].second), p, backendColor(k),
                              2.0f);
        }
    }
    ImGui::Dummy(size);
    for (std::size_t k = 0; k < backends.size(); ++k) {
        if (k > 0) ImGui::SameLine();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(backendColor(k)), "- %.*s",
                           static_cast<int>(backends[k].label.size()), backends[k].label.data());
    }
}

}  // namespace

PanelActions Panel::draw(const PanelState& state, FpsRecorder& recorder) {
    PanelActions actions;
    if (view.showOverlay) drawOverlay(state);
    coveredLeft_ = 0.0f;
    if (!view.showPanel) return actions;

    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
    // Fits its open sections, up to the window's height; beyond that it scrolls.
    ImGui::SetNextWindowSizeConstraints(
        ImVec2(0.0f, 0.0f), ImVec2(FLT_MAX, ImGui::GetMainViewport()->WorkSize.y - 20.0f));
    ImGui::Begin("FishSchool", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
    ImGui::PushItemWidth(ImGui::GetFontSize() * 15.0f);

    if (!error_.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", error_.c_str());
        ImGui::PopStyleColor();
        if (ImGui::SmallButton("dismiss")) error_.clear();
        ImGui::Separator();
    }

    ImGui::TextUnformatted("Backend");
    const auto backends = backendRegistry();
    for (std::size_t k = 0; k < backends.size(); ++k) {
        const BackendKind kind = backends[k].kind;
        const std::string& reason = unavailableReason(state, k);
        const std::string label(backends[k].label);
        ImGui::BeginDisabled(!reason.empty());
        if (ImGui::RadioButton(label.c_str(), state.backend == kind) && state.backend != kind)
            actions.switchBackend = kind;
        ImGui::EndDisabled();
        if (!reason.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s", reason.c_str());
        if (k + 1 < backends.size()) ImGui::SameLine();
    }
    for (std::size_t k = 0; k < backends.size(); ++k) {
        const std::string& reason = unavailableReason(state, k);
        if (!reason.empty())
            ImGui::TextDisabled("%.*s: %s", static_cast<int>(backends[k].label.size()),
                                backends[k].label.data(), reason.c_str());
    }

    if (ImGui::Button(state.paused ? "Resume (Space)" : "Pause (Space)"))
        actions.togglePause = true;
    ImGui::SameLine();
    if (ImGui::Button("Step (N)")) actions.step = true;
    ImGui::SameLine();
    if (!resetSeed_) resetSeed_ = state.params->seed;
    if (ImGui::Button("Reset (R)")) actions.resetSeed = *resetSeed_;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
    ImGui::InputScalar("seed", ImGuiDataType_U64, &*resetSeed_);

    drawParameters(state, actions);
    drawRecorder(state, recorder);
    ImGui::PopItemWidth();
    const float left = ImGui::GetWindowPos().x - ImGui::GetMainViewport()->WorkPos.x;
    if (left < 40.0f && !ImGui::IsWindowCollapsed()) coveredLeft_ = left + ImGui::GetWindowWidth();
    ImGui::End();
    return actions;
}

void Panel::drawOverlay(const PanelState& state) {
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(
        ImVec2(viewport->WorkPos.x + viewport->WorkSize.x - 10, viewport->WorkPos.y + 10),
        ImGuiCond_Always, ImVec2(1.0f, 0.0f));
    ImGui::SetNextWindowBgAlpha(0.45f);
    ImGui::Begin("Overlay", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove);
    ImGui::Text("%.1f FPS   frame %.2f ms", state.fps, state.frameMs);
    ImGui::Text("simulation %.2f ms   render %.2f ms", state.simulationMs, state.renderMs);
    ImGui::Text("%zu fish   %s", state.fishCount, state.backendDescription.c_str());
    if (state.metrics) {
        ImGui::Text("polarization %.2f   milling %.2f", state.metrics->polarization,
                    state.metrics->milling);
        ImGui::Text("nearest neighbour %.2f m   neighbours %.1f",
                    state.metrics->meanNearestNeighborDistance, state.metrics->meanNeighbors);
    }
    if (!state.frameHistoryMs.empty()) {
        const float peak =
            *std::max_element(state.frameHistoryMs.begin(), state.frameHistoryMs.end());
        ImGui::PlotLines("##frames", state.frameHistoryMs.data(),
                         static_cast<int>(state.frameHistoryMs.size()), 0, "frame ms", 0.0f,
                         std::max(peak * 1.2f, 20.0f), ImVec2(300, 50));
    }
    ImGui::End();
}

void Panel::drawParameters(const PanelState& state, PanelActions& actions) {
    SimParams edited = *state.params;
    bool changed = false;

    if (ImGui::CollapsingHeader("School", ImGuiTreeNodeFlags_DefaultOpen)) {
        int fish = static_cast<int>(std::min<std::int64_t>(edited.fishCount, kPanelMaxFish));
        if (ImGui::SliderInt("fish", &fish, 0, kPanelMaxFish, "%d",
                             ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp)) {
            edited.fishCount = fish;
            changed = true;
        }
        helpMarker("Adding or removing fish keeps the others.");
        // A typed count takes effect on Enter, so half-typed numbers never resize the school.
        // While the field is being edited ImGui keeps its own text, so this only seeds it.
        int typedFish = fish;
        if (ImGui::InputInt("fish count", &typedFish, 100, 10'000,
                            ImGuiInputTextFlags_EnterReturnsTrue)) {
            if (typedFish < 0 || typedFish > kPanelMaxFish) {
                error_ = "fish count " + std::to_string(typedFish) +
                         " is not allowed here; the panel takes 0 to " +
                         std::to_string(kPanelMaxFish);
            } else if (typedFish != fish) {
                edited.fishCount = typedFish;
                changed = true;
            }
        }
        int search = edited.neighborSearch == NeighborSearch::Grid ? 1 : 0;
        if (ImGui::Combo("neighbours", &search, "all-pairs\0grid\0")) {
            edited.neighborSearch = search == 1 ? NeighborSearch::Grid : NeighborSearch::AllPairs;
            changed = true;
        }
        ImGui::TextUnformatted("Presets");
        const auto all = presets();
        presetIndex_ = std::clamp(presetIndex_, 0, static_cast<int>(all.size()) - 1);
        if (ImGui::BeginCombo("##preset",
                              all[static_cast<std::size_t>(presetIndex_)].name.c_str())) {
            for (std::size_t p = 0; p < all.size(); ++p) {
                if (ImGui::Selectable(all[p].name.c_str(), static_cast<int>(p) == presetIndex_))
                    presetIndex_ = static_cast<int>(p);
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", all[p].description.c_str());
            }
            ImGui::EndCombo();
        }
        ImGui::SameLine();
        if (ImGui::Button("Apply preset")) {
            edited = all[static_cast<std::size_t>(presetIndex_)].params;
            resetSeed_ = edited.seed;
            changed = true;
        }
    }

    if (ImGui::CollapsingHeader("Behaviour", ImGuiTreeNodeFlags_DefaultOpen)) {
        changed |= sliderFloat("kCohesion", &edited.kCohesion, -5.0f, 5.0f);
        changed |= sliderFloat("kSeparation", &edited.kSeparation, -5.0f, 5.0f);
        changed |= sliderFloat("kAlignment", &edited.kAlignment, -5.0f, 5.0f);
        changed |= sliderFloat("rCohesion (m)", &edited.rCohesion, 0.0f, 30.0f);
        changed |= sliderFloat("rSeparation (m)", &edited.rSeparation, 0.0f, 30.0f);
        changed |= sliderFloat("rAlignment (m)", &edited.rAlignment, 0.0f, 30.0f);
        changed |= sliderFloat("maxAcceleration (m/s2)", &edited.maxAcceleration, 0.01f, 50.0f,
                               "%.2f", ImGuiSliderFlags_Logarithmic);
        changed |= sliderFloat("maxVelocity (m/s)", &edited.maxVelocity, 0.01f, 50.0f, "%.2f",
                               ImGuiSliderFlags_Logarithmic);
        changed |=
            sliderFloat("dt (s)", &edited.dt, 0.001f, 0.1f, "%.4f", ImGuiSliderFlags_Logarithmic);
        changed |= ImGui::Checkbox("lockVerticalSteering", &edited.lockVerticalSteering);
        changed |= sliderFloat("viewAngle (deg)", &edited.viewAngle, 1.0f, 360.0f, "%.0f");
        helpMarker(
            "Field of view: a fish sees neighbours only within this cone around its "
            "heading. 360 sees all around.");
    }

    if (ImGui::CollapsingHeader("Target and avoidance")) {
        changed |= sliderFloat("kTarget", &edited.kTarget, -5.0f, 5.0f);
        helpMarker("Steer toward the target (the green ball); below 0, away from it (red).");
        const glm::vec3& b = edited.bounds;
        const float reach = std::max({b.x, b.y, b.z});
        changed |= ImGui::SliderFloat3("target (m)", &edited.target.x, -reach, reach, "%.1f");
        int path = edited.targetPath == TargetPath::FlowField ? 1 : 0;
        if (ImGui::Combo("way to the target", &path, "straight\0flow-field\0")) {
            edited.targetPath = path == 1 ? TargetPath::FlowField : TargetPath::Straight;
            changed = true;
        }
        helpMarker("flow-field: along the shortest way through the water, around the rocks.");
        changed |= sliderFloat("kAvoidance", &edited.kAvoidance, -5.0f, 5.0f);
        helpMarker("Steer away from rocks before touching them (0: only the bounce on contact).");
        changed |= sliderFloat("avoidanceDistance (m)", &edited.avoidanceDistance, 0.0f, 30.0f);
    }

    if (ImGui::CollapsingHeader("Tank and rocks")) {
        changed |= ImGui::SliderFloat3("bounds (m)", &edited.bounds.x, 1.0f, 500.0f, "%.1f",
                                       ImGuiSliderFlags_Logarithmic);
        changed |= drawRocks(edited);
    }

    if (ImGui::CollapsingHeader("View")) {
        ImGui::Checkbox("colour by heading (else by speed)", &view.colorByHeading);
        ImGui::Checkbox("vsync", &view.vsync);
        ImGui::Checkbox("measure the school", &view.measureSchool);
        helpMarker("Polarization, milling and nearest-neighbour distance in the overlay.");
    }

    if (ImGui::CollapsingHeader("Files")) {
        ImGui::InputText("config", configPath_, sizeof configPath_);
        if (ImGui::Button("Load config")) {
            auto loaded = loadConfig(configPath_);
            if (loaded) {
                edited = *loaded;
                resetSeed_ = edited.seed;
                changed = true;
                message_ = std::string("loaded ") + configPath_;
            } else {
                error_ = loaded.error();
            }
        }
        ImGui::SameLine();
        if (ImGui::Button("Save config")) {
            auto saved = saveConfig(configPath_, *state.params);
            if (saved)
                message_ = std::string("saved ") + configPath_;
            else
                error_ = saved.error();
        }
        ImGui::InputText("school", statePath_, sizeof statePath_);
        helpMarker("The school itself, as a state CSV: positions and velocities of every fish.");
        if (ImGui::Button("Load school")) actions.loadStatePath = statePath_;
        ImGui::SameLine();
        if (ImGui::Button("Save school")) actions.saveStatePath = statePath_;
        if (!message_.empty()) ImGui::TextDisabled("%s", message_.c_str());
    }

    changed |= drawSteering(edited);

    if (changed) actions.newParams = edited;
}

bool Panel::drawSteering(SimParams& edited) {
    if (!ImGui::CollapsingHeader("Steering, leaders and predators")) return false;
    bool changed = false;
    changed |= sliderFloat("minVelocity (m/s)", &edited.minVelocity, 0.0f, edited.maxVelocity);
    helpMarker("A slower fish is sped up to this speed after each step (0: off).");
    // A choice between a mode of the article (0) and one of the other sources (1).
    auto choose = [&](const char* label, const char* items, bool other, const char* help) {
        int index = other ? 1 : 0;
        const bool picked = ImGui::Combo(label, &index, items);
        helpMarker(help);
        changed |= picked;
        return picked ? index == 1 : other;
    };
    edited.steering =
        choose("steering", "article\0reynolds\0", edited.steering == Steering::Reynolds,
               "reynolds: each rule steers from the velocity toward the desired one "
               "(direction * maxVelocity), at most maxAcceleration.")
            ? Steering::Reynolds
            : Steering::Article;
    edited.separationFalloff =
        choose("separation falloff", "none\0inverse-square\0",
               edited.separationFalloff == SeparationFalloff::InverseSquare,
               "inverse-square: each neighbour's push is weighted by 1/d^2, the nearest most.")
            ? SeparationFalloff::InverseSquare
            : SeparationFalloff::None;
    edited.combine = choose("combine", "sum\0prioritized\0", edited.combine == Combine::Prioritized,
                            "prioritized: avoidance, fleeing, separation, target, leader, "
                            "alignment, cohesion, until maxAcceleration is spent.")
                         ? Combine::Prioritized
                         : Combine::Sum;
    edited.avoidance = choose("avoidance", "repel\0rays\0", edited.avoidance == Avoidance::Rays,
                              "rays: when a rock lies ahead within avoidanceDistance, steer "
                              "toward the first free direction round the heading (needs "
                              "kAvoidance).")
                           ? Avoidance::Rays
                           : Avoidance::Repel;

    ImGui::Separator();
    // Leaders and predators are the first fish of the school; the sliders stop at its size.
    const int most = static_cast<int>(std::min<std::int64_t>(edited.fishCount, 100));
    int leaders = static_cast<int>(std::min<std::int64_t>(edited.leaders, most));
    if (ImGui::SliderInt("leaders", &leaders, 0, most, "%d", ImGuiSliderFlags_AlwaysClamp)) {
        edited.leaders = leaders;
        edited.predators = std::min<std::int64_t>(edited.predators, edited.fishCount - leaders);
        changed = true;
    }
    helpMarker("The first fish lead (gold): they ignore the flock and swim on or seek the target.");
    changed |= sliderFloat("kLeader", &edited.kLeader, -5.0f, 5.0f);
    helpMarker("Steer toward the nearest leader a fish sees (within rCohesion and viewAngle).");
    int predators = static_cast<int>(std::min<std::int64_t>(edited.predators, most));
    if (ImGui::SliderInt("predators", &predators, 0, most, "%d", ImGuiSliderFlags_AlwaysClamp)) {
        edited.predators = predators;
        edited.leaders = std::min<std::int64_t>(edited.leaders, edited.fishCount - predators);
        changed = true;
    }
    helpMarker("The fish after the leaders hunt (red): they chase the nearest fish.");
    changed |= sliderFloat("predatorMaxVelocity (m/s)", &edited.predatorMaxVelocity, 0.01f, 50.0f,
                           "%.2f", ImGuiSliderFlags_Logarithmic);
    changed |= sliderFloat("kFlee", &edited.kFlee, -10.0f, 10.0f);
    helpMarker("Steer away from predators within fleeRadius, more the closer they are.");
    changed |= sliderFloat("fleeRadius (m)", &edited.fleeRadius, 0.0f, 40.0f);
    return changed;
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
        const float reach = std::max({edited.bounds.x, edited.bounds.y, edited.bounds.z});
        changed |= ImGui::SliderFloat3("center", &rock.center.x, -reach, reach, "%.1f");
        changed |= ImGui::SliderFloat("radius", &rock.radius, 0.1f, reach, "%.2f");
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
    return changed;
}

void Panel::drawRecorder(const PanelState& state, FpsRecorder& recorder) {
    if (recorder.sweeping()) ImGui::SetNextItemOpen(true);  // show the table as it fills
    if (!ImGui::CollapsingHeader("FPS recorder")) return;
    const auto registry = backendRegistry();
    sweepBackends_.resize(registry.size(), true);
    ImGui::BeginDisabled(recorder.busy());
    if (ImGui::Button("Record")) recorder.startRecord();
    ImGui::SameLine();
    if (ImGui::Button("Sweep")) {
        std::vector<BackendKind> backends;
        for (std::size_t k = 0; k < registry.size(); ++k)
            if (sweepBackends_[k] && unavailableReason(state, k).empty())
                backends.push_back(registry[k].kind);
        if (auto counts = parseFishCounts("sweep fish", sweepFish_); !counts)
            error_ = counts.error();
        else if (auto ok = recorder.startSweep(backends, *counts); !ok)
            error_ = ok.error();
    }
    ImGui::EndDisabled();
    if (recorder.busy()) {
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) recorder.cancel();
        ImGui::TextUnformatted(recorder.status().c_str());
    }
    ImGui::InputText("sweep fish", sweepFish_, sizeof sweepFish_);
    for (std::size_t k = 0; k < registry.size(); ++k) {
        bool on = sweepBackends_[k];
        if (ImGui::Checkbox(std::string(registry[k].name).c_str(), &on)) sweepBackends_[k] = on;
        if (k + 1 < registry.size()) ImGui::SameLine();
    }

    // The article's Table 1 layout: a row per fish count, a column per backend.
    const auto& rows = recorder.records();
    std::vector<std::int64_t> fishCounts;
    for (const FpsRecord& r : rows) fishCounts.push_back(r.fish);
    std::sort(fishCounts.begin(), fishCounts.end());
    fishCounts.erase(std::unique(fishCounts.begin(), fishCounts.end()), fishCounts.end());
    if (!rows.empty() && ImGui::BeginTable("table1", static_cast<int>(registry.size()) + 1,
                                           ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("fish");
        for (const BackendEntry& entry : registry)
            ImGui::TableSetupColumn(std::string(entry.label).c_str());
        ImGui::TableHeadersRow();
        for (std::int64_t fish : fishCounts) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(fish));
            for (const BackendEntry& entry : registry) {
                ImGui::TableNextColumn();
                for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
                    if (it->fish == fish && it->backend == entry.kind) {
                        ImGui::Text("%.1f", it->fps);
                        break;
                    }
                }
            }
        }
        ImGui::EndTable();
        drawFpsPlot(rows);
    }
    for (const std::string& skipped : recorder.skipped())
        ImGui::TextDisabled("skipped %s", skipped.c_str());
    ImGui::InputText("csv", csvPath_, sizeof csvPath_);
    ImGui::SameLine();
    if (ImGui::Button("Export")) {
        auto saved = writeFileAtomically(csvPath_, recorder.csv());
        if (saved)
            message_ = std::string("wrote ") + csvPath_;
        else
            error_ = saved.error();
    }
    ImGui::SameLine();
    if (ImGui::Button("Clear")) recorder.clear();
}

}  // namespace fishschool::ui
