#include "ViewLayout.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace fishschool::app {

ViewLayout layOutView(const ScreenRect& window, float panelRight, glm::vec2 overlaySize,
                      Corner currentCorner, const SimParams& shown) {
    ViewLayout layout;
    const ScreenRect free = besideThePanel(window, panelRight);
    layout.overlayCorner = currentCorner;
    layout.framing = free;
    layout.centreShift = free.centre() - window.centre();
    if (overlaySize.x <= 0.0f || overlaySize.y <= 0.0f) return layout;
    // The corner is chosen for the tank as C frames it beside the panel, not as the user turned
    // it: the overlay does not move while the camera does.
    render::OrbitCamera probe;
    frameIn(probe, layout, window);
    probe.reset(shown.bounds, shown.dimensions == 2);
    const std::vector<glm::vec2> tank = tankPicture(probe, shown, layout, window);
    layout.overlayCorner = leastCoveringCorner(tank, free, overlaySize, currentCorner);
    layout.framing = framingRegion(free, overlayRectAt(free, layout.overlayCorner, overlaySize));
    layout.centreShift = layout.framing.centre() - window.centre();
    return layout;
}

void frameIn(render::OrbitCamera& camera, const ViewLayout& layout, const ScreenRect& window) {
    const ScreenRect& framing = layout.framing;
    camera.setFraming(framing.width() / std::max(framing.height(), 1.0f),
                      framing.height() / std::max(window.height(), 1.0f));
}

std::vector<glm::vec2> tankPicture(const render::OrbitCamera& camera, const SimParams& shown,
                                   const ViewLayout& layout, const ScreenRect& window) {
    std::vector<glm::vec2> corners = render::boxCornersOnScreen(
        camera, shown.bounds, glm::vec2(window.width(), window.height()), layout.centreShift);
    for (glm::vec2& corner : corners) corner += glm::vec2(window.x0, window.y0);
    return convexHull(std::move(corners));
}

}  // namespace fishschool::app
