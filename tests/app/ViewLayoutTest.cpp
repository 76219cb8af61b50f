// How much of the tank the panel and the overlay hide from a new user: the default school at the
// window sizes of a small window, a laptop and a large screen. The panel and the overlay are laid
// out in-process with the app's default font and style (as XInputTest's twin, whose rectangles are
// checked against the app's screen there), the tank framed by the app's own layout (layOutView,
// frameIn) and projected by the camera the renderer draws with.
//
// Before the compact overlay, the full one at the top right hid 39% of the tank's picture at
// 800 x 600 and 12.5% at 1280 x 720.

#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/ViewLayout.h"
#include "app_model/FpsRecorder.h"
#include "app_model/ScreenLayout.h"
#include "render/Camera.h"
#include "ui/Panel.h"

namespace fishschool::app {
namespace {

struct Measured {
    double covered = 0.0;    ///< share of the tank's picture under the panel or the overlay
    double tankShare = 0.0;  ///< the picture's area over the window's
    bool inWindow = false;   ///< every corner of the tank inside the window
    ScreenRect panel, overlay;
    Corner corner = Corner::TopRight;
};

/// The app's first frames at `width` x `height`: the default school on llvmpipe, as measured
/// there, with the overlay's details shown or not.
Measured measure(int width, int height, bool details) {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
    io.DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);

    const SimParams params;
    ui::Panel panel;
    ui::FpsRecorder recorder;
    panel.view.overlayDetails = details;
    ui::PanelState state;
    state.params = &params;
    state.fishCount = static_cast<std::size_t>(params.fishCount);
    state.backendDescription = "tbb, 2 threads";
    state.fps = 29.6;
    state.frameMs = 33.79;
    state.simulationMs = 12.31;
    state.renderMs = 14.35;
    state.renderOnGpu = true;
    state.fishPerLevel = ui::FishPerLevel{887, 1113, 0};
    state.triangles = 70'000;
    const std::vector<float> history(240, 33.8f);
    state.frameHistoryMs = history;
    state.simulatedSeconds = 3.9;
    state.realSpeed = 0.29;
    state.behind = true;
    state.notices = {
        "software GL (llvmpipe (LLVM 15.0.6, 256 bits)): multisampling off for speed; --msaa 4 "
        "turns it on"};
    SchoolMetrics metrics;
    metrics.polarization = 0.54;
    metrics.groups = 1.0;
    metrics.largestGroupShare = 1.0;
    state.metrics = &metrics;

    // The app's loop: the panel draws, then the view is laid out for the next frame.
    const ScreenRect window{0.0f, 0.0f, static_cast<float>(width), static_cast<float>(height)};
    Measured m;
    ViewLayout layout;
    for (int frame = 0; frame < 6; ++frame) {
        state.overlayCorner = m.corner;
        ImGui::NewFrame();
        panel.draw(state, recorder);
        ImGui::Render();
        const ScreenRect overlay = panel.overlayRect();
        layout = layOutView(window, panel.coveredLeft(),
                            glm::vec2(overlay.width(), overlay.height()), m.corner, params);
        m.corner = layout.overlayCorner;
    }
    const auto panelRect = panel.controlRect("FishSchool");
    m.panel = {panelRect[0], panelRect[1], panelRect[2], panelRect[3]};
    m.overlay = panel.overlayRect();
    ImGui::DestroyContext();

    // As the app starts, and as C frames it.
    render::OrbitCamera camera;
    frameIn(camera, layout, window);
    camera.reset(params.bounds, params.dimensions == 2);
    const std::vector<glm::vec2> tank = tankPicture(camera, params, layout, window);
    const ScreenRect covers[] = {m.panel, m.overlay};
    m.covered = coveredShare(tank, covers);
    m.tankShare = polygonArea(tank) / (window.width() * window.height());
    m.inWindow = std::ranges::all_of(tank, [&](glm::vec2 p) {
        return p.x >= window.x0 && p.x <= window.x1 && p.y >= window.y0 && p.y <= window.y1;
    });
    return m;
}

constexpr std::pair<int, int> kSizes[] = {{800, 600}, {1280, 720}, {1920, 1080}};

TEST(ViewLayout, ThePanelAndTheOverlayHideLittleOfTheTank) {
    for (const auto& [width, height] : kSizes) {
        const Measured m = measure(width, height, false);
        std::printf(
            "%d x %d: the panel and the compact overlay cover %.1f%% of the tank; the "
            "tank takes %.0f%% of the window\n",
            width, height, 100.0 * m.covered, 100.0 * m.tankShare);
        EXPECT_LE(m.covered, 0.02) << width << " x " << height;
        EXPECT_TRUE(m.inWindow) << width << " x " << height << ": the tank is cut off";
        // Not by drawing the tank small: it keeps a good part of the window.
        EXPECT_GE(m.tankShare, 0.15) << width << " x " << height;
        EXPECT_FALSE(m.overlay.empty());
        EXPECT_GE(m.overlay.x0, m.panel.x1) << "the overlay lies under the panel";
    }
}

TEST(ViewLayout, WithItsDetailsTheOverlayStillHidesNoneOfTheTank) {
    // The tank is framed smaller beside the taller overlay, but whole and in view.
    for (const auto& [width, height] : kSizes) {
        const Measured m = measure(width, height, true);
        std::printf(
            "%d x %d: with the overlay's details %.1f%% covered, the tank %.0f%% of the "
            "window\n",
            width, height, 100.0 * m.covered, 100.0 * m.tankShare);
        EXPECT_LE(m.covered, 0.02) << width << " x " << height;
        EXPECT_TRUE(m.inWindow) << width << " x " << height << ": the tank is cut off";
        EXPECT_GE(m.tankShare, 0.05) << width << " x " << height;
    }
}

TEST(ViewLayout, TheOverlayTakesTheCornerThatHidesTheLeast) {
    // A tank drawn wide at the bottom and narrow at the top leaves the top corners clear.
    const ScreenRect free{300.0f, 0.0f, 1280.0f, 720.0f};
    const std::vector<glm::vec2> tank =
        convexHull({{350.0f, 700.0f}, {1250.0f, 700.0f}, {800.0f, 20.0f}});
    const glm::vec2 overlay(300.0f, 120.0f);
    EXPECT_EQ(leastCoveringCorner(tank, free, overlay, Corner::BottomRight), Corner::TopRight);
    EXPECT_EQ(leastCoveringCorner(tank, free, overlay, Corner::BottomLeft), Corner::TopRight);
    // As good as the best: it stays where it is rather than jump.
    EXPECT_EQ(leastCoveringCorner(tank, free, overlay, Corner::TopLeft), Corner::TopLeft);
}

}  // namespace
}  // namespace fishschool::app
