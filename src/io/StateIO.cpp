#include "StateIO.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

#include "OutputFiles.h"
#include "TextFiles.h"
#include "TextInput.h"
#include "core/Scenario.h"

namespace fishschool {
namespace {

constexpr std::string_view kHeader = "x,y,z,vx,vy,vz";
const char* const kColumns[] = {"x", "y", "z", "vx", "vy", "vz", "kickClock"};

/// A line without the '\r' of a "\r\n" line end. Spaces stay: a value with one is refused, as
/// docs/config.md says (no spaces), wherever it stands.
std::string_view trimLineEnd(std::string_view line) {
    if (line.ends_with('\r')) line.remove_suffix(1);
    return line;
}

/// Why `position` is not in the scene: the tank's wall it is beyond, or the rock it is in.
std::string whereItIsNot(const glm::vec3& position, const SimParams& params) {
    for (int k = 0; k < 3; ++k)
        if (params.boundary == Boundary::Open && !(std::abs(position[k]) <= kOpenWaterReach))
            return "lies beyond open water's reach (each coordinate within +-" +
                   formatNumber(kOpenWaterReach) +
                   " m of the origin, where every step stays finite)";
    for (int k = 0; k < 3; ++k)
        if (params.boundary != Boundary::Open && !(std::abs(position[k]) <= params.bounds[k]))
            return "lies outside the tank (each coordinate within +-" + formatPoint(params.bounds) +
                   " of its centre)";
    if (!withinRoundWall(position, params))
        return "lies outside the round tank (at most " + formatNumber(arenaRadiusOf(params)) +
               " m from its axis, x = z = 0)";
    for (std::size_t r = 0; r < params.rocks.size(); ++r) {
        const Rock& rock = params.rocks[r];
        const glm::vec3 d = position - rock.center;
        if (d.x * d.x + d.y * d.y + d.z * d.z < rock.radius * rock.radius)
            return "lies inside rock " + std::to_string(r) + " (centre " +
                   formatPoint(rock.center) + ", radius " + formatNumber(rock.radius) + ")";
    }
    return "lies outside the tank or inside a rock of the configuration";
}

}  // namespace

std::optional<std::string> whyNotInScene(const Fish& fish, const SimParams& params) {
    // docs/model.md, What a step guarantees: a faster fish could only overflow the step's sums.
    const glm::vec3& v = fish.velocity;
    const double speed = std::sqrt(double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z);
    if (speed > 1e6)
        return "a speed of " + formatNumber(speed) + " m/s is not allowed; at most 1e6";
    if (!isInScene(fish.position, params))
        return "the fish at " + formatPoint(fish.position) + " " +
               whereItIsNot(fish.position, params);
    if (params.dimensions == 2 && (fish.position.y != 0.0f || v.y != 0.0f))
        return "the fish at " + formatPoint(fish.position) + " with velocity " + formatPoint(v) +
               " is not allowed; with dimensions 2 every fish lies and moves in the plane y = 0";
    return std::nullopt;
}

std::optional<std::string> whyNotKickClock(float clock) {
    // Negative and NaN fail the first test; 0 is a kick drawn anew, as in a new school.
    if (!(clock >= 0.0f) || !(clock <= kMaxKickClock))
        return "is not allowed; must be a time in seconds from 0 (the first kick drawn anew) to " +
               formatNumber(kMaxKickClock);
    return std::nullopt;
}

bool keepsKickClocks(const SimParams& params) {
    return params.steering == Steering::BurstAndCoast;
}

Result<std::uint32_t> stateSpecies(std::size_t index, std::optional<std::int64_t> given,
                                   const SimParams& params) {
    if (!given) return speciesOf(index, params);
    const std::size_t known = params.species.size();
    if (*given >= 0 && std::uint64_t(*given) < std::max<std::size_t>(known, 1))
        return static_cast<std::uint32_t>(*given);
    return fail(known == 0 ? std::string("is not allowed; the configuration has no species, so "
                                         "every fish is of species 0")
                           : "is not allowed; must be a species' index, 0 to " +
                                 std::to_string(known - 1) + " (the " + std::to_string(known) +
                                 " species of the configuration)");
}

namespace {

/// The optional columns after the six, in their order.
constexpr std::string_view kKickClockColumn = "kickClock";
constexpr std::string_view kSpeciesColumn = "species";
constexpr std::string_view kKindColumn = "kind";

/// The header of a file with these columns.
std::string headerOf(bool withKickClock, bool withSpecies, bool withKind) {
    std::string header(kHeader);
    if (withKickClock) header.append(",").append(kKickClockColumn);
    if (withSpecies) header.append(",").append(kSpeciesColumn);
    if (withKind) header.append(",").append(kKindColumn);
    return header;
}

}  // namespace

Result<School> parseStateCsv(std::string_view text, const SimParams& params,
                             std::string_view sourceName) {
    const std::string source(sourceName);
    School school;
    std::size_t lineNumber = 0;
    bool sawHeader = false;
    bool withKickClock = false;  // the header has ",kickClock" after the six: so does every row
    bool withSpecies = false;    // the header has ",species" after the six: so does every row
    bool withKind = false;       // the header ends with ",kind": so does every row
    std::size_t columns = 6;
    // A UTF-8 byte order mark, as some editors write, is read as if absent (docs/config.md, State).
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    // One row a line: sized once, rather than moved again and again as it grows.
    school.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::string_view line = trimLineEnd(text.substr(0, end));
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        ++lineNumber;
        // Built only for an error: one string per row would cost more than the row's numbers.
        const auto where = [&] { return source + ":" + std::to_string(lineNumber) + ": "; };
        if (!sawHeader) {
            bool known = false;
            for (bool clock : {false, true})
                for (bool species : {false, true})
                    for (bool kind : {false, true})
                        if (!known && line == headerOf(clock, species, kind)) {
                            known = true;
                            withKickClock = clock;
                            withSpecies = species;
                            withKind = kind;
                        }
            if (!known)
                return fail(where() + "bad header " + quote(line) + "; expected '" +
                            std::string(kHeader) + "', optionally followed by ',kickClock' " +
                            "(steering burst-and-coast), ',species' (with species) and ',kind' " +
                            "(with leaders or predators), in that order");
            columns = 6 + (withKickClock ? 1 : 0) + (withSpecies ? 1 : 0) + (withKind ? 1 : 0);
            sawHeader = true;
            continue;
        }
        if (line.empty() && text.empty()) break;  // a final newline
        if (line.empty())
            return fail(where() + "empty line; every line after the header is one fish: " +
                        headerOf(withKickClock, withSpecies, withKind));

        if (columns > 6) {
            // A row without its species or kind is short, not of a wrong kind.
            const auto values =
                static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
            if (values != columns)
                return fail(where() +
                            (values < columns ? "only " + std::to_string(values) + " values"
                                              : std::string("too many values")) +
                            "; a row has " + std::to_string(columns) + ": " +
                            headerOf(withKickClock, withSpecies, withKind));
        }
        if (withKind) {
            const std::size_t lastComma = line.rfind(',');
            const std::string_view kind =
                lastComma == std::string_view::npos ? line : line.substr(lastComma + 1);
            const std::string_view expected = toString(fishKind(school.size(), params));
            if (kind != expected)
                return fail(where() + "kind " + quote(kind) +
                            " is not allowed; the configuration (leaders " +
                            std::to_string(params.leaders) + ", predators " +
                            std::to_string(params.predators) + ") makes fish " +
                            std::to_string(school.size()) + " a " + std::string(expected));
            line = line.substr(0, lastComma);
        }
        std::optional<std::int64_t> given;  // none: the configuration deals the species
        std::string_view speciesField;
        if (withSpecies) {
            const std::size_t lastComma = line.rfind(',');
            speciesField = lastComma == std::string_view::npos ? line : line.substr(lastComma + 1);
            std::uint32_t index = 0;
            const auto [ptr, ec] = std::from_chars(
                speciesField.data(), speciesField.data() + speciesField.size(), index);
            const bool whole = ec == std::errc() &&
                               ptr == speciesField.data() + speciesField.size() &&
                               !speciesField.empty();
            given = whole ? std::int64_t(index) : std::int64_t(-1);  // -1: refused below
            line = line.substr(0, lastComma);
        }
        std::array<float, 7> values{};
        const std::size_t numbers = withKickClock ? 7 : 6;  // the position, velocity and clock
        std::size_t column = 0;
        std::string_view rest = line;
        std::string_view kickClockField;
        for (;;) {
            const std::size_t comma = rest.find(',');
            const std::string_view field = rest.substr(0, comma);
            if (column == 6) kickClockField = field;
            if (column == numbers)
                return fail(where() + "too many values; a row has " + std::to_string(numbers) +
                            ": " + headerOf(withKickClock, false, false));
            const char* first = field.data();
            const char* last = field.data() + field.size();
            const auto [ptr, ec] = std::from_chars(first, last, values[column]);
            if (ec == std::errc::result_out_of_range && ptr == last)
                return fail(where() + "'" + kColumns[column] + "' value " + quote(field) + " " +
                            beyondFloatRange());
            if (ec != std::errc() || ptr != last || field.empty())
                return fail(where() + "'" + kColumns[column] + "' value " + quote(field) +
                            " is not a number");
            if (!std::isfinite(values[column]))
                return fail(where() + "'" + kColumns[column] + "' is " + quote(field) +
                            "; values must be finite");
            ++column;
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
        if (column != numbers)
            return fail(where() + "only " + std::to_string(column) + " values; a row has " +
                        std::to_string(numbers) + ": " + headerOf(withKickClock, false, false));
        Fish fish;
        fish.position = {values[0], values[1], values[2]};
        fish.velocity = {values[3], values[4], values[5]};
        if (withKickClock) {
            if (auto why = whyNotKickClock(values[6]))
                return fail(where() + "'kickClock' value " + quote(kickClockField) + " " + *why);
            // Read and checked under every steering; only one with kicks keeps it.
            if (keepsKickClocks(params)) fish.kickClock = values[6];
        }
        auto species = stateSpecies(school.size(), given, params);
        if (!species)
            return fail(where() + "species " + quote(speciesField) + " " + species.error());
        fish.species = *species;
        if (auto why = whyNotInScene(fish, params)) return fail(where() + *why);
        school.push_back(fish);
    }
    if (!sawHeader)
        return fail(source + ":1: empty file; expected the header '" + std::string(kHeader) + "'");
    return school;
}

Result<School> loadStateCsv(const std::filesystem::path& path, const SimParams& params) {
    auto text = readTextFile(path, kMaxStateFileBytes, "state file");
    if (!text) return fail(text.error());
    return parseStateCsv(*text, params, path.string());
}

namespace {

/// One row: "%.9g" numbers, then the kick clock, the species and the kind where the file has
/// those columns (clock false, species < 0, kind null: not).
void appendRow(std::string& out, const Fish& f, bool clock, long species, const char* kind) {
    char line[240];
    int n = std::snprintf(line, sizeof line, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", double(f.position.x),
                          double(f.position.y), double(f.position.z), double(f.velocity.x),
                          double(f.velocity.y), double(f.velocity.z));
    if (clock)
        n += std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), ",%.9g",
                           double(f.kickClock));
    if (species >= 0)
        n += std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), ",%ld", species);
    if (kind != nullptr)
        n += std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), ",%s", kind);
    out.append(line, static_cast<std::size_t>(n));
    out += '\n';
}

/// The state CSV in pieces of about `pieceBytes`, each handed to `write`; `params` null: no
/// kick clock, species or kind column.
Result<void> writeRows(std::span<const Fish> school, const SimParams* params,
                       std::size_t pieceBytes,
                       const std::function<Result<void>(std::string_view)>& write) {
    const bool withKind = params != nullptr && hasKinds(*params);
    const bool withSpecies = params != nullptr && !params->species.empty();
    const bool withKickClock = params != nullptr && keepsKickClocks(*params);
    std::string piece = headerOf(withKickClock, withSpecies, withKind);
    piece += '\n';
    for (std::size_t i = 0; i < school.size(); ++i) {
        appendRow(piece, school[i], withKickClock,
                  withSpecies ? static_cast<long>(school[i].species) : -1,
                  withKind ? toString(fishKind(i, *params)).data() : nullptr);
        if (piece.size() < pieceBytes) continue;
        if (auto ok = write(piece); !ok) return ok;
        piece.clear();
    }
    return write(piece);
}

std::string wholeText(std::span<const Fish> school, const SimParams* params) {
    std::string out;
    (void)writeRows(school, params, std::string::npos, [&](std::string_view text) {
        out.append(text);
        return Result<void>{};
    });
    return out;
}

}  // namespace

std::string stateToCsv(std::span<const Fish> school) {
    return wholeText(school, nullptr);
}

Result<void> saveStateCsv(const std::filesystem::path& path, std::span<const Fish> school) {
    return writeFileAtomically(path, stateToCsv(school));
}

std::string stateToCsv(std::span<const Fish> school, const SimParams& params) {
    return wholeText(school, &params);
}

Result<void> writeStateCsv(std::span<const Fish> school, const SimParams& params,
                           const std::function<Result<void>(std::string_view)>& write) {
    return writeRows(school, &params, 1 << 16, write);
}

Result<void> saveStateCsv(const std::filesystem::path& path, std::span<const Fish> school,
                          const SimParams& params) {
    return writeFileAtomically(path, stateToCsv(school, params));
}

}  // namespace fishschool
