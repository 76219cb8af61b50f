#!/usr/bin/env bash
# The app's FPS sweep with the gpu backend up to 4,000,000 fish, offscreen (no X server), for a
# machine with a GPU. Build there (scripts/setup.sh), or, where the machine has no packages, copy
# over a portable build (cmake -DFISHSCHOOL_NATIVE=OFF) with the libraries it links and set APP.
#   scripts/gpu_app_sweep.sh OUT.csv [FISH_LIST]
# $APP (default: fishschool on PATH, else build/bin/fishschool), $SECONDS_PER_CASE (3),
# $WARMUP_STEPS (300), $WIDTH x $HEIGHT (1280 x 720), $BACKENDS (gpu) set the rest. The CSV has
# the app sweep's columns (docs/app.md); scripts/plot_bench.sh plots it.
set -euo pipefail
out=${1:?usage: gpu_app_sweep.sh OUT.csv [FISH_LIST]}
fish=${2:-100000,1000000,2000000,4000000}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
app=${APP:-$(command -v fishschool || echo "$here/build/bin/fishschool")}
[ -x "$app" ] || { echo "error: $app is not an executable fishschool; set APP" >&2; exit 2; }
export SDL_VIDEODRIVER=${SDL_VIDEODRIVER:-offscreen}
"$app" --width "${WIDTH:-1280}" --height "${HEIGHT:-720}" --msaa 0 --no-vsync --density fixed \
    --sweep "$fish" --sweep-backends "${BACKENDS:-gpu}" --sweep-seconds "${SECONDS_PER_CASE:-3}" \
    --sweep-warmup-steps "${WARMUP_STEPS:-300}" --csv "$out"
column -s, -t "$out"
