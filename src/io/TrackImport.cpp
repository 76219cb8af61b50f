// Tracked fish in (fishschool/Import.h, docs/data.md): the readers of each tracker's files, and
// the importer that scales them, takes velocities by differences and writes a trajectory with
// the frames each fish is missing.

#include "io/TrackImport.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <regex>
#include <unordered_map>

#include <zlib.h>

#include "core/Messages.h"
#include "fishschool/Config.h"
#include "fishschool/Trajectory.h"
#include "io/OutputFiles.h"
#include "io/Pickle.h"
#include "io/TextFiles.h"

namespace fishschool {
namespace {

namespace fs = std::filesystem;
using Type = PickleObject::Type;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class T>
T readLittle(const char* p) {
    T value{};
    std::memcpy(&value, p, sizeof(T));
    return value;
}

/// A .npy file: a numeric array as one object, or an object array's pickle.
Result<Pickle> parseNpy(std::string_view bytes, const std::string& name) {
    if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY")
        return fail(name + ": is not a NumPy .npy file (no \\x93NUMPY signature at its start)");
    const int major = static_cast<unsigned char>(bytes[6]);
    std::size_t headerLength = 0, start = 0;
    if (major == 1) {
        headerLength = readLittle<std::uint16_t>(bytes.data() + 8);
        start = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) return fail(name + ": a .npy header cut short");
        headerLength = readLittle<std::uint32_t>(bytes.data() + 8);
        start = 12;
    } else {
        return fail(name + ": .npy format version " + std::to_string(major) + "; 1 to 3 are read");
    }
    if (headerLength > bytes.size() - start || headerLength > 65536)
        return fail(name + ": its .npy header claims " + std::to_string(headerLength) +
                    " bytes; the file holds " + std::to_string(bytes.size() - start) +
                    " after its start (at most 65536 read)");
    const std::string_view header = bytes.substr(start, headerLength);
    const std::string_view data = bytes.substr(start + headerLength);
    const auto valueOf = [&](std::string_view key) -> std::optional<std::string_view> {
        const std::size_t at = header.find(key);
        if (at == std::string_view::npos) return std::nullopt;
        std::size_t p = header.find(':', at + key.size());
        if (p == std::string_view::npos) return std::nullopt;
        ++p;
        while (p < header.size() && header[p] == ' ') ++p;
        return header.substr(p);
    };
    const auto descrText = valueOf("'descr'");
    const auto fortranText = valueOf("'fortran_order'");
    const auto shapeText = valueOf("'shape'");
    if (!descrText || !fortranText || !shapeText || descrText->empty() ||
        (descrText->front() != '\'' && descrText->front() != '"'))
        return fail(name + ": its .npy header does not give descr, fortran_order and shape");
    const std::size_t close = descrText->find(descrText->front(), 1);
    if (close == std::string_view::npos) return fail(name + ": its .npy descr is not closed");
    const std::string_view descr = descrText->substr(1, close - 1);
    PickleObject array;
    array.type = Type::Array;
    array.built = true;
    if (!parseArrayType(descr, array.arrayType))
        return fail(name + ": a NumPy array of type " + quote(printable(std::string(descr), 40)) +
                    "; allowed: float16/32/64, (unsigned) integers, bool and objects");
    if (fortranText->starts_with("True")) {
        array.fortranOrder = true;
    } else if (!fortranText->starts_with("False")) {
        return fail(name + ": its .npy fortran_order is neither True nor False");
    }
    if (shapeText->empty() || shapeText->front() != '(')
        return fail(name + ": its .npy shape is not a tuple");
    std::uint64_t count = 1;
    std::size_t p = 1;
    while (p < shapeText->size() && (*shapeText)[p] != ')') {
        const char c = (*shapeText)[p];
        if (c == ' ' || c == ',' || c == 'L') {
            ++p;
            continue;
        }
        std::uint64_t dim = 0;
        const auto [end, ec] =
            std::from_chars(shapeText->data() + p, shapeText->data() + shapeText->size(), dim);
        if (ec != std::errc())
            return fail(name + ": its .npy shape holds something other than whole numbers");
        p = std::size_t(end - shapeText->data());
        if (array.shape.size() >= kMaxArrayRank)
            return fail(name + ": an array of more than " + std::to_string(kMaxArrayRank) +
                        " dimensions");
        array.shape.push_back(dim);
        if (__builtin_mul_overflow(count, dim, &count))
            return fail(name + ": its shape claims more than 2^64 elements");
    }
    if (p >= shapeText->size()) return fail(name + ": its .npy shape is not closed");
    if (array.arrayType.kind == 'O') {
        auto pickle = readPickle(data, name);
        if (!pickle) return fail(pickle.error());
        return pickle;
    }
    std::uint64_t expected = 0;
    if (__builtin_mul_overflow(count, array.arrayType.itemSize, &expected) ||
        expected != data.size())
        return fail(name + ": its shape claims " + std::to_string(count) + " elements of " +
                    array.arrayType.name() + " and it holds " + std::to_string(data.size()) +
                    " bytes of data; it must hold exactly its elements' bytes");
    array.text.assign(data);
    Pickle out;
    out.objects.push_back(std::move(array));
    return out;
}

std::string shapeText(const std::vector<std::uint64_t>& shape) {
    std::string out = "(";
    for (std::size_t k = 0; k < shape.size(); ++k)
        out += (k ? " x " : "") + std::to_string(shape[k]);
    return out + ")";
}

Result<void> checkSamples(std::uint64_t frames, std::uint64_t fish, const std::string& name) {
    std::uint64_t samples = 0;
    if (fish > kMaxImportFish)
        return fail(name + ": " + std::to_string(fish) + " fish; an import holds at most " +
                    std::to_string(kMaxImportFish));
    if (__builtin_mul_overflow(frames, fish, &samples) || samples > kMaxImportSamples)
        return fail(name + ": " + std::to_string(frames) + " frames of " + std::to_string(fish) +
                    " fish; an import holds at most " + std::to_string(kMaxImportSamples) +
                    " frames x fish");
    return {};
}

/// A line's fields, split on commas; quotes around a field dropped.
void splitFields(std::string_view line, std::vector<std::string_view>& out) {
    out.clear();
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        std::string_view field =
            line.substr(start, comma == std::string_view::npos ? line.npos : comma - start);
        while (!field.empty() && (field.front() == ' ' || field.front() == '\t'))
            field.remove_prefix(1);
        while (!field.empty() &&
               (field.back() == ' ' || field.back() == '\t' || field.back() == '\r'))
            field.remove_suffix(1);
        if (field.size() >= 2 && field.front() == '"' && field.back() == '"')
            field = field.substr(1, field.size() - 2);
        out.push_back(field);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// A number of a CSV field: empty, "nan", "inf" are missing (NaN); false for other text.
bool fieldNumber(std::string_view field, double& out) {
    if (field.empty()) {
        out = kNaN;
        return true;
    }
    if (field.front() == '+') field.remove_prefix(1);
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
    if (end != field.data() + field.size()) return false;
    if (ec == std::errc::result_out_of_range) {
        out = kNaN;  // beyond double: refused later as not finite... treated as missing
        return false;
    }
    return ec == std::errc();
}

/// The lines of `text`: a callback for each, with its number (1-based).
template <class F>
Result<void> forEachLine(std::string_view text, F&& f) {
    std::size_t start = 0, number = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        ++number;
        if (auto ok = f(text.substr(start, end - start), number); !ok) return ok;
        start = end + 1;
    }
    return {};
}

bool blank(std::string_view line) {
    return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

struct FishColumns {
    std::string id;
    std::string source;
    std::vector<NamedColumn> columns;
};

const NamedColumn* column(const std::vector<NamedColumn>& columns,
                          std::initializer_list<const char*> names) {
    for (const char* n : names)
        for (const NamedColumn& c : columns)
            if (c.name == n) return &c;
    return nullptr;
}

/// TRex's per-fish columns into tracks: X, Y (or X#wcentroid, Y#wcentroid), frame, time.
Result<Tracks> tracksOfFish(std::vector<FishColumns> fish, const std::string& format) {
    Tracks t;
    t.format = format;
    t.fish = fish.size();
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = -1;
    struct Picked {
        const NamedColumn *x, *y, *frame, *time, *missing;
    };
    std::vector<Picked> picked;
    for (const FishColumns& f : fish) {
        Picked p{column(f.columns, {"X", "X#wcentroid", "x"}),
                 column(f.columns, {"Y", "Y#wcentroid", "y"}), column(f.columns, {"frame"}),
                 column(f.columns, {"time"}), column(f.columns, {"missing"})};
        if (!p.x || !p.y)
            return fail(f.source + ": has no X and Y (TRex's positions); it has " +
                        std::to_string(f.columns.size()) + " other columns");
        const std::size_t n = p.x->values.size();
        for (const NamedColumn* c : {p.y, p.frame, p.time, p.missing})
            if (c && c->values.size() != n)
                return fail(f.source + ": " + c->name + " holds " +
                            std::to_string(c->values.size()) + " values and " + p.x->name +
                            " holds " + std::to_string(n) + "; a value a row in each");
        for (std::size_t k = 0; k < n; ++k) {
            const double frame = p.frame ? p.frame->values[k] : double(k);
            if (!(frame >= 0 && frame <= 1e12) || frame != std::floor(frame))
                return fail(f.source + ": frame, row " + std::to_string(k) + ": " +
                            formatNumber(frame) + "; frames are whole numbers from 0");
            first = std::min(first, std::int64_t(frame));
            last = std::max(last, std::int64_t(frame));
        }
        picked.push_back(p);
        t.sources.push_back(f.source);
        t.ids.push_back(f.id);
    }
    if (last < 0) return fail(fish.front().source + ": holds no rows; nothing to import");
    t.firstFrame = first;
    t.frames = std::size_t(last - first + 1);
    if (auto ok = checkSamples(t.frames, t.fish, fish.front().source); !ok) return fail(ok.error());
    t.positions.assign(t.frames * t.fish * 3, kNaN);
    for (std::size_t i = 0; i < t.fish; ++i) {
        const Picked& p = picked[i];
        std::vector<bool> seen(t.frames, false);
        for (std::size_t k = 0; k < p.x->values.size(); ++k) {
            const std::size_t f =
                std::size_t((p.frame ? std::int64_t(p.frame->values[k]) : std::int64_t(k)) - first);
            if (seen[f])
                return fail(fish[i].source + ": frame " + std::to_string(f + std::size_t(first)) +
                            " is given twice (row " + std::to_string(k) + ")");
            seen[f] = true;
            if (p.missing && p.missing->values[k] != 0) continue;
            double* out = &t.positions[(f * t.fish + i) * 3];
            if (!std::isfinite(p.x->values[k]) || !std::isfinite(p.y->values[k]))
                continue;  // TRex writes infinity where a fish was lost
            out[0] = p.x->values[k];
            out[1] = p.y->values[k];
            out[2] = 0.0;
        }
        // The frame rate from the first and the last row with a time.
        if (!t.fps && p.time && p.frame) {
            std::optional<std::size_t> a, b;
            for (std::size_t k = 0; k < p.time->values.size(); ++k)
                if (std::isfinite(p.time->values[k])) {
                    if (!a) a = k;
                    b = k;
                }
            if (a && b && *a != *b) {
                t.fps = (p.frame->values[*b] - p.frame->values[*a]) /
                        (p.time->values[*b] - p.time->values[*a]);
                t.fpsSource = fish[i].source + ": frame and time";
            }
        }
    }
    return t;
}

/// The files of one TRex export: `prefix_fishN.ext` beside `file`, by N; `file` alone when its
/// name is not so.
Result<std::vector<std::pair<std::string, fs::path>>> fishFiles(const fs::path& file) {
    static const std::regex pattern(R"((.*)_fish([0-9]{1,9}))");
    const std::string stem = file.stem().string();
    std::smatch match;
    if (!std::regex_match(stem, match, pattern))
        return std::vector{std::pair{std::string("0"), file}};
    const std::string prefix = match[1].str();
    std::map<long, fs::path> found;
    std::error_code ec;
    const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path& p = it->path();
        if (p.extension() != file.extension()) continue;
        const std::string s = p.stem().string();
        std::smatch m;
        if (std::regex_match(s, m, pattern) && m[1].str() == prefix) {
            if (found.size() >= kMaxImportFish)
                return fail(printable(file.string(), 200) + ": more than " +
                            std::to_string(kMaxImportFish) + " _fishN files beside it");
            found[std::stol(m[2].str())] = file.parent_path() / p.filename();
        }
    }
    if (ec)
        return fail(printable(folder.string(), 200) + ": cannot list the folder: " + ec.message());
    std::vector<std::pair<std::string, fs::path>> out;
    for (auto& [n, p] : found) out.emplace_back(std::to_string(n), p);
    if (out.empty()) out.emplace_back(match[2].str(), file);
    return out;
}

Result<std::string> readTrackFile(const fs::path& file) {
    return readTextFile(file, kMaxTrackFileBytes, "tracked file");
}

}  // namespace

Result<Tracks> parseIdtrackerNpy(std::string_view bytes, const std::string& name) {
    auto pickle = parseNpy(bytes, name);
    if (!pickle) return fail(pickle.error());
    std::uint32_t root = pickle->root;
    const PickleObject* top = &pickle->at(root);
    // np.save of a dict: a 0-d object array holding it.
    if (top->type == Type::Array && top->arrayType.kind == 'O' && top->items.size() == 1) {
        root = top->items[0];
        top = &pickle->at(root);
    }
    Tracks t;
    t.format = "idtracker.ai";
    t.sources = {name};
    std::uint32_t trajectories = root;
    std::string field = "the array";
    if (top->type == Type::Dict) {
        const auto found = pickle->find(root, "trajectories");
        if (!found)
            return fail(name +
                        ": its dict has no 'trajectories' (idtracker.ai's frames x fish x 2 "
                        "positions)");
        trajectories = *found;
        field = "'trajectories'";
        for (auto [key, target, source] :
             {std::tuple{"frames_per_second", &t.fps, &t.fpsSource},
              std::tuple{"body_length", &t.bodyLength, &t.bodyLengthSource}}) {
            const auto value = pickle->find(root, key);
            if (!value || pickle->at(*value).type == Type::None) continue;
            const auto number = numberOf(*pickle, *value);
            if (!number)
                return fail(name + ": '" + key + "' is a " +
                            std::string(typeName(pickle->at(*value).type)) + "; must be a number");
            *target = *number;
            *source = name + ": '" + key + "'";
        }
    } else if (top->type != Type::Array) {
        return fail(name + ": holds a " + std::string(typeName(top->type)) +
                    "; idtracker.ai's trajectories.npy holds a dict with 'trajectories'");
    }
    const PickleObject& array = pickle->at(trajectories);
    if (array.type != Type::Array || array.arrayType.kind != 'f')
        return fail(name + ": " + field + " is " +
                    (array.type == Type::Array ? "an array of " + array.arrayType.name()
                                               : "a " + std::string(typeName(array.type))) +
                    "; must be an array of floats (frames x fish x 2, NaN where a fish is lost)");
    if (array.shape.size() != 3 || (array.shape[2] != 2 && array.shape[2] != 3))
        return fail(name + ": " + field + " has shape " + shapeText(array.shape) +
                    "; must be frames x fish x 2 (or 3)");
    if (auto ok = checkSamples(array.shape[0], array.shape[1], name); !ok) return fail(ok.error());
    if (array.shape[0] == 0) return fail(name + ": " + field + " holds no frame");
    auto values = arrayValues(array, name + ": " + field);
    if (!values) return fail(values.error());
    t.frames = std::size_t(array.shape[0]);
    t.fish = std::size_t(array.shape[1]);
    t.dimensions = int(array.shape[2]);
    const std::size_t d = std::size_t(t.dimensions);
    t.positions.assign(t.frames * t.fish * 3, 0.0);
    for (std::size_t k = 0; k < t.frames * t.fish; ++k) {
        bool found = true;
        for (std::size_t c = 0; c < d; ++c) {
            t.positions[3 * k + c] = (*values)[d * k + c];
            found = found && std::isfinite((*values)[d * k + c]);
        }
        if (!found) t.positions[3 * k] = t.positions[3 * k + 1] = t.positions[3 * k + 2] = kNaN;
    }
    for (std::size_t i = 0; i < t.fish; ++i) t.ids.push_back(std::to_string(i + 1));
    return t;
}

Result<Tracks> parseTrackCsv(std::string_view text, const std::string& name) {
    std::vector<std::string_view> fields;
    int frameCol = -1, idCol = -1, xCol = -1, yCol = -1, zCol = -1;
    std::size_t columns = 0;
    bool header = false;
    struct Row {
        std::int64_t frame;
        std::uint32_t fish;
        double x, y, z;
    };
    std::vector<Row> rows;
    std::unordered_map<std::string, std::uint32_t> fishOf;
    std::vector<std::string> ids;
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = -1;
    auto ok = forEachLine(text, [&](std::string_view line, std::size_t number) -> Result<void> {
        if (blank(line) || line.front() == '#') return {};
        splitFields(line, fields);
        const std::string where = name + ": line " + std::to_string(number) + ": ";
        if (!header) {
            header = true;
            columns = fields.size();
            for (std::size_t k = 0; k < fields.size(); ++k) {
                const std::string n = lower(fields[k]);
                int* slot = n == "frame" ? &frameCol
                            : n == "id"  ? &idCol
                            : n == "x"   ? &xCol
                            : n == "y"   ? &yCol
                            : n == "z"   ? &zCol
                                         : nullptr;
                if (slot && *slot >= 0) return fail(where + "the header names " + n + " twice");
                if (slot) *slot = int(k);
            }
            if (frameCol < 0 || idCol < 0 || xCol < 0 || yCol < 0)
                return fail(where +
                            "the header must name the columns frame, id, x and y (and "
                            "optionally z), in any order; it has " +
                            quote(printable(std::string(line), 120)));
            return {};
        }
        if (fields.size() != columns)
            return fail(where + std::to_string(fields.size()) + " fields; the header has " +
                        std::to_string(columns));
        const std::string_view frameText = fields[std::size_t(frameCol)];
        std::int64_t frame = 0;
        const auto [end, ec] =
            std::from_chars(frameText.data(), frameText.data() + frameText.size(), frame);
        if (ec != std::errc() || end != frameText.data() + frameText.size() || frame < 0)
            return fail(where + "frame " + quote(printable(std::string(frameText), 40)) +
                        "; frames are whole numbers from 0");
        const std::string_view id = fields[std::size_t(idCol)];
        if (id.empty()) return fail(where + "the id is empty");
        auto [it, added] = fishOf.try_emplace(std::string(id), std::uint32_t(ids.size()));
        if (added) {
            if (ids.size() >= kMaxImportFish)
                return fail(where + "more than " + std::to_string(kMaxImportFish) + " ids");
            ids.emplace_back(id);
        }
        Row r{frame, it->second, 0, 0, 0};
        int c = 0;
        for (auto [col, out] : {std::pair{xCol, &r.x}, {yCol, &r.y}, {zCol, &r.z}}) {
            ++c;
            if (col < 0) continue;
            if (!fieldNumber(fields[std::size_t(col)], *out))
                return fail(where + std::string(1, "xyz"[c - 1]) + " " +
                            quote(printable(std::string(fields[std::size_t(col)]), 40)) +
                            " is not a number (empty or nan where the fish was lost)");
        }
        first = std::min(first, frame);
        last = std::max(last, frame);
        rows.push_back(r);
        return {};
    });
    if (!ok) return fail(ok.error());
    if (!header) return fail(name + ": is empty; a header naming frame, id, x, y comes first");
    if (rows.empty()) return fail(name + ": has a header and no rows; nothing to import");
    Tracks t;
    t.format = "csv";
    t.sources = {name};
    t.firstFrame = first;
    t.dimensions = zCol >= 0 ? 3 : 2;
    // Not last - first + 1: frames 0 to 2^63 - 1 would overflow it.
    if (last - first >= std::int64_t(kMaxImportSamples))
        return fail(name + ": frames " + std::to_string(first) + " to " + std::to_string(last) +
                    ": an import holds at most " + std::to_string(kMaxImportSamples) +
                    " frames x fish");
    t.frames = std::size_t(last - first + 1);
    // Fish in the order of their ids: by number where every id is one.
    std::vector<std::uint32_t> order(ids.size());
    for (std::uint32_t k = 0; k < order.size(); ++k) order[k] = k;
    // An id too long for a 64-bit number sorts as text, as do the others then.
    std::vector<long long> numbers(ids.size());
    bool numeric = true;
    for (std::size_t k = 0; k < ids.size() && numeric; ++k) {
        const std::string& s = ids[k];
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), numbers[k]);
        numeric = ec == std::errc() && end == s.data() + s.size();
    }
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return numeric ? numbers[a] < numbers[b] : ids[a] < ids[b];
    });
    std::vector<std::uint32_t> indexOf(ids.size());
    for (std::uint32_t k = 0; k < order.size(); ++k) {
        indexOf[order[k]] = k;
        t.ids.push_back(ids[order[k]]);
    }
    t.fish = ids.size();
    if (auto checked = checkSamples(t.frames, t.fish, name); !checked) return fail(checked.error());
    t.positions.assign(t.frames * t.fish * 3, kNaN);
    std::vector<bool> seen(t.frames * t.fish, false);
    for (const Row& r : rows) {
        const std::size_t cell = std::size_t(r.frame - first) * t.fish + indexOf[r.fish];
        if (seen[cell])
            return fail(name + ": frame " + std::to_string(r.frame) + ", id " +
                        quote(printable(ids[r.fish], 40)) + " is given twice");
        seen[cell] = true;
        if (!std::isfinite(r.x) || !std::isfinite(r.y) || !std::isfinite(r.z)) continue;
        t.positions[3 * cell] = r.x;
        t.positions[3 * cell + 1] = r.y;
        t.positions[3 * cell + 2] = r.z;
    }
    return t;
}

Result<std::vector<NamedColumn>> parseNumberCsv(std::string_view text, const std::string& name) {
    std::vector<std::string_view> fields;
    std::vector<NamedColumn> out;
    auto ok = forEachLine(text, [&](std::string_view line, std::size_t number) -> Result<void> {
        if (blank(line) || line.front() == '#') return {};
        splitFields(line, fields);
        const std::string where = name + ": line " + std::to_string(number) + ": ";
        if (out.empty()) {
            if (fields.size() > 10'000) return fail(where + "more than 10000 columns");
            for (std::string_view f : fields) out.push_back({std::string(f), {}});
            return {};
        }
        if (fields.size() != out.size())
            return fail(where + std::to_string(fields.size()) + " fields; the header has " +
                        std::to_string(out.size()));
        for (std::size_t k = 0; k < fields.size(); ++k) {
            double v = 0;
            if (!fieldNumber(fields[k], v)) {
                const std::string lowered = lower(fields[k]);
                if (lowered == "nan" || lowered == "inf" || lowered == "-inf" ||
                    lowered == "infinity")
                    v = kNaN;
                else
                    v = kNaN;  // text columns (TRex writes none we read): not a position
            }
            out[k].values.push_back(v);
        }
        return {};
    });
    if (!ok) return fail(ok.error());
    if (out.empty()) return fail(name + ": is empty; a header naming the columns comes first");
    return out;
}

Result<std::vector<NamedColumn>> parseNpz(std::string_view bytes, const std::string& name) {
    const auto bad = [&](const std::string& what) {
        return fail(name + ": " + what + " (a .npz is a zip of .npy arrays)");
    };
    // The end of the central directory: its signature within the last 64 kB.
    const std::size_t lowest = bytes.size() > 65557 ? bytes.size() - 65557 : 0;
    std::size_t eocd = std::string_view::npos;
    for (std::size_t p = bytes.size() >= 22 ? bytes.size() - 22 + 1 : 0; p-- > lowest;)
        if (readLittle<std::uint32_t>(bytes.data() + p) == 0x06054b50) {
            eocd = p;
            break;
        }
    if (eocd == std::string_view::npos) return bad("is not a zip file (no end of its directory)");
    std::uint64_t entries = readLittle<std::uint16_t>(bytes.data() + eocd + 10);
    std::uint64_t dirOffset = readLittle<std::uint32_t>(bytes.data() + eocd + 16);
    if (dirOffset == 0xFFFFFFFF || entries == 0xFFFF) {
        if (eocd < 20 || readLittle<std::uint32_t>(bytes.data() + eocd - 20) != 0x07064b50)
            return bad("a zip64 directory without its locator");
        const std::uint64_t at = readLittle<std::uint64_t>(bytes.data() + eocd - 20 + 8);
        if (at > bytes.size() - 56 || bytes.size() < 56 ||
            readLittle<std::uint32_t>(bytes.data() + at) != 0x06064b50)
            return bad("a zip64 directory out of the file");
        entries = readLittle<std::uint64_t>(bytes.data() + at + 32);
        dirOffset = readLittle<std::uint64_t>(bytes.data() + at + 48);
    }
    if (entries > 100'000) return bad(std::to_string(entries) + " members; at most 100000");
    std::vector<NamedColumn> out;
    std::uint64_t inflated = 0;
    std::uint64_t p = dirOffset;
    for (std::uint64_t e = 0; e < entries; ++e) {
        if (p > bytes.size() || bytes.size() - p < 46 ||
            readLittle<std::uint32_t>(bytes.data() + p) != 0x02014b50)
            return bad("its directory entry " + std::to_string(e) + " is out of the file");
        const char* d = bytes.data() + p;
        const unsigned method = readLittle<std::uint16_t>(d + 10);
        std::uint64_t packed = readLittle<std::uint32_t>(d + 20);
        std::uint64_t size = readLittle<std::uint32_t>(d + 24);
        const std::size_t nameLength = readLittle<std::uint16_t>(d + 28);
        const std::size_t extraLength = readLittle<std::uint16_t>(d + 30);
        const std::size_t commentLength = readLittle<std::uint16_t>(d + 32);
        std::uint64_t local = readLittle<std::uint32_t>(d + 42);
        if (bytes.size() - p - 46 < nameLength + extraLength + commentLength)
            return bad("its directory entry " + std::to_string(e) + " is cut short");
        const std::string member(d + 46, nameLength);
        // Zip64: the sizes and offset that did not fit, in that order.
        std::string_view extra(d + 46 + nameLength, extraLength);
        while (extra.size() >= 4) {
            const unsigned id = readLittle<std::uint16_t>(extra.data());
            const std::size_t length = readLittle<std::uint16_t>(extra.data() + 2);
            if (length > extra.size() - 4) break;
            if (id == 1) {
                std::string_view v = extra.substr(4, length);
                for (std::uint64_t* field : {&size, &packed, &local}) {
                    if (*field != 0xFFFFFFFF) continue;
                    if (v.size() < 8)
                        return bad(quote(printable(member, 60)) + ": a zip64 field cut short");
                    *field = readLittle<std::uint64_t>(v.data());
                    v.remove_prefix(8);
                }
            }
            extra.remove_prefix(4 + length);
        }
        p += 46 + nameLength + extraLength + commentLength;
        const std::string memberName = printable(member, 60);
        if (local > bytes.size() || bytes.size() - local < 30 ||
            readLittle<std::uint32_t>(bytes.data() + local) != 0x04034b50)
            return bad(quote(memberName) + ": its local header is out of the file");
        const std::uint64_t dataStart = local + 30 +
                                        readLittle<std::uint16_t>(bytes.data() + local + 26) +
                                        readLittle<std::uint16_t>(bytes.data() + local + 28);
        if (dataStart > bytes.size() || packed > bytes.size() - dataStart)
            return bad(quote(memberName) + ": its data passes the end of the file");
        const std::string_view stored = bytes.substr(std::size_t(dataStart), std::size_t(packed));
        if (!member.ends_with(".npy")) continue;
        std::string inflatedData;
        std::string_view npy;
        if (method == 0) {
            if (size != packed) return bad(quote(memberName) + ": stored with two sizes");
            npy = stored;
        } else if (method == 8) {
            if (size > kMaxTrackFileBytes || inflated + size > kMaxTrackFileBytes)
                return bad(quote(memberName) + ": inflates to more than " +
                           std::to_string(kMaxTrackFileBytes) + " bytes in all");
            inflated += size;
            inflatedData.resize(std::size_t(size));
            z_stream z{};
            if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
                return fail(name + ": zlib failed", ErrorKind::System);
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stored.data()));
            z.avail_in = uInt(std::min<std::uint64_t>(stored.size(), 0xFFFFFFFFu));
            z.next_out = reinterpret_cast<Bytef*>(inflatedData.data());
            z.avail_out = uInt(size);
            const int status = inflate(&z, Z_FINISH);
            const std::uint64_t got = z.total_out;
            inflateEnd(&z);
            if (status != Z_STREAM_END || got != size)
                return bad(quote(memberName) + ": its deflated data does not inflate to the " +
                           std::to_string(size) + " bytes its directory gives");
            npy = inflatedData;
        } else {
            return bad(quote(memberName) + ": compressed by method " + std::to_string(method) +
                       "; stored (np.savez) and deflated (np.savez_compressed) members are read");
        }
        // An object array is a pickle: .npz members are read as plain arrays only.
        if (npy.size() >= 10 && npy.substr(0, 6) == "\x93NUMPY") {
            const std::size_t headEnd = std::min<std::size_t>(npy.size(), 200);
            if (npy.substr(0, headEnd).find("'|O'") != std::string_view::npos) continue;
        }
        auto pickle = parseNpy(npy, name + ": " + memberName);
        if (!pickle) return fail(pickle.error());
        const PickleObject& array = pickle->at(pickle->root);
        if (array.type != Type::Array || array.arrayType.kind == 'O' || array.shape.size() != 1)
            continue;  // not a column: TRex's 2-D exports are not read
        auto values = arrayValues(array, name + ": " + memberName);
        if (!values) return fail(values.error());
        out.push_back({member.substr(0, member.size() - 4), std::move(*values)});
    }
    return out;
}

Result<Tracks> readTracks(const fs::path& file, const std::string& requested) {
    const std::string name = printable(file.string(), 200);
    std::string format = requested;
    const std::string extension = lower(file.extension().string());
    if (format.empty()) {
        if (extension == ".npy") {
            format = "idtracker";
        } else if (extension == ".npz") {
            format = "trex-npz";
        } else if (extension == ".csv") {
            auto text = readTrackFile(file);
            if (!text) return fail(text.error());
            const std::string head = lower(std::string_view(*text).substr(0, text->find('\n')));
            std::vector<std::string_view> fields;
            splitFields(head, fields);
            format =
                std::find(fields.begin(), fields.end(), "id") != fields.end() ? "csv" : "trex-csv";
        } else {
            return fail(name + ": cannot tell the format by its extension " +
                        quote(printable(extension, 20)) +
                        "; give --format idtracker, trex-npz, trex-csv or csv");
        }
    }
    if (format == "idtracker" || format == "csv") {
        auto bytes = readTrackFile(file);
        if (!bytes) return fail(bytes.error());
        return format == "csv" ? parseTrackCsv(*bytes, name) : parseIdtrackerNpy(*bytes, name);
    }
    if (format != "trex-npz" && format != "trex-csv")
        return fail("--format: " + quote(printable(format, 40)) +
                    " is not a format read; allowed: idtracker, trex-npz, trex-csv, csv");
    auto files = fishFiles(file);
    if (!files) return fail(files.error());
    std::vector<FishColumns> fish;
    std::uint64_t total = 0;
    for (auto& [id, path] : *files) {
        auto bytes = readTrackFile(path);
        if (!bytes) return fail(bytes.error());
        total += bytes->size();
        if (total > kMaxTrackFileBytes)
            return fail(name + ": its _fishN files hold more than " +
                        std::to_string(kMaxTrackFileBytes) + " bytes together");
        const std::string source = printable(path.string(), 200);
        auto columns =
            format == "trex-npz" ? parseNpz(*bytes, source) : parseNumberCsv(*bytes, source);
        if (!columns) return fail(columns.error());
        fish.push_back({id, source, std::move(*columns)});
    }
    return tracksOfFish(std::move(fish), format == "trex-npz" ? "TRex npz" : "TRex csv");
}

Result<ImportSummary> importTracks(const fs::path& input, const fs::path& output,
                                   const ImportOptions& options) {
    const std::string name = printable(input.string(), 200);
    // The options first: a bad flag costs no read.
    const auto positive = [](const char* flag, std::optional<double> v) -> Result<void> {
        if (v && !(std::isfinite(*v) && *v > 0))
            return fail(std::string(flag) + ": " + formatNumber(*v) +
                        "; must be a finite number > 0");
        return {};
    };
    if (auto ok = positive("--pixels-per-metre", options.pixelsPerMetre); !ok)
        return fail(ok.error());
    if (auto ok = positive("--body-length-metres", options.bodyLengthMetres); !ok)
        return fail(ok.error());
    if (auto ok = positive("--fps", options.fps); !ok) return fail(ok.error());
    if (options.pixelsPerMetre && options.bodyLengthMetres)
        return fail("--pixels-per-metre and --body-length-metres both give the scale; give one");
    if (!options.pixelsPerMetre && !options.bodyLengthMetres)
        return fail(
            "the scale is needed: give --pixels-per-metre (the file's units a metre) or "
            "--body-length-metres (with a file that gives the body length)");
    const ImportArena& arena = options.arena;
    if (arena.shape != ImportArena::Shape::None &&
        !(std::isfinite(arena.centreX) && std::isfinite(arena.centreY) &&
          std::isfinite(arena.radius) && arena.radius > 0))
        return fail("--arena: its centre must be finite and its radius a finite number > 0");

    auto tracks = readTracks(input, options.format);
    if (!tracks) return fail(tracks.error());
    Tracks& t = *tracks;
    double fps = 0;
    if (options.fps) {
        fps = *options.fps;
    } else if (t.fps) {
        if (!(std::isfinite(*t.fps) && *t.fps > 0 && *t.fps <= 1e6))
            return fail(t.fpsSource + ": a frame rate of " + formatNumber(*t.fps) +
                        "; must be a finite number of frames a second, > 0 and at most 1e6 "
                        "(--fps gives another)");
        fps = *t.fps;
    } else {
        return fail(name + ": gives no frame rate; give --fps");
    }
    double ppm = 0;
    if (options.pixelsPerMetre) {
        ppm = *options.pixelsPerMetre;
    } else {
        if (!t.bodyLength)
            return fail(name +
                        ": gives no body length for --body-length-metres; give "
                        "--pixels-per-metre");
        if (!(std::isfinite(*t.bodyLength) && *t.bodyLength > 0))
            return fail(t.bodyLengthSource + ": a body length of " + formatNumber(*t.bodyLength) +
                        "; must be a finite number > 0 (--pixels-per-metre gives the scale "
                        "instead)");
        ppm = *t.bodyLength / *options.bodyLengthMetres;
    }

    // Positions in metres about the arena's centre; the mask of frames each fish is missing.
    const std::size_t frames = t.frames, fish = t.fish, samples = frames * fish;
    const double cx = arena.shape == ImportArena::Shape::None ? 0.0 : arena.centreX;
    const double cy = arena.shape == ImportArena::Shape::None ? 0.0 : arena.centreY;
    std::vector<float> positions(samples * 3, 0.0f), velocities(samples * 3, 0.0f);
    std::vector<std::uint8_t> missing(samples, 0);
    std::size_t missingCount = 0;
    double extent = 0;
    for (std::size_t k = 0; k < samples; ++k) {
        const double* p = &t.positions[3 * k];
        if (std::isnan(p[0])) {
            missing[k] = 1;
            ++missingCount;
            continue;
        }
        const double m[3] = {(p[0] - cx) / ppm, (p[1] - cy) / ppm, p[2] / ppm};
        for (int c = 0; c < 3; ++c) {
            if (!(std::fabs(m[c]) <= 1e9))
                return fail(name + ": frame " +
                            std::to_string(t.firstFrame + std::int64_t(k / fish)) + ", fish " +
                            printable(t.ids[k % fish], 40) + ": " + "xyz"[c] + " = " +
                            formatNumber(p[c]) + " is " + formatNumber(m[c]) +
                            " m; positions are at most 1e9 m from the centre");
            positions[3 * k + std::size_t(c)] = float(m[c]);
            extent = std::max(extent, std::fabs(m[c]));
        }
    }
    // Velocities: centred differences, forward or backward at the ends and beside a gap; 0 for
    // a frame with no neighbour found.
    for (std::size_t f = 0; f < frames; ++f)
        for (std::size_t i = 0; i < fish; ++i) {
            const std::size_t k = f * fish + i;
            if (missing[k]) continue;
            const bool before = f > 0 && !missing[k - fish];
            const bool after = f + 1 < frames && !missing[k + fish];
            for (std::size_t c = 0; c < 3; ++c) {
                const auto at = [&](std::size_t s) { return double(positions[3 * s + c]); };
                double v = 0;
                if (before && after) {
                    v = (at(k + fish) - at(k - fish)) * fps / 2;
                } else if (after) {
                    v = (at(k + fish) - at(k)) * fps;
                } else if (before) {
                    v = (at(k) - at(k - fish)) * fps;
                }
                velocities[3 * k + c] = float(v);
            }
        }

    // The config: a school of these fish in the arena's box (the default tank if none).
    SimParams params;
    params.fishCount = std::int64_t(fish);
    params.leaders = 0;
    params.predators = 0;
    params.rocks.clear();
    {
        const double half = arena.shape == ImportArena::Shape::None ? extent : arena.radius / ppm;
        SimParams sized = params;
        sized.bounds = glm::vec3(float(half));
        if (half > 0 && parseConfig(configToJson(sized), "import").has_value()) params = sized;
    }

    OutputFiles files;
    auto temporary =
        files.addExternal("--out", output.string(), {{"the tracked file", input.string()}});
    if (!temporary) return fail(temporary.error());
    TrajectoryWriterOptions writerOptions;
    writerOptions.name = printable(output.string(), 200);
    writerOptions.missing = missing;
    auto writer = TrajectoryWriter::create(*temporary, params, fish, writerOptions);
    if (!writer) return fail(writer.error());
    for (std::size_t f = 0; f < frames; ++f) {
        const std::int64_t step = t.firstFrame + std::int64_t(f);
        auto ok = (*writer)->addFrameFrom(
            step, double(step) / fps, [&](std::span<float> p, std::span<float> v) {
                std::copy_n(positions.begin() + std::ptrdiff_t(f * fish * 3), fish * 3, p.begin());
                std::copy_n(velocities.begin() + std::ptrdiff_t(f * fish * 3), fish * 3, v.begin());
            });
        if (!ok) return fail(ok.error());
    }
    std::string sources, ids;
    for (const std::string& s : t.sources) sources += (sources.empty() ? "" : "\n") + s;
    for (const std::string& s : t.ids) ids += (ids.empty() ? "" : ",") + s;
    const char* shape = arena.shape == ImportArena::Shape::Box      ? "box"
                        : arena.shape == ImportArena::Shape::Circle ? "circle"
                                                                    : "none";
    std::vector<TrajectoryAttribute> attributes{
        {"source", sources},
        {"format", t.format},
        {"pixels_per_metre", ppm},
        {"fps", fps},
        {"first_frame", t.firstFrame},
        {"dimensions", std::int64_t(t.dimensions)},
        {"fish_ids", ids},
        {"missing", std::uint64_t(missingCount)},
        {"arena", std::string(shape)},
        {"arena_centre_x", cx},
        {"arena_centre_y", cy},
        {"arena_radius", arena.shape == ImportArena::Shape::None ? 0.0 : arena.radius},
        {"velocity",
         std::string("centred differences (p[f+1] - p[f-1]) * fps / 2; forward (p[f+1] - p[f]) * "
                     "fps at a fish's first frame and after a gap, backward (p[f] - p[f-1]) * fps "
                     "at its last frame and before a gap; 0 where a fish is found in one frame "
                     "alone; positions and velocities are 0 where particles/school/missing is 1")}};
    if (options.bodyLengthMetres) {
        attributes.push_back({"body_length", *t.bodyLength});
        attributes.push_back({"body_length_metres", *options.bodyLengthMetres});
    }
    if (auto ok = (*writer)->addParameterAttributes("import", std::move(attributes)); !ok)
        return fail(ok.error());
    if (auto ok = (*writer)->finish(); !ok) return fail(ok.error());
    writer->reset();

    if (auto ok = files.commit(); !ok) return fail(ok.error());
    ImportSummary summary;
    summary.format = t.format;
    summary.sources = t.sources;
    summary.frames = frames;
    summary.fish = fish;
    summary.missing = missingCount;
    summary.firstFrame = t.firstFrame;
    summary.fps = fps;
    summary.pixelsPerMetre = ppm;
    return summary;
}

}  // namespace fishschool
