#pragma once

// Where things go in the window: the part the tank is framed in, beside the panel and away
// from the overlay, the corner the overlay takes, and how much of the tank's picture a rectangle
// covers. Plain geometry in window points (x right, y down), so the tests measure it without a
// window.

#include <glm/vec2.hpp>

#include <algorithm>
#include <span>
#include <vector>

namespace fishschool::app {

/// A rectangle of the window, [x0, x1) x [y0, y1).
struct ScreenRect {
    float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;
    float width() const { return std::max(x1 - x0, 0.0f); }
    float height() const { return std::max(y1 - y0, 0.0f); }
    bool empty() const { return width() <= 0.0f || height() <= 0.0f; }
    glm::vec2 centre() const { return {0.5f * (x0 + x1), 0.5f * (y0 + y1)}; }
    bool operator==(const ScreenRect&) const = default;
};

/// The corner of the tank's part of the window that the overlay sits in. On a tie the first in
/// this order wins: the top right is where users look for it.
enum class Corner { TopRight, BottomRight, TopLeft, BottomLeft };
inline constexpr Corner kCorners[] = {Corner::TopRight, Corner::BottomRight, Corner::TopLeft,
                                      Corner::BottomLeft};
inline bool atTop(Corner corner) {
    return corner == Corner::TopRight || corner == Corner::TopLeft;
}
inline bool atRight(Corner corner) {
    return corner == Corner::TopRight || corner == Corner::BottomRight;
}

/// The gap between the window's edges, the panel and the overlay, in points.
inline constexpr float kLayoutMargin = 10.0f;

/// The window less the panel's column (the panel covers [0, panelRight)): where the overlay and
/// the tank go. The whole window when the panel leaves less than a quarter of it.
ScreenRect besideThePanel(const ScreenRect& window, float panelRight);

/// Where an overlay of `size` sits in `free`'s `corner`, kLayoutMargin from its edges.
ScreenRect overlayRectAt(const ScreenRect& free, Corner corner, glm::vec2 size);

/// How large a tank framed in `region` is drawn, relative to the others: OrbitCamera::fit fits it
/// in the height, and in a region narrower than kNarrowFraming wide per unit high, in the width.
float framedSize(const ScreenRect& region);
inline constexpr float kNarrowFraming = 1.15f;  ///< OrbitCamera::fit's margin

/// The part of `free` the tank is framed in, the overlay at `overlay` (empty: none) left out:
/// `free` less the overlay's band across it (above or below) or its column (beside), whichever
/// frames the tank larger, as long as that keeps kKeptSize of the size `free` frames it at;
/// else `free` itself, the overlay over it.
ScreenRect framingRegion(const ScreenRect& free, const ScreenRect& overlay);
inline constexpr float kKeptSize = 0.5f;

/// The picture of a tank as a convex polygon: the hull of its corners on the screen.
std::vector<glm::vec2> convexHull(std::vector<glm::vec2> points);
/// The area of a convex polygon (either winding).
float polygonArea(std::span<const glm::vec2> polygon);
/// The share of convex `polygon`'s area that the union of `covers` covers, 0 to 1 (0 for a
/// polygon of no area). Exact: each rectangle's intersection with the polygon, by inclusion and
/// exclusion over the rectangles (at most 8).
double coveredShare(std::span<const glm::vec2> polygon, std::span<const ScreenRect> covers);

/// The corner of `free` where an overlay of `size` covers the least of the tank's picture
/// `tank`. The overlay stays at `current` unless another corner covers less by more than 1% of
/// the picture, so it does not jump between corners that cover about as much.
Corner leastCoveringCorner(std::span<const glm::vec2> tank, const ScreenRect& free, glm::vec2 size,
                           Corner current);

}  // namespace fishschool::app
