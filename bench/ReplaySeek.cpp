// fishschool_replay_seek --write FILE.h5 CONFIG.json FRAMES: writes a trajectory with the
// project's TrajectoryWriter (its layout and chunks), of CONFIG's initial school drifting along
// its velocities and turned back at the walls, in seconds rather than the hours a simulated
// school of 100,000 fish would take on a small machine.
//
// fishschool_replay_seek FILE.h5 [SEEKS] [--cold] [--no-prefetch]: the time from asking a replay
// for a frame to that frame drawn, as the app does when its timeline is dragged: Replay::seek, the
// school read (or taken from the cache), uploaded and drawn at 1280 x 720, and glFinish. Random
// frames, a fixed seed. --cold drops the file from the page cache before each seek (posix_fadvise),
// so the frame comes from the disk. Prints the median, the 95th percentile and the slowest, in ms.

#include <fcntl.h>
#include <glad/gl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "app/Replay.h"
#include "core/Scenario.h"
#include "gpu/HeadlessGlContext.h"
#include "io/ConfigIO.h"
#include "io/Trajectory.h"
#include "render/Camera.h"
#include "render/SceneRenderer.h"

namespace {

int writeDriftingSchool(const std::string& file, const std::string& config, int frames) {
    using namespace fishschool;
    auto params = loadConfig(config);
    if (!params) {
        std::fprintf(stderr, "%s\n", params.error().c_str());
        return 2;
    }
    School school = makeInitialSchool(*params);
    auto writer = TrajectoryWriter::create(file, *params, school.size());
    if (!writer) {
        std::fprintf(stderr, "%s\n", writer.error().c_str());
        return 1;
    }
    for (int k = 0; k < frames; ++k) {
        if (auto ok = (*writer)->addFrame(k, k * static_cast<double>(params->dt), school); !ok) {
            std::fprintf(stderr, "%s\n", ok.error().c_str());
            return 1;
        }
        for (Fish& fish : school) {
            fish.position += fish.velocity * params->dt;
            for (int d = 0; d < 3; ++d)
                if (std::abs(fish.position[d]) > params->bounds[d]) {
                    fish.position[d] = std::copysign(params->bounds[d], fish.position[d]);
                    fish.velocity[d] = -fish.velocity[d];
                }
        }
    }
    if (auto ok = (*writer)->finish(); !ok) {
        std::fprintf(stderr, "%s\n", ok.error().c_str());
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace fishschool;
    if (argc == 5 && std::string(argv[1]) == "--write")
        return writeDriftingSchool(argv[2], argv[3], std::atoi(argv[4]));
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE.h5 [SEEKS] [--cold] [--no-prefetch]\n", argv[0]);
        return 2;
    }
    const std::string file = argv[1];
    int seeks = 50;
    bool cold = false;
    app::ReplayOptions options;
    for (int k = 2; k < argc; ++k) {
        const std::string arg = argv[k];
        if (arg == "--cold")
            cold = true;
        else if (arg == "--no-prefetch")
            options.prefetch = false;
        else
            seeks = std::max(std::atoi(arg.c_str()), 1);
    }
    auto context = gpu::HeadlessGlContext::create();
    if (!context) {
        std::fprintf(stderr, "%s\n", context.error().c_str());
        return 1;
    }
    auto renderer = render::SceneRenderer::create();
    if (!renderer) {
        std::fprintf(stderr, "%s\n", renderer.error().c_str());
        return 1;
    }
    // The window's picture at 1280 x 720, without multisampling
    // (--msaa 0, as the app's other figures on software GL in docs/performance-log.md).
    constexpr int kWidth = 1280, kHeight = 720;
    GLuint framebuffer = 0, colour = 0, depth = 0;
    glCreateFramebuffers(1, &framebuffer);
    glCreateRenderbuffers(1, &colour);
    glCreateRenderbuffers(1, &depth);
    glNamedRenderbufferStorage(colour, GL_RGBA8, kWidth, kHeight);
    glNamedRenderbufferStorage(depth, GL_DEPTH_COMPONENT24, kWidth, kHeight);
    glNamedFramebufferRenderbuffer(framebuffer, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour);
    glNamedFramebufferRenderbuffer(framebuffer, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);

    const auto openedAt = std::chrono::steady_clock::now();
    auto replay = app::Replay::open(file, options);
    if (!replay) {
        std::fprintf(stderr, "%s\n", replay.error().c_str());
        return 2;
    }
    const double openMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - openedAt)
            .count();
    app::Replay& r = **replay;
    render::OrbitCamera camera;
    const SimParams first = *r.params();
    camera.reset(first.bounds);
    const int fd = ::open(file.c_str(), O_RDONLY);

    std::mt19937 random(27);
    std::uniform_int_distribution<std::size_t> pick(0, r.frameCount() - 1);
    std::vector<double> ms, readMs, redrawMs;
    for (int k = 0; k < seeks + 1; ++k) {
        const std::size_t frame = pick(random);
        r.waitForPrefetch();  // a drag's frames come a frame apart: the reads before are done
        if (cold && fd >= 0) (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        const auto start = std::chrono::steady_clock::now();
        r.seek(frame);
        auto school = r.school();
        if (!school) {
            std::fprintf(stderr, "%s\n", school.error().c_str());
            return 1;
        }
        readMs.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
        auto params = r.params();
        const render::FishSource source = renderer->uploadSchool(**school);
        renderer->draw(*params, camera, kWidth, kHeight, source, 0.0f,
                       render::FishColoring::BySpeed);
        glFinish();
        const double took =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        if (k > 0) ms.push_back(took);  // the first builds the pipelines
        // The same frame drawn again, nothing read or uploaded: what any frame of the app costs.
        const auto again = std::chrono::steady_clock::now();
        renderer->draw(*params, camera, kWidth, kHeight, source, 0.0f,
                       render::FishColoring::BySpeed);
        glFinish();
        if (k > 0)
            redrawMs.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - again)
                    .count());
    }
    if (fd >= 0) ::close(fd);
    std::sort(ms.begin(), ms.end());
    readMs.erase(readMs.begin());
    std::sort(readMs.begin(), readMs.end());
    std::sort(redrawMs.begin(), redrawMs.end());
    const auto at = [&](double q) {
        return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * (ms.size() - 1) + 0.5))];
    };
    std::printf(
        "%s: %zu fish, %zu frames, opened in %.1f ms; %zu seeks to random frames%s%s: median %.1f "
        "ms, p95 %.1f ms, slowest %.1f ms (read, upload, draw %dx%d without multisampling, "
        "glFinish; the read alone: median "
        "%.1f ms; the frame drawn again, nothing read: median %.1f ms) on %s\n",
        file.c_str(), r.fishCount(), r.frameCount(), openMs, ms.size(),
        cold ? " (file dropped from the page cache before each)" : "",
        options.prefetch ? "" : ", no prefetching", at(0.5), at(0.95), ms.back(), kWidth, kHeight,
        readMs[readMs.size() / 2], redrawMs[redrawMs.size() / 2], (*context)->renderer().c_str());
    return 0;
}
