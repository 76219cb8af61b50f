#!/usr/bin/env bash
# Installs what is missing, builds Release into build/ and launches the desktop app.
# Arguments go to the app, e.g. scripts/run.sh --fish 20000 --backend gpu
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

install_missing_packages
configure_and_build "$FISHSCHOOL_ROOT/build"
exec "$FISHSCHOOL_ROOT/build/bin/fishschool" "$@"
