#!/usr/bin/env bash
# Reruns docs/validation.md: the Couzin 2002 phases from fresh starts and the collective-memory
# loop, on seeds 1, 2 and 3 of docs/examples/couzin2002.json, and their plot.
#   scripts/couzin_validation.sh [OUT_DIR]   (default bench/results/couzin2002)
# Environment: FISHSCHOOL_CLI (default build/bin/fishschool-cli). About a minute on two cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${FISHSCHOOL_CLI:-$root/build/bin/fishschool-cli}"
out="${1:-$root/bench/results/couzin2002}"
[ -x "$cli" ] || { echo "error: $cli not found: build it first (scripts/setup.sh)" >&2; exit 2; }
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for seed in 1 2 3; do
    # The example config with only its seed changed.
    python3 -c 'import json, sys
p = json.load(open(sys.argv[1])); p["seed"] = int(sys.argv[2]); json.dump(p, open(sys.argv[3], "w"))' \
        "$root/docs/examples/couzin2002.json" "$seed" "$work/seed$seed.json"
    "$cli" phase --config "$work/seed$seed.json" --vary orientation-width --from 0 --to 12 \
        --count 13 --steps 3000 --csv "$out/fresh-seed$seed.csv" >/dev/null &
    "$cli" phase --config "$work/seed$seed.json" --vary orientation-width --from 0 --to 12 \
        --count 25 --steps 3000 --csv "$out/fresh-fine-seed$seed.csv" >/dev/null &
    "$cli" phase --config "$work/seed$seed.json" --vary orientation-width --from 0 --to 12 \
        --count 13 --steps 3000 --hysteresis --csv "$out/loop-seed$seed.csv" >/dev/null &
    wait
done
xlabel="orientation zone width (body lengths)"
"$root/scripts/plot_phase.sh" "$out/fresh.png" "$out"/fresh-fine-seed{1,2,3}.csv --xlabel "$xlabel"
"$root/scripts/plot_phase.sh" "$out/loop.png" "$out/loop-seed1.csv" --xlabel "$xlabel"
echo "wrote $out: fresh-seedN.csv (the issue's 13 values), fresh-fine-seedN.csv (25 values)," \
    "loop-seedN.csv (up, then down), fresh.png, loop.png"
