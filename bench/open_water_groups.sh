#!/usr/bin/env bash
# Open water's memory and time do not depend on how far apart the fish are: times `simulate` on
# one group of FISH fish and on two groups of FISH/2 fish 10 km apart (each at the default
# config's density), boundary "open", interleaved for ROUNDS rounds:
#   bench/open_water_groups.sh OUT_DIR CLI
# OUT_DIR gets rounds.csv (layout, round, seconds for the whole run, max resident KB) and the
# state files. STEPS (20), FISH (100000), BACKEND (tbb), ROUNDS (3), GAP (10000 m).
set -euo pipefail
out=${1:?usage: open_water_groups.sh OUT_DIR CLI}
cli=${2:?usage: open_water_groups.sh OUT_DIR CLI}
STEPS=${STEPS:-20}
FISH=${FISH:-100000}
BACKEND=${BACKEND:-tbb}
ROUNDS=${ROUNDS:-3}
GAP=${GAP:-10000}
mkdir -p "$out"
printf '{"boundary": "open", "rocks": [], "fishCount": %d}\n' "$FISH" >"$out/open.json"
python3 - "$out" "$FISH" "$GAP" <<'PY'
import random, sys
out, fish, gap = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def group(n, cx, rng):
    # The default tank holds 2,000 fish in 80 x 40 x 80 m: the same density.
    s = (n / 2000.0) ** (1.0 / 3.0)
    bx, by, bz = 40 * s, 20 * s, 40 * s
    for _ in range(n):
        yield (cx + rng.uniform(-bx, bx), rng.uniform(-by, by), rng.uniform(-bz, bz),
               rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1))
for name, centres in (("one", [0.0]), ("two", [-gap / 2, gap / 2])):
    rng = random.Random(1)
    with open(f"{out}/{name}.csv", "w") as f:
        f.write("x,y,z,vx,vy,vz\n")
        for c in centres:
            for row in group(fish // len(centres), c, rng):
                f.write(",".join(f"{v:.4f}" for v in row) + "\n")
PY
echo "layout,round,seconds,max_kb" >"$out/rounds.csv"
for round in $(seq 1 "$ROUNDS"); do
    for layout in one two; do
        /usr/bin/time -f "%e %M" -o "$out/time.txt" "$cli" simulate --backend "$BACKEND" \
            --config "$out/open.json" --state-in "$out/$layout.csv" --steps "$STEPS" \
            --state-out "$out/$layout-out.csv" >/dev/null 2>>"$out/bench.log"
        read -r seconds kb <"$out/time.txt"
        echo "$layout,$round,$seconds,$kb" | tee -a "$out/rounds.csv"
    done
done
