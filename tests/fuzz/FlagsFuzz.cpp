// Fuzz target: the command line. Each line of the input is one argument of fishschool-cli, which
// parses and checks them as the program does but runs nothing (validateOnly). Every argument is
// also read by the list parsers of TextInput.h and BackendRegistry.h.

#include <algorithm>

#include "FuzzMain.h"
#include "RunCommandLine.h"
#include "backends/BackendRegistry.h"
#include "io/TextInput.h"

using namespace fishschool;

namespace {

constexpr std::size_t kMaxArguments = 24;

template <class Parsed, class Check>
void checkParsed(const Parsed& parsed, Check&& checkValue) {
    if (!parsed) {
        fuzz::checkMessage(parsed.error());
        return;
    }
    fuzz::fuzzCheck(!parsed->empty(), "a list parser accepted an empty list");
    for (const auto& value : *parsed) checkValue(value);
}

void parseOneArgument(std::string_view text) {
    checkParsed(parseFishCounts("--fish", text, 1), [](std::int64_t n) {
        fuzz::fuzzCheck(n >= 1 && n <= kMaxFishCount, "a fish count out of range was accepted");
    });
    checkParsed(parseNeighborSearchList("--neighbors", text), [](NeighborSearch) {});
    checkParsed(parseBackendList("--backend", text), [](BackendKind) {});
    auto one = parseFishCount("--fish", text);
    if (!one) fuzz::checkMessage(one.error());
}

}  // namespace

void fuzzOne(std::string_view input) {
    const std::vector<std::string> arguments =
        fuzz::argumentLines(input, "fishschool-cli", kMaxArguments);
    if (arguments.empty()) return;
    for (std::size_t i = 1; i < arguments.size(); ++i) parseOneArgument(arguments[i]);

    std::vector<const char*> argv;
    for (const std::string& argument : arguments) argv.push_back(argument.c_str());
    const int status =
        cli::runCommandLine(static_cast<int>(argv.size()), argv.data(), /*validateOnly=*/true);
    fuzz::fuzzCheck(status == 0 || status == 2,
                    "checking flags gave an exit status other than 0 or 2");
}
