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

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    install_missing_packages
    configure_and_build "${1:-$FISHSCHOOL_ROOT/build}" "${@:2}"
fi
