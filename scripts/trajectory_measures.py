#!/usr/bin/python3
"""Checks a trajectory's measures against its own frames (docs/trajectories.md).

    scripts/trajectory_measures.py [--no-pairs] FILE.h5
    scripts/trajectory_measures.py --histograms OUT.csv FILE.h5

Recomputes, with NumPy from the file's positions and velocities, the school's measures
(include/fishschool/Metrics.h, docs/model.md) at every step where the file holds both a frame and
an observable, and compares them with the file's observables:

- polarization and milling, always;
- nearest_neighbor, neighbors, groups and largest_group_share by comparing every pair of fish
  (O(N^2) work a frame), unless --no-pairs is given or the school has more than 10,000 fish (then
  skipped, saying so). The groups are the connected parts of the graph of pairs closer than
  groupDistance (rCohesion where it is 0), found by label propagation rather than the program's
  union-find over a grid.

A value agrees when |recomputed - file| <= 1e-5 * max(1, |file|): an absolute tolerance for
polarization and milling (both within [0, 1]), a relative one for the distances (m) and the
neighbour counts, which may be large. The positions are the simulation's own float32 numbers, so
the recomputed values differ only by the order of double-precision sums (1e-14 or less); 1e-5
is the bound the project promises: a measure stored as float32 (6e-8 relative) would still pass,
a measure of another frame or another school would not.

With --histograms, instead: the computation of `fishschool-cli measure FILE.h5 --histograms OUT.csv`
(docs/data.md) in NumPy, every pair of fish a frame: the measures of each frame and the
distributions (wall distance, nearest-neighbour distance, the heading difference with the
nearest neighbour, speed, polarization, milling, each fish's turning angle between frames) over
the same bins, written as the same CSV, so
that `diff` compares the two. A reference for both the numbers and the speed
(docs/performance-log.md).

Prints a table (one row a measure) and, for each disagreement, its step. Exit status 0 when every
compared value agrees, 1 when any differs, 2 for bad usage or a file that is not a readable
trajectory (the message names the object), or one whose observables share no step with its
frames. Needs only NumPy and h5py (Debian: python3-numpy, python3-h5py). It reads one frame at a
time; it is a check of a trajectory, not a guard against a hostile one (the program's reader,
--state-in FILE.h5 or fishschool.Trajectory, is).
"""

import argparse
import json
import sys

import numpy as np

try:
    import h5py
except ImportError as missing:  # said by main(), so that --help works without it
    h5py = None
    H5PY_MISSING = missing

TOLERANCE = 1e-5
PAIRS_LIMIT = 10_000  # fish; above it the O(N^2) measures take too long to be worth it
MAX_FISH = 20_000_000  # a frame's positions and velocities in float64: 960 MB
MEASURES = ("polarization", "milling", "nearest_neighbor", "neighbors", "groups",
            "largest_group_share")
PAIR_MEASURES = ("nearest_neighbor", "neighbors", "groups", "largest_group_share")
PAIR_BLOCK = 1_000_000  # pairs a block of the pair computation: about 24 MB of float64 vectors


class BadFile(Exception):
    """A file that is not a trajectory this script can read: exit status 2."""


def dataset(group, name, dims, kinds):
    """group[name] as an h5py dataset of `dims` dimensions and a dtype kind in `kinds`."""
    if name not in group:
        raise BadFile(f"{group.name.lstrip('/')}/{name}: missing")
    item = group[name]
    where = item.name.lstrip("/")
    if not isinstance(item, h5py.Dataset):
        raise BadFile(f"{where}: a group; must be a dataset")
    if item.ndim != dims:
        raise BadFile(f"{where}: shape {item.shape}; must have {dims} dimension(s)")
    if item.dtype.kind not in kinds:
        raise BadFile(f"{where}: type {item.dtype}; must be "
                      + {"f": "floating point", "iu": "integer"}.get(kinds, kinds))
    return item


def text_of(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def group_of(parent, name):
    """parent[name] as an h5py group."""
    where = f"{parent.name.lstrip('/')}/{name}".lstrip("/")
    if name not in parent:
        raise BadFile(f"{where}: missing")
    if not isinstance(parent[name], h5py.Group):
        raise BadFile(f"{where}: a dataset; must be a group")
    return parent[name]


def read_configs(file):
    """[(step, config dict)]: the run's config at step -1, then each change recorded."""
    if "parameters" not in file or "config" not in file["parameters"]:
        raise BadFile("parameters/config: missing")
    try:
        configs = [(-1, json.loads(text_of(file["parameters/config"][()])))]
    except (ValueError, TypeError) as error:
        raise BadFile(f"parameters/config: not a config JSON: {error}") from None
    changes = file["parameters"].get("changes")
    if changes is not None:
        steps = dataset(changes, "step", 1, "iu")[...]
        values = dataset(changes, "value", 1, "SOU")[...]
        if len(steps) != len(values):
            raise BadFile(f"parameters/changes: {len(steps)} steps but {len(values)} values")
        for step, value in zip(steps, values):
            try:
                configs.append((int(step), json.loads(text_of(value))))
            except (ValueError, TypeError) as error:
                raise BadFile(f"parameters/changes/value: not a config JSON: {error}") from None
    return configs


def radii_at(configs, step, linking=False):
    """The rCohesion values (with `linking`, the group distances: groupDistance, or rCohesion
    where it is 0 or absent) that may have been in force when the measures of `step` were taken:
    the last config changed before `step`, and one changed at `step` itself (whether the measures
    of that step came before or after the change is the writer's order)."""
    radii = []
    for change_step, config in configs:
        if change_step < step:
            radii = [config]
        elif change_step == step:
            radii.append(config)
    out = []
    for config in radii:
        if "rCohesion" not in config:
            raise BadFile("parameters: a config without rCohesion")
        radius = float(np.float32(config["rCohesion"]))
        if linking and float(config.get("groupDistance", 0.0)) > 0.0:
            radius = float(np.float32(config["groupDistance"]))
        out.append(radius)
    return out


def polarization_and_milling(positions, velocities):
    """As src/core/Metrics.cpp: in double precision from the float32 values."""
    p = positions.astype(np.float64)
    v = velocities.astype(np.float64)
    n = len(p)
    if n == 0:
        return 0.0, 0.0
    speed = np.linalg.norm(v, axis=1)
    moving = speed > 0.0
    heading = np.zeros_like(v)
    heading[moving] = v[moving] / speed[moving, None]
    polarization = float(np.linalg.norm(heading.sum(axis=0) / n))

    r = p - p.mean(axis=0)
    distance = np.linalg.norm(r, axis=1)
    both = (distance > 0.0) & moving
    momentum = np.cross(r[both] / distance[both, None], heading[both]).sum(axis=0)
    milling = float(np.linalg.norm(momentum / n))
    return polarization, milling


def groups_of(n, pairs):
    """(the number of groups, the largest group's share) of fish 0..n-1 linked by `pairs`
    (arrays i, j): each fish takes the smallest label among its links until none changes."""
    if n == 0:
        return 0.0, 0.0
    label = np.arange(n)
    i, j = pairs
    while True:
        lowest = np.minimum(label[i], label[j])
        before = label.copy()
        np.minimum.at(label, i, lowest)
        np.minimum.at(label, j, lowest)
        label = label[label]  # jump along chains
        if np.array_equal(label, before):
            break
    sizes = np.bincount(label, minlength=n)
    return float(np.count_nonzero(sizes)), float(sizes.max()) / n


def pair_measures(positions, radii, links=()):
    """(mean nearest-neighbour distance, {radius: mean neighbour count}, {distance: (groups,
    largest group's share)}) by every pair, as src/core/Metrics.cpp computes them: the neighbour
    and link tests in float32, (dx*dx + dy*dy) + dz*dz, against the double square of the
    distance; the nearest distance in double."""
    n = len(positions)
    if n < 2:
        return 0.0, {radius: 0.0 for radius in radii}, {link: (float(n), 1.0) for link in links}
    p32 = positions.astype(np.float32)
    p64 = positions.astype(np.float64)
    counts = {radius: 0 for radius in radii}
    linked = {link: ([], []) for link in links}
    nearest_sum = 0.0
    block = max(1, PAIR_BLOCK // n)
    for start in range(0, n, block):
        rows = slice(start, min(start + block, n))
        d = p32[None, :, :] - p32[rows, None, :]
        d2 = d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1]
        d2 += d[..., 2] * d[..., 2]
        own = np.arange(rows.start, rows.stop)
        d2[own - rows.start, own] = np.inf  # a fish is not its own neighbour
        for radius in radii:
            counts[radius] += int(np.count_nonzero(d2.astype(np.float64) < radius * radius))
        for link in links:
            a, b = np.nonzero(d2.astype(np.float64) < link * link)
            linked[link][0].append(a + rows.start)
            linked[link][1].append(b)
        e = p64[None, :, :] - p64[rows, None, :]
        e2 = np.einsum("ijk,ijk->ij", e, e)
        e2[own - rows.start, own] = np.inf
        nearest_sum += float(np.sqrt(e2.min(axis=1)).sum())
    groups = {link: groups_of(n, (np.concatenate(a), np.concatenate(b)))
              for link, (a, b) in linked.items()}
    return nearest_sum / n, {radius: count / n for radius, count in counts.items()}, groups


def agrees(recomputed, recorded):
    return abs(recomputed - recorded) <= TOLERANCE * max(1.0, abs(recorded))


def check(path, pairs_wanted):
    """Returns the exit status; raises BadFile."""
    try:
        file = h5py.File(path, "r")
    except FileNotFoundError:
        raise BadFile("no such file") from None
    except OSError as error:
        raise BadFile(f"not an HDF5 file h5py can open ({error})") from None
    with file:
        school = group_of(group_of(file, "particles"), "school")
        positions = dataset(group_of(school, "position"), "value", 3, "f")
        velocities = dataset(group_of(school, "velocity"), "value", 3, "f")
        frame_steps = dataset(school["position"], "step", 1, "iu")[...]
        if positions.shape[2] != 3 or positions.shape != velocities.shape:
            raise BadFile(f"particles/school/position/value: shape {positions.shape}, velocity "
                          f"{velocities.shape}; both must be [frames][fish][3]")
        if len(frame_steps) != positions.shape[0]:
            raise BadFile(f"particles/school/position/step: {len(frame_steps)} steps for "
                          f"{positions.shape[0]} frames")
        frames, fish = positions.shape[0], positions.shape[1]
        if fish > MAX_FISH:
            raise BadFile(f"particles/school/position/value: {fish:,} fish; this script reads a "
                          f"frame into memory and takes at most {MAX_FISH:,}")

        observables = group_of(file, "observables")
        present = [name for name in MEASURES if name in observables]
        if "polarization" not in present or "milling" not in present:
            raise BadFile(f"{observables.name.lstrip('/')}: needs polarization and milling; "
                          f"has {sorted(observables)}")
        pairs = pairs_wanted and fish <= PAIRS_LIMIT
        names = [name for name in present if pairs or name not in PAIR_MEASURES]
        recorded = {}
        for name in names:
            steps = dataset(observables[name], "step", 1, "iu")[...]
            values = dataset(observables[name], "value", 1, "f")[...]
            if len(steps) != len(values):
                raise BadFile(f"{observables[name].name.lstrip('/')}: {len(steps)} steps but "
                              f"{len(values)} values")
            recorded[name] = dict(zip(steps.tolist(), values.tolist()))
        by_pairs = {"neighbors", "groups", "largest_group_share"}
        configs = read_configs(file) if by_pairs & set(names) else []

        frame_of_step = {int(step): k for k, step in enumerate(frame_steps)}
        steps = sorted(set().union(*(recorded[name] for name in names)) & set(frame_of_step))
        unmatched = len(set(recorded["polarization"]) - set(frame_of_step))
        if not steps:
            raise BadFile(f"no observable was taken at a step the file has a frame of "
                          f"({frames} frames, {len(recorded['polarization'])} observables)")

        stats = {name: {"compared": 0, "abs": 0.0, "rel": 0.0, "worst": None} for name in names}
        failures = []
        for step in steps:
            k = frame_of_step[step]
            p = positions[k]
            v = velocities[k]
            polarization, milling = polarization_and_milling(p, v)
            ours = {"polarization": [polarization], "milling": [milling]}
            if pairs:
                radii = radii_at(configs, step) if "neighbors" in names else []
                links = (radii_at(configs, step, linking=True)
                         if {"groups", "largest_group_share"} & set(names) else [])
                nearest, neighbors, groups = pair_measures(p, radii, links)
                ours["nearest_neighbor"] = [nearest]
                ours["neighbors"] = list(neighbors.values())
                ours["groups"] = [count for count, _ in groups.values()]
                ours["largest_group_share"] = [share for _, share in groups.values()]
            for name in names:
                if step not in recorded[name]:
                    continue
                theirs = recorded[name][step]
                # With a change of config at this step, either config's value agrees.
                best = min(ours[name], key=lambda value: abs(value - theirs))
                difference = abs(best - theirs)
                entry = stats[name]
                entry["compared"] += 1
                if entry["worst"] is None or not difference <= entry["abs"]:  # NaN: the worst
                    entry["abs"], entry["worst"] = difference, step
                if theirs != 0:
                    entry["rel"] = max(entry["rel"], difference / abs(theirs))
                if not agrees(best, theirs):
                    failures.append((name, step, theirs, best))

    print(f"{path}: {frames} frames of {fish} fish; {len(steps)} steps with observables and a "
          f"frame compared; tolerance |recomputed - file| <= {TOLERANCE:g} * max(1, |file|)")
    if unmatched:
        print(f"  {unmatched} observable step(s) have no frame (measured more often than "
              f"recorded): not compared")
    if not pairs and any(name in present for name in PAIR_MEASURES):
        reason = "--no-pairs" if not pairs_wanted else f"more than {PAIRS_LIMIT:,} fish"
        print(f"  nearest_neighbor, neighbors and the groups not compared ({reason})")
    print(f"  {'measure':<21}{'compared':>9}{'max |diff|':>14}{'max rel diff':>14}"
          f"{'at step':>10}  result")
    for name in names:
        entry = stats[name]
        bad = sum(1 for failure in failures if failure[0] == name)
        result = "ok" if bad == 0 else f"FAIL ({bad})"
        worst = "-" if entry["worst"] is None else str(entry["worst"])
        print(f"  {name:<21}{entry['compared']:>9}{entry['abs']:>14.3e}{entry['rel']:>14.3e}"
              f"{worst:>10}  {result}")
    for name, step, theirs, ours in failures[:20]:
        print(f"  step {step}: {name} is {theirs!r} in the file, {ours!r} recomputed")
    if len(failures) > 20:
        print(f"  ... and {len(failures) - 20} more")
    return 1 if failures else 0


# The distributions of `fishschool-cli measure` (include/fishschool/Distributions.h,
# kDistributions): name, unit, low, high, bins.
DISTRIBUTIONS = (
    ("wall_distance", "m", 0.0, 20.0, 80),
    ("wall_angle", "rad", -3.14159265358979323846, 3.14159265358979323846, 72),
    ("nearest_neighbor", "m", 0.0, 10.0, 100),
    ("neighbor_heading", "rad", 0.0, 3.14159265358979323846, 36),
    ("viewing_angle", "rad", -3.14159265358979323846, 3.14159265358979323846, 72),
    ("speed", "m/s", 0.0, 5.0, 100),
    ("polarization", "1", 0.0, 1.0, 50),
    ("milling", "1", 0.0, 1.0, 50),
    ("turning_angle", "rad", 0.0, 3.14159265358979323846, 360),
    ("turn_axis_change", "rad", 0.0, 3.14159265358979323846, 720),
)


class Histogram:
    """Counts over fixed bins as Distributions.h's Histogram: [low + k w, low + (k+1) w), the last
    bin closed; values below and above counted apart, NaN not counted."""

    def __init__(self, low, high, bins):
        self.low, self.high, self.bins = low, high, bins
        self.counts = np.zeros(bins, dtype=np.int64)
        self.below = 0
        self.above = 0

    def add(self, values):
        values = np.asarray(values, dtype=np.float64)
        values = values[~np.isnan(values)]
        self.below += int(np.count_nonzero(values < self.low))
        self.above += int(np.count_nonzero(values > self.high))
        inside = values[(values >= self.low) & (values <= self.high)]
        k = np.floor((inside - self.low) * (self.bins / (self.high - self.low))).astype(np.int64)
        np.add.at(self.counts, np.minimum(k, self.bins - 1), 1)

    def edges(self):
        return [self.low + (self.high - self.low) * k / self.bins for k in range(self.bins + 1)]


def config_at(configs, step):
    """The config in force at `step`: the last change at or before it, else the run's."""
    chosen = configs[0][1]
    for change_step, config in configs[1:]:
        if change_step <= step:
            chosen = config
    return chosen


def wrap(angle):
    """a - 2 pi round(a / 2 pi), as the C++ (std::round: halves away from zero)."""
    turns = angle / (2.0 * np.pi)
    return angle - 2.0 * np.pi * (np.sign(turns) * np.floor(np.abs(turns) + 0.5))


def round_radius(bounds, config):
    """The round tank's radius (arena "cylinder"), or 0 for the box."""
    if config.get("arena", "box") != "cylinder":
        return 0.0
    radius = float(np.float32(config.get("arenaRadius", 0.0)))
    return radius if radius > 0.0 else min(bounds[0], bounds[2])


def wall_distance(p, bounds, config, flat):
    """Each fish's distance to the wall: the round one, else the box's nearest face."""
    radius = round_radius(bounds, config)
    if radius > 0.0:
        return radius - np.hypot(p[:, 0], p[:, 2])
    axes = [0, 2] if flat else [0, 1, 2]
    return np.min(np.stack([bounds[k] - np.abs(p[:, k]) for k in axes]), axis=0)


def wall_angle(p, v, bounds, config):
    """Each moving fish's heading in the x-z plane against the nearest side wall's outward
    normal (the radial direction in a round tank); NaN where there is none."""
    if round_radius(bounds, config) > 0.0:
        normal = np.arctan2(p[:, 2], p[:, 0])
        normal[(p[:, 0] == 0.0) & (p[:, 2] == 0.0)] = np.nan
    else:
        to_x = bounds[0] - np.abs(p[:, 0])
        to_z = bounds[2] - np.abs(p[:, 2])
        normal = np.where(to_x <= to_z, np.where(p[:, 0] < 0.0, np.pi, 0.0),
                          np.where(p[:, 2] < 0.0, -np.pi / 2, np.pi / 2))
    angle = wrap(np.arctan2(v[:, 2], v[:, 0]) - normal)
    angle[(v[:, 0] == 0.0) & (v[:, 2] == 0.0)] = np.nan
    return angle


def heading_angles(v, w):
    """The angle between each row of v and w (float64), radians in [0, pi]; NaN where either is
    zero."""
    cross = np.cross(v, w)
    angle = np.arctan2(np.sqrt(np.einsum("ij,ij->i", cross, cross)), np.einsum("ij,ij->i", v, w))
    moving = (np.einsum("ij,ij->i", v, v) > 0.0) & (np.einsum("ij,ij->i", w, w) > 0.0)
    angle[~moving] = np.nan
    return angle


def turn_axis_changes(u, v, w):
    """The angle between the axes of each row's turn from u to v and from v to w (float64),
    radians in [0, pi]; NaN where either turn is none."""
    first, second = np.cross(u, v), np.cross(v, w)
    both = np.cross(first, second)
    angle = np.arctan2(np.sqrt(np.einsum("ij,ij->i", both, both)),
                       np.einsum("ij,ij->i", first, second))
    turning = ((first != 0.0).any(axis=1)) & ((second != 0.0).any(axis=1))
    angle[~turning] = np.nan
    return angle


def frame_distributions(p32, v32, config, histograms):
    """Adds one frame's values to `histograms` (by name); returns its measures."""
    n = len(p32)
    p = p32.astype(np.float64)
    v = v32.astype(np.float64)
    polarization, milling = polarization_and_milling(p32, v32)
    bounds = [float(np.float32(b)) for b in config.get("bounds", [40.0, 20.0, 40.0])]
    boundary = config.get("boundary", "walls")
    flat = int(config.get("dimensions", 3)) == 2
    speed = np.sqrt(np.einsum("ij,ij->i", v, v))
    histograms["speed"].add(speed)
    if boundary == "walls":
        histograms["wall_distance"].add(wall_distance(p, bounds, config, flat))
        histograms["wall_angle"].add(wall_angle(p, v, bounds, config))
    histograms["polarization"].add([polarization])
    histograms["milling"].add([milling])
    measures = {"polarization": polarization, "milling": milling}
    if n < 2:
        return measures
    box = 2.0 * np.array(bounds) if boundary == "periodic" else None
    radius = float(np.float32(config.get("rCohesion", 20.0)))
    nearest = np.empty(n, dtype=np.int64)
    distance = np.empty(n)
    neighbors = 0
    block = max(1, PAIR_BLOCK // n)
    for start in range(0, n, block):
        rows = slice(start, min(start + block, n))
        e = p[None, :, :] - p[rows, None, :]
        if box is not None:
            e -= box * np.floor(e / box + 0.5)
        e2 = (e[..., 0] * e[..., 0] + e[..., 1] * e[..., 1]) + e[..., 2] * e[..., 2]
        own = np.arange(rows.start, rows.stop)
        e2[own - rows.start, own] = np.inf
        nearest[rows] = np.argmin(e2, axis=1)
        distance[rows] = np.sqrt(e2[own - rows.start, nearest[rows]])
        neighbors += int(np.count_nonzero(e2 < radius * radius))
    histograms["nearest_neighbor"].add(distance)
    w = v[nearest]
    cross = np.cross(v, w)
    angle = np.arctan2(np.sqrt(np.einsum("ij,ij->i", cross, cross)), np.einsum("ij,ij->i", v, w))
    moving = (speed > 0.0) & (speed[nearest] > 0.0)
    histograms["neighbor_heading"].add(angle[moving])
    in_plane = (v[:, 0] != 0.0) | (v[:, 2] != 0.0)
    toward = np.arctan2(p[nearest, 2] - p[:, 2], p[nearest, 0] - p[:, 0])
    histograms["viewing_angle"].add(wrap(toward - np.arctan2(v[:, 2], v[:, 0]))[in_plane])
    measures["nearest_neighbor_m"] = float(distance.mean())
    measures["neighbors"] = neighbors / n
    return measures


def distributions(path, out):
    """Writes the histograms of every frame of `path` to `out` as `fishschool-cli measure
    --histograms` writes them; returns the exit status; raises BadFile."""
    try:
        file = h5py.File(path, "r")
    except FileNotFoundError:
        raise BadFile("no such file") from None
    except OSError as error:
        raise BadFile(f"not an HDF5 file h5py can open ({error})") from None
    histograms = {name: Histogram(low, high, bins) for name, _, low, high, bins in DISTRIBUTIONS}
    with file:
        school = group_of(group_of(file, "particles"), "school")
        positions = dataset(group_of(school, "position"), "value", 3, "f")
        velocities = dataset(group_of(school, "velocity"), "value", 3, "f")
        steps = dataset(school["position"], "step", 1, "iu")[...]
        if positions.shape[2] != 3 or positions.shape != velocities.shape:
            raise BadFile(f"particles/school/position/value: shape {positions.shape}, velocity "
                          f"{velocities.shape}; both must be [frames][fish][3]")
        configs = read_configs(file)
        frames = positions.shape[0]
        before = before_that = None
        for k in range(frames):
            v32 = velocities[k]
            frame_distributions(positions[k], v32, config_at(configs, int(steps[k])), histograms)
            # Each fish's turns since the frames before (fish by index).
            if before is not None and len(before) == len(v32):
                histograms["turning_angle"].add(
                    heading_angles(before.astype(np.float64), v32.astype(np.float64)))
                if before_that is not None and len(before_that) == len(v32):
                    histograms["turn_axis_change"].add(turn_axis_changes(
                        before_that.astype(np.float64), before.astype(np.float64),
                        v32.astype(np.float64)))
            before_that, before = before, v32
    with open(out, "w", encoding="utf-8") as csv:
        csv.write("distribution,unit,bin_low,bin_high,count\n")
        for name, unit, low, high, bins in DISTRIBUTIONS:
            h = histograms[name]
            edges = h.edges()
            for k in range(bins):
                csv.write(f"{name},{unit},{edges[k]:.9g},{edges[k + 1]:.9g},{h.counts[k]}\n")
            csv.write(f"{name},{unit},-inf,{low:.9g},{h.below}\n")
            csv.write(f"{name},{unit},{high:.9g},inf,{h.above}\n")
    print(f"{path}: {frames} frames of {positions.shape[1]} fish; histograms written to {out}")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(
        description="Recompute a trajectory's measures from its frames and compare them with "
                    "its observables (docs/trajectories.md). Exit 0: all agree; 1: some "
                    "differ by more than 1e-5 (relative above 1); 2: bad usage or file.")
    parser.add_argument("file", help="an H5MD trajectory (fishschool-cli simulate --trajectory)")
    parser.add_argument("--no-pairs", action="store_true",
                        help="skip nearest_neighbor, neighbors and the groups (O(N^2) a frame)")
    parser.add_argument("--histograms", metavar="OUT.csv",
                        help="instead of checking: compute the distributions of `fishschool-cli "
                             "measure` in NumPy and write them as its --histograms CSV")
    args = parser.parse_args(argv)  # exits 2 on bad usage
    if h5py is None:
        print(f"trajectory_measures.py: needs h5py (Debian: python3-h5py): {H5PY_MISSING}",
              file=sys.stderr)
        return 2
    try:
        if args.histograms:
            return distributions(args.file, args.histograms)
        return check(args.file, not args.no_pairs)
    except BadFile as error:
        print(f"trajectory_measures.py: {args.file}: {error}", file=sys.stderr)
        return 2
    except (OSError, KeyError, ValueError, TypeError) as error:
        # h5py's errors while reading a damaged file.
        print(f"trajectory_measures.py: {args.file}: cannot read: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
