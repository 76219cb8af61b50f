#!/usr/bin/env bash
# Plots polarization and milling against the varied value, one line per direction (fresh, up,
# down), from one or more CSV files written by `fishschool-cli phase --csv`.
#   scripts/plot_phase.sh OUT.png phase.csv [more.csv ...] [--xlabel TEXT]
set -euo pipefail
xlabel="value"
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --xlabel) [ $# -ge 2 ] || { echo "error: --xlabel needs a text" >&2; exit 2; }; xlabel="$2"; shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
set -- "${args[@]}"
[ $# -ge 2 ] || { echo "usage: $0 OUT.png PHASE.csv [PHASE.csv ...] [--xlabel TEXT]" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 2; }
out="$1"; shift
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT

# One data file per (file, direction) series, in the order the sweep ran.
series=()
for csv in "$@"; do
    head -n 1 "$csv" | grep -qx 'value,direction,polarization,milling' ||
        { echo "error: $csv is not a phase CSV (value,direction,polarization,milling)" >&2; exit 2; }
    tag="$(basename "$csv" .csv)"
    for direction in $(tail -n +2 "$csv" | cut -d, -f2 | awk '!seen[$0]++'); do
        file="$data/$tag-$direction.dat"
        awk -F, -v d="$direction" 'NR > 1 && $2 == d { print $1, $3, $4 }' "$csv" >"$file"
        label="$direction"
        [ $# -gt 1 ] && label="$label ($tag)"
        series+=("'$file' using 1:2 with linespoints title 'polarization $label'")
        series+=("'$file' using 1:3 with linespoints title 'milling $label'")
    done
done

plot="$(IFS=,; echo "${series[*]}")"
gnuplot <<GNUPLOT
set terminal pngcairo size 900,680 font "Sans,11" noenhanced
set output "$out"
set grid
set key below
set yrange [0:1]
set xlabel "$xlabel"
set ylabel "mean over the last half of each run"
set title "FishSchool: polarization and milling against $xlabel"
plot $plot
GNUPLOT
echo "wrote $out"
