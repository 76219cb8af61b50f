#!/usr/bin/env python3
"""The speed-up of each build over a base, round by round, from a side-by-side run's rounds.csv.

    bench/side_by_side_ratios.py OUT_DIR/rounds.csv BASE_LABEL

bench/gpu_side_by_side.sh runs the builds in turn within each round, so the ratio of two builds
in one round is taken on the machine as it was then; on a noisy machine the median of those
ratios says more than the ratio of the medians. For each case (backend, config, fish) and build
it prints the median and fastest ms a step, and the base's ms over the build's: the median of
the rounds' ratios with their range.
"""
import csv
import statistics
import sys
from collections import defaultdict


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    path, base = sys.argv[1], sys.argv[2]
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    # A run with several backends labels each case "BUILD-BACKEND": the base's labels say which
    # backends there are, so a build's own label may hold a dash too.
    backends = {row["label"][len(base) + 1 :] for row in rows if row["label"].startswith(base + "-")}
    times = defaultdict(dict)
    builds = []
    for row in rows:
        label = row["label"]
        build, backend = label, ""
        for name in backends:
            if label.endswith("-" + name):
                build, backend = label[: -len(name) - 1], name
        if build not in builds:
            builds.append(build)
        case = (backend, row["config"], int(row["fish"]))
        times[case].setdefault(build, {})[int(row["round"])] = float(row["ms_per_step"])
    if base not in builds:
        print(f"no build labelled {base!r} in {path} (labels: {', '.join(builds)})", file=sys.stderr)
        return 2
    print("backend,config,fish,build,median_ms,fastest_ms,speedup_median,speedup_low,speedup_high")
    for case in sorted(times):
        runs = times[case]
        for build in builds:
            if build not in runs:
                continue
            ms = list(runs[build].values())
            ratios = [runs[base][r] / t for r, t in runs[build].items() if r in runs.get(base, {})]
            spread = (
                f"{statistics.median(ratios):.2f},{min(ratios):.2f},{max(ratios):.2f}"
                if ratios
                else ",,"
            )
            print(f"{case[0]},{case[1]},{case[2]},{build},{statistics.median(ms):.3g},"
                  f"{min(ms):.3g},{spread}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
