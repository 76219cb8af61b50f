// An ensemble's output folder without the CLI: its manifest, its part files read a line at a
// time, the row kept for each run, and a part file opened for appending.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
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
        return {"0123456789abcdef", "0.1.0", runs, {{"noise", {}}}};
    }
    static RunRow row(std::int64_t index, bool ok, double polarization = 0.5) {
        RunRow r;
        r.plan = {index, {0.1}, 0, 1000 + static_cast<std::uint64_t>(index)};
        r.ok = ok;
        r.message = ok ? "" : "it failed";
        r.steps = 10;
        r.measures.polarization = polarization;
        return r;
    }
    static std::string header() { return ensembleCsvHeader(manifest().axes, true); }

    fs::path dir_;
};

TEST_F(EnsembleFolder, AManifestReadsBackAsItWasWritten) {
    EXPECT_FALSE(*readManifest(dir_));  // none yet
    write(kManifestName, manifestJson(manifest(), "e.json"));
    const auto read = readManifest(dir_);
    ASSERT_TRUE(read && *read) << (read ? "" : read.error());
    EXPECT_EQ((*read)->hash, "0123456789abcdef");
    EXPECT_EQ((*read)->runs, 4);
    ASSERT_EQ((*read)->axes.size(), 1u);
    EXPECT_EQ((*read)->axes[0].key, "noise");
}

TEST_F(EnsembleFolder, AManifestThatEnsembleRunDidNotWriteIsRefused) {
    write(kManifestName,
          R"({"ensemble": "\u001b[31m", "version": "0.1.0", "runs": 4, "axes": []})");
    EXPECT_THAT(readManifest(dir_).error(), HasSubstr("was it edited?"));
    write(kManifestName, R"({"ensemble": "abc", "version": "0.1.0", "runs": 4, "axes": ["nope"]})");
    EXPECT_THAT(readManifest(dir_).error(), HasSubstr("was it edited?"));
    fs::remove(dir_ / kManifestName);
    write("elsewhere.json", manifestJson(manifest(), "e.json"));
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
    write("part-0of2-w0.csv", header() + "\n" + ensembleCsvRow(row(0, false), true) +
                                  ensembleCsvRow(row(1, true, 0.25), true));
    write("part-1of2-w0.csv", header() + "\n" + ensembleCsvRow(row(0, true, 0.75), true) +
                                  ensembleCsvRow(row(1, true, 0.125), true));
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
    write("part-0of1-w0.csv", header() + "\n" + ensembleCsvRow(row(9, true), true));
    EXPECT_THAT(readRows(dir_, manifest()).error(), HasSubstr("beyond the ensemble's 4 runs"));
    fs::remove(dir_ / "part-0of1-w0.csv");
    write("rows.csv", header() + "\n" + ensembleCsvRow(row(1, true), true));
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

TEST_F(EnsembleFolder, ARunIsNamedByItsAxesAndReplicate) {
    EXPECT_EQ(runName(row(3, true), manifest()), "run 3 (noise = 0.1, replicate 0)");
}

}  // namespace
}  // namespace fishschool
