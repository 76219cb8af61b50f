#pragma once

// The driver shared by the fuzz targets. Each target defines fuzzOne(), which must return
// normally for every input and abort (fuzzCheck) when a property it asserts is broken.
//
// Built by afl-g++-fast (scripts/fuzz.sh), main() with no argument runs AFL++'s persistent loop:
// many inputs per process, from shared memory. Given files, under any compiler, it runs each once
// (the seed corpus in ctest, or a crash to reproduce).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace fishschool::fuzz {

/// The longest error message a user should see: about 300 characters.
inline constexpr std::size_t kMaxMessageLength = 320;

/// Stops the run with `what` when `ok` is false: AFL++ keeps the input as a crash. Views, not
/// strings: a check in a loop over millions of values (a track's positions) must not allocate
/// each time, or a short input that reads into many values runs past AFL++'s time limit.
inline void fuzzCheck(bool ok, std::string_view what, std::string_view detail = {}) {
    if (ok) return;
    const std::string message =
        "fuzz property broken: " + std::string(what) + "\n" + std::string(detail) + "\n";
    std::fputs(message.c_str(), stderr);
    std::abort();
}

/// An error message a user can read: not empty, one line of at most kMaxMessageLength characters
/// (the CLI prints it after "error: ").
inline void checkMessage(const std::string& message) {
    fuzzCheck(!message.empty(), "an error message is empty");
    fuzzCheck(message.size() <= kMaxMessageLength, "an error message is too long",
              message.substr(0, 400));
}

/// A command line from the input, one argument a line after `program` (at most `maxArguments`);
/// empty when the input names a device or kernel file, which could block or never end and is
/// no input a test can own.
inline std::vector<std::string> argumentLines(std::string_view input, const char* program,
                                              std::size_t maxArguments) {
    for (std::string_view special : {"/dev", "/proc", "/sys"})
        if (input.find(special) != std::string_view::npos) return {};
    std::vector<std::string> arguments{program};
    while (!input.empty() && arguments.size() <= maxArguments) {
        const std::size_t end = std::min(input.find('\n'), input.size());
        arguments.emplace_back(input.substr(0, end));
        input.remove_prefix(std::min(end + 1, input.size()));
    }
    return arguments;
}

}  // namespace fishschool::fuzz

/// Defined by each target.
void fuzzOne(std::string_view input);

/// Runs fuzzOne() on each file named on the command line: the seed corpus in ctest, or a crash
/// to reproduce.
inline int fuzzFiles(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s INPUT_FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; ++i) {
        std::ifstream in(argv[i], std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "cannot read %s\n", argv[i]);
            return 2;
        }
        const std::string input{std::istreambuf_iterator<char>(in), {}};
        fuzzOne(input);
    }
    return 0;
}

#ifdef __AFL_FUZZ_TESTCASE_LEN
#include <unistd.h>  // AFL++'s macros call read()

// AFL++'s macros are GNU statement expressions.
#pragma GCC diagnostic ignored "-Wpedantic"
__AFL_FUZZ_INIT();

// Files named on the command line are run as in a plain build: a crash AFL++ found replays
// from the fuzzing binary itself.
int main(int argc, char** argv) {
    if (argc > 1) return fuzzFiles(argc, argv);
    __AFL_INIT();
    const unsigned char* buffer = __AFL_FUZZ_TESTCASE_BUF;
    while (__AFL_LOOP(10000)) {
        const auto length = static_cast<std::size_t>(__AFL_FUZZ_TESTCASE_LEN);
        fuzzOne(std::string_view(reinterpret_cast<const char*>(buffer), length));
    }
    return 0;
}
#else
int main(int argc, char** argv) {
    return fuzzFiles(argc, argv);
}
#endif
