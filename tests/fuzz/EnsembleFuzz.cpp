// Fuzz target: the ensemble file parser, and the part-file rows an ensemble folder is read from.
// An accepted ensemble has 1 to the limit's runs, each with valid parameters, and the same text
// gives the same hash; a refused one, and a refused row, have a readable message. A row that
// reads writes back as the same row.

#include <filesystem>

#include "FuzzMain.h"
#include "io/ConfigIO.h"
#include "runs/Ensemble.h"

using namespace fishschool;

namespace {

// Small enough that checking every point of a grid stays well inside AFL++'s time limit.
constexpr std::int64_t kFuzzMaxRuns = 20'000;

void checkEnsemble(std::string_view input) {
    // A base given by path is read from the scratch folder the fuzzer runs in.
    auto spec = parseEnsemble(input, "fuzz.json", std::filesystem::current_path(), kFuzzMaxRuns);
    if (!spec) {
        fuzz::checkMessage(spec.error());
        return;
    }
    const std::int64_t runs = spec->runCount();
    fuzz::fuzzCheck(runs >= 1 && runs <= kFuzzMaxRuns, "an accepted ensemble's run count",
                    std::to_string(runs));
    for (const std::int64_t index : {std::int64_t(0), runs - 1}) {
        auto params = runParams(*spec, planRun(*spec, index));
        fuzz::fuzzCheck(params.has_value(), "a run of an accepted ensemble has no parameters",
                        params ? "" : params.error().message());
        fuzz::fuzzCheck(validate(*params).has_value(), "a run's parameters do not validate");
    }
    // A resumed run finds its folder by the hash: the same text must give the same one.
    auto again = parseEnsemble(input, "fuzz.json", std::filesystem::current_path(), kFuzzMaxRuns);
    fuzz::fuzzCheck(again && again->hash() == spec->hash() && spec->hash().size() == 16,
                    "the same ensemble text gives another hash", spec->canonicalJson());
}

void checkRows(std::string_view input) {
    const std::size_t axisCount = input.empty() ? 0 : std::size_t(input.front()) % 4;
    std::size_t start = 0;
    while (start < input.size()) {
        const std::size_t end = std::min(input.find('\n', start), input.size());
        const std::string_view line = input.substr(start, end - start);
        start = end + 1;
        auto row = parseEnsembleCsvRow(line, axisCount);
        if (!row) {
            fuzz::checkMessage(row.error());
            continue;
        }
        std::string written = ensembleCsvRow(*row, true);
        written.pop_back();  // its newline
        auto back = parseEnsembleCsvRow(written, axisCount);
        fuzz::fuzzCheck(back.has_value(), "a written row does not read back",
                        back ? written : back.error().message());
        fuzz::fuzzCheck(ensembleCsvRow(*back, true) == written + "\n",
                        "a row does not write back as itself", written);
    }
}

}  // namespace

void fuzzOne(std::string_view input) {
    checkEnsemble(input);
    checkRows(input);
}
