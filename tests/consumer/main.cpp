// Makes a school from a config's JSON text, steps it on the backend named on the command line
// and prints its measures: what a program that uses the installed library writes.

#include <cstdio>
#include <string>

#include <fishschool/fishschool.h>

int main(int argc, char** argv) {
    const std::string backend = argc > 1 ? argv[1] : "cpu";
    auto sim = fishschool::Simulation::fromConfigJson(R"({"fishCount": 300, "seed": 3})", backend);
    if (!sim) {
        std::fprintf(stderr, "error: %s\n", sim.error().c_str());
        return 1;
    }
    if (auto ok = sim->step(50); !ok) {
        std::fprintf(stderr, "error: %s\n", ok.error().c_str());
        return 1;
    }
    const fishschool::SchoolMetrics m = sim->measures();
    std::printf("fishschool %s, %s: %zu fish, %llu steps, t = %.2f s, polarization %.4f\n",
                std::string(fishschool::version()).c_str(), std::string(sim->backendName()).c_str(),
                sim->fishCount(), static_cast<unsigned long long>(sim->stepCount()), sim->time(),
                m.polarization);
    // A refused change names the key and leaves the school as it was.
    const auto refused = sim->setParam("maxVelocity", -1.0);
    std::printf("refused: %s\n", refused ? "no" : refused.error().c_str());
    return refused ? 1 : 0;
}
