#pragma once

// Small owners of GL objects: each deletes its object when it goes, and moves but never copies.

#include <glad/gl.h>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "fishschool/Result.h"
#include "gpu/GpuErrors.h"

namespace fishschool::gpu {

/// Owns one GL name; `Deleter` frees it.
template <void (*Deleter)(GLuint)>
class GlName {
  public:
    GlName() = default;
    explicit GlName(GLuint id) : id_(id) {}
    GlName(GlName&& other) noexcept : id_(std::exchange(other.id_, 0)) {}
    GlName& operator=(GlName&& other) noexcept {
        if (this != &other) {
            reset();
            id_ = std::exchange(other.id_, 0);
        }
        return *this;
    }
    GlName(const GlName&) = delete;
    GlName& operator=(const GlName&) = delete;
    ~GlName() { reset(); }

    GLuint id() const { return id_; }
    explicit operator bool() const { return id_ != 0; }
    void reset() {
        if (id_ != 0) Deleter(id_);
        id_ = 0;
    }

  private:
    GLuint id_ = 0;
};

void deleteBuffer(GLuint id);
void deleteVertexArray(GLuint id);
void deleteProgram(GLuint id);

/// An immutable-storage buffer (glNamedBufferStorage).
class GlBuffer : public GlName<deleteBuffer> {
  public:
    GlBuffer() = default;
    /// `flags` as glBufferStorage takes them, e.g. GL_DYNAMIC_STORAGE_BIT.
    static GlBuffer create(GLsizeiptr bytes, const void* data, GLbitfield flags);
    GLsizeiptr size() const { return size_; }

  private:
    using GlName::GlName;
    GLsizeiptr size_ = 0;
};

class GlVertexArray : public GlName<deleteVertexArray> {
  public:
    GlVertexArray() = default;
    static GlVertexArray create();

  private:
    using GlName::GlName;
};

/// A fence after the GL commands issued so far; deleted with its owner.
class GlFence {
  public:
    GlFence() = default;
    static GlFence insert() { return GlFence(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0)); }
    GlFence(GlFence&& other) noexcept : sync_(std::exchange(other.sync_, nullptr)) {}
    GlFence& operator=(GlFence&& other) noexcept {
        if (this != &other) {
            reset();
            sync_ = std::exchange(other.sync_, nullptr);
        }
        return *this;
    }
    GlFence(const GlFence&) = delete;
    GlFence& operator=(const GlFence&) = delete;
    ~GlFence() { reset(); }

    /// Whether the GPU is past the fence, asked without waiting (the first ask flushes the
    /// commands, so a fence is never waited on for ever).
    bool signaled() const {
        if (sync_ == nullptr) return false;
        const GLenum state = glClientWaitSync(sync_, GL_SYNC_FLUSH_COMMANDS_BIT, 0);
        return state == GL_ALREADY_SIGNALED || state == GL_CONDITION_SATISFIED;
    }
    /// Waits until the GPU is past the fence.
    void wait() const {
        if (sync_ != nullptr) glClientWaitSync(sync_, GL_SYNC_FLUSH_COMMANDS_BIT, GLuint64(-1));
    }
    explicit operator bool() const { return sync_ != nullptr; }
    void reset() {
        if (sync_ != nullptr) glDeleteSync(sync_);
        sync_ = nullptr;
    }

  private:
    explicit GlFence(GLsync sync) : sync_(sync) {}
    GLsync sync_ = nullptr;
};

/// A linked program. Compile and link errors carry the GL info log and the file name.
class GlProgram : public GlName<deleteProgram> {
  public:
    struct Stage {
        GLenum type;         ///< GL_VERTEX_SHADER, GL_FRAGMENT_SHADER, GL_COMPUTE_SHADER
        std::string name;    ///< for messages: the file name
        std::string source;  ///< full GLSL text, #version first
    };

    GlProgram() = default;
    [[nodiscard]] static Result<GlProgram> fromSources(const std::vector<Stage>& stages);
    /// Loads each stage from the shader folder (see ShaderFiles.h), with `defines` inserted after
    /// the #version line.
    [[nodiscard]] static Result<GlProgram> fromFiles(
        std::initializer_list<std::pair<GLenum, std::string>> stages,
        const std::string& defines = "");

    GLint uniformLocation(const char* name) const;

  private:
    using GlName::GlName;
};

/// Reports GL errors raised since the last check, naming `where`. Active in debug builds, or
/// when the environment sets FISHSCHOOL_GL_DEBUG=1; returns the first error's message.
[[nodiscard]] Result<void> checkGlErrors(const char* where);

/// Like checkGlErrors, but in every build: takes every GL error raised since the last check (GL
/// keeps them until asked), and returns the first with `where`.
[[nodiscard]] Result<void> takeGlErrors(const char* where);

/// How many GL errors checkGlErrors and the debug callback have reported in this process; lets
/// tests fail on a GL error in any call path.
std::size_t reportedGlErrorCount();

/// Installs a KHR_debug message callback that prints GL's own errors and warnings to stderr, in
/// debug builds or with FISHSCHOOL_GL_DEBUG=1.
void enableGlDebugOutput();

}  // namespace fishschool::gpu
