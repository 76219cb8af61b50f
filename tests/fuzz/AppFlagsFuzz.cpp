// Fuzz target: the app's command line. Each line of the input is one argument of fishschool,
// parsed and checked by parseAppOptions as the app does before its window opens (ffmpeg is not
// run: checkTools off). The exit status the app would give is 0 or 2, never a crash; accepted
// options hold values in their documented ranges; messages are readable.

#include <algorithm>
#include <cmath>

#include "FuzzMain.h"
#include "app_model/AppOptions.h"
#include "io/TextInput.h"

using namespace fishschool;

namespace {

constexpr std::size_t kMaxArguments = 24;

}  // namespace

void fuzzOne(std::string_view input) {
    const std::vector<std::string> arguments =
        fuzz::argumentLines(input, "fishschool", kMaxArguments);
    if (arguments.empty()) return;
    std::vector<const char*> argv;
    for (const std::string& argument : arguments) argv.push_back(argument.c_str());
    const auto options =
        app::parseAppOptions(static_cast<int>(argv.size()), argv.data(), /*checkTools=*/false);
    if (!options) {
        // What the app prints: printable() of the message, at most kMaxMessageChars.
        const std::string shown = printable(options.error(), kMaxMessageChars);
        fuzz::fuzzCheck(!options.error().empty(), "an error message is empty");
        fuzz::fuzzCheck(shown.find_first_of("\n\r\x1b") == std::string::npos,
                        "a printed message holds a control character", shown);
        return;
    }
    if (!options->help.empty()) return;
    const app::AppOptions& o = *options;
    fuzz::fuzzCheck(o.frames >= 0, "a negative --frames was accepted");
    fuzz::fuzzCheck(o.width == 0 || (o.width >= 64 && o.width <= 16384),
                    "a --width out of range was accepted");
    fuzz::fuzzCheck(o.height == 0 || (o.height >= 64 && o.height <= 16384),
                    "a --height out of range was accepted");
    fuzz::fuzzCheck(
        std::isfinite(o.sweepSeconds) && o.sweepSeconds >= 0.01 && o.sweepSeconds <= 3600.0,
        "a --sweep-seconds out of range was accepted");
    fuzz::fuzzCheck(o.recordFps >= 1 && o.recordFps <= 240, "a --record-fps out of range");
    for (std::int64_t n : o.sweepFish)
        fuzz::fuzzCheck(n >= 0 && n <= kMaxFishCount, "a sweep count out of range was accepted");
    fuzz::fuzzCheck(o.sweepFish.empty() || !o.sweepCsvPath.empty(), "--sweep without --csv");
}
