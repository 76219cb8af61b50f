#include "App.h"

#include <SDL.h>
#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_impl_sdl.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "KeyEventOrder.h"
#include "Replay.h"
#include "Screenshot.h"
#include "SimulatedRate.h"
#include "SimulationController.h"
#include "SpeciesMeasures.h"
#include "SweepDriver.h"
#include "TrajectoryRecording.h"
#include "VideoRecorder.h"
#include "ViewLayout.h"
#include "app_model/DetailBudget.h"
#include "app_model/FolderListing.h"
#include "app_model/FpsRecorder.h"
#include "app_model/ParamHistory.h"
#include "app_model/Presets.h"
#include "backends/BackendRegistry.h"
#include "core/Messages.h"
#include "fishschool/Trajectory.h"
#include "gpu/GlObjects.h"
#include "gpu/GpuTimer.h"
#include "io/ConfigIO.h"
#include "io/ExitStatus.h"
#include "io/OutputFiles.h"
#include "io/StateIO.h"
#include "io/TextInput.h"
#include "io/Trajectory.h"
#include "render/SceneRenderer.h"
#include "ui/Panel.h"

namespace fishschool::app {
namespace {

double seconds() {
    using Clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

/// SDL with a GL 4.5 core window; torn down in reverse.
struct Window {
    SDL_Window* window = nullptr;
    SDL_GLContext context = nullptr;
    ~Window() {
        if (context) SDL_GL_DeleteContext(context);
        if (window) SDL_DestroyWindow(window);
        SDL_Quit();
    }
};

/// fishschool-YYYYMMDD-HHMMSS.png in the working folder, with -2, -3... when taken in the same
/// second, so no screenshot overwrites another.
std::string timestampedScreenshotName() {
    char stem[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(stem, sizeof stem, "fishschool-%Y%m%d-%H%M%S", std::localtime(&now));
    std::string name = std::string(stem) + ".png";
    for (int n = 2; std::filesystem::exists(name); ++n)
        name = std::string(stem) + "-" + std::to_string(n) + ".png";
    return name;
}

render::FishColoring fishColoring(ui::FishColor color) {
    switch (color) {
        case ui::FishColor::Heading:
            return render::FishColoring::ByHeading;
        case ui::FishColor::Species:
            return render::FishColoring::BySpecies;
        case ui::FishColor::Speed:
            break;
    }
    return render::FishColoring::BySpeed;
}

class App {
  public:
    App(const AppOptions& options, Window& window, std::unique_ptr<SimulationController> sim,
        render::SceneRenderer renderer, std::unique_ptr<Replay> replay)
        : options_(options),
          window_(window),
          sim_(std::move(sim)),
          renderer_(std::move(renderer)),
          history_(sim_->params()) {
        if (replay) showReplay(std::move(replay));
        frameTank(shownParams());
        panel_.view.vsync = options.vsync;
        if (options.color)
            for (std::size_t k = 0; k < std::size(ui::kFishColorNames); ++k)
                if (*options.color == ui::kFishColorNames[k])
                    panel_.view.color = static_cast<ui::FishColor>(k);
        if (options.follow)
            panel_.view.follow = *options.follow == "group" ? ui::CameraFollow::LargestGroup
                                                            : ui::CameraFollow::School;
        panel_.view.showPanel = panel_.view.showOverlay = !options.hideUi;
        // The preset box names the config the app started from, or the trajectory whose
        // frame's parameters it runs.
        if (options.params.configPath)
            panel_.followSource(
                std::filesystem::path(*options.params.configPath).filename().string());
        else if (!options.stateInPath.empty())
            panel_.followSource(isHdf5File(options.stateInPath)
                                    ? std::filesystem::path(options.stateInPath).filename().string()
                                    : "custom");
        sweep_.printProgress = !options.sweepFish.empty();
        const char* glRenderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
        if (glRenderer != nullptr && isSoftwareRenderer(glRenderer)) detailBudget_.emplace();
        if (!options.sweepFish.empty()) {
            sweep_.recorder().measureSeconds = options.sweepSeconds;
            sweep_.warmupSteps = options.sweepWarmupSteps;
        }
    }

    /// The frame loop, in the order of Dear ImGui's example: events, the panel, the
    /// simulation, drawing, presenting. Returns the exit status.
    int run();
    /// A line the overlay shows for the whole run, e.g. why a lighter default was chosen.
    void addNotice(std::string notice) { notices_.push_back(std::move(notice)); }

  private:
    /// The wall time since the last frame, s; keeps the frame-time history.
    double tick();
    void processEvents();
    void handleEvent(const SDL_Event& event);
    /// The keys that change only the view (camera, help, panel, screenshot, Esc); false for
    /// the others.
    bool handleViewKey(const SDL_Keysym& key);
    /// Moves the camera to frame the tank of `params` from the default angle, or from above for
    /// a flat school, and remembers the tank and dimensions it framed.
    void frameTank(const SimParams& params);
    /// What the other keys ask of the simulation, as the panel's buttons do.
    ui::PanelActions keyActions(const SDL_Keysym& key) const;
    void handleMouseMotion(const SDL_MouseMotionEvent& motion);
    /// Shows the panel and carries out what the user asked in it.
    void runUi(double frameSeconds);
    ui::PanelState panelState(double frameSeconds);
    /// Advances the school by the frame's time; false when the backend failed.
    bool simulate(double frameSeconds);
    /// Hands the frame's costs to the sweep, which may set the next case's scene.
    void driveSweep(double frameSeconds);
    /// The scene and the panel, timed on the GPU.
    void render();
    /// Screenshot, video frame and swap; false on a GL error.
    bool present();
    /// --switch-every: hands the school to the next backend this machine runs.
    void switchToNextBackend(std::int64_t frame);
    /// Writes what the options ask for at the end (sweep CSV, state); returns the exit status.
    int finish();
    /// Carries out what the panel asked.
    void apply(const ui::PanelActions& actions);
    /// The FPS recorder's part of it: record, sweep, cancel, export, clear.
    void applyRecorder(const ui::PanelActions& actions);
    /// Esc or the window's close: quits, or first asks when parameters changed since they
    /// were last saved or loaded and quitting would lose them.
    void requestQuit();
    bool quitNeedsAsking() const;
    /// Undo (true) or Redo (false) of the parameters, from the history.
    void undoOrRedo(bool undo);
    /// Notes the parameters in force in the history when they changed (a slider, a preset, a
    /// loaded config, a fish count); not while a sweep or a replay holds the school.
    void noteParamChange();
    /// Ends the trajectory being recorded when a change to `count` fish would resize it.
    void endTrajectoryFor(std::int64_t count);
    void report(const Result<void>& result) {
        if (result)
            panel_.clearError();
        else
            panel_.showError(result.error());
    }
    render::FishSource fishSource();
    /// Measures each species of `school` (its fish, their mean speed) for the panel when the last
    /// measure is `every` seconds old, or of other species, or the school is paused.
    void measureSpeciesOf(std::span<const Fish> school, const SimParams& params, double every);
    /// The parameters of the school shown: the replay's at its frame, or the live school's.
    SimParams shownParams();
    /// Shows `replay` in place of the live school, which waits as it is.
    void showReplay(std::unique_ptr<Replay> replay);
    /// A replay's part of what the panel asked: open, seek, play, speed, continue, close.
    void applyReplay(const ui::PanelActions& actions);
    /// The keys of a replay: Space, Left, Right, Home, End, [ and ].
    ui::PanelActions replayKeyActions(const SDL_Keysym& key) const;
    /// Starts recording the live school to a trajectory; errors go to the panel.
    Result<void> startTrajectory(const std::string& path, std::string flag, std::int64_t every);
    /// Ends the trajectory being recorded and writes it into place; false when it failed.
    bool stopTrajectory(const std::string& why);
    /// Records what the frame changed (parameters, a new school) in the trajectory.
    void followTrajectory();

    const AppOptions& options_;
    Window& window_;
    std::unique_ptr<SimulationController> sim_;
    render::SceneRenderer renderer_;
    /// The renderer's own thresholds of detail, and on software GL the budget that scales them.
    const std::array<float, 2> ownLevelPixels_ = renderer_.levelPixels;
    std::optional<app::DetailBudget> detailBudget_;
    /// The parameters gone through, for Undo and Redo, and those last saved or loaded.
    app::ParamHistory history_;
    bool askingToQuit_ = false;  ///< the quit dialog is up
    /// The folder the file browser shows; none while it is closed.
    std::optional<ui::PanelState::Browser> browser_;
    render::OrbitCamera camera_;
    ui::Panel panel_;
    SweepDriver sweep_;
    bool quit_ = false;
    int status_ = 0;
    bool screenshotRequested_ = false;
    std::optional<std::string> finalScreenshot_;  ///< --screenshot's PNG, written by finish()
    std::uint64_t plottedMeasures_ = 0;
    VideoRecorder video_;
    struct VideoRequest {
        std::string path;
        const char* flag;  ///< "--record", or "video" from the panel
        bool clean = false;
    };
    /// The video being recorded shows the scene alone (--record-clean, "scene only"): it is
    /// read back before the panel and the overlay are drawn, and the tank is framed in the
    /// whole window.
    bool videoClean_ = false;
    bool recordingClean() const {
        return video_.recording() ? videoClean_ : videoToStart_ && videoToStart_->clean;
    }
    /// Starts the video asked for, from the frame being drawn.
    void startRequestedVideo();
    /// Frames the tank beside the panel and clear of the overlay, whose corner it picks.
    void layOutView(float pixelScale);
    app::Corner overlayCorner_ = app::Corner::TopRight;
    std::optional<VideoRequest> videoToStart_;  ///< started once a frame's size is known
    /// Writes the video into place now (the panel's Stop video); false when it failed.
    bool stopVideo();
    /// Says that the video was written, on stderr and in a notice.
    void reportVideo(long long frames);
    std::deque<float> frameHistory_;
    double startSeconds_ = 0.0, lastSeconds_ = 0.0;
    std::int64_t frame_ = 0;
    bool vsync_ = false;
    int width_ = 0, height_ = 0;  ///< the drawable's size this frame
    double simulationMs_ = 0.0;
    double renderMs_ = 0.0;   ///< the CPU's time issuing the last frame's drawing
    double measureMs_ = 0.0;  ///< the frame's share of the measures, last frame
    /// GPU time of the scene and the panel, from timer queries a few frames late.
    gpu::GpuTimer renderTimer_;
    std::optional<double> gpuRenderMs_;
    bool gpuRenderMsNew_ = false;  ///< a time came back this frame
    /// Key events in an order ImGui 1.86 sees every press and its modifiers in.
    KeyEventOrder keyEventOrder_;
    std::optional<render::FishSource> uploaded_;
    std::uint64_t uploadedVersion_ = 0;
    /// The tank the camera was last fitted to: a new tank (a slider, a preset, a fish count at
    /// fixed density, a sweep's case) moves the camera back to frame it.
    glm::vec3 cameraBounds_{};
    /// A flat school (2D) is framed from above: when the dimensions change, the camera too.
    std::int64_t cameraDimensions_ = 3;
    /// Where a camera that follows the school looks (View's "camera follows"), from the latest
    /// measures; nullopt when it does not follow or nothing is measured yet.
    std::optional<glm::vec3> followPoint_;
    double followedAt_ = 0.0;  ///< wall seconds of the last follow step
    /// The mean neighbours of a measure taken last frame, and the fish count it measured, for
    /// the recorder's next sample.
    std::optional<std::pair<std::int64_t, double>> newNeighbors_;
    /// The replay shown instead of the live school, its measures as the plots take them, and
    /// the frame last uploaded for drawing.
    std::unique_ptr<Replay> replay_;
    std::vector<ui::TimedMeasure> replayMeasures_;
    std::shared_ptr<const School> replaySchool_;
    std::uint64_t replayUploadedVersion_ = 0;
    std::optional<SimParams> replayParams_;
    /// The trajectory being recorded (after sim_, so it ends before the school it observes).
    std::unique_ptr<TrajectoryRecording> trajectory_;
    std::vector<std::string> notices_;
    /// The mouse's position in the window as its last motion event gave it.
    std::optional<ImVec2> mousePosition_;
    /// The real rate of simulated time, and the speed asked for while it was measured.
    SimulatedRate simulatedRate_;
    std::optional<std::pair<double, bool>> rateAsked_;
    /// Each species' fish and mean speed, from a copy of the school the frame has (the CPU
    /// backends' drawn copy), and when they were measured.
    std::vector<ui::SpeciesMeasure> speciesMeasures_;
    double speciesMeasuredAt_ = -1e9;
    std::uint64_t speciesMeasuredVersion_ = 0;  ///< the gpu backend's school measured last
};

void App::handleEvent(const SDL_Event& event) {
    ImGui_ImplSDL2_ProcessEvent(&event);
    const ImGuiIO& io = ImGui::GetIO();
    switch (event.type) {
        case SDL_QUIT:
            requestQuit();
            break;
        case SDL_KEYDOWN:
            // The quit dialog holds the keyboard (ImGui's modal), but for Esc, which stays.
            if (askingToQuit_ && event.key.keysym.sym == SDLK_ESCAPE && !event.key.repeat) {
                askingToQuit_ = false;
                break;
            }
            // A held key repeats only where repeating means something: N steps on, Left and
            // Right move through a replay.
            if (io.WantCaptureKeyboard || (event.key.repeat && event.key.keysym.sym != SDLK_n &&
                                           !(replay_ && (event.key.keysym.sym == SDLK_LEFT ||
                                                         event.key.keysym.sym == SDLK_RIGHT))))
                break;
            if (!handleViewKey(event.key.keysym))
                apply(replay_ ? replayKeyActions(event.key.keysym) : keyActions(event.key.keysym));
            break;
        case SDL_MOUSEMOTION:
            mousePosition_ = {static_cast<float>(event.motion.x),
                              static_cast<float>(event.motion.y)};
            if (!io.WantCaptureMouse) handleMouseMotion(event.motion);
            break;
        case SDL_MOUSEWHEEL:
            if (!io.WantCaptureMouse) camera_.zoom(static_cast<float>(event.wheel.y));
            break;
        default:
            break;
    }
}

void App::frameTank(const SimParams& params) {
    camera_.reset(params.bounds, params.dimensions == 2);
    cameraBounds_ = params.bounds;
    cameraDimensions_ = params.dimensions;
}

bool App::handleViewKey(const SDL_Keysym& key) {
    switch (key.sym) {
        case SDLK_c:
            frameTank(shownParams());
            return true;
        case SDLK_g: {
            auto& follow = panel_.view.follow;
            follow = static_cast<ui::CameraFollow>((static_cast<int>(follow) + 1) %
                                                   std::ssize(ui::kCameraFollowNames));
            if (follow != ui::CameraFollow::Off) panel_.view.measureSchool = true;
            return true;
        }
        case SDLK_F1:
        case SDLK_QUESTION:
            panel_.view.showHelp = !panel_.view.showHelp;
            return true;
        case SDLK_SLASH:  // ? on most layouts
            if (key.mod & KMOD_SHIFT) panel_.view.showHelp = !panel_.view.showHelp;
            return true;
        case SDLK_F2:
            panel_.view.showPanel = !panel_.view.showPanel;
            return true;
        case SDLK_F12:
            screenshotRequested_ = true;
            return true;
        case SDLK_ESCAPE:
            // Closes what is open, the latest first; then quits.
            if (askingToQuit_)
                askingToQuit_ = false;
            else if (browser_)
                browser_.reset();
            else if (panel_.view.showHelp)
                panel_.view.showHelp = false;
            else
                requestQuit();
            return true;
        default:
            return false;
    }
}

ui::PanelActions App::keyActions(const SDL_Keysym& key) const {
    ui::PanelActions actions;
    // Ctrl+Z undoes, Ctrl+Y or Ctrl+Shift+Z redoes; no other Ctrl chord means anything here.
    if (key.mod & KMOD_CTRL) {
        if (key.sym == SDLK_z && (key.mod & KMOD_SHIFT))
            actions.redo = true;
        else if (key.sym == SDLK_z)
            actions.undo = true;
        else if (key.sym == SDLK_y)
            actions.redo = true;
        return actions;
    }
    // Keys 1, 2, 3... pick the backends in the registry's order.
    if (key.sym >= SDLK_1 && key.sym <= SDLK_9) {
        const auto index = static_cast<std::size_t>(key.sym - SDLK_1);
        if (index < backendRegistry().size()) actions.switchBackend = backendRegistry()[index].kind;
    }
    switch (key.sym) {
        case SDLK_SPACE:
            actions.togglePause = true;
            break;
        case SDLK_n:
            actions.step = true;
            break;
        case SDLK_r:
            actions.resetSeed = panel_.seedForReset(sim_->params().seed);
            break;
        case SDLK_LEFTBRACKET:
        case SDLK_RIGHTBRACKET: {
            const double factor = key.sym == SDLK_RIGHTBRACKET ? 2.0 : 0.5;
            actions.speed = std::clamp(sim_->speed * factor, SimulationController::kMinSpeed,
                                       SimulationController::kMaxSpeed);
            actions.asFastAsItCan = false;
            break;
        }
        case SDLK_f:
            actions.fastForwardSeconds = panel_.fastForwardSeconds();
            break;
        default:
            break;
    }
    return actions;
}

ui::PanelActions App::replayKeyActions(const SDL_Keysym& key) const {
    ui::PanelActions actions;
    if (key.sym >= SDLK_1 && key.sym <= SDLK_9) return keyActions(key);  // the backend to go on
    switch (key.sym) {
        case SDLK_SPACE:
            actions.replayPlay = !replay_->playing();
            break;
        case SDLK_LEFT:
        case SDLK_RIGHT:
            actions.replayStepFrames = key.sym == SDLK_RIGHT ? 1 : -1;
            break;
        case SDLK_HOME:
            actions.replaySeek = 0;
            break;
        case SDLK_END:
            actions.replaySeek = replay_->frameCount() - 1;
            break;
        case SDLK_LEFTBRACKET:
        case SDLK_RIGHTBRACKET:
            actions.replaySpeed = replay_->speed() * (key.sym == SDLK_RIGHTBRACKET ? 2.0 : 0.5);
            break;
        default:
            break;
    }
    return actions;
}

void App::handleMouseMotion(const SDL_MouseMotionEvent& motion) {
    if (motion.state & SDL_BUTTON_LMASK) {
        camera_.orbit(static_cast<float>(motion.xrel), static_cast<float>(motion.yrel));
    } else if (motion.state & (SDL_BUTTON_RMASK | SDL_BUTTON_MMASK)) {
        int w = 0, h = 0;
        SDL_GL_GetDrawableSize(window_.window, &w, &h);
        camera_.pan(static_cast<float>(motion.xrel), static_cast<float>(motion.yrel),
                    static_cast<float>(h));
    }
}

void App::endTrajectoryFor(std::int64_t count) {
    // A trajectory holds one school: what resizes or replaces it ends the recording first, with
    // what it recorded kept.
    if (trajectory_ && static_cast<std::size_t>(count) != sim_->fishCount())
        (void)stopTrajectory("the fish count changed from " + std::to_string(sim_->fishCount()) +
                             " to " + std::to_string(count));
}

void App::apply(const ui::PanelActions& actions) {
    if (actions.undo || actions.redo) undoOrRedo(actions.undo);
    if (actions.switchBackend) report(sim_->switchBackend(*actions.switchBackend));
    if (actions.density) sim_->setDensity(*actions.density);
    if (actions.newParams) {
        endTrajectoryFor(actions.newParams->fishCount);
        report(sim_->applyParams(*actions.newParams));
    }
    if (actions.applyPreset && actions.applyPreset->index < presets().size()) {
        const Preset& preset = presets()[actions.applyPreset->index];
        const SimParams scene = presetScene(preset, static_cast<std::int64_t>(sim_->fishCount()),
                                            sim_->density(), actions.applyPreset->withItsFishCount);
        endTrajectoryFor(scene.fishCount);
        const Result<void> applied = sim_->applyParams(scene);
        report(applied);
        if (applied) {
            panel_.followSeed(preset.params.seed);
            panel_.followSource(preset.name);
            panel_.showMessage("applied the preset " + preset.name + " with " +
                               std::to_string(sim_->fishCount()) + " fish");
        }
    }
    if (actions.loadConfigPath) {
        auto loaded = loadConfig(*actions.loadConfigPath);
        if (loaded) endTrajectoryFor(loaded->fishCount);
        const Result<void> applied =
            loaded ? sim_->applyParams(*loaded) : Result<void>(fail(loaded.error()));
        report(applied);
        if (applied) {
            // A change Undo takes back, and the parameters saved from here.
            noteParamChange();
            history_.markSaved();
            panel_.followSeed(loaded->seed);
            panel_.followSource(std::filesystem::path(*actions.loadConfigPath).filename().string());
            panel_.showMessage("loaded " + quote(*actions.loadConfigPath, 200));
        }
    }
    bool saveFailed = false;
    if (actions.saveConfigPath) {
        noteParamChange();
        const auto saved = saveConfig(*actions.saveConfigPath, sim_->params());
        report(saved);
        saveFailed = !saved;
        if (saved) {
            history_.markSaved();
            panel_.showMessage("saved " + quote(*actions.saveConfigPath, 200));
        }
    }
    // The quit dialog: quit (after saving, when asked and it worked), or stay.
    if (actions.quit || actions.cancelQuit) askingToQuit_ = false;
    if (actions.quit && !saveFailed) quit_ = true;
    if (actions.browse) {
        auto listing = app::listFolder(actions.browse->folder, actions.browse->kind);
        ui::PanelState::Browser shown;
        shown.folder = actions.browse->folder;
        if (listing)
            shown.listing = std::move(*listing);
        else
            shown.error = listing.error();
        // A folder that cannot be read keeps the last one listed, with the reason.
        if (!listing && browser_ && browser_->listing) shown.listing = browser_->listing;
        browser_ = std::move(shown);
    }
    if (actions.closeBrowser) browser_.reset();
    if (actions.togglePause) sim_->paused = !sim_->paused;
    if (actions.speed) sim_->speed = *actions.speed;
    if (actions.asFastAsItCan) sim_->asFastAsItCan = *actions.asFastAsItCan;
    if (actions.speed || actions.asFastAsItCan) {
        char text[64];
        std::snprintf(text, sizeof text, "speed x%g", sim_->speed);
        panel_.showMessage(sim_->asFastAsItCan ? std::string("speed: as fast as it can") : text);
    }
    if (actions.fastForwardSeconds) {
        sim_->fastForward(*actions.fastForwardSeconds);
        char text[64];
        std::snprintf(text, sizeof text, "fast-forward %.0f simulated seconds",
                      *actions.fastForwardSeconds);
        panel_.showMessage(text);
    }
    if (actions.cancelFastForward) sim_->cancelFastForward();
    if (actions.startVideoPath) {
        if (auto ok = checkOutputPath("video", *actions.startVideoPath); !ok)
            report(ok);
        else if (auto ffmpeg = checkFfmpeg(); !ffmpeg)
            report(ffmpeg);
        else
            videoToStart_ = {*actions.startVideoPath, "video", actions.videoSceneOnly};
    }
    if (actions.stopVideo) (void)stopVideo();
    if (actions.startTrajectory) {
        if (replay_)
            report(
                fail("a replay is shown: Continue from here or Close replay first, then record"));
        else if (trajectory_)
            report(fail("a trajectory is being recorded: stop it first"));
        else
            report(startTrajectory(actions.startTrajectory->path, "trajectory",
                                   actions.startTrajectory->every));
    }
    if (actions.stopTrajectory && trajectory_) (void)stopTrajectory("");
    applyReplay(actions);
    applyRecorder(actions);
    if (actions.step) sim_->stepOnce();
    if (actions.resetSeed) {
        if (trajectory_) (void)stopTrajectory("the school was replaced (a reset)");
        sim_->reset(*actions.resetSeed);
    }
    if (actions.saveStatePath) {
        const auto saved =
            saveStateCsv(*actions.saveStatePath, sim_->backend().download(), sim_->params());
        report(saved);
        if (saved) panel_.showMessage("saved the school to " + quote(*actions.saveStatePath, 200));
    }
    if (actions.loadStatePath) {
        auto school = loadStateCsv(*actions.loadStatePath, sim_->params());
        if (school && trajectory_) (void)stopTrajectory("the school was replaced (a loaded one)");
        const Result<void> loaded =
            school ? sim_->replaceSchool(*school) : Result<void>(fail(school.error()));
        report(loaded);
        if (loaded)
            panel_.showMessage("loaded the school from " + quote(*actions.loadStatePath, 200));
    }
    noteParamChange();
}

void App::noteParamChange() {
    if (replay_ || sweep_.recorder().busy()) return;
    history_.record(sim_->params(), lastSeconds_);
}

void App::undoOrRedo(bool undo) {
    if (replay_) return;  // the live school waits as it was
    const std::vector<std::string_view> keys = undo ? history_.keysOfUndo() : history_.keysOfRedo();
    const std::optional<SimParams> target = undo ? history_.undo() : history_.redo();
    if (!target) return;
    endTrajectoryFor(target->fishCount);
    const Result<void> applied = sim_->applyParams(*target);
    report(applied);
    if (!applied) {
        (void)(undo ? history_.redo() : history_.undo());  // still where it was
        return;
    }
    history_.settle(sim_->params());
    std::string what;
    for (const std::string_view key : keys) what.append(what.empty() ? "" : ", ").append(key);
    panel_.showMessage((undo ? "undid the change of " : "redid the change of ") + what);
}

bool App::quitNeedsAsking() const {
    // A run that ends by itself, one told not to ask, or one that writes its parameters when it
    // quits (--config-out) loses nothing.
    return !options_.noConfirmQuit && options_.frames == 0 && options_.sweepFish.empty() &&
           options_.configOutPath.empty() && history_.changedSinceSave();
}

void App::requestQuit() {
    if (askingToQuit_) return;  // the dialog is up: it decides
    if (quitNeedsAsking())
        askingToQuit_ = true;
    else
        quit_ = true;
}

void App::applyRecorder(const ui::PanelActions& actions) {
    ui::FpsRecorder& recorder = sweep_.recorder();
    if (actions.recordFps) recorder.startRecord();
    if (actions.sweepFps)
        report(recorder.startSweep(actions.sweepFps->backends, actions.sweepFps->fishCounts));
    if (actions.cancelFpsRecording) recorder.cancel();
    if (actions.exportFpsCsvPath) {
        const auto saved = writeFileAtomically(*actions.exportFpsCsvPath, recorder.csv());
        report(saved);
        if (saved) panel_.showMessage("wrote " + quote(*actions.exportFpsCsvPath, 200));
    }
    if (actions.clearFpsRecords) recorder.clear();
}

SimParams App::shownParams() {
    if (replay_ && replayParams_) return *replayParams_;
    return sim_->params();
}

void App::showReplay(std::unique_ptr<Replay> replay) {
    replay_ = std::move(replay);
    replayMeasures_.clear();
    const TrajectoryMeasures& file = replay_->measures();
    for (std::size_t k = 0; k < file.values.size() && k < file.time.size(); ++k)
        replayMeasures_.push_back({file.time[k], file.values[k]});
    // In time order, as the plots read them, whatever order the file gave.
    std::stable_sort(
        replayMeasures_.begin(), replayMeasures_.end(),
        [](const ui::TimedMeasure& a, const ui::TimedMeasure& b) { return a.seconds < b.seconds; });
    replaySchool_.reset();
    replayUploadedVersion_ = 0;
    uploaded_.reset();
    auto params = replay_->params();
    replayParams_ = params ? std::optional<SimParams>(*params) : std::nullopt;
}

void App::applyReplay(const ui::PanelActions& actions) {
    if (actions.openRecordingPath) {
        auto opened = Replay::open(*actions.openRecordingPath);
        if (!opened) {
            report(fail(opened.error()));
        } else if (auto first = (*opened)->school(); !first) {
            report(fail(first.error()));
        } else {
            if (trajectory_) (void)stopTrajectory("a recording was opened");
            showReplay(std::move(*opened));
            replay_->setPlaying(true);
            panel_.clearError();
            panel_.showMessage("replaying " + quote(*actions.openRecordingPath, 200) + ": " +
                               std::to_string(replay_->frameCount()) + " frames of " +
                               std::to_string(replay_->fishCount()) + " fish");
        }
    }
    if (!replay_) return;
    if (actions.replaySpeed) replay_->setSpeed(*actions.replaySpeed);
    if (actions.replaySeek) replay_->seek(*actions.replaySeek);
    if (actions.replayStepFrames) replay_->stepFrames(*actions.replayStepFrames);
    if (actions.replayPlay) replay_->setPlaying(*actions.replayPlay);
    if (actions.continueFromReplay) {
        const std::size_t frame = replay_->frame();
        auto next = continueFromFrame(*replay_, sim_->backendKind(), sim_->density());
        if (!next) {
            report(fail(next.error()));
        } else {
            sim_ = std::move(*next);
            uploaded_.reset();
            const std::string from = "continuing from frame " + std::to_string(frame) + " of " +
                                     quote(replay_->path().filename().string(), 200) + " on " +
                                     sim_->backend().description();
            // The parameters came from the file, as from a loaded config: the preset box
            // names it, and the history starts again from them.
            panel_.followSource(replay_->path().filename().string());
            panel_.followSeed(sim_->params().seed);
            history_.restart(sim_->params());
            replay_.reset();
            panel_.clearError();
            panel_.showMessage(from);
            std::cerr << from << "\n";
        }
    }
    if (actions.closeReplay && replay_) {
        replay_.reset();
        uploaded_.reset();
        panel_.showMessage("back to the live school");
    }
}

Result<void> App::startTrajectory(const std::string& path, std::string flag, std::int64_t every) {
    auto recording = TrajectoryRecording::start(*sim_, path, std::move(flag), every);
    if (!recording) return fail(recording.error());
    trajectory_ = std::move(*recording);
    panel_.showMessage("recording the trajectory " + quote(path, 200));
    return {};
}

bool App::stopTrajectory(const std::string& why) {
    const std::string path = quote(trajectory_->path().string(), 200);
    const std::int64_t lastStep = trajectory_->lastStep();
    auto frames = trajectory_->finish();
    trajectory_.reset();
    if (!frames) {
        printError(frames.error());
        panel_.showError(frames.error());
        return false;
    }
    std::string done = "wrote the trajectory " + path + " (" + std::to_string(*frames) +
                       " frames, to step " + std::to_string(lastStep) + ")";
    if (!why.empty()) done = "the trajectory ended: " + why + "; " + done;
    std::cerr << done << "\n";
    panel_.showMessage(done);
    return true;
}

void App::followTrajectory() {
    if (!trajectory_) return;
    trajectory_->followChanges();
    if (const auto& ended = trajectory_->ended()) {
        if (trajectory_->failed()) {
            // The writer failed (a full disk): the file is dropped, nothing replaced.
            const std::string error = *ended;
            trajectory_.reset();
            printError(error);
            panel_.showError(error);
            if (!options_.trajectoryPath.empty()) status_ = kExitInternal;
        } else {
            (void)stopTrajectory(*ended);
        }
    }
}

void App::measureSpeciesOf(std::span<const Fish> school, const SimParams& params, double every) {
    const bool stale = speciesMeasures_.size() != params.species.size();
    if (!stale && !sim_->paused && lastSeconds_ - speciesMeasuredAt_ < every) return;
    speciesMeasures_ = measureSpecies(school, params.species.size());
    speciesMeasuredAt_ = lastSeconds_;
}

render::FishSource App::fishSource() {
    if (replay_) {
        // The frame shown, uploaded once; a frame that cannot be read keeps the last one drawn.
        if (replayUploadedVersion_ != replay_->version() || !uploaded_) {
            replayUploadedVersion_ = replay_->version();
            if (auto school = replay_->school(); !school) {
                panel_.showError(school.error());
            } else {
                replaySchool_ = *school;
                measureSpeciesOf(*replaySchool_, shownParams(), 0.0);
                uploaded_ = renderer_.uploadSchool(*replaySchool_);
                uploadedVersion_ = 0;  // the live school is uploaded again when it comes back
            }
        }
        if (uploaded_) return *uploaded_;
        return renderer_.uploadSchool({});
    }
    const SimParams params = sim_->params();
    if (const auto onGpu = sim_->backend().drawSource()) {
        // No read-back to draw; with species one a second of a school that moved, for their
        // measures.
        const bool moved = sim_->schoolVersion() != speciesMeasuredVersion_ &&
                           lastSeconds_ - speciesMeasuredAt_ >= 1.0;
        if (!params.species.empty() &&
            (moved || speciesMeasures_.size() != params.species.size())) {
            measureSpeciesOf(sim_->backend().download(), params, 1.0);
            speciesMeasuredVersion_ = sim_->schoolVersion();
        }
        return {onGpu->buffer, onGpu->firstFish, onGpu->fishCount};
    }
    // A paused CPU school is copied once, not every frame.
    if (!uploaded_ || uploadedVersion_ != sim_->schoolVersion()) {
        const School school = sim_->backend().download();
        if (!params.species.empty()) measureSpeciesOf(school, params, 0.5);
        uploaded_ = renderer_.uploadSchool(school);
        uploadedVersion_ = sim_->schoolVersion();
    }
    return *uploaded_;
}

int App::run() {
    if (!options_.sweepFish.empty()) {
        std::vector<BackendKind> backends = options_.sweepBackends;
        if (backends.empty())
            for (const BackendEntry& entry : backendRegistry()) backends.push_back(entry.kind);
        if (auto ok = sweep_.start(*sim_, backends, options_.sweepFish); !ok) {
            printError(ok.error());
            return kExitBadInput;
        }
    }
    if (!options_.recordPath.empty())
        videoToStart_ = {options_.recordPath, "--record", options_.recordClean};
    if (!options_.trajectoryPath.empty())
        if (auto ok =
                startTrajectory(options_.trajectoryPath, "--trajectory", options_.trajectoryEvery);
            !ok) {
            printError(ok.error());
            return kExitInternal;
        }
    startSeconds_ = lastSeconds_ = seconds();
    vsync_ = !panel_.view.vsync;  // forces the first SetSwapInterval
    while (!quit_) {
        processEvents();
        if (SDL_GetWindowFlags(window_.window) & SDL_WINDOW_MINIMIZED) {
            // Nothing to draw: the school waits, and the time away is no frame of the history.
            SDL_Delay(10);
            lastSeconds_ = seconds();
            continue;
        }
        const double frameSeconds = tick();
        runUi(frameSeconds);
        if (!simulate(frameSeconds)) break;
        driveSweep(frameSeconds);
        if (options_.switchEveryFrames > 0 && frame_ > 0 &&
            frame_ % options_.switchEveryFrames == 0)
            switchToNextBackend(frame_);
        render();
        if (!present()) break;
    }
    const int finished = finish();
    return status_ != 0 ? status_ : finished;
}

double App::tick() {
    const double now = seconds();
    const double frameSeconds = now - lastSeconds_;
    lastSeconds_ = now;
    frameHistory_.push_back(static_cast<float>(frameSeconds * 1000.0));
    if (frameHistory_.size() > 240) frameHistory_.pop_front();
    return frameSeconds;
}

void App::processEvents() {
    std::vector<SDL_Event> polled;
    SDL_Event event;
    while (SDL_PollEvent(&event)) polled.push_back(event);
    for (const SDL_Event& ordered : keyEventOrder_.frame(polled)) handleEvent(ordered);
    // ImGui's SDL backend took them from SDL's state, which a held-back key's are not.
    if (const auto modifiers = keyEventOrder_.modifiers()) {
        ImGuiIO& io = ImGui::GetIO();
        io.KeyCtrl = (*modifiers & KMOD_CTRL) != 0;
        io.KeyShift = (*modifiers & KMOD_SHIFT) != 0;
        io.KeyAlt = (*modifiers & KMOD_ALT) != 0;
        io.KeySuper = (*modifiers & KMOD_GUI) != 0;
    }
    if (vsync_ != panel_.view.vsync) {
        vsync_ = panel_.view.vsync;
        SDL_GL_SetSwapInterval(vsync_ ? 1 : 0);
    }
}

void App::runUi(double frameSeconds) {
    SDL_GL_GetDrawableSize(window_.window, &width_, &height_);
    int windowWidth = 0;
    SDL_GetWindowSize(window_.window, &windowWidth, nullptr);
    const float pixelScale =
        static_cast<float>(width_) / static_cast<float>(std::max(windowWidth, 1));
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    // Where the mouse is, as its motion events say. ImGui 1.86's SDL backend reads SDL's global
    // mouse state instead, which under X11 went stale: a slider's tooltip stayed after the mouse
    // had left it, until the next click (Xvfb, with and without a window manager). The backend
    // still decides whether the window has the mouse at all.
    if (ImGuiIO& io = ImGui::GetIO(); mousePosition_ && io.MousePos.x != -FLT_MAX)
        io.MousePos = *mousePosition_;
    ImGui::NewFrame();
    const SimParams params = shownParams();  // one copy a frame, for the panel
    ui::PanelState state = panelState(frameSeconds);
    state.params = &params;
    if (speciesMeasures_.size() == params.species.size()) state.species = speciesMeasures_;
    state.overlayCorner = overlayCorner_;
    apply(panel_.draw(state, sweep_.recorder()));
    followTrajectory();
    layOutView(pixelScale);
}

void App::layOutView(float pixelScale) {
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    const app::ScreenRect window{0.0f, 0.0f, viewport->Size.x, viewport->Size.y};
    // A clean video frames the tank in the whole window, which it records without the panel.
    const bool clean = recordingClean();
    const app::ScreenRect overlay = panel_.overlayRect();
    const app::ViewLayout layout =
        app::layOutView(window, clean ? 0.0f : panel_.coveredLeft(),
                        clean ? glm::vec2(0.0f) : glm::vec2(overlay.width(), overlay.height()),
                        overlayCorner_, shownParams());
    if (!clean) overlayCorner_ = layout.overlayCorner;
    // The tank is framed in what the panel and the overlay leave (C frames it there again).
    app::frameIn(camera_, layout, window);
    renderer_.centerShiftPixels = layout.centreShift * pixelScale;
}

ui::PanelState App::panelState(double frameSeconds) {
    ui::PanelState state;
    state.backend = sim_->backendKind();
    state.backendDescription = sim_->backend().description();
    for (const BackendEntry& entry : backendRegistry())
        state.unavailable.push_back(sim_->unavailableReason(entry.kind));
    state.paused = sim_->paused;
    state.density = sim_->density();
    state.fishCount = sim_->fishCount();
    // The frame only asks for a snapshot of the school, at most twice a second, and shows the
    // latest measures the worker finished.
    // A replay shows the file's measures; the live school waits unmeasured.
    state.metrics = panel_.view.measureSchool && !replay_ ? &sim_->metrics(lastSeconds_) : nullptr;
    measureMs_ = state.metrics ? sim_->lastMeasureMilliseconds() : 0.0;
    followPoint_.reset();
    if (state.metrics && sim_->measureCount() > 0 && panel_.view.follow != ui::CameraFollow::Off) {
        const SchoolMetrics& m = *state.metrics;
        const bool group = panel_.view.follow == ui::CameraFollow::LargestGroup;
        // The measures are of the school up to a second ago: carried on at its velocity.
        const double since =
            std::clamp(sim_->simulatedSeconds() - sim_->measuredSeconds(), 0.0, 2.0);
        followPoint_ = glm::vec3((group ? m.largestGroupCentre : m.centre) +
                                 (group ? m.largestGroupVelocity : m.velocity) * since);
    }
    if (state.metrics && sim_->measureCount() != plottedMeasures_) {
        plottedMeasures_ = sim_->measureCount();
        panel_.addMeasures(sim_->measuredSeconds(), *state.metrics);
        newNeighbors_ = {sim_->measuredFishCount(), state.metrics->meanNeighbors};
    }
    if (replay_) {
        ui::PanelState::Replay shown;
        shown.fileName = replay_->path().filename().string();
        shown.frame = replay_->frame();
        shown.frameCount = replay_->frameCount();
        shown.step = replay_->frameStep(shown.frame);
        shown.seconds = replay_->frameTime(shown.frame);
        shown.firstSeconds = replay_->frameTime(0);
        shown.lastSeconds = replay_->frameTime(shown.frameCount - 1);
        shown.playing = replay_->playing();
        shown.speed = replay_->speed();
        shown.cachedFrames = replay_->cachedFrames();
        shown.cacheCapacity = replay_->cacheCapacity();
        shown.measures = &replayMeasures_;
        state.replay = std::move(shown);
        state.fishCount = replay_->fishCount();
        // The file's measure at the shown frame, in the overlay.
        if (!replayMeasures_.empty()) {
            const auto after = std::upper_bound(
                replayMeasures_.begin(), replayMeasures_.end(), state.replay->seconds,
                [](double t, const ui::TimedMeasure& m) { return t < m.seconds; });
            if (after != replayMeasures_.begin()) state.metrics = &(after - 1)->metrics;
        }
    }
    if (trajectory_)
        state.recordingTrajectory = ui::PanelState::Recording{
            trajectory_->path().string(), trajectory_->frames(), trajectory_->every()};
    const std::vector<float> history(frameHistory_.begin(), frameHistory_.end());
    state.fps = frameSeconds > 0.0 ? 1.0 / frameSeconds : 0.0;
    if (history.size() >= 30) {
        double sum = 0.0;
        for (std::size_t k = history.size() - 30; k < history.size(); ++k) sum += history[k];
        state.fps = 1000.0 * 30.0 / sum;
    }
    state.frameMs = frameSeconds * 1000.0;
    state.simulationMs = simulationMs_;
    state.renderMs = gpuRenderMs_.value_or(renderMs_);
    state.renderOnGpu = gpuRenderMs_.has_value();
    if (const auto& drawn = renderer_.drawStats()) {
        state.fishPerLevel = drawn->fishPerLevel;
        state.triangles = drawn->triangles;
    }
    state.frameHistoryMs = history;
    state.simulatedSeconds = sim_->simulatedSeconds();
    state.speed = sim_->speed;
    state.asFastAsItCan = sim_->asFastAsItCan;
    state.fastForwardLeft = sim_->fastForwardLeft();
    // Measured only while the clock follows the speed asked for (not paused, fast-forwarding,
    // stepping a sweep's fixed steps or a video's frames), and again when that speed changes.
    const std::pair<double, bool> asked{sim_->speed, sim_->asFastAsItCan};
    const bool followsClock = !sim_->paused && !replay_ && state.fastForwardLeft <= 0.0 &&
                              !sim_->stepsPerFrame && !video_.recording();
    if (!followsClock || rateAsked_ != asked) simulatedRate_.restart();
    rateAsked_ = asked;
    if (followsClock) simulatedRate_.add(lastSeconds_, sim_->simulatedSeconds());
    state.realSpeed = simulatedRate_.rate();
    state.behind = !sim_->asFastAsItCan && simulatedRate_.behind(sim_->speed);
    state.notices = notices_;
    state.canUndo = history_.canUndo() && !replay_;
    state.canRedo = history_.canRedo() && !replay_;
    if (state.canUndo) state.undoKeys = history_.keysOfUndo();
    if (state.canRedo) state.redoKeys = history_.keysOfRedo();
    state.askingToQuit = askingToQuit_;
    state.browser = browser_;
    state.recordingVideo = video_.recording();
    state.videoFrames = video_.frames();
    return state;
}

bool App::simulate(double frameSeconds) {
    // While recording, each frame is one video frame: the simulation advances by its time.
    const double seconds = video_.recording() ? 1.0 / video_.framesPerSecond() : frameSeconds;
    if (replay_) {
        // The live school waits while a replay plays its frames.
        replay_->advance(seconds);
        if (auto params = replay_->params(); params)
            replayParams_ = *params;
        else
            panel_.showError(params.error());
        simulationMs_ = 0.0;
        return true;
    }
    sim_->advance(seconds);
    simulationMs_ = sim_->lastStepsMilliseconds();
    // A GL failure mid-run (out of GPU memory, a lost context) loses the GPU's school: say so
    // and stop rather than draw and save what is left.
    if (auto ok = sim_->backend().health(); !ok) {
        printError(ok.error());
        status_ = kExitInternal;
        return false;
    }
    return true;
}

void App::driveSweep(double frameSeconds) {
    ui::FrameSample sample;
    sample.frameSeconds = frameSeconds;
    sample.simulationMs = simulationMs_;
    sample.renderMs = renderMs_;
    sample.backend = sim_->backendKind();
    sample.fish = static_cast<std::int64_t>(sim_->fishCount());
    sample.density = sim_->density();
    sample.measureMs = measureMs_;
    sample.measuring = panel_.view.measureSchool;
    if (newNeighbors_ && newNeighbors_->first == sample.fish)
        sample.meanNeighbors = newNeighbors_->second;
    newNeighbors_.reset();
    if (gpuRenderMsNew_) sample.gpuRenderMs = gpuRenderMs_;
    if (const auto& drawn = renderer_.drawStats()) {
        sample.fishPerLevel = drawn->fishPerLevel;
        sample.triangles = drawn->triangles;
    }
    // A sweep resizes the school: a trajectory, which holds one, ends before it does.
    if (trajectory_ && sweep_.recorder().sweeping())
        (void)stopTrajectory("a sweep changes the fish count");
    sweep_.onFrame(sample, *sim_, panel_);
    if (!options_.sweepFish.empty() && !sweep_.recorder().busy()) quit_ = true;
}

void App::render() {
    const double start = seconds();
    const SimParams params = shownParams();
    if (params.dimensions != cameraDimensions_) {
        frameTank(params);
    } else if (params.bounds != cameraBounds_) {
        camera_.fit(params.bounds);
        cameraBounds_ = params.bounds;
    }
    // From the first frame that follows: no jump for the time it did not.
    if (followPoint_ && followedAt_ > 0.0)
        camera_.follow(*followPoint_, static_cast<float>(start - followedAt_));
    followedAt_ = followPoint_ ? start : 0.0;
    renderTimer_.begin();
    renderer_.draw(params, camera_, width_, height_, fishSource(),
                   static_cast<float>(lastSeconds_ - startSeconds_),
                   fishColoring(panel_.view.coloring(params)));
    // A clean video takes the scene before the panel and the overlay are drawn over it.
    startRequestedVideo();
    if (recordingClean())
        if (auto ok = video_.addFrame(width_, height_); !ok) {
            printError(ok.error());
            panel_.showError(ok.error());
            status_ = kExitInternal;
        }
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    renderTimer_.end();
    // No glFinish: the GPU's time comes from the timer, a few frames late.
    const std::vector<double> gpuTimes = renderTimer_.collect();
    gpuRenderMsNew_ = !gpuTimes.empty();
    if (gpuRenderMsNew_) gpuRenderMs_ = gpuTimes.back();
    renderMs_ = (seconds() - start) * 1000.0;
    if (detailBudget_ && gpuRenderMsNew_)
        renderer_.levelPixels = detailBudget_->add(*gpuRenderMs_, ownLevelPixels_);
}

void App::startRequestedVideo() {
    if (!videoToStart_) return;
    if (auto ok = video_.start(videoToStart_->path, videoToStart_->flag, width_, height_,
                               options_.recordFps);
        !ok) {
        printError(ok.error());
        panel_.showError(ok.error());
        status_ = kExitInternal;
    } else {
        // Said on stderr, not in the window: a notice would be in the video.
        std::cerr << "recording the video " << quote(videoToStart_->path, 200) << "\n";
        videoClean_ = videoToStart_->clean;
    }
    videoToStart_.reset();
}

bool App::present() {
    ++frame_;
    const bool lastFrame = (options_.frames > 0 && frame_ >= options_.frames) || quit_;
    // --screenshot is written with the other outputs when the run ends (finish()).
    if (lastFrame && !options_.screenshotPath.empty()) {
        if (auto png = encodeScreenshotPng(width_, height_); !png) {
            printError(png.error());
            status_ = kExitInternal;
        } else {
            finalScreenshot_ = std::move(*png);
        }
    }
    if (screenshotRequested_) {
        const std::string path = timestampedScreenshotName();
        screenshotRequested_ = false;
        if (auto ok = saveScreenshot(path, width_, height_); !ok) {
            printError(ok.error());
            panel_.showError(ok.error());
        } else {
            panel_.showMessage("saved the screenshot " + quote(path, 200));
        }
    }
    if (video_.recording() && !videoClean_) {
        if (auto ok = video_.addFrame(width_, height_); !ok) {
            printError(ok.error());
            panel_.showError(ok.error());
            status_ = kExitInternal;
        }
    }
    SDL_GL_SwapWindow(window_.window);
    if (lastFrame) quit_ = true;
    if (auto ok = gpu::checkGlErrors("frame"); !ok) {
        status_ = kExitInternal;  // stop, but keep what was measured and the school
        return false;
    }
    return true;
}

void App::switchToNextBackend(std::int64_t frame) {
    const auto all = backendRegistry();
    const std::size_t current = backendIndex(sim_->backendKind());
    for (std::size_t k = 1; k < all.size(); ++k) {
        const BackendKind next = all[(current + k) % all.size()].kind;
        if (!sim_->unavailableReason(next).empty()) continue;
        const auto ok = sim_->switchBackend(next);
        report(ok);
        std::cerr << "frame " << frame << ": "
                  << (ok ? "switched to " + sim_->backend().description()
                         : "could not switch to " + std::string(toString(next)) + ": " + ok.error())
                  << ", " << sim_->fishCount() << " fish\n";
        return;
    }
}

bool App::stopVideo() {
    OutputFiles files;
    const auto frames = video_.finish(files);
    const Result<void> ok = frames ? files.commit() : Result<void>(fail(frames.error()));
    if (!ok) {
        printError(ok.error());
        panel_.showError(ok.error());
        return false;
    }
    reportVideo(*frames);
    return true;
}

void App::reportVideo(long long frames) {
    const std::string done = "wrote the video " + quote(video_.path().string(), 200) + " (" +
                             std::to_string(frames) + " frames)";
    std::cerr << done << "\n";
    panel_.showMessage(done);
}

int App::finish() {
    // Every output, the video too, goes to its temporary file first, and the files are replaced
    // together once all were written: a full disk on the last, or a video ffmpeg could not
    // write, replaces none (OutputFiles). A signal that ends the app never comes here: it
    // replaces nothing.
    OutputFiles files;
    Result<void> ok;
    std::optional<long long> videoFrames;
    if (video_.recording()) {
        const auto frames = video_.finish(files);
        if (frames)
            videoFrames = *frames;
        else
            ok = fail(frames.error());
    }
    struct Output {
        const char* flag;
        const std::string& path;
        std::string content;
    };
    std::vector<Output> outputs;
    if (!options_.sweepFish.empty()) {
        // A sweep stopped early (the window closed) still keeps what it measured.
        const ui::FpsRecorder& recorder = sweep_.recorder();
        if (recorder.busy())
            std::cerr << "sweep: stopped after " << recorder.casesDone() << " of "
                      << recorder.caseCount() << " cases; writing the rows measured\n";
        outputs.push_back({"--csv", options_.sweepCsvPath, recorder.csv()});
    }
    if (finalScreenshot_)
        outputs.push_back({"--screenshot", options_.screenshotPath, std::move(*finalScreenshot_)});
    // The parameters as the panel left them: what a user tuned, kept for --config next time.
    if (!options_.configOutPath.empty())
        outputs.push_back({"--config-out", options_.configOutPath, configToJson(sim_->params())});
    // A school that a GL failure lost is not written over the file.
    if (!options_.stateOutPath.empty() && sim_->backend().health())
        outputs.push_back({"--state-out", options_.stateOutPath,
                           stateToCsv(sim_->backend().download(), sim_->params())});
    for (const Output& out : outputs) {
        if (ok) ok = files.add(out.flag, out.path);
        if (ok) ok = files.write(out.flag, out.content);
    }
    // The trajectory is ended and put into place first: it is written as the run went.
    if (ok && trajectory_ && !stopTrajectory("")) return kExitInternal;  // said why; none written
    if (ok) ok = files.commit();
    if (!ok) {
        printError(ok.error());
        return kExitInternal;
    }
    if (videoFrames) reportVideo(*videoFrames);
    return kExitSuccess;
}

/// What the app starts from, read before the window opens, so a bad file costs no window: the
/// library's start (fishschool/Run.h), as the CLI's simulate reads it.
using StartScene = StartingSchool;

Result<StartScene> readStartScene(const AppOptions& options) {
    // --frame is --replay's too: the start's only with --state-in.
    auto start = runStartOf(options.params, options.stateInPath,
                            options.stateInPath.empty() ? std::nullopt : options.replayFrame);
    if (!start) return fail(start.error());
    return readStart(*start);
}

/// Without a display the app can still run offscreen (EGL) for the flags that end by themselves;
/// run by hand it would show nothing and never end.
Result<void> chooseVideoDriver(const AppOptions& options) {
    const auto set = [](const char* name) {
        const char* value = std::getenv(name);
        return value != nullptr && *value != '\0';
    };
    if (set("DISPLAY") || set("WAYLAND_DISPLAY") || set("SDL_VIDEODRIVER")) return {};
    if (options.frames == 0 && options.sweepFish.empty() && options.recordPath.empty())
        return fail(
            "no display (DISPLAY and WAYLAND_DISPLAY are not set): run it on a desktop or under "
            "xvfb-run; without a display it runs offscreen only with --frames, --sweep or "
            "--record");
    ::setenv("SDL_VIDEODRIVER", "offscreen", 1);
    std::cerr << "no display: running offscreen\n";
    return {};
}

/// A window with an OpenGL 4.5 core context and its loader: multisampled where it can be, fitting
/// the display's usable area (less panels and docks), at most 1600 x 900 unless asked. Returns
/// what the user should be told about the window's settings (a lighter default on software GL),
/// or nothing.
Result<std::string> openWindow(const AppOptions& options, Window& window) {
    // SIGINT and SIGTERM end the app as the other signals do, without writing its outputs: SDL
    // would turn them into a closed window, after which the app replaces them.
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0)
        return fail(std::string("cannot open a display: ") + SDL_GetError() +
                    " (run it on a desktop, or under xvfb-run)");
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 4);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 5);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
#ifndef NDEBUG
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_DEBUG_FLAG);
#endif
    int width = options.width > 0 ? options.width : 1600;
    int height = options.height > 0 ? options.height : 900;
    int x = static_cast<int>(SDL_WINDOWPOS_CENTERED), y = static_cast<int>(SDL_WINDOWPOS_CENTERED);
    SDL_Rect usable{};
    if (SDL_GetDisplayUsableBounds(0, &usable) == 0 && usable.w > 0 && usable.h > 0) {
        if (options.width <= 0) width = std::min(width, usable.w);
        if (options.height <= 0) height = std::min(height, usable.h);
        x = usable.x + std::max((usable.w - width) / 2, 0);
        y = usable.y + std::max((usable.h - height) / 2, 0);
    }
    // Multisampling smooths the thin fish and the tank's edges; without it where it is missing.
    const auto create = [&](int samples) -> Result<void> {
        std::string windowError, contextError;
        for (const int tried : {samples, 0}) {
            SDL_GL_SetAttribute(SDL_GL_MULTISAMPLEBUFFERS, tried > 0 ? 1 : 0);
            SDL_GL_SetAttribute(SDL_GL_MULTISAMPLESAMPLES, tried);
            window.window = SDL_CreateWindow(
                "FishSchool", x, y, width, height,
                SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
            if (window.window == nullptr) {
                windowError = SDL_GetError();
                continue;
            }
            window.context = SDL_GL_CreateContext(window.window);
            if (window.context != nullptr) break;
            contextError = SDL_GetError();
            SDL_DestroyWindow(window.window);
            window.window = nullptr;
        }
        if (window.context == nullptr)
            return fail(contextError.empty()
                            ? "cannot create a window: " + windowError
                            : "OpenGL 4.5 core is not available here: " + contextError);
        SDL_GL_MakeCurrent(window.window, window.context);
        if (gladLoadGL(reinterpret_cast<GLADloadfunc>(SDL_GL_GetProcAddress)) == 0 ||
            !GLAD_GL_VERSION_4_5)
            return fail("OpenGL 4.5 core is not available here");
        return {};
    };
    if (auto ok = create(options.msaaSamples); !ok) return fail(ok.error());
    // Software GL draws the default multisampling at a third of the frame rate: a window made
    // again without it, unless --msaa asked for it.
    const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    const std::string rendererName = renderer ? renderer : "";
    const int samples = msaaSamplesFor(options, rendererName);
    if (samples == options.msaaSamples) return std::string();
    SDL_GL_DeleteContext(window.context);
    window.context = nullptr;
    SDL_DestroyWindow(window.window);
    window.window = nullptr;
    if (auto ok = create(samples); !ok) return fail(ok.error());
    return "software GL (" + rendererName.substr(0, 40) +
           "): multisampling off for speed; --msaa 4 turns it on";
}

/// The school on the backend the options name. At fixed density `--fish N` scales the config's
/// tank, rocks and target from the config's own fish count, as `fishschool-cli bench --density
/// fixed` does.
Result<std::unique_ptr<SimulationController>> createSimulation(const AppOptions& options,
                                                               const StartScene& scene) {
    SimParams startParams = scene.params;
    std::optional<SimParams> densityBase;
    if (options.density == Density::Fixed && options.params.fish && !scene.school) {
        ParamFlags withoutFish = options.params;
        withoutFish.fish.reset();
        if (auto base = loadParams(withoutFish)) {
            densityBase = *base;
            startParams = fixedDensityParams(scene.params.fishCount, *base);
        }
    }
    auto sim = SimulationController::create(startParams, options.backend.value_or(BackendKind::Tbb),
                                            scene.school ? &*scene.school : nullptr);
    if (!sim) return fail(sim.error());
    (*sim)->setDensity(options.density);
    if (densityBase) (*sim)->setDensityBase(*densityBase);
    (*sim)->paused = options.startPaused;
    (*sim)->setClock(static_cast<std::int64_t>(scene.step), scene.time);
    return sim;
}

}  // namespace

/// --replay's file, opened and its first frame shown read before the window opens, so a bad file
/// or frame costs no window.
Result<std::unique_ptr<Replay>> openStartReplay(const AppOptions& options) {
    if (options.replayPath.empty()) return std::unique_ptr<Replay>();
    auto replay = Replay::open(options.replayPath);
    if (!replay) return fail("--replay: " + replay.error());
    if (options.replayFrame) {
        const std::size_t frames = (*replay)->frameCount();
        if (static_cast<std::uint64_t>(*options.replayFrame) >= frames)
            return fail("--frame: " + std::to_string(*options.replayFrame) + " is not allowed; " +
                        quote(options.replayPath, 200) + " has " + std::to_string(frames) +
                        " frames, 0 to " + std::to_string(frames - 1));
        (*replay)->seek(static_cast<std::size_t>(*options.replayFrame));
    }
    if (auto school = (*replay)->school(); !school) return fail("--replay: " + school.error());
    // Played from the start, or paused at the frame asked for.
    (*replay)->setPlaying(!options.replayFrame && !options.startPaused);
    return replay;
}

int runApp(const AppOptions& options) {
    const auto scene = readStartScene(options);
    if (!scene) return badInput(scene.error());
    auto replay = openStartReplay(options);
    if (!replay) return badInput(replay.error());
    if (auto ok = chooseVideoDriver(options); !ok) return badInput(ok.error());
    Window window;
    const auto windowNotice = openWindow(options, window);
    if (!windowNotice) return badInput(windowNotice.error());
    gpu::enableGlDebugOutput();
    auto sim = createSimulation(options, *scene);
    if (!sim) return badInput(sim.error());
    auto renderer = render::SceneRenderer::create();
    if (!renderer) return internalFailure(renderer.error());

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini in the working directory
    ImGui::StyleColorsDark();
    ImGui_ImplSDL2_InitForOpenGL(window.window, window.context);
    ImGui_ImplOpenGL3_Init("#version 450");
    int status = 0;
    {
        App app(options, window, std::move(*sim), std::move(*renderer), std::move(*replay));
        if (!windowNotice->empty()) app.addNotice(*windowNotice);
        status = app.run();
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
    return status;
}

}  // namespace fishschool::app
