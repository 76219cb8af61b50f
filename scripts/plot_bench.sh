#!/usr/bin/env bash
# Plots steps per second against fish count, log-log, one line per backend and neighbour search,
# from one or more CSV files written by `fishschool-cli bench --csv`.
#   scripts/plot_bench.sh OUT.png bench.csv [more.csv ...]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT.png BENCH.csv [BENCH.csv ...]" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 2; }
out="$1"; shift
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT

# One data file per (file, backend, neighbors) series, sorted by fish count.
series=()
for csv in "$@"; do
    tag="$(basename "$csv" .csv)"
    for key in $(tail -n +2 "$csv" | cut -d, -f1,2 | sort -u); do
        file="$data/$tag-${key/,/-}.dat"
        awk -F, -v k="$key" 'NR > 1 && ($1 "," $2) == k { print $3, $6 }' "$csv" | sort -n >"$file"
        label="${key/,/ }"
        [ $# -gt 1 ] && label="$label ($tag)"
        series+=("'$file' using 1:2 with linespoints title '$label'")
    done
done

plot="$(IFS=,; echo "${series[*]}")"
gnuplot <<GNUPLOT
set terminal pngcairo size 900,680 font "Sans,11" noenhanced
set output "$out"
set logscale xy
set grid
set key below
set xlabel "fish"
set ylabel "simulation steps per second"
set title "FishSchool: steps per second against fish count"
plot $plot
GNUPLOT
echo "wrote $out"
