#!/usr/bin/env bash
# Reruns docs/validation.md's Vicsek et al. 1995: the order parameter v_a (polarization) against
# the noise η at density 4, for N = 40, 100, 400 and 4000 (docs/examples/vicsek1995.json), and its
# plot beside the paper's Fig. 2(a).
#   bench/vicsek1995.sh [OUT_DIR]   (default bench/results)
# Writes OUT_DIR/vicsek1995.csv (a row per point: its measures' means over the replicates),
# OUT_DIR/vicsek1995.png and the runs in OUT_DIR/vicsek1995/vicsek1995-runs.csv.
# Environment: FISHSCHOOL_CLI (default build/bin/fishschool-cli), JOBS (default: the CPU
# threads), ENSEMBLE (default docs/examples/vicsek1995.json).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${FISHSCHOOL_CLI:-$root/build/bin/fishschool-cli}"
out="${1:-$root/bench/results}"
jobs="${JOBS:-$(nproc)}"
ensemble="${ENSEMBLE:-$root/docs/examples/vicsek1995.json}"
[ -x "$cli" ] || { echo "error: $cli not found: build it first (scripts/setup.sh)" >&2; exit 2; }
mkdir -p "$out/vicsek1995"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

nice "$cli" ensemble run "$ensemble" --out "$work/runs" --jobs "$jobs"
"$cli" ensemble merge "$work/runs" --csv "$out/vicsek1995/vicsek1995-runs.csv" \
    --summary "$out/vicsek1995.csv" --timing "$work/timing.csv"
awk -F, 'NR > 1 { s += $2 } END { printf "%.0f s of runs\n", s }' "$work/timing.csv"

if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    echo "wrote $out/vicsek1995.csv; no plot: /usr/bin/python3 has no matplotlib" \
        "(apt-get install python3-matplotlib)"
    exit 0
fi
/usr/bin/python3 - "$out/vicsek1995.csv" "$out/vicsek1995.png" <<'PLOT'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
fig, ax = plt.subplots(figsize=(6, 4.2))
for n in sorted({int(r["fishCount"]) for r in rows}):
    points = sorted((float(r["noise"]), float(r["polarization"])) for r in rows
                    if int(r["fishCount"]) == n)
    ax.plot([p[0] for p in points], [p[1] for p in points], "o-", ms=3, label=f"N = {n}")
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
echo "wrote $out/vicsek1995.csv, $out/vicsek1995.png and $out/vicsek1995/vicsek1995-runs.csv"
