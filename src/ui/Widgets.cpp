#include "Widgets.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cstdio>
#include <type_traits>
#include <variant>

namespace fishschool::ui {

void tip(const char* text) {
    if (!ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * kTooltipWidthEms);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void sameLineIfFits(float nextWidth, float rightEdge) {
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    if (ImGui::GetItemRectMax().x + spacing + nextWidth <= rightEdge) ImGui::SameLine();
}

float buttonWidth(const char* label) {
    return ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x;
}

void pushTextWrapWithin(float rightEdge) {
    ImGui::PushTextWrapPos(
        std::min(rightEdge - ImGui::GetWindowPos().x, ImGui::GetWindowContentRegionMax().x));
}

std::optional<std::string> wholeNumberField(const char* label, std::array<char, 32>& text,
                                            const std::string& current) {
    return deferredTextField(label, text, current);
}

std::optional<std::string> deferredTextField(const char* label, std::span<char> text,
                                             const std::string& current) {
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    const ImGuiID id = ImGui::GetID(label);
    // Kept for the frame the field loses focus, so that what was typed can still be read.
    if (g.ActiveId != id && g.ActiveIdPreviousFrame != id)
        std::snprintf(text.data(), text.size(), "%s", current.c_str());
    ImGui::InputText(label, text.data(), text.size());
    if (ImGui::IsItemDeactivatedAfterEdit() && current != text.data())
        return std::string(text.data());
    return std::nullopt;
}

void Widgets::noteRect(const std::string& label) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    rects_[prefix_ + label] = {a.x, a.y, b.x, b.y};
}

void Widgets::noteWindow(const std::string& label) {
    const ImVec2 min = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    rects_[label] = {min.x, min.y, min.x + size.x, min.y + size.y};
}

std::array<float, 4> Widgets::rect(const std::string& label) const {
    const auto it = rects_.find(label);
    return it == rects_.end() ? std::array<float, 4>{} : it->second;
}

bool Widgets::section(const char* label, ImGuiTreeNodeFlags flags) {
    const bool open = ImGui::CollapsingHeader(label, flags);
    noteRect(label);
    return open;
}

template <class Control>
bool Widgets::editDeferred(const char* label, float* value, int n, Control&& control) {
    const ImGuiID key = ImGui::GetID(label);
    std::array<float, 4> shown{};
    std::copy_n(value, n, shown.begin());
    const auto pending = typed_.find(key);
    if (pending != typed_.end()) shown = pending->second;
    const bool changed = control(shown.data());
    const ImGuiContext& g = *GImGui;
    const bool typing =
        ImGui::IsItemActive() && g.ActiveId != 0 && g.InputTextState.ID == g.ActiveId;
    if (typing) {
        typed_[key] = shown;
        return false;
    }
    if (pending != typed_.end()) {  // Enter, or the focus went elsewhere
        typed_.erase(key);
        std::copy_n(shown.begin(), n, value);
        return true;
    }
    if (changed) std::copy_n(shown.begin(), n, value);
    return changed;
}

bool Widgets::sliderFloats(const char* label, float* value, int n, float min, float max,
                           const char* help, const char* format, ImGuiSliderFlags flags) {
    const bool changed = editDeferred(label, value, n, [&](float* v) {
        return n == 1 ? ImGui::SliderFloat(label, v, min, max, format, flags)
                      : ImGui::SliderFloat3(label, v, min, max, format, flags);
    });
    noteRect(label);
    tip(help);
    return changed;
}

bool Widgets::choose(const char* label, int& index, std::span<const char* const> names,
                     const char* help) {
    const bool picked = ImGui::Combo(
        label, &index,
        [](void* data, int item, const char** text) {
            *text = static_cast<const char* const*>(data)[item];
            return true;
        },
        const_cast<const char**>(names.data()), static_cast<int>(names.size()));
    noteRect(label);
    tip(help);
    return picked;
}

bool Widgets::param(const ParamInfo& info, SimParams& edited) {
    const PanelPlace& place = info.panel;
    const ImGuiSliderFlags flags = place.logarithmic ? ImGuiSliderFlags_Logarithmic : 0;
    const float high = place.highOf ? place.highOf(edited) : place.high;
    return std::visit(
        [&]<class Field>(const Field& field) {
            if constexpr (std::is_same_v<Field, float SimParams::*>) {
                return sliderFloat(place.label, &(edited.*field), place.low, high, info.help,
                                   place.format, flags);
            } else if constexpr (std::is_same_v<Field, glm::vec3 SimParams::*>) {
                return sliderFloat3(place.label, &(edited.*field).x, place.low, high, info.help,
                                    place.format, flags);
            } else if constexpr (std::is_same_v<Field, bool SimParams::*>) {
                const bool changed = ImGui::Checkbox(place.label, &(edited.*field));
                noteRect(place.label);
                tip(info.help);
                return changed;
            } else if constexpr (std::is_same_v<Field, ChoiceField>) {
                int index = field.get(edited);
                if (!choose(place.label, index, field.names, info.help)) return false;
                field.set(edited, index);
                return true;
            } else if constexpr (std::is_same_v<Field, std::int64_t SimParams::*>) {
                // A whole number of a small range (dimensions); counts have controls of their own.
                int value = static_cast<int>(edited.*field);
                const bool changed =
                    ImGui::SliderInt(place.label, &value, static_cast<int>(place.low),
                                     static_cast<int>(high), "%d", ImGuiSliderFlags_AlwaysClamp);
                noteRect(place.label);
                tip(info.help);
                if (changed) edited.*field = value;
                return changed;
            } else {
                return false;  // seeds and rocks have controls of their own
            }
        },
        info.field);
}

}  // namespace fishschool::ui
