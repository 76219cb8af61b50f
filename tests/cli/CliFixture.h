#pragma once

// The fixture of the command-line tests (CliTest.cpp, EnsembleCliTest.cpp): a folder of its own
// for each test, and fishschool-cli run as a user runs it, its output captured.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct CliRun {
    int status = -1;
    std::string out, err;
};

class Cli : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("fishschool_cli_" + std::to_string(::getpid()) + "_" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    static std::string read(const std::string& file) {
        std::ifstream in(file);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }

    void write(const std::string& name, const std::string& text) const {
        std::ofstream(path(name)) << text;
    }

    CliRun cli(const std::string& args) const {
        const std::string command = std::string(FISHSCHOOL_CLI_PATH) + " " + args + " >" +
                                    path("stdout.txt") + " 2>" + path("stderr.txt");
        const int raw = std::system(command.c_str());
        CliRun run;
        run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
        run.out = read(path("stdout.txt"));
        run.err = read(path("stderr.txt"));
        return run;
    }

    /// The names in the test folder, less the captured output.
    std::set<std::string> listing() const {
        std::set<std::string> names;
        for (const auto& entry : fs::directory_iterator(dir_)) {
            const std::string name = entry.path().filename().string();
            if (name != "stdout.txt" && name != "stderr.txt") names.insert(name);
        }
        return names;
    }

    fs::path dir_;
};

}  // namespace
