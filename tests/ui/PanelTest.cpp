// The panel driven as a user drives it, through Dear ImGui's input (no window needed): typed
// values, errors that move nothing, and the plots of the school's measures.

#include <gtest/gtest.h>

#include <imgui.h>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "app_model/Presets.h"
#include "backends/BackendRegistry.h"
#include "core/ParamTable.h"
#include "core/Scenario.h"
#include "ui/Panel.h"

namespace fishschool::ui {
namespace {

TEST(PanelPlots, KeepTheLastMinutesOfSimulatedTimeAndStartAgainWithANewSchool) {
    Panel panel;
    SchoolMetrics m;
    for (int t = 0; t <= 300; t += 10) {
        m.polarization = t / 300.0;
        panel.addMeasures(t, m);
    }
    const auto& kept = panel.measures();
    ASSERT_FALSE(kept.empty());
    EXPECT_EQ(kept.front().seconds, 300.0 - Panel::kPlotSeconds);
    EXPECT_EQ(kept.back().seconds, 300.0);
    EXPECT_DOUBLE_EQ(kept.back().metrics.polarization, 1.0);
    EXPECT_EQ(kept.size(), 19u);

    panel.addMeasures(300.0, m);  // paused: the same time again is kept
    EXPECT_EQ(panel.measures().size(), 20u);
    panel.addMeasures(0.5, m);  // a reset school starts at 0
    ASSERT_EQ(panel.measures().size(), 1u);
    EXPECT_EQ(panel.measures().front().seconds, 0.5);
}

/// One ImGui context for a test, at 1280 x 800, with frames drawn by the panel.
class PanelInput : public ::testing::Test {
  protected:
    void SetUp() override {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = ImVec2(1280.0f, 800.0f);
        io.DeltaTime = 1.0f / 60.0f;
        io.KeyMap[ImGuiKey_Enter] = 13;  // a backend's key index for Enter
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
        state_.params = &params_;
        state_.fishCount = static_cast<std::size_t>(params_.fishCount);
    }
    void TearDown() override { ImGui::DestroyContext(); }

    /// One frame; what the user's input of this frame asked for.
    PanelActions frame() {
        ImGui::NewFrame();
        PanelActions actions = panel_.draw(state_, recorder_);
        ImGui::Render();
        // Input lasts one frame, as a backend gives it.
        ImGuiIO& io = ImGui::GetIO();
        io.MouseDown[0] = false;
        io.KeyCtrl = false;
        io.KeysDown[ImGui::GetKeyIndex(ImGuiKey_Enter)] = false;
        return actions;
    }
    /// A click on `label`: hover, press, release; what the three frames asked for.
    PanelActions click(const char* label) {
        const auto rect = panel_.controlRect(label);
        EXPECT_GT(rect[2], rect[0]) << label << " was not drawn";
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = centre(rect);
        PanelActions asked = frame();
        io.MouseDown[0] = true;
        const PanelActions pressed = frame();
        const PanelActions released = frame();
        for (const PanelActions* a : {&pressed, &released}) {
            if (a->loadConfigPath) asked.loadConfigPath = a->loadConfigPath;
            if (a->saveConfigPath) asked.saveConfigPath = a->saveConfigPath;
            if (a->newParams) asked.newParams = a->newParams;
            if (a->sweepFps) asked.sweepFps = a->sweepFps;
            if (a->exportFpsCsvPath) asked.exportFpsCsvPath = a->exportFpsCsvPath;
            if (a->applyPreset) asked.applyPreset = a->applyPreset;
            if (a->browse) asked.browse = a->browse;
            asked.recordFps = asked.recordFps || a->recordFps;
            asked.clearFpsRecords = asked.clearFpsRecords || a->clearFpsRecords;
            asked.undo = asked.undo || a->undo;
            asked.redo = asked.redo || a->redo;
            asked.quit = asked.quit || a->quit;
            asked.cancelQuit = asked.cancelQuit || a->cancelQuit;
            asked.closeBrowser = asked.closeBrowser || a->closeBrowser;
        }
        return asked;
    }
    /// A right click on `label`, then a click on its menu's "Reset to default"; what was asked.
    PanelActions resetToDefault(const char* label) {
        const auto rect = panel_.controlRect(label);
        EXPECT_GT(rect[2], rect[0]) << label << " was not drawn";
        ImGuiIO& io = ImGui::GetIO();
        for (int k = 0; k < 30; ++k) frame();  // no double-click with an earlier click
        io.MousePos = centre(rect);
        frame();
        io.MouseDown[1] = true;
        frame();
        io.MouseDown[1] = false;
        frame();
        frame();  // the menu shows
        return click("reset to default");
    }
    static ImVec2 centre(const std::array<float, 4>& r) {
        return ImVec2(0.5f * (r[0] + r[2]), 0.5f * (r[1] + r[3]));
    }
    /// Clicks into the text field `label` (the caret lands after a short text), deletes
    /// `backspaces` characters, types `typed` and presses Enter; what the frame of Enter (or the
    /// one after) asked for.
    PanelActions typeInto(const std::string& label, const std::string& typed, int backspaces = 0) {
        const auto rect = panel_.controlRect(label);
        EXPECT_GT(rect[2], rect[0]) << label << " was not drawn";
        ImGuiIO& io = ImGui::GetIO();
        io.KeyMap[ImGuiKey_Backspace] = 8;
        for (int k = 0; k < 30; ++k) frame();  // no double-click with an earlier click
        io.MousePos = centre(rect);
        frame();
        io.MouseDown[0] = true;
        frame();
        for (int k = 0; k < backspaces; ++k) {
            io.KeysDown[8] = true;
            frame();
            io.KeysDown[8] = false;
            frame();
        }
        for (const char c : typed) {
            io.AddInputCharacter(static_cast<unsigned>(c));
            EXPECT_FALSE(frame().newParams) << "applied while typing into " << label;
        }
        io.KeysDown[ImGui::GetKeyIndex(ImGuiKey_Enter)] = true;
        PanelActions entered = frame();
        if (!entered.newParams) entered = frame();
        return entered;
    }

    SimParams params_;
    PanelState state_;
    FpsRecorder recorder_;
    Panel panel_;
};

TEST_F(PanelInput, ATypedValueAppliesOnEnterNotWhileTyped) {
    // Tall enough that the Behaviour section shows without scrolling the panel.
    ImGui::GetIO().DisplaySize = ImVec2(1280.0f, 1000.0f);
    frame();
    const auto rect = panel_.controlRect("rSeparation (m)");
    ASSERT_GT(rect[2], rect[0]);
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = centre(rect);
    frame();  // hover first, as a mouse does
    io.KeyCtrl = true;
    io.MouseDown[0] = true;  // Ctrl+click: the slider becomes a text field
    EXPECT_FALSE(frame().newParams);
    frame();
    for (const char c : std::string("-1")) {
        io.AddInputCharacter(static_cast<unsigned>(c));
        const PanelActions typing = frame();
        EXPECT_FALSE(typing.newParams) << "applied while typing, at '" << c << "'";
    }
    io.KeysDown[ImGui::GetKeyIndex(ImGuiKey_Enter)] = true;
    PanelActions entered = frame();
    if (!entered.newParams) entered = frame();  // ImGui may apply on the frame after Enter
    ASSERT_TRUE(entered.newParams);
    EXPECT_EQ(entered.newParams->rSeparation, -1.0f);  // the whole value, for the app to refuse
    // Refused, the running value stays: the next frames ask for nothing more.
    for (int k = 0; k < 3; ++k) EXPECT_FALSE(frame().newParams);
}

/// Loading and saving a config are what the panel returns for the app to carry out: the panel
/// itself reads and writes no file.
TEST_F(PanelInput, ConfigFilesAreAskedOfTheAppNotOpenedByThePanel) {
    ASSERT_FALSE(std::filesystem::exists("fishschool.json")) << "the test needs it absent";
    frame();
    // Close the open sections, so that Files shows without scrolling.
    for (const char* open : {"Measures over time", "School", "Behaviour"}) click(open);
    click("Files");
    const PanelActions load = click("Load config");
    ASSERT_TRUE(load.loadConfigPath);
    EXPECT_EQ(*load.loadConfigPath, "fishschool.json");
    EXPECT_FALSE(load.newParams) << "the panel loaded the file itself";
    const PanelActions save = click("Save config");
    ASSERT_TRUE(save.saveConfigPath);
    EXPECT_EQ(*save.saveConfigPath, "fishschool.json");
    EXPECT_FALSE(std::filesystem::exists("fishschool.json")) << "the panel wrote the file itself";
}

/// The FPS recorder's buttons, too, are asked of the app: the panel starts no measurement and
/// writes no CSV.
TEST_F(PanelInput, TheRecordersButtonsAreAskedOfTheApp) {
    ASSERT_FALSE(std::filesystem::exists("fps.csv")) << "the test needs it absent";
    frame();
    for (const char* open : {"Measures over time", "School", "Behaviour"}) click(open);
    click("FPS recorder");
    EXPECT_TRUE(click("Record").recordFps);
    EXPECT_FALSE(recorder_.busy()) << "the panel started the recording itself";
    const PanelActions sweep = click("Sweep");
    ASSERT_TRUE(sweep.sweepFps);
    EXPECT_EQ(sweep.sweepFps->fishCounts,
              (std::vector<std::int64_t>{1000, 2000, 5000, 10000, 20000}));
    EXPECT_EQ(sweep.sweepFps->backends.size(), backendRegistry().size());  // every one ticked
    EXPECT_FALSE(recorder_.busy()) << "the panel started the sweep itself";
    const PanelActions exported = click("Export");
    ASSERT_TRUE(exported.exportFpsCsvPath);
    EXPECT_EQ(*exported.exportFpsCsvPath, "fps.csv");
    EXPECT_FALSE(std::filesystem::exists("fps.csv")) << "the panel wrote the file itself";
    EXPECT_TRUE(click("Clear").clearFpsRecords);
}

/// Every key the parameter table puts on the panel is drawn there, under its section: a key
/// given a section no code draws would be hidden without a word.
TEST_F(PanelInput, EveryKeyOfTheTableIsOnThePanel) {
    ImGui::GetIO().DisplaySize = ImVec2(1280.0f, 8000.0f);  // room for every section, open
    frame();
    for (const ParamInfo& info : paramTable()) {
        if (info.panel.widget != Widget::Table) continue;
        const auto rect = panel_.controlRect(info.panel.label);
        if (rect[2] <= rect[0]) click(info.panel.section);  // a closed section: open it
    }
    frame();
    for (const ParamInfo& info : paramTable()) {
        if (info.panel.widget == Widget::None) continue;
        if (info.panel.widget == Widget::Custom) {
            EXPECT_GT(panel_.controlRect(info.panel.section)[2], 0.0f)
                << info.key << "'s section " << info.panel.section << " was not drawn";
            continue;
        }
        const auto rect = panel_.controlRect(info.panel.label);
        EXPECT_GT(rect[2], rect[0]) << info.key << " (" << info.panel.label << ", section "
                                    << info.panel.section << ") is not on the panel";
    }
}

TEST_F(PanelInput, ATypedFishCountIsReadStrictly) {
    frame();
    const auto rect = panel_.controlRect("fish count");
    ASSERT_GT(rect[2], rect[0]);
    ImGuiIO& io = ImGui::GetIO();
    // Click into the field (the caret lands after "2000"), type, press Enter.
    auto typeAndEnter = [&](const std::string& typed) {
        io.MousePos = centre(rect);
        frame();
        io.MouseDown[0] = true;
        frame();
        for (const char c : typed) {
            io.AddInputCharacter(static_cast<unsigned>(c));
            EXPECT_FALSE(frame().newParams);
        }
        io.KeysDown[ImGui::GetKeyIndex(ImGuiKey_Enter)] = true;
        PanelActions entered = frame();
        if (!entered.newParams) entered = frame();
        return entered;
    };
    // ImGui's own integer field would read "2000x10" as 2000 and move on silently.
    EXPECT_FALSE(typeAndEnter("x10").newParams);
    EXPECT_EQ(panel_.error(),
              "fish count: '2000x10' is not allowed; must be a whole number from 0 to 1000000");
    panel_.clearError();
    for (int k = 0; k < 30; ++k) frame();  // half a second: the next click is not a double-click
    const PanelActions accepted = typeAndEnter("5");
    ASSERT_TRUE(accepted.newParams) << panel_.error();
    EXPECT_EQ(accepted.newParams->fishCount, 20005);
}

TEST_F(PanelInput, ATypedFishCountAppliesWhenTheFocusGoesElsewhere) {
    frame();
    const auto field = panel_.controlRect("fish count");
    const auto elsewhere = panel_.controlRect("kCohesion");
    ASSERT_GT(field[2], field[0]);
    ASSERT_GT(elsewhere[2], elsewhere[0]);
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = centre(field);
    frame();
    io.MouseDown[0] = true;
    frame();
    io.AddInputCharacter('1');
    EXPECT_FALSE(frame().newParams);  // "20001" typed, not yet applied
    for (int k = 0; k < 30; ++k) EXPECT_FALSE(frame().newParams);
    // A click on the label's side of another control takes the focus without changing it.
    io.MousePos = ImVec2(elsewhere[2] + 20.0f, 0.5f * (elsewhere[1] + elsewhere[3]));
    frame();
    io.MouseDown[0] = true;
    PanelActions left = frame();
    if (!left.newParams) left = frame();
    ASSERT_TRUE(left.newParams) << panel_.error();
    EXPECT_EQ(left.newParams->fishCount, 20001);
}

TEST_F(PanelInput, AnErrorMovesNoControl) {
    frame();
    frame();
    const auto before = panel_.controlRect("kCohesion");
    const auto fishBefore = panel_.controlRect("fish count");
    ASSERT_GT(before[2], before[0]);
    panel_.showError("rSeparation: -1 is not allowed; must be finite and >= 0");
    frame();
    frame();
    EXPECT_EQ(panel_.controlRect("kCohesion"), before);
    EXPECT_EQ(panel_.controlRect("fish count"), fishBefore);
    panel_.clearError();
    frame();
    EXPECT_EQ(panel_.controlRect("kCohesion"), before);
}

TEST_F(PanelInput, TheDismissButtonStaysInTheWindowAfterAWrappedError) {
    const auto inside = [](const std::array<float, 4>& inner, const std::array<float, 4>& outer) {
        return inner[0] >= outer[0] && inner[1] >= outer[1] && inner[2] <= outer[2] &&
               inner[3] <= outer[3];
    };
    const std::array<float, 4> display{0.0f, 0.0f, 1280.0f, 800.0f};
    for (const std::string& error :
         {std::string("fish count: 'x' is not allowed"),
          "rocks[1].radius: 30 is not allowed; rock 1 must keep a gap of maxVelocity * dt = 0.05 "
          "to every wall, and rocks[0] and rocks[1] are 3 m apart: a gap of 0.01 m between "
          "them is less than maxVelocity * dt = 0.05 m between them; " +
              std::string(200, 'x')}) {
        panel_.showError(error);
        for (int k = 0; k < 5; ++k) frame();  // the panel and the notice take their sizes
        const auto button = panel_.controlRect("dismiss");
        const auto window = panel_.controlRect("Notices");
        ASSERT_GT(button[2], button[0]) << error;
        EXPECT_TRUE(inside(button, window)) << error;
        EXPECT_TRUE(inside(window, display)) << error;
        EXPECT_GT(panel_.coveredLeft(), 0.0f);
        EXPECT_GE(window[0], panel_.coveredLeft()) << "the panel hides the notice: " << error;

        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = centre(button);
        frame();
        io.MouseDown[0] = true;
        frame();
        frame();  // released
        EXPECT_EQ(panel_.error(), "") << error;
        for (int k = 0; k < 30; ++k) frame();  // the next click is not a double-click
    }
}

TEST_F(PanelInput, TheFirstMeasuresMoveNoControl) {
    frame();
    frame();
    const auto before = panel_.controlRect("fish count");
    ASSERT_GT(before[2], before[0]);
    SchoolMetrics m;
    m.directionError = std::nan("");  // as measured: no fish is informed
    panel_.addMeasures(0.0, m);
    panel_.addMeasures(0.5, m);  // two measures: the plots have lines to draw
    ASSERT_EQ(panel_.measures().size(), 2u);
    frame();
    frame();
    EXPECT_EQ(panel_.controlRect("fish count"), before);
}

// After --config predator.json the preset box said "Default".
TEST_F(PanelInput, ThePresetBoxNamesTheLoadedConfigUntilAPresetIsPicked) {
    frame();
    EXPECT_EQ(panel_.presetBoxLabel(), "Default");
    panel_.followSource("predator.json");
    frame();
    EXPECT_EQ(panel_.presetBoxLabel(), "predator.json");
    // Apply does nothing until a preset is picked: it would apply one the box does not show.
    const PanelActions applied = click("Apply preset");
    EXPECT_FALSE(applied.newParams);
}

// The GPU backend's greyed-out reason was one line that stretched the panel over 90%
// of the window; in a small window the panel took 510 of 800 pixels, over the overlay.
TEST_F(PanelInput, LongReasonsWrapAndTheOverlayStaysBesideThePanel) {
    for (const ImVec2 display : {ImVec2(1280.0f, 800.0f), ImVec2(800.0f, 600.0f)}) {
        ImGui::GetIO().DisplaySize = display;
        state_.unavailable = {"", "",
                              "gpu: 5000000 fish need a storage buffer of 480000000 bytes, more "
                              "than this GPU's GL_MAX_SHADER_STORAGE_BLOCK_SIZE of 134217728 "
                              "bytes; choose fewer fish or a CPU backend"};
        for (int k = 0; k < 5; ++k) frame();
        const float widest = Panel::panelMaxWidth(display.x, ImGui::GetFontSize());
        EXPECT_LE(panel_.coveredLeft(), widest + 20.0f) << display.x;
        EXPECT_LE(widest, 0.4f * display.x);
        const auto overlay = panel_.controlRect("Overlay");
        EXPECT_GE(overlay[0], panel_.coveredLeft()) << "the overlay lies under the panel";
        EXPECT_LE(overlay[2], display.x);
    }
}

// There was no way back to one slider's default.
TEST_F(PanelInput, ARightClickResetsAControlToItsDefault) {
    params_.kCohesion = 3.5f;
    params_.rocks[1].radius = 2.0f;
    params_.dimensions = 2;
    ImGui::GetIO().DisplaySize = ImVec2(1280.0f, 3000.0f);  // every section in view
    frame();
    click("Tank and rocks");
    for (int k = 0; k < 5; ++k) frame();
    const PanelActions cohesion = resetToDefault("kCohesion");
    ASSERT_TRUE(cohesion.newParams);
    EXPECT_EQ(cohesion.newParams->kCohesion, SimParams{}.kCohesion);
    EXPECT_EQ(cohesion.newParams->rocks[1].radius, 2.0f) << "another key changed with it";
    const PanelActions rock = resetToDefault("rocks[1].radius");
    ASSERT_TRUE(rock.newParams);
    EXPECT_EQ(rock.newParams->rocks[1].radius, SimParams{}.rocks[1].radius);
    const PanelActions flat = resetToDefault("dimensions");
    ASSERT_TRUE(flat.newParams);
    EXPECT_EQ(flat.newParams->dimensions, 3);
}

// dimensions was a slider for 2 or 3.
TEST_F(PanelInput, AKeyOfAFewWholeValuesIsRadioButtons) {
    ImGui::GetIO().DisplaySize = ImVec2(1280.0f, 3000.0f);
    frame();
    click("Tank and rocks");
    for (int k = 0; k < 5; ++k) frame();
    EXPECT_GT(panel_.controlRect("dimensions=2")[2], 0.0f);
    EXPECT_GT(panel_.controlRect("dimensions=3")[2], 0.0f);
    const PanelActions flat = click("dimensions=2");
    ASSERT_TRUE(flat.newParams);
    EXPECT_EQ(flat.newParams->dimensions, 2);
}

// With steering vicsek the weights looked live, though that steering reads none of them.
TEST_F(PanelInput, EachSteeringDimsTheControlsItDoesNotRead) {
    ImGui::GetIO().DisplaySize = ImVec2(1280.0f, 3000.0f);
    frame();
    for (const char* section : {"Target and avoidance", "Steering, leaders and predators"})
        click(section);
    for (int k = 0; k < 3; ++k) frame();
    EXPECT_FALSE(panel_.controlDimmed("kCohesion"));
    EXPECT_TRUE(panel_.controlDimmed("maxTurnRate (deg/s)")) << "only couzin reads it";
    params_.steering = Steering::Vicsek;
    frame();
    for (const char* unread : {"kCohesion", "kSeparation", "kAlignment", "rCohesion (m)",
                               "maxAcceleration (m/s2)", "kTarget", "target (m)", "leaders"})
        EXPECT_TRUE(panel_.controlDimmed(unread)) << unread;
    for (const char* read : {"rAlignment (m)", "maxVelocity (m/s)", "noise (rad)", "steering",
                             "dt (s)", "viewAngle (deg)"})
        EXPECT_FALSE(panel_.controlDimmed(read)) << read;
    params_.steering = Steering::Couzin;
    frame();
    EXPECT_FALSE(panel_.controlDimmed("maxTurnRate (deg/s)"));
    EXPECT_FALSE(panel_.controlDimmed("rCohesion (m)"));
    EXPECT_TRUE(panel_.controlDimmed("kCohesion"));
    // A dimmed control still takes a value, to set ahead of switching the steering.
    const PanelActions set = resetToDefault("kTarget");
    EXPECT_FALSE(set.newParams) << "kTarget is at its default already";
}

// Applying a preset set the fish count back to 2,000.
TEST_F(PanelInput, APresetIsAskedForWithTheRunningFishCountUnlessTicked) {
    params_.fishCount = 5000;
    state_.fishCount = 5000;
    frame();
    click("preset box");
    frame();
    click("preset Streams");
    frame();
    EXPECT_EQ(panel_.presetBoxLabel(), "Streams");
    const PanelActions kept = click("Apply preset");
    ASSERT_TRUE(kept.applyPreset);
    EXPECT_EQ(presets()[kept.applyPreset->index].name, "Streams");
    EXPECT_FALSE(kept.applyPreset->withItsFishCount);
    EXPECT_FALSE(kept.newParams) << "the panel applied the preset itself";
    // A preset whose count is what it shows comes ticked.
    for (int k = 0; k < 30; ++k) frame();
    click("preset box");
    frame();
    click("preset 100k fish");
    frame();
    const PanelActions own = click("Apply preset");
    ASSERT_TRUE(own.applyPreset);
    EXPECT_TRUE(own.applyPreset->withItsFishCount);
    // The box follows what the app applied, and Apply applies it again.
    panel_.followSource("Streams");
    for (int k = 0; k < 30; ++k) frame();
    EXPECT_EQ(panel_.presetBoxLabel(), "Streams");
    const PanelActions again = click("Apply preset");
    ASSERT_TRUE(again.applyPreset);
    EXPECT_EQ(presets()[again.applyPreset->index].name, "Streams");
}

// Esc quit at once and the tuning was lost.
TEST_F(PanelInput, TheQuitDialogAsksAndLetsTheAppQuitOrStay) {
    frame();
    state_.askingToQuit = true;
    for (int k = 0; k < 3; ++k) frame();
    const PanelActions stay = click("Cancel");
    EXPECT_TRUE(stay.cancelQuit);
    EXPECT_FALSE(stay.quit);
    state_.askingToQuit = false;
    for (int k = 0; k < 30; ++k) frame();
    // Closed, it blocks nothing: Undo (greyed out without a change) answers.
    EXPECT_FALSE(click("Undo").undo);
    state_.canUndo = true;
    for (int k = 0; k < 30; ++k) frame();
    EXPECT_TRUE(click("Undo").undo);

    state_.askingToQuit = true;
    for (int k = 0; k < 30; ++k) frame();
    const PanelActions save = click("Save and quit");
    EXPECT_TRUE(save.quit);
    ASSERT_TRUE(save.saveConfigPath);
    EXPECT_EQ(*save.saveConfigPath, "fishschool.json");
    for (int k = 0; k < 30; ++k) frame();
    const PanelActions leave = click("Quit without saving");
    EXPECT_TRUE(leave.quit);
    EXPECT_FALSE(leave.saveConfigPath);
}

// A file was opened by typing its path.
TEST_F(PanelInput, TheBrowserAsksForAFolderAndPutsAPickedFileInTheField) {
    frame();
    for (const char* open : {"Measures over time", "School", "Behaviour"}) click(open);
    click("Files");
    const PanelActions browse = click("Browse config");
    ASSERT_TRUE(browse.browse);
    EXPECT_EQ(browse.browse->folder, ".");
    EXPECT_EQ(browse.browse->kind, app::FileKind::Config);

    // The app lists the folder; the panel shows it.
    app::FolderListing listing;
    listing.folder = "runs";
    listing.kind = app::FileKind::Config;
    listing.entries = {{"old", true, 0}, {"tuned.json", false, 812}};
    state_.browser = PanelState::Browser{listing, "runs", ""};
    for (int k = 0; k < 3; ++k) frame();
    const PanelActions into = click("browser old");
    ASSERT_TRUE(into.browse);
    EXPECT_EQ(into.browse->folder, "runs/old");
    const PanelActions up = click("browser ..");
    ASSERT_TRUE(up.browse);
    EXPECT_EQ(up.browse->folder, ".");
    const PanelActions picked = click("browser tuned.json");
    EXPECT_TRUE(picked.closeBrowser);
    EXPECT_FALSE(picked.loadConfigPath) << "a pick only fills the field";
    EXPECT_EQ(panel_.pathField(Panel::PathField::Config), "runs/tuned.json");
    state_.browser.reset();
    for (int k = 0; k < 30; ++k) frame();
    const PanelActions load = click("Load config");
    ASSERT_TRUE(load.loadConfigPath);
    EXPECT_EQ(*load.loadConfigPath, "runs/tuned.json");
}

TEST_F(PanelInput, TheOverlayIsCompactWithItsDetailsAClickAway) {
    std::vector<float> history(100, 16.0f);
    state_.frameHistoryMs = history;
    SchoolMetrics metrics;
    state_.metrics = &metrics;
    for (int k = 0; k < 3; ++k) frame();
    const auto compact = panel_.controlRect("Overlay");
    EXPECT_LT(compact[3] - compact[1], 4.0f * ImGui::GetFontSize()) << "more than two lines";
    EXPECT_FALSE(panel_.view.overlayDetails);
    click("overlay details");
    EXPECT_TRUE(panel_.view.overlayDetails);
    for (int k = 0; k < 3; ++k) frame();
    const auto details = panel_.controlRect("Overlay");
    EXPECT_GT(details[3] - details[1], 3.0f * (compact[3] - compact[1]));
    // In the corner the app picks.
    state_.overlayCorner = app::Corner::BottomRight;
    for (int k = 0; k < 3; ++k) frame();
    EXPECT_NEAR(panel_.controlRect("Overlay")[3], 800.0f - app::kLayoutMargin, 1.0f);
}

/// The mixed school of docs/examples/mixed-school.json: 1,800 sardines and 200 tuna.
SimParams mixedSchool() {
    SimParams p;
    p.fishCount = 2000;
    p.species = {{"sardine", 1800, {0.25f, 0.5f, 1.0f}, {{"bodyLength", 1.0f}}},
                 {"tuna", 200, {1.0f, 0.5f, 0.1f}, {{"maxVelocity", 6.0f}, {"bodyLength", 3.0f}}}};
    EXPECT_TRUE(validate(p)) << validate(p).error();
    return p;
}

// The first species is the school as it is; the next ones bring new fish, and every request is
// a config that validate() takes.
TEST_F(PanelInput, AddingASpeciesAsksForTheSchoolAsTheFirstAndNewFishForTheNext) {
    ImGui::GetIO().DisplaySize = ImVec2(1280.0f, 3000.0f);  // every section in view
    frame();
    click("Species");  // closed while the school has no species
    const PanelActions first = click("Add species");
    ASSERT_TRUE(first.newParams);
    ASSERT_EQ(first.newParams->species.size(), 1u);
    EXPECT_EQ(first.newParams->species[0].name, "species 1");
    EXPECT_EQ(first.newParams->species[0].count, 2000);
    EXPECT_EQ(first.newParams->fishCount, 2000);
    EXPECT_TRUE(validate(*first.newParams)) << validate(*first.newParams).error();

    params_ = *first.newParams;  // as the app applies it
    for (int k = 0; k < 5; ++k) frame();
    const PanelActions second = click("Add species");
    ASSERT_TRUE(second.newParams);
    const SimParams& two = *second.newParams;
    ASSERT_EQ(two.species.size(), 2u);
    EXPECT_EQ(two.species[0], params_.species[0]);
    EXPECT_EQ(two.species[1].name, "species 2");
    EXPECT_EQ(two.species[1].count, 200);  // a tenth of the school, new fish
    EXPECT_NE(two.species[1].color, two.species[0].color);
    EXPECT_EQ(two.fishCount, 2200);
    EXPECT_TRUE(validate(two)) << validate(two).error();
}

TEST_F(PanelInput, ASpeciesCountAndTheFishCountKeepTheCountsAddingUp) {
    ImGui::GetIO().DisplaySize = ImVec2(1280.0f, 3000.0f);
    params_ = mixedSchool();
    for (int k = 0; k < 5; ++k) frame();                          // the panel takes its size
    const PanelActions tuna = typeInto("species[1].count", "0");  // 200 -> 2000
    ASSERT_TRUE(tuna.newParams) << panel_.error();
    EXPECT_EQ(tuna.newParams->species[1].count, 2000);
    EXPECT_EQ(tuna.newParams->species[0].count, 1800);
    EXPECT_EQ(tuna.newParams->fishCount, 3800);
    EXPECT_TRUE(validate(*tuna.newParams)) << validate(*tuna.newParams).error();

    // The fish count shows the sum and shares a new one among the species.
    const PanelActions total = typeInto("fish count", "0");  // 2000 -> 20000
    ASSERT_TRUE(total.newParams) << panel_.error();
    EXPECT_EQ(total.newParams->fishCount, 20000);
    EXPECT_EQ(total.newParams->species[0].count, 18000);
    EXPECT_EQ(total.newParams->species[1].count, 2000);
    EXPECT_TRUE(validate(*total.newParams)) << validate(*total.newParams).error();

    // A count the panel cannot read is its own error, and asks nothing.
    EXPECT_FALSE(typeInto("species[0].count", "x").newParams);
    EXPECT_EQ(panel_.error(),
              "species 'sardine' count: '1800x' is not allowed; must be a whole number from 0 to "
              "1000000");
}

TEST_F(PanelInput, RemovingASpeciesRemovesItsFishAndRemovingTheLastKeepsThem) {
    ImGui::GetIO().DisplaySize = ImVec2(1280.0f, 3000.0f);
    params_ = mixedSchool();
    for (int k = 0; k < 5; ++k) frame();  // the panel takes its size
    const PanelActions removed = click("species[1].remove");
    ASSERT_TRUE(removed.newParams);
    ASSERT_EQ(removed.newParams->species.size(), 1u);
    EXPECT_EQ(removed.newParams->species[0].name, "sardine");
    EXPECT_EQ(removed.newParams->fishCount, 1800);
    EXPECT_TRUE(validate(*removed.newParams)) << validate(*removed.newParams).error();

    params_ = *removed.newParams;
    for (int k = 0; k < 30; ++k) frame();  // no double-click, and the panel takes its new size
    const PanelActions last = click("species[0].remove");
    ASSERT_TRUE(last.newParams);
    EXPECT_TRUE(last.newParams->species.empty());
    EXPECT_EQ(last.newParams->fishCount, 1800);  // one kind again, every fish kept
}

TEST_F(PanelInput, ARenamedSpeciesIsAskedForAndABadNameIsLeftToTheRules) {
    ImGui::GetIO().DisplaySize = ImVec2(1280.0f, 3000.0f);
    params_ = mixedSchool();
    for (int k = 0; k < 5; ++k) frame();  // the panel takes its size
    const PanelActions renamed = typeInto("species[1].name", "s");
    ASSERT_TRUE(renamed.newParams);
    EXPECT_EQ(renamed.newParams->species[1].name, "tunas");
    EXPECT_EQ(renamed.newParams->species[1].count, 200);
    // Named as the other: asked for as typed, for the app to refuse with the rule's reason.
    const PanelActions twice = typeInto("species[1].name", "sardine", 4);
    ASSERT_TRUE(twice.newParams);
    EXPECT_EQ(twice.newParams->species[1].name, "sardine");
    EXPECT_NE(validate(*twice.newParams).error().find("give each species its own name"),
              std::string::npos)
        << validate(*twice.newParams).error();
}

// The per-fish keys a species may set are the table's (perFishParams()), each with a box.
TEST_F(PanelInput, ASpeciesSetsAndDropsAPerFishKeyThroughItsBox) {
    ImGui::GetIO().DisplaySize = ImVec2(1280.0f, 3000.0f);
    params_ = mixedSchool();
    for (int k = 0; k < 5; ++k) frame();  // the panel takes its size
    click("species[0].own values");
    for (int k = 0; k < 5; ++k) frame();
    for (const ParamInfo* info : perFishParams()) {
        const std::string control = "species[0]." + std::string(info->panel.label);
        const auto rect = panel_.controlRect(control);
        EXPECT_GT(rect[2], rect[0]) << info->key << " is not among the species' own values";
    }
    const PanelActions ticked = click("species[0].kCohesion.own");
    ASSERT_TRUE(ticked.newParams);
    const Species& sardine = ticked.newParams->species[0];
    ASSERT_EQ(sardine.settings.size(), 2u);
    EXPECT_EQ(sardine.settings[1].key, "kCohesion");
    EXPECT_EQ(sardine.settings[1].number, params_.kCohesion);  // from the value it had
    EXPECT_TRUE(validate(*ticked.newParams)) << validate(*ticked.newParams).error();

    for (int k = 0; k < 30; ++k) frame();
    const PanelActions dropped = click("species[0].bodyLength.own");
    ASSERT_TRUE(dropped.newParams);
    EXPECT_TRUE(dropped.newParams->species[0].settings.empty());
}

TEST_F(PanelInput, TheSpeciesMeasuresAreShownWhereTheSchoolHasSpecies) {
    ImGui::GetIO().DisplaySize = ImVec2(1280.0f, 3000.0f);
    params_ = mixedSchool();
    for (int k = 0; k < 5; ++k) frame();  // the panel takes its size
    EXPECT_GT(panel_.controlRect("species[1].name")[2], 0.0f);
    EXPECT_EQ(panel_.controlRect("species[1].measures")[2], 0.0f) << "measures before any came";
    state_.species = {{1800, 2.9}, {200, 5.7}};
    frame();
    EXPECT_GT(panel_.controlRect("species[1].measures")[2], 0.0f);
    EXPECT_EQ(panel_.view.coloring(params_), FishColor::Species);  // the default with species
    EXPECT_EQ(panel_.view.coloring(SimParams{}), FishColor::Speed);
    panel_.view.color = FishColor::Species;
    EXPECT_EQ(panel_.view.coloring(SimParams{}), FishColor::Speed) << "no species to colour by";
}

}  // namespace
}  // namespace fishschool::ui
