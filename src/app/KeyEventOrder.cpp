#include "KeyEventOrder.h"

#include <set>

namespace fishschool::app {

std::vector<SDL_Event> KeyEventOrder::frame(const std::vector<SDL_Event>& polled) {
    std::vector<SDL_Event> events;
    events.swap(heldBack_);
    events.insert(events.end(), polled.begin(), polled.end());

    std::vector<SDL_Event> now;
    std::set<SDL_Scancode> downThisFrame;
    Uint16 pressedWith = KMOD_NONE;
    for (const SDL_Event& event : events) {
        if (event.type == SDL_KEYUP && downThisFrame.count(event.key.keysym.scancode) != 0) {
            heldBack_.push_back(event);
            continue;
        }
        if (event.type == SDL_KEYDOWN) {
            downThisFrame.insert(event.key.keysym.scancode);
            pressedWith = event.key.keysym.mod;
        }
        now.push_back(event);
    }
    // A key seen down only because its release waits: seen with what it was pressed with, even if
    // the Ctrl is up again by now (released before or after it).
    modifiers_.reset();
    if (!heldBack_.empty()) modifiers_ = pressedWith;
    return now;
}

}  // namespace fishschool::app
