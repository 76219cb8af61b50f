#include "Widgets.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
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

namespace {

/// Where ImGui puts a slider's handle along its frame, 0 to 1: linear, or for a logarithmic
/// slider (the panel's are of positive ranges, or from 0 for counts) by the logarithm, 0 taken
/// as ImGui's `zeroEpsilon`.
float handleRatio(double v, double low, double high, bool logarithmic, double zeroEpsilon) {
    if (!(high > low)) return 0.0f;
    v = std::clamp(v, low, high);
    if (!logarithmic) return static_cast<float>((v - low) / (high - low));
    const double from = low > 0.0 ? low : zeroEpsilon;
    if (v <= from) return 0.0f;
    return static_cast<float>(std::log(v / from) / std::log(high / from));
}

/// Draws a slider's number `text` in its frame [frameMin, frameMax] beside its handle, which
/// spans handleLeft to handleRight: in the side with more room, or over a plate in the frame's
/// colour where neither side holds it, so the handle never hides a digit.
void drawBesideHandle(ImVec2 frameMin, ImVec2 frameMax, float handleLeft, float handleRight,
                      const char* text) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const ImVec2 size = ImGui::CalcTextSize(text);
    const float pad = style.FramePadding.x;
    const float leftRoom = handleLeft - frameMin.x - 2.0f * pad;
    const float rightRoom = frameMax.x - handleRight - 2.0f * pad;
    const float y = frameMin.y + 0.5f * (frameMax.y - frameMin.y - size.y);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    float x = 0.0f;
    if (leftRoom >= rightRoom && leftRoom >= size.x)
        x = handleLeft - pad - size.x;
    else if (rightRoom >= size.x)
        x = handleRight + pad;
    else {
        x = std::clamp(0.5f * (frameMin.x + frameMax.x - size.x), frameMin.x + 1.0f,
                       std::max(frameMax.x - size.x - 1.0f, frameMin.x + 1.0f));
        ImVec4 plate = ImGui::GetStyleColorVec4(ImGuiCol_FrameBg);
        plate.w = 1.0f;
        draw->AddRectFilled(ImVec2(x - 1.0f, frameMin.y + 2.0f),
                            ImVec2(x + size.x + 1.0f, frameMax.y - 2.0f),
                            ImGui::GetColorU32(plate));
    }
    draw->PushClipRect(frameMin, frameMax, true);
    draw->AddText(ImVec2(x, y), ImGui::GetColorU32(ImGuiCol_Text), text);
    draw->PopClipRect();
}

/// The handle's span in a frame from `x0` to `x1` at `ratio`, as ImGui's slider lays it out:
/// 2 pixels in from each end, GrabMinSize wide (or a notch of a short whole-number range).
std::pair<float, float> handleSpan(float x0, float x1, float ratio, int wholeValues = 0) {
    const float padding = 2.0f;
    const float room = x1 - x0 - 2.0f * padding;
    float grab = ImGui::GetStyle().GrabMinSize;
    if (wholeValues > 0) grab = std::max(room / static_cast<float>(wholeValues), grab);
    grab = std::min(grab, room);
    const float centre = x0 + padding + 0.5f * grab + ratio * (room - grab);
    return {centre - 0.5f * grab, centre + 0.5f * grab};
}

/// The number a slider shows, in its format.
std::string formatted(const char* format, double value, bool whole) {
    char text[64];
    if (whole)
        std::snprintf(text, sizeof text, format, static_cast<int>(value));
    else
        std::snprintf(text, sizeof text, format, value);
    return text;
}

/// The label ImGui draws right of a control's frame, drawn again by hand: the slider's own was
/// drawn in the clear colour that hid its number.
void drawLabelAfter(ImVec2 frameMax, ImVec2 frameMin, const char* label) {
    const char* end = label;
    while (*end && !(end[0] == '#' && end[1] == '#')) ++end;
    if (end == label) return;
    const ImGuiStyle& style = ImGui::GetStyle();
    ImGui::GetWindowDrawList()->AddText(
        ImVec2(frameMax.x + style.ItemInnerSpacing.x, frameMin.y + style.FramePadding.y),
        ImGui::GetColorU32(ImGuiCol_Text), label, end);
}

}  // namespace

bool Widgets::resetToDefaultMenu(const char* id, const std::string& text) {
    bool picked = false;
    if (ImGui::BeginPopupContextItem(id)) {
        picked = ImGui::MenuItem(("Reset to default (" + text + ")").c_str());
        rects_["reset to default"] = {ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y,
                                      ImGui::GetItemRectMax().x, ImGui::GetItemRectMax().y};
        ImGui::EndPopup();
    }
    return picked;
}

void Widgets::noteDimmed(const std::string& label, bool dim) {
    if (dim)
        dimmed_.insert(prefix_ + label);
    else
        dimmed_.erase(prefix_ + label);
}

bool Widgets::sliderFloats(const char* label, float* value, int n, float min, float max,
                           const char* help, const char* format, ImGuiSliderFlags flags,
                           const float* defaults) {
    // ImGui draws the number in the middle of the frame, where the handle often sits: it is
    // drawn in the clear colour there, and again beside the handle. While typed into, as ImGui
    // draws it.
    bool typing = false;
    if (n == 1) {
        typing = ImGui::TempInputIsActive(ImGui::GetID(label));
    } else {
        ImGui::PushID(label);
        for (int k = 0; k < n; ++k) {
            ImGui::PushID(k);
            typing |= ImGui::TempInputIsActive(ImGui::GetID(""));
            ImGui::PopID();
        }
        ImGui::PopID();
    }
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const float width = ImGui::CalcItemWidth();
    if (!typing) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.0f, 0.0f, 0.0f, 0.0f));
    bool changed = editDeferred(label, value, n, [&](float* v) {
        return n == 1 ? ImGui::SliderFloat(label, v, min, max, format, flags)
                      : ImGui::SliderFloat3(label, v, min, max, format, flags);
    });
    if (!typing) {
        ImGui::PopStyleColor();
        // The frames as ImGui lays them out (PushMultiItemsWidths): n of them, the inner
        // spacing between.
        const ImGuiStyle& style = ImGui::GetStyle();
        const float spacing = style.ItemInnerSpacing.x;
        const float one =
            std::max(1.0f, std::floor((width - spacing * static_cast<float>(n - 1)) / n));
        const float height = ImGui::GetFrameHeight();
        const bool logarithmic = (flags & ImGuiSliderFlags_Logarithmic) != 0;
        const float* shown = value;
        const auto pending = typed_.find(ImGui::GetID(label));
        if (pending != typed_.end()) shown = pending->second.data();
        float x = start.x;
        for (int k = 0; k < n; ++k) {
            const float w =
                k + 1 < n ? one : std::max(1.0f, std::floor(width - (one + spacing) * (n - 1)));
            const float ratio = handleRatio(shown[k], min, max, logarithmic, 1e-3);
            const auto [left, right] = handleSpan(x, x + w, ratio);
            drawBesideHandle(ImVec2(x, start.y), ImVec2(x + w, start.y + height), left, right,
                             formatted(format, shown[k], false).c_str());
            x += w + spacing;
        }
        drawLabelAfter(ImVec2(start.x + width, start.y + height), start, label);
    }
    noteRect(label);
    tip(help);
    if (defaults) {
        std::string text;
        for (int k = 0; k < n; ++k) text += (k ? ", " : "") + formatted(format, defaults[k], false);
        if (resetToDefaultMenu(label, text) && !std::equal(value, value + n, defaults)) {
            std::copy_n(defaults, n, value);
            changed = true;
        }
    }
    return changed;
}

bool Widgets::sliderInt(const char* label, int* value, int min, int max, const char* format,
                        ImGuiSliderFlags flags, std::optional<int> defaultValue) {
    const bool typing = ImGui::TempInputIsActive(ImGui::GetID(label));
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const float width = ImGui::CalcItemWidth();
    if (!typing) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.0f, 0.0f, 0.0f, 0.0f));
    bool changed = ImGui::SliderInt(label, value, min, max, format, flags);
    if (!typing) {
        ImGui::PopStyleColor();
        const bool logarithmic = (flags & ImGuiSliderFlags_Logarithmic) != 0;
        // ImGui takes 0 as 0.1 on a logarithmic scale of whole numbers.
        const float ratio = handleRatio(*value, min, max, logarithmic, 0.1);
        const auto [left, right] =
            handleSpan(start.x, start.x + width, ratio, logarithmic ? 0 : max - min + 1);
        const ImVec2 end(start.x + width, start.y + ImGui::GetFrameHeight());
        drawBesideHandle(start, end, left, right, formatted(format, *value, true).c_str());
        drawLabelAfter(end, start, label);
    }
    noteRect(label);
    if (defaultValue && resetToDefaultMenu(label, formatted("%d", *defaultValue, true)) &&
        *value != *defaultValue) {
        *value = *defaultValue;
        changed = true;
    }
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

bool Widgets::param(const ParamInfo& info, SimParams& edited, const char* note) {
    const PanelPlace& place = info.panel;
    const ImGuiSliderFlags flags = place.logarithmic ? ImGuiSliderFlags_Logarithmic : 0;
    const float high = place.highOf ? place.highOf(edited) : place.high;
    static const SimParams kDefaults;
    // A control the step does not read looks it: dimmed, but still there to set ahead.
    const bool dim = note != nullptr;
    if (dim) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, ImGui::GetStyle().Alpha * 0.45f);
    const std::string help = dim ? std::string(info.help) + " " + note : std::string(info.help);
    const bool changed = std::visit(
        [&]<class Field>(const Field& field) {
            if constexpr (std::is_same_v<Field, float SimParams::*>) {
                return sliderFloat(place.label, &(edited.*field), place.low, high, help.c_str(),
                                   place.format, flags, &(kDefaults.*field));
            } else if constexpr (std::is_same_v<Field, glm::vec3 SimParams::*>) {
                return sliderFloat3(place.label, &(edited.*field).x, place.low, high, help.c_str(),
                                    place.format, flags, &(kDefaults.*field).x);
            } else if constexpr (std::is_same_v<Field, bool SimParams::*>) {
                bool changed = ImGui::Checkbox(place.label, &(edited.*field));
                noteRect(place.label);
                tip(help.c_str());
                if (resetToDefaultMenu(place.label, kDefaults.*field ? "on" : "off") &&
                    edited.*field != kDefaults.*field) {
                    edited.*field = kDefaults.*field;
                    changed = true;
                }
                return changed;
            } else if constexpr (std::is_same_v<Field, ChoiceField>) {
                int index = field.get(edited);
                const int initial = field.get(kDefaults);
                bool changed = choose(place.label, index, field.names, help.c_str());
                if (resetToDefaultMenu(place.label,
                                       field.names[static_cast<std::size_t>(initial)]) &&
                    index != initial) {
                    index = initial;
                    changed = true;
                }
                if (changed) field.set(edited, index);
                return changed;
            } else if constexpr (std::is_same_v<Field, std::int64_t SimParams::*>) {
                // A whole number of a few values (dimensions 2 or 3): one radio button each, as
                // it is a choice, not a quantity. Counts have controls of their own.
                const auto [low, top] = wholeNumberRange(info);
                bool changed = false;
                ImGui::BeginGroup();
                ImGui::PushID(place.label);
                for (std::int64_t v = low; v <= top && v - low < 8; ++v) {
                    if (v > low) ImGui::SameLine();
                    if (ImGui::RadioButton(std::to_string(v).c_str(), edited.*field == v) &&
                        edited.*field != v) {
                        edited.*field = v;
                        changed = true;
                    }
                    noteRect(std::string(place.label) + "=" + std::to_string(v));
                }
                ImGui::PopID();
                ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
                ImGui::TextUnformatted(place.label);
                ImGui::EndGroup();
                noteRect(place.label);
                tip(help.c_str());
                if (resetToDefaultMenu(place.label, std::to_string(kDefaults.*field)) &&
                    edited.*field != kDefaults.*field) {
                    edited.*field = kDefaults.*field;
                    changed = true;
                }
                return changed;
            } else {
                return false;  // seeds and rocks have controls of their own
            }
        },
        info.field);
    if (dim) ImGui::PopStyleVar();
    noteDimmed(place.label, dim);
    return changed;
}

}  // namespace fishschool::ui
