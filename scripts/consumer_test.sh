#!/usr/bin/env bash
# Installs a built FishSchool into a scratch prefix, then configures, builds and runs
# tests/consumer against it, as another project would: find_package(FishSchool) and the target
# FishSchool::fishschool, with nothing of the source tree on its paths. Then runs it on the gpu
# backend too, which finds its shaders in PREFIX/share/fishschool, and imports the installed
# Python module.
# Usage: scripts/consumer_test.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: scripts/consumer_test.sh BUILD_DIR}" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

cmake --install "$build" --prefix "$scratch/prefix" > "$scratch/install.log"
# Only the public headers are installed.
if find "$scratch/prefix/include" -type f ! -path '*/fishschool/*' | grep -q .; then
    echo "error: headers other than include/fishschool/ were installed:" >&2
    find "$scratch/prefix/include" -type f ! -path '*/fishschool/*' >&2
    exit 1
fi
# The library exports the public API alone: fishschool:: names that the public headers declare,
# none of the internals (they are hidden, include/fishschool/Export.h).
library="$(find "$scratch/prefix" -name 'libfishschool.so.*.*' | head -n 1)"
exports="$(nm -D --defined-only -C "$library" | awk '{ $1 = ""; $2 = ""; print substr($0, 3) }')"
if grep -v -E '^(fishschool::|typeinfo for fishschool::|typeinfo name for fishschool::|vtable for fishschool::)' <<< "$exports" | grep -q .; then
    echo "error: $library exports symbols outside the public API:" >&2
    grep -v -E '^(fishschool::|typeinfo for fishschool::|typeinfo name for fishschool::|vtable for fishschool::)' <<< "$exports" | head -20 >&2
    exit 1
fi
internal='fishschool::(cli|gpu|glsl|app|ui|hdf5)::|fishschool::(Backend|CpuSolver|OutputFiles|Recording|SimulationInternals|ParamInfo|TrajectoryRecorder|PartFile|GridShape)\b'
if grep -E "$internal" <<< "$exports" | grep -q .; then
    echo "error: $library exports internal symbols:" >&2
    grep -E "$internal" <<< "$exports" | head -20 >&2
    exit 1
fi
for name in 'fishschool::Simulation::step(' 'fishschool::readStart(' 'fishschool::runEnsembleFile(' \
    'fishschool::TrajectoryReader::open(' 'fishschool::measureArrays(' 'fishschool::validate(' \
    'fishschool::runFitFile(' 'fishschool::ensembleSensitivity('; do
    grep -qF "$name" <<< "$exports" || { echo "error: $library does not export $name" >&2; exit 1; }
done
echo "libfishschool.so exports $(wc -l <<< "$exports") symbols, all of the public API"
cp -r "$root/tests/consumer" "$scratch/consumer"
cmake -S "$scratch/consumer" -B "$scratch/consumer-build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$scratch/prefix" > "$scratch/configure.log"
cmake --build "$scratch/consumer-build" -j "$(nproc)" > "$scratch/build.log"
out="$("$scratch/consumer-build/school_stats" cpu)"
echo "$out"
grep -q "300 fish, 50 steps" <<< "$out"
grep -q "refused: .*maxVelocity" <<< "$out"
if [ -f "$scratch/prefix/share/fishschool/shaders/step_grid.comp" ]; then
    gpu="$("$scratch/consumer-build/school_stats" gpu 2>&1)" || { echo "$gpu" >&2; exit 1; }
    echo "$gpu"
    grep -q "gpu: 300 fish" <<< "$gpu"
fi
# The installed Python module, with Debian's interpreter, on the backend that reads shaders.
module="$(find "$scratch/prefix/lib/python3/dist-packages" -name 'fishschool*.so' 2>/dev/null | head -1)"
if [ -n "$module" ]; then
    backend=cpu
    [ -f "$scratch/prefix/share/fishschool/shaders/step_grid.comp" ] && backend=gpu
    (cd "$scratch" && PYTHONPATH="$(dirname "$module")" /usr/bin/python3 -c "
import fishschool
sim = fishschool.Simulation({'fishCount': 300, 'seed': 3}, backend='$backend')
sim.step(50)
assert sim.fish_count == 300 and sim.step_count == 50, (sim.fish_count, sim.step_count)
print('python:', fishschool.__file__, sim.backend, sim.measures())
")
fi
echo "consumer: built and ran against the installed FishSchool"
