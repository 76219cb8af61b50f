#pragma once

// The panel's shared controls: sliders that apply a typed value only when the typing ends, a
// combo over a list of names, whole-number fields, tooltips, and the controls of paramTable()'s
// keys.

#include <imgui.h>

#include <array>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/ParamTable.h"
#include "fishschool/SimParams.h"

namespace fishschool::ui {

/// A tooltip on the last control, wrapped at kTooltipWidthEms font sizes (a long reason would
/// stretch it across the window).
void tip(const char* text);
inline constexpr float kTooltipWidthEms = 32.0f;

/// Puts the next control on this line when `nextWidth` pixels fit before `rightEdge` (screen x),
/// else on the next: rows of buttons wrap in a narrow panel.
void sameLineIfFits(float nextWidth, float rightEdge);
/// The width of a button or a radio's label `label`, its frame padding included.
float buttonWidth(const char* label);
/// ImGui::PushTextWrapPos at `rightEdge` (screen x) or the window's right edge, whichever comes
/// first: a note that wraps there never widens an auto-sized window nor runs under its scrollbar.
void pushTextWrapWithin(float rightEdge);

/// A field for a whole number, read by TextInput.h's strict parsers when the typing ends (Enter,
/// or the focus going elsewhere): ImGui's own integer fields would read "0x10" as 0, " 5" as 5
/// and "5abc" as 5. While the field is not being edited it shows `current`. Returns the typed
/// text when the typing ends with a change.
std::optional<std::string> wholeNumberField(const char* label, std::array<char, 32>& text,
                                            const std::string& current);
/// The same for any text (a species' name): `text` holds what is typed, at most its size less one.
std::optional<std::string> deferredTextField(const char* label, std::span<char> text,
                                             const std::string& current);

/// The controls that remember something between frames: where each was drawn (so that tests can
/// click it) and what is being typed into a slider. Each panel has its own.
class Widgets {
  public:
    /// Notes where the last control was drawn, as `label` (after the prefix, when one is set).
    void noteRect(const std::string& label);
    /// Puts `prefix` before the names noted from now on, e.g. "species[1]." for the controls of
    /// one species, whose labels repeat the table's; "" ends it.
    void setRectPrefix(std::string prefix) { prefix_ = std::move(prefix); }
    /// Notes the current window's frame, as `label`.
    void noteWindow(const std::string& label);
    /// Where the control `label` was drawn last, {x0, y0, x1, y1}; all zero if it was not.
    std::array<float, 4> rect(const std::string& label) const;

    /// A collapsing section's header, noted. True while the section is open.
    bool section(const char* label, ImGuiTreeNodeFlags flags = 0);
    /// A slider that edits a copy; the caller validates before anything changes. A typed value
    /// (Ctrl+click) applies on Enter or when the field loses focus, never half typed ("3" on the
    /// way to "30"); a drag applies at once. Its number is drawn beside the handle, never under
    /// it; with `defaults` (n values) a right click offers "Reset to default". True when `value`
    /// changed.
    bool sliderFloat(const char* label, float* value, float min, float max, const char* help,
                     const char* format = "%.3f", ImGuiSliderFlags flags = 0,
                     const float* defaults = nullptr) {
        return sliderFloats(label, value, 1, min, max, help, format, flags, defaults);
    }
    bool sliderFloat3(const char* label, float* value, float min, float max, const char* help,
                      const char* format, ImGuiSliderFlags flags = 0,
                      const float* defaults = nullptr) {
        return sliderFloats(label, value, 3, min, max, help, format, flags, defaults);
    }
    /// A slider of whole numbers, its number beside the handle; a right click offers
    /// `defaultValue` when given. Noted as `label`. True when `value` changed.
    bool sliderInt(const char* label, int* value, int min, int max, const char* format,
                   ImGuiSliderFlags flags, std::optional<int> defaultValue = std::nullopt);
    /// A combo of `names`; `index` is the one chosen. True when the user picked another.
    bool choose(const char* label, int& index, std::span<const char* const> names,
                const char* help);
    /// The control of a key drawn from the table (Widget::Table): a slider for a number or an
    /// array of 3, radio buttons for a whole number of a few values, a checkbox, a combo for a
    /// choice; a right click on it offers the key's default. `note`, when given, dims the
    /// control (the running steering does not read it) and is added to its tooltip. True when
    /// `edited` changed.
    bool param(const ParamInfo& info, SimParams& edited, const char* note = nullptr);
    /// Whether the control `label` was drawn dimmed in the last frame.
    bool dimmed(const std::string& label) const { return dimmed_.contains(prefix_ + label); }
    /// Notes whether the control `label` is drawn dimmed (for the tests).
    void noteDimmed(const std::string& label, bool dim);
    /// A right-click menu on the last control (popup `id`) that offers its default, `text`;
    /// true when it was picked. Its item is noted as "reset to default".
    bool resetToDefaultMenu(const char* id, const std::string& text);

  private:
    /// sliderFloat (n = 1) or sliderFloat3 (n = 3).
    bool sliderFloats(const char* label, float* value, int n, float min, float max,
                      const char* help, const char* format, ImGuiSliderFlags flags,
                      const float* defaults);
    template <class Control>
    bool editDeferred(const char* label, float* value, int n, Control&& control);

    std::unordered_map<std::string, std::array<float, 4>> rects_;
    std::unordered_set<std::string> dimmed_;
    std::string prefix_;
    std::unordered_map<ImGuiID, std::array<float, 4>> typed_;  ///< per slider being typed in
};

}  // namespace fishschool::ui
