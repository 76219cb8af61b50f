#!/usr/bin/env bash
# Installs what is missing, builds Release into build/ (the Python module into build/python/)
# and launches the desktop app.
# Arguments go to the app, e.g. scripts/run.sh --fish 20000 --backend gpu
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

install_missing_packages
# For this machine's instruction set: the app runs where it was built.
configure_and_build "$FISHSCHOOL_ROOT/build" -DFISHSCHOOL_NATIVE=ON
exec "$FISHSCHOOL_ROOT/build/bin/fishschool" "$@"
