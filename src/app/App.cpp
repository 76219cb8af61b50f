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
#include "VideoRecorder.h"
#include "core/BackendRegistry.h"
#include "core/ConfigIO.h"
#include "core/ExitStatus.h"
#include "core/OutputFiles.h"
#include "core/StateIO.h"
#include "core/TextInput.h"
#include "gpu/GlObjects.h"
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
        if (!options.sweepFish.empty()) {
            recorder_.measureSeconds = options.sweepSeconds;
            recorder_.warmupSeconds = options.sweepSeconds / 3.0;
        }
    }

    int run();

  private:
    void handleEvent(const SDL_Event& event);
    /// --switch-every: hands the school to the next backend this machine runs.
    void switchToNextBackend(std::int64_t frame);
    /// Writes what the options ask for at the end (sweep CSV, state); returns the exit status.
    int finish();
    void apply(const ui::PanelActions& actions);
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
    ui::FpsRecorder recorder_;
    bool quit_ = false;
    bool screenshotRequested_ = false;
    std::optional<std::string> finalScreenshot_;  ///< --screenshot's PNG, written by finish()
    std::size_t sweepRowsPrinted_ = 0;
    std::uint64_t plottedMeasures_ = 0;
    VideoRecorder video_;
    std::optional<std::string> videoToStart_;  ///< started once the frame's size is known
    /// Closes the video; false when it could not be written.
    bool finishVideo();
    /// The scene before a sweep, set back when it ends.
    struct SceneBeforeSweep {
        BackendKind backend;
        School school;
        bool paused;
        double simulatedSeconds;
    };
    std::optional<SceneBeforeSweep> beforeSweep_;
    void restoreAfterSweep();
    std::deque<float> frameHistory_;
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
        case SDL_KEYDOWN: {
            if (io.WantCaptureKeyboard) break;
            // A held key repeats only where repeating means something: N steps on.
            if (event.key.repeat && event.key.keysym.sym != SDLK_n) break;
            ui::PanelActions actions;
            // Keys 1, 2, 3... pick the backends in the registry's order.
            const SDL_Keycode key = event.key.keysym.sym;
            if (key >= SDLK_1 && key <= SDLK_9) {
                const auto index = static_cast<std::size_t>(key - SDLK_1);
                if (index < backendRegistry().size())
                    actions.switchBackend = backendRegistry()[index].kind;
            }
            switch (key) {
                case SDLK_SPACE:
                    actions.togglePause = true;
                    break;
                case SDLK_n:
                    actions.step = true;
                    break;
                case SDLK_r:
                    actions.resetSeed = panel_.seedForReset(sim_->params().seed);
                    break;
                case SDLK_c:
                    camera_.reset(sim_->params().bounds);
                    cameraBounds_ = sim_->params().bounds;
                    break;
                case SDLK_F1:
                case SDLK_QUESTION:
                    panel_.view.showHelp = !panel_.view.showHelp;
                    break;
                case SDLK_SLASH:  // ? on most layouts
                    if (event.key.keysym.mod & KMOD_SHIFT)
                        panel_.view.showHelp = !panel_.view.showHelp;
                    break;
                case SDLK_F2:
                    panel_.view.showPanel = !panel_.view.showPanel;
                    break;
                case SDLK_LEFTBRACKET:
                case SDLK_RIGHTBRACKET: {
                    const double factor = key == SDLK_RIGHTBRACKET ? 2.0 : 0.5;
                    actions.speed =
                        std::clamp(sim_->speed * factor, SimulationController::kMinSpeed,
                                   SimulationController::kMaxSpeed);
                    actions.asFastAsItCan = false;
                    break;
                }
                case SDLK_f:
                    actions.fastForwardSeconds = panel_.fastForwardSeconds();
                    break;
                case SDLK_F12:
                    screenshotRequested_ = true;
                    break;
                case SDLK_ESCAPE:
                    if (panel_.view.showHelp)
                        panel_.view.showHelp = false;
                    else
                        quit_ = true;
                    break;
                default:
                    break;
            }
            apply(actions);
            break;
        }
        case SDL_MOUSEMOTION:
            if (io.WantCaptureMouse) break;
            if (event.motion.state & SDL_BUTTON_LMASK) {
                camera_.orbit(static_cast<float>(event.motion.xrel),
                              static_cast<float>(event.motion.yrel));
            } else if (event.motion.state & (SDL_BUTTON_RMASK | SDL_BUTTON_MMASK)) {
                int w = 0, h = 0;
                SDL_GL_GetDrawableSize(window_.window, &w, &h);
                camera_.pan(static_cast<float>(event.motion.xrel),
                            static_cast<float>(event.motion.yrel), static_cast<float>(h));
            }
            break;
        case SDL_MOUSEWHEEL:
            if (!io.WantCaptureMouse) camera_.zoom(static_cast<float>(event.wheel.y));
            break;
        default:
            break;
    }
}

void App::apply(const ui::PanelActions& actions) {
    if (actions.switchBackend) report(sim_->switchBackend(*actions.switchBackend));
    if (actions.density) sim_->setDensity(*actions.density);
    if (actions.newParams) report(sim_->applyParams(*actions.newParams));
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
            videoToStart_ = *actions.startVideoPath;
    }
    if (actions.stopVideo) (void)finishVideo();
    if (actions.step) sim_->stepOnce();
    if (actions.resetSeed) sim_->reset(*actions.resetSeed);
    if (actions.saveStatePath) {
        const auto saved =
            saveStateCsv(*actions.saveStatePath, sim_->backend().download(), sim_->params());
        report(saved);
        if (saved) panel_.showMessage("saved the school to " + *actions.saveStatePath);
    }
    if (actions.loadStatePath) {
        auto school = loadStateCsv(*actions.loadStatePath, sim_->params());
        const Result<void> loaded =
            school ? sim_->replaceSchool(*school) : Result<void>(fail(school.error()));
        report(loaded);
        if (loaded) panel_.showMessage("loaded the school from " + *actions.loadStatePath);
    }
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
    const bool sweeping = !options_.sweepFish.empty();
    if (sweeping) {
        std::vector<BackendKind> backends;
        std::vector<BackendKind> asked = options_.sweepBackends;
        if (asked.empty())
            for (const BackendEntry& entry : backendRegistry()) asked.push_back(entry.kind);
        for (BackendKind kind : asked) {
            const std::string& reason = sim_->unavailableReason(kind);
            if (reason.empty())
                backends.push_back(kind);
            else
                std::cerr << "sweep: skipping " << toString(kind) << ": " << reason << "\n";
        }
        if (auto ok = recorder_.startSweep(backends, options_.sweepFish); !ok) {
            printError(ok.error());
            return kExitBadInput;
        }
    }
    if (!options_.recordPath.empty()) videoToStart_ = options_.recordPath;
    int status = 0;
    const double start = seconds();
    double last = start;
    double renderMs = 0.0;
    double measureMs = 0.0;  // last frame's: the measures come after the recorder's sample
    std::int64_t frame = 0;
    bool vsync = !panel_.view.vsync;  // forces the first SetSwapInterval
    while (!quit_) {
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
        if (vsync != panel_.view.vsync) {
            vsync = panel_.view.vsync;
            SDL_GL_SetSwapInterval(vsync ? 1 : 0);
        }

        const double now = seconds();
        const double frameSeconds = now - last;
        last = now;
        frameHistory_.push_back(static_cast<float>(frameSeconds * 1000.0));
        if (frameHistory_.size() > 240) frameHistory_.pop_front();

        // While recording, each frame is one video frame: the simulation advances by its time.
        sim_->advance(video_.recording() ? 1.0 / video_.framesPerSecond() : frameSeconds);
        // A GL failure mid-run (out of GPU memory, a lost context) loses the GPU's school: say so
        // and stop rather than draw and save what is left.
        if (auto ok = sim_->backend().health(); !ok) {
            printError(ok.error());
            status = kExitInternal;
            break;
        }
        const double simulationMs = sim_->lastStepsMilliseconds();

        ui::FrameSample sample{frameSeconds,
                               simulationMs,
                               renderMs,
                               sim_->backendKind(),
                               static_cast<std::int64_t>(sim_->fishCount()),
                               sim_->density(),
                               {},
                               measureMs};
        if (newNeighbors_ && newNeighbors_->first == sample.fish)
            sample.meanNeighbors = newNeighbors_->second;
        newNeighbors_.reset();
        if (recorder_.sweeping() && !beforeSweep_)
            beforeSweep_ = SceneBeforeSweep{sim_->backendKind(), sim_->backend().download(),
                                            sim_->paused, sim_->simulatedSeconds()};
        const ui::FpsRecorder::Request request = recorder_.onFrame(sample);
        if (request.backend || request.fish) {
            const auto set = sim_->setScene(request.backend.value_or(sim_->backendKind()),
                                            request.fish.value_or(sim_->params().fishCount));
            if (!set) {
                recorder_.skipCase(set.error());
                if (sweeping) std::cerr << "sweep: skipped " << recorder_.skipped().back() << "\n";
            }
            report(set);
        }
        if (!recorder_.sweeping() && beforeSweep_) restoreAfterSweep();
        if (sweeping && recorder_.records().size() > sweepRowsPrinted_) {
            // Progress where the user looks: the terminal that started the sweep.
            const ui::FpsRecord& row = recorder_.records().back();
            sweepRowsPrinted_ = recorder_.records().size();
            std::fprintf(stderr, "sweep: %zu/%zu %s, %lld fish: %.1f FPS\n", recorder_.casesDone(),
                         recorder_.caseCount(), std::string(toString(row.backend)).c_str(),
                         static_cast<long long>(row.fish), row.fps);
        }
        if (sweeping && !recorder_.busy()) quit_ = true;
        if (options_.switchEveryFrames > 0 && frame > 0 && frame % options_.switchEveryFrames == 0)
            switchToNextBackend(frame);

        const double renderStart = seconds();
        int width = 0, height = 0;
        SDL_GL_GetDrawableSize(window_.window, &width, &height);
        int windowWidth = 0;
        SDL_GetWindowSize(window_.window, &windowWidth, nullptr);
        const float pixelScale =
            static_cast<float>(width) / static_cast<float>(std::max(windowWidth, 1));
        renderer_.centerShiftPixels = 0.5f * panel_.coveredLeft() * pixelScale;
        const SimParams params = sim_->params();  // one copy a frame, for the scene and the panel
        if (params.bounds != cameraBounds_) {
            camera_.fit(params.bounds);
            cameraBounds_ = params.bounds;
        }
        renderer_.draw(params, camera_, width, height, fishSource(),
                       static_cast<float>(now - start),
                       panel_.view.colorByHeading ? render::FishColoring::ByHeading
                                                  : render::FishColoring::BySpeed);

        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplSDL2_NewFrame();
        ImGui::NewFrame();
        std::vector<float> history(frameHistory_.begin(), frameHistory_.end());
        ui::PanelState state;
        state.params = &params;
        state.backend = sim_->backendKind();
        state.backendDescription = sim_->backend().description();
        for (const BackendEntry& entry : backendRegistry())
            state.unavailable.push_back(sim_->unavailableReason(entry.kind));
        state.paused = sim_->paused;
        state.density = sim_->density();
        state.fishCount = sim_->fishCount();
        // The frame only hands a copy of the school to the measures' worker, at most twice a
        // second, and shows the latest measures it finished.
        state.metrics = panel_.view.measureSchool ? &sim_->metrics(now) : nullptr;
        measureMs = state.metrics ? sim_->lastMeasureMilliseconds() : 0.0;
        if (state.metrics && sim_->measureCount() != plottedMeasures_) {
            plottedMeasures_ = sim_->measureCount();
            panel_.addMeasures(sim_->measuredSeconds(), *state.metrics);
            newNeighbors_ = {sim_->measuredFishCount(), state.metrics->meanNeighbors};
        }
        state.fps = frameSeconds > 0.0 ? 1.0 / frameSeconds : 0.0;
        if (history.size() >= 30) {
            double sum = 0.0;
            for (std::size_t k = history.size() - 30; k < history.size(); ++k) sum += history[k];
            state.fps = 1000.0 * 30.0 / sum;
        }
        state.frameMs = frameSeconds * 1000.0;
        state.simulationMs = simulationMs;
        state.renderMs = renderMs;
        state.frameHistoryMs = history;
        state.simulatedSeconds = sim_->simulatedSeconds();
        state.speed = sim_->speed;
        state.asFastAsItCan = sim_->asFastAsItCan;
        state.fastForwardLeft = sim_->fastForwardLeft();
        state.recordingVideo = video_.recording();
        state.videoFrames = video_.frames();
        apply(panel_.draw(state, recorder_));
        ImGui::Render();
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        glFinish();  // so the render time is the GPU's too
        renderMs = (seconds() - renderStart) * 1000.0;

        ++frame;
        const bool lastFrame = (options_.frames > 0 && frame >= options_.frames) || quit_;
        // --screenshot is written with the other outputs when the run ends (finish()).
        if (lastFrame && !options_.screenshotPath.empty()) {
            if (auto png = encodeScreenshotPng(width, height); !png) {
                printError(png.error());
                status = kExitInternal;
            } else {
                finalScreenshot_ = std::move(*png);
            }
        }
        if (screenshotRequested_) {
            const std::string path = timestampedScreenshotName();
            screenshotRequested_ = false;
            if (auto ok = saveScreenshot(path, width, height); !ok) {
                printError(ok.error());
                panel_.showError(ok.error());
            } else {
                panel_.showMessage("saved the screenshot " + path);
            }
        }
        if (videoToStart_) {
            if (auto ok = video_.start(*videoToStart_, width, height, options_.recordFps); !ok) {
                printError(ok.error());
                panel_.showError(ok.error());
                status = kExitInternal;
            } else {
                panel_.showMessage("recording the video " + *videoToStart_);
            }
            videoToStart_.reset();
        }
        if (video_.recording()) {
            if (auto ok = video_.addFrame(width, height); !ok) {
                printError(ok.error());
                panel_.showError(ok.error());
                status = kExitInternal;
            }
        }
        SDL_GL_SwapWindow(window_.window);
        if (lastFrame) quit_ = true;
        if (auto ok = gpu::checkGlErrors("frame"); !ok) {
            status = kExitInternal;  // stop, but keep what was measured and the school
            break;
        }
    }
    const int finished = finish();
    return status != 0 ? status : finished;
}

void App::restoreAfterSweep() {
    // The fewer fish first, so no step of the way is refused; then the school as it was.
    Result<void> ok = sim_->setScene(beforeSweep_->backend,
                                     static_cast<std::int64_t>(beforeSweep_->school.size()));
    if (ok) ok = sim_->replaceSchool(beforeSweep_->school);
    if (ok) sim_->setSimulatedSeconds(beforeSweep_->simulatedSeconds);
    sim_->paused = beforeSweep_->paused;
    report(ok);
    if (ok) panel_.showMessage("sweep done; the school is back as it was");
    beforeSweep_.reset();
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

bool App::finishVideo() {
    if (!video_.recording()) return true;
    const auto frames = video_.finish();
    if (frames) {
        const std::string done = "wrote the video " + video_.path().string() + " (" +
                                 std::to_string(*frames) + " frames)";
        std::cerr << done << "\n";
        panel_.showMessage(done);
        return true;
    }
    printError(frames.error());
    panel_.showError(frames.error());
    return false;
}

int App::finish() {
    int status = 0;
    if (!finishVideo()) status = kExitInternal;
    // Every output goes to its temporary file first, and the files are replaced together once
    // all were written: a full disk on the last replaces none (OutputFiles).
    struct Output {
        const char* flag;
        const std::string& path;
        std::string content;
    };
    std::vector<Output> outputs;
    if (!options_.sweepFish.empty()) {
        // A sweep stopped early (the window closed) still keeps what it measured.
        if (recorder_.busy())
            std::cerr << "sweep: stopped after " << recorder_.casesDone() << " of "
                      << recorder_.caseCount() << " cases; writing the rows measured\n";
        outputs.push_back({"--csv", options_.sweepCsvPath, recorder_.csv()});
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
    OutputFiles files;
    Result<void> ok;
    for (const Output& out : outputs) {
        if (ok) ok = files.add(out.flag, out.path);
        if (ok) ok = files.write(out.flag, out.content);
    }
    if (ok) ok = files.commit();
    if (!ok) {
        printError(ok.error());
        status = kExitInternal;
    }
    return status;
}

}  // namespace

int runApp(const AppOptions& options) {
    auto loaded = loadParams(options.params);
    if (!loaded) {
        printError(loaded.error());
        return kExitBadInput;
    }
    const SimParams& params = *loaded;
    // Read before the window opens, so a bad file costs no window.
    std::optional<School> startSchool;
    if (!options.stateInPath.empty()) {
        auto school = loadStateCsv(options.stateInPath, params);
        if (!school) {
            printError(school.error());
            return kExitBadInput;
        }
        startSchool = std::move(*school);
    }

    // Without a display the app can still run offscreen (EGL) for the flags that end by
    // themselves; run by hand it would show nothing and never end.
    const auto set = [](const char* name) {
        const char* value = std::getenv(name);
        return value != nullptr && *value != '\0';
    };
    if (!set("DISPLAY") && !set("WAYLAND_DISPLAY") && !set("SDL_VIDEODRIVER")) {
        if (options.frames == 0 && options.sweepFish.empty() && options.recordPath.empty()) {
            std::cerr << "error: no display (DISPLAY and WAYLAND_DISPLAY are not set): run it on a "
                         "desktop or under xvfb-run; without a display it runs offscreen only "
                         "with --frames, --sweep or --record\n";
            return kExitBadInput;
        }
        ::setenv("SDL_VIDEODRIVER", "offscreen", 1);
        std::cerr << "no display: running offscreen\n";
    }
    Window window;
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) {
        std::cerr << "error: cannot open a display: " << SDL_GetError()
                  << " (run it on a desktop, or under xvfb-run)\n";
        return kExitBadInput;
    }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 4);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 5);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
#ifndef NDEBUG
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_DEBUG_FLAG);
#endif
    // Multisampling smooths the thin fish and the tank's edges; without it where it is missing.
    // The window fits the display's usable area (less panels and docks), at most 1600 x 900.
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
    if (window.context == nullptr) {
        if (contextError.empty())
            std::cerr << "error: cannot create a window: " << windowError << "\n";
        else
            std::cerr << "error: OpenGL 4.5 core is not available here: " << contextError << "\n";
        return kExitBadInput;
    }
    SDL_GL_MakeCurrent(window.window, window.context);
    if (gladLoadGL(reinterpret_cast<GLADloadfunc>(SDL_GL_GetProcAddress)) == 0 ||
        !GLAD_GL_VERSION_4_5) {
        std::cerr << "error: OpenGL 4.5 core is not available here\n";
        return kExitBadInput;
    }
    gpu::enableGlDebugOutput();

    const BackendKind kind = options.backend.value_or(BackendKind::Tbb);
    // At fixed density `--fish N` scales the config's tank, rocks and target from the config's
    // own fish count, as `fishschool-cli bench --density fixed` does.
    SimParams startParams = params;
    std::optional<SimParams> densityBase;
    if (options.density == Density::Fixed && options.params.fish && !startSchool) {
        ParamFlags withoutFish = options.params;
        withoutFish.fish.reset();
        if (auto base = loadParams(withoutFish)) {
            densityBase = *base;
            startParams = fixedDensityParams(params.fishCount, *base);
        }
    }
    auto sim =
        SimulationController::create(startParams, kind, startSchool ? &*startSchool : nullptr);
    if (!sim) {
        printError(sim.error());
        return kExitBadInput;
    }
    (*sim)->setDensity(options.density);
    if (densityBase) (*sim)->setDensityBase(*densityBase);
    (*sim)->paused = options.startPaused;
    auto renderer = render::SceneRenderer::create();
    if (!renderer) {
        printError(renderer.error());
        return kExitInternal;
    }

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
