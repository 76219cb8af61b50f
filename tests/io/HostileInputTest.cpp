// Issue 23's classes of hostile input, at the shared layers that refuse them: the message
// formatter, the number readers, the JSON reading before the keys, the input reader and the
// output writer. scripts/hostile.sh runs the same classes through the programs.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>

#include "core/FlowField.h"
#include "io/ConfigIO.h"
#include "io/OutputFiles.h"
#include "io/StateIO.h"
#include "io/TextFiles.h"
#include "io/TextInput.h"
#include "runs/PhaseSweep.h"

namespace fishschool {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

class TempFolder {
  public:
    TempFolder()
        : path_(fs::temp_directory_path() /
                ("fishschool-hostile-" + std::to_string(::getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempFolder() { fs::remove_all(path_); }
    std::string operator/(const std::string& name) const { return (path_ / name).string(); }
    const fs::path& path() const { return path_; }

  private:
    fs::path path_;
};

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::size_t temporaries(const fs::path& folder) {
    std::size_t n = 0;
    for (const auto& entry : fs::directory_iterator(folder))
        n += entry.path().filename().string().find(".tmp-") != std::string::npos;
    return n;
}

TEST(HostileMessages, QuotedValuesEscapeControlCharactersAndBadBytes) {
    EXPECT_EQ(quote("a\nb\tc\rd"), "'a\\nb\\tc\\rd'");
    EXPECT_EQ(quote("\x1b[31mred"), "'\\x1b[31mred'");
    EXPECT_EQ(quote(std::string("x\0y", 3)), "'x\\x00y'");
    EXPECT_EQ(quote("\x7f"), "'\\x7f'");
    EXPECT_EQ(quote("caf\xc3\xa9"), "'caf\xc3\xa9'");  // UTF-8 stays
    EXPECT_EQ(quote("\xc2\x9b"), "'\\xc2\\x9b'");      // a C1 control (CSI) does not
    EXPECT_EQ(quote("\xff\xfe"), "'\\xff\\xfe'");
    EXPECT_EQ(quote("\xe2\x82"), "'\\xe2\\x82'");           // a cut UTF-8 sequence
    EXPECT_EQ(quote("\xed\xa0\x80"), "'\\xed\\xa0\\x80'");  // a UTF-16 surrogate
    // The limit counts what is shown: escapes are never cut in half.
    EXPECT_EQ(quote("\x1b\x1b\x1b", 9), "'\\x1b\\x1b...' (3 characters)");
    EXPECT_EQ(printable(std::string(5000, '\n'), 10), "\\n\\n\\n\\n\\n... (5000 characters)");
}

TEST(HostileMessages, EveryRefusedFlagValueIsQuotedEscaped) {
    const std::string hostile = "\x1b]0;title\x07" + std::string(100000, 'x');
    for (const std::string& message : {parseWholeNumber("--steps", hostile, 0, 10).error(),
                                       parseFishCounts("--fish", "1," + hostile).error(),
                                       parseNeighborSearchFlag("--neighbors", hostile).error(),
                                       parseFiniteNumber("--from", hostile).error(),
                                       checkOutputPath("--csv", hostile + "/x").error()}) {
        EXPECT_LE(message.size(), 400u);
        EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
        EXPECT_EQ(message.find('\x07'), std::string::npos) << message;
        EXPECT_THAT(message, HasSubstr("\\x1b]0;title\\x07")) << message;
    }
}

TEST(HostileNumbers, FiniteNumbersSayWhyTheyAreOutOfRange) {
    EXPECT_EQ(*parseFiniteNumber("--from", "-1e308"), -1e308);
    EXPECT_THAT(parseFiniteNumber("--from", "1e-400").error(),
                HasSubstr("too close to 0 for a double"));
    EXPECT_THAT(parseFiniteNumber("--from", "-1e-400").error(),
                HasSubstr("too close to 0 for a double"));
    EXPECT_THAT(parseFiniteNumber("--to", "1e400").error(), HasSubstr("beyond the range"));
    EXPECT_THAT(parseFiniteNumber("--to", "nan").error(), HasSubstr("finite decimal number"));
    EXPECT_EQ(formatNumber(-0.0), "0");
}

TEST(HostileNumbers, ASweepOverTheWholeDoubleRangeStaysFinite) {
    const auto values = sweepValues(-1e308, 1e308, 5);
    ASSERT_EQ(values.size(), 5u);
    EXPECT_EQ(values.front(), -1e308);
    EXPECT_EQ(values.back(), 1e308);
    EXPECT_EQ(values[2], 0.0);
    for (double v : values) EXPECT_TRUE(std::isfinite(v)) << v;
    EXPECT_EQ(sweepValues(0, 12, 13)[7], 7.0);  // ordinary ranges as before
}

TEST(HostileNumbers, AValueBeyondAFloatNamesItselfAndTheRange) {
    const std::string range = "is beyond the range of a float (-3.4028235e+38 to 3.4028235e+38)";
    // A varied float key (phase --vary, ensemble axes, the Python module's set), a width.
    const auto varied = withVaried(SimParams{}, "--vary", "kCohesion", -1e308);
    ASSERT_FALSE(varied);
    EXPECT_THAT(varied.error(), HasSubstr("kCohesion"));
    EXPECT_THAT(varied.error(), HasSubstr("'-1e+308' " + range));
    const auto width = withVaried(SimParams{}, "--vary", "orientation-width", 1e308);
    ASSERT_FALSE(width);
    EXPECT_THAT(width.error(), HasSubstr("orientation-width = 1e+308 " + range));
    // A config key, and a number beyond the double range.
    EXPECT_THAT(parseConfig(R"({"kCohesion": 1e39})", "c.json").error(),
                HasSubstr("'1e+39' " + range));
    EXPECT_THAT(parseConfig(R"({"dt": 1e400})", "c.json").error(), HasSubstr(range));
    // A state file's value.
    EXPECT_THAT(parseStateCsv("x,y,z,vx,vy,vz\n1,2,3,1e39,0,0\n", SimParams{}, "s.csv").error(),
                HasSubstr("'1e39' " + range));
}

TEST(HostileConfig, DeepNestingIsRefusedUnderAnyKey) {
    for (const std::string key : {"dt", "bounds", "rocks", "steering", "unknown"}) {
        const std::string json =
            "{\"" + key + "\": " + std::string(200000, '[') + std::string(200000, ']') + "}";
        const auto p = parseConfig(json, "deep.json");
        ASSERT_FALSE(p) << key;
        EXPECT_THAT(p.error(), HasSubstr("nest more than 16 deep")) << key;
        EXPECT_LE(p.error().size(), 400u);
    }
    // At 16 the nesting is read, and refused for what it is.
    const std::string sixteen = "{\"rocks\": " + std::string(15, '[') + std::string(15, ']') + "}";
    EXPECT_THAT(parseConfig(sixteen, "c.json").error(), Not(HasSubstr("nest")));
}

TEST(HostileConfig, NulBytesAreRefusedWherever) {
    for (const std::string& json : {std::string("{\"fishCount\": 10}\0{\"dt\": -1}", 29),
                                    std::string("\0{}", 3), std::string("{\"d\0t\": 1}", 10)}) {
        const auto p = parseConfig(json, "nul.json");
        ASSERT_FALSE(p);
        EXPECT_THAT(p.error(), HasSubstr("is a NUL byte"));
    }
}

TEST(HostileConfig, NumbersBelowTheDoubleRangeAreRefusedNotZero) {
    for (const char* tiny : {"1e-400", "-1e-400", "0.5e-330", "1E-99999"}) {
        const auto p = parseConfig(std::string("{\"kCohesion\": ") + tiny + "}", "c.json");
        ASSERT_FALSE(p) << tiny;
        EXPECT_THAT(p.error(), HasSubstr("key 'kCohesion': '")) << tiny;
        EXPECT_THAT(p.error(), HasSubstr("too close to 0")) << tiny;
    }
    const auto inVector = parseConfig(R"({"target": [1, 1e-400, 1]})", "c.json");
    ASSERT_FALSE(inVector);
    EXPECT_THAT(inVector.error(), HasSubstr("target[1]"));
    // A true zero, however written, is 0.
    const auto zero = parseConfig(R"({"kCohesion": 0e-400, "kAlignment": -0.0e5})", "c.json");
    ASSERT_TRUE(zero) << zero.error();
    EXPECT_EQ(zero->kCohesion, 0.0f);
}

TEST(HostileConfig, MinusZeroIsZeroForEveryWholeNumberKey) {
    const auto p = parseConfig(R"({"seed": -0, "fishCount": -0, "leaders": -0})", "c.json");
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p->seed, 0u);
    EXPECT_EQ(p->fishCount, 0);
}

TEST(HostileFiles, AFifoIsRefusedWithoutWaitingForAWriter) {
    TempFolder dir;
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    // A read that blocked would never return: it runs apart and must end at once.
    auto read = std::async(std::launch::async,
                           [&] { return readTextFile(dir / "fifo", 1024, "config file"); });
    ASSERT_EQ(read.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    const auto text = read.get();
    ASSERT_FALSE(text);
    EXPECT_THAT(text.error(), HasSubstr("is not a regular file"));
    EXPECT_FALSE(readTextFile("/dev/zero", 1024, "state file"));
}

TEST(HostileFiles, AFileIsReadToItsEndWhateverItsSizeSaysAndNoFurtherThanTheLimit) {
    // procfs says 0 bytes and has text.
    const auto status = readTextFile("/proc/self/status", 1 << 20, "config file");
    ASSERT_TRUE(status) << status.error();
    EXPECT_THAT(*status, HasSubstr("Pid:"));
    const auto small = readTextFile("/proc/self/status", 16, "config file");
    ASSERT_FALSE(small);
    EXPECT_THAT(small.error(), HasSubstr("at most 16 bytes"));
}

TEST(HostileFlowField, AFlatHugeTankKeepsItsNodesBounded) {
    SimParams p;
    p.bounds = {1e6f, 1e6f, 2.0f};
    p.rocks.clear();
    p.kTarget = 1.0f;
    p.targetPath = TargetPath::FlowField;
    p.target = {0.0f, 0.0f, 0.0f};
    for (const glm::vec3 bounds :
         {glm::vec3(1e6f, 1e6f, 2.0f), glm::vec3(2.0f, 1e6f, 1e6f), glm::vec3(1e6f, 1.0f, 1.0f)}) {
        p.bounds = bounds;
        const auto field = FlowField::build(p);
        const glm::ivec3 d = field->dims();
        EXPECT_LE(std::size_t(d.x) * d.y * d.z, FlowField::kMaxNodes);
        EXPECT_GE(std::min({d.x, d.y, d.z}), 2);
    }
}

TEST(HostileOutputs, TwoOutputsOnOneFileAreRefusedUnderAnySpelling) {
    TempFolder dir;
    std::ofstream(dir / "a.csv") << "old";
    fs::create_hard_link(dir / "a.csv", dir / "hard.csv");
    fs::create_symlink(dir / "a.csv", dir / "soft.csv");
    fs::create_directories(dir / "sub");
    for (const std::string& other : {dir / "a.csv", dir / "hard.csv", dir / "soft.csv",
                                     dir / "sub/../a.csv", (dir.path() / "." / "a.csv").string()}) {
        OutputFiles outputs;
        ASSERT_TRUE(outputs.add("--state-out", dir / "a.csv"));
        const auto second = outputs.add("--metrics", other);
        ASSERT_FALSE(second) << other;
        EXPECT_THAT(second.error(), HasSubstr("is also the file of --state-out")) << other;
    }
    EXPECT_EQ(readAll(dir / "a.csv"), "old");
    EXPECT_EQ(temporaries(dir.path()), 0u);
}

TEST(HostileOutputs, DevicesFifosAndLongNamesAreRefusedBeforeTheRun) {
    TempFolder dir;
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    OutputFiles outputs;
    for (const std::string& target : {std::string("/dev/null"), dir / "fifo"}) {
        const auto refused = outputs.add("--state-out", target);
        ASSERT_FALSE(refused) << target;
        EXPECT_THAT(refused.error(), HasSubstr("not a regular file"));
    }
    const auto tooLong = outputs.add("--csv", dir / (std::string(300, 'n') + ".csv"));
    ASSERT_FALSE(tooLong);
    EXPECT_THAT(tooLong.error(), HasSubstr("too long for the file system"));
    // The longest name the folder takes is fine: the temporary file's name is short.
    const std::string longest = dir / (std::string(251, 'n') + ".csv");
    ASSERT_TRUE(outputs.add("--metrics", longest));
    ASSERT_TRUE(outputs.write("--metrics", "row\n"));
    ASSERT_TRUE(outputs.commit());
    EXPECT_EQ(readAll(longest), "row\n");
    EXPECT_TRUE(fs::is_fifo(dir / "fifo"));
}

/// The sizes of the files this process holds open in `folder` that have no name (O_TMPFILE).
std::vector<std::uintmax_t> unnamedFilesIn(const fs::path& folder) {
    std::vector<std::uintmax_t> sizes;
    for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        const std::string target = fs::read_symlink(entry.path(), ec).string();
        if (ec || !target.starts_with(folder.string() + "/#") || !target.ends_with("(deleted)"))
            continue;
        struct stat info {};
        if (::stat(entry.path().c_str(), &info) == 0) sizes.push_back(std::uintmax_t(info.st_size));
    }
    return sizes;
}

TEST(HostileOutputs, NothingIsReplacedUntilTheWholeRunCommits) {
    TempFolder dir;
    std::ofstream(dir / "state.csv") << "old state";
    std::ofstream(dir / "metrics.csv") << "old metrics";
    {
        OutputFiles outputs;
        ASSERT_TRUE(outputs.add("--state-out", dir / "state.csv"));
        ASSERT_TRUE(outputs.add("--metrics", dir / "metrics.csv"));
        // Rows stream to the file as they come: past the buffer they are on disk, in a file that
        // has no name yet (O_TMPFILE), so no ending of the process can leave it behind.
        const std::string row(1000, 'r');
        for (int i = 0; i < 200; ++i) ASSERT_TRUE(outputs.write("--metrics", row + "\n"));
        EXPECT_EQ(temporaries(dir.path()), 0u);
        EXPECT_EQ(unnamedFilesIn(dir.path()).size(), 2u);
        std::uintmax_t onDisk = 0;
        for (const std::uintmax_t size : unnamedFilesIn(dir.path()))
            onDisk = std::max(onDisk, size);
        EXPECT_GE(onDisk, 100000u);
        EXPECT_EQ(readAll(dir / "metrics.csv"), "old metrics");
        // The run fails here: no commit.
    }
    EXPECT_EQ(readAll(dir / "state.csv"), "old state");
    EXPECT_EQ(readAll(dir / "metrics.csv"), "old metrics");
    EXPECT_EQ(temporaries(dir.path()), 0u);

    OutputFiles outputs;
    ASSERT_TRUE(outputs.add("--state-out", dir / "state.csv"));
    ASSERT_TRUE(outputs.add("--metrics", dir / "metrics.csv"));
    ASSERT_TRUE(outputs.write("--state-out", "new state"));
    ASSERT_TRUE(outputs.write("--metrics", "new metrics"));
    ASSERT_TRUE(outputs.commit());
    EXPECT_EQ(readAll(dir / "state.csv"), "new state");
    EXPECT_EQ(readAll(dir / "metrics.csv"), "new metrics");
    EXPECT_EQ(temporaries(dir.path()), 0u);
}

TEST(HostileOutputs, ASetThatFailsMidwayIsPutBackAsItWas) {
    TempFolder dir;
    std::ofstream(dir / "a.csv") << "old a";
    OutputFiles outputs;
    ASSERT_TRUE(outputs.add("--state-out", dir / "a.csv"));
    ASSERT_TRUE(outputs.add("--metrics", dir / "new.csv"));
    ASSERT_TRUE(outputs.add("--csv", dir / "b.csv"));
    ASSERT_TRUE(outputs.write("--state-out", "new a"));
    ASSERT_TRUE(outputs.write("--metrics", "new file"));
    // After the checks, the last target becomes a folder: its rename fails once the first two
    // are in place, and they are put back.
    fs::create_directory(dir / "b.csv");
    const auto committed = outputs.commit();
    ASSERT_FALSE(committed);
    EXPECT_THAT(committed.error(), HasSubstr("b.csv"));
    EXPECT_THAT(committed.error(), HasSubstr("put back as they were"));
    EXPECT_EQ(readAll(dir / "a.csv"), "old a");
    EXPECT_FALSE(fs::exists(dir / "new.csv"));
    EXPECT_TRUE(fs::is_directory(dir / "b.csv"));
    EXPECT_EQ(temporaries(dir.path()), 0u);
}

TEST(HostileOutputs, AnImmutableTargetIsRefusedBeforeTheRun) {
    TempFolder dir;
    std::ofstream(dir / "locked.csv") << "kept";
    const int fd = ::open((dir / "locked.csv").c_str(), O_RDONLY);
    int flags = FS_IMMUTABLE_FL;
    if (fd < 0 || ::ioctl(fd, FS_IOC_SETFLAGS, &flags) != 0) {
        if (fd >= 0) ::close(fd);
        GTEST_SKIP() << "this user or file system cannot make a file immutable";
    }
    OutputFiles outputs;
    const auto refused = outputs.add("--metrics", dir / "locked.csv");
    flags = 0;
    ::ioctl(fd, FS_IOC_SETFLAGS, &flags);
    ::close(fd);
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("immutable"));
    EXPECT_EQ(readAll(dir / "locked.csv"), "kept");
}

TEST(HostileOutputs, AnAtomicWriteNeverMovesAFolderAside) {
    TempFolder dir;
    fs::create_directory(dir / "taken");
    const auto refused = writeFileAtomically(dir / "taken", "x");
    ASSERT_FALSE(refused);
    EXPECT_THAT(refused.error(), HasSubstr("folder"));
    EXPECT_TRUE(fs::is_directory(dir / "taken"));
    EXPECT_EQ(temporaries(dir.path()), 0u);
}

}  // namespace
}  // namespace fishschool
