#!/usr/bin/python3
"""Writes the seed corpus of the trajectory fuzz target (tests/fuzz/TrajectoryFuzz.cpp): a few
small H5MD files in FishSchool's layout (src/io/Trajectory.h), valid and nearly valid, of a few
fish and frames each. Usage: scripts/fuzz/make_trajectory_corpus.py FOLDER (Debian's h5py)."""
import json
import os
import sys

import h5py
import numpy as np


def write(path, fish=3, frames=2, libver="latest", kinds=None, config=None, changes=(),
          measures=False, value_type="f4", contiguous=True, variable_strings=False, mutate=None):
    """Fixed-length strings unless told: a variable-length one costs a heap of 4 kB."""
    rng = np.random.default_rng(len(path))
    config = config if config is not None else json.dumps(
        {"fishCount": fish, "bounds": [10, 10, 10], "rocks": []})
    with h5py.File(path, "w", libver=libver) as f:
        f.create_group("h5md").attrs["version"] = np.array([1, 1], dtype="i4")
        school = f.create_group("particles/school")
        steps = np.arange(frames, dtype="i8") * 5
        times = steps * 0.1
        layout = {} if contiguous else {"chunks": True, "maxshape": (None, fish, 3)}
        for element in ("position", "velocity"):
            group = school.create_group(element)
            values = rng.uniform(-5, 5, (frames, fish, 3)).astype(value_type)
            group.create_dataset("value", data=values, **layout)
            if element == "position":
                group.create_dataset("step", data=steps)
                group.create_dataset("time", data=times)
            else:
                group["step"] = school["position/step"]
                group["time"] = school["position/time"]
        school.create_dataset("species", data=np.array(kinds or [0] * fish, dtype="i4"))
        if measures:
            for name in ("polarization", "milling", "nearest_neighbor", "neighbors"):
                group = f.create_group("observables/school/" + name)
                group.create_dataset("step", data=steps)
                group.create_dataset("time", data=times)
                group.create_dataset("value", data=rng.uniform(0, 1, frames))
        parameters = f.create_group("parameters")
        parameters["config"] = config if variable_strings else np.bytes_(config)
        group = parameters.create_group("changes")
        group.create_dataset("step", data=np.array([c[0] for c in changes], dtype="i8"))
        group.create_dataset("time", data=np.array([c[0] * 0.1 for c in changes], dtype="f8"))
        texts = [c[1] for c in changes]
        if variable_strings:
            group.create_dataset("value", data=texts, dtype=h5py.string_dtype())
        else:
            group.create_dataset("value", data=np.array(texts, dtype="S%d" % max(
                [len(t) for t in texts] + [1])))
        if mutate:
            mutate(f)


def main():
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    at = lambda name: os.path.join(folder, name)
    write(at("small.h5"))
    write(at("earliest.h5"), libver="earliest", frames=3, variable_strings=True)
    write(at("chunked-f8.h5"), value_type=">f8", contiguous=False, fish=2)
    write(at("kinds-changes.h5"), fish=4, kinds=[1, 2, 0, 0], measures=True,
          config=json.dumps({"fishCount": 4, "leaders": 1, "predators": 1, "rocks": []}),
          changes=[(5, json.dumps({"fishCount": 4, "leaders": 1, "predators": 1,
                                   "noise": 0.5, "rocks": []}))])
    write(at("no-fish.h5"), fish=0, frames=1)

    def soft(f):
        del f["particles/school/velocity/step"]
        f["particles/school/velocity/step"] = h5py.SoftLink("/particles/school/position/step")
    write(at("soft-link.h5"), mutate=soft)

    def nan(f):
        f["particles/school/position/value"][1, 0, 2] = np.nan
    write(at("nan.h5"), mutate=nan)

    # What a file claims against what it holds: species against its config's, a config string
    # with a NUL inside, chunks of one frame (a chunk shape the fuzzer may edit).
    def species(f):
        f["particles/school/kind"] = np.zeros(4, dtype="i4")
        del f["particles/school/species"]
        f["particles/school/species"] = np.array([0, 1, 1, 0], dtype="i4")
    write(at("species.h5"), fish=4, mutate=species, config=json.dumps(
        {"fishCount": 4, "rocks": [], "species": [{"name": "a", "count": 2},
                                                  {"name": "b", "count": 2}]}))

    def config_nul(f):
        text = f["parameters/config"][()]
        del f["parameters/config"]
        f["parameters/config"] = np.bytes_(text + b'\0{"dt": -1}')
    write(at("config-nul.h5"), mutate=config_nul)

    def frame_chunks(f):
        value = "particles/school/position/value"
        data = f[value][()]
        del f[value]
        f.create_dataset(value, data=data, chunks=(1, 6, 3))
    write(at("frame-chunks.h5"), fish=6, frames=3, libver="earliest", mutate=frame_chunks)

    # Burst-and-coast: each fish's kick clock a frame, one of them out of its range.
    def kick_clock(f):
        group = f.create_group("particles/school/kick_clock")
        group["step"] = f["particles/school/position/step"]
        group["time"] = f["particles/school/position/time"]
        clocks = np.array([[0.0, 0.25, 1e-6], [0.5, -0.5, 0.125]], dtype="f4")
        group.create_dataset("value", data=clocks)
    write(at("kick-clock.h5"), mutate=kick_clock, config=json.dumps(
        {"fishCount": 3, "bounds": [10, 10, 10], "rocks": [], "steering": "burst-and-coast"}))


if __name__ == "__main__":
    main()
