#!/usr/bin/env bash
# Reruns docs/validation.md's Couzin et al. 2005: the accuracy of a group's direction against the
# share of informed fish, for groups of 10, 50, 100 and 200 (docs/examples/couzin2005.json, and
# couzin2005-small-shares.json for shares under 0.1), and its plot.
#   bench/couzin2005.sh [OUT_DIR]   (default bench/results)
# Writes OUT_DIR/couzin2005.csv (a row per point: its measures' means and the accuracy over its
# replicates), OUT_DIR/couzin2005.png and each ensemble's runs in OUT_DIR/couzin2005/.
# Environment: FISHSCHOOL_CLI (default build/bin/fishschool-cli), JOBS (default: the CPU
# threads). About 4 CPU minutes: 2 to 3 minutes on two cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${FISHSCHOOL_CLI:-$root/build/bin/fishschool-cli}"
out="${1:-$root/bench/results}"
jobs="${JOBS:-$(nproc)}"
[ -x "$cli" ] || { echo "error: $cli not found: build it first (scripts/setup.sh)" >&2; exit 2; }
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null ||
    { echo "error: /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)" >&2; exit 2; }
mkdir -p "$out/couzin2005"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for name in couzin2005 couzin2005-small-shares; do
    nice "$cli" ensemble run "$root/docs/examples/$name.json" --out "$work/$name" --jobs "$jobs"
    "$cli" ensemble merge "$work/$name" --csv "$out/couzin2005/$name-runs.csv" \
        --summary "$work/$name-summary.csv" --timing "$work/$name-timing.csv"
done
# One table of both grids' points, by group size, then share.
{
    head -n 1 "$work/couzin2005-summary.csv"
    tail -q -n +2 "$work/couzin2005-summary.csv" "$work/couzin2005-small-shares-summary.csv" |
        sort -t, -k1,1g -k2,2g
} >"$out/couzin2005.csv"
awk -F, 'NR > 1 { s += $2 } END { printf "%.0f s of runs\n", s }' \
    "$work/couzin2005-timing.csv" "$work/couzin2005-small-shares-timing.csv"

/usr/bin/python3 - "$out/couzin2005.csv" "$out/couzin2005.png" <<'EOF'
import csv, math, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
fig, (acc, err) = plt.subplots(1, 2, figsize=(11, 4.2))
for n in sorted({int(r["fishCount"]) for r in rows}):
    points = sorted((float(r["species[0].share"]), r) for r in rows if int(r["fishCount"]) == n)
    shares = [p for p, r in points if r["accuracy"]]
    acc.plot(shares, [float(r["accuracy"]) for p, r in points if r["accuracy"]], "o-",
             label=f"N = {n}")
    err.plot(shares, [math.degrees(float(r["direction_error"])) for p, r in points
                      if r["accuracy"]], "o-", label=f"N = {n}")
acc.axhline(1 - math.sqrt(2) / math.pi, color="grey", ls=":", lw=1)
acc.text(0.021, 1 - math.sqrt(2) / math.pi + 0.01, "directions at random", color="grey",
         fontsize=8)
for ax in (acc, err):
    ax.set_xscale("log")
    ax.set_xticks([0.02, 0.05, 0.1, 0.2, 0.5, 1])
    ax.set_xticklabels(["0.02", "0.05", "0.1", "0.2", "0.5", "1"])
    ax.set_xlabel("proportion of informed fish p")
    ax.grid(alpha=0.3)
acc.set_ylim(0.5, 1.01)
acc.set_ylabel("accuracy 1 - S/π over the replicates")
err.set_ylabel("mean direction error (degrees)")
acc.legend(loc="lower right")
acc.set_title("Couzin et al. 2005, Figure 1's accuracy: FishSchool", fontsize=10)
err.set_title("group direction against g, mean over the replicates", fontsize=10)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
EOF
echo "wrote $out/couzin2005.csv, $out/couzin2005.png and $out/couzin2005/*-runs.csv"
