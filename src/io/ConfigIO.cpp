#include "ConfigIO.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

#include "JsonText.h"
#include "OutputFiles.h"
#include "StateIO.h"
#include "TextFiles.h"
#include "TextInput.h"
#include "core/ParamTable.h"
#include "core/Scenario.h"

namespace fishschool {
namespace {

using Json = nlohmann::json;

const char* typeName(const Json& value) {
    return value.type_name();
}

/// A value as JSON text for a message, cut short.
std::string shown(const Json& value) {
    return quote(value.dump(), 60);
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
            return fail(where(key) + shown(value) + " " + beyondFloatRange());
        // A value too small for a float would silently become 0, which can change its meaning.
        if (d != 0.0 && static_cast<float>(d) == 0.0f)
            return fail(
                where(key) + shown(value) +
                " is too close to 0 for a float (1.4e-45 in size at least); give 0 or a number "
                "further from 0");
        return static_cast<float>(d);
    }

    Result<glm::vec3> vec3(const Json& value, const std::string& key) const {
        if (!value.is_array() || value.size() != 3)
            return fail(where(key) + "must be an array of 3 numbers, got " + shown(value));
        glm::vec3 v;
        for (int k = 0; k < 3; ++k) {
            auto n = number(value[k], key + "[" + std::to_string(k) + "]");
            if (!n) return std::unexpected(n.error());
            v[k] = *n;
        }
        return v;
    }

    /// The index of one of `names`; the error lists them.
    Result<int> choice(const Json& value, const std::string& key,
                       std::span<const char* const> names) const {
        if (value.is_string()) {
            const std::string& text = value.get_ref<const std::string&>();
            for (std::size_t k = 0; k < names.size(); ++k)
                if (text == names[k]) return static_cast<int>(k);
        }
        return fail(where(key) + shown(value) + " is not allowed; must be " + allowed(names));
    }

    /// "a", "b" or "c".
    static std::string allowed(std::span<const char* const> names) {
        std::string text;
        for (std::size_t k = 0; k < names.size(); ++k) {
            if (k > 0) text += k + 1 == names.size() ? " or " : ", ";
            text += '"' + std::string(names[k]) + '"';
        }
        return text;
    }

    std::string where(const std::string& key) const {
        return source_ + ": key " + quote(key, 80) + ": ";
    }

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

Result<void> readKey(const ParamInfo& info, const Json& value, const Reader& reader, SimParams& p,
                     const std::string& shownKey = "");

/// A colour for species `index` when its entry gives none: distinct, and far from the leaders'
/// gold and the predators' magenta.
Result<std::vector<Species>> readSpecies(const Json& value, const Reader& reader) {
    if (!value.is_array())
        return fail(reader.where("species") +
                    "must be an array of {\"name\": ..., \"count\": n, ...}");
    std::vector<Species> list;
    for (std::size_t s = 0; s < value.size(); ++s) {
        const std::string where = "species[" + std::to_string(s) + "]";
        const Json& item = value[s];
        if (!item.is_object())
            return fail(reader.where(where) +
                        "must be an object {\"name\": ..., \"count\": n, ...}");
        Species species;
        species.color = defaultSpeciesColor(s);
        // The per-fish keys are read as the config's own, into a scratch copy.
        SimParams scratch;
        for (const auto& [name, field] : item.items()) {
            const std::string key = where + "." + name;
            if (name == "name") {
                if (!field.is_string())
                    return fail(reader.where(key) + "must be a string, got " + typeName(field));
                species.name = field.get<std::string>();
            } else if (name == "count") {
                if (!field.is_number_integer() ||
                    (field.is_number_unsigned() &&
                     field.get<std::uint64_t>() > std::uint64_t(kMaxFishCount)) ||
                    (!field.is_number_unsigned() && field.get<std::int64_t>() < 0))
                    return fail(reader.where(key) + shown(field) +
                                " is not allowed; must be a whole number from 0 to " +
                                std::to_string(kMaxFishCount));
                species.count = field.get<std::int64_t>();
            } else if (name == "color") {
                auto color = reader.vec3(field, key);
                if (!color) return fail(color.error());
                species.color = *color;
            } else {
                const ParamInfo* info = findParam(name);
                if (!info || !info->perFish)
                    return fail(reader.where(key) +
                                "unknown key for a species; a species has \"name\", "
                                "\"count\", \"color\" and the per-fish keys (see "
                                "docs/config.md)");
                if (auto ok = readKey(*info, field, reader, scratch, key); !ok)
                    return fail(ok.error());
                species.settings.push_back(settingOf(*info, scratch));
            }
        }
        if (!item.contains("name") || !item.contains("count"))
            return fail(reader.where(where) + "needs both \"name\" and \"count\"");
        // In the table's order, whatever the file's: the same species compare equal.
        std::stable_sort(species.settings.begin(), species.settings.end(),
                         [](const SpeciesSetting& a, const SpeciesSetting& b) {
                             return findParam(a.key) < findParam(b.key);
                         });
        list.push_back(std::move(species));
    }
    return list;
}

/// nlohmann's message without its "[json.exception.parse_error.101] " tag, and short: the token
/// its "last read: '...'" quotes can be megabytes long, so it is quoted as every value is.
std::string withoutExceptionTag(const char* what) {
    std::string_view text(what);
    if (text.starts_with("[json.exception.")) {
        const std::size_t end = text.find("] ");
        if (end != std::string_view::npos) text.remove_prefix(end + 2);
    }
    constexpr std::size_t kMaxChars = 120;
    const auto cut = [](std::string_view part) {
        return part.size() <= kMaxChars ? std::string(part)
                                        : std::string(part.substr(0, kMaxChars)) + "...";
    };
    constexpr std::string_view kLastRead = "; last read: '";
    const std::size_t tokenStart = text.find(kLastRead);
    if (tokenStart == std::string_view::npos) return cut(text);
    // The token ends at the last "'", before nlohmann's "; expected ..." if it says one.
    const std::size_t expected = text.rfind("'; expected ");
    const std::size_t tokenEnd =
        expected != std::string_view::npos && expected > tokenStart ? expected : text.rfind('\'');
    const std::size_t begin = tokenStart + kLastRead.size();
    if (tokenEnd == std::string_view::npos || tokenEnd < begin) return cut(text);
    std::string message = cut(text.substr(0, tokenStart)) +
                          "; last read: " + quote(text.substr(begin, tokenEnd - begin), 20);
    if (tokenEnd + 1 < text.size()) message += cut(text.substr(tokenEnd + 1));
    return message;
}

/// Builds the JSON tree from nlohmann's SAX events, as its own DOM parser does, and also keeps
/// the path of the value being read ("rocks[2].center[1]") so that every error can name it, and
/// refuses a key given twice in one object rather than keeping the last silently. A look-up in
/// the object being built finds a duplicate, so no set of keys is kept.
template <class Json>
class JsonTreeBuilder {
  public:
    using number_integer_t = typename Json::number_integer_t;
    using number_unsigned_t = typename Json::number_unsigned_t;
    using number_float_t = typename Json::number_float_t;
    using string_t = typename Json::string_t;
    using binary_t = typename Json::binary_t;

    bool null() { return put(nullptr); }
    bool boolean(bool value) { return put(value); }
    // "-0" is 0, whole and unsigned, like "0": a seed may be written either way.
    bool number_integer(number_integer_t value) {
        return value == 0 ? put(number_unsigned_t{0}) : put(value);
    }
    bool number_unsigned(number_unsigned_t value) { return put(value); }
    bool number_float(number_float_t value, const string_t& text) {
        // Below the double range (1e-400) the parser gives 0: docs/config.md calls that an error.
        const std::string_view mantissa =
            std::string_view(text).substr(0, text.find_first_of("eE"));
        if (value == 0.0 && mantissa.find_first_of("123456789") != std::string_view::npos) {
            underflow_ = text;
            return false;
        }
        return put(value);
    }
    bool string(string_t& value) { return put(std::move(value)); }
    bool binary(binary_t& value) { return put(Json::binary(std::move(value))); }
    bool start_object(std::size_t) { return !nestsTooDeep() && open(Json::object()); }
    bool start_array(std::size_t) { return !nestsTooDeep() && open(Json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(string_t& name) {
        Frame& frame = frames_.back();
        if (frame.value->contains(name)) {
            frame.key = name;
            duplicate_ = true;
            return false;
        }
        frame.key = name;
        frame.slot = &(*frame.value)[name];
        return true;
    }

    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
        error_ = withoutExceptionTag(e.what());
        overflow_ = e.id == 406;  // out_of_range.406: a number too large for a double
        return false;
    }

    /// Objects and arrays nest at most this deep (a config needs 4: rocks[0].center[1]), so
    /// that a file of a million '[' costs nothing and no message's dump of it can recurse deep.
    static constexpr std::size_t kMaxDepth = 16;

    Json& root() { return root_; }
    bool tooDeep() const { return tooDeep_; }
    const std::string& underflow() const { return underflow_; }
    bool duplicate() const { return duplicate_; }
    bool overflow() const { return overflow_; }
    const std::string& error() const { return error_; }

    /// Where the parser stopped: "rocks[2].center[1]", or "" at the top level.
    std::string path() const {
        std::string text;
        for (const Frame& frame : frames_) {
            if (frame.value->is_array()) {
                // An open child is already in its array; the value being read is not yet.
                const bool childOpen = &frame != &frames_.back();
                text.append("[")
                    .append(std::to_string(frame.value->size() - (childOpen ? 1 : 0)))
                    .append("]");
            } else if (!frame.key.empty() || frame.slot) {
                if (!text.empty()) text += '.';
                text += frame.key;
            }
        }
        return text;
    }

  private:
    struct Frame {
        Json* value;
        std::string key{};     // objects: the key being read
        Json* slot = nullptr;  // objects: where that key's value goes
    };

    Json* place(Json&& value) {
        if (frames_.empty()) {
            root_ = std::move(value);
            return &root_;
        }
        Frame& frame = frames_.back();
        if (frame.value->is_array()) {
            frame.value->push_back(std::move(value));
            return &frame.value->back();
        }
        *frame.slot = std::move(value);
        return frame.slot;
    }
    bool put(Json&& value) {
        place(std::move(value));
        return true;
    }
    bool open(Json&& container) {
        frames_.push_back({place(std::move(container))});
        return true;
    }
    bool close() {
        frames_.pop_back();
        return true;
    }

    Json root_;
    std::vector<Frame> frames_;
    bool duplicate_ = false;
    bool overflow_ = false;
    std::string error_;
    std::string underflow_;  // a number's text below the double range
    bool tooDeep_ = false;

    bool nestsTooDeep() {
        tooDeep_ = frames_.size() >= kMaxDepth;
        return tooDeep_;
    }
};

/// Parses JSON text. Every error names the source and, inside the document, the key.
template <class Json>
Result<Json> parseJson(std::string_view text, const Reader& reader) {
    // nlohmann's parser ends the text at a NUL byte: what follows it would be ignored.
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        return fail(reader.source() + ": byte " + std::to_string(nul + 1) +
                    " is a NUL byte; a JSON file is text without NUL bytes");
    JsonTreeBuilder<Json> builder;
    try {
        if (Json::sax_parse(text, &builder)) return std::move(builder.root());
    } catch (const typename Json::exception& e) {
        return fail(reader.source() + ": malformed JSON: " + withoutExceptionTag(e.what()));
    }
    const std::string path = builder.path();
    const std::string key = quote(path, 80);
    if (builder.duplicate())
        return fail(reader.source() + ": key " + key +
                    " appears more than once in one object; give each key once");
    if (!builder.underflow().empty())
        return fail((path.empty() ? reader.source() + ": " : reader.where(path)) +
                    quote(builder.underflow()) +
                    " is too close to 0 for a float (1.4e-45 in size at least); give 0 or a "
                    "number further from 0");
    if (builder.tooDeep())
        return fail(reader.source() + (path.empty() ? "" : ": key " + key) +
                    ": arrays and objects nest more than " +
                    std::to_string(JsonTreeBuilder<Json>::kMaxDepth) +
                    " deep; a config nests 4 deep at most (rocks[0].center), an ensemble 5");
    if (builder.overflow() && !path.empty())
        return fail(reader.source() + ": key " + key + ": the number " + beyondFloatRange() + " (" +
                    builder.error() + ")");
    // The key is quoted shorter here: nlohmann's message follows it on the same line.
    return fail(reader.source() + ": malformed JSON" +
                (path.empty() ? "" : " in key " + quote(path, 40)) + ": " + builder.error());
}

/// Reads the value of table key `info` into `p`; errors name the key (as `shownKey` where given:
/// a species' "species[1].maxVelocity") and what it allows.
Result<void> readKey(const ParamInfo& info, const Json& value, const Reader& reader, SimParams& p,
                     const std::string& shownKey) {
    const std::string key = shownKey.empty() ? std::string(info.key) : shownKey;
    return std::visit(
        [&]<class Field>(const Field& field) -> Result<void> {
            if constexpr (std::is_same_v<Field, float SimParams::*>) {
                auto v = reader.number(value, key);
                if (!v) return fail(v.error());
                p.*field = *v;
            } else if constexpr (std::is_same_v<Field, std::int64_t SimParams::*>) {
                // Both ends are at least 0: a negative number, or one past the int64 range, is
                // out of range whatever it is.
                const auto [low, high] = wholeNumberRange(info);
                const bool inRange = value.is_number_unsigned() &&
                                     value.get<std::uint64_t>() >= std::uint64_t(low) &&
                                     value.get<std::uint64_t>() <= std::uint64_t(high);
                if (!inRange)
                    return fail(reader.where(key) + shown(value) + " is not allowed; must be " +
                                "a whole number from " + std::to_string(low) + " to " +
                                std::to_string(high));
                p.*field = value.get<std::int64_t>();
            } else if constexpr (std::is_same_v<Field, std::uint64_t SimParams::*>) {
                if (!value.is_number_unsigned())
                    return fail(reader.where(key) + "must be a whole number from 0 to " +
                                std::to_string(std::numeric_limits<std::uint64_t>::max()) +
                                ", got " + shown(value));
                p.*field = value.get<std::uint64_t>();
            } else if constexpr (std::is_same_v<Field, bool SimParams::*>) {
                if (!value.is_boolean())
                    return fail(reader.where(key) + "must be true or false, got " + shown(value));
                p.*field = value.get<bool>();
            } else if constexpr (std::is_same_v<Field, glm::vec3 SimParams::*>) {
                auto v = reader.vec3(value, key);
                if (!v) return fail(v.error());
                p.*field = *v;
            } else if constexpr (std::is_same_v<Field, ChoiceField>) {
                auto index = reader.choice(value, key, field.names);
                if (!index) return fail(index.error());
                field.set(p, *index);
            } else if constexpr (std::is_same_v<Field, std::vector<Rock> SimParams::*>) {
                auto rocks = readRocks(value, reader);
                if (!rocks) return fail(rocks.error());
                p.*field = std::move(*rocks);
            } else {
                auto species = readSpecies(value, reader);
                if (!species) return fail(species.error());
                p.*field = std::move(*species);
            }
            return {};
        },
        info.field);
}

}  // namespace

Result<SimParams> parseConfig(std::string_view text, std::string_view sourceName) {
    const Reader reader{std::string(sourceName)};
    auto parsed = parseJson<Json>(text, reader);
    if (!parsed) return std::unexpected(parsed.error());
    const Json& root = *parsed;
    if (!root.is_object())
        return fail(reader.source() + ": the config must be a JSON object, got " + typeName(root));

    SimParams p;
    for (const auto& [key, value] : root.items()) {
        const ParamInfo* info = findParam(key);
        // An ensemble file (docs/examples holds both kinds) given where a config goes: its
        // "axes" comes first of its keys, which Json keeps sorted.
        if (!info && key == "axes")
            return fail(reader.where(key) +
                        "unknown key; this is an ensemble file (base, axes, ...), not a config: "
                        "run it with fishschool-cli ensemble run (docs/ensembles.md)");
        if (!info) return fail(reader.where(key) + "unknown key (see docs/config.md for the keys)");
        if (auto ok = readKey(*info, value, reader, p); !ok) return fail(ok.error());
    }

    if (auto ok = validate(p); !ok) {
        // A small tank refuses rocks the file never named: say whose they are.
        if (!root.contains("rocks") && ok.error().starts_with("rocks"))
            return fail(reader.source() + ": " + ok.error() +
                        " (the default rocks, kept by a config without \"rocks\"; \"rocks\": [] "
                        "removes them)");
        return fail(reader.source() + ": " + ok.error());
    }
    return p;
}

Result<nlohmann::ordered_json> parseJsonText(std::string_view text, std::string_view source) {
    return parseJson<nlohmann::ordered_json>(text, Reader{std::string(source)});
}

Result<SimParams> withConfigNumber(const SimParams& base, std::string_view key, double value,
                                   std::string_view sourceName) {
    const Reader reader{std::string(sourceName)};
    const ParamInfo* info = findParam(key);
    if (!info)
        return fail(reader.where(std::string(key)) +
                    "unknown key (see docs/config.md for the keys)");
    const bool whole = !std::holds_alternative<float SimParams::*>(info->field);
    // As the JSON text would read: a whole number's sign decides its type.
    Json number = !whole      ? Json(value)
                  : value < 0 ? Json(std::int64_t(value))
                              : Json(std::uint64_t(value));
    SimParams p = base;
    if (auto ok = readKey(*info, number, reader, p); !ok) return fail(ok.error());
    if (auto ok = validate(p); !ok) return fail(reader.source() + ": " + ok.error());
    return p;
}

Result<SimParams> loadConfig(const std::filesystem::path& path) {
    auto text = readTextFile(path, kMaxConfigFileBytes, "config file");
    if (!text) return fail(text.error());
    return parseConfig(*text, path.string());
}

Result<RunStart> runStartOf(const ParamFlags& flags, const std::string& stateIn,
                            std::optional<std::int64_t> frame) {
    RunStart start;
    start.names = {.config = "--config",
                   .state = "--state-in",
                   .frame = "--frame",
                   .fishCount = "--fish",
                   .seed = "--seed",
                   .neighborSearch = "--neighbors"};
    // What goes with what (--fish with --state-in, ...) is readStart's to say, named as flags.
    if (flags.configPath) {
        if (flags.configPath->empty())
            return fail("--config: an empty file name is not allowed; give a config file");
        start.config = *flags.configPath;
    }
    start.state = stateIn;
    start.frame = frame;
    if (flags.fish) {
        auto fish = parseFishCount("--fish", *flags.fish);
        if (!fish) return fail(fish.error());
        start.fishCount = *fish;
    }
    if (flags.seed) {
        auto seed = parseUnsigned64("--seed", *flags.seed);
        if (!seed) return fail(seed.error());
        start.seed = *seed;
    }
    start.neighborSearch = flags.neighbors;
    return start;
}

Result<SimParams> loadParams(const ParamFlags& flags) {
    return loadParams(flags, SimParams{});
}

Result<SimParams> loadParams(const ParamFlags& flags, const SimParams& base) {
    SimParams params = base;
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
        setFishCount(params, *fish);  // a mixed school keeps its shares
    }
    if (flags.seed) {
        auto seed = parseUnsigned64("--seed", *flags.seed);
        if (!seed) return fail(seed.error());
        params.seed = *seed;
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

Json vec3Json(const glm::vec3& v) {
    return Json::array({shortest(v.x), shortest(v.y), shortest(v.z)});
}

/// The value of key `info` in `p`, as a config file holds it.
Json valueOf(const ParamInfo& info, const SimParams& p) {
    return std::visit(
        [&]<class Field>(const Field& field) -> Json {
            if constexpr (std::is_same_v<Field, float SimParams::*>) {
                return shortest(p.*field);
            } else if constexpr (std::is_same_v<Field, glm::vec3 SimParams::*>) {
                return vec3Json(p.*field);
            } else if constexpr (std::is_same_v<Field, ChoiceField>) {
                return field.names[static_cast<std::size_t>(field.get(p))];
            } else if constexpr (std::is_same_v<Field, std::vector<Rock> SimParams::*>) {
                Json rocks = Json::array();
                for (const Rock& rock : p.*field)
                    rocks.push_back(
                        {{"center", vec3Json(rock.center)}, {"radius", shortest(rock.radius)}});
                return rocks;
            } else if constexpr (std::is_same_v<Field, std::vector<Species> SimParams::*>) {
                Json list = Json::array();
                for (const Species& species : p.*field) {
                    Json entry = {{"name", species.name},
                                  {"count", species.count},
                                  {"color", vec3Json(species.color)}};
                    for (const SpeciesSetting& setting : species.settings) {
                        const ParamInfo* key = findParam(setting.key);
                        if (!key) continue;
                        SimParams scratch;
                        applySetting(scratch, setting);
                        entry[setting.key] = valueOf(*key, scratch);
                    }
                    list.push_back(std::move(entry));
                }
                return list;
            } else {
                return p.*field;
            }
        },
        info.field);
}

}  // namespace

std::string configToJson(const SimParams& p) {
    Json root = Json::object();
    for (const ParamInfo& info : paramTable()) root[info.key] = valueOf(info, p);
    return root.dump(2) + "\n";
}

Result<void> saveConfig(const std::filesystem::path& path, const SimParams& params) {
    return writeFileAtomically(path, configToJson(params));
}

// Also the panel's, for a species it adds.
glm::vec3 defaultSpeciesColor(std::size_t index) {
    static constexpr float kPalette[][3] = {{0.25f, 0.55f, 0.95f}, {0.95f, 0.55f, 0.15f},
                                            {0.3f, 0.8f, 0.35f},   {0.85f, 0.25f, 0.25f},
                                            {0.6f, 0.4f, 0.85f},   {0.2f, 0.8f, 0.8f}};
    const auto& c = kPalette[index % std::size(kPalette)];
    return {c[0], c[1], c[2]};
}

}  // namespace fishschool
