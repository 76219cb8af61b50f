#!/usr/bin/env python3
"""Reruns docs/validation.md's burst-and-coast validations with the Python module:

1. one and two fish in the round tank of radius 0.25 m (docs/examples/rummy-nose.json and
   rummy-nose-public-code.json): the distributions of the distance to the wall, the angle to the
   wall, the distance between the fish, their heading difference and the viewing angle;
2. five fish under each neighbour selection (the 1 or 2 nearest, the 1 or 2 most influential),
   in the tank and in open water: the dispersion and the polarization.

    PYTHONPATH=build/python /usr/bin/python3 scripts/burst_validation.py [OUT_DIR]

OUT_DIR defaults to bench/results/burst-and-coast. Environment: SECONDS_PER_RUN (simulated
seconds of each run of part 1, default 1200), SEEDS (default 4). About five minutes on two cores.
"""

import json
import os
import sys

import numpy as np

try:
    import fishschool
except ImportError:
    sys.exit("error: the fishschool module is not on PYTHONPATH (build it, then "
             "PYTHONPATH=build/python)")
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = {
    "paper": os.path.join(ROOT, "docs", "examples", "rummy-nose.json"),
    "public code": os.path.join(ROOT, "docs", "examples", "rummy-nose-public-code.json"),
}
RADIUS = 0.25
# One colour a curve in every panel.
COLOURS = {"paper, 1 fish": "tab:blue", "paper, 2 fish": "tab:orange",
           "public code, 1 fish": "tab:green", "public code, 2 fish": "tab:red"}


def wrap(a):
    return a - 2 * np.pi * np.round(a / (2 * np.pi))


def sampled_run(config, fish, seed, seconds, every_seconds=0.1):
    """Positions and velocities (frames x fish x 3) every `every_seconds` of a run."""
    with fishschool.Simulation(config, backend="cpu", fishCount=fish, seed=seed) as sim:
        every = int(round(every_seconds / sim.params["dt"]))
        sim.step(int(round(20.0 / sim.params["dt"])))  # a transient of 20 s
        frames = int(seconds / every_seconds)
        positions = np.empty((frames, fish, 3))
        velocities = np.empty((frames, fish, 3))
        for k in range(frames):
            sim.step(every)
            positions[k] = sim.positions
            velocities[k] = sim.velocities
    return positions, velocities


def pair_and_wall_measures(positions, velocities):
    x, z = positions[..., 0], positions[..., 2]
    heading = np.arctan2(velocities[..., 2], velocities[..., 0])
    out = {
        "wall distance (m)": (RADIUS - np.hypot(x, z)).ravel(),
        "angle to the wall (rad)": wrap(heading - np.arctan2(z, x)).ravel(),
    }
    if positions.shape[1] == 2:
        dx, dz = x[:, 1] - x[:, 0], z[:, 1] - z[:, 0]
        out["distance between the fish (m)"] = np.hypot(dx, dz)
        # Each fish as the focal one.
        out["heading difference (rad)"] = np.concatenate(
            [wrap(heading[:, 1] - heading[:, 0]), wrap(heading[:, 0] - heading[:, 1])])
        out["viewing angle (rad)"] = np.concatenate([
            wrap(np.arctan2(dz, dx) - heading[:, 0]),
            wrap(np.arctan2(-dz, -dx) - heading[:, 1])])
    return out


BINS = {
    "wall distance (m)": np.linspace(0, RADIUS, 51),
    "angle to the wall (rad)": np.linspace(-np.pi, np.pi, 73),
    "distance between the fish (m)": np.linspace(0, 2 * RADIUS, 51),
    "heading difference (rad)": np.linspace(-np.pi, np.pi, 73),
    "viewing angle (rad)": np.linspace(-np.pi, np.pi, 73),
}


def distributions(out_dir, seconds, seeds):
    summary = {}
    fig, axes = plt.subplots(1, 5, figsize=(22, 4.2))
    for name, config in SETS.items():
        for fish in (1, 2):
            runs = [sampled_run(config, fish, seed, seconds) for seed in range(1, seeds + 1)]
            merged = {}
            for positions, velocities in runs:
                for key, values in pair_and_wall_measures(positions, velocities).items():
                    merged.setdefault(key, []).append(values)
            label = f"{name}, {fish} fish"
            stats = {}
            for key, parts in merged.items():
                values = np.concatenate(parts)
                density, edges = np.histogram(values, bins=BINS[key], density=True)
                centres = 0.5 * (edges[1:] + edges[:-1])
                axis = axes[list(BINS).index(key)]
                axis.plot(centres, density, label=label, color=COLOURS[label],
                          linestyle="-" if fish == 2 else "--")
                axis.set_xlabel(key)
                stats[key] = {
                    "median": float(np.median(values)),
                    "mode": float(centres[np.argmax(density)]),
                    "median of the size": float(np.median(np.abs(values))),
                }
            stats["share within 3 cm of the wall"] = float(
                np.mean(np.concatenate(merged["wall distance (m)"]) < 0.03))
            summary[label] = stats
    for axis in axes:
        axis.set_ylabel("probability density")
    axes[0].legend(fontsize=8)
    fig.suptitle("Burst-and-coast fish in a round tank of radius 0.25 m "
                 f"({seeds} runs of {seconds:g} s a curve, sampled every 0.1 s)")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "burst_distributions.png"), dpi=80)
    return summary


def selections(out_dir, seeds):
    strategies = [("topological", 1), ("topological", 2), ("influential", 1), ("influential", 2)]
    places = {
        "round tank": {},
        "open water": {"boundary": "open", "arena": "box", "rCohesion": 100.0},
    }
    table = {}
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharex=True)
    for row, (place, keys) in enumerate(places.items()):
        for set_name, config in SETS.items():
            for selection, count in strategies:
                dispersions, polarizations = [], []
                for seed in range(1, seeds + 1):
                    with fishschool.Simulation(config, backend="cpu", seed=seed) as sim:
                        sim.set_params(neighborSelection=selection, neighborCount=count, **keys)
                        measures = sim.run(60000, every=100)  # 600 s
                    dispersions.append(np.asarray(measures["dispersion_m"]))
                    polarizations.append(np.asarray(measures["polarization"]))
                times = np.asarray(measures["time"])
                dispersion = np.mean(dispersions, axis=0)
                polarization = np.mean(polarizations, axis=0)
                chosen = "nearest" if selection == "topological" else "most influential"
                label = f"{set_name}: {count} {chosen}"
                # Running means over 20 s: the trends, not each kick.
                window = np.ones(20) / 20
                axes[row][0].plot(times[19:], np.convolve(dispersion, window, "valid"),
                                  label=label)
                axes[row][1].plot(times[19:], np.convolve(polarization, window, "valid"),
                                  label=label)
                late = times >= 300.0
                table[f"{place}, {label}"] = {
                    "dispersion (m), last 300 s": float(np.mean(dispersion[late])),
                    "polarization, last 300 s": float(np.mean(polarization[late])),
                }
        axes[row][0].set_ylabel(f"{place}: dispersion (m)")
        axes[row][1].set_ylabel(f"{place}: polarization")
    axes[0][0].set_yscale("log")
    axes[1][0].set_yscale("log")
    for axis in axes[1]:
        axis.set_xlabel("time (s)")
    axes[0][1].legend(fontsize=7)
    fig.suptitle("Five burst-and-coast fish under each neighbour selection "
                 f"(mean of {seeds} runs, running mean over 20 s)")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "burst_selections.png"), dpi=80)
    return table


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "bench", "results", "burst-and-coast")
    os.makedirs(out_dir, exist_ok=True)
    seconds = float(os.environ.get("SECONDS_PER_RUN", "1200"))
    seeds = int(os.environ.get("SEEDS", "4"))
    result = {
        "distributions": distributions(out_dir, seconds, seeds),
        "selections": selections(out_dir, seeds),
    }
    with open(os.path.join(out_dir, "burst_validation.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result, indent=2))
    print(f"wrote {out_dir}: burst_distributions.png, burst_selections.png, "
          "burst_validation.json")


if __name__ == "__main__":
    main()
