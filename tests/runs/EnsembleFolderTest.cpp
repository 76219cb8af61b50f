// An ensemble's output folder without the CLI: its manifest, its part files read a line at a
// time, the row kept for each run, and a part file opened for appending.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "runs/EnsembleFolder.h"

namespace fishschool {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class EnsembleFolder : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() /
               ("fishschool-folder-" + std::to_string(::getpid()) + "-" + info->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    void write(const std::string& name, const std::string& text) {
        std::ofstream(dir_ / name, std::ios::binary) << text;
    }
    std::string read(const std::string& name) {
        std::ifstream in(dir_ / name, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), {}};
    }
    static EnsembleManifest manifest(std::int64_t runs = 4) {
        return {"0123456789abcdef", "0.1.0", runs, {{"noise", {}}}, 7, 1, "e.json"};
    }
    /// Run `index`'s row, as `ensemble run` writes it: its seed and replicate its own.
    static RunRow row(std::int64_t index, bool ok, double polarization = 0.5) {
        RunRow r;
        r.plan = {index, {0.1}, 0, runSeed(manifest().seed, index)};
        r.ok = ok;
        r.message = ok ? "" : "it failed";
        r.steps = 10;
        r.measures.polarization = polarization;
        return r;
    }
    static std::string header() { return partFileHeader(manifest()); }
    static std::string rows(std::initializer_list<RunRow> list) {
        std::string text = header() + "\n";
        for (const RunRow& r : list) text += ensembleCsvRow(r, true);
        return text;
    }

    fs::path dir_;
};

TEST_F(EnsembleFolder, AManifestReadsBackAsItWasWritten) {
    EXPECT_FALSE(*readManifest(dir_));  // none yet
    write(kManifestName, manifestJson(manifest()));
    const auto read = readManifest(dir_);
    ASSERT_TRUE(read && *read) << (read ? "" : read.error().message());
    EXPECT_EQ((*read)->hash, "0123456789abcdef");
    EXPECT_EQ((*read)->runs, 4);
    ASSERT_EQ((*read)->axes.size(), 1u);
    EXPECT_EQ((*read)->axes[0].key, "noise");
    EXPECT_EQ((*read)->seed, 7u);
    EXPECT_EQ((*read)->replicates, 1);
    EXPECT_EQ((*read)->file, "e.json");
}

TEST_F(EnsembleFolder, AManifestThatEnsembleRunDidNotWriteIsRefused) {
    write(kManifestName,
          R"({"ensemble": "\u001b[31m", "version": "0.1.0", "runs": 4, "axes": []})");
    EXPECT_THAT(readManifest(dir_).error(), HasSubstr("was it edited"));
    write(kManifestName, R"({"ensemble": "abc", "version": "0.1.0", "runs": 4, "axes": ["nope"]})");
    EXPECT_THAT(readManifest(dir_).error(), HasSubstr("was it edited"));
    fs::remove(dir_ / kManifestName);
    write("elsewhere.json", manifestJson(manifest()));
    fs::create_symlink(dir_ / "elsewhere.json", dir_ / kManifestName);
    EXPECT_THAT(readManifest(dir_).error(), HasSubstr("not a regular file"));
}

TEST_F(EnsembleFolder, LinesComeWithTheirOffsetsAndACutLastLineIsLeftOut) {
    write("part-0of1-w0.csv", "head\nrow one\nrow two\ncut sho");
    std::vector<std::pair<std::string, std::uint64_t>> lines;
    ASSERT_TRUE(forEachLine(dir_ / "part-0of1-w0.csv", 100,
                            [&](std::string_view line, std::uint64_t offset) -> Result<void> {
                                lines.emplace_back(line, offset);
                                return {};
                            }));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[1], (std::pair<std::string, std::uint64_t>{"row one", 5}));
    EXPECT_EQ(lines[2], (std::pair<std::string, std::uint64_t>{"row two", 13}));
    const auto tooLong =
        forEachLine(dir_ / "part-0of1-w0.csv", 4,
                    [](std::string_view, std::uint64_t) -> Result<void> { return {}; });
    ASSERT_FALSE(tooLong);
    EXPECT_THAT(tooLong.error(), HasSubstr("line 2 is longer than 4 bytes"));
}

TEST_F(EnsembleFolder, AnOkRowIsKeptBeforeAFailedOneWhateverTheFilesOrder) {
    write("part-0of1-w0.csv", rows({row(0, false), row(1, true, 0.25)}));
    write("part-0of1-w1.csv", rows({row(0, true, 0.75), row(1, true, 0.125)}));
    auto rows = readRows(dir_, manifest());
    ASSERT_TRUE(rows) << rows.error();
    EXPECT_EQ(rows->count(), 2);
    EXPECT_EQ(rows->status(0), FolderRows::Status::Ok);
    EXPECT_EQ(rows->status(2), FolderRows::Status::None);
    const auto run0 = rows->row(0);
    ASSERT_TRUE(run0) << run0.error();
    EXPECT_EQ(run0->measures.polarization, 0.75);
    // Two ok rows of one run: the least as merged text, in any order of the files.
    const auto run1 = rows->row(1);
    ASSERT_TRUE(run1);
    EXPECT_EQ(run1->measures.polarization, 0.125);
}

TEST_F(EnsembleFolder, AForeignHeaderARunBeyondTheEnsembleAndALinkAreNotRead) {
    write("part-0of1-w0.csv", "run,other,columns\n");
    EXPECT_THAT(readRows(dir_, manifest()).error(), HasSubstr("not this ensemble's"));
    write("part-0of1-w0.csv", rows({row(9, true)}));
    EXPECT_THAT(readRows(dir_, manifest()).error(), HasSubstr("beyond the ensemble's 4 runs"));
    fs::remove(dir_ / "part-0of1-w0.csv");
    write("rows.csv", rows({row(1, true)}));
    fs::create_symlink(dir_ / "rows.csv", dir_ / "part-0of1-w1.csv");
    auto rows = readRows(dir_, manifest());
    ASSERT_TRUE(rows);
    EXPECT_EQ(rows->count(), 0);  // left unread: a link could lead anywhere
}

TEST_F(EnsembleFolder, APartFileStartsWithItsHeaderAndLosesOnlyARowCutShort) {
    {
        auto part = PartFile::open(dir_ / "part-0of1-w0.csv", header());
        ASSERT_TRUE(part) << part.error();
        ASSERT_TRUE(part->append(ensembleCsvRow(row(0, true), true)));
        // A second writer of the same file is refused while the first holds it.
        const auto second = PartFile::open(dir_ / "part-0of1-w0.csv", header());
        ASSERT_FALSE(second);
        EXPECT_THAT(second.error(), HasSubstr("another `ensemble run` is writing it"));
    }
    const std::string whole = read("part-0of1-w0.csv");
    EXPECT_EQ(whole, header() + "\n" + ensembleCsvRow(row(0, true), true));
    write("part-0of1-w0.csv", whole + "3,0.1,0,10");  // killed mid-row
    {
        auto part = PartFile::open(dir_ / "part-0of1-w0.csv", header());
        ASSERT_TRUE(part) << part.error();
        ASSERT_TRUE(part->append(ensembleCsvRow(row(1, true), true)));
    }
    EXPECT_EQ(read("part-0of1-w0.csv"), whole + ensembleCsvRow(row(1, true), true));
    EXPECT_TRUE(isPartFileName("part-0of1-w0.csv"));
    EXPECT_FALSE(isPartFileName("merged.csv"));
}

/// A value edited by hand under the ensemble's own hash (the run count, the seed), or any text
/// but what `ensemble run` writes, is refused where the folder is read: by every command alike.
TEST_F(EnsembleFolder, AHandEditedManifestIsRefusedWhateverItKept) {
    const std::string whole = manifestJson(manifest());
    const auto edited = [&](const std::string& from, const std::string& to) {
        std::string text = whole;
        const std::size_t at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return text.replace(at, from.size(), to);
    };
    for (const std::string& text :
         {edited("\"runs\": 4", "\"runs\": 2"), edited("\"seed\": 7", "\"seed\": 8"),
          edited("\"replicates\": 1", "\"replicates\": 2"), edited("\"noise\"", "\"dt\""),
          edited("\"check\": \"", "\"check\": \"0"), edited("\"runs\": 4", "\"runs\":  4"),
          edited("\"file\"", "\"extra\": 1,\n  \"file\""), edited("\"runs\": 4", "\"runs\": 4.0"),
          edited("\"seed\": 7", "\"seed\": -7"), whole.substr(0, whole.size() - 1) + "\n\n",
          std::string(R"({"ensemble": "0123456789abcdef", "version": "0.1.0", "runs": 4,
                          "axes": ["noise"]})")}) {
        write(kManifestName, text);
        const auto read = readManifest(dir_);
        ASSERT_FALSE(read) << text;
        EXPECT_THAT(read.error(), HasSubstr("was it edited")) << text;
        const auto folder = readFolder(dir_);
        ASSERT_FALSE(folder);
        EXPECT_EQ(folder.error(), read.error());
    }
    write(kManifestName, whole);
    EXPECT_TRUE(readFolder(dir_));
}

/// Tasks started at once on one new folder: the first manifest stays, every task reads it back,
/// and a task of another ensemble is refused rather than mixed in.
TEST_F(EnsembleFolder, TheFirstManifestMadeWinsAndEveryTaskReadsItBack) {
    EnsembleManifest other = manifest();
    other.hash = "fedcba9876543210";
    other.seed = 8;
    const auto first = createManifest(dir_, manifest());
    ASSERT_TRUE(first) << first.error();
    EXPECT_TRUE(checkSameEnsemble("out", *first, manifest()));
    const auto second = createManifest(dir_, other);
    ASSERT_TRUE(second) << second.error();
    EXPECT_EQ(second->hash, "0123456789abcdef");
    const auto refused = checkSameEnsemble("out", *second, other);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("holds the runs of another ensemble file (ensemble "
                                           "0123456789abcdef, this file's is fedcba9876543210)"));
    EXPECT_EQ(read(kManifestName), manifestJson(manifest()));
    // One hash with other values: a forged manifest, refused by the run too.
    other.hash = manifest().hash;
    EXPECT_THAT(checkSameEnsemble("out", *second, other).error(), HasSubstr("was it edited"));
    // No temporary file stays, and no name but the manifest's is made.
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_))
        names.push_back(entry.path().filename().string());
    EXPECT_EQ(names, std::vector<std::string>{kManifestName});

    // Many at once, two ensembles: one manifest, whole, and each task sees the same one.
    for (int trial = 0; trial < 20; ++trial) {
        const fs::path folder = dir_ / ("t" + std::to_string(trial));
        fs::create_directories(folder);
        std::vector<std::string> seen(8);
        {
            std::vector<std::jthread> tasks;
            for (std::size_t t = 0; t < seen.size(); ++t)
                tasks.emplace_back([&, t] {
                    EnsembleManifest mine = manifest();
                    if (t % 2 == 1) mine.hash = "fedcba9876543210";
                    const auto made = createManifest(folder, mine);
                    seen[t] = made ? made->hash : made.error();
                });
        }
        for (const std::string& hash : seen) EXPECT_EQ(hash, seen[0]) << "trial " << trial;
        const auto kept = readManifest(folder);
        ASSERT_TRUE(kept && *kept);
        EXPECT_EQ((*kept)->hash, seen[0]);
    }
}

TEST_F(EnsembleFolder, PartFileNamesAreSpeltOneWay) {
    EXPECT_EQ(partFileName({3, 8, 1}), "part-3of8-w1.csv");
    for (const char* name :
         {"part-0of1-w0.csv", "part-3of8-w15.csv", "part-9999999of10000000-w0.csv"}) {
        const auto part = parsePartFileName(name);
        ASSERT_TRUE(part) << name;
        EXPECT_EQ(partFileName(*part), name);
    }
    for (const char* name :
         {"part-1of1-w0.csv", "part-03of8-w0.csv", "part-0of0-w0.csv", "part-0of1-w.csv",
          "part-0of1-w01.csv", "part-0of1.csv", "part-+0of1-w0.csv", "part-0of1-w0.csv.csv",
          "part-0of10000001-w0.csv", "part-notes.csv", "merged.csv"})
        EXPECT_FALSE(parsePartFileName(name)) << name;
    EXPECT_TRUE(isPartFileName("part-notes.csv"));  // the ensemble's name, though no part file
}

/// Each row is checked against its run: a row another ensemble wrote, or that another shard's
/// file holds, makes the folder refused rather than merged (or counted as done by a run).
TEST_F(EnsembleFolder, EveryRowIsCheckedAgainstItsRun) {
    ASSERT_TRUE(readRows(dir_, manifest()));
    RunRow otherSeed = row(2, true);
    otherSeed.plan.seed += 1;
    RunRow otherReplicate = row(2, true);
    otherReplicate.plan.replicate = 1;
    struct Case {
        std::string name, text, mustSay;
    };
    EnsembleManifest other = manifest();
    other.hash = "fedcba9876543210";
    const Case cases[] = {
        {"part-1of2-w0.csv", rows({row(1, true), row(2, true)}),
         "line 3: run 2 is not of shard 1of2 (the runs whose index % 2 is 1)"},
        {"part-0of1-w0.csv", rows({row(1, true), otherSeed}),
         "line 3: run 2 says seed " + std::to_string(otherSeed.plan.seed) +
             "; this ensemble's run 2 has seed " + std::to_string(row(2, true).plan.seed)},
        {"part-0of1-w0.csv", rows({otherReplicate}), "run 2 says replicate 1; it is replicate 0"},
        {"part-0of1-w0.csv", partFileHeader(other) + "\n" + ensembleCsvRow(row(1, true), true),
         "line 1: the part file of ensemble 'fedcba9876543210', not of this folder's "
         "0123456789abcdef"},
        {"part-0of1-w0.csv", ensembleCsvHeader(manifest().axes, true) + "\n",
         "the part file is not this ensemble's"},
        {"part-00of1-w0.csv", rows({row(1, true)}),
         "is named like a part file but `ensemble run` writes none of that name"},
    };
    for (const Case& c : cases) {
        write(c.name, c.text);
        const auto read = readRows(dir_, manifest());
        ASSERT_FALSE(read) << c.name << "\n" << c.text;
        EXPECT_THAT(read.error(), HasSubstr(c.mustSay));
        EXPECT_THAT(read.error(), HasSubstr(c.name));
        fs::remove(dir_ / c.name);
    }
    // Two ok rows of one run with one seed (a run repeated): both are the run's.
    write("part-0of2-w0.csv", rows({row(2, true, 0.5)}));
    write("part-0of1-w0.csv", rows({row(2, true, 0.25), row(1, false)}));
    auto read = readRows(dir_, manifest());
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ(read->count(), 2);
    EXPECT_EQ(read->row(2)->measures.polarization, 0.25);
}

/// The merge writes through links as OutputFiles does (to a file not made yet too), so its
/// outputs are followed to where they land and compared with the folder and its files.
TEST_F(EnsembleFolder, TheMergeNeverWritesOverTheFoldersFilesEvenThroughLinks) {
    const fs::path folder = dir_ / "ens";
    fs::create_directories(folder);
    std::ofstream(folder / kManifestName) << manifestJson(manifest());
    std::ofstream(folder / "part-0of2-w0.csv") << rows({row(0, true)});
    fs::create_symlink(folder, dir_ / "ens-link");
    fs::create_symlink(folder / "part-1of2-w0.csv", dir_ / "to-a-part-not-made.csv");
    fs::create_symlink("ens-link/manifest.json", dir_ / "to-the-manifest.csv");
    fs::create_symlink(dir_ / "to-a-part-not-made.csv", dir_ / "chain.csv");
    fs::create_hard_link(folder / "part-0of2-w0.csv", dir_ / "hard.csv");
    const std::string refusedPaths[] = {
        (folder / kManifestName).string(),
        (dir_ / "ens-link" / "part-5of9-w0.csv").string(),
        (folder / "." / ".." / "ens" / "part-0of2-w0.csv").string(),
        (folder / ".manifest.json.tmp-1-2").string(),
        (dir_ / "to-a-part-not-made.csv").string(),
        (dir_ / "to-the-manifest.csv").string(),
        (dir_ / "chain.csv").string(),
        (dir_ / "hard.csv").string(),
    };
    for (const std::string& path : refusedPaths) {
        const auto refused = checkNotTheFolders("--csv", path, dir_ / "ens-link");
        ASSERT_FALSE(refused) << path;
        EXPECT_THAT(refused.error(), HasSubstr("is the ensemble folder's")) << path;
    }
    for (const fs::path& path :
         {folder / "merged.csv", dir_ / "merged.csv", dir_ / "part-0of1-w0.csv"})
        EXPECT_TRUE(checkNotTheFolders("--csv", path.string(), folder)) << path;
}

TEST_F(EnsembleFolder, ARunIsNamedByItsAxesAndReplicate) {
    EXPECT_EQ(runName(row(3, true), manifest()), "run 3 (noise = 0.1, replicate 0)");
}

}  // namespace
}  // namespace fishschool
