// Ensembles: the file, which run is which, the rows, and the run loop on several threads.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "core/CpuBackends.h"
#include "runs/Ensemble.h"

namespace fishschool {
namespace {

using ::testing::HasSubstr;

constexpr const char* kTwoAxes = R"({
  "base": {"fishCount": 12, "rocks": []},
  "axes": {"noise": [0, 0.1, 0.2], "kAlignment": {"from": 1, "to": 2, "count": 2}},
  "replicates": 2, "steps": 6, "seed": 5, "measure": {"last": 3}
})";

EnsembleSpec twoAxes() {
    auto spec = parseEnsemble(kTwoAxes, "e.json", ".");
    EXPECT_TRUE(spec) << spec.error();
    return *spec;
}

TEST(Ensemble, TheFileSaysEveryRunAndTheFirstAxisVariesSlowest) {
    const EnsembleSpec spec = twoAxes();
    EXPECT_EQ(spec.runCount(), 12);
    ASSERT_EQ(spec.axes.size(), 2u);
    EXPECT_EQ(spec.axes[0].key, "noise");  // the file's order, not the alphabet's
    EXPECT_EQ(spec.axes[1].values, (std::vector<double>{1, 2}));
    EXPECT_EQ(spec.window, 3);
    const RunPlan plan = planRun(spec, 7);  // noise 0.1 (7 / 4), kAlignment 2 ((7 / 2) % 2)
    EXPECT_EQ(plan.values, (std::vector<double>{0.1, 2}));
    EXPECT_EQ(plan.replicate, 1);
    const auto params = runParams(spec, plan);
    ASSERT_TRUE(params) << params.error();
    EXPECT_EQ(params->noise, 0.1f);
    EXPECT_EQ(params->kAlignment, 2.0f);
    EXPECT_EQ(params->fishCount, 12);
    EXPECT_EQ(params->seed, plan.seed);
}

TEST(Ensemble, ARunsSeedFollowsFromTheMasterSeedAndItsIndexAlone) {
    const EnsembleSpec spec = twoAxes();
    EnsembleSpec other = spec;
    other.axes.pop_back();
    other.replicates = 7;
    std::set<std::uint64_t> seeds;
    for (std::int64_t i = 0; i < spec.runCount(); ++i) {
        EXPECT_EQ(planRun(spec, i).seed, planRun(other, i).seed);
        EXPECT_EQ(planRun(spec, i).seed, runSeed(5, i));
        seeds.insert(planRun(spec, i).seed);
    }
    EXPECT_EQ(seeds.size(), 12u);
    EXPECT_NE(runSeed(6, 0), runSeed(5, 0));
}

TEST(Ensemble, ABasePathIsReadBesideTheFileAndTheHashSeesItsContent) {
    const auto folder = std::filesystem::temp_directory_path() / "fishschool_ensemble_base";
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "c.json") << R"({"fishCount": 33})";
    const std::string text = R"({"base": "c.json", "axes": {}, "steps": 2})";
    const auto spec = parseEnsemble(text, "e.json", folder);
    ASSERT_TRUE(spec) << spec.error();
    EXPECT_EQ(spec->base.fishCount, 33);
    EXPECT_EQ(spec->runCount(), 1);
    std::ofstream(folder / "c.json") << R"({"fishCount": 34})";
    EXPECT_NE(parseEnsemble(text, "e.json", folder)->hash(), spec->hash());
    EXPECT_EQ(parseEnsemble(text, "e.json", folder)->hash(),
              parseEnsemble(text, "e.json", folder)->hash());
    std::filesystem::remove_all(folder);
    const auto missing = parseEnsemble(text, "e.json", folder);
    ASSERT_FALSE(missing);
    EXPECT_THAT(missing.error(), HasSubstr("e.json: key 'base': "));
}

TEST(Ensemble, TheExampleEnsemblesLoad) {
    std::size_t count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(
             std::filesystem::path(FISHSCHOOL_SOURCE_DIR) / "docs" / "examples")) {
        std::stringstream text;
        text << std::ifstream(entry.path()).rdbuf();
        if (text.str().find("\"axes\"") == std::string::npos) continue;
        ++count;
        const auto spec = loadEnsemble(entry.path());
        ASSERT_TRUE(spec) << spec.error();
        EXPECT_GE(spec->runCount(), 1);
    }
    EXPECT_GE(count, 1u);
    const auto diagram = loadEnsemble(std::filesystem::path(FISHSCHOOL_SOURCE_DIR) / "docs" /
                                      "examples" / "couzin2002-diagram.json");
    ASSERT_TRUE(diagram) << diagram.error();
    EXPECT_EQ(diagram->runCount(), 16 * 16 * 3);
    EXPECT_EQ(diagram->base.steering, Steering::Couzin);  // the base file beside it
}

TEST(Ensemble, EveryPointIsCheckedWithTheConfigsRules) {
    // More leaders than fish at one point only: a rule that ties two keys.
    const auto spec = parseEnsemble(R"({"axes": {"fishCount": [5, 1],
        "leaders": [0, 2]}, "replicates": 3, "steps": 2})",
                                    "e.json", ".");
    ASSERT_FALSE(spec);
    EXPECT_THAT(spec.error(), HasSubstr("e.json: run 9 (fishCount = 1, leaders = 2): "));
    EXPECT_THAT(spec.error(), HasSubstr("leaders"));
}

// Issue 33: axes that write one field were applied in order, silently, so a row's values were
// not the run's.
TEST(Ensemble, TwoAxesThatWriteOneFieldAreRefusedNamingBothAndTheField) {
    struct Case {
        const char* axes;
        const char* mustSay;
    };
    const Case cases[] = {
        {R"("rCohesion": [10, 12], "attraction-width": [2])",
         "key 'axes.attraction-width': axes 'rCohesion' and 'attraction-width' both write "
         "rCohesion: a run could not have both values; vary one of them"},
        {R"("attraction-width": [2], "rCohesion": [10, 12])",
         "axes 'attraction-width' and 'rCohesion' both write rCohesion"},
        {R"("orientation-width": [1, 2], "rSeparation": [0.5])",
         "axes 'orientation-width' and 'rSeparation' both write rAlignment - rSeparation "
         "(orientation-width)"},
        {R"("rSeparation": [0.5], "noise": [0], "orientation-width": [1, 2])",
         "axes 'rSeparation' and 'orientation-width' both write rAlignment - rSeparation"},
        {R"("rAlignment": [4], "attraction-width": [2])",
         "axes 'rAlignment' and 'attraction-width' both write rCohesion - rAlignment"},
        {R"("orientation-width": [1], "rCohesion": [20])",
         "axes 'orientation-width' and 'rCohesion' both write rCohesion"},
    };
    for (const Case& c : cases) {
        const auto spec = parseEnsemble(std::string(R"({"axes": {)") + c.axes + R"(}, "steps": 1})",
                                        "e.json", ".");
        ASSERT_FALSE(spec) << c.axes;
        EXPECT_THAT(spec.error(), HasSubstr(c.mustSay)) << c.axes;
    }
}

TEST(Ensemble, AxesThatHoldEachOtherGoTogetherAndEveryRowIsWhatRan) {
    // The two widths (the Couzin diagram's axes), in either order, and rSeparation with the
    // attraction width: every run has every axis's value.
    for (const char* axes : {R"("orientation-width": [0, 2, 5], "attraction-width": [1, 4])",
                             R"("attraction-width": [1, 4], "orientation-width": [0, 2, 5])",
                             R"("rSeparation": [0.5, 1], "attraction-width": [1, 4])"}) {
        const auto spec = parseEnsemble(std::string(R"({"base": {"rSeparation": 1, "rAlignment": 3,
                "rCohesion": 17}, "axes": {)") +
                                            axes + R"(}, "steps": 1})",
                                        "e.json", ".");
        ASSERT_TRUE(spec) << axes << ": " << spec.error();
        for (std::int64_t i = 0; i < spec->runCount(); ++i) {
            const RunPlan plan = planRun(*spec, i);
            const auto p = runParams(*spec, plan);
            ASSERT_TRUE(p) << p.error();
            for (std::size_t a = 0; a < spec->axes.size(); ++a) {
                const std::string& key = spec->axes[a].key;
                const double ran = key == "orientation-width"  ? p->rAlignment - p->rSeparation
                                   : key == "attraction-width" ? p->rCohesion - p->rAlignment
                                                               : p->rSeparation;
                EXPECT_EQ(ran, plan.values[a]) << axes << ": run " << i << ", " << key;
            }
        }
    }
}

TEST(Ensemble, ARowReadsBackAsItWasWritten) {
    const EnsembleSpec spec = twoAxes();
    RunRow row;
    row.plan = planRun(spec, 9);
    row.ok = false;
    row.steps = 4;
    row.wallSeconds = 0.25;
    row.message = "fish 3 at (1, 2, 3): not \"finite\",\nthen more";
    const std::string text = ensembleCsvRow(row, true);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
    const auto back = parseEnsembleCsvRow(text.substr(0, text.size() - 1), 2);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(ensembleCsvRow(*back, true), text);
    EXPECT_EQ(back->message, "fish 3 at (1, 2, 3): not \"finite\", then more");
    EXPECT_FALSE(parseEnsembleCsvRow("1,2,3", 2));
    EXPECT_FALSE(parseEnsembleCsvRow(text.substr(0, 20), 2));
}

TEST(Ensemble, RunsGiveTheSameRowsOnOneThreadOrThree) {
    const EnsembleSpec spec = twoAxes();
    auto runAll = [&](std::size_t jobs) {
        std::vector<std::unique_ptr<Backend>> backends(jobs);
        std::map<std::int64_t, std::string> rows;
        std::mutex mutex;
        EnsembleWork work{.runs = {}, .jobs = jobs, .backendFor = {}, .onRow = {}};
        for (std::int64_t i = spec.runCount(); i-- > 0;) work.runs.push_back(i);
        work.backendFor = [&](std::size_t w, const SimParams&) -> Result<Backend*> {
            if (!backends[w]) backends[w] = makeCpuBackend();
            return backends[w].get();
        };
        work.onRow = [&](std::size_t, const RunRow& row) -> Result<void> {
            const std::lock_guard lock(mutex);
            rows[row.plan.index] = ensembleCsvRow(row, false);
            return {};
        };
        EXPECT_TRUE(runEnsemble(spec, work));
        return rows;
    };
    const auto one = runAll(1);
    ASSERT_EQ(one.size(), 12u);
    EXPECT_EQ(runAll(3), one);
    EXPECT_THAT(one.at(0), HasSubstr(",ok,6,"));
}

TEST(Ensemble, AnErrorFromTheRowSinkStopsTheRuns) {
    const EnsembleSpec spec = twoAxes();
    auto backend = makeCpuBackend();
    int rows = 0;
    EnsembleWork work{.runs = {0, 1, 2, 3},
                      .jobs = 1,
                      .backendFor = [&](std::size_t, const SimParams&) -> Result<Backend*> {
                          return backend.get();
                      },
                      .onRow = [&](std::size_t, const RunRow&) -> Result<void> {
                          return ++rows == 2 ? fail("disk full") : Result<void>{};
                      }};
    const auto ran = runEnsemble(spec, work);
    ASSERT_FALSE(ran);
    EXPECT_EQ(ran.error(), "disk full");
    EXPECT_EQ(rows, 2);
}

}  // namespace
}  // namespace fishschool
