// The order in which a frame's key events reach ImGui 1.86: every press seen down for a frame,
// with the modifiers it was made with.

#include <gtest/gtest.h>

#include <vector>

#include "app/KeyEventOrder.h"

namespace fishschool::app {
namespace {

SDL_Event key(Uint32 type, SDL_Scancode code, Uint16 modifiers = KMOD_NONE) {
    SDL_Event event{};
    event.type = type;
    event.key.keysym.scancode = code;
    event.key.keysym.mod = modifiers;
    return event;
}
SDL_Event down(SDL_Scancode code, Uint16 modifiers = KMOD_NONE) {
    return key(SDL_KEYDOWN, code, modifiers);
}
SDL_Event up(SDL_Scancode code, Uint16 modifiers = KMOD_NONE) {
    return key(SDL_KEYUP, code, modifiers);
}
SDL_Event text(char c) {
    SDL_Event event{};
    event.type = SDL_TEXTINPUT;
    event.text.text[0] = c;
    return event;
}
SDL_Event mouse() {
    SDL_Event event{};
    event.type = SDL_MOUSEMOTION;
    return event;
}

/// "v+" for a key down, "v-" for up, "t1" for a text event, "m" for a mouse event.
std::vector<std::string> names(const std::vector<SDL_Event>& events) {
    std::vector<std::string> out;
    for (const SDL_Event& e : events) {
        if (e.type == SDL_TEXTINPUT) {
            out.push_back(std::string("t") + e.text.text[0]);
        } else if (e.type == SDL_MOUSEMOTION) {
            out.push_back("m");
        } else {
            const char* name = SDL_GetScancodeName(e.key.keysym.scancode);
            out.push_back(std::string(name) + (e.type == SDL_KEYDOWN ? "+" : "-"));
        }
    }
    return out;
}

using Names = std::vector<std::string>;

TEST(KeyEventOrder, APressAndReleaseInOneFrameIsSeenDownForAFrame) {
    KeyEventOrder order;
    EXPECT_EQ(names(order.frame({down(SDL_SCANCODE_RETURN), up(SDL_SCANCODE_RETURN)})),
              Names{"Return+"});
    EXPECT_EQ(names(order.frame({})), Names{"Return-"});
    EXPECT_EQ(names(order.frame({})), Names{});
}

TEST(KeyEventOrder, AQuickCtrlAKeepsItsCtrl) {
    KeyEventOrder order;
    const std::vector<SDL_Event> quick = {
        down(SDL_SCANCODE_LCTRL, KMOD_LCTRL), down(SDL_SCANCODE_A, KMOD_LCTRL),
        up(SDL_SCANCODE_A, KMOD_LCTRL), up(SDL_SCANCODE_LCTRL, KMOD_NONE)};
    EXPECT_EQ(names(order.frame(quick)), (Names{"Left Ctrl+", "A+"}));
    ASSERT_TRUE(order.modifiers());
    EXPECT_TRUE(*order.modifiers() & KMOD_CTRL) << "the A must be seen with its Ctrl";
    EXPECT_EQ(names(order.frame({})), (Names{"A-", "Left Ctrl-"}));
    EXPECT_FALSE(order.modifiers()) << "nothing held back: SDL's state is right";
}

TEST(KeyEventOrder, ACtrlReleasedBeforeTheAStillCounts) {
    // xdotool's "key ctrl+a" lets go of the Ctrl first.
    KeyEventOrder order;
    EXPECT_EQ(
        names(order.frame({down(SDL_SCANCODE_LCTRL, KMOD_LCTRL), down(SDL_SCANCODE_A, KMOD_LCTRL),
                           up(SDL_SCANCODE_LCTRL), up(SDL_SCANCODE_A)})),
        (Names{"Left Ctrl+", "A+"}));
    ASSERT_TRUE(order.modifiers());
    EXPECT_TRUE(*order.modifiers() & KMOD_CTRL);
    EXPECT_EQ(names(order.frame({})), (Names{"Left Ctrl-", "A-"}));
    EXPECT_FALSE(order.modifiers());
}

TEST(KeyEventOrder, ACtrlReleasedBeforeTheHeldBackAStillCounts) {
    // Ctrl went down a frame before; the A's press and release and the Ctrl's release come in one
    // frame. The Ctrl is up by the time ImGui looks, but the A was pressed with it.
    KeyEventOrder order;
    EXPECT_EQ(names(order.frame({down(SDL_SCANCODE_LCTRL, KMOD_LCTRL)})), Names{"Left Ctrl+"});
    EXPECT_FALSE(order.modifiers());
    EXPECT_EQ(names(order.frame({down(SDL_SCANCODE_A, KMOD_LCTRL), up(SDL_SCANCODE_A, KMOD_LCTRL),
                                 up(SDL_SCANCODE_LCTRL)})),
              (Names{"A+", "Left Ctrl-"}));
    ASSERT_TRUE(order.modifiers());
    EXPECT_TRUE(*order.modifiers() & KMOD_CTRL);
    EXPECT_EQ(names(order.frame({})), Names{"A-"});
    EXPECT_FALSE(order.modifiers());
}

TEST(KeyEventOrder, TextAndOtherEventsNeverWait) {
    // Fast typing: each key's release waits, its text does not.
    KeyEventOrder order;
    EXPECT_EQ(names(order.frame({down(SDL_SCANCODE_1), text('1'), up(SDL_SCANCODE_1),
                                 down(SDL_SCANCODE_2), text('2'), up(SDL_SCANCODE_2), mouse()})),
              (Names{"1+", "t1", "2+", "t2", "m"}));
    EXPECT_EQ(names(order.frame({down(SDL_SCANCODE_3), text('3')})),
              (Names{"1-", "2-", "3+", "t3"}));
    EXPECT_EQ(names(order.frame({up(SDL_SCANCODE_3)})), Names{"3-"});
}

TEST(KeyEventOrder, KeysHeldOverFramesPassAtOnce) {
    KeyEventOrder order;
    EXPECT_EQ(names(order.frame({down(SDL_SCANCODE_LSHIFT, KMOD_LSHIFT)})), Names{"Left Shift+"});
    EXPECT_EQ(names(order.frame({text('X')})), Names{"tX"});
    EXPECT_EQ(names(order.frame({up(SDL_SCANCODE_LSHIFT)})), Names{"Left Shift-"});
    EXPECT_FALSE(order.modifiers());
}

}  // namespace
}  // namespace fishschool::app
