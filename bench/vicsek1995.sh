#!/usr/bin/env bash
# Reruns docs/validation.md's Vicsek et al. 1995: the order parameter v_a (polarization) against
# the noise η at density 4, for N = 40, 100, 400 and 4000 (docs/examples/vicsek1995.json), and its
# plot beside the paper's Fig. 2(a).
#   bench/vicsek1995.sh [OUT_DIR]   (default bench/results)
# Writes OUT_DIR/vicsek1995.csv (a row per point: its measures' means over the replicates),
# OUT_DIR/vicsek1995.png and the runs in OUT_DIR/vicsek1995/vicsek1995-runs.csv.
# RUN=long runs docs/examples/vicsek1995-long.json instead (N = 4000 at η 0 to 2, 10,000 steps)
# into OUT_DIR/vicsek1995-long.csv and OUT_DIR/vicsek1995/vicsek1995-long-runs.csv; RUN="main long"
# runs both; RUN=none runs nothing and redraws the plot from the CSVs in OUT_DIR. The plot marks
# the points of vicsek1995-long.csv where that file is there.
# Environment: FISHSCHOOL_CLI (default build/bin/fishschool-cli), JOBS (default: the CPU
# threads), ENSEMBLE (default docs/examples/vicsek1995.json), LONG_ENSEMBLE (default
# docs/examples/vicsek1995-long.json), RUN (default main).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${FISHSCHOOL_CLI:-$root/build/bin/fishschool-cli}"
out="${1:-$root/bench/results}"
jobs="${JOBS:-$(nproc)}"
ensemble="${ENSEMBLE:-$root/docs/examples/vicsek1995.json}"
long_ensemble="${LONG_ENSEMBLE:-$root/docs/examples/vicsek1995-long.json}"
run="${RUN:-main}"
for part in $run; do
    case "$part" in
        main | long | none) ;;
        *) echo "error: RUN='$run': each word must be main, long or none" >&2; exit 2 ;;
    esac
done
[ "$run" = none ] || [ -x "$cli" ] || { echo "error: $cli not found: build it first (scripts/setup.sh)" >&2; exit 2; }
mkdir -p "$out/vicsek1995"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# run_ensemble FILE NAME: runs FILE, writes OUT_DIR/NAME.csv and OUT_DIR/vicsek1995/NAME-runs.csv.
run_ensemble() {
    nice "$cli" ensemble run "$1" --out "$work/$2" --jobs "$jobs"
    "$cli" ensemble merge "$work/$2" --csv "$out/vicsek1995/$2-runs.csv" \
        --summary "$out/$2.csv" --timing "$work/$2-timing.csv"
    awk -F, -v name="$2" 'NR > 1 { s += $2 } END { printf "%s: %.0f s of runs\n", name, s }' \
        "$work/$2-timing.csv"
}
for part in $run; do
    case "$part" in
        main) run_ensemble "$ensemble" vicsek1995 ;;
        long) run_ensemble "$long_ensemble" vicsek1995-long ;;
    esac
done

[ -r "$out/vicsek1995.csv" ] || { echo "error: $out/vicsek1995.csv is missing: run RUN=main first" >&2; exit 2; }
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    echo "wrote the CSVs in $out; no plot: /usr/bin/python3 has no matplotlib" \
        "(apt-get install python3-matplotlib)"
    exit 0
fi
/usr/bin/python3 - "$out/vicsek1995.csv" "$out/vicsek1995.png" "$out/vicsek1995-long.csv" \
    "$out/vicsek1995/vicsek1995-long-runs.csv" <<'PLOT'
import csv, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
fig, ax = plt.subplots(figsize=(6, 4.2))
colours = {}
for n in sorted({int(r["fishCount"]) for r in rows}):
    points = sorted((float(r["noise"]), float(r["polarization"])) for r in rows
                    if int(r["fishCount"]) == n)
    line, = ax.plot([p[0] for p in points], [p[1] for p in points], "o-", ms=3, label=f"N = {n}")
    colours[n] = line.get_color()
if os.path.exists(sys.argv[3]):
    long_rows = list(csv.DictReader(open(sys.argv[3])))
    steps = "longer runs"
    if os.path.exists(sys.argv[4]):
        counts = {int(r["steps"]) for r in csv.DictReader(open(sys.argv[4]))}
        if len(counts) == 1:
            steps = f"{counts.pop():,} steps"
    for n in sorted({int(r["fishCount"]) for r in long_rows}):
        points = sorted((float(r["noise"]), float(r["polarization"])) for r in long_rows
                        if int(r["fishCount"]) == n)
        ax.plot([p[0] for p in points], [p[1] for p in points], "D", ms=6, mfc="none",
                color=colours.get(n, "k"), label=f"N = {n}, {steps}")
ax.set_xlabel("noise η (radians)")
ax.set_ylabel("v_a (polarization), mean of the last steps")
ax.set_xlim(0, 5)
ax.set_ylim(0, 1.02)
ax.grid(alpha=0.3)
ax.legend()
ax.set_title("Vicsek et al. 1995, Fig. 2(a): density 4, v0 = 0.03, r = 1", fontsize=10)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
PLOT
echo "wrote $out/vicsek1995.png; the CSVs are in $out and $out/vicsek1995"
