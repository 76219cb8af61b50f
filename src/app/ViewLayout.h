#pragma once

// Where the tank is framed in the window and where the overlay sits, from the panel's width and
// the overlay's size: the app lays out each frame with it, and the tests measure what it leaves
// of the tank in view.

#include <glm/vec2.hpp>

#include <vector>

#include "app_model/ScreenLayout.h"
#include "fishschool/SimParams.h"
#include "render/Camera.h"

namespace fishschool::app {

/// The view of one frame, in window points.
struct ViewLayout {
    /// The corner beside the panel where the overlay covers the least of the framed tank.
    Corner overlayCorner = Corner::TopRight;
    /// The part of the window the tank is framed in: beside the panel, clear of the overlay.
    ScreenRect framing;
    /// From the window's centre to the framing's: where the picture's centre moves.
    glm::vec2 centreShift{0.0f};
};

/// Lays out a `window` whose panel covers [0, panelRight) and whose overlay is `overlaySize`
/// (zero: hidden), showing `shown`'s tank. The overlay stays at `currentCorner` unless another
/// corner covers clearly less of the tank as the camera frames it from its usual angle.
ViewLayout layOutView(const ScreenRect& window, float panelRight, glm::vec2 overlaySize,
                      Corner currentCorner, const SimParams& shown);

/// Tells `camera` the part of `window` to frame the tank in.
void frameIn(render::OrbitCamera& camera, const ViewLayout& layout, const ScreenRect& window);

/// The picture of `shown`'s tank as `camera` draws it in `window` under `layout`: the hull of
/// its corners, in window points.
std::vector<glm::vec2> tankPicture(const render::OrbitCamera& camera, const SimParams& shown,
                                   const ViewLayout& layout, const ScreenRect& window);

}  // namespace fishschool::app
