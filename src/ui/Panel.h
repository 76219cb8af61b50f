#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "Widgets.h"
#include "app_model/FolderListing.h"
#include "app_model/FpsRecorder.h"
#include "app_model/ScreenLayout.h"
#include "core/Backend.h"
#include "fishschool/Metrics.h"
#include "fishschool/SimParams.h"

namespace fishschool::ui {

/// A measure of the school at a simulated time, as the plots show it.
struct TimedMeasure {
    double seconds;  ///< simulated
    SchoolMetrics metrics;
};

/// One species of the running school as measured from a recent copy of it.
struct SpeciesMeasure {
    std::int64_t fish = 0;
    double meanSpeed = 0.0;  ///< m/s; 0 for a species without fish
};

/// What the panel shows this frame.
struct PanelState {
    const SimParams* params = nullptr;
    BackendKind backend = BackendKind::Cpu;
    std::string backendDescription;
    /// Per entry of backendRegistry(), in its order: why it cannot run, or empty.
    std::vector<std::string> unavailable;
    bool paused = false;
    Density density = Density::Fixed;
    std::size_t fishCount = 0;
    const SchoolMetrics* metrics = nullptr;  ///< null while not measured
    /// Per species of *params, in its order, once measured (empty without species).
    std::vector<SpeciesMeasure> species;
    double fps = 0.0, frameMs = 0.0, simulationMs = 0.0, renderMs = 0.0;
    bool renderOnGpu = false;  ///< renderMs is the GPU's time (timer queries), not the CPU's
    /// The fish a recent frame drew at each level of detail, and their triangles, once known.
    std::optional<FishPerLevel> fishPerLevel;
    std::uint64_t triangles = 0;
    std::span<const float> frameHistoryMs;
    double simulatedSeconds = 0.0;
    double speed = 1.0;
    /// Simulated seconds per wall second over the last seconds (SimulatedRate), once measured.
    std::optional<double> realSpeed;
    /// The school runs clearly slower than `speed`: the machine cannot step it that fast.
    bool behind = false;
    bool asFastAsItCan = false;
    double fastForwardLeft = 0.0;  ///< simulated seconds a fast-forward has still to run
    /// Lines the overlay's details add in grey, e.g. why the app chose a lighter default on
    /// software GL.
    std::vector<std::string> notices;
    /// Where the overlay sits: the corner beside the panel that covers the least of the tank.
    app::Corner overlayCorner = app::Corner::TopRight;
    /// What Undo and Redo would take back or make again: the keys of that change (empty when
    /// there is none).
    std::vector<std::string_view> undoKeys, redoKeys;
    bool canUndo = false, canRedo = false;
    /// The user asked to quit with parameters changed since they were last saved or loaded:
    /// the panel asks whether to save them.
    bool askingToQuit = false;
    /// The folder the file browser shows, as the app read it, or why it could not.
    struct Browser {
        std::optional<app::FolderListing> listing;
        std::string folder;  ///< asked for
        std::string error;
    };
    std::optional<Browser> browser;
    bool recordingVideo = false;
    long long videoFrames = 0;
    /// A recording being replayed: the app shows its frames instead of the live school.
    struct Replay {
        std::string fileName;
        std::size_t frame = 0, frameCount = 0;
        std::int64_t step = 0;
        double seconds = 0.0;  ///< the shown frame's simulated time
        double firstSeconds = 0.0, lastSeconds = 0.0;
        bool playing = false;
        double speed = 1.0;
        std::size_t cachedFrames = 0, cacheCapacity = 0;
        /// The file's measures, as the plots show them.
        const std::vector<TimedMeasure>* measures = nullptr;
    };
    std::optional<Replay> replay;
    /// The trajectory being recorded: its file and the frames given so far.
    struct Recording {
        std::string path;
        std::size_t frames = 0;
        std::int64_t every = 1;
    };
    std::optional<Recording> recordingTrajectory;

    /// Why backend number `index` of the registry cannot run; empty when it can (or is not listed).
    std::string_view unavailableReason(std::size_t index) const {
        return index < unavailable.size() ? std::string_view(unavailable[index])
                                          : std::string_view();
    }
};

/// What the user asked for this frame; the app carries it out and reports errors back.
struct PanelActions {
    std::optional<BackendKind> switchBackend;
    std::optional<Density> density;  ///< applied before newParams
    std::optional<SimParams> newParams;
    bool togglePause = false;
    bool step = false;
    std::optional<std::uint64_t> resetSeed;
    std::optional<std::string> loadStatePath;  ///< replace the school with a state CSV's
    std::optional<std::string> saveStatePath;  ///< write the school as a state CSV
    /// Replace the parameters with a config file's (the seed field follows: Panel::followSeed).
    std::optional<std::string> loadConfigPath;
    std::optional<std::string> saveConfigPath;  ///< write the running parameters as a config
    bool undo = false;  ///< back to the parameters before the last change (Ctrl+Z)
    bool redo = false;  ///< the change undone, again (Ctrl+Y)
    /// Apply preset `index` of presets(), with its own fish count or with the running one.
    struct PresetRequest {
        std::size_t index = 0;
        bool withItsFishCount = false;
    };
    std::optional<PresetRequest> applyPreset;
    bool quit = false;        ///< quit now, the changes unsaved (asked in the quit dialog)
    bool cancelQuit = false;  ///< stay (the quit dialog's Cancel, or Esc)
    /// Show this folder's files of this kind in the file browser.
    struct BrowseRequest {
        std::string folder;
        app::FileKind kind = app::FileKind::Config;
    };
    std::optional<BrowseRequest> browse;
    bool closeBrowser = false;
    std::optional<double> speed;  ///< simulated seconds per wall second
    std::optional<bool> asFastAsItCan;
    std::optional<double> fastForwardSeconds;  ///< run this much simulated time at once
    bool cancelFastForward = false;
    std::optional<std::string> startVideoPath;  ///< record the window as a video
    bool videoSceneOnly = false;                ///< that video without the panel and overlay
    bool stopVideo = false;
    /// Record the school to a trajectory (H5MD) every this many steps.
    struct TrajectoryRequest {
        std::string path;
        std::int64_t every = 1;
    };
    std::optional<TrajectoryRequest> startTrajectory;
    bool stopTrajectory = false;
    // A replay's requests.
    std::optional<std::string> openRecordingPath;  ///< replay this trajectory
    bool closeReplay = false;                      ///< back to the live school
    std::optional<std::size_t> replaySeek;         ///< show this frame
    std::optional<std::int64_t> replayStepFrames;  ///< pause and move this many frames
    std::optional<bool> replayPlay;                ///< play or pause
    std::optional<double> replaySpeed;
    /// Start a live simulation from the shown frame, on the chosen backend.
    bool continueFromReplay = false;
    // The FPS recorder's buttons.
    bool recordFps = false;  ///< measure the current scene as one row
    /// Measure these fish counts on these backends.
    struct SweepRequest {
        std::vector<BackendKind> backends;
        std::vector<std::int64_t> fishCounts;
    };
    std::optional<SweepRequest> sweepFps;
    bool cancelFpsRecording = false;              ///< stop; the rows so far stay
    std::optional<std::string> exportFpsCsvPath;  ///< write the rows as CSV
    bool clearFpsRecords = false;                 ///< forget the rows
};

/// What gives a fish its colour.
enum class FishColor { Speed, Heading, Species };
inline constexpr const char* kFishColorNames[] = {"speed", "heading", "species"};

/// Where the camera looks: where the user put it, or following the school's centre or its
/// largest group (from the measures), as a school in open water needs.
enum class CameraFollow { Off, School, LargestGroup };
inline constexpr const char* kCameraFollowNames[] = {"off", "the school", "its largest group"};

/// Display settings the panel owns and the renderer reads.
struct ViewSettings {
    /// Picked in View or by --color; unset: by species when the school has species, else by
    /// speed.
    std::optional<FishColor> color;
    /// The colouring of a school of `params`: species falls back to speed without species.
    FishColor coloring(const SimParams& params) const {
        const FishColor asked =
            color.value_or(params.species.empty() ? FishColor::Speed : FishColor::Species);
        return asked == FishColor::Species && params.species.empty() ? FishColor::Speed : asked;
    }
    bool vsync = true;
    bool measureSchool = true;
    CameraFollow follow = CameraFollow::Off;
    bool showPanel = true;
    bool showOverlay = true;
    /// The overlay's details (render time, levels of detail, measures, legend, frame plot), or
    /// only its lines of speed.
    bool overlayDetails = false;
    bool showHelp = false;
};

/// The Dear ImGui panel (every parameter, the backend, presets, config files, the recorder) and
/// the overlay (FPS, frame, simulation and render times, a frame-time graph).
class Panel {
  public:
    PanelActions draw(const PanelState& state, const FpsRecorder& recorder);
    /// Shows an error until the next successful change, e.g. a refused value or file: at the
    /// bottom of the window, where it moves no control.
    void showError(std::string message) { error_ = std::move(message); }
    void clearError() { error_.clear(); }
    /// A notice at the bottom of the window for a few seconds, e.g. "saved school.csv".
    void showMessage(std::string message);
    const std::string& error() const { return error_; }
    /// The seed the Reset button (and the R key) starts a school from: the seed field, which
    /// starts as the running school's and follows a loaded config or preset.
    std::uint64_t seedForReset(std::uint64_t running) const { return resetSeed_.value_or(running); }
    /// Sets the seed field, e.g. to a loaded config's seed.
    void followSeed(std::uint64_t seed) { resetSeed_ = seed; }
    /// Names where the running parameters came from in the preset box (a loaded config's file
    /// name, "custom"), until a preset is picked there.
    void followSource(std::string name) {
        sourceName_ = std::move(name);
        presetPicked_ = false;
    }
    /// What the preset box shows: the preset picked in it, else where the parameters came from.
    std::string presetBoxLabel() const;
    /// The path field a file picked in the browser goes to.
    enum class PathField { Config, School, Recording };
    /// The text of a path field, e.g. after a file was picked in the browser.
    std::string pathField(PathField field) const;
    /// Whether the control `label` was drawn dimmed in the last frame (the running steering
    /// does not read its key).
    bool controlDimmed(const std::string& label) const { return widgets_.dimmed(label); }
    /// The widest the panel grows in a window `windowWidth` pixels wide: 40% of it, at most 43
    /// font sizes (its natural width in a large window), so that a small window keeps most of
    /// its width for the tank and the overlay.
    static float panelMaxWidth(float windowWidth, float fontSize) {
        return std::min(0.4f * windowWidth, 43.0f * fontSize);
    }
    /// Pixels from the left edge that the panel covered in the last frame (0 when hidden or
    /// moved away from the left edge).
    float coveredLeft() const { return coveredLeft_; }
    /// Where the overlay was drawn in the last frame; empty when it was not.
    app::ScreenRect overlayRect() const { return overlayRect_; }
    /// Adds a measure of the school at simulated time `seconds` to the plots, which keep the
    /// last kPlotSeconds; a time earlier than the last (a new school) starts them again.
    void addMeasures(double seconds, const SchoolMetrics& metrics);
    static constexpr double kPlotSeconds = 180.0;
    using Measure = TimedMeasure;
    /// Where the control `label` (a slider, a section's header, "fish count", or a rock's radius
    /// as "rocks[0].radius") was drawn in the last frame, as {x0, y0, x1, y1} in pixels; all zero
    /// if it was not. Lets tests click it.
    std::array<float, 4> controlRect(const std::string& label) const {
        return widgets_.rect(label);
    }
    /// What the plots show, oldest first.
    const std::vector<Measure>& measures() const { return measures_; }
    /// The simulated seconds the Fast-forward button (and the F key) runs.
    double fastForwardSeconds() const { return fastForwardSeconds_; }

    ViewSettings view;

  private:
    void drawOverlay(const PanelState& state);
    /// The overlay's details, under its lines of speed.
    void drawOverlayDetails(const PanelState& state, float graphWidth, bool stepping);
    /// The error and the latest notice, at the bottom centre of the window.
    void drawNotices();
    void drawHelp();
    /// The dialog that asks before changed parameters are lost: save them, quit without, or
    /// stay.
    void drawQuitDialog(bool asking, PanelActions& actions);
    /// A path field with its Browse button, which opens the browser on the field's folder.
    void pathFieldWithBrowse(const char* label, char* text, std::size_t size, PathField field,
                             app::FileKind kind, PanelActions& actions, const char* help);
    /// The file browser's window: the folder's subfolders and files; a file picked goes to the
    /// field that opened it.
    void drawBrowser(const PanelState::Browser& browser, PanelActions& actions);
    /// Undo and Redo, with what they would change in their tooltips.
    void drawUndoRedo(const PanelState& state, PanelActions& actions);
    /// The live measures, or a replay's with the shown frame's time marked.
    void drawPlots(const PanelState& state);
    /// The parameters, a section each (PanelParameters.cpp); each section's function returns
    /// true when it changed `edited`.
    void drawParameters(const PanelState& state, PanelActions& actions);
    bool drawSchool(const PanelState& state, SimParams& edited, PanelActions& actions);
    bool drawBehaviour(SimParams& edited);
    /// The config's values of the per-fish keys, then each species (PanelSpecies.cpp).
    bool drawSpecies(const PanelState& state, SimParams& edited);
    bool drawSpeciesList(const PanelState& state, SimParams& edited);
    /// Species `s`'s name, count, colour, measures and own values; sets `remove` when its remove
    /// button was clicked.
    bool drawOneSpecies(const PanelState& state, SimParams& edited, std::size_t s, bool& remove);
    /// The per-fish keys species `s` sets, each with a box that says whether it sets it.
    bool drawOwnValues(SimParams& edited, std::size_t s);
    bool drawTargetAndAvoidance(SimParams& edited);
    bool drawTank(SimParams& edited);
    bool drawRocks(SimParams& edited);
    void drawView(const PanelState& state);
    void drawFiles(const PanelState& state, PanelActions& actions);
    /// The replay's timeline and buttons (PanelReplay.cpp).
    void drawReplay(const PanelState::Replay& replay, PanelActions& actions);
    /// Opening a recording and recording a trajectory (PanelReplay.cpp).
    void drawTrajectoryFiles(const PanelState& state, PanelActions& actions);
    /// The overlay's lines of a replay: its file and frame, and with `details` its time, play
    /// and cache.
    void drawReplayOverlay(const PanelState::Replay& replay, bool details);
    /// The steering of the other sources: minimum speed, steering and combination modes,
    /// avoidance by rays, leaders and predators.
    bool drawSteering(SimParams& edited);
    /// Steering "burst-and-coast"'s keys: kicks, glides and the turns of a kick.
    bool drawBurst(SimParams& edited);
    /// The keys of paramTable() under `section`, in its order: those the table draws, and
    /// drawCustom(info) for those the section draws itself. True when one changed.
    template <class DrawCustom>
    bool drawKeys(const char* section, SimParams& edited, DrawCustom&& drawCustom);
    /// The FPS recorder's section (PanelRecorder.cpp).
    void drawRecorder(const PanelState& state, const FpsRecorder& recorder, PanelActions& actions);

    Widgets widgets_;
    std::string error_;
    float coveredLeft_ = 0.0f;
    app::ScreenRect overlayRect_;
    float rowRight_ = 0.0f;  ///< the screen x where the panel's rows wrap, this frame
    std::string message_;
    double messageUntil_ = 0.0;  ///< ImGui time at which the notice fades
    float fastForwardSeconds_ = 20.0f;
    std::vector<Measure> measures_;  ///< oldest first, the last kPlotSeconds
    char configPath_[256] = "fishschool.json";
    char statePath_[256] = "school.csv";
    char csvPath_[256] = "fps.csv";
    char videoPath_[256] = "fishschool.mp4";
    bool videoSceneOnly_ = false;
    char recordingPath_[256] = "school.h5";       ///< the recording to open
    char trajectoryPath_[256] = "school.h5";      ///< where Record trajectory writes
    std::array<char, 32> trajectoryEveryText_{};  ///< its every-N-steps field
    std::int64_t trajectoryEvery_ = 1;
    char sweepFish_[256] = "1000,2000,5000,10000,20000";
    std::vector<bool> sweepBackends_;         ///< per entry of backendRegistry(); all on at first
    std::optional<std::uint64_t> resetSeed_;  ///< starts as the running school's seed
    std::array<char, 32> fishText_{};         ///< the fish count field's text
    std::array<char, 32> seedText_{};         ///< the seed field's text
    /// Per species: the text of its name and count fields.
    std::vector<std::array<char, 72>> speciesNameText_;
    std::vector<std::array<char, 32>> speciesCountText_;
    PathField browsing_ = PathField::Config;  ///< the field the browser fills
    int presetIndex_ = 0;
    bool presetFishCount_ = false;        ///< apply the preset with its own fish count
    std::string sourceName_ = "Default";  ///< the preset or file the parameters came from
    bool presetPicked_ = false;           ///< a preset was picked in the box since
};

}  // namespace fishschool::ui
