#pragma once
// A reader of Python pickles that holds plain data only: dicts, lists, tuples, strings, bytes,
// numbers, booleans, None and NumPy arrays (as np.save pickles an object array). A pickle is a
// program for Python's unpickler: any other global it names, any call it makes and any opcode
// this reader does not know is refused, naming it, before anything is built from it. Nothing in
// a pickle is ever run: the few NumPy globals it accepts are recognised by name and their data
// read here. Memory is bounded by the pickle's size and kMaxPickleObjects; nothing recurses.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fishschool/Result.h"

namespace fishschool {

/// The most objects (values of any kind) a pickle may make.
inline constexpr std::size_t kMaxPickleObjects = std::size_t{1} << 22;
/// The most dimensions of an array.
inline constexpr std::size_t kMaxArrayRank = 32;

/// A NumPy array's element type: 'f' float, 'i' signed, 'u' unsigned, 'b' bool, 'O' objects.
struct ArrayType {
    char kind = 'f';
    std::size_t itemSize = 8;
    bool bigEndian = false;
    /// "float64", "int32", "bool", "object"
    std::string name() const;
};

/// One object of a pickle; containers hold the indices of their objects in Pickle::objects.
struct PickleObject {
    enum class Type {
        None,
        Bool,
        Int,
        Float,
        String,
        Bytes,
        List,
        Tuple,
        Dict,
        Array,
        DataType,  ///< numpy.dtype
        Global,    ///< one of the globals accepted (what REDUCE may call)
    };
    Type type = Type::None;
    bool boolean = false;
    std::int64_t integer = 0;
    double number = 0.0;
    std::string text;                  ///< String, Bytes, Global's name; an Array's raw data
    std::vector<std::uint32_t> items;  ///< List, Tuple, Dict (key, value, key, value...), Array 'O'
    ArrayType arrayType;               ///< Array, DataType
    std::vector<std::uint64_t> shape;  ///< Array
    bool fortranOrder = false;         ///< Array
    bool built = false;                ///< Array, DataType: BUILD gave its state
};

const char* typeName(PickleObject::Type type);

/// A pickle read: its objects, and the one it returned.
struct Pickle {
    std::vector<PickleObject> objects;
    std::uint32_t root = 0;
    const PickleObject& at(std::uint32_t index) const { return objects[index]; }
    /// The value of `key` in the dict `dict` (a string key), or none.
    std::optional<std::uint32_t> find(std::uint32_t dict, std::string_view key) const;
};

/// Reads `data` (a whole pickle, protocols 0 to 5). Errors (bad input) begin with `name` and say
/// what is refused and at which byte.
[[nodiscard]] Result<Pickle> readPickle(std::string_view data, const std::string& name);

/// The elements of an array of numbers (kind f, i, u or b) in C order, as doubles.
[[nodiscard]] Result<std::vector<double>> arrayValues(const PickleObject& array,
                                                      const std::string& name);

/// A number (Int, Float, Bool, or an array of one number), or none.
std::optional<double> numberOf(const Pickle& pickle, std::uint32_t index);

/// Parses a NumPy type string ("<f8", "|O", "f4", "?", "b1") into `out`; false if not one read.
bool parseArrayType(std::string_view descr, ArrayType& out);

}  // namespace fishschool
