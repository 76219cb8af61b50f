#include "ConfigIO.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "StateIO.h"
#include "TextInput.h"

namespace fishschool {
namespace {

using Json = nlohmann::json;

const char* typeName(const Json& value) {
    return value.type_name();
}

/// Reads one typed value; errors name the key and the type it needs.
class Reader {
  public:
    explicit Reader(std::string source) : source_(std::move(source)) {}

    Result<float> number(const Json& value, const std::string& key) const {
        if (!value.is_number())
            return fail(where(key) + "must be a number, got " + typeName(value));
        const double d = value.get<double>();
        if (std::isfinite(d) && std::abs(d) > std::numeric_limits<float>::max())
            return fail(where(key) + "is out of the range of a float");
        // A value too small for a float would silently become 0, which can change its meaning.
        if (d != 0.0 && static_cast<float>(d) == 0.0f)
            return fail(
                where(key) + value.dump() +
                " is too close to 0 for a float (1.4e-45 in size at least); give 0 or a number "
                "further from 0");
        return static_cast<float>(d);
    }

    Result<glm::vec3> vec3(const Json& value, const std::string& key) const {
        if (!value.is_array() || value.size() != 3)
            return fail(where(key) + "must be an array of 3 numbers, got " + value.dump());
        glm::vec3 v;
        for (int k = 0; k < 3; ++k) {
            auto n = number(value[k], key + "[" + std::to_string(k) + "]");
            if (!n) return std::unexpected(n.error());
            v[k] = *n;
        }
        return v;
    }

    /// One of a few names, as `parse` reads them; `allowed` lists them for the error.
    template <class Choice>
    Result<Choice> choice(const Json& value, const std::string& key,
                          std::optional<Choice> (*parse)(std::string_view),
                          const char* allowed) const {
        const auto chosen = value.is_string() ? parse(value.get<std::string>()) : std::nullopt;
        if (!chosen) return fail(where(key) + value.dump() + " is not allowed; must be " + allowed);
        return *chosen;
    }

    std::string where(const std::string& key) const { return source_ + ": key '" + key + "': "; }

    const std::string& source() const { return source_; }

  private:
    std::string source_;
};

Result<std::vector<Rock>> readRocks(const Json& value, const Reader& reader) {
    if (!value.is_array())
        return fail(reader.where("rocks") +
                    "must be an array of {\"center\": [x,y,z], \"radius\": r}");
    std::vector<Rock> rocks;
    for (std::size_t r = 0; r < value.size(); ++r) {
        const std::string key = "rocks[" + std::to_string(r) + "]";
        const Json& item = value[r];
        if (!item.is_object())
            return fail(reader.where(key) +
                        "must be an object {\"center\": [x,y,z], \"radius\": r}");
        Rock rock;
        for (const auto& [name, field] : item.items()) {
            if (name == "center") {
                auto v = reader.vec3(field, key + ".center");
                if (!v) return std::unexpected(v.error());
                rock.center = *v;
            } else if (name == "radius") {
                auto v = reader.number(field, key + ".radius");
                if (!v) return std::unexpected(v.error());
                rock.radius = *v;
            } else {
                return fail(reader.where(key + "." + name) +
                            "unknown key; a rock has only \"center\" and \"radius\"");
            }
        }
        if (!item.contains("center") || !item.contains("radius"))
            return fail(reader.where(key) + "needs both \"center\" and \"radius\"");
        rocks.push_back(rock);
    }
    return rocks;
}

/// nlohmann's message without its "[json.exception.parse_error.101] " tag.
std::string withoutExceptionTag(const char* what) {
    std::string_view text(what);
    if (text.starts_with("[json.exception.")) {
        const std::size_t end = text.find("] ");
        if (end != std::string_view::npos) text.remove_prefix(end + 2);
    }
    return std::string(text);
}

/// Parses JSON text; a key given twice in one object is an error rather than a silent "last
/// one wins".
Result<Json> parseJson(std::string_view text, const Reader& reader) {
    std::vector<std::set<std::string>> keysPerObject;
    std::string duplicate;
    const Json::parser_callback_t noteKeys = [&](int, Json::parse_event_t event, Json& parsed) {
        if (event == Json::parse_event_t::object_start) {
            keysPerObject.emplace_back();
        } else if (event == Json::parse_event_t::object_end) {
            if (!keysPerObject.empty()) keysPerObject.pop_back();
        } else if (event == Json::parse_event_t::key && !keysPerObject.empty()) {
            const std::string key = parsed.get<std::string>();
            if (!keysPerObject.back().insert(key).second && duplicate.empty()) duplicate = key;
        }
        return true;
    };
    Json root;
    try {
        root = Json::parse(text, noteKeys);
    } catch (const Json::parse_error& e) {
        // The message names the line and column; the byte helps with one-line files.
        return fail(reader.source() + ": malformed JSON (byte " + std::to_string(e.byte) +
                    "): " + withoutExceptionTag(e.what()));
    } catch (const Json::exception& e) {
        // E.g. "number overflow parsing '1e400'".
        return fail(reader.source() + ": malformed JSON: " + withoutExceptionTag(e.what()));
    }
    if (!duplicate.empty())
        return fail(reader.where(duplicate) +
                    "appears more than once in one object; give each key once");
    return root;
}

}  // namespace

Result<SimParams> parseConfig(std::string_view text, std::string_view sourceName) {
    const Reader reader{std::string(sourceName)};
    auto parsed = parseJson(text, reader);
    if (!parsed) return std::unexpected(parsed.error());
    const Json& root = *parsed;
    if (!root.is_object())
        return fail(reader.source() + ": the config must be a JSON object, got " + typeName(root));

    SimParams p;
    struct FloatKey {
        const char* name;
        float* field;
    };
    const FloatKey floats[] = {
        {"dt", &p.dt},
        {"kCohesion", &p.kCohesion},
        {"kSeparation", &p.kSeparation},
        {"kAlignment", &p.kAlignment},
        {"rCohesion", &p.rCohesion},
        {"rSeparation", &p.rSeparation},
        {"rAlignment", &p.rAlignment},
        {"maxAcceleration", &p.maxAcceleration},
        {"maxVelocity", &p.maxVelocity},
        {"viewAngle", &p.viewAngle},
        {"kTarget", &p.kTarget},
        {"kAvoidance", &p.kAvoidance},
        {"avoidanceDistance", &p.avoidanceDistance},
        {"minVelocity", &p.minVelocity},
        {"kLeader", &p.kLeader},
        {"predatorMaxVelocity", &p.predatorMaxVelocity},
        {"kFlee", &p.kFlee},
        {"fleeRadius", &p.fleeRadius},
    };

    for (const auto& [key, value] : root.items()) {
        bool known = false;
        for (const FloatKey& f : floats) {
            if (key != f.name) continue;
            auto v = reader.number(value, key);
            if (!v) return std::unexpected(v.error());
            *f.field = *v;
            known = true;
        }
        if (known) continue;
        if (key == "fishCount") {
            if (!value.is_number_integer())
                return fail(reader.where(key) + "must be an integer, got " + value.dump());
            if (value.is_number_unsigned() &&
                value.get<std::uint64_t>() > std::uint64_t(kMaxFishCount))
                return fail(reader.where(key) + value.dump() +
                            " is not allowed; must be from 0 to " + std::to_string(kMaxFishCount));
            p.fishCount = value.get<std::int64_t>();
        } else if (key == "leaders" || key == "predators") {
            if (!value.is_number_integer() ||
                (value.is_number_unsigned() &&
                 value.get<std::uint64_t>() > std::uint64_t(kMaxFishCount)) ||
                (!value.is_number_unsigned() && value.get<std::int64_t>() < 0))
                return fail(reader.where(key) + value.dump() +
                            " is not allowed; must be an integer from 0 to " +
                            std::to_string(kMaxFishCount));
            (key == "leaders" ? p.leaders : p.predators) = value.get<std::int64_t>();
        } else if (key == "seed") {
            if (!value.is_number_unsigned())
                return fail(reader.where(key) + "must be an unsigned 64-bit integer, got " +
                            value.dump());
            p.seed = value.get<std::uint64_t>();
        } else if (key == "bounds" || key == "target") {
            auto v = reader.vec3(value, key);
            if (!v) return std::unexpected(v.error());
            (key == "bounds" ? p.bounds : p.target) = *v;
        } else if (key == "lockVerticalSteering") {
            if (!value.is_boolean())
                return fail(reader.where(key) + "must be true or false, got " + value.dump());
            p.lockVerticalSteering = value.get<bool>();
        } else if (key == "rocks") {
            auto rocks = readRocks(value, reader);
            if (!rocks) return std::unexpected(rocks.error());
            p.rocks = std::move(*rocks);
        } else if (key == "targetPath") {
            auto path = reader.choice(value, key, parseTargetPath, R"("straight" or "flow-field")");
            if (!path) return std::unexpected(path.error());
            p.targetPath = *path;
        } else if (key == "steering") {
            auto steering = reader.choice(value, key, parseSteering, R"("article" or "reynolds")");
            if (!steering) return std::unexpected(steering.error());
            p.steering = *steering;
        } else if (key == "separationFalloff") {
            auto falloff =
                reader.choice(value, key, parseSeparationFalloff, R"("none" or "inverse-square")");
            if (!falloff) return std::unexpected(falloff.error());
            p.separationFalloff = *falloff;
        } else if (key == "combine") {
            auto combine = reader.choice(value, key, parseCombine, R"("sum" or "prioritized")");
            if (!combine) return std::unexpected(combine.error());
            p.combine = *combine;
        } else if (key == "avoidance") {
            auto avoidance = reader.choice(value, key, parseAvoidance, R"("repel" or "rays")");
            if (!avoidance) return std::unexpected(avoidance.error());
            p.avoidance = *avoidance;
        } else if (key == "neighborSearch") {
            auto search =
                reader.choice(value, key, parseNeighborSearch, R"("all-pairs" or "grid")");
            if (!search) return std::unexpected(search.error());
            p.neighborSearch = *search;
        } else {
            return fail(reader.where(key) + "unknown key (see docs/config.md for the keys)");
        }
    }

    if (auto ok = validate(p); !ok) return fail(reader.source() + ": " + ok.error());
    return p;
}

Result<SimParams> loadConfig(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(path.string() + ": cannot open the config file");
    std::ostringstream text;
    text << in.rdbuf();
    return parseConfig(text.str(), path.string());
}

Result<SimParams> loadParams(const ParamFlags& flags) {
    SimParams params;
    if (flags.configPath) {
        if (flags.configPath->empty())
            return fail("--config: an empty file name is not allowed; give a config file");
        auto loaded = loadConfig(*flags.configPath);
        if (!loaded) return fail(loaded.error());
        params = *loaded;
    }
    if (flags.fish) {
        auto fish = parseFishCount("--fish", *flags.fish);
        if (!fish) return fail(fish.error());
        params.fishCount = *fish;
    }
    if (flags.seed) {
        const std::string& text = *flags.seed;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, params.seed);
        if (text.empty() || ec != std::errc() || ptr != end)
            return fail("--seed: '" + text + "' is not allowed; must be a whole number from 0 to " +
                        std::to_string(std::numeric_limits<std::uint64_t>::max()));
    }
    if (flags.neighbors) {
        auto search = parseNeighborSearchFlag("--neighbors", *flags.neighbors);
        if (!search) return fail(search.error());
        params.neighborSearch = *search;
    }
    // The file was valid and each flag is: this only guards rules that tie keys together.
    if (auto ok = validate(params); !ok) return fail(ok.error());
    return params;
}

namespace {

/// The double nearest to the shortest decimal text of `f`: prints as 0.0166666675 rather than
/// 0.01666666753590107, and still reads back as the same float.
double shortest(float f) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, f).ptr;
    return std::strtod(std::string(text, end).c_str(), nullptr);
}

}  // namespace

std::string configToJson(const SimParams& p) {
    auto vec = [](const glm::vec3& v) {
        return Json::array({shortest(v.x), shortest(v.y), shortest(v.z)});
    };
    Json rocks = Json::array();
    for (const Rock& rock : p.rocks)
        rocks.push_back({{"center", vec(rock.center)}, {"radius", shortest(rock.radius)}});
    const Json root = {
        {"fishCount", p.fishCount},
        {"seed", p.seed},
        {"dt", shortest(p.dt)},
        {"kCohesion", shortest(p.kCohesion)},
        {"kSeparation", shortest(p.kSeparation)},
        {"kAlignment", shortest(p.kAlignment)},
        {"rCohesion", shortest(p.rCohesion)},
        {"rSeparation", shortest(p.rSeparation)},
        {"rAlignment", shortest(p.rAlignment)},
        {"maxAcceleration", shortest(p.maxAcceleration)},
        {"maxVelocity", shortest(p.maxVelocity)},
        {"bounds", vec(p.bounds)},
        {"lockVerticalSteering", p.lockVerticalSteering},
        {"viewAngle", shortest(p.viewAngle)},
        {"kTarget", shortest(p.kTarget)},
        {"target", vec(p.target)},
        {"targetPath", std::string(toString(p.targetPath))},
        {"kAvoidance", shortest(p.kAvoidance)},
        {"avoidanceDistance", shortest(p.avoidanceDistance)},
        {"minVelocity", shortest(p.minVelocity)},
        {"steering", std::string(toString(p.steering))},
        {"separationFalloff", std::string(toString(p.separationFalloff))},
        {"combine", std::string(toString(p.combine))},
        {"avoidance", std::string(toString(p.avoidance))},
        {"leaders", p.leaders},
        {"kLeader", shortest(p.kLeader)},
        {"predators", p.predators},
        {"predatorMaxVelocity", shortest(p.predatorMaxVelocity)},
        {"kFlee", shortest(p.kFlee)},
        {"fleeRadius", shortest(p.fleeRadius)},
        {"rocks", rocks},
        {"neighborSearch", std::string(toString(p.neighborSearch))},
    };
    return root.dump(2) + "\n";
}

Result<void> saveConfig(const std::filesystem::path& path, const SimParams& params) {
    return writeFileAtomically(path, configToJson(params));
}

}  // namespace fishschool
