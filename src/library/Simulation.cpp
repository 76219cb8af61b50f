#include "fishschool/Simulation.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <nlohmann/json.hpp>

#include "backends/BackendRegistry.h"
#include "core/Backend.h"
#include "core/Messages.h"
#include "core/Scenario.h"
#include "io/ConfigIO.h"
#include "io/JsonText.h"
#include "io/StateIO.h"

namespace fishschool {

std::vector<BackendInfo> backends() {
    std::vector<BackendInfo> infos;
    for (const BackendEntry& entry : backendRegistry())
        infos.push_back({std::string(entry.name), std::string(entry.label), entry.built});
    return infos;
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

    /// `steps` steps of the backend, each by `stepOnce`, with the clock and the school's version
    /// following; nothing when the backend already failed.
    template <class StepOnce>
    Result<void> advance(std::int64_t steps, StepOnce&& stepOnce) {
        if (auto ok = backend->health(); !ok) return ok;
        if (steps == 0) return {};
        ++version;
        for (std::int64_t s = 0; s < steps; ++s) stepOnce(*backend);
        seconds += static_cast<double>(steps) * settings.dt;
        return backend->health();
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
    return create(params, std::move(*made), school);
}

Result<Simulation> Simulation::create(const SimParams& requested, std::unique_ptr<Backend> backend,
                                      std::span<const Fish> school) {
    SimParams params = requested;
    countSchool(params, school);
    if (auto ok = validate(params); !ok) return fail(ok.error());
    for (std::size_t i = 0; i < school.size(); ++i)
        if (auto ok = State::checkFish(school[i], params, i); !ok) return fail(ok.error());
    auto state = std::make_unique<State>();
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

std::uint64_t Simulation::schoolVersion() const {
    return state_->version;
}

Backend& Simulation::backend() {
    return *state_->backend;
}

Result<void> Simulation::step(std::int64_t steps) {
    if (steps < 0)
        return fail("steps: " + std::to_string(steps) + " is not allowed; must be 0 or more");
    return state_->advance(steps, [](Backend& backend) { backend.step(); });
}

Result<void> Simulation::stepCopyingFrame(std::span<float> positions, std::span<float> velocities) {
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
    const auto replaced = changeParams(*state_->backend, params(), next);
    if (!replaced) return fail(replaced.error());
    state_->settings = next;
    if (*replaced) ++state_->version;
    return {};
}

Result<void> Simulation::setParam(std::string_view key, double value) {
    auto next = withConfigNumber(params(), key, value, "parameter");
    if (!next) return fail(next.error());
    return setParams(*next);
}

Result<void> Simulation::setConfigJson(std::string_view json) {
    auto changes = parseJsonText(json, "config");
    if (!changes) return fail(changes.error());
    if (!changes->is_object()) return fail("config: must be a JSON object of config keys");
    auto merged = nlohmann::ordered_json::parse(configToJson(params()));
    for (const auto& [key, value] : changes->items()) merged[key] = value;
    auto next = parseConfig(merged.dump(), "config");
    if (!next) return fail(next.error());
    return setParams(*next);
}

std::string Simulation::configJson() const {
    return configToJson(params());
}

Result<void> Simulation::addFish(std::span<const Fish> fish) {
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
    SimParams p = params();
    countSchool(p, school);
    if (auto ok = validate(p); !ok) return fail(ok.error());
    if (auto ok = state_->replace(p, school); !ok) return ok;
    state_->seconds = 0.0;
    return {};
}

void Simulation::reset(std::uint64_t seed) {
    state_->settings.seed = seed;  // the seed makes the school; the step does not read it
    (void)state_->backend->upload(makeInitialSchool(params()));  // the same count: it fits
    state_->seconds = 0.0;
    ++state_->version;
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

Result<void> Simulation::saveConfig(const std::filesystem::path& path) const {
    return fishschool::saveConfig(path, params());
}

}  // namespace fishschool
