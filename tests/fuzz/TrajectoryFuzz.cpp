// Fuzz target: the trajectory reader (io/Trajectory.h). The input is a file's bytes, put in a
// memory file (memfd) and opened by path, as a user's file would be; then every frame is read. A
// refused file has a readable message naming the file; an accepted one keeps what open() promises
// (at least one frame, a kind a fish, steps that increase, finite frames of fishCount() fish), and
// what it read is what the file holds: no NUL byte in a config string (text after one is never
// dropped), each fish's species one of its config's (or, in a file without species, the one the
// config deals), each kick clock within its range (0 in a file without them).
// The seed corpus is made by scripts/fuzz/make_trajectory_corpus.py.

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "FuzzMain.h"
#include "io/ConfigIO.h"
#include "io/StateIO.h"
#include "io/Trajectory.h"

using namespace fishschool;

namespace {

/// Whether every value of the school is finite.
bool finite(const School& school) {
    for (const Fish& fish : school)
        for (int k = 0; k < 3; ++k)
            if (!std::isfinite(fish.position[k]) || !std::isfinite(fish.velocity[k]) ||
                fish.acceleration[k] != 0.0f)
                return false;
    return true;
}

/// A refused file's message: readable, and naming the file it was given.
void checkRefusal(const std::string& message, const std::string& path) {
    fuzz::checkMessage(message);
    fuzz::fuzzCheck(message.starts_with(path + ": "), "an error does not name the file", message);
}

}  // namespace

void fuzzOne(std::string_view input) {
    const int fd = ::memfd_create("trajectory", MFD_CLOEXEC);
    fuzz::fuzzCheck(fd >= 0, "memfd_create failed");
    std::size_t done = 0;
    while (done < input.size()) {
        const ssize_t n = ::write(fd, input.data() + done, input.size() - done);
        fuzz::fuzzCheck(n > 0, "writing the memory file failed");
        done += static_cast<std::size_t>(n);
    }
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    auto reader = TrajectoryReader::open(path);
    if (!reader) {
        checkRefusal(reader.error(), path);
        ::close(fd);
        return;
    }
    const TrajectoryReader& r = **reader;
    fuzz::fuzzCheck(r.frameCount() >= 1, "a trajectory of no frame is accepted");
    fuzz::fuzzCheck(r.kinds().size() == r.fishCount(), "a fish without a kind");
    fuzz::fuzzCheck(r.fishCount() <= std::size_t(kMaxFishCount), "more fish than allowed");
    fuzz::fuzzCheck(r.configJson().size() <= (std::size_t{1} << 20), "a config over 1 MiB");
    for (std::size_t f = 1; f < r.frameCount(); ++f)
        fuzz::fuzzCheck(r.frameStep(f) > r.frameStep(f - 1), "steps that do not increase");
    const TrajectoryMeasures& measures = r.measures();
    fuzz::fuzzCheck(measures.step.size() == measures.values.size() &&
                        measures.time.size() == measures.values.size(),
                    "measures of unequal lengths");
    fuzz::fuzzCheck(r.configJson().find('\0') == std::string::npos,
                    "a config read with a NUL byte inside", r.configJson());
    fuzz::fuzzCheck(r.species().size() == r.fishCount(), "a fish without a species");
    if (auto config = parseConfig(r.configJson(), "config")) {
        const std::size_t kinds = std::max<std::size_t>(config->species.size(), 1);
        for (std::size_t i = 0; i < r.fishCount(); ++i) {
            fuzz::fuzzCheck(r.species()[i] < kinds, "a species the file's config lacks");
            if (!r.hasSpecies())
                fuzz::fuzzCheck(r.species()[i] == speciesOf(i, *config),
                                "a file without species whose fish lack the config's");
        }
    }
    School school;
    for (std::size_t f = 0; f < r.frameCount(); ++f) {
        fuzz::fuzzCheck(r.configJsonAt(f).find('\0') == std::string::npos,
                        "a change read with a NUL byte inside", r.configJsonAt(f));
        auto ok = (*reader)->readFrame(f, school);
        if (!ok) {
            checkRefusal(ok.error(), path);
            continue;
        }
        fuzz::fuzzCheck(school.size() == r.fishCount(), "a frame of another size");
        fuzz::fuzzCheck(finite(school), "a frame that is not finite is accepted");
        for (std::size_t i = 0; i < school.size(); ++i) {
            fuzz::fuzzCheck(school[i].species == r.species()[i], "a frame's species differ");
            fuzz::fuzzCheck(!whyNotKickClock(school[i].kickClock),
                            "a kick clock out of its range is accepted");
            fuzz::fuzzCheck(r.hasKickClocks() || school[i].kickClock == 0.0f,
                            "a kick clock from a file without them");
        }
    }
    reader->reset();
    ::close(fd);
}
