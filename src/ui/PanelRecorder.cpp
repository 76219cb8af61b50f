// The panel's FPS recorder section: record, sweep, the article's Table 1 and its plot.

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "Panel.h"
#include "backends/BackendRegistry.h"
#include "io/TextInput.h"

namespace fishschool::ui {
namespace {

/// The plot's colour for the backend at `index` in the registry.
ImU32 backendColor(std::size_t index) {
    constexpr ImU32 kColors[] = {IM_COL32(90, 170, 255, 255), IM_COL32(255, 170, 60, 255),
                                 IM_COL32(120, 220, 120, 255), IM_COL32(230, 110, 200, 255),
                                 IM_COL32(240, 230, 100, 255)};
    return kColors[index % std::size(kColors)];
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

void Panel::drawRecorder(const PanelState& state, const FpsRecorder& recorder,
                         PanelActions& actions) {
    if (recorder.sweeping()) ImGui::SetNextItemOpen(true);  // show the table as it fills
    if (!widgets_.section("FPS recorder")) return;
    const auto registry = backendRegistry();
    sweepBackends_.resize(registry.size(), true);
    ImGui::BeginDisabled(recorder.busy());
    if (ImGui::Button("Record")) actions.recordFps = true;
    widgets_.noteRect("Record");
    tip("Measure the current scene: a second of warm-up, then three seconds, as one row.");
    ImGui::SameLine();
    const bool sweepClicked = ImGui::Button("Sweep");
    widgets_.noteRect("Sweep");
    if (sweepClicked) {
        std::vector<BackendKind> backends;
        for (std::size_t k = 0; k < registry.size(); ++k)
            if (sweepBackends_[k] && state.unavailableReason(k).empty())
                backends.push_back(registry[k].kind);
        if (auto counts = parseFishCounts("sweep fish", sweepFish_); !counts)
            error_ = counts.error();
        else
            actions.sweepFps = PanelActions::SweepRequest{std::move(backends), std::move(*counts)};
    }
    tip("Measure every fish count of the list on every ticked backend.");
    ImGui::EndDisabled();
    if (recorder.busy()) {
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) actions.cancelFpsRecording = true;
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
    if (ImGui::Button("Export")) actions.exportFpsCsvPath = csvPath_;
    widgets_.noteRect("Export");
    tip("Write the rows as CSV.");
    ImGui::SameLine();
    if (ImGui::Button("Clear")) actions.clearFpsRecords = true;
    widgets_.noteRect("Clear");
    tip("Forget the rows.");
}

}  // namespace fishschool::ui
