#include "GlObjects.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include "ShaderFiles.h"

namespace fishschool::gpu {
namespace {

std::atomic<std::size_t> glErrorsReported{0};

bool glDebugEnabled() {
#ifndef NDEBUG
    return true;
#else
    const char* env = std::getenv("FISHSCHOOL_GL_DEBUG");
    return env != nullptr && std::strcmp(env, "1") == 0;
#endif
}

const char* errorName(GLenum error) {
    switch (error) {
        case GL_INVALID_ENUM:
            return "GL_INVALID_ENUM";
        case GL_INVALID_VALUE:
            return "GL_INVALID_VALUE";
        case GL_INVALID_OPERATION:
            return "GL_INVALID_OPERATION";
        case GL_INVALID_FRAMEBUFFER_OPERATION:
            return "GL_INVALID_FRAMEBUFFER_OPERATION";
        case GL_OUT_OF_MEMORY:
            return "GL_OUT_OF_MEMORY";
        case GL_CONTEXT_LOST:
            return "GL_CONTEXT_LOST";
        default:
            return "unknown GL error";
    }
}

std::string shaderLog(GLuint shader) {
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    log.resize(std::strlen(log.c_str()));
    return log;
}

std::string programLog(GLuint program) {
    GLint length = 0;
    glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
    glGetProgramInfoLog(program, length, nullptr, log.data());
    log.resize(std::strlen(log.c_str()));
    return log;
}

void GLAD_API_PTR printDebugMessage(GLenum source, GLenum type, GLuint, GLenum severity, GLsizei,
                                    const GLchar* message, const void*) {
    // Compile and link logs reach the user through GlProgram's error, with the file name.
    if (severity == GL_DEBUG_SEVERITY_NOTIFICATION || source == GL_DEBUG_SOURCE_SHADER_COMPILER)
        return;
    if (type == GL_DEBUG_TYPE_ERROR) ++glErrorsReported;
    std::cerr << "GL " << (type == GL_DEBUG_TYPE_ERROR ? "error" : "message") << ": " << message
              << "\n";
}

}  // namespace

void deleteBuffer(GLuint id) {
    glDeleteBuffers(1, &id);
}
void deleteVertexArray(GLuint id) {
    glDeleteVertexArrays(1, &id);
}
void deleteProgram(GLuint id) {
    glDeleteProgram(id);
}

GlBuffer GlBuffer::create(GLsizeiptr bytes, const void* data, GLbitfield flags) {
    GLuint id = 0;
    glCreateBuffers(1, &id);
    glNamedBufferStorage(id, bytes, data, flags);
    GlBuffer buffer(id);
    buffer.size_ = bytes;
    return buffer;
}

GlVertexArray GlVertexArray::create() {
    GLuint id = 0;
    glCreateVertexArrays(1, &id);
    return GlVertexArray(id);
}

Result<GlProgram> GlProgram::fromSources(const std::vector<Stage>& stages) {
    GlProgram program(glCreateProgram());
    std::vector<GLuint> shaders;
    std::string error;
    for (const Stage& stage : stages) {
        const GLuint shader = glCreateShader(stage.type);
        const char* text = stage.source.c_str();
        glShaderSource(shader, 1, &text, nullptr);
        glCompileShader(shader);
        GLint ok = GL_FALSE;
        glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
        shaders.push_back(shader);
        if (!ok) {
            error = "shader " + stage.name + " failed to compile:\n" + shaderLog(shader);
            break;
        }
        glAttachShader(program.id(), shader);
    }
    if (error.empty()) {
        glLinkProgram(program.id());
        GLint ok = GL_FALSE;
        glGetProgramiv(program.id(), GL_LINK_STATUS, &ok);
        if (!ok) {
            std::string names;
            for (const Stage& stage : stages) names += (names.empty() ? "" : ", ") + stage.name;
            error = "program (" + names + ") failed to link:\n" + programLog(program.id());
        }
    }
    for (GLuint shader : shaders) glDeleteShader(shader);
    if (!error.empty()) return fail(error);
    return program;
}

Result<GlProgram> GlProgram::fromFiles(std::initializer_list<std::pair<GLenum, std::string>> files,
                                       const std::string& defines) {
    std::vector<Stage> stages;
    for (const auto& [type, name] : files) {
        auto source = loadShaderFile(name, defines);
        if (!source) return fail(source.error());
        stages.push_back({type, name, std::move(*source)});
    }
    return fromSources(stages);
}

GLint GlProgram::uniformLocation(const char* name) const {
    return glGetUniformLocation(id(), name);
}

Result<void> checkGlErrors(const char* where) {
    if (!glDebugEnabled()) return {};
    return takeGlErrors(where);
}

Result<void> takeGlErrors(const char* where) {
    std::string first;
    // Bounded: a lost context may answer with an error on every call.
    int taken = 0;
    for (GLenum error = glGetError(); error != GL_NO_ERROR && taken < 32;
         error = glGetError(), ++taken) {
        const std::string message = std::string(errorName(error)) + " in " + where;
        std::cerr << "GL error: " << message << "\n";
        ++glErrorsReported;
        if (first.empty()) first = message;
    }
    if (!first.empty()) return fail(first);
    return {};
}

std::size_t reportedGlErrorCount() {
    return glErrorsReported.load();
}

void enableGlDebugOutput() {
    if (!glDebugEnabled() || !GLAD_GL_KHR_debug) return;
    glEnable(GL_DEBUG_OUTPUT);
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(printDebugMessage, nullptr);
}

}  // namespace fishschool::gpu
