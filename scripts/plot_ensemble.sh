#!/usr/bin/env bash
# Draws a two-axis ensemble as two heat maps side by side, polarization and milling, each cell the
# mean over the replicates of a point (failed runs left out), from the CSV written by
# `fishschool-cli ensemble merge --csv` (docs/ensembles.md). An ensemble merged part way is drawn
# with the cells done; the others stay blank, and how many is said. The grid is the axes' values
# in the CSV, or with --ensemble all of the ensemble file's, so that values no run has reached yet
# are drawn and counted too.
#   scripts/plot_ensemble.sh OUT.png MERGED.csv [--ensemble FILE.json] [--title TEXT]
set -euo pipefail
title=""
ensemble=""
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --title) [ $# -ge 2 ] || { echo "error: --title needs a text" >&2; exit 2; }; title="$2"; shift 2 ;;
        --ensemble) [ $# -ge 2 ] || { echo "error: --ensemble needs a file" >&2; exit 2; }; ensemble="$2"; shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
set -- "${args[@]}"
[ $# -eq 2 ] || { echo "usage: $0 OUT.png MERGED.csv [--ensemble FILE.json] [--title TEXT]" >&2; exit 2; }
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
if [ -n "$ensemble" ]; then
    # Each axis a list of values or {"from": A, "to": B, "count": K}, as `ensemble run` reads it.
    axes="$(python3 - "$ensemble" "$xlabel" "$ylabel" <<'PYTHON'
import json, sys
path, *keys = sys.argv[1:]
try:
    axes = json.load(open(path))["axes"]
except (OSError, ValueError, KeyError, TypeError) as error:
    sys.exit(f"error: {path}: cannot read its axes: {error}")
if list(axes) != keys:
    sys.exit(f"error: {path}'s axes are {', '.join(axes)}, the CSV's {', '.join(keys)}")
for key in keys:
    axis = axes[key]
    if isinstance(axis, dict):
        a, b, k = axis["from"], axis["to"], axis["count"]
        axis = [a + (b - a) * i / (k - 1) if k > 1 else a for i in range(k)]
    print(" ".join(f"{value:.10g}" for value in sorted(axis)))
PYTHON
)" || exit 2
    xs="$(sed -n 1p <<<"$axes")"
    ys="$(sed -n 2p <<<"$axes")"
else
    xs="$(cut -d' ' -f1 "$data" | sort -g -u | tr '\n' ' ')"
    ys="$(cut -d' ' -f2 "$data" | sort -g -u | tr '\n' ' ')"
fi
# gnuplot's tic list: "0" 0, "2" 1, "4" 2, ...
tics() { tr ' ' '\n' <<<"$1" | awk 'NF { printf "%s\"%s\" %d", (n ? ", " : ""), $1, n++ }'; }
xtics="$(tics "$xs")"
ytics="$(tics "$ys")"
nx="$(wc -w <<<"$xs")"
ny="$(wc -w <<<"$ys")"
# The cells done, each drawn as a box of its own: an ensemble merged part way leaves the others
# blank (gnuplot's image would need the whole grid), and says how many they are.
# A value is matched to the grid's within a relative 1e-6: the CSV and the file may print it apart.
awk -v xs="$xs" -v ys="$ys" '
    function index_of(v, values, n,    k, d) {
        for (k = 1; k <= n; k++) {
            d = v - values[k]
            if (d < 0) d = -d
            if (d <= 1e-6 * (values[k] < 0 ? -values[k] : values[k]) + 1e-12) return k - 1
        }
        return -1
    }
    BEGIN { nx = split(xs, x, " "); ny = split(ys, y, " ") }
    { i = index_of($1, x, nx); j = index_of($2, y, ny)
      if (i < 0 || j < 0) { print "error: the value " (i < 0 ? $1 : $2) " is on no axis of the ensemble file" > "/dev/stderr"; exit 2 }
      print i, j, $3, $4 }' "$data" >"$cells"
done_cells="$(wc -l <"$cells")"
if [ "$done_cells" -lt $((nx * ny)) ]; then
    of="the $((nx * ny)) cells"
    [ -n "$ensemble" ] || of="$of of the axis values in $csv"
    echo "missing: $((nx * ny - done_cells)) of $of have no finished run yet and stay blank" \
        "(ensemble status DIR says which runs are left)" >&2
fi
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
set xrange [-0.5:$nx - 0.5]
set yrange [-0.5:$ny - 0.5]
set xtics ($xtics)
set ytics ($ytics)
set title "polarization"
plot "$cells" using 1:2:(0.505):(0.505):3 with boxxyerror fillstyle solid noborder lc palette notitle
set title "milling"
plot "$cells" using 1:2:(0.505):(0.505):4 with boxxyerror fillstyle solid noborder lc palette notitle
unset multiplot
GNUPLOT
echo "wrote $out"
