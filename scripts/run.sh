#!/usr/bin/env bash
# Installs what is missing, builds Release into build/ the app, the CLI and the Python module
# (into build/python/), and launches the desktop app.
# Arguments go to the app, e.g. scripts/run.sh --fish 20000 --backend gpu
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

install_missing_packages
# For this machine's instruction set: the app runs where it was built. Only what a user runs is
# built (the app, the CLI and the Python module): the tests, benchmarks and fuzz targets are
# scripts/test.sh's.
cmake -S "$FISHSCHOOL_ROOT" -B "$FISHSCHOOL_ROOT/build" -DCMAKE_BUILD_TYPE=Release \
    -DFISHSCHOOL_NATIVE=ON -DFISHSCHOOL_BUILD_TESTS=OFF -DFISHSCHOOL_BUILD_BENCH=OFF
cmake --build "$FISHSCHOOL_ROOT/build" -j "$(nproc)" --target fishschool fishschool-cli fishschool_python
exec "$FISHSCHOOL_ROOT/build/bin/fishschool" "$@"
