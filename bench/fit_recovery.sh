#!/usr/bin/env bash
# The recovery benchmark of docs/validation.md ("Fitting recovers the parameters"): a Couzin 2002
# school of 50 fish in a periodic box (bench/fit_recovery/truth.json: orientation width 3,
# attraction width 3, noise 0.05) is simulated for 400 steps into a trajectory of every step, then
# `fishschool-cli fit` (bench/fit_recovery/fit.json: uniform priors over wide ranges, 200
# particles, at most 20,000 simulations) fits the three values to it. Prints each true value
# beside its posterior's median and central 90 % interval, and whether the targets are met (the
# truth within the interval, the median within 15 % of it).
#   bench/fit_recovery.sh [OUT_DIR]   (default bench/results/fit-recovery)
# Writes OUT_DIR/target.h5, the fit's folder OUT_DIR/fit (posterior.csv, populations.csv, ...)
# and OUT_DIR/recovery.csv; with gnuplot, OUT_DIR/posterior.png (scripts/plot_fit.sh).
# Environment: FISHSCHOOL_CLI (default build/bin/fishschool-cli), JOBS (default: the CPU
# threads), SEED (the target's seed, default 11), FIT (the fit file of bench/fit_recovery/,
# default fit.json; fit-trials.json fits three trials together, seeds SEED, SEED + 1, SEED + 2,
# at most 6,666 simulations of three schools each). Each trajectory the fit file's target names
# is simulated, the k-th (from 0) with seed SEED + k.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${FISHSCHOOL_CLI:-$root/build/bin/fishschool-cli}"
out="${1:-$root/bench/results/fit-recovery}"
jobs="${JOBS:-$(nproc)}"
seed="${SEED:-11}"
[ -x "$cli" ] || { echo "error: $cli not found: build it first (scripts/setup.sh)" >&2; exit 2; }
mkdir -p "$out"
fit="${FIT:-fit.json}"
cp "$root/bench/fit_recovery/truth.json" "$out/"
cp "$root/bench/fit_recovery/$fit" "$out/fit.json"
targets=$(/usr/bin/env python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["target"]
print(" ".join(t.get("trajectories", [t.get("trajectory")])))' "$out/fit.json")
k=0
for target in $targets; do
    "$cli" simulate --config "$out/truth.json" --steps 400 --seed "$((seed + k))" \
        --trajectory "$out/$target" --trajectory-every 1 > /dev/null 2>&1
    k=$((k + 1))
done
TIMEFORMAT="fit: %R s wall, %U s CPU, on $jobs jobs ($(nproc) CPU threads)"
time (nice "$cli" fit "$out/fit.json" --out "$out/fit" --jobs "$jobs" | tee "$out/fit.txt")
# The truth beside the posterior (populations.csv's last row: each key's median, q05, q95).
/usr/bin/env python3 - "$out" <<'PY'
import csv, json, sys
out = sys.argv[1]
truth = json.load(open(f"{out}/truth.json"))
values = {"orientation-width": truth["rAlignment"] - truth["rSeparation"],
          "attraction-width": truth["rCohesion"] - truth["rAlignment"], "noise": truth["noise"]}
last = list(csv.DictReader(open(f"{out}/fit/populations.csv")))[-1]
rows = ["parameter,truth,median,q05,q95,within_90,median_error"]
print(f"population {last['population']}, {last['simulations']} simulations in it")
print(f"  {'parameter':20} {'truth':>8} {'median':>8} {'5 %':>8} {'95 %':>8}  in 90 %  median off")
met = True
for key, true in values.items():
    median, low, high = (float(last[f"{key}_{q}"]) for q in ("median", "q05", "q95"))
    inside = low <= true <= high
    error = abs(median - true) / true
    met = met and inside and error <= 0.15
    print(f"  {key:20} {true:8.4g} {median:8.4g} {low:8.4g} {high:8.4g}  {'yes' if inside else 'no':>6}  {100 * error:8.1f} %")
    rows.append(f"{key},{true},{median},{low},{high},{int(inside)},{error:.4f}")
open(f"{out}/recovery.csv", "w").write("\n".join(rows) + "\n")
print("targets met" if met else "targets not met (each truth within its 90 % interval, each median within 15 %)")
PY
if command -v gnuplot > /dev/null; then
    "$root/scripts/plot_fit.sh" "$out/fit/posterior.csv" "$out/posterior.png" \
        --truth orientation-width=3 attraction-width=3 noise=0.05
fi
