#!/usr/bin/env bash
# A corner plot of a fit's population (docs/data.md, "Fitting a model"): for each parameter its
# weighted histogram on the diagonal, and below it each pair as a scatter of the particles, the
# larger a point the larger its weight; --truth marks known values (a recovery test).
#   scripts/plot_fit.sh POPULATION.csv OUT.png [--truth KEY=VALUE ...]
# POPULATION.csv is DIR/posterior.csv or DIR/population-T.csv of `fishschool-cli fit ... --out DIR`.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 POPULATION.csv OUT.png [--truth KEY=VALUE ...]" >&2; exit 2; }
csv="$1"; out="$2"; shift 2
declare -A truth=()
if [ $# -gt 0 ]; then
    [ "$1" = "--truth" ] || { echo "error: after OUT.png only --truth KEY=VALUE ..." >&2; exit 2; }
    shift
    for pair in "$@"; do
        [[ "$pair" == *=* ]] || { echo "error: --truth: '$pair' is not KEY=VALUE" >&2; exit 2; }
        truth["${pair%%=*}"]="${pair#*=}"
    done
fi
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 2; }
header=$(head -n 1 "$csv")
[[ "$header" == particle,index,*,weight,distance* ]] ||
    { echo "error: $csv is not a fit's population (particle,index,KEYS...,weight,distance,...)" >&2; exit 2; }
# The parameters: the columns between index and weight.
IFS=, read -r -a columns <<<"$header"
keys=()
for ((c = 2; c < ${#columns[@]}; c++)); do
    [ "${columns[$c]}" = weight ] && { weight_column=$((c + 1)); break; }
    keys+=("${columns[$c]}")
done
k=${#keys[@]}
for key in "${!truth[@]}"; do
    printf '%s\n' "${keys[@]}" | grep -qx -- "$key" ||
        { echo "error: --truth: '$key' is not a parameter of $csv (${keys[*]})" >&2; exit 2; }
done
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT
tail -n +2 "$csv" | tr , ' ' >"$data/points.dat"
panels=""
for ((i = 0; i < k; i++)); do
    for ((j = 0; j < k; j++)); do
        xi=$((j + 3)); yi=$((i + 3))
        if [ $j -gt $i ]; then
            panels+="set multiplot next
"
            continue
        fi
        xlabel=""; [ $i -eq $((k - 1)) ] && xlabel="${keys[$j]}"
        xt=""; [ -n "${truth[${keys[$j]}]:-}" ] && xt="${truth[${keys[$j]}]}"
        if [ $i -eq $j ]; then
            # The weighted histogram: 30 bins over the particles' range.
            awk -v c="$xi" -v w="$weight_column" '
                { x[NR] = $c; wt[NR] = $w; if (NR == 1 || $c < lo) lo = $c; if (NR == 1 || $c > hi) hi = $c }
                END { if (hi == lo) { hi = lo + 1 }; b = (hi - lo) / 30
                      for (n = 1; n <= NR; n++) { k = int((x[n] - lo) / b); if (k > 29) k = 29; h[k] += wt[n] }
                      for (k = 0; k < 30; k++) printf "%.9g %.9g\n", lo + (k + 0.5) * b, h[k] + 0 }' \
                "$data/points.dat" >"$data/hist$i.dat"
            arrow=""
            [ -n "$xt" ] && arrow="set arrow from $xt, graph 0 to $xt, graph 1 nohead lw 2 lc rgb 'red' front;"
            panels+="unset arrow; $arrow set xlabel '$xlabel'; set ylabel ''; plot '$data/hist$i.dat' using 1:2 with boxes fs solid 0.5 lc rgb '#4060a0' notitle
"
        else
            ylabel=""; [ $j -eq 0 ] && ylabel="${keys[$i]}"
            yt=""; [ -n "${truth[${keys[$i]}]:-}" ] && yt="${truth[${keys[$i]}]}"
            arrow=""
            [ -n "$xt" ] && arrow+="set arrow from $xt, graph 0 to $xt, graph 1 nohead lw 1.5 lc rgb 'red' front;"
            [ -n "$yt" ] && arrow+="set arrow from graph 0, first $yt to graph 1, first $yt nohead lw 1.5 lc rgb 'red' front;"
            panels+="unset arrow; $arrow set xlabel '$xlabel'; set ylabel '$ylabel'; plot '$data/points.dat' using $xi:$yi:(0.3 + 40 * \$$weight_column) with points pt 7 ps variable lc rgb '#4060a0' notitle
"
        fi
    done
done
gnuplot <<GNUPLOT
set terminal pngcairo size $((k * 360)),$((k * 330)) font "Sans,10" noenhanced
set output "$out"
set grid
set style fill solid 0.5
set boxwidth 0.9 relative
set multiplot layout $k,$k title "$(basename "$csv"): ${k} parameters, $(($(wc -l <"$csv") - 1)) particles"
$panels
unset multiplot
GNUPLOT
echo "wrote $out"
