// The parameter table (core/ParamTable.h) against the code it drives and docs/config.md.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/ParamTable.h"
#include "io/ConfigIO.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;

/// The defaults with the one key `info` changed to another value that validate() accepts.
SimParams withOtherValue(const ParamInfo& info) {
    SimParams p;
    std::visit(
        [&]<class Field>(const Field& field) {
            if constexpr (std::is_same_v<Field, float SimParams::*>) {
                const float original = p.*field;
                for (float candidate :
                     {original + 0.5f, original * 0.5f, original - 0.5f, original * 1.25f}) {
                    p.*field = candidate;
                    if (validate(p)) return;
                }
            } else if constexpr (std::is_same_v<Field, std::int64_t SimParams::*>) {
                p.*field = p.*field == 0 ? 1 : p.*field - 1;
            } else if constexpr (std::is_same_v<Field, std::uint64_t SimParams::*>) {
                p.*field = 0xfedcba9876543210ull;
            } else if constexpr (std::is_same_v<Field, bool SimParams::*>) {
                p.*field = !(p.*field);
            } else if constexpr (std::is_same_v<Field, glm::vec3 SimParams::*>) {
                p.*field += glm::vec3(0.5f, 0.25f, 0.125f);
            } else if constexpr (std::is_same_v<Field, ChoiceField>) {
                field.set(p, (field.get(p) + 1) % static_cast<int>(field.names.size()));
            } else if constexpr (std::is_same_v<Field, std::vector<Rock> SimParams::*>) {
                (p.*field).pop_back();
            } else {
                // Two species that set a key of each type.
                Species small{"small", p.fishCount - 5, {0.2f, 0.4f, 0.8f}, {}};
                small.settings.push_back({"maxVelocity", 2.5f});
                small.settings.push_back({"schoolsWith", 0.0f, {}, 1});
                Species big{"big", 5, {0.9f, 0.5f, 0.1f}, {}};
                big.settings.push_back({"preferredDirection", 0.0f, {0.0f, 0.0f, 1.0f}});
                big.settings.push_back({"kPreferred", 0.5f});
                p.*field = {small, big};
            }
        },
        info.field);
    return p;
}

TEST(ParamTable, EveryKeyRoundTripsExactly) {
    for (const ParamInfo& info : paramTable()) {
        const SimParams changed = withOtherValue(info);
        ASSERT_TRUE(validate(changed)) << info.key << ": " << validate(changed).error();
        ASSERT_NE(changed, SimParams{}) << info.key << ": no other value found";
        auto back = parseConfig(configToJson(changed));
        ASSERT_TRUE(back) << info.key << ": " << back.error();
        EXPECT_EQ(*back, changed) << info.key << " is not written or not read back";
    }
}

TEST(ParamTable, EveryKeyIsWrittenOnceAndKnown) {
    const std::string json = configToJson(SimParams{});
    for (const ParamInfo& info : paramTable()) {
        std::string quoted = "\"";
        quoted.append(info.key).append("\":");
        EXPECT_THAT(json, HasSubstr(quoted)) << info.key;
        EXPECT_EQ(findParam(info.key), &info) << info.key << " is in the table twice";
    }
    EXPECT_EQ(findParam("kCohesoin"), nullptr);
}

// Code names a key through its member (keyOf), so that each key is spelled once, in the table.
TEST(ParamTable, EveryKeyIsFoundByItsMember) {
    for (const ParamInfo& info : paramTable()) {
        const std::string_view found = std::visit(
            [](const auto& field) -> std::string_view {
                using Field = std::decay_t<decltype(field)>;
                if constexpr (std::is_same_v<Field, ChoiceField>)
                    return {};
                else
                    return keyOf(field);
            },
            info.field);
        if (std::holds_alternative<ChoiceField>(info.field)) continue;
        EXPECT_EQ(found, info.key);
    }
    EXPECT_EQ(keyOf(&SimParams::rSeparation), "rSeparation");
    EXPECT_EQ(keyOf(&SimParams::species), "species");
}

TEST(ParamTable, AnIntervalNamesItsBoundsAndUnit) {
    SimParams p;
    p.noise = 11.0f;
    EXPECT_EQ(validate(p).error(),
              "noise: 11 is not allowed; must be finite, >= 0 and <= 10 radians");
    p = SimParams{};
    p.viewAngle = 0.0f;
    EXPECT_EQ(validate(p).error(),
              "viewAngle: 0 is not allowed; must be finite, > 0 and <= 360 degrees");
}

TEST(ParamTable, TheStepReadsEveryPlainNumberFromItsSlot) {
    for (const ParamInfo& info : paramTable()) {
        if (!info.stepSlot) continue;
        const SimParams changed = withOtherValue(info);
        const StepParamsData before = makeStepParams(SimParams{}, nullptr);
        const StepParamsData after = makeStepParams(changed, nullptr);
        EXPECT_NE(std::memcmp(&before, &after, sizeof(StepParamsData)), 0)
            << info.key << " does not reach the step";
    }
}

TEST(ParamTable, EveryPanelControlHasARangeAndHelp) {
    for (const ParamInfo& info : paramTable()) {
        if (info.panel.widget == Widget::None) continue;
        EXPECT_STRNE(info.panel.label, "") << info.key;
        EXPECT_STRNE(info.help, "") << info.key;
        if (info.panel.widget == Widget::Table &&
            std::holds_alternative<float SimParams::*>(info.field) && !info.panel.highOf) {
            EXPECT_LT(info.panel.low, info.panel.high) << info.key;
        }
    }
}

/// A row of docs/config.md's key table.
struct DocumentedKey {
    std::string key, unit, defaultCell;
};

std::vector<DocumentedKey> documentedKeys() {
    std::ifstream in(std::filesystem::path(FISHSCHOOL_SOURCE_DIR) / "docs" / "config.md");
    std::vector<DocumentedKey> rows;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with("| `")) continue;
        std::vector<std::string> cells;
        std::size_t start = 1;
        for (std::size_t bar = line.find('|', start); bar != std::string::npos;
             start = bar + 1, bar = line.find('|', start))
            cells.push_back(line.substr(start, bar - start));
        auto trim = [](std::string s) {
            s.erase(0, s.find_first_not_of(' '));
            s.erase(s.find_last_not_of(' ') + 1);
            return s;
        };
        const std::string key = trim(cells.at(0));
        rows.push_back({key.substr(1, key.size() - 2), trim(cells.at(2)), trim(cells.at(3))});
    }
    return rows;
}

TEST(ParamTable, DocsConfigListsEveryKeyWithItsUnitInOrder) {
    const auto rows = documentedKeys();
    const auto table = paramTable();
    ASSERT_EQ(rows.size(), table.size()) << "docs/config.md's key table and paramTable() differ";
    for (std::size_t k = 0; k < rows.size(); ++k) {
        EXPECT_EQ(rows[k].key, table[k].key) << "row " << k + 1;
        EXPECT_EQ(rows[k].unit, table[k].unit) << "unit of " << table[k].key;
    }
}

/// The default column's first `code` is the value a config without the key gets.
TEST(ParamTable, DocsConfigGivesEveryKeysDefault) {
    const auto defaults = nlohmann::json::parse(configToJson(SimParams{}));
    for (const DocumentedKey& row : documentedKeys()) {
        if (row.key == "rocks") continue;  // three rocks, described in words
        const std::size_t open = row.defaultCell.find('`');
        const std::size_t close = row.defaultCell.find('`', open + 1);
        ASSERT_NE(close, std::string::npos) << row.key << ": no `value` in " << row.defaultCell;
        const auto documented = nlohmann::json::parse(
            row.defaultCell.substr(open + 1, close - open - 1), nullptr, false);
        ASSERT_FALSE(documented.is_discarded()) << row.key << ": " << row.defaultCell;
        const nlohmann::json& actual = defaults.at(row.key);
        if (actual.is_number_float())  // the docs round a float as a person writes it
            EXPECT_FLOAT_EQ(documented.get<float>(), actual.get<float>()) << row.key;
        else
            EXPECT_EQ(documented, actual) << row.key;
    }
}

}  // namespace
}  // namespace fishschool
