// fishschool-cli fit end to end: the same seed gives the same populations, bytes for bytes,
// whatever the jobs and however often the fit is killed; bad input exits 2 naming what is wrong;
// and ensemble sensitivity on a design of the "sobol" kind.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "CliFixture.h"

namespace {

using ::testing::HasSubstr;

/// 20 fish of Couzin 2002 in a periodic box, 60 steps: a run of a millisecond or two.
constexpr const char* kBase = R"({"fishCount": 20, "steering": "couzin", "rSeparation": 1,
  "rAlignment": 3, "rCohesion": 6, "dt": 0.1, "maxTurnRate": 40, "noise": 0.05,
  "boundary": "periodic", "bounds": [6, 6, 6], "groupDistance": 3, "rocks": [],
  "neighborSearch": "all-pairs"})";

/// Two parameters, 20 particles, at most 4 populations.
constexpr const char* kFit = R"({
  "base": "base.json",
  "parameters": {"orientation-width": {"uniform": [0, 6]}, "noise": {"log-uniform": [0.01, 0.5]}},
  "target": {"trajectory": "target.h5", "from_step": 21},
  "statistics": {"measures": ["polarization", "nearest_neighbor_m"],
                 "distributions": ["neighbor_heading"]},
  "steps": 60, "measure": {"last": 40, "every": 2},
  "particles": 20, "budget": 400, "populations": 4, "seed": 3
})";

class Fit : public Cli {
  protected:
    void SetUp() override {
        Cli::SetUp();
        write("base.json", kBase);
        write("fit.json", kFit);
        const CliRun target =
            cli("simulate --config " + path("base.json") + " --steps 60 --seed 9 --trajectory " +
                path("target.h5") + " --trajectory-every 2");
        ASSERT_EQ(target.status, 0) << target.err;
    }
    CliRun fit(const std::string& dir, const std::string& args = "") const {
        return cli("fit " + path("fit.json") + " --out " + path(dir) + args);
    }
    /// Every file of a fit's folder; a runs file's whole rows sorted (they come as runs finish;
    /// a row a kill cut short is cut off when its population is run again).
    std::vector<std::pair<std::string, std::string>> files(const std::string& dir) const {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& entry : fs::directory_iterator(path(dir))) {
            const std::string name = entry.path().filename().string();
            std::string text = read(entry.path().string());
            if (name.starts_with("runs-")) {
                std::vector<std::string> rows;
                text.erase(text.rfind('\n') + 1);
                std::stringstream in(text);
                for (std::string line; std::getline(in, line);) rows.push_back(line);
                std::sort(rows.begin(), rows.end());
                text.clear();
                for (const std::string& row : rows) text += row + "\n";
            }
            out.emplace_back(name, text);
        }
        std::sort(out.begin(), out.end());
        return out;
    }
    /// Whether two fits' folders hold the same files, naming those that differ.
    ::testing::AssertionResult same(const std::string& a, const std::string& b) const {
        const auto filesA = files(a), filesB = files(b);
        std::string differ;
        for (const auto& [name, text] : filesA) {
            const auto found = std::find_if(filesB.begin(), filesB.end(),
                                            [&](const auto& file) { return file.first == name; });
            if (found == filesB.end() || found->second != text) differ += " " + name;
        }
        if (filesA.size() != filesB.size()) differ += " (file counts differ)";
        if (differ.empty()) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << a << " and " << b << " differ:" << differ;
    }
};

TEST_F(Fit, TheSameSeedGivesTheSamePopulationsWhateverTheJobs) {
    const CliRun one = fit("one", " --jobs 1");
    ASSERT_EQ(one.status, 0) << one.err;
    const CliRun two = fit("two", " --jobs 2");
    ASSERT_EQ(two.status, 0) << two.err;
    EXPECT_TRUE(same("one", "two"));
    EXPECT_THAT(one.out, HasSubstr("orientation-width"));
    EXPECT_THAT(one.out, HasSubstr("posterior (population "));
    const std::string posterior = read(path("one/posterior.csv"));
    EXPECT_THAT(posterior, ::testing::StartsWith(
                               "particle,index,orientation-width,noise,weight,distance,"
                               "polarization,nearest_neighbor_m,hellinger_neighbor_heading\n"));
    EXPECT_EQ(std::count(posterior.begin(), posterior.end(), '\n'), 21);
    // The last population is the posterior.
    const std::string summary = read(path("one/populations.csv"));
    const auto populations = std::count(summary.begin(), summary.end(), '\n') - 1;
    EXPECT_GE(populations, 2);
    EXPECT_EQ(read(path("one/population-" + std::to_string(populations - 1) + ".csv")), posterior);
    EXPECT_THAT(one.err, HasSubstr("fit: population 0 done"));
}

TEST_F(Fit, AKilledFitResumesToTheSameBytes) {
    ASSERT_EQ(fit("whole", " --jobs 2").status, 0);
    // Killed at some moment, then a row cut short mid-write; the same command goes on.
    for (const char* after : {"0.05", "0.3"}) {
        std::system(("timeout -s KILL " + std::string(after) + " " +
                     std::string(FISHSCHOOL_CLI_PATH) + " fit " + path("fit.json") + " --out " +
                     path("killed") + " --jobs 2 >/dev/null 2>&1")
                        .c_str());
    }
    if (fs::exists(path("killed/runs-0.csv")))
        std::ofstream(path("killed/runs-0.csv"), std::ios::app) << "7,1.25,0.0";
    const CliRun resumed = fit("killed", " --jobs 2");
    ASSERT_EQ(resumed.status, 0) << resumed.err;
    EXPECT_TRUE(same("killed", "whole"));
    // Done: the same command runs nothing and says the same.
    const CliRun again = fit("killed");
    EXPECT_EQ(again.status, 0) << again.err;
    EXPECT_TRUE(same("killed", "whole"));
    EXPECT_EQ(again.out, resumed.out);
}

TEST_F(Fit, ALargerBudgetTakesAFitFurther) {
    write("fit.json", std::string(kFit).replace(std::string(kFit).find("\"budget\": 400"), 13,
                                                "\"budget\": 100"));
    const CliRun small = fit("f");
    ASSERT_EQ(small.status, 0) << small.err;
    EXPECT_THAT(small.out, HasSubstr("the budget of simulations is spent"));
    write("fit.json", kFit);
    const CliRun larger = fit("f");
    ASSERT_EQ(larger.status, 0) << larger.err;
    ASSERT_EQ(fit("fresh").status, 0);
    EXPECT_EQ(read(path("f/posterior.csv")), read(path("fresh/posterior.csv")));
}

TEST_F(Fit, BadInputExitsTwoNamingWhatIsWrongAndWhatIsAllowed) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {R"({"parameters": {"noise": {"uniform": [0, 1]}}})", "key 'target' is missing"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [1, 1]}},
             "target": {"trajectory": "target.h5"}, "statistics": {"measures": ["milling"]},
             "steps": 10, "budget": 100})",
         "is an empty range"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5"}, "statistics": {"measures": ["milling"]},
             "steps": 10, "budget": -5})",
         "key 'budget': '-5' is not allowed; must be a whole number from 1"},
        {R"({"base": "base.json", "parameters": {"gills": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5"}, "statistics": {"measures": ["milling"]},
             "steps": 10, "budget": 100})",
         "this key cannot be fitted; a parameter is orientation-width, attraction-width"},
        {R"({"base": "base.json", "parameters": {"noise": {"normal": [0, 1]}},
             "target": {"trajectory": "target.h5"}, "statistics": {"measures": ["milling"]},
             "steps": 10, "budget": 100})",
         "unknown prior; a prior is {\"uniform\": [LOW, HIGH]}"},
        {R"({"base": "base.json", "parameters": {"noise": {"log-uniform": [0, 1]}},
             "target": {"trajectory": "target.h5"}, "statistics": {"measures": ["milling"]},
             "steps": 10, "budget": 100})",
         "its low end must be > 0"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5"}, "statistics": {"measures": ["speed"]},
             "steps": 10, "budget": 100})",
         "is not allowed; must be one of polarization, milling"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5"}, "statistics": {},
             "steps": 10, "budget": 100})",
         "names no statistic"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "nothere.h5"}, "statistics": {"measures": ["milling"]},
             "steps": 10, "budget": 100})",
         "nothere.h5"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5", "from_step": 1000},
             "statistics": {"measures": ["milling"]}, "steps": 10, "budget": 100})",
         "has no frame from step 1000"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [-1, 1]}},
             "target": {"trajectory": "target.h5"}, "statistics": {"measures": ["milling"]},
             "steps": 10, "budget": 100})",
         "noise"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5"}, "statistics": {"measures": ["milling"]},
             "steps": 10, "budget": 100, "particles": 200})",
         "must be at least particles (200)"},
        {R"({"base": "base.json", "parameters": {"orientation-width": {"uniform": [0, 1]},
             "rAlignment": {"uniform": [1, 2]}}, "target": {"trajectory": "target.h5"},
             "statistics": {"measures": ["milling"]}, "steps": 10, "budget": 100})",
         "both write"},
        {R"({"base": "base.json", "parameters": {"fishCount": {"uniform": [10, 20]}},
             "target": {"trajectory": "target.h5"}, "statistics": {"measures": ["milling"]},
             "steps": 10, "budget": 100})",
         "fishCount takes whole numbers"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5"},
             "statistics": {"distributions": ["turning_angle"]}, "steps": 10,
             "measure": {"last": 9, "every": 3}, "budget": 100})",
         "(measure.every 3 steps of dt 0.1): turning_angle compares turns over equal intervals; "
         "give measure.every to match the target's frames"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5"},
             "statistics": {"quantiles": {"turn_axis_change": [0.1]}}, "steps": 10,
             "measure": {"last": 9, "every": 3}, "budget": 100})",
         "turn_axis_change compares turns over equal intervals"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5"},
             "statistics": {"quantiles": {"wall_distance": [0.5]}}, "steps": 10, "budget": 100})",
         "has no value of the distribution 'wall_distance' in its window (wall_distance_q0.5: "
         "wall_distance needs a tank of walls)"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5"},
             "statistics": {"quantiles": {"turn_axis_change": [0.1]}}, "steps": 10,
             "measure": {"last": 3, "every": 2}, "budget": 100})",
         "key 'measure': measure.last 3 every 2 measures 2 frames of each run; turn_axis_change "
         "needs at least 3"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5"},
             "statistics": {"distributions": ["turning_angle"]}, "steps": 10,
             "measure": {"last": 1}, "budget": 100})",
         "measures 1 frame of each run; turning_angle needs at least 2"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5", "from_step": 58},
             "statistics": {"distributions": ["turn_axis_change"]}, "steps": 10,
             "measure": {"last": 9, "every": 2}, "budget": 100})",
         "in its window (turn_axis_change needs 3 frames of a fish that turns)"},
        {R"([1, 2, 3])", "a fit file must be a JSON object"},
        {R"({"base": "base.json", "parameters": {"noise": {"uniform": [0, 1]}},
             "target": {"trajectory": "target.h5"}, "statistics": {"measures": ["milling"]},
             "steps": 10, "budget": 100, "tolerance": 3})",
         "unknown key; a fit file has base, parameters, target"},
    };
    for (const auto& [text, expected] : cases) {
        write("bad.json", text);
        const CliRun run = cli("fit " + path("bad.json") + " --out " + path("out"));
        EXPECT_EQ(run.status, 2) << text << "\n" << run.err;
        EXPECT_THAT(run.err, HasSubstr(expected)) << text;
        EXPECT_THAT(run.err, ::testing::StartsWith("error: "));
        EXPECT_FALSE(fs::exists(path("out"))) << text;
    }
    // A folder of another fit, or of anything else, is refused.
    ASSERT_EQ(fit("mine").status, 0);
    write("other.json",
          std::string(kFit).replace(std::string(kFit).find("\"seed\": 3"), 9, "\"seed\": 4"));
    const CliRun other = cli("fit " + path("other.json") + " --out " + path("mine"));
    EXPECT_EQ(other.status, 2);
    EXPECT_THAT(other.err, HasSubstr("holds another fit"));
    fs::create_directories(path("stranger"));
    write("stranger/notes.txt", "mine");
    const CliRun stranger = fit("stranger");
    EXPECT_EQ(stranger.status, 2);
    EXPECT_THAT(stranger.err, HasSubstr("holds 'notes.txt' and no fit.json"));
}

TEST_F(Fit, AQuantileOfADistributionIsAStatisticOfEveryRun) {
    std::string text = kFit;
    text.replace(text.find("\"distributions\": [\"neighbor_heading\"]"), 37,
                 "\"quantiles\": {\"turn_axis_change\": [0.25]}");
    text.replace(text.find("\"populations\": 4"), 16, "\"populations\": 1");
    write("quantile.json", text);
    const CliRun run = cli("fit " + path("quantile.json") + " --out " + path("q"));
    ASSERT_EQ(run.status, 0) << run.err;
    const std::string runs = read(path("q/runs-0.csv"));
    ASSERT_THAT(runs, HasSubstr("nearest_neighbor_m,turn_axis_change_q0.25\n"));
    // Each run's value: an angle in radians, within (0, pi).
    std::stringstream rows(runs);
    std::string header, row;
    std::getline(rows, header);
    int checked = 0;
    while (std::getline(rows, row)) {
        const double value = std::stod(row.substr(row.rfind(',') + 1));
        EXPECT_GT(value, 0.0) << row;
        EXPECT_LT(value, 3.1416) << row;
        ++checked;
    }
    EXPECT_EQ(checked, 20);
}

TEST_F(Fit, SeveralTrialsArePooledInTheTargetAndInEachSimulation) {
    for (const auto& [name, seed] : {std::pair{"second.h5", 10}, std::pair{"third.h5", 12}})
        ASSERT_EQ(
            cli("simulate --config " + path("base.json") + " --steps 60 --seed " +
                std::to_string(seed) + " --trajectory " + path(name) + " --trajectory-every 2")
                .status,
            0);
    const auto withTarget = [](const std::string& target) {
        std::string text = kFit;
        const std::string one = R"("trajectory": "target.h5")";
        text.replace(text.find(one), one.size(), target);
        return text.replace(text.find("\"populations\": 4"), 16, "\"populations\": 2");
    };
    write("first.json", withTarget(R"("trajectory": "target.h5")"));
    write("second.json", withTarget(R"("trajectory": "second.h5")"));
    write("both.json", withTarget(R"("trajectories": ["target.h5", "second.h5"])"));
    write("three.json", withTarget(R"("trajectories": ["target.h5", "second.h5", "third.h5"])"));
    /// A statistic's target as the fit prints it (4 significant digits).
    const auto targetOf = [](const std::string& out, const std::string& statistic) {
        const std::size_t at = out.find("\n  " + statistic + " ");
        EXPECT_NE(at, std::string::npos) << out;
        return at == std::string::npos ? 0.0 : std::stod(out.substr(at + 3 + statistic.size()));
    };
    const CliRun first = cli("fit " + path("first.json") + " --out " + path("first"));
    const CliRun second = cli("fit " + path("second.json") + " --out " + path("second"));
    const CliRun both = cli("fit " + path("both.json") + " --out " + path("both"));
    ASSERT_EQ(first.status, 0) << first.err;
    ASSERT_EQ(second.status, 0) << second.err;
    ASSERT_EQ(both.status, 0) << both.err;
    // The trials have as many frames: the pooled mean is the mean of their means, to the
    // printed digits; the trials differ by more, so either alone would be seen.
    for (const char* measure : {"polarization", "nearest_neighbor_m"}) {
        const double a = targetOf(first.out, measure), b = targetOf(second.out, measure);
        const double printed = 5e-4 * std::abs(a + b);
        EXPECT_GT(std::abs(a - b), 4.0 * printed) << measure;
        EXPECT_NEAR(targetOf(both.out, measure), 0.5 * (a + b), printed) << measure;
    }
    EXPECT_THAT(both.out, HasSubstr("(2 schools a simulation: one for each target trajectory)"));
    EXPECT_THAT(first.out, ::testing::Not(HasSubstr("schools a simulation")));
    const std::string runs = read(path("both/runs-0.csv"));
    EXPECT_EQ(std::count(runs.begin(), runs.end(), '\n'), 21);  // a row a simulation
    EXPECT_NE(read(path("both/posterior.csv")), read(path("first/posterior.csv")));
    // Three schools a simulation, their measures summed in one order whichever finished first:
    // the same bytes whatever the jobs.
    const CliRun two = cli("fit " + path("three.json") + " --out " + path("two") + " --jobs 2");
    const CliRun one = cli("fit " + path("three.json") + " --out " + path("one") + " --jobs 1");
    ASSERT_EQ(two.status, 0) << two.err;
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_TRUE(same("two", "one"));

    fs::remove(path("second.h5"));
    const CliRun missing = cli("fit " + path("both.json") + " --out " + path("missing"));
    EXPECT_EQ(missing.status, 2);
    EXPECT_THAT(missing.err, HasSubstr("second.h5"));
    EXPECT_FALSE(fs::exists(path("missing")));
}

TEST_F(Fit, ADryRunChecksEverythingAndMakesNothing) {
    const CliRun run = fit("dry", " --dry-run");
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_THAT(run.err, HasSubstr("nothing was made or run"));
    EXPECT_FALSE(fs::exists(path("dry")));
    // The turning angle over the target's interval, frames every 2 steps as the runs'.
    write("turning.json", std::string(kFit).replace(std::string(kFit).find("\"neighbor_heading\""),
                                                    18, "\"turning_angle\""));
    const CliRun turning =
        cli("fit " + path("turning.json") + " --out " + path("dry") + " --dry-run");
    EXPECT_EQ(turning.status, 0) << turning.err;
    EXPECT_FALSE(fs::exists(path("dry")));
}

TEST_F(Fit, SensitivityOfASobolDesignNamesEachMeasureAndParameter) {
    write("s.json", R"({"base": "base.json", "design": "sobol", "samples": 16,
      "axes": {"orientation-width": {"from": 0, "to": 6}, "noise": {"from": 0.01, "to": 0.5}},
      "steps": 30, "measure": {"last": 10}, "seed": 2})");
    const CliRun run = cli("ensemble run " + path("s.json") + " --out " + path("s"));
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_THAT(read(path("s/manifest.json")), HasSubstr("\"sobol_samples\": 16"));
    const CliRun s =
        cli("ensemble sensitivity " + path("s") + " --csv " + path("s.csv") + " --bootstrap 200");
    ASSERT_EQ(s.status, 0) << s.err;
    EXPECT_THAT(s.out, HasSubstr("Sobol indices of 16 base points x (2 parameters + 2)"));
    EXPECT_THAT(s.out, HasSubstr("polarization         orientation-width"));
    EXPECT_THAT(s.out, HasSubstr("direction_error: no indices, absent"));
    const std::string csv = read(path("s.csv"));
    EXPECT_THAT(csv, ::testing::StartsWith("measure,parameter,S1,S1_low,S1_high,ST,ST_low,ST_high\n"
                                           "polarization,orientation-width,"));
    // The same indices whatever the order the part files were written in: a second run of the
    // folder's own resampling gives the same bytes.
    ASSERT_EQ(
        cli("ensemble sensitivity " + path("s") + " --csv " + path("t.csv") + " --bootstrap 200")
            .status,
        0);
    EXPECT_EQ(read(path("t.csv")), csv);
    // A grid's folder, or one with runs left, has no indices.
    write("g.json", R"({"base": "base.json", "axes": {"noise": [0.1, 0.2]}, "steps": 5})");
    ASSERT_EQ(cli("ensemble run " + path("g.json") + " --out " + path("g")).status, 0);
    const CliRun grid = cli("ensemble sensitivity " + path("g"));
    EXPECT_EQ(grid.status, 2);
    EXPECT_THAT(grid.err, HasSubstr("grid design; Sobol indices need one of the \"sobol\" design"));
    ASSERT_EQ(
        cli("ensemble run " + path("s.json") + " --out " + path("part") + " --shard 0/2").status,
        0);
    const CliRun part = cli("ensemble sensitivity " + path("part"));
    EXPECT_EQ(part.status, 2);
    EXPECT_THAT(part.err, HasSubstr("runs are not done or failed"));
    const CliRun badConfidence = cli("ensemble sensitivity " + path("s") + " --confidence 1.5");
    EXPECT_EQ(badConfidence.status, 2);
    EXPECT_THAT(badConfidence.err, HasSubstr("must be between 0 and 1"));
}

}  // namespace
