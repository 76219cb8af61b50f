#include "HeadlessGlContext.h"

#include <glad/egl.h>
#include <glad/gl.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <vector>

#include "GlObjects.h"
#include "gpu/GpuErrors.h"

namespace fishschool::gpu {
namespace {

// EGL has one display per platform, and eglTerminate ends every context on it: only the last
// HeadlessGlContext of a display terminates it.
std::mutex displayUsersMutex;
std::map<EGLDisplay, int> displayUsers;

std::string eglErrorText() {
    char text[32];
    std::snprintf(text, sizeof text, "EGL error 0x%04X", static_cast<unsigned>(eglGetError()));
    return text;
}

bool hasExtension(const char* list, const char* name) {
    if (list == nullptr) return false;
    const std::string all = std::string(" ") + list + " ";
    return all.find(std::string(" ") + name + " ") != std::string::npos;
}

/// The first display that initialises: a GPU device, then Mesa surfaceless, then the default.
EGLDisplay openDisplay(std::string& tried) {
    const char* clientExtensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    auto initialise = [&](EGLDisplay display, const char* what) -> EGLDisplay {
        if (display == EGL_NO_DISPLAY) {
            tried += std::string(tried.empty() ? "" : "; ") + what + ": no display";
            return EGL_NO_DISPLAY;
        }
        EGLint major = 0, minor = 0;
        if (eglInitialize(display, &major, &minor) == EGL_TRUE) return display;
        tried += std::string(tried.empty() ? "" : "; ") + what + ": " + eglErrorText();
        return EGL_NO_DISPLAY;
    };

    // Without a display glad loads only what the client reports: check each pointer.
    if (eglQueryDevicesEXT != nullptr && eglQueryDeviceStringEXT != nullptr &&
        eglGetPlatformDisplayEXT != nullptr) {
        EGLDeviceEXT devices[8];
        EGLint count = 0;
        if (eglQueryDevicesEXT(8, devices, &count) == EGL_TRUE) {
            for (EGLint d = 0; d < count; ++d) {
                // Mesa lists a software device too; prefer a device with a DRM node (a GPU).
                const char* deviceExtensions = eglQueryDeviceStringEXT(devices[d], EGL_EXTENSIONS);
                if (!hasExtension(deviceExtensions, "EGL_EXT_device_drm") &&
                    !hasExtension(deviceExtensions, "EGL_NV_device_cuda"))
                    continue;
                EGLDisplay display = initialise(
                    eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[d], nullptr),
                    "EGL device");
                if (display != EGL_NO_DISPLAY) return display;
            }
        }
    }
    if (hasExtension(clientExtensions, "EGL_MESA_platform_surfaceless") &&
        eglGetPlatformDisplayEXT != nullptr) {
        EGLDisplay display = initialise(
            eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr),
            "Mesa surfaceless");
        if (display != EGL_NO_DISPLAY) return display;
    }
    return initialise(eglGetDisplay(EGL_DEFAULT_DISPLAY), "default display");
}

}  // namespace

Result<std::unique_ptr<HeadlessGlContext>> HeadlessGlContext::create() {
    if (gladLoaderLoadEGL(EGL_NO_DISPLAY) == 0)
        return fail(
            "EGL not available: cannot load libEGL.so.1 (install libegl1 and a driver, e.g. "
            "libegl-mesa0)");
    std::string tried;
    EGLDisplay display = openDisplay(tried);
    if (display == EGL_NO_DISPLAY)
        return fail("EGL not available: no display could be opened (" + tried + ")");
    // Reload with the display, which brings in its extensions.
    gladLoaderLoadEGL(display);

    auto context = std::unique_ptr<HeadlessGlContext>(new HeadlessGlContext);
    context->display_ = display;
    {
        const std::lock_guard lock(displayUsersMutex);
        ++displayUsers[display];
    }

    if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE)
        return fail("EGL: this display has no desktop OpenGL (" + eglErrorText() + ")");

    const EGLint configAttributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config = nullptr;
    EGLint configCount = 0;
    const bool haveConfig =
        eglChooseConfig(display, configAttributes, &config, 1, &configCount) == EGL_TRUE &&
        configCount > 0;
    if (!GLAD_EGL_KHR_no_config_context && !haveConfig)
        return fail("EGL: no OpenGL config on this display (" + eglErrorText() + ")");
    if (!GLAD_EGL_KHR_surfaceless_context)
        return fail(
            "EGL: the display lacks EGL_KHR_surfaceless_context, needed for a context without a "
            "window");

    for (EGLint minor : {5, 3}) {
        const EGLint contextAttributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                            4,
                                            EGL_CONTEXT_MINOR_VERSION,
                                            minor,
                                            EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                            EGL_NONE};
        EGLContext made = eglCreateContext(display, haveConfig ? config : EGL_NO_CONFIG_KHR,
                                           EGL_NO_CONTEXT, contextAttributes);
        if (made != EGL_NO_CONTEXT) {
            context->context_ = made;
            break;
        }
    }
    if (context->context_ == nullptr)
        return fail(
            "GL 4.3 compute not available: EGL could not create a 4.5 or 4.3 core context (" +
            eglErrorText() + ")");
    if (eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context->context_) != EGL_TRUE)
        return fail("EGL: cannot make the context current (" + eglErrorText() + ")");
    if (gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress)) == 0)
        return fail("GL: cannot load the OpenGL functions through EGL");
    enableGlDebugOutput();
    return context;
}

HeadlessGlContext::~HeadlessGlContext() {
    if (display_ == nullptr) return;
    if (context_ != nullptr && eglGetCurrentContext() == context_)
        eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (context_ != nullptr) eglDestroyContext(display_, context_);
    const std::lock_guard lock(displayUsersMutex);
    if (--displayUsers[display_] == 0) {
        displayUsers.erase(display_);
        eglTerminate(display_);
    }
}

Result<void> HeadlessGlContext::makeCurrent() {
    if (eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_) != EGL_TRUE)
        return fail("EGL: cannot make the context current (" + eglErrorText() + ")");
    return {};
}

std::string HeadlessGlContext::renderer() const {
    const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    const auto* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    return std::string(renderer ? renderer : "unknown renderer") + ", OpenGL " +
           (version ? version : "unknown version");
}

}  // namespace fishschool::gpu
