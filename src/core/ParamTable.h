#pragma once

// Every config key once: its name in files, its SimParams member, unit, rule, where the step
// reads it, where the panel shows it and its help. Reading and writing configs (ConfigIO.cpp),
// validate() (ParamTable.cpp), the panel's widgets (src/ui) and the tests of every key are driven
// by this table; tests/core/ParamTableTest.cpp checks docs/config.md's key table against it.

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <glm/vec3.hpp>

#include "StepRule.h"
#include "fishschool/Result.h"
#include "fishschool/SimParams.h"

namespace fishschool {

/// A key that holds one of a few names: the names in the order of its enum, and the member.
struct ChoiceField {
    std::span<const char* const> names;
    int (*get)(const SimParams&) = nullptr;
    void (*set)(SimParams&, int) = nullptr;
};

/// The ChoiceField of the enum member `Member`, whose values are 0, 1, ... in the order of
/// `names`.
template <auto Member>
constexpr ChoiceField choiceOf(std::span<const char* const> names) {
    return {names, [](const SimParams& p) { return static_cast<int>(p.*Member); },
            [](SimParams& p, int index) {
                p.*Member = static_cast<std::remove_cvref_t<decltype(p.*Member)>>(index);
            }};
}

/// The member a key reads and writes; its type says how files hold it.
using ParamField = std::variant<float SimParams::*,          // a number
                                std::int64_t SimParams::*,   // a whole number: a count of fish,
                                                             // 0 to kMaxFishCount, or an Interval
                                std::uint64_t SimParams::*,  // a seed: any unsigned 64-bit value
                                bool SimParams::*,           // true or false
                                glm::vec3 SimParams::*,      // an array of 3 numbers
                                ChoiceField,                 // one of a few names
                                std::vector<Rock> SimParams::*,      // the rocks
                                std::vector<Species> SimParams::*>;  // the species

/// The rule of a number (or of each component of an array of 3), as validate() words it.
enum class NumberRule {
    Finite,    ///< finite ("target")
    Weight,    ///< finite, size at most 1e6
    Positive,  ///< finite and > 0
    Limit,     ///< finite and > 0, at most 1e6
    Distance,  ///< finite and >= 0
    Interval,  ///< finite, > low (lowIncluded false) or >= low, and <= high, in `unit`
};

/// How the panel shows a key.
enum class Widget {
    None,    ///< not on the panel
    Table,   ///< drawn from this table: a slider, a checkbox or a combo
    Custom,  ///< drawn by its section's own code, at its place in the table's order
};

struct PanelPlace {
    Widget widget = Widget::None;
    const char* section = "";  ///< the collapsing header it sits under
    const char* label = "";    ///< the control's label (Panel::controlRect finds it by it)
    /// The slider's range: what a drag reaches easily, not the key's rule (typing goes beyond).
    float low = 0.0f, high = 0.0f;
    const char* format = "%.3f";
    bool logarithmic = false;
    /// When set, the slider's upper end follows another key (minVelocity up to maxVelocity).
    float (*highOf)(const SimParams&) = nullptr;
};

/// The steering modes that read a key, a bit each (steeringBit): the panel dims the controls the
/// running steering does not read.
using SteeringSet = std::uint8_t;
constexpr SteeringSet steeringBit(Steering steering) {
    return static_cast<SteeringSet>(1u << static_cast<unsigned>(steering));
}
inline constexpr SteeringSet kEverySteering = 0xF;

/// Writes a number into its slot of the step's parameters (a STEP_* accessor of step_params.h).
using StepSlot = void (*)(StepParamsData&, float);
#define FISHSCHOOL_STEP_SLOT(ACCESSOR) \
    [](StepParamsData& step, float value) { ACCESSOR(step) = value; }

struct ParamInfo {
    const char* key;  ///< the name in config files, as the member is named
    ParamField field;
    const char* unit = "";                 ///< as docs/config.md writes it; "" for none
    NumberRule rule = NumberRule::Finite;  ///< numbers, arrays of 3; whole numbers: Interval
    float low = 0.0f, high = 0.0f;         ///< NumberRule::Interval only
    bool lowIncluded = true;
    /// A rule on this key and others, checked after them (e.g. minVelocity <= maxVelocity); a
    /// number with one has it in place of `rule`.
    Result<void> (*crossRule)(const SimParams&) = nullptr;
    /// A plain number the step reads as it is: where makeStepParams() puts it.
    StepSlot stepSlot = nullptr;
    PanelPlace panel{};
    const char* help = "";  ///< one line: the panel's tooltip
    /// A key a species may set for its own fish (a number, an array of 3 or a name).
    bool perFish = false;
    /// The steering modes whose step reads it (docs/model.md): couzin and vicsek replace the
    /// weighted forces, and vicsek reads one radius.
    SteeringSet steerings = kEverySteering;
};

/// Every config key, in the order of docs/config.md.
std::span<const ParamInfo> paramTable();
/// The entry of `key`, or null when there is none.
const ParamInfo* findParam(std::string_view key);

/// The config key of `member`, as the table spells it: code names a key through its member
/// (keyOf(&SimParams::rCohesion)), so that each key is spelled in one place. Every member is a
/// key of the table (ParamTable.EveryKeyIsFoundByItsMember).
template <class T>
std::string_view keyOf(T SimParams::*member) {
    for (const ParamInfo& info : paramTable())
        if (const auto* field = std::get_if<T SimParams::*>(&info.field); field && *field == member)
            return info.key;
    return {};
}

/// The per-fish keys a species may set, in the table's order.
std::vector<const ParamInfo*> perFishParams();

/// `params` with `setting`'s value in its key's member (a per-fish key of the table).
void applySetting(SimParams& params, const SpeciesSetting& setting);
/// The setting of per-fish key `info` that holds `params`' value of it.
SpeciesSetting settingOf(const ParamInfo& info, const SimParams& params);
/// The largest maxVelocity of the ordinary fish: the fastest species', or the config's without
/// species (the top of the app's speed colours; leaders and predators aside).
float topSpeedOfSpecies(const SimParams& params);

/// The values a whole-number key allows: [low, high] of its Interval, else 0 to kMaxFishCount.
std::pair<std::int64_t, std::int64_t> wholeNumberRange(const ParamInfo& info);

/// The rule of `info` as validate() checks it, for `params` (no cross-field rule).
[[nodiscard]] Result<void> checkParam(const ParamInfo& info, const SimParams& params);

}  // namespace fishschool
