#include "ScreenLayout.h"

#include <cmath>
#include <cstddef>

namespace fishschool::app {
namespace {

/// `polygon` cut to the half-plane where `inside` holds (Sutherland-Hodgman, one edge).
template <class Inside, class Cross>
std::vector<glm::vec2> clipEdge(const std::vector<glm::vec2>& polygon, Inside inside, Cross cross) {
    std::vector<glm::vec2> out;
    for (std::size_t k = 0; k < polygon.size(); ++k) {
        const glm::vec2 a = polygon[k], b = polygon[(k + 1) % polygon.size()];
        const bool inA = inside(a), inB = inside(b);
        if (inA) out.push_back(a);
        if (inA != inB) out.push_back(cross(a, b));
    }
    return out;
}

/// The area of convex `polygon` inside `rect`.
float areaInside(std::span<const glm::vec2> polygon, const ScreenRect& rect) {
    if (rect.empty()) return 0.0f;
    std::vector<glm::vec2> p(polygon.begin(), polygon.end());
    const auto atX = [](float x) {
        return [x](glm::vec2 a, glm::vec2 b) {
            return glm::vec2(x, a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x));
        };
    };
    const auto atY = [](float y) {
        return [y](glm::vec2 a, glm::vec2 b) {
            return glm::vec2(a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y), y);
        };
    };
    p = clipEdge(
        p, [&](glm::vec2 v) { return v.x >= rect.x0; }, atX(rect.x0));
    p = clipEdge(
        p, [&](glm::vec2 v) { return v.x <= rect.x1; }, atX(rect.x1));
    p = clipEdge(
        p, [&](glm::vec2 v) { return v.y >= rect.y0; }, atY(rect.y0));
    p = clipEdge(
        p, [&](glm::vec2 v) { return v.y <= rect.y1; }, atY(rect.y1));
    return p.size() < 3 ? 0.0f : polygonArea(p);
}

ScreenRect intersect(const ScreenRect& a, const ScreenRect& b) {
    return {std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1), std::min(a.y1, b.y1)};
}

float cross(glm::vec2 o, glm::vec2 a, glm::vec2 b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

}  // namespace

ScreenRect besideThePanel(const ScreenRect& window, float panelRight) {
    ScreenRect free = window;
    free.x0 = std::max(window.x0, panelRight);
    return free.width() < 0.25f * window.width() ? window : free;
}

ScreenRect overlayRectAt(const ScreenRect& free, Corner corner, glm::vec2 size) {
    const float x0 = atRight(corner) ? free.x1 - kLayoutMargin - size.x : free.x0 + kLayoutMargin;
    const float y0 = atTop(corner) ? free.y0 + kLayoutMargin : free.y1 - kLayoutMargin - size.y;
    return {x0, y0, x0 + size.x, y0 + size.y};
}

float framedSize(const ScreenRect& region) {
    return std::min(region.height(), region.width() / kNarrowFraming);
}

ScreenRect framingRegion(const ScreenRect& free, const ScreenRect& overlay) {
    if (overlay.empty()) return free;
    // The overlay sits in a corner: leave out the rows it spans, or the columns.
    ScreenRect band = free, column = free;
    if (overlay.centre().y < free.centre().y)
        band.y0 = std::min(overlay.y1 + kLayoutMargin, free.y1);
    else
        band.y1 = std::max(overlay.y0 - kLayoutMargin, free.y0);
    if (overlay.centre().x > free.centre().x)
        column.x1 = std::max(overlay.x0 - kLayoutMargin, free.x0);
    else
        column.x0 = std::min(overlay.x1 + kLayoutMargin, free.x1);
    const ScreenRect& best = framedSize(band) >= framedSize(column) ? band : column;
    // A large overlay (its details) would leave the tank small: it is framed behind it then,
    // in the corner that hides the least.
    return framedSize(best) >= kKeptSize * framedSize(free) ? best : free;
}

std::vector<glm::vec2> convexHull(std::vector<glm::vec2> points) {
    // Andrew's monotone chain.
    std::sort(points.begin(), points.end(),
              [](glm::vec2 a, glm::vec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
    if (points.size() < 3) return points;
    std::vector<glm::vec2> hull(2 * points.size());
    std::size_t k = 0;
    for (const glm::vec2 p : points) {
        while (k >= 2 && cross(hull[k - 2], hull[k - 1], p) <= 0.0f) --k;
        hull[k++] = p;
    }
    for (std::size_t i = points.size() - 1, lower = k + 1; i-- > 0;) {
        while (k >= lower && cross(hull[k - 2], hull[k - 1], points[i]) <= 0.0f) --k;
        hull[k++] = points[i];
    }
    hull.resize(k - 1);
    return hull;
}

float polygonArea(std::span<const glm::vec2> polygon) {
    float twice = 0.0f;
    for (std::size_t k = 0; k < polygon.size(); ++k) {
        const glm::vec2 a = polygon[k], b = polygon[(k + 1) % polygon.size()];
        twice += a.x * b.y - b.x * a.y;
    }
    return 0.5f * std::abs(twice);
}

double coveredShare(std::span<const glm::vec2> polygon, std::span<const ScreenRect> covers) {
    const double total = polygonArea(polygon);
    if (total <= 0.0 || covers.empty()) return 0.0;
    const std::size_t n = std::min<std::size_t>(covers.size(), 8);
    // The union's share by inclusion and exclusion: the intersection of rectangles is one.
    double covered = 0.0;
    for (std::size_t subset = 1; subset < (std::size_t{1} << n); ++subset) {
        ScreenRect common{-1e30f, -1e30f, 1e30f, 1e30f};
        int members = 0;
        for (std::size_t k = 0; k < n; ++k)
            if (subset >> k & 1) {
                common = intersect(common, covers[k]);
                ++members;
            }
        const double area = areaInside(polygon, common);
        covered += members % 2 == 1 ? area : -area;
    }
    return std::clamp(covered / total, 0.0, 1.0);
}

Corner leastCoveringCorner(std::span<const glm::vec2> tank, const ScreenRect& free, glm::vec2 size,
                           Corner current) {
    const auto cost = [&](Corner corner) {
        const ScreenRect at = overlayRectAt(free, corner, size);
        return coveredShare(tank, std::span<const ScreenRect>(&at, 1));
    };
    Corner best = current;
    double bestCost = cost(current);
    const double keep = bestCost;
    for (const Corner corner : kCorners) {
        const double c = cost(corner);
        if (c < bestCost - 1e-9 && c < keep - 0.01) {
            best = corner;
            bestCost = c;
        }
    }
    return best;
}

}  // namespace fishschool::app
