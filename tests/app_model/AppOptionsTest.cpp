// The app's flags as parseAppOptions reads them, without a window: what is accepted, what each
// refusal names, and the outputs checked before a window would open.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app_model/AppLimits.h"
#include "app_model/AppOptions.h"
#include "backends/BackendRegistry.h"

namespace fishschool::app {
namespace {

using ::testing::HasSubstr;

Result<AppOptions> parse(std::vector<std::string> args) {
    args.insert(args.begin(), "fishschool");
    std::vector<const char*> argv;
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    return parseAppOptions(static_cast<int>(argv.size()), argv.data(), /*checkTools=*/false);
}

std::string refusal(std::vector<std::string> args) {
    const auto options = parse(std::move(args));
    return options ? std::string("accepted") : options.error().message();
}

TEST(AppOptions, NoFlagsGiveTheDefaults) {
    const auto options = parse({});
    ASSERT_TRUE(options) << options.error();
    EXPECT_FALSE(options->backend);
    EXPECT_EQ(options->density, Density::Fixed);
    EXPECT_EQ(options->frames, 0);
    EXPECT_TRUE(options->vsync);
    EXPECT_EQ(options->msaaSamples, 4);
    EXPECT_TRUE(options->help.empty());
}

TEST(AppOptions, ASweepReadsItsCountsAndBackendsAndTurnsVsyncOff) {
    const auto options = parse({"--sweep", "100,2000", "--sweep-backends", "tbb,cpu", "--csv",
                                "fps.csv", "--sweep-seconds", "0.5", "--density", "tank"});
    ASSERT_TRUE(options) << options.error();
    EXPECT_EQ(options->sweepFish, (std::vector<std::int64_t>{100, 2000}));
    EXPECT_EQ(options->sweepBackends,
              (std::vector<BackendKind>{BackendKind::Tbb, BackendKind::Cpu}));
    EXPECT_EQ(options->sweepSeconds, 0.5);
    EXPECT_EQ(options->density, Density::Tank);
    EXPECT_FALSE(options->vsync) << "a sweep measures the machine, not the display";
}

TEST(AppOptions, ValuesOutOfRangeNameTheFlag) {
    EXPECT_THAT(refusal({"--frames", "0"}), HasSubstr("--frames"));
    EXPECT_THAT(refusal({"--width", "63"}), HasSubstr("--width"));
    EXPECT_THAT(refusal({"--msaa", "3"}), HasSubstr("--msaa"));
    EXPECT_THAT(refusal({"--backend", "cuda"}), HasSubstr("must be cpu, tbb or gpu"));
    EXPECT_THAT(refusal({"--sweep", "100", "--csv", "f.csv", "--sweep-seconds", "nan"}),
                HasSubstr("--sweep-seconds"));
    EXPECT_THAT(refusal({"--sweep", "100,x", "--csv", "f.csv"}), HasSubstr("--sweep"));
    EXPECT_THAT(refusal({"--record", "a.webm"}), HasSubstr(".mp4, .m4v, .mov or .mkv"));
}

// A misspelt flag was CLI11's "The following arguments were not expected: 100 --fsh".
TEST(AppOptions, AnUnknownFlagIsNamedWithTheFlagMeant) {
    EXPECT_EQ(refusal({"--fsh", "100"}),
              "unknown flag '--fsh'; did you mean --fish? (see fishschool --help)");
    EXPECT_EQ(refusal({"--frames", "1", "--no-vsnyc"}),
              "unknown flag '--no-vsnyc'; did you mean --no-vsync? (see fishschool --help)");
    EXPECT_EQ(refusal({"--teleport"}), "unknown flag '--teleport' (see fishschool --help)");
    const auto version = parse({"--version"});
    ASSERT_TRUE(version) << version.error();
    EXPECT_THAT(version->help, ::testing::StartsWith("fishschool 0."));
}

// Unset, the app colours a school of species by species and any other by speed.
TEST(AppOptions, TheColourIsLeftToTheSchoolUnlessAskedFor) {
    EXPECT_FALSE(parse({})->color);
    for (const char* color : {"speed", "heading", "species"}) {
        const auto options = parse({"--color", color});
        ASSERT_TRUE(options) << options.error();
        EXPECT_EQ(options->color, color);
    }
    EXPECT_THAT(refusal({"--color", "pink"}), HasSubstr("--color"));
}

TEST(AppOptions, TheCameraFollowsOnlyWhenAsked) {
    EXPECT_FALSE(parse({})->follow);
    for (const char* follow : {"school", "group"}) {
        const auto options = parse({"--follow", follow});
        ASSERT_TRUE(options) << options.error();
        EXPECT_EQ(options->follow, follow);
    }
    EXPECT_THAT(refusal({"--follow", "fish"}), HasSubstr("--follow"));
}

// --fish 5000000 was accepted though the panel refuses more than 1,000,000, and ran
// at a frame a minute. Every way to give the app a count has the one limit (AppLimits.h).
TEST(AppOptions, AFishCountBeyondTheAppsLimitIsRefusedNamingTheRange) {
    EXPECT_EQ(refusal({"--fish", "5000000"}),
              "--fish: 5000000 is not allowed; the app runs 0 to 1000000 fish (fishschool-cli "
              "runs up to 16000000 without a window)");
    EXPECT_EQ(refusal({"--fish", std::to_string(kMaxAppFishCount)}), "accepted");
    EXPECT_EQ(refusal({"--fish", std::to_string(kMaxAppFishCount + 1)}).rfind("--fish: ", 0), 0u);
    EXPECT_THAT(refusal({"--sweep", "1000,2000000", "--csv", "f.csv"}),
                HasSubstr("--sweep: 2000000 is not allowed; the app runs 0 to 1000000 fish"));
    EXPECT_THAT(refusal({"--fish", "2.5"}), HasSubstr("--fish: '2.5' is not allowed"));
}

// On llvmpipe the default 4x multisampling drew 14 FPS against 43 without it.
TEST(AppOptions, SoftwareGlGetsNoMultisamplingUnlessAskedFor) {
    for (const char* software : {"llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe",
                                 "Google SwiftShader", "Mesa Offscreen (llvmpipe)", "GDI Generic"})
        EXPECT_TRUE(isSoftwareRenderer(software)) << software;
    for (const char* hardware :
         {"NVIDIA GeForce RTX 3080/PCIe/SSE2", "AMD Radeon RX 6800 (radeonsi)",
          "Mesa Intel(R) UHD Graphics 620 (KBL GT2)", ""})
        EXPECT_FALSE(isSoftwareRenderer(hardware)) << hardware;
    const auto defaults = parse({});
    ASSERT_TRUE(defaults);
    EXPECT_FALSE(defaults->msaaGiven);
    EXPECT_EQ(msaaSamplesFor(*defaults, "llvmpipe (LLVM 15.0.6, 256 bits)"), 0);
    EXPECT_EQ(msaaSamplesFor(*defaults, "NVIDIA GeForce RTX 3080/PCIe/SSE2"), 4);
    const auto asked = parse({"--msaa", "4"});
    ASSERT_TRUE(asked);
    EXPECT_EQ(msaaSamplesFor(*asked, "llvmpipe (LLVM 15.0.6, 256 bits)"), 4);
}

TEST(AppOptions, NoConfirmQuitAndRecordCleanAreRead) {
    const auto defaults = parse({});
    ASSERT_TRUE(defaults);
    EXPECT_FALSE(defaults->noConfirmQuit);
    EXPECT_FALSE(defaults->recordClean);
    const auto given = parse({"--no-confirm-quit", "--record", "v.mp4", "--record-clean"});
    ASSERT_TRUE(given) << given.error();
    EXPECT_TRUE(given->noConfirmQuit);
    EXPECT_TRUE(given->recordClean);
}

TEST(AppOptions, FlagsThatNeedOrExcludeOthersSaySo) {
    EXPECT_EQ(refusal({"--sweep", "100"}), "--sweep needs --csv FILE");
    EXPECT_EQ(refusal({"--csv", "f.csv"}),
              "--csv is where --sweep writes; give --sweep FISH_LIST too");
    EXPECT_EQ(refusal({"--record-fps", "30"}), "--record-fps needs --record FILE");
    EXPECT_EQ(refusal({"--record-clean"}), "--record-clean needs --record FILE");
    EXPECT_EQ(refusal({"--state-in", "s.csv", "--fish", "10"}),
              "--fish cannot be used with --state-in: the fish are the file's rows");
    EXPECT_EQ(refusal({"--sweep", "100", "--csv", "f.csv", "--frames", "5"}),
              "--frames cannot be used with --sweep: the sweep ends the run");
}

TEST(AppOptions, OutputsAreCheckedBeforeTheRun) {
    // Two outputs on one file: one would be lost.
    EXPECT_THAT(refusal({"--frames", "1", "--screenshot", "x.png", "--state-out", "x.png"}),
                HasSubstr("--state-out"));
    // An output over an input.
    const auto config = std::filesystem::temp_directory_path() /
                        ("app_options_test_config_" + std::to_string(::getpid()) + ".json");
    std::ofstream(config) << "{}";
    EXPECT_THAT(refusal({"--config", config.string(), "--config-out", config.string()}),
                HasSubstr("--config-out"));
    std::filesystem::remove(config);
    // A folder is no file to write.
    const std::string folder = std::filesystem::temp_directory_path().string();
    EXPECT_THAT(refusal({"--config-out", folder}), HasSubstr("--config-out"));
    // --state-in and --state-out may be one file: the write comes after the read.
    EXPECT_TRUE(parse({"--state-in", "s.csv", "--state-out", "s.csv"}));
}

TEST(AppOptions, ABadGpuBufferLimitIsRefusedBeforeTheWindow) {
    ::setenv("FISHSCHOOL_GPU_MAX_BUFFER_BYTES", "lots", 1);
    const std::string refused = refusal({});
    ::unsetenv("FISHSCHOOL_GPU_MAX_BUFFER_BYTES");
    EXPECT_THAT(refused, HasSubstr("FISHSCHOOL_GPU_MAX_BUFFER_BYTES"));
    EXPECT_TRUE(parse({}));
}

// The video's file has no name while ffmpeg writes it (VideoRecorder), so the container is told
// to ffmpeg rather than left to the extension: the one ffmpeg would have picked from it.
TEST(AppOptions, EachVideoExtensionHasTheMuxerFfmpegWouldPick) {
    EXPECT_EQ(videoMuxer("a.mp4"), "mp4");
    EXPECT_EQ(videoMuxer("dir.mkv/A.M4V"), "ipod");
    EXPECT_EQ(videoMuxer("take:1.MOV"), "mov");
    EXPECT_EQ(videoMuxer("pipe:/v.mkv"), "matroska");
    for (const char* refused : {"a.webm", "a", "a.mp4.txt", ".mp4", "a.mp"})
        EXPECT_FALSE(videoMuxer(refused)) << refused;
    EXPECT_EQ(refusal({"--record", "a.webm"}).rfind("--record: 'a.webm' is not allowed", 0), 0u);
    // A name that ffmpeg would read as a URL is a file name like any other.
    EXPECT_EQ(refusal({"--frames", "1", "--record", "take:1.mp4"}), "accepted");
}

TEST(AppOptions, HelpIsTextToPrintNotAnError) {
    const auto options = parse({"--help"});
    ASSERT_TRUE(options) << options.error();
    EXPECT_THAT(options->help, HasSubstr("--sweep-warmup-steps"));
}

}  // namespace
}  // namespace fishschool::app
