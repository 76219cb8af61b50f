// What makes the panel forgiving: the dialog before changed parameters are lost, Undo and Redo,
// and the file browser beside each path field. Each only asks; the app reads the folders,
// keeps the history and quits.

#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "Panel.h"

namespace fishschool::ui {
namespace {

/// "kCohesion", "kCohesion, rCohesion", "fishCount and 3 more".
std::string keysText(const std::vector<std::string_view>& keys) {
    std::string text;
    for (std::size_t k = 0; k < keys.size() && k < 2; ++k)
        text.append(k ? ", " : "").append(keys[k]);
    if (keys.size() > 2) text += " and " + std::to_string(keys.size() - 2) + " more";
    return text;
}

/// "12 KB", "3.4 MB".
std::string sizeText(std::uintmax_t bytes) {
    char text[32];
    if (bytes < 1024)
        std::snprintf(text, sizeof text, "%ju B", bytes);
    else if (bytes < 1024 * 1024)
        std::snprintf(text, sizeof text, "%.0f KB", static_cast<double>(bytes) / 1024.0);
    else
        std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1048576.0);
    return text;
}

}  // namespace

std::string Panel::pathField(PathField field) const {
    switch (field) {
        case PathField::School:
            return statePath_;
        case PathField::Recording:
            return recordingPath_;
        case PathField::Config:
            break;
    }
    return configPath_;
}

void Panel::drawUndoRedo(const PanelState& state, PanelActions& actions) {
    ImGui::BeginDisabled(!state.canUndo);
    if (ImGui::Button("Undo (Ctrl+Z)")) actions.undo = true;
    ImGui::EndDisabled();
    widgets_.noteRect("Undo");
    tip(state.canUndo
            ? ("Take back the last change of parameters: " + keysText(state.undoKeys) + ".").c_str()
            : "Take back the last change of parameters (none yet).");
    sameLineIfFits(buttonWidth("Redo (Ctrl+Y)"), rowRight_);
    ImGui::BeginDisabled(!state.canRedo);
    if (ImGui::Button("Redo (Ctrl+Y)")) actions.redo = true;
    ImGui::EndDisabled();
    widgets_.noteRect("Redo");
    tip(state.canRedo
            ? ("Make the change taken back again: " + keysText(state.redoKeys) + ".").c_str()
            : "Make a change taken back again (none to make).");
}

void Panel::drawQuitDialog(bool asking, PanelActions& actions) {
    // A modal popup is opened from the ID scope it is drawn in (here, outside every window),
    // and closed from inside it: one left open would keep dimming and blocking the window.
    if (asking && !ImGui::IsPopupOpen("Quit?")) ImGui::OpenPopup("Quit?");
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(viewport->GetCenter(), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    if (!ImGui::BeginPopupModal("Quit?", nullptr,
                                ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                                    ImGuiWindowFlags_NoSavedSettings))
        return;
    if (!asking) {  // the app answered (Esc)
        ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
        return;
    }
    ImGui::TextUnformatted("The parameters changed since they were last saved or loaded.");
    ImGui::Text("Save them to %s before quitting?", configPath_);
    if (ImGui::Button("Save and quit")) {
        actions.saveConfigPath = configPath_;
        actions.quit = true;
    }
    widgets_.noteRect("Save and quit");
    tip("Write the running parameters to the config file of Files, then quit.");
    ImGui::SameLine();
    if (ImGui::Button("Quit without saving")) actions.quit = true;
    widgets_.noteRect("Quit without saving");
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) actions.cancelQuit = true;
    widgets_.noteRect("Cancel");
    tip("Stay (Esc).");
    if (actions.quit || actions.cancelQuit) ImGui::CloseCurrentPopup();
    widgets_.noteWindow("Quit?");
    ImGui::EndPopup();
}

void Panel::pathFieldWithBrowse(const char* label, char* text, std::size_t size, PathField field,
                                app::FileKind kind, PanelActions& actions, const char* help) {
    // The field keeps what is typed; Browse fills it with a file picked in a folder.
    const std::string browse = std::string("Browse##") + label;
    const ImGuiStyle& style = ImGui::GetStyle();
    ImGui::SetNextItemWidth(
        std::max(ImGui::CalcItemWidth() - buttonWidth("Browse") - style.ItemInnerSpacing.x,
                 4.0f * ImGui::GetFontSize()));
    ImGui::InputText((std::string("##") + label).c_str(), text, size);
    widgets_.noteRect(label);
    tip(help);
    ImGui::SameLine(0.0f, style.ItemInnerSpacing.x);
    if (ImGui::Button(browse.c_str())) {
        browsing_ = field;
        actions.browse = PanelActions::BrowseRequest{app::folderOfField(text), kind};
    }
    widgets_.noteRect(std::string("Browse ") + label);
    tip((std::string("Pick a file among the folder's ") + app::describe(kind) + ".").c_str());
    ImGui::SameLine(0.0f, style.ItemInnerSpacing.x);
    ImGui::TextUnformatted(label);
}

void Panel::drawBrowser(const PanelState::Browser& browser, PanelActions& actions) {
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(viewport->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(
        ImVec2(std::min(36.0f * ImGui::GetFontSize(), viewport->Size.x - 20.0f),
               std::min(28.0f * ImGui::GetFontSize(), viewport->Size.y - 20.0f)),
        ImGuiCond_Appearing);
    bool open = true;
    const app::FileKind kind = browser.listing ? browser.listing->kind : app::FileKind::Config;
    const std::string title = std::string("Browse ") + app::describe(kind) + "###browser";
    if (!ImGui::Begin(title.c_str(), &open, ImGuiWindowFlags_NoCollapse)) {
        ImGui::End();
        if (!open) actions.closeBrowser = true;
        return;
    }
    widgets_.noteWindow("Browser");
    if (!open) actions.closeBrowser = true;
    ImGui::TextDisabled(
        "%s", browser.listing ? browser.listing->absolute.c_str() : browser.folder.c_str());
    if (!browser.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", browser.error.c_str());
        ImGui::PopStyleColor();
    }
    const std::string folder = browser.listing ? browser.listing->folder : browser.folder;
    const float footer = ImGui::GetFrameHeightWithSpacing();
    ImGui::BeginChild("entries", ImVec2(0.0f, -footer), true);
    if (ImGui::Selectable(".. (the folder above)"))
        actions.browse = PanelActions::BrowseRequest{app::parentFolder(folder), kind};
    widgets_.noteRect("browser ..");
    if (browser.listing) {
        for (const app::FolderEntry& entry : browser.listing->entries) {
            const std::string shown = entry.folder ? entry.name + "/" : entry.name;
            if (ImGui::Selectable(shown.c_str())) {
                const std::string path = app::pathInFolder(folder, entry.name);
                if (entry.folder) {
                    actions.browse = PanelActions::BrowseRequest{path, kind};
                } else {
                    // Into the field that opened the browser; Load or Open is the user's.
                    static_assert(sizeof statePath_ == sizeof configPath_ &&
                                  sizeof recordingPath_ == sizeof configPath_);
                    char* field = browsing_ == PathField::School      ? statePath_
                                  : browsing_ == PathField::Recording ? recordingPath_
                                                                      : configPath_;
                    std::snprintf(field, sizeof configPath_, "%s", path.c_str());
                    actions.closeBrowser = true;
                }
            }
            widgets_.noteRect("browser " + entry.name);
            if (!entry.folder) {
                ImGui::SameLine(ImGui::GetContentRegionMax().x - 6.0f * ImGui::GetFontSize());
                ImGui::TextDisabled("%s", sizeText(entry.bytes).c_str());
            }
        }
        if (browser.listing->entries.empty())
            ImGui::TextDisabled("no %s here", app::describe(kind));
        if (browser.listing->truncated) ImGui::TextDisabled("(more not listed)");
    }
    ImGui::EndChild();
    if (ImGui::Button("Cancel##browser")) actions.closeBrowser = true;
    tip("Close the browser; the field keeps its path.");
    ImGui::SameLine();
    ImGui::TextDisabled("A file picked goes into the field; then Load or Open.");
    ImGui::End();
}

}  // namespace fishschool::ui
