#!/usr/bin/env bash
# Plots two trajectories' distributions side by side, one panel a distribution, from the CSV
# written by `fishschool-cli compare A.h5 B.h5 --histograms BOTH.csv` (docs/data.md): each
# histogram normalised to sum 1 over its bins, A and B as steps over the same bins.
#   scripts/plot_compare.sh BOTH.csv OUT.png [--titles "NAME A" "NAME B"]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BOTH.csv OUT.png [--titles A B]" >&2; exit 2; }
csv="$1"; out="$2"; shift 2
title_a="A"; title_b="B"
if [ $# -gt 0 ]; then
    [ "$1" = "--titles" ] && [ $# -eq 3 ] || { echo "error: after OUT.png only --titles A B" >&2; exit 2; }
    title_a="$2"; title_b="$3"
fi
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 2; }
head -n 1 "$csv" | grep -qx 'distribution,unit,bin_low,bin_high,count_a,count_b' ||
    { echo "error: $csv is not a compare --histograms CSV (distribution,unit,bin_low,bin_high,count_a,count_b)" >&2; exit 2; }
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT

# One data file a distribution: bin centre, A's share, B's share (the bins only: the rows of
# values outside the range, bin_low -inf or bin_high inf, are left out of the plot).
names=$(tail -n +2 "$csv" | cut -d, -f1 | awk '!seen[$0]++')
panels=""
for name in $names; do
    file="$data/$name.dat"
    awk -F, -v d="$name" '
        NR > 1 && $1 == d { ta += $5; tb += $6; if ($3 != "-inf" && $4 != "inf") { n++; lo[n] = $3; hi[n] = $4; a[n] = $5; b[n] = $6 } }
        END { for (k = 1; k <= n; k++) printf "%.9g %.9g %.9g\n", (lo[k] + hi[k]) / 2, ta ? a[k] / ta : 0, tb ? b[k] / tb : 0 }' \
        "$csv" >"$file"
    unit=$(awk -F, -v d="$name" 'NR > 1 && $1 == d { print $2; exit }' "$csv")
    panels+="set title '$name'; set xlabel '$name ($unit)'; plot '$file' using 1:2 with steps lw 2 title '$title_a', '' using 1:3 with steps lw 2 title '$title_b'
"
done
count=$(echo "$names" | wc -w)
rows=$(( (count + 2) / 3 ))
gnuplot <<GNUPLOT
set terminal pngcairo size 1500,$((rows * 420)) font "Sans,10" noenhanced
set output "$out"
set grid
set key top right
set ylabel "share of values"
set multiplot layout $rows,3
$panels
unset multiplot
GNUPLOT
echo "wrote $out"
