// The panel's replay: the timeline of a recorded trajectory, its buttons and speeds, the overlay's
// lines, and the files of trajectories (open a recording, record one).

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "Panel.h"
#include "io/TextInput.h"

namespace fishschool::ui {

void Panel::drawReplay(const PanelState::Replay& replay, PanelActions& actions) {
    ImGui::Separator();
    ImGui::Text("Replay of %s", replay.fileName.c_str());
    tip("A recorded trajectory: the school as the file holds it, frame by frame.");
    // The timeline: a frame a notch, dragged or clicked; the simulated time beside it.
    int frame = static_cast<int>(replay.frame);
    const int last = static_cast<int>(std::max<std::size_t>(replay.frameCount, 1) - 1);
    char format[64];
    std::snprintf(format, sizeof format, "frame %%d / %d", last);
    if (ImGui::SliderInt("timeline", &frame, 0, last, format, ImGuiSliderFlags_AlwaysClamp) &&
        frame != static_cast<int>(replay.frame))
        actions.replaySeek = static_cast<std::size_t>(frame);
    widgets_.noteRect("timeline");
    tip("Drag to any frame; Left and Right move one frame, Home and End to the ends.");
    ImGui::Text("t = %.3f s of %.3f s   step %lld", replay.seconds, replay.lastSeconds,
                static_cast<long long>(replay.step));

    if (ImGui::Button("|<")) actions.replaySeek = 0;
    tip("The first frame (Home).");
    ImGui::SameLine();
    if (ImGui::Button("<")) actions.replayStepFrames = -1;
    widgets_.noteRect("previous frame");
    tip("One frame back (Left).");
    ImGui::SameLine();
    if (ImGui::Button(replay.playing ? "Pause (Space)" : "Play (Space)"))
        actions.replayPlay = !replay.playing;
    widgets_.noteRect("play");
    tip("Play the frames at the speed's pace of simulated time; at the end it stops.");
    ImGui::SameLine();
    if (ImGui::Button(">")) actions.replayStepFrames = 1;
    widgets_.noteRect("next frame");
    tip("One frame on (Right).");
    ImGui::SameLine();
    if (ImGui::Button(">|")) actions.replaySeek = replay.frameCount - 1;
    tip("The last frame (End).");
    ImGui::SameLine();
    static constexpr double kSpeeds[] = {0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0};
    const auto speedText = [](double speed) {
        char text[16];
        if (speed < 1.0)
            std::snprintf(text, sizeof text, "x1/%g", 1.0 / speed);
        else
            std::snprintf(text, sizeof text, "x%g", speed);
        return std::string(text);
    };
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
    if (ImGui::BeginCombo("speed##replay", speedText(replay.speed).c_str())) {
        for (double speed : kSpeeds)
            if (ImGui::Selectable(speedText(speed).c_str(), replay.speed == speed))
                actions.replaySpeed = speed;
        ImGui::EndCombo();
    }
    tip("Simulated seconds per second of your time while playing ([ and ] step it).");

    if (ImGui::Button("Continue from here")) actions.continueFromReplay = true;
    widgets_.noteRect("Continue from here");
    tip("Start a live simulation from the frame shown, with the file's parameters at that frame, "
        "on the backend chosen above.");
    ImGui::SameLine();
    if (ImGui::Button("Close replay")) actions.closeReplay = true;
    widgets_.noteRect("Close replay");
    tip("Back to the live school, as it was.");
    ImGui::TextDisabled("%zu of %zu frames in memory (at most %zu)", replay.cachedFrames,
                        replay.frameCount, replay.cacheCapacity);
    tip("Frames are read from the file when shown and kept in a bounded cache, filled ahead of "
        "the playhead: a file larger than memory replays.");
    ImGui::Separator();
}

void Panel::drawTrajectoryFiles(const PanelState& state, PanelActions& actions) {
    pathFieldWithBrowse("recording", recordingPath_, sizeof recordingPath_, PathField::Recording,
                        app::FileKind::Trajectory, actions,
                        "A trajectory (H5MD, .h5), as fishschool-cli simulate --trajectory or "
                        "Record trajectory writes it. Type a path, or Browse.");
    if (ImGui::Button("Open recording")) actions.openRecordingPath = recordingPath_;
    widgets_.noteRect("Open recording");
    tip("Replay the file: a timeline to drag, play and pause, its measures.");
    if (state.replay) return;
    ImGui::InputText("trajectory", trajectoryPath_, sizeof trajectoryPath_);
    tip("Where Record trajectory writes the school (H5MD, docs/trajectories.md).");
    if (!state.recordingTrajectory) {
        if (ImGui::Button("Record trajectory"))
            actions.startTrajectory =
                PanelActions::TrajectoryRequest{trajectoryPath_, trajectoryEvery_};
        widgets_.noteRect("Record trajectory");
        tip("Record the school from now: a frame every N steps, the measures, and every "
            "change of parameters with its step. A new fish count or a fresh school ends it.");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
        if (auto typed = wholeNumberField("every N steps", trajectoryEveryText_,
                                          std::to_string(trajectoryEvery_))) {
            if (auto every = parseWholeNumber("every N steps", *typed, 1, 1'000'000))
                trajectoryEvery_ = *every;
            else
                error_ = every.error();
        }
        tip("A frame every this many steps (1 to 1000000).");
    } else {
        if (ImGui::Button("Stop trajectory")) actions.stopTrajectory = true;
        widgets_.noteRect("Stop trajectory");
        tip("Finish the file and write it.");
        ImGui::SameLine();
        ImGui::Text("%zu frames", state.recordingTrajectory->frames);
    }
}

void Panel::drawReplayOverlay(const PanelState::Replay& replay, bool details) {
    // Frames count from 0, as the timeline and --frame do.
    ImGui::TextColored(ImVec4(1.0f, 0.82f, 0.35f, 1.0f), "REPLAY  %s   frame %zu/%zu",
                       replay.fileName.c_str(), replay.frame,
                       std::max<std::size_t>(replay.frameCount, 1) - 1);
    if (!details) return;
    ImGui::Text("t = %.2f s   step %lld", replay.seconds, static_cast<long long>(replay.step));
    const double speed = replay.speed;
    char speedText[16];
    if (speed < 1.0)
        std::snprintf(speedText, sizeof speedText, "x1/%g", 1.0 / speed);
    else
        std::snprintf(speedText, sizeof speedText, "x%g", speed);
    ImGui::Text("%s %s   cached %zu/%zu frames", replay.playing ? "playing" : "paused", speedText,
                replay.cachedFrames, replay.cacheCapacity);
}

}  // namespace fishschool::ui
