#!/usr/bin/env bash
# Installs what is missing, builds every target with warnings as errors and runs every test; installs
# the library and builds a project against it (scripts/consumer_test.sh); makes and tries the
# packages (scripts/package_test.sh); runs the Python module's pytest suite; then builds the core
# and the CLI with AddressSanitizer and UndefinedBehaviorSanitizer and runs their tests again. GL
# tests run on Mesa's software rasteriser where no GPU is present. An ensemble runs on a one-node
# Slurm cluster started for it (scripts/slurm_test.sh), the programs are probed with hostile
# files and places (scripts/hostile.sh) and random scenes soaked under --check (scripts/soak.sh).
# Last, the parsers are fuzzed (scripts/fuzz.sh) with the sanitizer build's fuzz targets. The
# sanitizer build compiles in the background, at the lowest priority, while the Release build's
# programs are tried.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

install_missing_packages
# Each phase says how long CI has run so far: CI must stay well under 30 minutes.
phase() { echo "== [$((SECONDS / 60)) min $((SECONDS % 60)) s in] $*"; }

phase "Release build, all targets, warnings as errors"
# Tests and benchmarks on, whatever scripts/run.sh left in build/'s cache. A new tree is built for
# this machine, as scripts/run.sh builds the app: the portable step's three instruction sets
# compiled at -O3 took 7 minutes of CPU more; they are compiled unoptimised, as a check
# (src/core/CMakeLists.txt), and not run here (a portable build's tests hold the same golden
# hashes).
native=()
[ -f "$FISHSCHOOL_ROOT/build/CMakeCache.txt" ] || native=(-DFISHSCHOOL_NATIVE=ON)
configure_and_build "$FISHSCHOOL_ROOT/build" -DFISHSCHOOL_WERROR=ON -DFISHSCHOOL_BUILD_TESTS=ON \
    -DFISHSCHOOL_BUILD_BENCH=ON "${native[@]}"
log="$FISHSCHOOL_ROOT/build/ctest.log"
(cd "$FISHSCHOOL_ROOT/build" && ctest --output-on-failure -j 2 | tee "$log")
# GL tests skip themselves where no GL context can be made at all. CI installs Mesa, so there a
# skip means the set-up is broken: fail rather than pass without the GPU and app tests.
if [ -n "${CI:-}" ] && grep -q '(Skipped)' "$log"; then
    echo "error: tests were skipped in CI (no GL context?):" >&2
    grep '(Skipped)' "$log" >&2
    exit 1
fi

# The sanitizer build needs nothing of the Release build: it compiles at the lowest priority while
# the phases below try the Release build's programs, which mostly keep one core of two busy. In a
# process group of its own, so that a failure here stops it.
# Compiled by AFL++'s afl-g++-fast, so that its fuzz targets are the ones fuzzed last (one build
# where there were two: the fuzz build took 4 to 6 of CI's minutes). Its tests run with AFL++'s
# runtime switched off (AFL_DISABLE_LLVM_INSTRUMENTATION), which else takes SIGTERM for itself,
# and the tests check what the programs do with signals. For this machine alone (native): the
# step compiled once rather than once per instruction set, minutes less under the sanitizers, to
# the same bits (the golden hashes hold for both). The model at -O1, the rest at -Og
# (CMakeLists.txt).
phase "Core and CLI under AddressSanitizer and UndefinedBehaviorSanitizer: building in the background"
sanitize_log="$FISHSCHOOL_ROOT/build/sanitize-build.log"
# The process group first, then the compilers: a failure at any moment stops all of it.
setsid nice -n 19 bash -c 'source "$1/scripts/setup.sh"; use_afl_compilers "$1/build-sanitize/afl"
    exec "$1/scripts/setup.sh" "$1/build-sanitize" "${@:2}"' sanitize-build "$FISHSCHOOL_ROOT" \
    -DCMAKE_C_COMPILER=afl-gcc-fast -DCMAKE_CXX_COMPILER=afl-g++-fast \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFISHSCHOOL_WERROR=ON -DFISHSCHOOL_SANITIZE=ON \
    -DFISHSCHOOL_NATIVE=ON -DFISHSCHOOL_BUILD_APP=OFF -DFISHSCHOOL_BUILD_GPU=OFF \
    -DFISHSCHOOL_BUILD_BENCH=OFF -DFISHSCHOOL_BUILD_PYTHON=OFF >"$sanitize_log" 2>&1 &
sanitize_build=$!
trap '[ -z "${sanitize_build:-}" ] || kill -- "-$sanitize_build" 2>/dev/null || true' EXIT

phase "The installed library as another project uses it (scripts/consumer_test.sh)"
"$FISHSCHOOL_ROOT/scripts/consumer_test.sh" "$FISHSCHOOL_ROOT/build"

phase "Packages: pip install . in a virtual environment, cpack's .deb run and lintian (scripts/package_test.sh)"
# From the tree built above: setup.py takes its module and cpack its files, nothing compiled again.
"$FISHSCHOOL_ROOT/scripts/package_test.sh" "$FISHSCHOOL_ROOT/build"

phase "The Python module with Debian's interpreter (tests/python, pytest)"
# /usr/bin/python3: Debian's NumPy and pytest are its; the python3 first on PATH may be another.
(cd "$FISHSCHOOL_ROOT" && FISHSCHOOL_PYTHON_DIR="$FISHSCHOOL_ROOT/build/python" \
    FISHSCHOOL_CLI="$FISHSCHOOL_ROOT/build/bin/fishschool-cli" \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python)

phase "Ensembles on a one-node Slurm cluster of this machine (scripts/slurm_test.sh)"
# Its daemons run as root; CI is root, a developer who is not is told and the phase skipped.
if [ "$(id -u)" -eq 0 ] || [ -n "${CI:-}" ]; then
    "$FISHSCHOOL_ROOT/scripts/slurm_test.sh" "$FISHSCHOOL_ROOT/build/bin/fishschool-cli"
else
    echo "skipped: scripts/slurm_test.sh needs root (sudo scripts/slurm_test.sh runs it)"
fi
phase "Hostile files and places (scripts/hostile.sh)"
"$FISHSCHOOL_ROOT/scripts/hostile.sh" "$FISHSCHOOL_ROOT/build/bin"

phase "Soak: random scenes under simulate --check, 1e7 fish-steps (scripts/soak.sh)"
"$FISHSCHOOL_ROOT/scripts/soak.sh" 10000000

phase "Core and CLI under AddressSanitizer and UndefinedBehaviorSanitizer: the build's end, then the tests"
if ! wait "$sanitize_build"; then
    sanitize_build=""
    echo "error: the sanitizer build failed ($sanitize_log):" >&2
    tail -n 60 "$sanitize_log" >&2
    exit 1
fi
sanitize_build=""
tail -n 3 "$sanitize_log"
# Two tests that step thousands of fish for minutes of simulated time, checking the model rather
# than memory, run in the Release phase only: under the sanitizers they took 100 s of CPU, while
# Determinism.* step the same code there (one thread, many threads and the golden hashes).
(cd "$FISHSCHOOL_ROOT/build-sanitize" && AFL_DISABLE_LLVM_INSTRUMENTATION=1 \
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j 2 \
    -E '^(DefaultSchool\.PolarisesWithinTwentySimulatedSeconds|Search/BothSearches\.CpuAndTbbAreBitIdenticalAfter200Steps/.*)$')

phase "Fuzzing the config, state and flag parsers, 20 s each, the app's flags 10 s, ensembles 15 s, tracked files' pickle and CSV and fit files 10 s each (scripts/fuzz.sh)"
# The sanitizer build's targets, then a target a core, each for all its seconds (the longest
# first: 60 s on two cores for the 115 s of fuzzing).
FISHSCHOOL_FUZZ_BUILD="$FISHSCHOOL_ROOT/build-sanitize" "$FISHSCHOOL_ROOT/scripts/fuzz.sh" 20 \
    config state flags trajectory ensemble:15 appflags:10 pickle:10 trackcsv:10 fit:10

phase "all passed"
