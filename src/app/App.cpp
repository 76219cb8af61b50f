#include "App.h"

#include <SDL.h>
#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_impl_sdl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "KeyEventOrder.h"
#include "Screenshot.h"
#include "SimulationController.h"
#include "SweepDriver.h"
#include "VideoRecorder.h"
#include "backends/BackendRegistry.h"
#include "core/Messages.h"
#include "gpu/GlObjects.h"
#include "gpu/GpuTimer.h"
#include "io/ConfigIO.h"
#include "io/ExitStatus.h"
#include "io/OutputFiles.h"
#include "io/StateIO.h"
#include "io/TextInput.h"
#include "render/SceneRenderer.h"
#include "ui/FpsRecorder.h"
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

class App {
  public:
    App(const AppOptions& options, Window& window, std::unique_ptr<SimulationController> sim,
        render::SceneRenderer renderer)
        : options_(options), window_(window), sim_(std::move(sim)), renderer_(std::move(renderer)) {
        camera_.reset(sim_->params().bounds);
        cameraBounds_ = sim_->params().bounds;
        panel_.view.vsync = options.vsync;
        panel_.view.colorByHeading = options.colorByHeading;
        panel_.view.showPanel = panel_.view.showOverlay = !options.hideUi;
        sweep_.printProgress = !options.sweepFish.empty();
        if (!options.sweepFish.empty()) {
            sweep_.recorder().measureSeconds = options.sweepSeconds;
            sweep_.warmupSteps = options.sweepWarmupSteps;
        }
    }

    /// The frame loop, in the order of Dear ImGui's example: events, the panel, the
    /// simulation, drawing, presenting. Returns the exit status.
    int run();

  private:
    /// The wall time since the last frame, s; keeps the frame-time history.
    double tick();
    void processEvents();
    void handleEvent(const SDL_Event& event);
    /// The keys that change only the view (camera, help, panel, screenshot, Esc); false for
    /// the others.
    bool handleViewKey(const SDL_Keysym& key);
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
    void report(const Result<void>& result) {
        if (result)
            panel_.clearError();
        else
            panel_.showError(result.error());
    }
    render::FishSource fishSource();

    const AppOptions& options_;
    Window& window_;
    std::unique_ptr<SimulationController> sim_;
    render::SceneRenderer renderer_;
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
    };
    std::optional<VideoRequest> videoToStart_;  ///< started once the frame's size is known
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
    /// The mean neighbours of a measure taken last frame, and the fish count it measured, for
    /// the recorder's next sample.
    std::optional<std::pair<std::int64_t, double>> newNeighbors_;
};

void App::handleEvent(const SDL_Event& event) {
    ImGui_ImplSDL2_ProcessEvent(&event);
    const ImGuiIO& io = ImGui::GetIO();
    switch (event.type) {
        case SDL_QUIT:
            quit_ = true;
            break;
        case SDL_KEYDOWN:
            // A held key repeats only where repeating means something: N steps on.
            if (io.WantCaptureKeyboard || (event.key.repeat && event.key.keysym.sym != SDLK_n))
                break;
            if (!handleViewKey(event.key.keysym)) apply(keyActions(event.key.keysym));
            break;
        case SDL_MOUSEMOTION:
            if (!io.WantCaptureMouse) handleMouseMotion(event.motion);
            break;
        case SDL_MOUSEWHEEL:
            if (!io.WantCaptureMouse) camera_.zoom(static_cast<float>(event.wheel.y));
            break;
        default:
            break;
    }
}

bool App::handleViewKey(const SDL_Keysym& key) {
    switch (key.sym) {
        case SDLK_c:
            camera_.reset(sim_->params().bounds);
            cameraBounds_ = sim_->params().bounds;
            return true;
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
            if (panel_.view.showHelp)
                panel_.view.showHelp = false;
            else
                quit_ = true;
            return true;
        default:
            return false;
    }
}

ui::PanelActions App::keyActions(const SDL_Keysym& key) const {
    ui::PanelActions actions;
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

void App::apply(const ui::PanelActions& actions) {
    if (actions.switchBackend) report(sim_->switchBackend(*actions.switchBackend));
    if (actions.density) sim_->setDensity(*actions.density);
    if (actions.newParams) report(sim_->applyParams(*actions.newParams));
    if (actions.loadConfigPath) {
        auto loaded = loadConfig(*actions.loadConfigPath);
        const Result<void> applied =
            loaded ? sim_->applyParams(*loaded) : Result<void>(fail(loaded.error()));
        report(applied);
        if (applied) {
            panel_.followSeed(loaded->seed);
            panel_.showMessage("loaded " + quote(*actions.loadConfigPath, 200));
        }
    }
    if (actions.saveConfigPath) {
        const auto saved = saveConfig(*actions.saveConfigPath, sim_->params());
        report(saved);
        if (saved) panel_.showMessage("saved " + quote(*actions.saveConfigPath, 200));
    }
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
            videoToStart_ = {*actions.startVideoPath, "video"};
    }
    if (actions.stopVideo) (void)stopVideo();
    applyRecorder(actions);
    if (actions.step) sim_->stepOnce();
    if (actions.resetSeed) sim_->reset(*actions.resetSeed);
    if (actions.saveStatePath) {
        const auto saved =
            saveStateCsv(*actions.saveStatePath, sim_->backend().download(), sim_->params());
        report(saved);
        if (saved) panel_.showMessage("saved the school to " + quote(*actions.saveStatePath, 200));
    }
    if (actions.loadStatePath) {
        auto school = loadStateCsv(*actions.loadStatePath, sim_->params());
        const Result<void> loaded =
            school ? sim_->replaceSchool(*school) : Result<void>(fail(school.error()));
        report(loaded);
        if (loaded)
            panel_.showMessage("loaded the school from " + quote(*actions.loadStatePath, 200));
    }
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

render::FishSource App::fishSource() {
    if (const auto onGpu = sim_->backend().drawSource())
        return {onGpu->buffer, onGpu->firstFish, onGpu->fishCount};  // no read-back
    // A paused CPU school is copied once, not every frame.
    if (!uploaded_ || uploadedVersion_ != sim_->schoolVersion()) {
        uploaded_ = renderer_.uploadSchool(sim_->backend().download());
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
    if (!options_.recordPath.empty()) videoToStart_ = {options_.recordPath, "--record"};
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
    ImGui::NewFrame();
    const SimParams params = sim_->params();  // one copy a frame, for the panel
    ui::PanelState state = panelState(frameSeconds);
    state.params = &params;
    apply(panel_.draw(state, sweep_.recorder()));
    renderer_.centerShiftPixels = 0.5f * panel_.coveredLeft() * pixelScale;
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
    state.metrics = panel_.view.measureSchool ? &sim_->metrics(lastSeconds_) : nullptr;
    measureMs_ = state.metrics ? sim_->lastMeasureMilliseconds() : 0.0;
    if (state.metrics && sim_->measureCount() != plottedMeasures_) {
        plottedMeasures_ = sim_->measureCount();
        panel_.addMeasures(sim_->measuredSeconds(), *state.metrics);
        newNeighbors_ = {sim_->measuredFishCount(), state.metrics->meanNeighbors};
    }
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
    state.recordingVideo = video_.recording();
    state.videoFrames = video_.frames();
    return state;
}

bool App::simulate(double frameSeconds) {
    // While recording, each frame is one video frame: the simulation advances by its time.
    sim_->advance(video_.recording() ? 1.0 / video_.framesPerSecond() : frameSeconds);
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
    sweep_.onFrame(sample, *sim_, panel_);
    if (!options_.sweepFish.empty() && !sweep_.recorder().busy()) quit_ = true;
}

void App::render() {
    const double start = seconds();
    const SimParams params = sim_->params();
    if (params.bounds != cameraBounds_) {
        camera_.fit(params.bounds);
        cameraBounds_ = params.bounds;
    }
    renderTimer_.begin();
    renderer_.draw(params, camera_, width_, height_, fishSource(),
                   static_cast<float>(lastSeconds_ - startSeconds_),
                   panel_.view.colorByHeading ? render::FishColoring::ByHeading
                                              : render::FishColoring::BySpeed);
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    renderTimer_.end();
    // No glFinish: the GPU's time comes from the timer, a few frames late.
    const std::vector<double> gpuTimes = renderTimer_.collect();
    gpuRenderMsNew_ = !gpuTimes.empty();
    if (gpuRenderMsNew_) gpuRenderMs_ = gpuTimes.back();
    renderMs_ = (seconds() - start) * 1000.0;
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
    if (videoToStart_) {
        if (auto ok = video_.start(videoToStart_->path, videoToStart_->flag, width_, height_,
                                   options_.recordFps);
            !ok) {
            printError(ok.error());
            panel_.showError(ok.error());
            status_ = kExitInternal;
        } else {
            panel_.showMessage("recording the video " + quote(videoToStart_->path, 200));
        }
        videoToStart_.reset();
    }
    if (video_.recording()) {
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
    if (ok) ok = files.commit();
    if (!ok) {
        printError(ok.error());
        return kExitInternal;
    }
    if (videoFrames) reportVideo(*videoFrames);
    return kExitSuccess;
}

/// What the app starts from, read before the window opens, so a bad file costs no window.
struct StartScene {
    SimParams params;
    std::optional<School> school;  ///< --state-in's
};

Result<StartScene> readStartScene(const AppOptions& options) {
    auto params = loadParams(options.params);
    if (!params) return fail(params.error());
    StartScene scene{*params, std::nullopt};
    if (!options.stateInPath.empty()) {
        auto school = loadStateCsv(options.stateInPath, scene.params);
        if (!school) return fail(school.error());
        scene.school = std::move(*school);
    }
    return scene;
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
/// the display's usable area (less panels and docks), at most 1600 x 900 unless asked.
Result<void> openWindow(const AppOptions& options, Window& window) {
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
    std::string windowError, contextError;
    for (const int samples : {options.msaaSamples, 0}) {
        SDL_GL_SetAttribute(SDL_GL_MULTISAMPLEBUFFERS, samples > 0 ? 1 : 0);
        SDL_GL_SetAttribute(SDL_GL_MULTISAMPLESAMPLES, samples);
        window.window =
            SDL_CreateWindow("FishSchool", x, y, width, height,
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
    return sim;
}

}  // namespace

int runApp(const AppOptions& options) {
    const auto scene = readStartScene(options);
    if (!scene) return badInput(scene.error());
    if (auto ok = chooseVideoDriver(options); !ok) return badInput(ok.error());
    Window window;
    if (auto ok = openWindow(options, window); !ok) return badInput(ok.error());
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
        App app(options, window, std::move(*sim), std::move(*renderer));
        status = app.run();
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
    return status;
}

}  // namespace fishschool::app
