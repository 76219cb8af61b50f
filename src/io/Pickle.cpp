// A pickle read as data (Pickle.h). The unpickler's stack machine, run here on a stack of object
// indices: each opcode is checked (known, its operands within the data, its stack what it needs)
// before it acts; the globals accepted are names, never looked up or called.

#include "io/Pickle.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <span>
#include <unordered_map>

#include "core/Messages.h"

namespace fishschool {

namespace {

/// The most entries of the stack (DUP copies without making objects) and of marks.
constexpr std::size_t kMaxStack = std::size_t{1} << 22;
constexpr std::size_t kMaxMarks = std::size_t{1} << 16;

using Type = PickleObject::Type;

/// The globals a pickle may name: NumPy's array and dtype, as np.save pickles them.
enum class Global { Reconstruct, NdArray, DType, Scalar, Encode };

std::optional<Global> acceptedGlobal(std::string_view module, std::string_view name) {
    const bool multiarray = module == "numpy.core.multiarray" || module == "numpy._core.multiarray";
    if (multiarray && name == "_reconstruct") return Global::Reconstruct;
    if (multiarray && name == "scalar") return Global::Scalar;
    if (module == "numpy" && name == "ndarray") return Global::NdArray;
    if (module == "numpy" && name == "dtype") return Global::DType;
    if (module == "_codecs" && name == "encode") return Global::Encode;
    return std::nullopt;
}

std::string opcodeName(unsigned char op) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", op);
    return std::string(hex);
}

class Machine {
  public:
    Machine(std::string_view data, const std::string& name) : data_(data), name_(name) {}

    Result<Pickle> run();

  private:
    std::unexpected<Error> err(const std::string& what) const {
        return fail(name_ + ": the pickle at byte " + std::to_string(opStart_) + ": " + what);
    }
    Result<std::uint32_t> make(PickleObject object) {
        if (out_.objects.size() >= kMaxPickleObjects)
            return err("makes more than " + std::to_string(kMaxPickleObjects) + " objects");
        out_.objects.push_back(std::move(object));
        return static_cast<std::uint32_t>(out_.objects.size() - 1);
    }
    Result<void> push(std::uint32_t index) {
        if (stack_.size() >= kMaxStack)
            return err("its stack passes " + std::to_string(kMaxStack) + " entries");
        stack_.push_back(index);
        return {};
    }
    Result<void> pushNew(PickleObject object) {
        auto index = make(std::move(object));
        if (!index) return fail(index.error());
        return push(*index);
    }
    Result<std::uint32_t> pop() {
        if (stack_.size() <= base())
            return err("an opcode takes a value from an empty stack (or past a mark)");
        const std::uint32_t top = stack_.back();
        stack_.pop_back();
        return top;
    }
    std::size_t base() const { return marks_.empty() ? 0 : marks_.back(); }
    Result<std::vector<std::uint32_t>> popMark() {
        if (marks_.empty()) return err("an opcode needs a mark and there is none");
        const std::size_t mark = marks_.back();
        marks_.pop_back();
        std::vector<std::uint32_t> items(stack_.begin() + std::ptrdiff_t(mark), stack_.end());
        stack_.resize(mark);
        return items;
    }
    Result<std::string_view> take(std::uint64_t n) {
        if (n > data_.size() - pos_)
            return err("an operand of " + std::to_string(n) +
                       " bytes passes the end of the data (" + std::to_string(data_.size() - pos_) +
                       " left)");
        std::string_view out = data_.substr(pos_, std::size_t(n));
        pos_ += std::size_t(n);
        return out;
    }
    template <class T>
    Result<T> little() {
        auto bytes = take(sizeof(T));
        if (!bytes) return fail(bytes.error());
        T value{};
        std::memcpy(&value, bytes->data(), sizeof(T));
        if constexpr (std::endian::native == std::endian::big) value = std::byteswap(value);
        return value;
    }
    Result<std::string_view> line() {
        const std::size_t end = data_.find('\n', pos_);
        if (end == std::string_view::npos) return err("a text operand has no end of line");
        std::string_view out = data_.substr(pos_, end - pos_);
        pos_ = end + 1;
        return out;
    }
    Result<void> pushString(std::string_view text, Type type) {
        PickleObject o;
        o.type = type;
        o.text.assign(text);
        return pushNew(std::move(o));
    }
    Result<void> pushInt(std::int64_t value) {
        PickleObject o;
        o.type = Type::Int;
        o.integer = value;
        return pushNew(std::move(o));
    }
    Result<void> pushLong(std::string_view bytes) {
        if (bytes.size() > 8)
            return err("an integer of " + std::to_string(bytes.size()) +
                       " bytes; at most 8 (64 bits) are read");
        std::uint64_t v = 0;
        for (std::size_t k = 0; k < bytes.size(); ++k)
            v |= std::uint64_t(static_cast<unsigned char>(bytes[k])) << (8 * k);
        if (!bytes.empty() && bytes.size() < 8 && (static_cast<unsigned char>(bytes.back()) & 0x80))
            v |= ~std::uint64_t{0} << (8 * bytes.size());  // sign extension
        return pushInt(static_cast<std::int64_t>(v));
    }
    Result<void> appendTo(std::uint32_t list, std::span<const std::uint32_t> items) {
        PickleObject& target = out_.objects[list];
        if (target.type != Type::List)
            return err("appends to a " + std::string(typeName(target.type)) + "; only a list");
        target.items.insert(target.items.end(), items.begin(), items.end());
        return {};
    }
    Result<void> setItems(std::uint32_t dict, std::span<const std::uint32_t> items) {
        PickleObject& target = out_.objects[dict];
        if (target.type != Type::Dict)
            return err("sets items of a " + std::string(typeName(target.type)) + "; only a dict");
        if (items.size() % 2 != 0) return err("sets items of a dict from an odd count of values");
        for (std::size_t k = 0; k < items.size(); k += 2) {
            const Type key = out_.objects[items[k]].type;
            if (key != Type::String && key != Type::Int && key != Type::Bytes &&
                key != Type::Bool && key != Type::None && key != Type::Float && key != Type::Tuple)
                return err("a dict key is a " + std::string(typeName(key)) +
                           "; keys are strings, numbers or tuples");
        }
        target.items.insert(target.items.end(), items.begin(), items.end());
        return {};
    }
    Result<void> global(std::string_view module, std::string_view name) {
        const auto which = acceptedGlobal(module, name);
        if (!which)
            return err("names the global " +
                       quote(printable(std::string(module) + "." + std::string(name), 80)) +
                       "; a pickle that names a function or class could run code when loaded, and "
                       "only plain data is read (dicts, lists, tuples, strings, numbers, "
                       "booleans, None and NumPy arrays)");
        PickleObject o;
        o.type = Type::Global;
        o.integer = static_cast<std::int64_t>(*which);
        o.text = std::string(module) + "." + std::string(name);
        return pushNew(std::move(o));
    }
    Result<void> reduce();
    Result<void> build();
    Result<void> step(unsigned char op);

    std::string_view data_;
    const std::string& name_;
    std::size_t pos_ = 0;
    std::size_t opStart_ = 0;
    Pickle out_;
    std::vector<std::uint32_t> stack_;
    std::vector<std::size_t> marks_;
    std::unordered_map<std::uint64_t, std::uint32_t> memo_;
    bool stopped_ = false;
};

Result<void> Machine::reduce() {
    auto args = pop();
    if (!args) return fail(args.error());
    auto callable = pop();
    if (!callable) return fail(callable.error());
    const PickleObject& f = out_.objects[*callable];
    if (f.type != Type::Global)
        return err("calls a " + std::string(typeName(f.type)) + "; only NumPy's array and dtype");
    const PickleObject& a = out_.objects[*args];
    if (a.type != Type::Tuple) return err("calls " + f.text + " with arguments that are no tuple");
    const auto arg = [&](std::size_t k) -> const PickleObject& { return out_.objects[a.items[k]]; };
    const auto bad = [&](const char* expected) {
        return err("calls " + f.text + " with other arguments than " + expected);
    };
    switch (static_cast<Global>(f.integer)) {
        case Global::Reconstruct: {
            // _reconstruct(numpy.ndarray, (0,), b'b'): an empty array that BUILD fills.
            if (a.items.size() != 3 || arg(0).type != Type::Global ||
                arg(0).integer != std::int64_t(Global::NdArray))
                return bad("(numpy.ndarray, shape, type code)");
            PickleObject o;
            o.type = Type::Array;
            return pushNew(std::move(o));
        }
        case Global::DType: {
            // dtype('f8', False, True): BUILD gives its byte order.
            if (a.items.empty() || arg(0).type != Type::String) return bad("(type string, ...)");
            PickleObject o;
            o.type = Type::DataType;
            if (!parseArrayType(arg(0).text, o.arrayType))
                return err("a NumPy array of type " + quote(printable(arg(0).text, 40)) +
                           "; allowed: float16/32/64, (unsigned) integers, bool and objects");
            return pushNew(std::move(o));
        }
        case Global::Scalar: {
            // scalar(dtype, bytes): a NumPy number.
            if (a.items.size() != 2 || arg(0).type != Type::DataType || arg(1).type != Type::Bytes)
                return bad("(dtype, bytes)");
            PickleObject o;
            o.type = Type::Array;
            o.arrayType = arg(0).arrayType;
            o.text = arg(1).text;
            o.built = true;
            if (o.arrayType.kind == 'O' || o.text.size() != o.arrayType.itemSize)
                return err("a NumPy scalar of " + std::to_string(o.text.size()) +
                           " bytes for its type " + o.arrayType.name());
            return pushNew(std::move(o));
        }
        case Global::Encode: {
            // _codecs.encode(text, 'latin1'): bytes, as protocol 2 pickles them.
            if (a.items.size() != 2 || arg(0).type != Type::String || arg(1).type != Type::String ||
                (arg(1).text != "latin1" && arg(1).text != "latin-1"))
                return bad("(text, 'latin1')");
            std::string bytes;
            const std::string& text = arg(0).text;
            for (std::size_t k = 0; k < text.size(); ++k) {
                const auto c = static_cast<unsigned char>(text[k]);
                if (c < 0x80) {
                    bytes.push_back(char(c));
                } else if ((c == 0xc2 || c == 0xc3) && k + 1 < text.size()) {
                    bytes.push_back(char(((c & 0x03) << 6) | (text[++k] & 0x3f)));
                } else {
                    return err("encodes text beyond latin-1 as latin-1");
                }
            }
            return pushString(bytes, Type::Bytes);
        }
        case Global::NdArray:
            return err("calls numpy.ndarray; arrays are made by _reconstruct");
    }
    return err("calls " + f.text);
}

Result<void> Machine::build() {
    auto stateIndex = pop();
    if (!stateIndex) return fail(stateIndex.error());
    if (stack_.size() <= base()) return err("BUILD has no object to build");
    PickleObject& target = out_.objects[stack_.back()];
    const PickleObject& state = out_.objects[*stateIndex];
    const auto item = [&](std::size_t k) -> const PickleObject& {
        return out_.objects[state.items[k]];
    };
    if (target.built || (target.type != Type::Array && target.type != Type::DataType))
        return err("sets the state of a " + std::string(typeName(target.type)) +
                   "; only of a NumPy array or dtype, once");
    if (state.type != Type::Tuple) return err("gives a NumPy object a state that is no tuple");
    if (target.type == Type::DataType) {
        // (version, byte order, subarray, names, fields, itemsize, alignment, flags)
        if (state.items.size() < 5 || item(1).type != Type::String)
            return err("gives a dtype a state other than (version, byte order, ...)");
        for (std::size_t k = 2; k < 5; ++k)
            if (item(k).type != Type::None)
                return err("a structured or subarray NumPy dtype; only plain numbers and objects");
        const std::string& order = item(1).text;
        if (order == ">") {
            target.arrayType.bigEndian = true;
        } else if (order == "<" || order == "|" || order == "=") {
            target.arrayType.bigEndian = false;
        } else {
            return err("a dtype of byte order " + quote(printable(order, 8)));
        }
        target.built = true;
        return {};
    }
    // An array: (version, shape, dtype, is_fortran, data: bytes, or a list for objects).
    if (state.items.size() != 5 || item(1).type != Type::Tuple || item(2).type != Type::DataType ||
        item(3).type != Type::Bool)
        return err("gives an array a state other than (version, shape, dtype, fortran, data)");
    const PickleObject& shapeTuple = item(1);
    if (shapeTuple.items.size() > kMaxArrayRank)
        return err("an array of " + std::to_string(shapeTuple.items.size()) +
                   " dimensions; at most " + std::to_string(kMaxArrayRank));
    std::vector<std::uint64_t> shape;
    std::uint64_t count = 1;
    for (std::uint32_t d : shapeTuple.items) {
        const PickleObject& dim = out_.objects[d];
        if (dim.type != Type::Int || dim.integer < 0)
            return err("an array's shape holds a " + std::string(typeName(dim.type)) +
                       "; dimensions are integers >= 0");
        shape.push_back(std::uint64_t(dim.integer));
        if (__builtin_mul_overflow(count, shape.back(), &count))
            return err("an array's shape claims more elements than 2^64");
    }
    const ArrayType type = item(2).arrayType;
    const PickleObject& data = item(4);
    if (type.kind == 'O') {
        if (data.type != Type::List || data.items.size() != count)
            return err("an object array of " + std::to_string(count) +
                       " elements whose data is not a list of as many");
        target.items = data.items;
    } else {
        std::uint64_t bytes = 0;
        if (data.type != Type::Bytes || __builtin_mul_overflow(count, type.itemSize, &bytes) ||
            data.text.size() != bytes)
            return err("an array of " + std::to_string(count) + " elements of " + type.name() +
                       " holds " + std::to_string(data.text.size()) +
                       " bytes of data; it must hold exactly its elements' bytes");
        target.text = data.text;
    }
    target.arrayType = type;
    target.shape = std::move(shape);
    target.fortranOrder = item(3).boolean;
    target.built = true;
    return {};
}

Result<void> Machine::step(unsigned char op) {
    switch (op) {
        case 0x80: {  // PROTO
            auto v = little<std::uint8_t>();
            if (!v) return fail(v.error());
            if (*v > 5) return err("pickle protocol " + std::to_string(*v) + "; at most 5");
            return {};
        }
        case 0x95: {  // FRAME: a hint of the next frame's size, nothing to do
            auto v = little<std::uint64_t>();
            if (!v) return fail(v.error());
            return {};
        }
        case '.':
            stopped_ = true;
            return {};
        case '(':
            if (marks_.size() >= kMaxMarks)
                return err("more than " + std::to_string(kMaxMarks) + " marks at once");
            marks_.push_back(stack_.size());
            return {};
        case '0': {
            if (stack_.size() > base()) {
                stack_.pop_back();
                return {};
            }
            auto items = popMark();  // POP of a mark drops it
            if (!items) return fail(items.error());
            return {};
        }
        case '1': {
            auto items = popMark();
            if (!items) return fail(items.error());
            return {};
        }
        case '2': {
            if (stack_.size() <= base()) return err("DUP of an empty stack");
            return push(stack_.back());
        }
        case 'N':
            return pushNew({});
        case 0x88:
        case 0x89: {
            PickleObject o;
            o.type = Type::Bool;
            o.boolean = op == 0x88;
            return pushNew(std::move(o));
        }
        case 'I':
        case 'L': {
            auto text = line();
            if (!text) return fail(text.error());
            std::string_view t = *text;
            if (op == 'L' && !t.empty() && t.back() == 'L') t.remove_suffix(1);
            if (op == 'I' && (t == "00" || t == "01")) {
                PickleObject o;
                o.type = Type::Bool;
                o.boolean = t == "01";
                return pushNew(std::move(o));
            }
            std::int64_t v = 0;
            const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
            if (ec != std::errc() || end != t.data() + t.size() || t.empty())
                return err("an integer " + quote(printable(std::string(t), 40)) +
                           " that is not a 64-bit integer");
            return pushInt(v);
        }
        case 'J': {
            auto v = little<std::int32_t>();
            if (!v) return fail(v.error());
            return pushInt(*v);
        }
        case 'K': {
            auto v = little<std::uint8_t>();
            if (!v) return fail(v.error());
            return pushInt(*v);
        }
        case 'M': {
            auto v = little<std::uint16_t>();
            if (!v) return fail(v.error());
            return pushInt(*v);
        }
        case 0x8a:
        case 0x8b: {  // LONG1, LONG4
            std::uint64_t n = 0;
            if (op == 0x8a) {
                auto v = little<std::uint8_t>();
                if (!v) return fail(v.error());
                n = *v;
            } else {
                auto v = little<std::int32_t>();
                if (!v) return fail(v.error());
                if (*v < 0) return err("LONG4 of negative length");
                n = std::uint64_t(*v);
            }
            auto bytes = take(n);
            if (!bytes) return fail(bytes.error());
            return pushLong(*bytes);
        }
        case 'F': {
            auto text = line();
            if (!text) return fail(text.error());
            double v = 0;
            const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
            if (ec != std::errc() || end != text->data() + text->size())
                return err("a float " + quote(printable(std::string(*text), 40)) +
                           " that is not a number");
            PickleObject o;
            o.type = Type::Float;
            o.number = v;
            return pushNew(std::move(o));
        }
        case 'G': {
            auto bytes = take(8);
            if (!bytes) return fail(bytes.error());
            std::uint64_t bits = 0;
            for (int k = 0; k < 8; ++k)
                bits = (bits << 8) | static_cast<unsigned char>((*bytes)[std::size_t(k)]);
            PickleObject o;
            o.type = Type::Float;
            o.number = std::bit_cast<double>(bits);
            return pushNew(std::move(o));
        }
        case 'S': {  // STRING: a quoted repr; plain ASCII without escapes only
            auto text = line();
            if (!text) return fail(text.error());
            std::string_view t = *text;
            if (t.size() < 2 || (t.front() != '\'' && t.front() != '"') || t.back() != t.front() ||
                t.find('\\') != std::string_view::npos)
                return err("a STRING operand that is not a plain quoted string");
            return pushString(t.substr(1, t.size() - 2), Type::String);
        }
        case 'T':
        case 'X':
        case 'B': {  // BINSTRING, BINUNICODE, BINBYTES: 4-byte length
            auto n = little<std::uint32_t>();
            if (!n) return fail(n.error());
            auto bytes = take(*n);
            if (!bytes) return fail(bytes.error());
            return pushString(*bytes, op == 'B' ? Type::Bytes : Type::String);
        }
        case 'U':
        case 0x8c:
        case 'C': {  // SHORT_BINSTRING, SHORT_BINUNICODE, SHORT_BINBYTES
            auto n = little<std::uint8_t>();
            if (!n) return fail(n.error());
            auto bytes = take(*n);
            if (!bytes) return fail(bytes.error());
            return pushString(*bytes, op == 'C' ? Type::Bytes : Type::String);
        }
        case 0x8d:
        case 0x8e:
        case 0x96: {  // BINUNICODE8, BINBYTES8, BYTEARRAY8
            auto n = little<std::uint64_t>();
            if (!n) return fail(n.error());
            auto bytes = take(*n);
            if (!bytes) return fail(bytes.error());
            return pushString(*bytes, op == 0x8d ? Type::String : Type::Bytes);
        }
        case ']':
        case ')':
        case '}': {
            PickleObject o;
            o.type = op == ']' ? Type::List : op == ')' ? Type::Tuple : Type::Dict;
            return pushNew(std::move(o));
        }
        case 'l':
        case 't':
        case 'd': {
            auto items = popMark();
            if (!items) return fail(items.error());
            PickleObject o;
            o.type = op == 'l' ? Type::List : op == 't' ? Type::Tuple : Type::Dict;
            auto index = make(std::move(o));
            if (!index) return fail(index.error());
            if (op == 'd') {
                if (auto ok = setItems(*index, *items); !ok) return ok;
            } else {
                out_.objects[*index].items = std::move(*items);
            }
            return push(*index);
        }
        case 0x85:
        case 0x86:
        case 0x87: {  // TUPLE1..3
            const std::size_t n = std::size_t(op - 0x84);
            if (stack_.size() < base() + n)
                return err("TUPLE" + std::to_string(n) + " of fewer values");
            PickleObject o;
            o.type = Type::Tuple;
            o.items.assign(stack_.end() - std::ptrdiff_t(n), stack_.end());
            stack_.resize(stack_.size() - n);
            return pushNew(std::move(o));
        }
        case 'a': {
            auto value = pop();
            if (!value) return fail(value.error());
            if (stack_.size() <= base()) return err("APPEND without a list");
            const std::uint32_t one[1] = {*value};
            return appendTo(stack_.back(), one);
        }
        case 'e':
        case 'u': {
            auto items = popMark();
            if (!items) return fail(items.error());
            if (stack_.size() <= base())
                return err(std::string(op == 'e' ? "APPENDS" : "SETITEMS") + " without a target");
            return op == 'e' ? appendTo(stack_.back(), *items) : setItems(stack_.back(), *items);
        }
        case 's': {
            auto value = pop();
            if (!value) return fail(value.error());
            auto key = pop();
            if (!key) return fail(key.error());
            if (stack_.size() <= base()) return err("SETITEM without a dict");
            const std::uint32_t pair[2] = {*key, *value};
            return setItems(stack_.back(), pair);
        }
        case 'g':
        case 'h':
        case 'j': {
            std::uint64_t key = 0;
            if (op == 'g') {
                auto text = line();
                if (!text) return fail(text.error());
                const auto [end, ec] =
                    std::from_chars(text->data(), text->data() + text->size(), key);
                if (ec != std::errc() || end != text->data() + text->size())
                    return err("GET of a memo key that is not a number");
            } else if (op == 'h') {
                auto v = little<std::uint8_t>();
                if (!v) return fail(v.error());
                key = *v;
            } else {
                auto v = little<std::uint32_t>();
                if (!v) return fail(v.error());
                key = *v;
            }
            const auto found = memo_.find(key);
            if (found == memo_.end())
                return err("reads memo entry " + std::to_string(key) + ", which was never stored");
            return push(found->second);
        }
        case 'p':
        case 'q':
        case 'r':
        case 0x94: {
            std::uint64_t key = memo_.size();
            if (op == 'p') {
                auto text = line();
                if (!text) return fail(text.error());
                const auto [end, ec] =
                    std::from_chars(text->data(), text->data() + text->size(), key);
                if (ec != std::errc() || end != text->data() + text->size())
                    return err("PUT of a memo key that is not a number");
            } else if (op == 'q') {
                auto v = little<std::uint8_t>();
                if (!v) return fail(v.error());
                key = *v;
            } else if (op == 'r') {
                auto v = little<std::uint32_t>();
                if (!v) return fail(v.error());
                key = *v;
            }
            if (stack_.size() <= base()) return err("stores an empty stack in the memo");
            if (memo_.size() >= kMaxPickleObjects && !memo_.contains(key))
                return err("stores more than " + std::to_string(kMaxPickleObjects) +
                           " memo entries");
            memo_[key] = stack_.back();
            return {};
        }
        case 'c': {
            auto module = line();
            if (!module) return fail(module.error());
            auto name = line();
            if (!name) return fail(name.error());
            return global(*module, *name);
        }
        case 0x93: {
            auto name = pop();
            if (!name) return fail(name.error());
            auto module = pop();
            if (!module) return fail(module.error());
            const PickleObject& m = out_.objects[*module];
            const PickleObject& n = out_.objects[*name];
            if (m.type != Type::String || n.type != Type::String)
                return err("STACK_GLOBAL of values that are not strings");
            return global(std::string(m.text), std::string(n.text));
        }
        case 'R':
            return reduce();
        case 'b':
            return build();
        default:
            break;
    }
    // Known to Python, refused here: each makes or calls what is not plain data.
    const char* what = nullptr;
    switch (op) {
        case 'i':
            what = "INST (makes an instance of a class)";
            break;
        case 'o':
            what = "OBJ (makes an instance of a class)";
            break;
        case 0x81:
            what = "NEWOBJ (makes an instance of a class)";
            break;
        case 0x92:
            what = "NEWOBJ_EX (makes an instance of a class)";
            break;
        case 0x82:
        case 0x83:
        case 0x84:
            what = "EXT (names a registered class)";
            break;
        case 'P':
        case 'Q':
            what = "PERSID (asks the loader for an outside object)";
            break;
        case 0x8f:
        case 0x90:
        case 0x91:
            what = "a set (EMPTY_SET, ADDITEMS, FROZENSET)";
            break;
        case 0x97:
        case 0x98:
            what = "an out-of-band buffer (NEXT_BUFFER, READONLY_BUFFER)";
            break;
        case 'V':
            what = "UNICODE (raw-unicode-escape text)";
            break;
        default:
            break;
    }
    if (what != nullptr) return err("opcode " + opcodeName(op) + ", " + what + ", is not read");
    return err("opcode " + opcodeName(op) + " is not a pickle opcode this reader knows");
}

Result<Pickle> Machine::run() {
    while (!stopped_) {
        if (pos_ >= data_.size()) {
            opStart_ = pos_;
            return err("ends without STOP");
        }
        opStart_ = pos_;
        const auto op = static_cast<unsigned char>(data_[pos_++]);
        if (auto ok = step(op); !ok) return fail(ok.error());
    }
    if (!marks_.empty() || stack_.size() != 1)
        return err("STOP leaves " + std::to_string(stack_.size()) + " values and " +
                   std::to_string(marks_.size()) + " marks; a pickle leaves one value");
    out_.root = stack_.back();
    for (const PickleObject& o : out_.objects)
        if ((o.type == Type::Array || o.type == Type::DataType) && !o.built)
            return err("a NumPy array or dtype is never given its state (BUILD)");
    return std::move(out_);
}

}  // namespace

const char* typeName(PickleObject::Type type) {
    switch (type) {
        case Type::None:
            return "None";
        case Type::Bool:
            return "bool";
        case Type::Int:
            return "int";
        case Type::Float:
            return "float";
        case Type::String:
            return "str";
        case Type::Bytes:
            return "bytes";
        case Type::List:
            return "list";
        case Type::Tuple:
            return "tuple";
        case Type::Dict:
            return "dict";
        case Type::Array:
            return "NumPy array";
        case Type::DataType:
            return "NumPy dtype";
        case Type::Global:
            return "global";
    }
    return "?";
}

std::string ArrayType::name() const {
    switch (kind) {
        case 'f':
            return "float" + std::to_string(8 * itemSize);
        case 'i':
            return "int" + std::to_string(8 * itemSize);
        case 'u':
            return "uint" + std::to_string(8 * itemSize);
        case 'b':
            return "bool";
        default:
            return "object";
    }
}

bool parseArrayType(std::string_view descr, ArrayType& out) {
    ArrayType t;
    if (!descr.empty() &&
        (descr[0] == '<' || descr[0] == '>' || descr[0] == '|' || descr[0] == '=')) {
        t.bigEndian = descr[0] == '>';
        descr.remove_prefix(1);
    }
    if (descr == "?" || descr == "b1") {
        t.kind = 'b';
        t.itemSize = 1;
    } else if (descr == "O" || descr == "O8") {
        t.kind = 'O';
        t.itemSize = 8;
    } else if (descr.size() == 2 && (descr[0] == 'f' || descr[0] == 'i' || descr[0] == 'u')) {
        t.kind = descr[0];
        t.itemSize = std::size_t(descr[1] - '0');
        const bool ok = t.kind == 'f' ? (t.itemSize == 2 || t.itemSize == 4 || t.itemSize == 8)
                                      : (t.itemSize == 1 || t.itemSize == 2 || t.itemSize == 4 ||
                                         t.itemSize == 8);
        if (!ok) return false;
    } else {
        return false;
    }
    out = t;
    return true;
}

std::optional<std::uint32_t> Pickle::find(std::uint32_t dict, std::string_view key) const {
    const PickleObject& d = objects[dict];
    if (d.type != Type::Dict) return std::nullopt;
    std::optional<std::uint32_t> found;
    for (std::size_t k = 0; k + 1 < d.items.size(); k += 2) {
        const PickleObject& name = objects[d.items[k]];
        if (name.type == Type::String && name.text == key) found = d.items[k + 1];  // the last wins
    }
    return found;
}

namespace {

double halfToDouble(std::uint16_t h) {
    const int exponent = (h >> 10) & 0x1f;
    const int mantissa = h & 0x3ff;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0) return sign * std::ldexp(mantissa, -24);
    if (exponent == 31)
        return mantissa ? std::numeric_limits<double>::quiet_NaN()
                        : sign * std::numeric_limits<double>::infinity();
    return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

double element(const ArrayType& type, const unsigned char* p) {
    unsigned char b[8];
    for (std::size_t k = 0; k < type.itemSize; ++k)
        b[k] = type.bigEndian ? p[type.itemSize - 1 - k] : p[k];
    std::uint64_t raw = 0;
    for (std::size_t k = 0; k < type.itemSize; ++k) raw |= std::uint64_t(b[k]) << (8 * k);
    switch (type.kind) {
        case 'b':
            return raw != 0 ? 1.0 : 0.0;
        case 'u':
            return double(raw);
        case 'i': {
            const unsigned bits = unsigned(8 * type.itemSize);
            if (bits < 64 && (raw >> (bits - 1)) & 1) raw |= ~std::uint64_t{0} << bits;
            return double(static_cast<std::int64_t>(raw));
        }
        default:
            if (type.itemSize == 2) return halfToDouble(std::uint16_t(raw));
            if (type.itemSize == 4) return double(std::bit_cast<float>(std::uint32_t(raw)));
            return std::bit_cast<double>(raw);
    }
}

}  // namespace

Result<std::vector<double>> arrayValues(const PickleObject& array, const std::string& name) {
    if (array.type != Type::Array || array.arrayType.kind == 'O')
        return fail(name + ": holds " +
                    (array.type == Type::Array ? std::string("an array of objects")
                                               : "a " + std::string(typeName(array.type))) +
                    "; an array of numbers is read");
    const std::size_t size = array.arrayType.itemSize;
    const std::size_t count = array.text.size() / size;
    std::vector<double> out(count);
    const auto* bytes = reinterpret_cast<const unsigned char*>(array.text.data());
    if (!array.fortranOrder || array.shape.size() < 2) {
        if (array.arrayType.kind == 'f' && size == 8 && !array.arrayType.bigEndian &&
            std::endian::native == std::endian::little) {
            if (count > 0) std::memcpy(out.data(), bytes, count * 8);
        } else {
            for (std::size_t k = 0; k < count; ++k)
                out[k] = element(array.arrayType, bytes + k * size);
        }
        return out;
    }
    // Fortran order: element k of the data is the multi-index with its first dimension fastest.
    const std::size_t rank = array.shape.size();
    std::vector<std::uint64_t> index(rank, 0), cStride(rank, 1);
    for (std::size_t d = rank - 1; d-- > 0;) cStride[d] = cStride[d + 1] * array.shape[d + 1];
    for (std::size_t k = 0; k < count; ++k) {
        std::uint64_t c = 0;
        for (std::size_t d = 0; d < rank; ++d) c += index[d] * cStride[d];
        out[c] = element(array.arrayType, bytes + k * size);
        for (std::size_t d = 0; d < rank; ++d) {
            if (++index[d] < array.shape[d]) break;
            index[d] = 0;
        }
    }
    return out;
}

Result<Pickle> readPickle(std::string_view data, const std::string& name) {
    Machine machine(data, name);
    return machine.run();
}

std::optional<double> numberOf(const Pickle& pickle, std::uint32_t index) {
    const PickleObject& o = pickle.at(index);
    switch (o.type) {
        case Type::Int:
            return double(o.integer);
        case Type::Float:
            return o.number;
        case Type::Bool:
            return o.boolean ? 1.0 : 0.0;
        case Type::Array:
            if (o.arrayType.kind != 'O' && o.text.size() == o.arrayType.itemSize)
                return element(o.arrayType, reinterpret_cast<const unsigned char*>(o.text.data()));
            return std::nullopt;
        default:
            return std::nullopt;
    }
}

}  // namespace fishschool
