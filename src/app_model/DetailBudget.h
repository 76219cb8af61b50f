#pragma once

// On software GL (Mesa's llvmpipe) every triangle of a fish is drawn by the CPU, so a school
// whose fish are near enough for the full mesh drew slower than one ten times larger whose fish
// are specks. There the fish's level of detail follows the frame's budget: while drawing takes
// longer than it, a fish needs more pixels on screen for each finer mesh, and while it takes much
// less, fewer again, never finer than the renderer's own thresholds.

#include <array>

namespace fishschool::app {

class DetailBudget {
  public:
    /// The drawing time a frame may take, in ms: what leaves a 30 FPS frame room for the step.
    static constexpr double kBudgetMilliseconds = 20.0;
    /// Frames averaged between two changes: the GPU's timer comes back a few frames late.
    static constexpr int kFramesPerChange = 8;
    /// Each change multiplies or divides the thresholds by this.
    static constexpr float kStep = 1.25f;
    /// The coarsest: a fish then needs 64 times the renderer's pixels for each finer mesh.
    static constexpr float kMostScale = 64.0f;

    /// Adds a frame's drawing time (ms; ignored unless finite and >= 0) and returns the
    /// thresholds to draw the next frame with: `levels` (the renderer's own) times the scale.
    std::array<float, 2> add(double drawMilliseconds, const std::array<float, 2>& levels);
    /// 1: the renderer's own detail; more: coarser.
    float scale() const { return scale_; }

  private:
    float scale_ = 1.0f;
    double sum_ = 0.0;
    int frames_ = 0;
};

}  // namespace fishschool::app
