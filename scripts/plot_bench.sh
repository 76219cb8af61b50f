#!/usr/bin/env bash
# Plots one or more CSV files of one kind:
# - written by `fishschool-cli bench --csv`: steps per second against fish count, log-log, one
#   line per backend and neighbour search;
# - written by the app's sweep (`fishschool --sweep ... --csv`): how each case's frame splits
#   into the simulation, drawing (the GPU's time where the timer queries gave one), the frame's
#   share of the measures and the rest (presenting, waiting), a bar per backend and fish count
#   stacked to 100% and labelled with the frame's milliseconds; with several files, their bars
#   side by side per case, named by the files.
#   scripts/plot_bench.sh OUT.png FILE.csv [FILE.csv ...]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT.png BENCH.csv [BENCH.csv ...]" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 2; }
out="$1"; shift
for csv in "$@"; do
    [ -f "$csv" ] || { echo "error: $csv: no such file" >&2; exit 2; }
done
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT

if head -n 1 "$1" | grep -q '^backend,fish,fps,sim_ms,render_ms'; then
    # One row per bar: label, then the four parts in percent of the frame.
    for csv in "$@"; do
        head -n 1 "$csv" | grep -q '^backend,fish,fps,sim_ms,render_ms' ||
            { echo "error: $csv is not an app sweep CSV (like $1)" >&2; exit 2; }
        tag="$(basename "$csv" .csv)"
        awk -F, -v tag="$tag" -v many=$# '
            NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
            { frame = 1000 / $col["fps"]; sim = $col["sim_ms"]; measure = $col["measure_ms"]
              render = $col["render_ms"]
              if ("gpu_render_ms" in col && $col["gpu_render_ms"] != "") render = $col["gpu_render_ms"]
              if (sim + render + measure > frame) render = frame - sim - measure
              if (render < 0) render = 0
              rest = frame - sim - render - measure; if (rest < 0) rest = 0
              label = sprintf("%s %s\\n%.0f ms", $col["fish"], $col["backend"], frame)
              if (many > 1) label = tag "\\n" label
              printf "%s|%s|%.2f|%.2f|%.2f|%.2f\n", $col["fish"], $col["backend"],
                  100 * sim / frame, 100 * render / frame, 100 * measure / frame, 100 * rest / frame
              printf "%s\n", label > "/dev/stderr" }' "$csv" 2>"$data/$tag.labels" >"$data/$tag.rows"
        paste -d'|' "$data/$tag.rows" "$data/$tag.labels" | sed "s/^/$tag|/" >>"$data/all"
    done
    # Bars grouped by fish count, then backend, then file.
    sort -t'|' -k2,2n -k3,3 -s "$data/all" |
        awk -F'|' '{ printf "\"%s\" %s %s %s %s\n", $8, $4, $5, $6, $7 }' >"$data/bars.dat"
    bars=$(wc -l <"$data/bars.dat")
    gnuplot <<GNUPLOT
set terminal pngcairo size $((360 + 80 * bars)),640 font "Sans,10" noenhanced
set output "$out"
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set bmargin 5
set xtics font "Sans,8"
set yrange [0:100]
set ylabel "share of the frame (%)"
set key outside right top vertical
set grid ytics
set title "FishSchool app: where a frame goes, per case (label: fish, backend, frame time)"
plot "$data/bars.dat" using 2:xtic(1) title "simulation", \
     "" using 3 title "drawing (GPU)", "" using 4 title "measures (frame's share)", \
     "" using 5 title "the rest (present, wait)"
GNUPLOT
    echo "wrote $out"
    exit 0
fi

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
