// The file a video is written to while it is recorded: it has no name, so that no ending of the
// app leaves it behind, yet ffmpeg, given only /proc/self/fd/N, can open, write and seek it.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "app/VideoRecorder.h"

namespace fishschool::app {
namespace {

namespace fs = std::filesystem;

class AnonymousFile : public ::testing::TestWithParam<bool> {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("fishschool_video_" + std::to_string(::getpid()) + "_" +
                                            std::to_string(GetParam()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    bool empty() const { return fs::is_empty(dir_); }

    fs::path dir_;
};

TEST_P(AnonymousFile, HasNoNameYetTakesWhatIsWrittenThroughProc) {
    const auto fd = createAnonymousFile(dir_, "video.mp4", /*allowTmpfile=*/GetParam());
    ASSERT_TRUE(fd) << fd.error();
    EXPECT_TRUE(empty()) << "the file has a name in the folder";
    EXPECT_NE(::fcntl(*fd, F_GETFD) & FD_CLOEXEC, 0) << "only ffmpeg is to get it";

    // As ffmpeg opens `file:/proc/self/fd/N` (its own N, inherited): a new open file of its own,
    // truncated, written, sought back and patched, as the mp4 muxer does with its header.
    const std::string self = "/proc/self/fd/" + std::to_string(*fd);
    const int writer = ::open(self.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    ASSERT_GE(writer, 0) << std::strerror(errno);
    ASSERT_EQ(::write(writer, "xxxx body", 9), 9);
    ASSERT_EQ(::pwrite(writer, "head", 4, 0), 4);
    ::close(writer);

    char read[16] = {};
    EXPECT_EQ(::pread(*fd, read, sizeof read, 0), 9);
    EXPECT_EQ(std::string(read), "head body");
    EXPECT_TRUE(empty());
    ::close(*fd);
    EXPECT_TRUE(empty());
}

TEST_P(AnonymousFile, AProcessKilledWhileWritingLeavesNothing) {
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        const auto fd = createAnonymousFile(dir_, "video.mp4", GetParam());
        if (!fd || ::write(*fd, "frames", 6) != 6) ::_exit(1);
        if (::write(ready[1], "r", 1) != 1) ::_exit(1);
        ::pause();  // killed here, as the app by a signal while it records
        ::_exit(1);
    }
    ::close(ready[1]);
    char byte = 0;
    ASSERT_EQ(::read(ready[0], &byte, 1), 1);
    ::close(ready[0]);
    // Once the file is made and written, the folder shows nothing (the fallback's name lived
    // only between its creation and its unlinking); then the kill.
    for (int k = 0; k < 50; ++k) {
        EXPECT_TRUE(empty());
        ::usleep(1000);
    }
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status));
    EXPECT_TRUE(empty());
}

TEST_P(AnonymousFile, AFolderItCannotWriteInIsNamed) {
    const auto fd = createAnonymousFile(dir_ / "missing", "video.mp4", GetParam());
    ASSERT_FALSE(fd);
    EXPECT_NE(fd.error().find("missing'"), std::string::npos) << fd.error();
}

INSTANTIATE_TEST_SUITE_P(TmpfileOrNamedAndUnlinked, AnonymousFile, ::testing::Bool(),
                         [](const auto& info) {
                             return std::string(info.param ? "Tmpfile" : "NamedThenUnlinked");
                         });

}  // namespace
}  // namespace fishschool::app
