#!/usr/bin/env bash
# Reruns docs/validation.md's "States in a round tank": a Couzin school in the round shallow tank
# of docs/examples/couzin-round-tank.json for N = 30, 70, 150 and 300 fish and seeds 1 to 3, the
# share of time in each state (swarm, milling, polarized, transitional) after a transient, and
# its plot.
#   scripts/state_validation.sh [OUT_DIR]   (default bench/results/round-tank-states)
# Environment: FISHSCHOOL_CLI (default build/bin/fishschool-cli), STEPS (default 6000), SKIP (the
# transient, default 1000 steps). A few minutes on two cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${FISHSCHOOL_CLI:-$root/build/bin/fishschool-cli}"
out="${1:-$root/bench/results/round-tank-states}"
steps="${STEPS:-6000}"
skip="${SKIP:-1000}"
[ -x "$cli" ] || { echo "error: $cli not found: build it first (scripts/setup.sh)" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 2; }
mkdir -p "$out"
config="$root/docs/examples/couzin-round-tank.json"

for n in 30 70 150 300; do
    for seed in 1 2 3; do
        "$cli" simulate --config "$config" --fish "$n" --seed "$seed" --steps "$steps" \
            --metrics "$out/n$n-seed$seed.csv" --metrics-every 10 --backend cpu >/dev/null 2>"$out/n$n-seed$seed.log" &
    done
    wait
done

# The share of the frames after the transient in each state, over the three seeds.
table="$out/states.dat"
echo "# N swarm milling polarized transitional" >"$table"
for n in 30 70 150 300; do
    awk -F, -v skip="$skip" -v n="$n" '
        FNR == 1 { for (k = 1; k <= NF; ++k) if ($k == "state") column = k; next }
        $1 >= skip { ++count[$column]; ++total }
        END { printf "%d %.3f %.3f %.3f %.3f\n", n, count[0] / total, count[1] / total,
              count[2] / total, count[3] / total }' "$out"/n"$n"-seed{1,2,3}.csv >>"$table"
done
cat "$table"
gnuplot <<PLOT
set terminal pngcairo size 800,500
set output "$out/states.png"
set title "A Couzin school in a round tank: share of time in each state"
set xlabel "fish (N)"
set ylabel "share of time"
set logscale x
set xtics (30, 70, 150, 300)
set yrange [0:1]
set key outside right
plot "$table" using 1:2 with linespoints title "swarm", \
     "" using 1:3 with linespoints title "milling", \
     "" using 1:4 with linespoints title "polarized", \
     "" using 1:5 with linespoints title "transitional"
PLOT
echo "wrote $out: nN-seedS.csv (the measures every 10 steps), states.dat, states.png"
