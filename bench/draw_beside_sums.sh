#!/usr/bin/env bash
# Whether the 16-lane sums slow the drawing beside them: llvmpipe draws the app's school while
# another process keeps a core busy with the sums of one build or the other (16-lane registers
# can lower a core's clock for everything on it), the builds in turn:
#   bench/draw_beside_sums.sh OUT_DIR APP LABEL=FISHSCHOOL_BENCH [LABEL=FISHSCHOOL_BENCH ...]
# APP is a fishschool binary; each FISHSCHOOL_BENCH runs kernel/sums (760 candidates, 9 fish)
# beside it. Each case is `--sweep $FISH --sweep-backends cpu --density fixed --msaa 0
# --no-vsync` for $SECONDS_PER_CASE seconds at 1280 x 720 under Xvfb, $ROUNDS times; OUT_DIR
# gets each run's CSV and all.csv (the build and round in front of each row).
set -euo pipefail
out=${1:?usage: draw_beside_sums.sh OUT_DIR APP LABEL=FISHSCHOOL_BENCH [...]}
app=${2:?usage: draw_beside_sums.sh OUT_DIR APP LABEL=FISHSCHOOL_BENCH [...]}
shift 2
[ $# -ge 1 ] || { echo "error: name at least one LABEL=FISHSCHOOL_BENCH" >&2; exit 2; }
FISH=${FISH:-2000}
ROUNDS=${ROUNDS:-4}
SECONDS_PER_CASE=${SECONDS_PER_CASE:-4}
mkdir -p "$out"
: >"$out/all.csv"
for round in $(seq 1 "$ROUNDS"); do
    for build in "$@"; do
        label=${build%%=*}
        "${build#*=}" --benchmark_filter='kernel/sums/candidates:760' --benchmark_min_time=60 \
            >/dev/null 2>&1 &
        busy=$!
        sleep 1
        csv="$out/${label}_r${round}.csv"
        xvfb-run -a -s "-screen 0 1280x720x24" "$app" --width 1280 --height 720 --msaa 0 \
            --no-vsync --density fixed --sweep "$FISH" --sweep-backends cpu \
            --sweep-seconds "$SECONDS_PER_CASE" --csv "$csv" >>"$out/run.log" 2>&1
        kill "$busy"
        wait "$busy" 2>/dev/null || true
        [ -s "$out/all.csv" ] || sed -n 1p "$csv" | sed 's/^/build,round,/' >"$out/all.csv"
        tail -n +2 "$csv" | sed "s/^/$label,$round,/" | tee -a "$out/all.csv"
    done
done
