#!/usr/bin/env bash
# The app's FPS sweep for several builds, side by side in one run on one machine, one fish count
# at a time with the builds taking turns, so that whatever else the machine does touches each alike:
#   bench/app_side_by_side.sh OUT_DIR LABEL=APP [LABEL=APP ...]
# APP is a fishschool binary. Each case is `--sweep N --sweep-backends $BACKENDS --density fixed
# --msaa 0 --no-vsync` at $WIDTH x $HEIGHT for $SECONDS measured seconds, $ROUNDS times; a build
# that knows --sweep-warmup-steps forms each school in $WARMUP_STEPS steps first. Under Xvfb
# (installed by scripts/setup.sh) unless DISPLAY is set or SDL_VIDEODRIVER=offscreen.
# OUT_DIR gets every round's CSV, all.csv (the rows, with the build and round in front) and
# summary.csv (the median FPS, sim_ms and the frame less the simulation per case).
set -euo pipefail
out=${1:?usage: app_side_by_side.sh OUT_DIR LABEL=APP [LABEL=APP ...]}
shift
[ $# -ge 1 ] || { echo "error: name at least one LABEL=APP" >&2; exit 2; }
FISH=${FISH:-10,2000,20000,100000}
BACKENDS=${BACKENDS:-tbb}
SECONDS_PER_CASE=${SECONDS_PER_CASE:-3}
WARMUP_STEPS=${WARMUP_STEPS:-200}
ROUNDS=${ROUNDS:-2}
WIDTH=${WIDTH:-1280}
HEIGHT=${HEIGHT:-720}
mkdir -p "$out"
: >"$out/all.csv"

run_app() {  # app args...
    if [ -n "${DISPLAY:-}" ] || [ "${SDL_VIDEODRIVER:-}" = offscreen ]; then
        "$@"
    else
        xvfb-run -a -s "-screen 0 ${WIDTH}x${HEIGHT}x24" "$@"
    fi
}

IFS=, read -ra counts <<<"$FISH"
for round in $(seq 1 "$ROUNDS"); do
    for fish in "${counts[@]}"; do
        for build in "$@"; do
            label=${build%%=*}
            app=${build#*=}
            csv="$out/${label}_${fish}_r${round}.csv"
            extra=()
            "$app" --help 2>/dev/null | grep -q -- --sweep-warmup-steps &&
                extra=(--sweep-warmup-steps "$WARMUP_STEPS")
            run_app "$app" --width "$WIDTH" --height "$HEIGHT" --msaa 0 --no-vsync \
                --density fixed --sweep "$fish" --sweep-backends "$BACKENDS" \
                --sweep-seconds "$SECONDS_PER_CASE" "${extra[@]}" --csv "$csv" \
                >>"$out/run.log" 2>&1
            [ -s "$out/all.csv" ] || sed -n 1p "$csv" | sed 's/^/build,round,/' >"$out/all.csv"
            tail -n +2 "$csv" | sed "s/^/$label,$round,/" | tee -a "$out/all.csv"
        done
    done
done

# The median of the rounds per build, backend and fish count; frame less the simulation and the
# frame's share of the measures: what drawing (and presenting) costs.
awk -F, 'NR == 1 { next }
    { key = $1 "," $3 "," $4; n[key]++; fps[key, n[key]] = $5; sim[key, n[key]] = $6
      rest[key, n[key]] = 1000 / $5 - $6 - $10; order[key] = ++seen }
    function median(a, key, count,   i, j, t, v) {
        for (i = 1; i <= count; i++) v[i] = a[key, i]
        for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++)
            if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        return count % 2 ? v[(count + 1) / 2] : (v[count / 2] + v[count / 2 + 1]) / 2
    }
    END { print "build,backend,fish,fps,sim_ms,frame_less_sim_ms"
          for (key in n) printf "%s,%.2f,%.2f,%.2f\n", key, median(fps, key, n[key]),
              median(sim, key, n[key]), median(rest, key, n[key]) }' "$out/all.csv" |
    sort -t, -k1,1 -k2,2 -k3,3n >"$out/summary.csv"
column -s, -t "$out/summary.csv"
