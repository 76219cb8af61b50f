// Ensembles: the file, which run is which, the rows, and the run loop on several threads.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "core/CpuBackends.h"
#include "core/Messages.h"
#include "fishschool/Distributions.h"
#include "fishschool/Metrics.h"
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

TEST(Ensemble, AFitsPointTakesItsOwnSeedAndItsReplicatesTheSeedsThatOneGives) {
    EnsembleSpec spec = twoAxes();
    spec.points = {{0.1, 1.0}, {0.2, 2.0}};
    spec.pointSeeds = {41, 42};
    spec.replicates = 3;
    ASSERT_EQ(spec.runCount(), 6);
    std::set<std::uint64_t> seeds;
    for (std::int64_t i = 0; i < spec.runCount(); ++i) {
        const RunPlan plan = planRun(spec, i);
        const std::uint64_t own = spec.pointSeeds[std::size_t(i / 3)];
        EXPECT_EQ(plan.values, spec.points[std::size_t(i / 3)]);
        EXPECT_EQ(plan.replicate, i % 3);
        EXPECT_EQ(plan.seed, plan.replicate == 0 ? own : runSeed(own, plan.replicate));
        seeds.insert(plan.seed);
    }
    EXPECT_EQ(seeds.size(), 6u);
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

TEST(Ensemble, ARowsWallSecondsOutsideARunsAreRefusedRatherThanWrittenBackCut) {
    RunRow row;
    row.plan = planRun(twoAxes(), 2);
    row.wallSeconds = 0.25;
    const std::string text = ensembleCsvRow(row, true);
    const std::size_t wall = text.find(",0.250000,");
    ASSERT_NE(wall, std::string::npos) << text;
    const auto withWall = [&](const std::string& seconds) {
        std::string line = text.substr(0, text.size() - 1);
        return line.replace(wall + 1, 8, seconds);
    };
    // "%.6f" of 1.5e300 is 308 characters: cut to the row's buffer, it read back as another.
    for (const char* seconds : {"1.5e300", "1000000000.5", "-0.5"}) {
        const auto back = parseEnsembleCsvRow(withWall(seconds), 2);
        ASSERT_FALSE(back) << seconds;
        EXPECT_THAT(back.error(), HasSubstr("wall_s: '" + std::string(seconds) +
                                            "' is not allowed; must be a run's seconds, from 0 "
                                            "to 1e9"));
    }
    const auto longest = parseEnsembleCsvRow(withWall("1e9"), 2);
    ASSERT_TRUE(longest) << longest.error();
    const std::string written = ensembleCsvRow(*longest, true);
    EXPECT_THAT(written, HasSubstr(",1000000000.000000,"));
    const auto again = parseEnsembleCsvRow(written.substr(0, written.size() - 1), 2);
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(ensembleCsvRow(*again, true), written);
}

/// A base of 10 fish: 2 informed (kPreferred 0.5 along x) and 8 naive.
constexpr const char* kInformedBase = R"({"fishCount": 10, "rocks": [], "species": [
    {"name": "informed", "count": 2, "kPreferred": 0.5, "preferredDirection": [1, 0, 0]},
    {"name": "naive", "count": 8}]})";

TEST(Ensemble, AShareAxisGivesASpeciesItsShareOfEachRunsFishCount) {
    const auto spec = parseEnsemble(std::string(R"({"base": )") + kInformedBase +
                                        R"(, "axes": {"fishCount": [10, 40],
        "species[0].share": [0, 0.5, 1]}, "steps": 1})",
                                    "e.json", ".");
    ASSERT_TRUE(spec) << spec.error();
    ASSERT_EQ(spec->runCount(), 6);
    for (std::int64_t i = 0; i < spec->runCount(); ++i) {
        const RunPlan plan = planRun(*spec, i);
        const auto p = runParams(*spec, plan);
        ASSERT_TRUE(p) << p.error();
        EXPECT_EQ(p->fishCount, plan.values[0]);
        EXPECT_EQ(p->species[0].count, plan.values[0] * plan.values[1]) << "run " << i;
        EXPECT_EQ(p->species[0].count + p->species[1].count, p->fishCount);
    }
}

TEST(Ensemble, AShareThatIsNotWholeFishOrComesBeforeFishCountIsRefused) {
    const auto spec = [](const std::string& axes) {
        return parseEnsemble(std::string(R"({"base": )") + kInformedBase + R"(, "axes": {)" + axes +
                                 R"(}, "steps": 1})",
                             "e.json", ".");
    };
    auto bad = spec(R"("fishCount": [20, 10], "species[0].share": [0.05])");
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr("run 1 (fishCount = 10, species[0].share = 0.05): axes "
                                       "species[0].share = 0.05: 0.05 of fishCount 10 is 0.5 "
                                       "fish, which is not allowed; a share must make whole fish"));
    bad = spec(R"("species[0].share": [0.5], "fishCount": [20])");
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr("key 'axes.fishCount': axis 'species[0].share' comes "
                                       "before fishCount"));
    bad = spec(R"("species[0].share": [0.5], "species[1].share": [0.5])");
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr("axes 'species[0].share' and 'species[1].share' both "
                                       "write the species' counts"));
    bad = spec(R"("species[2].share": [0.5])");
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr("the config has 2 species"));
    bad = spec(R"("species[0].share": [1.5])");
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr("a share is from 0 to 1"));
    bad = spec(R"("species[01].share": [0.5])");
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error(), HasSubstr("this key cannot vary"));
}

TEST(Ensemble, ARowWithoutInformedFishHasNoDirectionErrorAndReadsBack) {
    const EnsembleSpec spec = twoAxes();
    RunRow row;
    row.plan = planRun(spec, 3);
    row.steps = 6;
    row.measures = {0.5, 0.25, 1.5, 3.0, std::nan(""), 2.0, 0.75};
    const std::string text = ensembleCsvRow(row, false);
    // The measures not set (rotation to the wall's) are 0.
    EXPECT_THAT(text, HasSubstr(",ok,6,0.5,0.25,1.5,3,,2,0.75,0,0,0,0,0,0,0,\n"));
    const std::string withWall = ensembleCsvRow(row, true);
    auto back = parseEnsembleCsvRow(withWall.substr(0, withWall.size() - 1), 2);
    ASSERT_TRUE(back) << back.error();
    EXPECT_TRUE(std::isnan(back->measures.directionError));
    EXPECT_EQ(ensembleCsvRow(*back, true), withWall);
    row.measures.directionError = 0.125;
    const std::string directed = ensembleCsvRow(row, true);
    back = parseEnsembleCsvRow(directed.substr(0, directed.size() - 1), 2);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back->measures.directionError, 0.125);
    // Only the direction error may be absent from an ok row.
    std::string noPolarization = directed;
    noPolarization.replace(noPolarization.find(",0.5,"), 5, ",,");
    EXPECT_FALSE(parseEnsembleCsvRow(noPolarization.substr(0, noPolarization.size() - 1), 2));
}

TEST(Ensemble, APointsSummaryIsTheMeanOfItsRowsAndTheAccuracyOverThem) {
    const double pi = std::acos(-1.0);
    EXPECT_EQ(ensembleSummaryHeader({{"fishCount", {}}, {"species[0].share", {}}}),
              "fishCount,species[0].share,runs,ok,polarization,milling,nearest_neighbor_m,"
              "neighbors,direction_error,groups,largest_group_share,rotation,state,dispersion_m,"
              "wall_distance_m,wall_angle,centre_wall_distance_m,centre_wall_angle,accuracy");
    PointSummary point;
    EXPECT_TRUE(point.empty());
    RunRow row;
    row.plan.values = {50, 0.1};
    row.measures = {1.0, 0.5, 2.0, 4.0, 0.0, 1.0, 1.0};
    point.add(row);
    row.measures = {0.5, 0.0, 1.0, 2.0, pi, 3.0, 0.5};
    point.add(row);
    RunRow failed = row;
    failed.ok = false;
    point.add(failed);
    // Along g once, against it once: accuracy 1 - sqrt(2) / pi, not the mean of 1 and 1 - 2/pi.
    EXPECT_EQ(point.csvRow(), "50,0.1,3,2,0.75,0.25,1.5,3," + formatNumber(pi / 2) +
                                  ",2,0.75,0,0,0,0,0,0,0," +
                                  formatNumber(1.0 - std::sqrt(2.0) / pi) + "\n");
    PointSummary uninformed;
    row.measures.directionError = std::nan("");
    uninformed.add(row);
    EXPECT_EQ(uninformed.csvRow(), "50,0.1,1,1,0.5,0,1,2,,3,0.5,0,0,0,0,0,0,0,\n");
}

/// Couzin et al. 2005 in short (docs/validation.md has the whole): the example's school, one
/// group size, a few informed fish or half of them. More informed fish steer the group closer to
/// their preferred direction, and half of them steer it almost exactly.
TEST(Ensemble, TheCouzin2005ExampleInShortIsMoreAccurateWithMoreInformedFish) {
    auto spec = loadEnsemble(std::filesystem::path(FISHSCHOOL_SOURCE_DIR) / "docs" / "examples" /
                             "couzin2005.json");
    ASSERT_TRUE(spec) << spec.error();
    ASSERT_EQ(spec->axes.size(), 2u);
    ASSERT_EQ(spec->axes[0].key, "fishCount");
    ASSERT_EQ(spec->axes[1].key, "species[0].share");
    // Its small shares (for groups of 50 and more) are the same school on another grid.
    const auto small = loadEnsemble(std::filesystem::path(FISHSCHOOL_SOURCE_DIR) / "docs" /
                                    "examples" / "couzin2005-small-shares.json");
    ASSERT_TRUE(small) << small.error();
    EXPECT_TRUE(small->base == spec->base);
    EXPECT_EQ(small->steps, spec->steps);
    EXPECT_EQ(small->window, spec->window);
    EXPECT_EQ(small->replicates, spec->replicates);
    spec->axes[0].values = {50};
    spec->axes[1].values = {0.02, 0.5};
    spec->replicates = 12;
    spec->steps = 600;
    spec->window = 200;
    std::vector<std::unique_ptr<Backend>> backends(2);
    std::vector<PointSummary> points(2);
    std::vector<std::string> texts(2);
    std::mutex mutex;
    EnsembleWork work{.runs = {}, .jobs = 2, .backendFor = {}, .onRow = {}};
    for (std::int64_t i = 0; i < spec->runCount(); ++i) work.runs.push_back(i);
    work.backendFor = [&](std::size_t w, const SimParams&) -> Result<Backend*> {
        if (!backends[w]) backends[w] = makeCpuBackend();
        return backends[w].get();
    };
    std::vector<RunRow> rows(std::size_t(spec->runCount()));
    work.onRow = [&](std::size_t, const RunRow& row) -> Result<void> {
        const std::lock_guard lock(mutex);
        rows[std::size_t(row.plan.index)] = row;
        return {};
    };
    ASSERT_TRUE(runEnsemble(*spec, work));
    std::vector<std::vector<double>> errors(2);
    for (const RunRow& row : rows) {
        ASSERT_TRUE(row.ok) << row.message;
        ASSERT_FALSE(std::isnan(row.measures.directionError));
        errors[std::size_t(row.plan.index / spec->replicates)].push_back(
            row.measures.directionError);
    }
    const double few = directionAccuracy(errors[0]), half = directionAccuracy(errors[1]);
    EXPECT_GT(half, 0.99);
    EXPECT_LT(few, half - 0.05) << "one informed fish in 50 guides the group as well as 25";
}

/// Vicsek et al. 1995 in short (docs/validation.md has the whole): the example's flat school at
/// density 4, one size, little and much noise. Little noise orders it (v_a near 1), much noise
/// leaves it disordered.
TEST(Ensemble, TheVicsek1995ExampleInShortOrdersAtLowNoiseOnly) {
    auto spec = loadEnsemble(std::filesystem::path(FISHSCHOOL_SOURCE_DIR) / "docs" / "examples" /
                             "vicsek1995.json");
    ASSERT_TRUE(spec) << spec.error();
    ASSERT_EQ(spec->axes.size(), 3u);
    ASSERT_EQ(spec->axes[0].key, "fishCount");
    ASSERT_EQ(spec->axes[1].key, "density");
    ASSERT_EQ(spec->axes[2].key, "noise");
    EXPECT_EQ(spec->base.dimensions, 2);
    EXPECT_EQ(spec->base.steering, Steering::Vicsek);
    spec->axes[0].values = {100};
    spec->axes[2].values = {0.3, 4.5};
    spec->replicates = 3;
    spec->steps = 800;
    spec->window = 200;
    // Density 4: 100 fish in a square of side 5.
    const auto first = runParams(*spec, planRun(*spec, 0));
    ASSERT_TRUE(first) << first.error();
    EXPECT_FLOAT_EQ(first->bounds.x, 2.5f);
    EXPECT_FLOAT_EQ(first->bounds.z, 2.5f);
    std::vector<std::unique_ptr<Backend>> backends(2);
    std::vector<RunRow> rows(std::size_t(spec->runCount()));
    std::mutex mutex;
    EnsembleWork work{.runs = {}, .jobs = 2, .backendFor = {}, .onRow = {}};
    for (std::int64_t i = 0; i < spec->runCount(); ++i) work.runs.push_back(i);
    work.backendFor = [&](std::size_t w, const SimParams&) -> Result<Backend*> {
        if (!backends[w]) backends[w] = makeCpuBackend();
        return backends[w].get();
    };
    work.onRow = [&](std::size_t, const RunRow& row) -> Result<void> {
        const std::lock_guard lock(mutex);
        rows[std::size_t(row.plan.index)] = row;
        return {};
    };
    ASSERT_TRUE(runEnsemble(*spec, work));
    std::vector<double> order(2, 0.0);
    for (const RunRow& row : rows) {
        ASSERT_TRUE(row.ok) << row.message;
        order[std::size_t(row.plan.index / spec->replicates)] +=
            row.measures.polarization / double(spec->replicates);
    }
    EXPECT_GT(order[0], 0.9) << "little noise";
    EXPECT_LT(order[1], 0.5) << "much noise";
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

TEST(Ensemble, AFitsRunTurnsEachFishBetweenItsMeasuredStepsTheMoreTheNoisier) {
    EnsembleSpec spec = twoAxes();
    spec.steps = 40;
    spec.window = 10;  // steps 31 to 40, every 2: 5 measured, 4 turns a fish
    spec.measureEvery = 2;
    spec.histograms = true;
    spec.replicates = 1;
    spec.points = {{0.0, 1.0}, {1.0, 1.0}};  // noise 0 and 1
    auto backend = makeCpuBackend();
    std::map<std::int64_t, Histogram> turning;
    EnsembleWork work{.runs = {0, 1},
                      .jobs = 1,
                      .backendFor = [&](std::size_t, const SimParams&) -> Result<Backend*> {
                          return backend.get();
                      },
                      .onRow = [&](std::size_t, const RunRow& row) -> Result<void> {
                          EXPECT_TRUE(row.ok) << row.message;
                          turning[row.plan.index] =
                              row.histograms[distributionIndex("turning_angle")];
                          return {};
                      }};
    ASSERT_TRUE(runEnsemble(spec, work));
    ASSERT_EQ(turning.size(), 2u);
    const auto mean = [](const Histogram& h) {
        double sum = 0.0;
        for (std::size_t k = 0; k < h.counts.size(); ++k) sum += double(k) * double(h.counts[k]);
        return sum / double(h.total());
    };
    EXPECT_EQ(turning[0].total(), 12u * 4u);
    EXPECT_EQ(turning[1].total(), 12u * 4u);
    EXPECT_GT(mean(turning[1]), 2.0 * mean(turning[0]));
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
