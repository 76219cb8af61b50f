#include "fishschool/Simulation.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <nlohmann/json.hpp>

#include "Recording.h"
#include "SimulationInternals.h"
#include "backends/BackendRegistry.h"
#include "core/Backend.h"
#include "core/Messages.h"
#include "core/ParamTable.h"
#include "core/Scenario.h"
#include "io/ConfigIO.h"
#include "io/JsonText.h"
#include "io/StateIO.h"
#include "io/TextInput.h"
#include "io/Trajectory.h"

namespace fishschool {

std::vector<BackendInfo> backends() {
    std::vector<BackendInfo> infos;
    for (const BackendEntry& entry : backendRegistry())
        infos.push_back({std::string(entry.name), std::string(entry.label), entry.built});
    return infos;
}

Result<void> checkBackendName(std::string_view name) {
    if (auto kind = parseBackendFlag("backend", name); !kind) return fail(kind.error());
    return {};
}

std::string_view version() {
    return FISHSCHOOL_VERSION;
}

struct Simulation::State {
    /// Every parameter but the fish count (its fishCount is never read): the school's count is
    /// backend->fishCount().
    SimParams settings;
    std::unique_ptr<Backend> backend;
    double seconds = 0.0;
    std::uint64_t version = 0;
    /// The school as last read, and the version it was read at.
    std::shared_ptr<School> read = std::make_shared<School>();
    std::uint64_t readVersion = ~std::uint64_t{0};
    /// The outputs being recorded, or none.
    std::unique_ptr<Recording> recording;

    /// Refuses what would change the school's size or replace it while a trajectory records.
    Result<void> checkSchoolKept(const char* what) const {
        if (recording && recording->fixesFishCount())
            return fail(std::string(what) +
                        " is not allowed while a trajectory records: it holds one school; "
                        "finish the recording first");
        return {};
    }

    /// `steps` steps of the backend, each by `stepOnce`, with the clock and the school's version
    /// following; nothing when the backend already failed.
    template <class StepOnce>
    Result<void> advance(std::int64_t steps, StepOnce&& stepOnce) {
        if (auto ok = healthy(); !ok) return ok;
        if (steps == 0) return {};
        ++version;
        for (std::int64_t s = 0; s < steps; ++s) stepOnce(*backend);
        seconds += static_cast<double>(steps) * settings.dt;
        return healthy();
    }
    /// The backend's health: a failure mid-run is the device's, never the input's.
    Result<void> healthy() const {
        auto ok = backend->health();
        if (!ok && ok.error().kind() == ErrorKind::BadInput)
            return fail(Error(ok.error(), ErrorKind::Internal));
        return ok;
    }

    void readSchool() {
        if (readVersion == version) return;
        // A holder of the buffer (sharedSchool()) keeps the school it read, whole: the new one
        // goes into a buffer of its own. Else the buffer is refilled where it is.
        if (read.use_count() > 1) read = std::make_shared<School>();
        backend->downloadInto(*read);
        readVersion = version;
    }

    SimParams params() const {
        SimParams p = settings;
        p.fishCount = static_cast<std::int64_t>(backend->fishCount());
        return p;
    }
    /// The school replaced with `school`, checked against `params` (valid), which take effect
    /// with it; on failure nothing changes.
    Result<void> replace(const SimParams& params, std::span<const Fish> school) {
        for (std::size_t i = 0; i < school.size(); ++i)
            if (auto ok = checkFish(school[i], params, i); !ok) return ok;
        const SimParams before = settings;
        if (auto ok = backend->setParams(params); !ok) return ok;
        if (auto ok = backend->upload(school); !ok) {
            (void)backend->setParams(before);
            return ok;
        }
        settings = params;
        ++version;
        return {};
    }
    static Result<void> checkFish(const Fish& fish, const SimParams& params, std::size_t index) {
        const auto finite = [](const glm::vec3& v) {
            return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
        };
        if (!finite(fish.position) || !finite(fish.velocity) || !finite(fish.acceleration))
            return fail("fish " + std::to_string(index) +
                        ": a position, velocity or "
                        "acceleration that is not a finite number");
        if (fish.species >= speciesCount(params))
            return fail("fish " + std::to_string(index) + ": species " +
                        std::to_string(fish.species) + " is not allowed; " +
                        (params.species.empty()
                             ? std::string("without species every fish is of species 0")
                             : "must be 0 to " + std::to_string(params.species.size() - 1) +
                                   " (the index of one of the " +
                                   std::to_string(params.species.size()) + " species)"));
        if (!isInScene(fish.position, params))
            return fail(
                "fish " + std::to_string(index) + ": " + formatPoint(fish.position) +
                " is outside the tank or inside a rock; must lie in the tank (each coordinate "
                "within +-" +
                formatPoint(params.bounds) + ") and outside every rock");
        if (params.dimensions == 2 && (fish.position.y != 0.0f || fish.velocity.y != 0.0f))
            return fail("fish " + std::to_string(index) + ": " + formatPoint(fish.position) +
                        " with velocity " + formatPoint(fish.velocity) +
                        " is not allowed; with dimensions 2 every fish lies and moves in the "
                        "plane y = 0");
        return {};
    }
};

Simulation::Simulation(std::unique_ptr<State> state) : state_(std::move(state)) {}
Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;
Simulation::~Simulation() = default;

Result<Simulation> Simulation::create(const SimParams& params, std::string_view backend) {
    if (auto ok = validate(params); !ok) return fail(ok.error());
    const School school = makeInitialSchool(params);
    return create(params, backend, school);
}

Result<Simulation> Simulation::create(const SimParams& requested, std::string_view backend,
                                      std::span<const Fish> school) {
    const auto kind = parseBackendFlag("backend", backend);
    if (!kind) return fail(kind.error());
    SimParams params = requested;
    countSchool(params, school);
    if (auto ok = validate(params); !ok) return fail(ok.error());
    for (std::size_t i = 0; i < school.size(); ++i)
        if (auto ok = State::checkFish(school[i], params, i); !ok) return fail(ok.error());
    // The backend first: one that cannot hold the school says so before anything else.
    auto made = createBackend(*kind, params);
    if (!made) return fail(made.error());
    return SimulationInternals::create(params, std::move(*made), school);
}

Result<Simulation> SimulationInternals::create(const SimParams& requested,
                                               std::unique_ptr<Backend> backend,
                                               std::span<const Fish> school) {
    SimParams params = requested;
    countSchool(params, school);
    if (auto ok = validate(params); !ok) return fail(ok.error());
    for (std::size_t i = 0; i < school.size(); ++i)
        if (auto ok = Simulation::State::checkFish(school[i], params, i); !ok)
            return fail(ok.error());
    auto state = std::make_unique<Simulation::State>();
    state->settings = params;
    state->backend = std::move(backend);
    if (auto ok = state->backend->upload(school); !ok) return fail(ok.error());
    return Simulation(std::move(state));
}

Result<Simulation> Simulation::fromConfigFile(const std::filesystem::path& path,
                                              std::string_view backend) {
    auto params = loadConfig(path);
    if (!params) return fail(params.error());
    return create(*params, backend);
}

Result<Simulation> Simulation::fromConfigJson(std::string_view json, std::string_view backend) {
    auto params = parseConfig(json);
    if (!params) return fail(params.error());
    return create(*params, backend);
}

SimParams Simulation::params() const {
    return state_->params();
}

std::string_view Simulation::backendName() const {
    return toString(state_->backend->kind());
}

std::size_t Simulation::fishCount() const {
    return state_->backend->fishCount();
}

std::uint64_t Simulation::stepCount() const {
    return state_->backend->stepCount();
}

double Simulation::time() const {
    return state_->seconds;
}

void Simulation::setClock(std::uint64_t step, double seconds) {
    state_->backend->setStepCount(step);
    state_->seconds = seconds;
}

std::uint64_t Simulation::schoolVersion() const {
    return state_->version;
}

Backend& SimulationInternals::backend(Simulation& simulation) {
    return *simulation.state_->backend;
}

Result<void> Simulation::step(std::int64_t steps) {
    if (steps < 0)
        return fail("steps: " + std::to_string(steps) + " is not allowed; must be 0 or more");
    if (!state_->recording) return state_->advance(steps, [](Backend& backend) { backend.step(); });
    const Recording::Steps raw{
        .step = [&] { return state_->advance(1, [](Backend& backend) { backend.step(); }); },
        .stepCopying =
            [&](std::span<float> positions, std::span<float> velocities) {
                return stepCopyingFrameAlone(positions, velocities);
            }};
    for (std::int64_t s = 0; s < steps; ++s)
        if (auto ok = state_->recording->step(*this, raw); !ok) {
            // A recording that failed (a full disk) is dropped, nothing replaced; the school
            // steps on without it unless the backend itself failed.
            state_->recording.reset();
            return ok;
        }
    return {};
}

Result<void> Simulation::stepCopyingFrame(std::span<float> positions, std::span<float> velocities) {
    if (state_->recording)
        return fail("stepCopyingFrame is not allowed while recording: step() records the frames");
    return stepCopyingFrameAlone(positions, velocities);
}

Result<void> Simulation::stepCopyingFrameAlone(std::span<float> positions,
                                               std::span<float> velocities) {
    Backend& backend = *state_->backend;
    const std::size_t floats = 3 * backend.fishCount();
    if (positions.size() != floats || velocities.size() != floats)
        return fail("a frame of " + std::to_string(positions.size()) + " and " +
                    std::to_string(velocities.size()) + " floats; this school needs " +
                    std::to_string(floats) + " each");
    return state_->advance(
        1, [&](Backend& stepped) { stepped.stepCopyingFrame(positions, velocities); });
}

Result<void> Simulation::setBackend(std::string_view name) {
    const auto kind = parseBackendFlag("backend", name);
    if (!kind) return fail(kind.error());
    if (*kind == state_->backend->kind()) return {};
    auto next = createBackend(*kind, params());
    if (!next) return fail(next.error());
    if (auto ok = (*next)->upload(state_->backend->download()); !ok) return ok;
    (*next)->setStepCount(state_->backend->stepCount());  // the noise goes on, not back to 0
    state_->backend = std::move(*next);
    ++state_->version;
    return {};
}

Result<void> Simulation::setParams(const SimParams& next) {
    if (auto ok = validate(next); !ok) return fail(ok.error());
    const SimParams before = params();
    const bool same = next == before;
    if (next.fishCount != before.fishCount)
        if (auto ok = state_->checkSchoolKept("a new fishCount"); !ok) return ok;
    if (state_->recording && !same)
        if (auto ok = state_->recording->beforeChange(*this); !ok) return ok;
    const auto replaced = changeParams(*state_->backend, before, next);
    if (!replaced) return fail(replaced.error());
    state_->settings = next;
    if (*replaced) ++state_->version;
    if (state_->recording && !same) return state_->recording->afterChange(*this);
    return {};
}

namespace {

/// The one rule of a new fish count (Run.h): shared among `base`'s species by their counts. True
/// when it was (a whole count in range with species); else the caller sets it as any key, and the
/// config's checks word what is wrong.
bool shareFishCount(SimParams& base, double count) {
    if (base.species.empty() || !(count >= 0.0) || count > double(kMaxFishCount) ||
        count != std::floor(count))
        return false;
    setFishCount(base, static_cast<std::int64_t>(count));
    return true;
}

}  // namespace

Result<void> Simulation::setParam(std::string_view key, double value) {
    SimParams base = params();
    if (key == keyOf(&SimParams::fishCount)) (void)shareFishCount(base, value);
    auto next = withConfigNumber(base, key, value, "parameter");
    if (!next) return fail(next.error());
    return setParams(*next);
}

Result<SimParams> withConfigKeys(const SimParams& running, std::string_view json) {
    auto changes = parseJsonText(json, "config");
    if (!changes) return fail(changes.error());
    if (!changes->is_object()) return fail("config: must be a JSON object of config keys");
    SimParams base = running;
    // A new fishCount without new species is shared among the running ones (Run.h).
    const std::string fishCount(keyOf(&SimParams::fishCount));
    const std::string species(keyOf(&SimParams::species));
    if (changes->contains(fishCount) && !changes->contains(species) &&
        (*changes)[fishCount].is_number_integer() &&
        shareFishCount(base, (*changes)[fishCount].get<double>()))
        changes->erase(fishCount);
    auto merged = nlohmann::ordered_json::parse(configToJson(base));
    for (const auto& [key, value] : changes->items()) merged[key] = value;
    return parseConfig(merged.dump(), "config");
}

Result<void> Simulation::setConfigJson(std::string_view json) {
    auto next = withConfigKeys(params(), json);
    if (!next) return fail(next.error());
    return setParams(*next);
}

std::string Simulation::configJson() const {
    return configToJson(params());
}

Result<void> Simulation::addFish(std::span<const Fish> fish) {
    if (auto ok = state_->checkSchoolKept("adding fish"); !ok) return ok;
    const std::span<const Fish> now = school();
    School next(now.begin(), now.end());
    next.insert(next.end(), fish.begin(), fish.end());
    SimParams p = params();
    countSchool(p, next);
    if (auto ok = validate(p); !ok) return fail(ok.error());
    for (std::size_t i = 0; i < fish.size(); ++i)
        if (auto ok = State::checkFish(fish[i], p, now.size() + i); !ok) return ok;
    return state_->replace(p, next);
}

Result<void> Simulation::removeFish(std::span<const std::size_t> indices) {
    if (auto ok = state_->checkSchoolKept("removing fish"); !ok) return ok;
    const std::span<const Fish> now = school();
    std::vector<bool> removed(now.size(), false);
    for (const std::size_t index : indices) {
        if (index >= now.size())
            return fail("fish " + std::to_string(index) + ": no such fish; the school has " +
                        std::to_string(now.size()) + " (0 to " +
                        std::to_string(now.size() == 0 ? 0 : now.size() - 1) + ")");
        if (removed[index])
            return fail("fish " + std::to_string(index) + " is named twice; name each once");
        removed[index] = true;
    }
    School next;
    next.reserve(now.size() - indices.size());
    for (std::size_t i = 0; i < now.size(); ++i)
        if (!removed[i]) next.push_back(now[i]);
    SimParams p = params();
    countSchool(p, next);
    if (auto ok = validate(p); !ok) return fail(ok.error());
    return state_->replace(p, next);
}

Result<void> Simulation::setSchool(std::span<const Fish> school) {
    if (auto ok = state_->checkSchoolKept("a new school"); !ok) return ok;
    SimParams p = params();
    countSchool(p, school);
    if (auto ok = validate(p); !ok) return fail(ok.error());
    if (auto ok = state_->replace(p, school); !ok) return ok;
    state_->seconds = 0.0;
    return {};
}

Result<void> Simulation::reset(std::uint64_t seed) {
    if (auto ok = state_->checkSchoolKept("a reset"); !ok) return ok;
    state_->settings.seed = seed;  // the seed makes the school; the step does not read it
    (void)state_->backend->upload(makeInitialSchool(params()));  // the same count: it fits
    state_->seconds = 0.0;
    ++state_->version;
    return {};
}

std::span<const Fish> Simulation::school() {
    state_->readSchool();
    return *state_->read;
}

std::shared_ptr<const School> Simulation::sharedSchool() {
    state_->readSchool();
    return state_->read;
}

void Simulation::copyFrame(std::span<float> positions, std::span<float> velocities) {
    if (state_->readVersion == state_->version)
        fishschool::copyFrame(*state_->read, positions, velocities);
    else
        state_->backend->downloadFrame(positions, velocities);
}

SchoolMetrics Simulation::measures() {
    const SimParams p = params();
    return measureSchool(school(), p);
}

Result<void> Simulation::saveState(const std::filesystem::path& path) {
    const SimParams p = params();
    return saveStateCsv(path, school(), p);
}

Result<void> Simulation::loadState(const std::filesystem::path& path) {
    auto loaded = loadStateCsv(path, params());
    if (!loaded) return fail(loaded.error());
    return setSchool(*loaded);
}

Result<void> Simulation::startRecording(std::span<const RunOutput> outputs) {
    if (state_->recording) return fail("a recording is running; finish it before starting another");
    if (auto ok = state_->healthy(); !ok) return ok;
    auto recording = Recording::start(*this, outputs);
    if (!recording) return fail(recording.error());
    state_->recording = std::move(*recording);
    return {};
}

Result<void> Simulation::recordFrame() {
    if (!state_->recording) return fail("no recording is running; start one first");
    auto ok = state_->recording->recordNow(*this);
    if (!ok) state_->recording.reset();  // as step() drops one that failed: nothing replaced
    return ok;
}

Result<RecordingSummary> Simulation::finishRecording() {
    if (!state_->recording) return fail("no recording is running; start one first");
    std::unique_ptr<Recording> recording = std::move(state_->recording);
    if (auto ok = state_->healthy(); !ok) return fail(ok.error());
    return recording->finish(*this);
}

void Simulation::dropRecording() {
    state_->recording.reset();
}

RecordingSummary Simulation::recordingProgress() const {
    return state_->recording ? state_->recording->progress() : RecordingSummary{};
}

bool Simulation::recording() const {
    return state_->recording != nullptr;
}

Result<StartingSchool> readStart(const RunStart& start) {
    const RunStart::Names& names = start.names;
    const bool fromState = !start.state.empty();
    if (fromState && start.fishCount)
        return fail(names.fishCount + " cannot be used with " + names.state +
                    ": the fish are the file's rows");
    if (fromState && start.seed)
        return fail(names.seed + " cannot be used with " + names.state +
                    ": the fish come from the file");
    if (!start.config.empty() && !start.configJson.empty())
        return fail(names.config + ": give a config file or a config's text, not both");
    // A trajectory by its content; a file named as one that is not (empty, not HDF5, a FIFO) is
    // refused as a trajectory, saying why, rather than read as a CSV.
    const bool fromTrajectory =
        fromState && (isHdf5File(start.state) || hasTrajectoryExtension(start.state));
    if (start.frame && !fromTrajectory)
        return fail(names.frame + " needs " + names.state + " FILE.h5, a trajectory (HDF5); " +
                    (fromState ? quote(start.state.string(), 200) + " is not one"
                               : "no " + names.state + " was given"));
    StartingSchool out;
    if (fromTrajectory) {
        if (!start.configJson.empty())
            return fail(names.config + ": a trajectory's run reads a config file, not a text");
        ParamFlags flags;
        if (!start.config.empty()) flags.configPath = start.config.string();
        if (start.neighborSearch) flags.neighbors = *start.neighborSearch;
        auto read = readTrajectoryStart(start.state, start.frame, flags);
        if (!read) return fail(read.error());
        out.params = std::move(read->params);
        out.school = std::move(read->school);
        out.step = static_cast<std::uint64_t>(read->step);
        out.time = read->time;
        return out;
    }
    if (!start.config.empty()) {
        auto loaded = loadConfig(start.config);
        if (!loaded) return fail(loaded.error());
        out.params = *loaded;
    } else if (!start.configJson.empty()) {
        auto parsed = parseConfig(start.configJson, names.config);
        if (!parsed) return fail(parsed.error());
        out.params = *parsed;
    }
    if (start.fishCount) {
        const std::int64_t count = *start.fishCount;
        if (count < 0 || count > kMaxFishCount)
            return fail(names.fishCount + ": " + std::to_string(count) +
                        " is not allowed; must be a whole number from 0 to " +
                        std::to_string(kMaxFishCount));
        setFishCount(out.params, count);  // a mixed school keeps its shares
    }
    if (start.seed) out.params.seed = *start.seed;
    if (start.neighborSearch) {
        auto search = parseNeighborSearchFlag(names.neighborSearch, *start.neighborSearch);
        if (!search) return fail(search.error());
        out.params.neighborSearch = *search;
    }
    if (auto ok = validate(out.params); !ok) return fail(ok.error());
    if (fromState) {
        auto loaded = loadStateCsv(start.state, out.params);
        if (!loaded) return fail(loaded.error());
        countSchool(out.params, *loaded);
        out.school = std::move(*loaded);
    }
    return out;
}

Result<Simulation> Simulation::start(const RunStart& start, std::string_view backend) {
    auto read = readStart(start);
    if (!read) return fail(read.error());
    return create(*read, backend);
}

Result<Simulation> Simulation::create(const StartingSchool& start, std::string_view backend) {
    auto sim =
        start.school ? create(start.params, backend, *start.school) : create(start.params, backend);
    if (!sim) return sim;
    // From a trajectory's frame, the noise and the clock go on from that frame's.
    sim->setClock(start.step, start.time);
    return sim;
}

Result<void> Simulation::saveConfig(const std::filesystem::path& path) const {
    return fishschool::saveConfig(path, params());
}

}  // namespace fishschool
