#pragma once

#include <filesystem>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fishschool/Result.h"

namespace fishschool {

/// Checks, before a long run, that `path` could be written: its folder exists and is writable,
/// the file system takes its name (not too long), and no folder, device, FIFO or socket is in
/// its place (a rename would replace it with a regular file). The error names `what` and the
/// path. OutputFiles (OutputFiles.h) checks every output of a run with it.
[[nodiscard]] Result<void> checkOutputPath(std::string_view what, const std::string& path);

/// An input file a command reads: its flag and path (empty: not given).
struct NamedInput {
    std::string_view flag;
    std::string_view path;
};
/// Refuses an output path that is the same file as one of `inputs` (by identity, so another
/// spelling or a link is caught too), so that writing can never replace an input, e.g.
/// "--state-out: 'c.json' is the same file as --config; give another path".
[[nodiscard]] Result<void> checkNotAnInput(std::string_view flag, const std::string& path,
                                           std::span<const NamedInput> inputs);
[[nodiscard]] inline Result<void> checkNotAnInput(std::string_view flag, const std::string& path,
                                                  std::initializer_list<NamedInput> inputs) {
    return checkNotAnInput(flag, path, std::span(inputs.begin(), inputs.size()));
}

/// The output files of one run, for the app and every CLI command, so that a run either replaces
/// all of them or none:
/// - add() checks each path before the run starts (checkOutputPath: its folder, a name the file
///   system takes, no device, FIFO or folder in its place; checkNotAnInput; and no two outputs on
///   one file) and creates its temporary file beside it, so a file the folder refuses is found
///   then, not after the run;
/// - write() streams rows into the temporary file as they come (buffered), so a long run's
///   output costs no memory;
/// - commit() syncs every temporary file and renames each over its target, once the whole run
///   has succeeded. A run that ends without commit() (an error, an exception) removes them and
///   leaves every existing file as it was.
class OutputFiles {
  public:
    OutputFiles() = default;
    OutputFiles(const OutputFiles&) = delete;
    OutputFiles& operator=(const OutputFiles&) = delete;
    ~OutputFiles();

    /// Checks `path` as the output of `flag`, beside the outputs checked or added before. Errors
    /// (bad input, exit status 2) name the flag and the path, e.g.
    /// "--metrics: 'a.csv' is also the file of --state-out; give each output its own file".
    Result<void> check(std::string_view flag, const std::string& path,
                       std::span<const NamedInput> inputs);
    Result<void> check(std::string_view flag, const std::string& path,
                       std::initializer_list<NamedInput> inputs = {}) {
        return check(flag, path, std::span(inputs.begin(), inputs.size()));
    }
    /// check(), then reserves the output's temporary file.
    Result<void> add(std::string_view flag, const std::string& path,
                     std::span<const NamedInput> inputs);
    Result<void> add(std::string_view flag, const std::string& path,
                     std::initializer_list<NamedInput> inputs = {}) {
        return add(flag, path, std::span(inputs.begin(), inputs.size()));
    }
    /// add() for a library that opens its file by path itself (HDF5): the path of the output's
    /// temporary file, which the library may create over (truncate) and write. An unnamed file's
    /// path is /proc/self/fd/N, which opens the file again. The library must have closed it
    /// before commit(), which syncs it and puts it into place with the other outputs.
    Result<std::filesystem::path> addExternal(std::string_view flag, const std::string& path,
                                              std::span<const NamedInput> inputs);
    Result<std::filesystem::path> addExternal(std::string_view flag, const std::string& path,
                                              std::initializer_list<NamedInput> inputs = {}) {
        return addExternal(flag, path, std::span(inputs.begin(), inputs.size()));
    }
    /// Whether `flag` has an output (add() succeeded for it).
    bool has(std::string_view flag) const;
    /// Appends `text` to the output of `flag`. An error (a full disk: exit status 1) names the
    /// file and the system's reason.
    Result<void> write(std::string_view flag, std::string_view text);
    /// Every output into place; the first failure (exit status 1) names its file.
    Result<void> commit();

  private:
    struct Output {
        std::string flag;
        std::filesystem::path target;
        std::filesystem::path temp;
        int fd = -1;
        std::string buffer;     // rows not yet written
        bool external = false;  // written by a library through a path, not by write()
    };
    Output* find(std::string_view flag);
    Result<void> flush(Output& out);
    void discard();

    std::vector<Output> outputs_;
};

/// Writes `content` to a temporary file beside `path` (a short hidden name, so a long target
/// name still leaves room for it), then renames it over `path`, so a failed write never leaves
/// a partial file. Errors name the path.
Result<void> writeFileAtomically(const std::filesystem::path& path, std::string_view content);

/// The file an output written to `path` replaces: a symbolic link's target, link by link (so a
/// link to a file not made yet leads to that file too), so that the link stays a link and a link
/// such as /dev/stdout to a regular file is never itself replaced by one.
std::filesystem::path outputTarget(const std::filesystem::path& path);

/// Whether `name` is a temporary file that writeFileAtomically() or OutputFiles makes beside a
/// file named `target` (`.TARGET.tmp-PID-N`) while it writes it.
bool isTemporaryOf(std::string_view name, std::string_view target);

/// Makes Ctrl+C (SIGINT) and SIGTERM ask a long run to stop instead of ending the process: the
/// run polls stopRequested() between its steps, writes its outputs as of then and exits 128 +
/// the signal's number. Only a signal left at its default is taken (a script's background job
/// ignores SIGINT, and keeps ignoring it); a second one ends the process as every other ending
/// signal does, its temporary files removed (see OutputFiles).
void stopOnInterrupt();
/// The signal that asked the run to stop (SIGINT or SIGTERM), or 0 while none has.
int stopRequested();

/// Flushes stdout; an error when a write to it failed (a full disk, a closed stream), so that a
/// command whose table was lost exits with status 1 rather than 0.
Result<void> flushStandardOutput();

/// Gives file descriptors 0, 1 and 2 a file when one is closed (`prog >&-`): else the first file
/// the program opens would take the number, and its table would be written into an output.
/// A closed stdout is given /dev/null read-only, so writes to it still fail.
void guardStandardStreams();

}  // namespace fishschool
