#!/usr/bin/env bash
# Draws a two-axis ensemble as two heat maps side by side, polarization and milling, each cell the
# mean over the replicates of a point (failed runs left out), from the CSV written by
# `fishschool-cli ensemble merge --csv` (docs/ensembles.md).
#   scripts/plot_ensemble.sh OUT.png MERGED.csv [--title TEXT]
set -euo pipefail
title=""
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --title) [ $# -ge 2 ] || { echo "error: --title needs a text" >&2; exit 2; }; title="$2"; shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
set -- "${args[@]}"
[ $# -eq 2 ] || { echo "usage: $0 OUT.png MERGED.csv [--title TEXT]" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 2; }
out="$1"; csv="$2"
[ -r "$csv" ] || { echo "error: $csv cannot be read" >&2; exit 2; }
header="$(head -n 1 "$csv")"
# Two axes: run, X, Y, replicate, seed, status, steps, polarization, milling, ...
IFS=, read -r c1 xlabel ylabel c4 _ c6 _ c8 c9 _ <<<"$header"
[ "$c1,$c4,$c6,$c8,$c9" = "run,replicate,status,polarization,milling" ] ||
    { echo "error: $csv is not the merged CSV of a two-axis ensemble (run,X,Y,replicate,...)" >&2; exit 2; }
data="$(mktemp)"
trap 'rm -f "$data"' EXIT
awk -F, 'NR > 1 && $6 == "ok" {
    key = $2 " " $3; p[key] += $8; m[key] += $9; n[key]++
} END { for (key in n) print key, p[key] / n[key], m[key] / n[key], n[key] }' "$csv" |
    sort -g -k1,1 -k2,2 >"$data"
[ -s "$data" ] || { echo "error: $csv has no finished run to plot" >&2; exit 2; }
# Cells by the index of their values, labelled with the values: an axis need not be evenly
# spaced ([0, 2, 4, 8, 15]), which gnuplot's image would draw as if it were.
cells="$(mktemp)"
trap 'rm -f "$data" "$cells"' EXIT
xs="$(cut -d' ' -f1 "$data" | sort -g -u | tr '\n' ' ')"
ys="$(cut -d' ' -f2 "$data" | sort -g -u | tr '\n' ' ')"
# gnuplot's tic list: "0" 0, "2" 1, "4" 2, ...
tics() { tr ' ' '\n' <<<"$1" | awk 'NF { printf "%s\"%s\" %d", (n ? ", " : ""), $1, n++ }'; }
xtics="$(tics "$xs")"
ytics="$(tics "$ys")"
awk -v xs="$xs" -v ys="$ys" '
    BEGIN { n = split(xs, x, " "); for (k = 1; k <= n; k++) xi[x[k]] = k - 1
            n = split(ys, y, " "); for (k = 1; k <= n; k++) yi[y[k]] = k - 1 }
    { print xi[$1], yi[$2], $3, $4 }' "$data" >"$cells"
[ -n "$title" ] || title="$(basename "$csv" .csv)"
gnuplot <<GNUPLOT
set terminal pngcairo size 1200,520 font "Sans,11" noenhanced
set output "$out"
set multiplot layout 1,2 title "$title: mean over the replicates of each point"
set xlabel "$xlabel"
set ylabel "$ylabel"
set cbrange [0:1]
set palette defined (0 "#440154", 0.25 "#3b528b", 0.5 "#21918c", 0.75 "#5ec962", 1 "#fde725")
set size ratio -1
set tics out
set autoscale fix
set xtics ($xtics)
set ytics ($ytics)
set title "polarization"
plot "$cells" using 1:2:3 with image notitle
set title "milling"
plot "$cells" using 1:2:4 with image notitle
unset multiplot
GNUPLOT
echo "wrote $out"
