#!/usr/bin/env bash
# Reruns docs/validation.md's "Anisotropy": Ballerini et al.'s gamma(n) of a 3D school at two
# densities 4 times apart, with metric neighbours and with topological ones (k = 7), and of fish
# that only drift at random (gamma = 1/3 for every n), and their plot.
#   scripts/anisotropy_validation.sh [OUT_DIR]   (default bench/results/anisotropy)
# Environment: FISHSCHOOL_CLI (default build/bin/fishschool-cli). A few minutes on two cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${FISHSCHOOL_CLI:-$root/build/bin/fishschool-cli}"
out="${1:-$root/bench/results/anisotropy}"
[ -x "$cli" ] || { echo "error: $cli not found: build it first (scripts/setup.sh)" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 2; }
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# 1,000 fish of the default school's rules without rocks: "dense" in a tank of 30 x 15 x 30 m,
# "sparse" in one 4 times the volume (each side times 4^(1/3)); and fish with no rule but noise.
write_config() {  # NAME BX BY BZ EXTRA_JSON
    python3 -c 'import json, sys
p = {"fishCount": 1000, "seed": 1, "rocks": [], "bounds": [float(x) for x in sys.argv[2:5]]}
p.update(json.loads(sys.argv[5]))
json.dump(p, open(sys.argv[1], "w"))' "$work/$1.json" "$2" "$3" "$4" "$5"
}
write_config dense 15 7.5 15 '{}'
write_config sparse 23.81 11.91 23.81 '{}'
write_config drifting 15 7.5 15 '{"kCohesion": 0, "kSeparation": 0, "kAlignment": 0, "noise": 1.0}'
topological='{"neighborSelection": "topological", "neighborCount": 7}'
write_config dense-topological 15 7.5 15 "$topological"
write_config sparse-topological 23.81 11.91 23.81 "$topological"
cases=(dense sparse dense-topological sparse-topological drifting)
for name in "${cases[@]}"; do
    # 1,500 steps to form, then a frame every 25 steps for 2,500 more (100 frames).
    "$cli" simulate --config "$work/$name.json" --steps 4000 --trajectory "$work/$name.h5" \
        --trajectory-every 25 >/dev/null 2>"$out/$name.log" &
done
wait
for name in "${cases[@]}"; do
    "$cli" anisotropy "$work/$name.h5" --neighbours 12 --first 60 --csv "$out/$name.csv" \
        | tee "$out/$name.txt"
done
gnuplot <<PLOT
set terminal pngcairo size 800,500
set output "$out/anisotropy.png"
set title "Anisotropy of the n-th nearest neighbour (1,000 fish, 100 frames)"
set xlabel "n"
set ylabel "gamma(n)"
set yrange [0:1]
set datafile separator ","
set key top right
plot 1.0/3 with lines dashtype 2 lc rgb "gray" title "isotropic (1/3)", \
     "$out/dense.csv" skip 1 using 1:2:3 with yerrorlines title "metric, dense", \
     "$out/sparse.csv" skip 1 using 1:2:3 with yerrorlines title "metric, 4 times sparser", \
     "$out/dense-topological.csv" skip 1 using 1:2:3 with yerrorlines title "topological (k = 7), dense", \
     "$out/sparse-topological.csv" skip 1 using 1:2:3 with yerrorlines title "topological (k = 7), 4 times sparser", \
     "$out/drifting.csv" skip 1 using 1:2:3 with yerrorlines title "drifting at random"
PLOT
echo "wrote $out: NAME.csv and NAME.txt (gamma(n) of each case), anisotropy.png"
