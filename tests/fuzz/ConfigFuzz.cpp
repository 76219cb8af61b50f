// Fuzz target: the config parser. An accepted config is valid and round-trips through
// configToJson; a refused one has a readable message.

#include "FuzzMain.h"
#include "io/ConfigIO.h"

using namespace fishschool;

void fuzzOne(std::string_view input) {
    auto params = parseConfig(input, "fuzz.json");
    if (!params) {
        fuzz::checkMessage(params.error());
        return;
    }
    fuzz::fuzzCheck(validate(*params).has_value(), "an accepted config does not validate",
                    validate(*params) ? "" : validate(*params).error().message());
    const std::string json = configToJson(*params);
    auto again = parseConfig(json, "round-trip.json");
    fuzz::fuzzCheck(again.has_value(), "configToJson of an accepted config is refused",
                    again ? json : again.error().message());
    fuzz::fuzzCheck(*again == *params, "an accepted config does not round-trip", json);
}
