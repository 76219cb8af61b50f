#pragma once

// The one reader of the text files a user gives (configs, states, ensembles, manifests): a file
// from a stranger is hostile, so its kind and size are checked before a byte is read.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "fishschool/Result.h"

namespace fishschool {

/// A state file larger than this is refused before it is read: it parses in well under 2 s on
/// one core (docs/config.md): about 1.9 million fish at "%.9g".
inline constexpr std::uintmax_t kMaxStateFileBytes = 128ull << 20;
/// A config file larger than this is refused before it is read.
inline constexpr std::uintmax_t kMaxConfigFileBytes = 1ull << 20;

/// A file a user gives, open for reading (the descriptor closes itself) with its size.
class InputFile {
  public:
    InputFile(int fd, std::uintmax_t size) : fd_(fd), size_(size) {}
    InputFile(InputFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)), size_(other.size_) {}
    InputFile& operator=(InputFile&&) = delete;
    ~InputFile();
    int fd() const { return fd_; }
    std::uintmax_t size() const { return size_; }

  private:
    int fd_ = -1;
    std::uintmax_t size_ = 0;
};

/// Opens a file a user gives as readTextFile() does, without waiting: a folder, a FIFO, a device,
/// a socket or a missing file is an error naming the path; `what` names the kind ("trajectory").
[[nodiscard]] Result<InputFile> openInputFile(const std::filesystem::path& path,
                                              std::string_view what);

/// The whole of a text file. A folder, a missing file or one larger than `maxBytes` is an
/// error that names the path, and for size the limit; `what` names the kind ("config file").
[[nodiscard]] Result<std::string> readTextFile(const std::filesystem::path& path,
                                               std::uintmax_t maxBytes, std::string_view what);

}  // namespace fishschool
