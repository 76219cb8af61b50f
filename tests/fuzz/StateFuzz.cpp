// Fuzz target: the state CSV parser, in three scenes chosen by the first byte, its high bit
// steering burst-and-coast (whose files keep each fish's kick clock). An accepted school keeps
// docs/model.md's guarantees (finite, in the tank, out of the rocks) and re-saves to the same
// school; a refused one has a readable message.

#include "FuzzMain.h"
#include "core/Invariants.h"
#include "io/StateIO.h"

using namespace fishschool;

namespace {

SimParams scene(unsigned char choice) {
    SimParams p;  // the default tank and its three rocks
    if (choice % 3 == 1) {
        p.rocks.clear();
        p.bounds = {1.0f, 1.0f, 1.0f};
        p.maxVelocity = 1.0f;
    } else if (choice % 3 == 2) {
        p.bounds = {1e6f, 1e6f, 1e6f};
        p.rocks = {{{0.0f, 0.0f, 0.0f}, 5e5f}};
    }
    if (choice & 0x80) p.steering = Steering::BurstAndCoast;
    return p;
}

}  // namespace

void fuzzOne(std::string_view input) {
    if (input.empty()) return;
    const SimParams params = scene(static_cast<unsigned char>(input.front()));
    input.remove_prefix(1);
    auto school = parseStateCsv(input, params, "fuzz.csv");
    if (!school) {
        fuzz::checkMessage(school.error());
        return;
    }
    const auto valid = checkInvariants(*school, params);
    fuzz::fuzzCheck(valid.has_value(), "an accepted state breaks an invariant",
                    valid ? "" : valid.error().message());
    for (const Fish& fish : *school)
        fuzz::fuzzCheck(!whyNotKickClock(fish.kickClock), "an accepted kick clock is out of range",
                        std::to_string(fish.kickClock));
    const std::string csv = stateToCsv(*school, params);
    auto again = parseStateCsv(csv, params, "round-trip.csv");
    fuzz::fuzzCheck(again.has_value(), "stateToCsv of an accepted state is refused",
                    again ? "" : again.error().message());
    fuzz::fuzzCheck(*again == *school, "an accepted state does not round-trip", csv.substr(0, 400));
}
