#pragma once

#include <SDL.h>

#include <optional>
#include <vector>

namespace fishschool::app {

/// Orders a frame's SDL events for Dear ImGui 1.86, which sees a key as down or up once a frame:
/// a key pressed and released within one frame would never be seen down (a quick Enter in a text
/// field lost), and ImGui's SDL backend takes the modifiers from SDL's state once every event is
/// in (a quick Ctrl+A would lose its Ctrl).
///
/// The release of a key pressed in the same frame waits for the next frame; every other event,
/// text included, is handled at once, so that typing never lags behind.
class KeyEventOrder {
  public:
    /// The events to handle this frame, in order: the releases held back last frame, then
    /// `polled` less the releases held back now.
    std::vector<SDL_Event> frame(const std::vector<SDL_Event>& polled);
    /// While a release is held back, the modifiers (KMOD_*) the frame's last press was made with:
    /// the frame's Ctrl, Shift, Alt and Super for ImGui. Nothing otherwise (SDL's state is right).
    std::optional<Uint16> modifiers() const { return modifiers_; }

  private:
    std::vector<SDL_Event> heldBack_;
    std::optional<Uint16> modifiers_;
};

}  // namespace fishschool::app
