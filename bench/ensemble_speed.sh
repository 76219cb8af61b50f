#!/usr/bin/env bash
# The speed of `fishschool-cli ensemble run` (docs/performance-log.md): 200 runs of 300 fish for
# 1,000 steps (bench/ensembles/speed.json) with one run a core (--jobs = the cores, cpu backend)
# and with one run over every core (--jobs 1, tbb backend), against the sum of the runs'
# single-thread times (--jobs 1, cpu: each run's wall_s); and the overhead per run, from 200 runs
# of one step (bench/ensembles/overhead.json).
#   bench/ensemble_speed.sh [path/to/fishschool-cli]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cli="$(realpath "${1:-$here/../build/bin/fishschool-cli}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cores="$(nproc)"
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
# run NAME FILE JOBS: "WALL CPU" in seconds (CPU: user + system), its timing in $work/NAME.timing
run() {
    local TIMEFORMAT="%R %U %S" times
    times=$( { time "$cli" ensemble run "$here/ensembles/$2" --out "$work/$1" --jobs "$3" 2>/dev/null; } 2>&1 )
    "$cli" ensemble merge "$work/$1" --csv "$work/$1.csv" --timing "$work/$1.timing" 2>/dev/null
    read -r wall user system <<<"$times"
    echo "$wall $(calc "$user + $system")"
}
sum() { awk -F, 'NR > 1 { s += $2 } END { printf "%.3f", s }' "$work/$1.timing"; }
echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
read -r single singleCpu <<<"$(run single speed.json 1)"
read -r perCore perCoreCpu <<<"$(run percore speed.json "$cores")"
read -r allCores allCoresCpu <<<"$(run allcores speed-tbb.json 1)"
read -r overhead _ <<<"$(run overhead overhead.json 1)"
singleSum=$(sum single)
cmp -s "$work/single.csv" "$work/percore.csv" || { echo "error: --jobs 1 and --jobs $cores merged differently" >&2; exit 1; }
printf 'one run a core (--jobs %s, cpu):   %.2f s wall, %.2f s CPU\n' "$cores" "$perCore" "$perCoreCpu"
printf 'one run over every core (tbb):     %.2f s wall, %.2f s CPU\n' "$allCores" "$allCoresCpu"
printf 'sum of single-thread run times:    %.2f s (--jobs 1 took %.2f s wall, %.2f s CPU)\n' "$singleSum" "$single" "$singleCpu"
printf 'wall / (sum / %s):                  %.3f (at most 1.1 asked)\n' "$cores" "$(calc "$perCore / ($singleSum / $cores)")"
printf 'overhead per run (200 runs of 1 step, whole process): %.2f ms\n' "$(calc "$overhead * 1000 / 200")"
printf 'overhead per run beside its steps (--jobs 1 wall - sum of runs) / 200: %.2f ms\n' "$(calc "($single - $singleSum) * 1000 / 200")"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
