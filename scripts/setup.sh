#!/usr/bin/env bash
# Installs the Debian packages FishSchool needs (only the missing ones) and configures and builds
# a tree. Sourced by run.sh and test.sh; usable alone: scripts/setup.sh [BUILD_DIR] [CMAKE_ARGS...]
set -euo pipefail

FISHSCHOOL_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

fishschool_packages=(
    build-essential cmake pkg-config
    libsdl2-dev libglm-dev libtbb-dev libimgui-dev libstb-dev
    python3-glad libegl-dev libegl1 libegl-mesa0 libgl1 libglx-mesa0 libgl1-mesa-dri libgl-dev
    nlohmann-json3-dev libcli11-dev libgtest-dev libbenchmark-dev
    pybind11-dev python3-dev python3-numpy python3-pytest python3-matplotlib
    python3-pip python3-setuptools python3-wheel python3-venv dpkg-dev file lintian
    libhdf5-dev zlib1g-dev hdf5-tools python3-h5py python3-mdanalysis python3-ase
    xvfb xauth xdotool ffmpeg gnuplot-nox
    afl++ gcc-12-plugin-dev
    slurmctld slurmd slurm-client munge
)

install_missing_packages() {
    local missing=()
    for pkg in "${fishschool_packages[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return 0
    fi
    echo "Installing: ${missing[*]}"
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "error: need root or sudo to install ${missing[*]}" >&2; exit 1; }
        sudo=(sudo)
    fi
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# configure_and_build BUILD_DIR [CMAKE_ARGS...]
configure_and_build() {
    local dir="$1"; shift
    cmake -S "$FISHSCHOOL_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@"
    cmake --build "$dir" -j "$(nproc)"
}

# use_afl_compilers SCRATCH_DIR: exports CC and CXX as AFL++'s GCC plugin compilers (afl-gcc-fast,
# afl-g++-fast), which instrument for scripts/fuzz.sh. AFL++'s GCC plugin refuses a GCC whose
# Debian revision differs from the one it was built with (bookworm's afl++ 4.04c-4 against gcc
# 12.2.0-14+deb12u1); then a shim built into SCRATCH_DIR loads it.
use_afl_compilers() {
    local scratch="$1"
    mkdir -p "$scratch"
    export AFL_QUIET=1 CC=afl-gcc-fast CXX=afl-g++-fast
    # AFL++ appends -g -funroll-loops to every compile (and -O3 where none is given), after the
    # build's own flags: full debug information where the fuzz build asks for -g1 (line tables),
    # 30 to 70 % more CPU a file for nothing the fuzzing needs. The build's flags alone:
    export AFL_DONT_OPTIMIZE=1
    # No coverage where no fuzz target goes: the step (the biggest files) and the tests' own code.
    export AFL_GCC_DENYLIST="$FISHSCHOOL_ROOT/scripts/fuzz/not-instrumented.txt"
    echo 'int main(void) { return 0; }' >"$scratch/probe.c"
    if afl-gcc-fast "$scratch/probe.c" -o "$scratch/probe" >/dev/null 2>&1; then
        unset AFL_PATH
        return
    fi
    echo "== the packaged AFL++ GCC plugin refuses this GCC; building scripts/fuzz/gcc-plugin-shim.cc"
    local f
    for f in /usr/lib/afl/*; do
        [ "$(basename "$f")" = afl-gcc-pass.so ] || ln -sf "$f" "$scratch/"
    done
    g++ -shared -fPIC -O1 -I"$(gcc -print-file-name=plugin)/include" \
        "$FISHSCHOOL_ROOT/scripts/fuzz/gcc-plugin-shim.cc" -o "$scratch/afl-gcc-pass.so" -ldl
    export AFL_PATH="$scratch"
    afl-gcc-fast "$scratch/probe.c" -o "$scratch/probe" >/dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    install_missing_packages
    configure_and_build "${1:-$FISHSCHOOL_ROOT/build}" "${@:2}"
fi
