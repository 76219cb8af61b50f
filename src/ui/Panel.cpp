#include "Panel.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>

#include "app_model/Readouts.h"
#include "backends/BackendRegistry.h"
#include "core/Messages.h"
#include "core/ParamTable.h"
#include "io/TextInput.h"

namespace fishschool::ui {
namespace {

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
void drawLegend(const char* title, float width, ImVec4 (*color)(float),
                std::initializer_list<std::pair<float, std::string>> ticks) {
    ImGui::TextUnformatted(title);
    const ImVec2 size(width, 10.0f);
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

/// A swatch of each species' colour with its name, and its fish and mean speed once measured.
void drawSpeciesLegend(const SimParams& params, const std::vector<SpeciesMeasure>& measured) {
    ImGui::TextUnformatted("colour: species");
    const float size = ImGui::GetTextLineHeight();
    for (std::size_t s = 0; s < params.species.size(); ++s) {
        const Species& species = params.species[s];
        const ImVec2 a = ImGui::GetCursorScreenPos();
        ImGui::GetWindowDrawList()->AddRectFilled(
            a, ImVec2(a.x + size, a.y + size),
            ImGui::ColorConvertFloat4ToU32(
                ImVec4(species.color.r, species.color.g, species.color.b, 1.0f)));
        ImGui::Dummy(ImVec2(size, size));
        ImGui::SameLine();
        const std::string name = printable(species.name, 24);
        if (s < measured.size())
            ImGui::Text("%s   %lld fish   %.2f m/s", name.c_str(),
                        static_cast<long long>(measured[s].fish), measured[s].meanSpeed);
        else
            ImGui::Text("%s   %lld fish", name.c_str(), static_cast<long long>(species.count));
    }
}

/// The measure that is a share of the fish, shown as a percentage.
const SchoolMeasure* const kLargestGroupShare =
    &kSchoolMeasures[schoolMeasureIndex("largest_group_share")];

/// The overlay's widest, in font sizes: its lines of figures, with the longer notes wrapped.
constexpr float kOverlayWidthEms = 32.0f;

/// A speed as the overlay shows it: "1", "0.25", "0.34" (two digits after the point at most).
std::string formatSpeed(double speed) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", speed);
    std::size_t end = std::strlen(text);
    while (end > 0 && text[end - 1] == '0') --end;
    if (end > 0 && text[end - 1] == '.') --end;
    return std::string(text, end);
}

}  // namespace

void Panel::showMessage(std::string message) {
    message_ = std::move(message);
    messageUntil_ = ImGui::GetCurrentContext() ? ImGui::GetTime() + 4.0 : 4.0;
}

PanelActions Panel::draw(const PanelState& state, const FpsRecorder& recorder) {
    PanelActions actions;
    overlayRect_ = {};
    if (view.showOverlay) drawOverlay(state);
    drawNotices();
    if (view.showHelp) drawHelp();
    drawQuitDialog(state.askingToQuit, actions);
    if (state.browser) drawBrowser(*state.browser, actions);
    coveredLeft_ = 0.0f;
    if (!view.showPanel) return actions;

    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
    // Fits its open sections, up to the window's height (beyond, it scrolls) and a share of its
    // width, so that a small window keeps room for the tank and the overlay: rows of buttons
    // wrap, long reasons too, and a label that still does not fit scrolls sideways.
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    const float maxWidth = panelMaxWidth(viewport->WorkSize.x, ImGui::GetFontSize());
    ImGui::SetNextWindowSizeConstraints(ImVec2(0.0f, 0.0f),
                                        ImVec2(maxWidth, viewport->WorkSize.y - 20.0f));
    ImGui::Begin("FishSchool", nullptr,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_HorizontalScrollbar);
    rowRight_ = ImGui::GetWindowPos().x + maxWidth - ImGui::GetStyle().WindowPadding.x;
    ImGui::PushItemWidth(std::min(ImGui::GetFontSize() * 15.0f, 0.5f * maxWidth));

    ImGui::TextUnformatted("Backend");
    const auto backends = backendRegistry();
    for (std::size_t k = 0; k < backends.size(); ++k) {
        const BackendKind kind = backends[k].kind;
        const std::string reason(state.unavailableReason(k));
        const std::string label(backends[k].label);
        ImGui::BeginDisabled(!reason.empty());
        if (ImGui::RadioButton(label.c_str(), state.backend == kind) && state.backend != kind)
            actions.switchBackend = kind;
        ImGui::EndDisabled();
        tip(reason.empty() ? ("Run the school here; it is handed over as it is (key " +
                              std::to_string(k + 1) + ")")
                                 .c_str()
                           : reason.c_str());
        if (k + 1 < backends.size()) {
            const std::string next(backends[k + 1].label);
            sameLineIfFits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
                               ImGui::CalcTextSize(next.c_str()).x,
                           rowRight_);
        }
    }
    // A reason can be long (a GPU's buffer limit in bytes): wrapped within the panel.
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::PushTextWrapPos(rowRight_ - ImGui::GetWindowPos().x);
    for (std::size_t k = 0; k < backends.size(); ++k) {
        const std::string reason(state.unavailableReason(k));
        if (!reason.empty())
            ImGui::TextUnformatted((std::string(backends[k].label) + ": " + reason).c_str());
    }
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();

    if (state.replay) {
        // A replay shows a file: its timeline, its measures and how to leave it; the live
        // school's controls wait until it is closed.
        drawReplay(*state.replay, actions);
        drawPlots(state);
        drawView(state);
        if (widgets_.section("Files", ImGuiTreeNodeFlags_DefaultOpen))
            drawTrajectoryFiles(state, actions);
        ImGui::PopItemWidth();
        const float left = ImGui::GetWindowPos().x - ImGui::GetMainViewport()->WorkPos.x;
        if (left < 40.0f && !ImGui::IsWindowCollapsed())
            coveredLeft_ = left + ImGui::GetWindowWidth();
        ImGui::End();
        return actions;
    }

    if (ImGui::Button(state.paused ? "Resume (Space)" : "Pause (Space)"))
        actions.togglePause = true;
    tip("Stop or restart the clock; the school stays as it is.");
    sameLineIfFits(buttonWidth("Step (N)"), rowRight_);
    if (ImGui::Button("Step (N)")) actions.step = true;
    tip("One step of dt, also while paused.");
    sameLineIfFits(buttonWidth("Reset (R)"), rowRight_);
    if (!resetSeed_) resetSeed_ = state.params->seed;
    if (ImGui::Button("Reset (R)")) actions.resetSeed = *resetSeed_;
    tip("A fresh school of the same size from the seed, clock at 0.");
    sameLineIfFits(ImGui::GetFontSize() * 8.0f + ImGui::GetStyle().ItemInnerSpacing.x +
                       ImGui::CalcTextSize("seed").x,
                   rowRight_);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
    if (auto typed = wholeNumberField("seed", seedText_, std::to_string(*resetSeed_))) {
        if (auto seed = parseUnsigned64("seed", *typed))
            resetSeed_ = *seed;
        else
            error_ = seed.error();
    }
    tip("The seed Reset starts from (type it, then Enter): the same seed gives the same school.");
    sameLineIfFits(buttonWidth("Help (F1)"), rowRight_);
    if (ImGui::Button("Help (F1)")) view.showHelp = !view.showHelp;
    tip("Every key and mouse action.");
    drawUndoRedo(state, actions);

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
    sameLineIfFits(ImGui::CalcTextSize("t = 00000.0 s").x, rowRight_);
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
        sameLineIfFits(ImGui::GetFontSize() * 6.0f + ImGui::GetStyle().ItemInnerSpacing.x +
                           ImGui::CalcTextSize("s").x,
                       rowRight_);
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
        ImGui::InputFloat("s##fastforward", &fastForwardSeconds_, 0.0f, 0.0f, "%.0f");
        fastForwardSeconds_ = std::clamp(fastForwardSeconds_, 0.0f, 3600.0f);
        tip("Simulated seconds to fast-forward (0 to 3600).");
    }

    drawPlots(state);
    drawParameters(state, actions);
    drawRecorder(state, recorder, actions);
    ImGui::PopItemWidth();
    widgets_.noteWindow("FishSchool");
    const float left = ImGui::GetWindowPos().x - ImGui::GetMainViewport()->WorkPos.x;
    if (left < 40.0f && !ImGui::IsWindowCollapsed()) coveredLeft_ = left + ImGui::GetWindowWidth();
    ImGui::End();
    return actions;
}

void Panel::drawOverlay(const PanelState& state) {
    // In a corner beside the panel (the app picks the one that covers the least of the tank),
    // never under it: as wide as the window leaves beside it (at most its natural width), its
    // lines wrapped within that.
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    const ImGuiStyle& style = ImGui::GetStyle();
    const app::ScreenRect window{viewport->WorkPos.x, viewport->WorkPos.y,
                                 viewport->WorkPos.x + viewport->WorkSize.x,
                                 viewport->WorkPos.y + viewport->WorkSize.y};
    const app::ScreenRect free = app::besideThePanel(window, window.x0 + coveredLeft_);
    const float maxWidth =
        std::clamp(free.width() - 2.0f * app::kLayoutMargin, 8.0f * ImGui::GetFontSize(),
                   kOverlayWidthEms * ImGui::GetFontSize());
    const float graphWidth = std::min(300.0f, maxWidth - 2.0f * style.WindowPadding.x);
    const app::Corner corner = state.overlayCorner;
    const bool right = app::atRight(corner), top = app::atTop(corner);
    ImGui::SetNextWindowPos(
        ImVec2(right ? free.x1 - app::kLayoutMargin : free.x0 + app::kLayoutMargin,
               top ? free.y0 + app::kLayoutMargin : free.y1 - app::kLayoutMargin),
        ImGuiCond_Always, ImVec2(right ? 1.0f : 0.0f, top ? 0.0f : 1.0f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(0.0f, 0.0f), ImVec2(maxWidth, FLT_MAX));
    ImGui::SetNextWindowBgAlpha(0.45f);
    ImGui::Begin("Overlay", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove);
    ImGui::PushTextWrapPos(maxWidth - style.WindowPadding.x);
    const bool details = view.overlayDetails;
    if (state.replay) drawReplayOverlay(*state.replay, details);
    // What a user reads at a glance: the frame rate, the school, where it runs, what a step
    // and a frame cost and the speed asked for and got. The rest is one click away.
    ImGui::Text("%.1f FPS   %zu fish   %s", state.fps, state.fishCount,
                state.backendDescription.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton(details ? "less" : "more")) view.overlayDetails = !details;
    widgets_.noteRect("overlay details");
    tip(details ? "Hide the details: only the speed lines stay."
                : "Show the details: render time, levels of detail, the school's measures, the "
                  "colour legend and a plot of frame times.");
    // While paused no step runs: the last one's time would read as this frame's.
    const bool stepping = !state.paused || state.fastForwardLeft > 0.0;
    char step[48] = "paused";
    if (state.replay)
        std::snprintf(step, sizeof step, "replay");
    else if (stepping)
        std::snprintf(step, sizeof step, "step %.2f ms", state.simulationMs);
    std::string rate;
    if (!state.replay) {
        // The speed asked for, and the one the machine gives, measured.
        if (state.fastForwardLeft > 0.0)
            rate = "fast-forward";
        else if (state.asFastAsItCan)
            rate = "as fast as it can";
        else if (!state.paused)
            rate.append("x").append(formatSpeed(state.speed)).append(" asked");
        if (stepping && state.realSpeed) {
            rate.append(rate.empty() ? "x" : ", x");
            rate.append(formatSpeed(*state.realSpeed));
            rate.append(" real");
        }
    }
    // Behind, the speed is orange: the overlay keeps its lines, and the tank its place.
    const bool behind = state.behind && stepping && !state.replay;
    ImGui::Text("%s  frame %.2f ms%s", step, state.frameMs, rate.empty() ? "" : "  ");
    if (!rate.empty()) {
        ImGui::SameLine(0.0f, 0.0f);
        ImGui::TextColored(
            behind ? ImVec4(1.0f, 0.7f, 0.3f, 1.0f) : ImGui::GetStyleColorVec4(ImGuiCol_Text), "%s",
            rate.c_str());
        if (behind)
            tip("Behind: the steps take longer than the time asked for (fewer fish, grid, or a "
                "faster backend help).");
    }
    if (state.recordingTrajectory)
        ImGui::Text("recording %s: %zu frames", state.recordingTrajectory->path.c_str(),
                    state.recordingTrajectory->frames);
    if (details) drawOverlayDetails(state, graphWidth, stepping);
    ImGui::PopTextWrapPos();
    widgets_.noteWindow("Overlay");
    const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    overlayRect_ = {at.x, at.y, at.x + size.x, at.y + size.y};
    ImGui::End();
}

void Panel::drawOverlayDetails(const PanelState& state, float graphWidth, bool stepping) {
    ImGui::Separator();
    ImGui::Text("render %.2f ms%s", state.renderMs, state.renderOnGpu ? " (GPU)" : "");
    if (state.fishPerLevel) {
        const FishPerLevel& drawn = *state.fishPerLevel;
        ImGui::Text("drawn: %s %llu  %s %llu  %s %llu   %.2fM triangles", kDrawLevelNames[0],
                    static_cast<unsigned long long>(drawn[0]), kDrawLevelNames[1],
                    static_cast<unsigned long long>(drawn[1]), kDrawLevelNames[2],
                    static_cast<unsigned long long>(drawn[2]),
                    static_cast<double>(state.triangles) * 1e-6);
    }
    if (!state.replay) {
        ImGui::Text("t = %.1f s", state.simulatedSeconds);
        if (state.behind && stepping) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.7f, 0.3f, 1.0f));
            ImGui::TextUnformatted(
                "behind: the steps take longer than the time asked for (fewer fish, grid, or "
                "a faster backend)");
            ImGui::PopStyleColor();
        }
    }
    if (!state.notices.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        for (const std::string& notice : state.notices) ImGui::TextUnformatted(notice.c_str());
        ImGui::PopStyleColor();
    }
    if (state.metrics) {
        ImGui::Text("polarization %.2f   milling %.2f", state.metrics->polarization,
                    state.metrics->milling);
        ImGui::Text("nearest neighbour %.2f m   neighbours %.1f",
                    state.metrics->meanNearestNeighborDistance, state.metrics->meanNeighbors);
        ImGui::Text("groups %.0f   largest group %s", state.metrics->groups,
                    app::formatPercent(state.metrics->largestGroupShare).c_str());
    }
    if (state.params) {
        const FishColor coloring = view.coloring(*state.params);
        if (coloring == FishColor::Species) {
            drawSpeciesLegend(*state.params, state.species);
        } else if (coloring == FishColor::Heading) {
            drawLegend("colour: heading (seen from above)", graphWidth, headingColor,
                       {{0.0f, "-x"}, {0.25f, "-z"}, {0.5f, "+x"}, {0.75f, "+z"}, {1.0f, "-x"}});
        } else {
            const float top = topSpeedOfSpecies(*state.params);
            char half[32], most[32], full[32];
            std::snprintf(half, sizeof half, "%.3g", 0.5f * top);
            std::snprintf(most, sizeof most, "%.3g", 0.8f * top);
            std::snprintf(full, sizeof full, "%.3g m/s", top);
            drawLegend("colour: speed (its top spread over most colours)", graphWidth, speedColor,
                       {{0.0f, "0"}, {0.5f, half}, {0.8f, most}, {1.0f, full}});
        }
    }
    if (!state.frameHistoryMs.empty()) {
        // Scaled to the recent frames: a slow first frame would flatten the rest for minutes.
        const float top = app::frameTimeScale(state.frameHistoryMs);
        char title[48];
        std::snprintf(title, sizeof title, "frame ms, 0 to %.3g", top);
        ImGui::PlotLines("##frames", state.frameHistoryMs.data(),
                         static_cast<int>(state.frameHistoryMs.size()), 0, title, 0.0f, top,
                         ImVec2(graphWidth, 50));
    }
}

void Panel::addMeasures(double seconds, const SchoolMetrics& metrics) {
    if (!measures_.empty() && seconds < measures_.back().seconds) measures_.clear();
    measures_.push_back({seconds, metrics});
    const auto first = std::find_if(measures_.begin(), measures_.end(), [&](const Measure& m) {
        return m.seconds >= seconds - kPlotSeconds;
    });
    measures_.erase(measures_.begin(), first);
}

void Panel::drawPlots(const PanelState& state) {
    if (!widgets_.section("Measures over time", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (state.replay)
        tip("The recording's measures over its whole time; the line marks the frame shown.");
    else
        tip("The school's measures over the last three minutes of simulated time, taken twice a "
            "second (turn on \"measure the school\" in View).");
    // A replay plots the file's measures, all of them, and marks the shown frame's time.
    static const std::vector<Measure> kNone;
    const std::vector<Measure>& plotted = !state.replay            ? measures_
                                          : state.replay->measures ? *state.replay->measures
                                                                   : kNone;
    // Before two measures the plots are drawn empty, at their size: the controls below stay where
    // they are when the first measures come in.
    const bool empty = plotted.size() < 2;
    const double t1 = empty ? 0.0 : plotted.back().seconds;
    const double t0 = empty          ? 0.0
                      : state.replay ? plotted.front().seconds
                                     : std::max(plotted.front().seconds, t1 - kPlotSeconds);
    // The measure shown beside a replay's plot: the last one at or before the shown frame.
    const Measure* current = empty ? nullptr : &plotted.back();
    if (state.replay && !empty) {
        const auto after =
            std::upper_bound(plotted.begin(), plotted.end(), state.replay->seconds,
                             [](double t, const Measure& m) { return t < m.seconds; });
        current = after == plotted.begin() ? &plotted.front() : &*(after - 1);
    }
    // The fish papers' measures under a node of their own, closed at first: the panel stays
    // short.
    bool moreAsked = false, moreOpen = false;
    for (const SchoolMeasure& measure : kSchoolMeasures) {
        if (measure.more && !moreAsked) {
            moreAsked = true;
            moreOpen = ImGui::TreeNode("More measures");
        }
        if (measure.more && !moreOpen) break;
        const auto value = [&](const Measure& m) { return m.metrics.*measure.member; };
        // A measure that applies to none of the plotted (a direction error with no fish
        // informed) is not drawn; before the first measures, the params say whether it will be.
        const bool informed = measure.member == &SchoolMetrics::directionError;
        const bool applies = state.params && (informed ? hasInformedFish(*state.params)
                                                       : state.params->boundary == Boundary::Walls);
        if (measure.mayBeAbsent &&
            (empty ? !applies : std::ranges::all_of(plotted, [&](const Measure& m) {
                return std::isnan(value(m));
            })))
            continue;
        double high = measure.plotHigh > 0.0 ? measure.plotHigh : 1e-9;
        for (const Measure& m : plotted)
            if (!std::isnan(value(m))) high = std::max(high, value(m));
        const ImVec2 size(ImGui::CalcItemWidth(), ImGui::GetFontSize() * 2.6f);
        const ImVec2 a = ImGui::GetCursorScreenPos();
        const ImVec2 b(a.x + size.x, a.y + size.y);
        ImDrawList* draw = ImGui::GetWindowDrawList();
        draw->AddRectFilled(a, b, IM_COL32(20, 30, 45, 255));
        const auto at = [&](const Measure& m) {
            const double u = t1 > t0 ? (m.seconds - t0) / (t1 - t0) : 1.0;
            const double v = value(m) / high;
            return ImVec2(a.x + float(u) * size.x, b.y - float(std::clamp(v, 0.0, 1.0)) * size.y);
        };
        // A long recording is drawn a few points a pixel, not every measure; no line to or from
        // a measure that is absent.
        const std::size_t stride = std::max<std::size_t>(plotted.size() / 1024, 1);
        for (std::size_t k = stride; k < plotted.size(); k += stride)
            if (!std::isnan(value(plotted[k - stride])) && !std::isnan(value(plotted[k])))
                draw->AddLine(at(plotted[k - stride]), at(plotted[k]), IM_COL32(120, 200, 255, 255),
                              1.5f);
        if (state.replay && t1 > t0) {
            const double u = std::clamp((state.replay->seconds - t0) / (t1 - t0), 0.0, 1.0);
            const float x = a.x + float(u) * size.x;
            draw->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), IM_COL32(255, 210, 90, 255), 1.5f);
        }
        ImGui::Dummy(size);
        tip(measure.help);
        ImGui::SameLine();
        ImGui::BeginGroup();
        const std::string unit =
            std::string_view(measure.unit) == "1" ? "" : std::string(" ") + measure.unit;
        if (empty) {
            ImGui::TextUnformatted(measure.label);
            ImGui::TextDisabled(state.replay         ? "not in the file"
                                : view.measureSchool ? "measuring..."
                                                     : "off: see View");
        } else if (std::isnan(value(*current))) {
            ImGui::Text("%s: none", measure.label);
            ImGui::TextDisabled("0 to %.3g, %.0f s", high, t1 - t0);
        } else if (&measure == kLargestGroupShare) {
            // A share: 0.996 reads 99.6%, never 1.00 as if every fish were in the group.
            ImGui::Text("%s %s", measure.label, app::formatPercent(value(*current)).c_str());
            ImGui::TextDisabled("0 to 100%%, %.0f s", t1 - t0);
        } else {
            ImGui::Text("%s %.2f%s", measure.label, value(*current), unit.c_str());
            ImGui::TextDisabled("0 to %.3g, %.0f s", high, t1 - t0);
        }
        ImGui::EndGroup();
    }
    if (moreOpen) ImGui::TreePop();
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
    // Above an overlay at the bottom, which would hide its middle in a small window.
    float bottom = viewport->WorkPos.y + viewport->WorkSize.y - 20.0f;
    if (!overlayRect_.empty() && overlayRect_.centre().y > viewport->GetCenter().y)
        bottom = std::min(bottom, overlayRect_.y0 - app::kLayoutMargin);
    ImGui::SetNextWindowPos(ImVec2(freeLeft + freeWidth * 0.5f, bottom), ImGuiCond_Always,
                            ImVec2(0.5f, 1.0f));
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
        widgets_.noteRect("dismiss");
    }
    if (notice) ImGui::TextWrapped("%s", message_.c_str());
    ImGui::PopTextWrapPos();
    widgets_.noteWindow("Notices");
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
    // The backends' keys and labels, in the registry's order: "1 / 2 / 3", "backend: ...".
    std::string backendKeys, backendLabels = "backend: ";
    const auto registry = backendRegistry();
    for (std::size_t k = 0; k < registry.size(); ++k) {
        const std::string separator = k == 0 ? "" : " / ";
        backendKeys += separator + std::to_string(k + 1);
        backendLabels += separator + std::string(registry[k].label);
    }
    const std::string kRows[][2] = {
        {"left drag", "orbit the camera around the tank"},
        {"right or middle drag", "pan"},
        {"wheel", "zoom"},
        {"C", "reset the camera"},
        {"G", "camera follows the school, its largest group, or stays"},
        {backendKeys, backendLabels},
        {"Space", "pause or resume"},
        {"N", "one step (held, it keeps stepping)"},
        {"R", "a fresh school from the panel's seed"},
        {"[ / ]", "slower / faster (x0.25 to x8)"},
        {"F", "fast-forward the panel's number of simulated seconds"},
        {"F1 or ?", "this help"},
        {"F2", "show or hide the panel"},
        {"F12", "screenshot, fishschool-YYYYMMDD-HHMMSS.png in the working folder"},
        {"replay: Space", "play or pause"},
        {"replay: Left / Right", "one frame back / on (held, it keeps going)"},
        {"replay: Home / End", "the first / the last frame"},
        {"replay: [ / ]", "slower / faster (x1/8 to x8)"},
        {"Ctrl+Z / Ctrl+Y", "undo / redo a change of parameters (Ctrl+Shift+Z redoes too)"},
        {"Esc", "close the dialog, browser or help; else quit (asking if the parameters changed)"},
        {"hover a control", "what it does"},
        {"Ctrl+click a slider", "type a value; Enter or a click elsewhere applies it"},
        {"right-click a control", "reset it to its default"},
    };
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
        for (const auto& row : kRows) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row[0].c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row[1].c_str());
        }
        ImGui::EndTable();
    }
    ImGui::End();
}

}  // namespace fishschool::ui
