#!/usr/bin/env bash
# What writing a trajectory costs (docs/performance-log.md, "Trajectories"): `fishschool-cli
# simulate` of FISH fish on tbb, STEPS steps, with no trajectory, with a frame every step and with
# one every 10th step, run in turns ROUNDS times; the median wall time of each, the overhead
# against the run without, and each run's peak memory (/usr/bin/time -v). The school is the "100k
# fish" preset's: the article's weights in a tank scaled to the default density, grid search.
#
#   bench/trajectory_overhead.sh [CLI] [FOLDER]     (FOLDER: where the files go, on a real disk)
#   FISH=1000000 STEPS=999 MODES="none every1" ROUNDS=1 RADIUS=1 bench/trajectory_overhead.sh
#                                                  # the memory target (RADIUS: a faster step)
set -euo pipefail
cli="${1:-build/bin/fishschool-cli}"
folder="${2:-/tmp/fishschool-trajectory-bench}"
fish="${FISH:-100000}"
steps="${STEPS:-100}"
rounds="${ROUNDS:-3}"
modes="${MODES:-none every1 every10}"
mkdir -p "$folder"
config="$folder/school.json"
# The article's weights (docs/examples/article.json), its tank scaled by cbrt(fish / 2000).
python3 - "$fish" "$config" "${RADIUS:-}" <<'EOF'
import json, sys
fish = int(sys.argv[1])
radius = float(sys.argv[3]) if sys.argv[3] else None
scale = (fish / 2000) ** (1 / 3)
json.dump({"fishCount": fish, "bounds": [40 * scale, 20 * scale, 40 * scale], "dt": 0.016666668,
           "kAlignment": 1.0, "kCohesion": 1.0, "kSeparation": 1.5, "lockVerticalSteering": True,
           "maxAcceleration": 3.0, "maxVelocity": 5.0, "neighborSearch": "grid",
           "rAlignment": 6.0, "rCohesion": 10.0, "rSeparation": 2.5, "rocks": [], "seed": 1},
          open(sys.argv[2], "w"))
if radius:
    config = json.load(open(sys.argv[2]))
    config.update(rCohesion=radius, rAlignment=radius, rSeparation=radius / 2)
    json.dump(config, open(sys.argv[2], "w"))
EOF
results="$folder/results.txt"
: >"$results"
for round in $(seq "$rounds"); do
    for mode in $modes; do
        extra=()
        case "$mode" in
            none) ;;
            every1) extra=(--trajectory "$folder/t.h5") ;;
            every10) extra=(--trajectory "$folder/t.h5" --trajectory-every 10) ;;
            *) echo "unknown mode $mode" >&2; exit 2 ;;
        esac
        # The final state: an output for the run without a trajectory too. No --metrics: with it
        # a trajectory holds the measures at each frame, which cost far more than the writing.
        /usr/bin/time -f "%e %M" -o "$folder/time.txt" "$cli" simulate --config "$config" \
            --steps "$steps" --backend tbb --state-out "$folder/s.csv" \
            "${extra[@]}" >/dev/null 2>"$folder/err.txt"
        read -r wall kib <"$folder/time.txt"
        echo "$mode $round $wall $kib" >>"$results"
        rm -f "$folder/t.h5"
    done
done
python3 - "$results" "$fish" "$steps" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
by = {}
for mode, _, wall, kib in rows:
    by.setdefault(mode, []).append((float(wall), int(kib)))
base = statistics.median(w for w, _ in by["none"]) if "none" in by else None
print(f"{sys.argv[2]} fish, {sys.argv[3]} steps, tbb: median wall s, overhead, peak RSS MB")
for mode, runs in by.items():
    wall = statistics.median(w for w, _ in runs)
    over = f"{100 * (wall / base - 1):+.1f}%" if base else ""
    print(f"{mode:8} {wall:8.2f} {over:>8} {max(k for _, k in runs) / 1024:8.0f}")
EOF
