#include "Panel.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <unordered_map>

#include "core/BackendRegistry.h"
#include "core/ConfigIO.h"
#include "core/Scenario.h"
#include "core/StateIO.h"
#include "core/TextInput.h"

namespace fishschool::ui {
namespace {

constexpr int kPanelMaxFish = 1'000'000;

std::unordered_map<std::string, std::array<float, 4>>& controlRects() {
    static std::unordered_map<std::string, std::array<float, 4>> rects;
    return rects;
}

/// Notes where the last control was drawn, for Panel::controlRect.
void noteRect(const char* label) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    controlRects()[label] = {a.x, a.y, b.x, b.y};
}

/// A collapsing section's header, noted for Panel::controlRect. True while the section is open.
bool section(const char* label, ImGuiTreeNodeFlags flags = 0) {
    const bool open = ImGui::CollapsingHeader(label, flags);
    noteRect(label);
    return open;
}

/// A tooltip on the last control.
void tip(const char* text) {
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", text);
}

/// A field for a whole number, read by TextInput.h's strict parsers when the typing ends (Enter,
/// or the focus going elsewhere): ImGui's own integer fields would read "0x10" as 0, " 5" as 5
/// and "5abc" as 5. While the field is not being edited it shows `current`. Returns the typed
/// text when the typing ends with a change.
std::optional<std::string> wholeNumberField(const char* label, std::array<char, 32>& text,
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

/// Runs a widget that edits `n` floats so that a typed value (Ctrl+click on a slider) applies on
/// Enter or when the field loses focus, never half typed ("3" on the way to "30"); a drag applies
/// at once. Returns true when `value` changed.
template <class Widget>
bool editDeferred(const char* label, float* value, int n, Widget&& widget) {
    static std::unordered_map<ImGuiID, std::array<float, 4>> typed;  // per field being typed in
    const ImGuiID key = ImGui::GetID(label);
    std::array<float, 4> shown{};
    std::copy_n(value, n, shown.begin());
    const auto pending = typed.find(key);
    if (pending != typed.end()) shown = pending->second;
    const bool changed = widget(shown.data());
    const ImGuiContext& g = *GImGui;
    const bool typing =
        ImGui::IsItemActive() && g.ActiveId != 0 && g.InputTextState.ID == g.ActiveId;
    if (typing) {
        typed[key] = shown;
        return false;
    }
    if (pending != typed.end()) {  // Enter, or the focus went elsewhere
        typed.erase(key);
        std::copy_n(shown.begin(), n, value);
        return true;
    }
    if (changed) std::copy_n(shown.begin(), n, value);
    return changed;
}

/// A slider that edits a copy; the caller validates before anything changes.
bool sliderFloat(const char* label, float* value, float min, float max, const char* help,
                 const char* format = "%.3f", ImGuiSliderFlags flags = 0) {
    const bool changed = editDeferred(label, value, 1, [&](float* v) {
        return ImGui::SliderFloat(label, v, min, max, format, flags);
    });
    noteRect(label);
    tip(help);
    return changed;
}

bool sliderFloat3(const char* label, float* value, float min, float max, const char* help,
                  const char* format, ImGuiSliderFlags flags = 0) {
    const bool changed = editDeferred(label, value, 3, [&](float* v) {
        return ImGui::SliderFloat3(label, v, min, max, format, flags);
    });
    noteRect(label);
    tip(help);
    return changed;
}

/// The fish's colour by speed, as shaders/fish.vert computes it from speed / maxVelocity.
ImVec4 speedColor(float ratio) {
    const float t = ratio * ratio * ratio;
    const auto mix = [](ImVec4 a, ImVec4 b, float u) {
        return ImVec4(a.x + (b.x - a.x) * u, a.y + (b.y - a.y) * u, a.z + (b.z - a.z) * u, 1.0f);
    };
    const ImVec4 slow(0.15f, 0.25f, 0.85f, 1.0f), middle(0.2f, 0.85f, 0.75f, 1.0f),
        fast(1.0f, 0.55f, 0.15f, 1.0f);
    return t < 0.5f ? mix(slow, middle, t * 2.0f) : mix(middle, fast, t * 2.0f - 1.0f);
}

/// The fish's colour by heading, as shaders/fish.vert: hue from the angle in the x-z plane.
ImVec4 headingColor(float hue) {
    float r = 0, g = 0, b = 0;
    ImGui::ColorConvertHSVtoRGB(hue, 0.65f, 0.95f, r, g, b);
    return ImVec4(r, g, b, 1.0f);
}

/// A colour bar of the fish's colours with labels under it at the given fractions.
void drawLegend(const char* title, ImVec4 (*color)(float),
                std::initializer_list<std::pair<float, std::string>> ticks) {
    ImGui::TextUnformatted(title);
    const ImVec2 size(300.0f, 10.0f);
    const ImVec2 a = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    constexpr int kSteps = 60;
    for (int k = 0; k < kSteps; ++k) {
        const float u0 = float(k) / kSteps, u1 = float(k + 1) / kSteps;
        const ImU32 c0 = ImGui::ColorConvertFloat4ToU32(color(u0)),
                    c1 = ImGui::ColorConvertFloat4ToU32(color(u1));
        draw->AddRectFilledMultiColor(ImVec2(a.x + u0 * size.x, a.y),
                                      ImVec2(a.x + u1 * size.x, a.y + size.y), c0, c1, c1, c0);
    }
    ImGui::Dummy(size);
    const ImVec2 labels = ImGui::GetCursorScreenPos();
    for (const auto& [at, text] : ticks) {
        const float width = ImGui::CalcTextSize(text.c_str()).x;
        const float x =
            std::clamp(labels.x + at * size.x - width * 0.5f, labels.x, labels.x + size.x - width);
        draw->AddLine(ImVec2(a.x + at * size.x, a.y + size.y),
                      ImVec2(a.x + at * size.x, a.y + size.y + 3),
                      ImGui::GetColorU32(ImGuiCol_Text));
        draw->AddText(ImVec2(x, labels.y), ImGui::GetColorU32(ImGuiCol_Text), text.c_str());
    }
    ImGui::Dummy(ImVec2(size.x, ImGui::GetFontSize()));
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

std::array<float, 4> Panel::controlRect(const std::string& label) {
    const auto it = controlRects().find(label);
    return it == controlRects().end() ? std::array<float, 4>{} : it->second;
}

void Panel::showMessage(std::string message) {
    message_ = std::move(message);
    messageUntil_ = ImGui::GetCurrentContext() ? ImGui::GetTime() + 4.0 : 4.0;
}

PanelActions Panel::draw(const PanelState& state, FpsRecorder& recorder) {
    PanelActions actions;
    if (view.showOverlay) drawOverlay(state);
    drawNotices();
    if (view.showHelp) drawHelp();
    coveredLeft_ = 0.0f;
    if (!view.showPanel) return actions;

    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
    // Fits its open sections, up to the window's height; beyond that it scrolls.
    ImGui::SetNextWindowSizeConstraints(
        ImVec2(0.0f, 0.0f), ImVec2(FLT_MAX, ImGui::GetMainViewport()->WorkSize.y - 20.0f));
    ImGui::Begin("FishSchool", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
    ImGui::PushItemWidth(ImGui::GetFontSize() * 15.0f);

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
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s", reason.empty() ? "Run the school here; it is handed over as "
                                                     "it is (keys 1, 2, 3)"
                                                   : reason.c_str());
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
    tip("Stop or restart the clock; the school stays as it is.");
    ImGui::SameLine();
    if (ImGui::Button("Step (N)")) actions.step = true;
    tip("One step of dt, also while paused.");
    ImGui::SameLine();
    if (!resetSeed_) resetSeed_ = state.params->seed;
    if (ImGui::Button("Reset (R)")) actions.resetSeed = *resetSeed_;
    tip("A fresh school of the same size from the seed, clock at 0.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
    if (auto typed = wholeNumberField("seed", seedText_, std::to_string(*resetSeed_))) {
        if (auto seed = parseUnsigned64("seed", *typed))
            resetSeed_ = *seed;
        else
            error_ = seed.error();
    }
    tip("The seed Reset starts from (type it, then Enter): the same seed gives the same school.");
    ImGui::SameLine();
    if (ImGui::Button("Help (F1)")) view.showHelp = !view.showHelp;
    tip("Every key and mouse action.");

    // The clock: simulated time, its speed, and a jump ahead.
    static constexpr double kSpeeds[] = {0.25, 0.5, 1.0, 2.0, 4.0, 8.0};
    char speedLabel[32];
    if (state.asFastAsItCan)
        std::snprintf(speedLabel, sizeof speedLabel, "as fast as it can");
    else
        std::snprintf(speedLabel, sizeof speedLabel, "x%g", state.speed);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9.0f);
    if (ImGui::BeginCombo("speed", speedLabel)) {
        for (double speed : kSpeeds) {
            char item[16];
            std::snprintf(item, sizeof item, "x%g", speed);
            if (ImGui::Selectable(item, !state.asFastAsItCan && state.speed == speed)) {
                actions.speed = speed;
                actions.asFastAsItCan = false;
            }
        }
        if (ImGui::Selectable("as fast as it can", state.asFastAsItCan))
            actions.asFastAsItCan = true;
        ImGui::EndCombo();
    }
    tip("Simulated seconds per second of your time ([ and ] step it). \"As fast as it can\" "
        "runs as many steps as fit in each frame.");
    ImGui::SameLine();
    ImGui::Text("t = %.1f s", state.simulatedSeconds);
    tip("Simulated time since the school started: steps times dt.");
    if (state.fastForwardLeft > 0.0) {
        ImGui::Text("fast-forward: %.1f s to go", state.fastForwardLeft);
        ImGui::SameLine();
        if (ImGui::Button("Stop")) actions.cancelFastForward = true;
        tip("Stop the fast-forward where it is.");
    } else {
        if (ImGui::Button("Fast-forward")) actions.fastForwardSeconds = fastForwardSeconds_;
        tip("Run this many simulated seconds as fast as the machine can, then go on as before.");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
        ImGui::InputFloat("s##fastforward", &fastForwardSeconds_, 0.0f, 0.0f, "%.0f");
        fastForwardSeconds_ = std::clamp(fastForwardSeconds_, 0.0f, 3600.0f);
        tip("Simulated seconds to fast-forward (0 to 3600).");
    }

    drawPlots();
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
    ImGui::Text("simulation %.2f ms   render %.2f ms%s", state.simulationMs, state.renderMs,
                state.renderOnGpu ? " (GPU)" : "");
    ImGui::Text("%zu fish   %s", state.fishCount, state.backendDescription.c_str());
    if (state.fishPerLevel) {
        const FishPerLevel& drawn = *state.fishPerLevel;
        ImGui::Text("drawn: %s %llu  %s %llu  %s %llu   %.2fM triangles", kDrawLevelNames[0],
                    static_cast<unsigned long long>(drawn[0]), kDrawLevelNames[1],
                    static_cast<unsigned long long>(drawn[1]), kDrawLevelNames[2],
                    static_cast<unsigned long long>(drawn[2]),
                    static_cast<double>(state.triangles) * 1e-6);
    }
    if (state.asFastAsItCan)
        ImGui::Text("t = %.1f s   as fast as it can%s", state.simulatedSeconds,
                    state.paused ? "   paused" : "");
    else
        ImGui::Text("t = %.1f s   x%g%s", state.simulatedSeconds, state.speed,
                    state.paused ? "   paused" : "");
    if (state.metrics) {
        ImGui::Text("polarization %.2f   milling %.2f", state.metrics->polarization,
                    state.metrics->milling);
        ImGui::Text("nearest neighbour %.2f m   neighbours %.1f",
                    state.metrics->meanNearestNeighborDistance, state.metrics->meanNeighbors);
    }
    if (state.params) {
        if (view.colorByHeading) {
            drawLegend("colour: heading (seen from above)", headingColor,
                       {{0.0f, "-x"}, {0.25f, "-z"}, {0.5f, "+x"}, {0.75f, "+z"}, {1.0f, "-x"}});
        } else {
            const float top = state.params->maxVelocity;
            char half[32], most[32], full[32];
            std::snprintf(half, sizeof half, "%.3g", 0.5f * top);
            std::snprintf(most, sizeof most, "%.3g", 0.8f * top);
            std::snprintf(full, sizeof full, "%.3g m/s", top);
            drawLegend("colour: speed (its top spread over most colours)", speedColor,
                       {{0.0f, "0"}, {0.5f, half}, {0.8f, most}, {1.0f, full}});
        }
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

void Panel::addMeasures(double seconds, const SchoolMetrics& metrics) {
    if (!measures_.empty() && seconds < measures_.back().seconds) measures_.clear();
    measures_.push_back({seconds, metrics});
    const auto first = std::find_if(measures_.begin(), measures_.end(), [&](const Measure& m) {
        return m.seconds >= seconds - kPlotSeconds;
    });
    measures_.erase(measures_.begin(), first);
}

void Panel::drawPlots() {
    if (!section("Measures over time", ImGuiTreeNodeFlags_DefaultOpen)) return;
    tip("The school's measures over the last three minutes of simulated time, taken twice a "
        "second (turn on \"measure the school\" in View).");
    // Before two measures the plots are drawn empty, at their size: the controls below stay where
    // they are when the first measures come in.
    const bool empty = measures_.size() < 2;
    const double t1 = empty ? 0.0 : measures_.back().seconds;
    const double t0 = empty ? 0.0 : std::max(measures_.front().seconds, t1 - kPlotSeconds);
    const auto plot = [&](const char* name, const char* unit, double low, double high,
                          double (*value)(const SchoolMetrics&), const char* help) {
        for (const Measure& m : measures_) high = std::max(high, value(m.metrics));
        const ImVec2 size(ImGui::GetFontSize() * 15.0f, ImGui::GetFontSize() * 2.6f);
        const ImVec2 a = ImGui::GetCursorScreenPos();
        const ImVec2 b(a.x + size.x, a.y + size.y);
        ImDrawList* draw = ImGui::GetWindowDrawList();
        draw->AddRectFilled(a, b, IM_COL32(20, 30, 45, 255));
        const auto at = [&](const Measure& m) {
            const double u = t1 > t0 ? (m.seconds - t0) / (t1 - t0) : 1.0;
            const double v = (value(m.metrics) - low) / std::max(high - low, 1e-9);
            return ImVec2(a.x + float(u) * size.x, b.y - float(std::clamp(v, 0.0, 1.0)) * size.y);
        };
        for (std::size_t k = 1; k < measures_.size(); ++k)
            draw->AddLine(at(measures_[k - 1]), at(measures_[k]), IM_COL32(120, 200, 255, 255),
                          1.5f);
        ImGui::Dummy(size);
        tip(help);
        ImGui::SameLine();
        ImGui::BeginGroup();
        if (empty) {
            ImGui::TextUnformatted(name);
            ImGui::TextDisabled(view.measureSchool ? "measuring..." : "off: see View");
        } else {
            ImGui::Text("%s %.2f%s", name, value(measures_.back().metrics), unit);
            ImGui::TextDisabled("0 to %.3g, %.0f s", high, t1 - t0);
        }
        ImGui::EndGroup();
    };
    plot(
        "polarization", "", 0.0, 1.0, [](const SchoolMetrics& m) { return m.polarization; },
        "Length of the mean heading: 0 disordered, 1 all fish parallel.");
    plot(
        "milling", "", 0.0, 1.0, [](const SchoolMetrics& m) { return m.milling; },
        "Mean angular momentum about the school's centre: 1 for fish circling it.");
    plot(
        "nearest", " m", 0.0, 1e-9,
        [](const SchoolMetrics& m) { return m.meanNearestNeighborDistance; },
        "Mean distance from each fish to the closest other fish.");
    plot(
        "neighbours", "", 0.0, 1e-9, [](const SchoolMetrics& m) { return m.meanNeighbors; },
        "Mean number of other fish within rCohesion.");
}

void Panel::drawNotices() {
    const bool notice = !message_.empty() && ImGui::GetTime() < messageUntil_;
    if (error_.empty() && !notice) return;
    // Centred at the bottom of what the panel leaves free (the panel would hide its left part),
    // or of the whole window where the panel leaves too little.
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    const ImGuiStyle& style = ImGui::GetStyle();
    const float covered = viewport->WorkSize.x - coveredLeft_ >= 240.0f ? coveredLeft_ : 0.0f;
    const float freeLeft = viewport->WorkPos.x + covered;
    const float freeWidth = viewport->WorkSize.x - covered;
    const float maxWidth =
        std::max(std::min(viewport->WorkSize.x * 0.6f, freeWidth - 20.0f), 60.0f);
    ImGui::SetNextWindowPos(
        ImVec2(freeLeft + freeWidth * 0.5f, viewport->WorkPos.y + viewport->WorkSize.y - 20.0f),
        ImGuiCond_Always, ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(0.0f, 0.0f), ImVec2(maxWidth, FLT_MAX));
    ImGui::SetNextWindowBgAlpha(0.85f);
    ImGui::Begin("Notices", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove);
    const float wrapWidth = maxWidth - style.WindowPadding.x;
    ImGui::PushTextWrapPos(wrapWidth);
    if (!error_.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", error_.c_str());
        ImGui::PopStyleColor();
        // Beside a one-line error; under a wrapped one, whose right edge is the window's.
        const float button = ImGui::CalcTextSize("dismiss").x + 2.0f * style.FramePadding.x;
        if (ImGui::GetItemRectMax().x + style.ItemSpacing.x + button <=
            ImGui::GetWindowPos().x + wrapWidth)
            ImGui::SameLine();
        if (ImGui::SmallButton("dismiss")) error_.clear();
        noteRect("dismiss");
    }
    if (notice) ImGui::TextWrapped("%s", message_.c_str());
    ImGui::PopTextWrapPos();
    const ImVec2 min = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    controlRects()["Notices"] = {min.x, min.y, min.x + size.x, min.y + size.y};
    ImGui::End();
}

void Panel::drawHelp() {
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(viewport->WorkPos.x + viewport->WorkSize.x * 0.5f,
                                   viewport->WorkPos.y + viewport->WorkSize.y * 0.5f),
                            ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(0.92f);
    ImGui::Begin("Help: keys and mouse (F1 or ? closes)", &view.showHelp,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove);
    static constexpr const char* kRows[][2] = {
        {"left drag", "orbit the camera around the tank"},
        {"right or middle drag", "pan"},
        {"wheel", "zoom"},
        {"C", "reset the camera"},
        {"1 / 2 / 3", "backend: CPU single thread / CPU TBB / GPU compute"},
        {"Space", "pause or resume"},
        {"N", "one step (held, it keeps stepping)"},
        {"R", "a fresh school from the panel's seed"},
        {"[ / ]", "slower / faster (x0.25 to x8)"},
        {"F", "fast-forward the panel's number of simulated seconds"},
        {"F1 or ?", "this help"},
        {"F2", "show or hide the panel"},
        {"F12", "screenshot, fishschool-YYYYMMDD-HHMMSS.png in the working folder"},
        {"Esc", "close this help, else quit"},
        {"hover a control", "what it does"},
        {"Ctrl+click a slider", "type a value; Enter or a click elsewhere applies it"},
    };
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
        for (const auto& row : kRows) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row[0]);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row[1]);
        }
        ImGui::EndTable();
    }
    ImGui::End();
}

void Panel::drawParameters(const PanelState& state, PanelActions& actions) {
    SimParams edited = *state.params;
    bool changed = false;

    if (section("School", ImGuiTreeNodeFlags_DefaultOpen)) {
        int fish = static_cast<int>(std::min<std::int64_t>(edited.fishCount, kPanelMaxFish));
        if (ImGui::SliderInt("fish", &fish, 0, kPanelMaxFish, "%d",
                             ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp)) {
            edited.fishCount = fish;
            changed = true;
        }
        tip("Drag to change the fish count: adding or removing fish keeps the others.");
        // A typed count takes effect on Enter, so half-typed numbers never resize the school.
        // While the field is being edited ImGui keeps its own text, so this only seeds it.
        if (auto typed = wholeNumberField("fish count", fishText_, std::to_string(fish))) {
            auto count = parseWholeNumber("fish count", *typed, 0, kPanelMaxFish);
            if (!count) {
                error_ = count.error();
            } else if (*count != fish) {
                edited.fishCount = *count;
                changed = true;
            }
        }
        noteRect("fish count");
        tip("Type a count, then Enter or click elsewhere.");
        bool keepDensity = state.density == Density::Fixed;
        if (ImGui::Checkbox("keep the density", &keepDensity))
            actions.density = keepDensity ? Density::Fixed : Density::Tank;
        tip("On: a new fish count grows or shrinks the tank, its rocks and the target, so the "
            "fish per unit volume stay those of the preset, config, tank or school you set (as "
            "fishschool-cli bench --density fixed); the sweep does the same. Off: the tank stays, "
            "and more fish make a denser school.");
        int search = edited.neighborSearch == NeighborSearch::Grid ? 1 : 0;
        if (ImGui::Combo("neighbours", &search, "all-pairs\0grid\0")) {
            edited.neighborSearch = search == 1 ? NeighborSearch::Grid : NeighborSearch::AllPairs;
            changed = true;
        }
        tip("all-pairs: every fish tests every other (the article's, O(N^2)); grid: only nearby "
            "cells (O(N)). Both find the same neighbours.");
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
        tip("A starting point: hover an entry for what it shows.");
        ImGui::SameLine();
        if (ImGui::Button("Apply preset")) {
            edited = all[static_cast<std::size_t>(presetIndex_)].params;
            resetSeed_ = edited.seed;
            changed = true;
        }
        tip("Replace every parameter with the preset's; the school keeps swimming.");
    }

    if (section("Behaviour", ImGuiTreeNodeFlags_DefaultOpen)) {
        changed |= sliderFloat("kCohesion", &edited.kCohesion, -5.0f, 5.0f,
                               "Weight of the steer toward the centre of the neighbours within "
                               "rCohesion (negative pushes apart).");
        changed |= sliderFloat("kSeparation", &edited.kSeparation, -5.0f, 5.0f,
                               "Weight of the steer away from the neighbours within rSeparation.");
        changed |= sliderFloat("kAlignment", &edited.kAlignment, -5.0f, 5.0f,
                               "Weight of the steer along the mean velocity of the neighbours "
                               "within rAlignment.");
        changed |= sliderFloat("rCohesion (m)", &edited.rCohesion, 0.0f, 30.0f,
                               "Cohesion radius. The largest radius sets the grid's cells: larger "
                               "costs more per step.");
        changed |= sliderFloat("rSeparation (m)", &edited.rSeparation, 0.0f, 30.0f,
                               "Separation radius: how close is too close.");
        changed |= sliderFloat("rAlignment (m)", &edited.rAlignment, 0.0f, 30.0f,
                               "Alignment radius: how far a fish follows the others' heading.");
        changed |= sliderFloat("maxAcceleration (m/s2)", &edited.maxAcceleration, 0.01f, 50.0f,
                               "Limit on the steering: how fast a fish can turn.", "%.2f",
                               ImGuiSliderFlags_Logarithmic);
        changed |= sliderFloat("maxVelocity (m/s)", &edited.maxVelocity, 0.01f, 50.0f, "Top speed.",
                               "%.2f", ImGuiSliderFlags_Logarithmic);
        changed |= sliderFloat("dt (s)", &edited.dt, 0.001f, 0.1f,
                               "The fixed time step of the simulation.", "%.4f",
                               ImGuiSliderFlags_Logarithmic);
        changed |= ImGui::Checkbox("lockVerticalSteering", &edited.lockVerticalSteering);
        tip("Fish steer only horizontally, as in the article.");
        changed |= sliderFloat("viewAngle (deg)", &edited.viewAngle, 1.0f, 360.0f,
                               "Field of view: a fish sees neighbours only within this cone around "
                               "its heading. 360 sees all around.",
                               "%.0f");
    }

    if (section("Target and avoidance")) {
        changed |= sliderFloat("kTarget", &edited.kTarget, -5.0f, 5.0f,
                               "Steer toward the target (the green ball); below 0, away from it "
                               "(red).");
        const glm::vec3& b = edited.bounds;
        const float reach = std::max({b.x, b.y, b.z});
        changed |= sliderFloat3("target (m)", &edited.target.x, -reach, reach,
                                "The point the school seeks.", "%.1f");
        int path = edited.targetPath == TargetPath::FlowField ? 1 : 0;
        if (ImGui::Combo("way to the target", &path, "straight\0flow-field\0")) {
            edited.targetPath = path == 1 ? TargetPath::FlowField : TargetPath::Straight;
            changed = true;
        }
        tip("straight: at the target through anything; flow-field: along the shortest way "
            "through the water, around the rocks.");
        changed |= sliderFloat("kAvoidance", &edited.kAvoidance, -5.0f, 5.0f,
                               "Steer away from rocks before touching them (0: only the bounce on "
                               "contact).");
        changed |= sliderFloat("avoidanceDistance (m)", &edited.avoidanceDistance, 0.0f, 30.0f,
                               "How far from a rock's surface the avoidance starts.");
    }

    if (section("Tank and rocks")) {
        changed |= sliderFloat3("bounds (m)", &edited.bounds.x, 1.0f, 500.0f,
                                "Half extents of the tank (x, y up, z). Fish outside a smaller "
                                "tank are moved inside.",
                                "%.1f", ImGuiSliderFlags_Logarithmic);
        changed |= drawRocks(edited);
    }

    if (section("View")) {
        ImGui::Checkbox("colour by heading (else by speed)", &view.colorByHeading);
        tip("By heading: the direction each fish swims, as a hue. By speed: slow blue to fast "
            "orange.");
        ImGui::Checkbox("vsync", &view.vsync);
        tip("Wait for the display's refresh; off to measure the machine.");
        ImGui::Checkbox("measure the school", &view.measureSchool);
        tip("Polarization, milling and nearest-neighbour distance in the overlay.");
    }

    if (section("Files")) {
        ImGui::InputText("config", configPath_, sizeof configPath_);
        tip("A config JSON: every parameter (docs/config.md).");
        if (ImGui::Button("Load config")) {
            auto loaded = loadConfig(configPath_);
            if (loaded) {
                edited = *loaded;
                resetSeed_ = edited.seed;
                changed = true;
                showMessage(std::string("loaded ") + configPath_);
            } else {
                error_ = loaded.error();
            }
        }
        tip("Replace the parameters with the file's; the school keeps swimming.");
        ImGui::SameLine();
        if (ImGui::Button("Save config")) {
            auto saved = saveConfig(configPath_, *state.params);
            if (saved)
                showMessage(std::string("saved ") + configPath_);
            else
                error_ = saved.error();
        }
        tip("Write the running parameters to the config file.");
        ImGui::InputText("school", statePath_, sizeof statePath_);
        tip("The school itself, as a state CSV: positions and velocities of every fish.");
        if (ImGui::Button("Load school")) actions.loadStatePath = statePath_;
        tip("Replace the school with the file's, whatever its size.");
        ImGui::SameLine();
        if (ImGui::Button("Save school")) actions.saveStatePath = statePath_;
        tip("Write the school as a state CSV.");
        ImGui::InputText("video", videoPath_, sizeof videoPath_);
        tip("Where Record video writes the window, as a video ffmpeg can write (.mp4).");
        if (!state.recordingVideo) {
            if (ImGui::Button("Record video")) actions.startVideoPath = videoPath_;
            tip("Record the window, one video frame per drawn frame at a fixed rate; the "
                "simulation then advances one video frame's time per frame.");
        } else {
            if (ImGui::Button("Stop video")) actions.stopVideo = true;
            tip("Finish the video and write it.");
            ImGui::SameLine();
            ImGui::Text("%lld frames", state.videoFrames);
        }
    }

    changed |= drawSteering(edited);

    if (changed) actions.newParams = edited;
}

bool Panel::drawSteering(SimParams& edited) {
    if (!section("Steering, leaders and predators")) return false;
    bool changed = false;
    changed |= sliderFloat("minVelocity (m/s)", &edited.minVelocity, 0.0f, edited.maxVelocity,
                           "A slower fish is sped up to this speed after each step (0: off).");
    // A choice between a mode of the article (0) and one of the other sources (1).
    auto choose = [&](const char* label, const char* items, bool other, const char* help) {
        int index = other ? 1 : 0;
        const bool picked = ImGui::Combo(label, &index, items);
        tip(help);
        changed |= picked;
        return picked ? index == 1 : other;
    };
    int steering = static_cast<int>(edited.steering);  // the order of the enum
    if (ImGui::Combo("steering", &steering, "article\0reynolds\0couzin\0")) {
        edited.steering = static_cast<Steering>(steering);
        changed = true;
    }
    tip("reynolds: each rule steers from the velocity toward the desired one (direction * "
        "maxVelocity), at most maxAcceleration. couzin: Couzin et al. 2002, repulsion first, "
        "constant speed maxVelocity, turns of at most maxTurnRate.");
    changed |= sliderFloat("maxTurnRate (deg/s)", &edited.maxTurnRate, 1.0f, 720.0f,
                           "Steering couzin: how fast a fish turns toward its desired direction.");
    changed |= sliderFloat("noise (rad)", &edited.noise, 0.0f, 1.0f,
                           "Standard deviation of the random turn of each fish at each step.");
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
    tip("The first fish lead (gold): they ignore the flock and swim on or seek the target.");
    changed |= sliderFloat(
        "kLeader", &edited.kLeader, -5.0f, 5.0f,
        "Steer toward the nearest leader a fish sees (within rCohesion and viewAngle).");
    int predators = static_cast<int>(std::min<std::int64_t>(edited.predators, most));
    if (ImGui::SliderInt("predators", &predators, 0, most, "%d", ImGuiSliderFlags_AlwaysClamp)) {
        edited.predators = predators;
        edited.leaders = std::min<std::int64_t>(edited.leaders, edited.fishCount - predators);
        changed = true;
    }
    tip("The fish after the leaders hunt (magenta): they chase the nearest fish.");
    changed |= sliderFloat("predatorMaxVelocity (m/s)", &edited.predatorMaxVelocity, 0.01f, 50.0f,
                           "The predators' speed limit.", "%.2f", ImGuiSliderFlags_Logarithmic);
    changed |=
        sliderFloat("kFlee", &edited.kFlee, -10.0f, 10.0f,
                    "Steer away from predators within fleeRadius, more the closer they are.");
    changed |= sliderFloat("fleeRadius (m)", &edited.fleeRadius, 0.0f, 40.0f,
                           "How near a predator must be for a fish to flee it.");
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
        tip("Remove this rock.");
        const float reach = std::max({edited.bounds.x, edited.bounds.y, edited.bounds.z});
        changed |= sliderFloat3("center", &rock.center.x, -reach, reach,
                                "The rock's centre; fish it lands on are moved out.", "%.1f");
        changed |= sliderFloat("radius", &rock.radius, 0.1f, reach,
                               "The rock's radius; a rock keeps a step's gap to the walls and the "
                               "other rocks.",
                               "%.2f");
        noteRect(("rocks[" + std::to_string(r) + "].radius").c_str());
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

void Panel::drawRecorder(const PanelState& state, FpsRecorder& recorder) {
    if (recorder.sweeping()) ImGui::SetNextItemOpen(true);  // show the table as it fills
    if (!section("FPS recorder")) return;
    const auto registry = backendRegistry();
    sweepBackends_.resize(registry.size(), true);
    ImGui::BeginDisabled(recorder.busy());
    if (ImGui::Button("Record")) recorder.startRecord();
    tip("Measure the current scene: a second of warm-up, then three seconds, as one row.");
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
    tip("Measure every fish count of the list on every ticked backend.");
    ImGui::EndDisabled();
    if (recorder.busy()) {
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) recorder.cancel();
        tip("Stop; the rows measured so far stay.");
        ImGui::TextUnformatted(recorder.status().c_str());
    }
    ImGui::InputText("sweep fish", sweepFish_, sizeof sweepFish_);
    tip("Comma-separated fish counts the sweep measures.");
    for (std::size_t k = 0; k < registry.size(); ++k) {
        bool on = sweepBackends_[k];
        if (ImGui::Checkbox(std::string(registry[k].name).c_str(), &on)) sweepBackends_[k] = on;
        tip("Include this backend in the sweep.");
        if (k + 1 < registry.size()) ImGui::SameLine();
    }

    // Record's rows, apart from the sweep's table and lines.
    for (const FpsRecord& r : recorder.records())
        if (!r.fromSweep)
            ImGui::Text("recorded: %s, %lld fish: %.1f FPS",
                        std::string(toString(r.backend)).c_str(), static_cast<long long>(r.fish),
                        r.fps);
    // The article's Table 1 layout: a row per fish count, a column per backend.
    std::vector<FpsRecord> rows;
    for (const FpsRecord& r : recorder.records())
        if (r.fromSweep) rows.push_back(r);
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
    tip("Where Export writes backend,fish,fps,sim_ms,render_ms.");
    ImGui::SameLine();
    if (ImGui::Button("Export")) {
        auto saved = writeFileAtomically(csvPath_, recorder.csv());
        if (saved)
            showMessage(std::string("wrote ") + csvPath_);
        else
            error_ = saved.error();
    }
    tip("Write the rows as CSV.");
    ImGui::SameLine();
    if (ImGui::Button("Clear")) recorder.clear();
    tip("Forget the rows.");
}

}  // namespace fishschool::ui
