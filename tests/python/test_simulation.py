"""The fishschool module (docs/python.md): stepping, the zero-copy views of the school, the same
bits as fishschool-cli, errors as Python exceptions, the GIL released while stepping."""

import gc
import json
import math
import os
import pathlib
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

# ---- the module -------------------------------------------------------------------------------


def test_version_and_backends(fishschool):
    assert isinstance(fishschool.__version__, str) and fishschool.__version__.count(".") == 2
    backends = fishschool.backends()
    assert [b["name"] for b in backends][:2] == ["cpu", "tbb"]
    for b in backends:
        assert set(b) == {"name", "label", "built"}
        assert isinstance(b["built"], bool)


def test_params_lists_every_key(fishschool, small):
    params = small.params
    assert set(params) == set(fishschool.default_params())
    assert params["fishCount"] == 300 and params["seed"] == 5
    assert small.fish_count == 300 and small.backend == "tbb"  # the default


# ---- stepping ---------------------------------------------------------------------------------


def test_step_moves_the_school(small):
    before = small.positions.copy()
    dt = small.params["dt"]
    small.step()
    small.step(9)
    assert small.step_count == 10
    assert small.time == pytest.approx(10 * dt)
    after = small.positions
    assert after.shape == (300, 3)
    assert not np.array_equal(before, after)
    assert np.all(np.isfinite(after))
    small.step(0)
    assert small.step_count == 10


def test_step_in_pieces_gives_the_same_bits(fishschool):
    with fishschool.Simulation(fishCount=200, seed=9, noise=0.1) as a, \
         fishschool.Simulation(fishCount=200, seed=9, noise=0.1) as b:
        a.step(37)
        for _ in range(37):
            b.step(1)
        assert np.array_equal(a.positions, b.positions)
        assert np.array_equal(a.velocities, b.velocities)


TETRAS = dict(fishCount=12, seed=4, steering="burst-and-coast", arena="cylinder",
              bounds=[0.25, 0.035, 0.25], dimensions=2, rocks=[], dt=0.01, rCohesion=1.0,
              maxVelocity=0.35, kickSpeedMax=0.35)


@pytest.mark.parametrize("backend", ["cpu", "tbb"])
def test_kick_clocks_are_saved_and_resumed(fishschool, tmp_path, backend):
    """docs/model.md, Burst-and-coast swimming: a state file and a trajectory's frame keep each
    fish's kick clock, so a school loaded from either steps on as the one that never stopped."""
    with fishschool.Simulation(backend=backend, **TETRAS) as sim:
        clocks = sim.kick_clocks
        assert clocks.dtype == np.float32 and clocks.shape == (12,)
        assert not clocks.flags.writeable
        assert np.all(clocks == 0)  # a new school draws its first kicks at its first step
        sim.record(trajectory=str(tmp_path / "t.h5"), every=40)
        sim.step(40)
        assert np.all(sim.kick_clocks > 0)
        sim.save_state(tmp_path / "s.csv")
        saved = sim.kick_clocks.copy()
        sim.finish_recording()
        sim.step(30)
        with fishschool.Simulation(backend=backend, **TETRAS) as loaded:
            loaded.load_state(tmp_path / "s.csv")
            assert np.array_equal(loaded.kick_clocks, saved)
        with fishschool.Trajectory(tmp_path / "t.h5") as t:
            assert np.array_equal(t.kick_clocks(-1), saved)
            assert np.all(t.kick_clocks(0) == 0)
        with fishschool.Simulation.from_trajectory(tmp_path / "t.h5", backend=backend) as resumed:
            assert np.array_equal(resumed.kick_clocks, saved)
            resumed.step(30)
            assert np.array_equal(resumed.positions, sim.positions)
            assert np.array_equal(resumed.kick_clocks, sim.kick_clocks)
    with fishschool.Simulation(fishCount=3) as plain:
        plain.record(trajectory=str(tmp_path / "plain.h5"))
        plain.finish_recording()
    with fishschool.Trajectory(tmp_path / "plain.h5") as t:
        assert t.kick_clocks(0) is None


# ---- zero-copy views --------------------------------------------------------------------------


def test_species_are_a_view_of_each_fish(fishschool):
    species = [{"name": "small", "count": 200}, {"name": "big", "count": 100, "maxVelocity": 5}]
    with fishschool.Simulation(fishCount=300, seed=5, species=species) as sim:
        kinds = sim.species
        assert kinds.dtype == np.uint32 and kinds.shape == (300,)
        assert not kinds.flags.writeable
        assert np.array_equal(kinds, [0] * 200 + [1] * 100)
        assert kinds.ctypes.data == sim.positions.ctypes.data + 36
        # A new school swims at half of each species' own maxVelocity.
        speeds = np.linalg.norm(sim.velocities, axis=1)
        assert np.allclose(speeds[:200], 1.5) and np.allclose(speeds[200:], 2.5)
        sim.step(5)
        assert np.array_equal(sim.species, kinds)  # a fish's species never changes
        assert [s["name"] for s in sim.params["species"]] == ["small", "big"]
    with fishschool.Simulation(fishCount=10) as plain:
        assert np.array_equal(plain.species, np.zeros(10, dtype=np.uint32))


def test_positions_view_the_buffer_without_a_copy(small):
    first = small.positions
    second = small.positions
    assert first is not second
    assert np.shares_memory(first, second)
    assert first.dtype == np.float32 and first.shape == (300, 3)
    assert first.strides == (44, 4)
    assert not first.flags.writeable and not first.flags.owndata
    with pytest.raises(ValueError):
        first[0, 0] = 1.0
    # The three vectors of a fish lie 12 bytes apart in one buffer of 40-byte fish (9 floats and
    # the species).
    assert small.velocities.ctypes.data == first.ctypes.data + 12
    assert small.accelerations.ctypes.data == first.ctypes.data + 24

    # With no array alive, a step's school is read into the same buffer: nothing allocated.
    address = first.ctypes.data
    del first, second
    small.step()
    after = small.positions
    assert after.ctypes.data == address


def test_an_array_keeps_the_school_it_read(small):
    before = small.positions
    kept = before.copy()
    small.step(5)
    after = small.positions
    # The array read before the steps still shows the school before them, in a buffer of its own.
    assert np.array_equal(before, kept)
    assert not np.shares_memory(before, after)
    assert not np.array_equal(before, after)


def test_arrays_outlive_a_resize_and_the_simulation(fishschool):
    sim = fishschool.Simulation(fishCount=50, seed=2)
    sim.step(3)
    positions = sim.positions
    expected = positions.copy()
    sim.set_params(fishCount=5000)  # the school's buffer grows elsewhere
    assert sim.positions.shape == (5000, 3)
    sim.close()
    del sim
    gc.collect()
    assert np.array_equal(positions, expected)
    assert positions.sum() == expected.sum()  # every byte still readable


# ---- the same bits as fishschool-cli ----------------------------------------------------------


def read_state_csv(path):
    lines = path.read_text().splitlines()
    assert lines[0] == "x,y,z,vx,vy,vz"
    # %.9g of a float reads back as the same float (through a double: 9 digits are far from a
    # midpoint between floats).
    values = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    return values.astype(np.float32)


@pytest.mark.parametrize("backend", ["cpu", "tbb"])
def test_same_bits_as_the_cli(fishschool, cli, tmp_path, backend):
    config = tmp_path / "school.json"
    config.write_text(json.dumps({"fishCount": 400, "seed": 11, "noise": 0.05, "kAvoidance": 2}))
    state = tmp_path / "state.csv"
    steps = 60
    subprocess.run([str(cli), "simulate", "--config", str(config), "--steps", str(steps),
                    "--state-out", str(state), "--backend", backend],
                   check=True, capture_output=True, timeout=120)
    expected = read_state_csv(state)

    with fishschool.Simulation(config, backend=backend) as sim:
        sim.step(steps)
        assert sim.step_count == steps
        assert np.array_equal(sim.positions, expected[:, :3])
        assert np.array_equal(sim.velocities, expected[:, 3:])
    # The same config as a dict, and as keys over the defaults.
    with fishschool.Simulation(json.loads(config.read_text()), backend=backend) as sim:
        sim.step(steps)
        assert np.array_equal(sim.positions, expected[:, :3])
    with fishschool.Simulation(backend=backend, fishCount=400, seed=11, noise=0.05,
                               kAvoidance=2) as sim:
        sim.step(steps)
        assert np.array_equal(sim.velocities, expected[:, 3:])


def test_keys_override_the_config_file(fishschool, tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"fishCount": 100, "seed": 4, "rCohesion": 12}))
    with fishschool.Simulation(str(config), fishCount=30, noise=0.2) as sim:
        p = sim.params
        assert (p["fishCount"], p["seed"], p["rCohesion"], p["noise"]) == (30, 4, 12, 0.2)
        assert sim.fish_count == 30


# ---- parameters -------------------------------------------------------------------------------


def test_set_params(small):
    small.set_params(rCohesion=10, kAlignment=1.5, lockVerticalSteering=True,
                     bounds=np.array([30.0, 20.0, 30.0]))
    p = small.params
    assert p["rCohesion"] == 10 and p["kAlignment"] == 1.5 and p["lockVerticalSteering"] is True
    assert p["bounds"] == [30, 20, 30]
    small.set_params(fishCount=120)
    assert small.fish_count == 120 and small.positions.shape == (120, 3)
    small.step(2)


@pytest.mark.parametrize("keys, words", [
    ({"rCohesion": -1}, ["rCohesion", "-1", ">= 0"]),
    ({"kCohesoin": 1}, ["kCohesoin", "unknown key"]),
    ({"kSeparation": "2"}, ["kSeparation", "must be a number"]),
    ({"fishCount": 2.5}, ["fishCount"]),
    ({"neighborSearch": "octree"}, ["neighborSearch", "octree"]),
])
def test_set_params_refused_names_the_key(small, keys, words):
    before = small.params
    with pytest.raises(ValueError) as error:
        small.set_params(**keys)
    for word in words:
        assert word in str(error.value)
    assert small.params == before


@pytest.mark.parametrize("keys, words", [
    ({"dt": float("nan")}, ["key 'dt'", "nan", "finite"]),
    ({"dt": np.float32("inf")}, ["key 'dt'", "inf", "finite"]),
    ({"bounds": [1.0, float("-inf"), 2.0]}, ["key 'bounds[1]'", "-inf"]),
    ({"species": [{"name": "a", "count": 300, "maxVelocity": float("nan")}]},
     ["key 'species[0].maxVelocity'", "nan"]),
])
def test_set_params_refuses_what_json_cannot_hold_naming_the_key(small, keys, words):
    before = small.params
    with pytest.raises(ValueError) as error:
        small.set_params(**keys)
    for word in words:
        assert word in str(error.value), str(error.value)
    assert "JSON compliant" not in str(error.value)
    assert small.params == before


def _deep_list(depth):
    value = 1.0
    for _ in range(depth):
        value = [value]
    return value


def test_a_deep_value_is_refused_naming_the_key(fishschool, small):
    for make in (lambda keys: small.set_params(**keys), lambda keys: fishschool.Simulation(keys),
                 lambda keys: fishschool.Simulation(**keys)):
        with pytest.raises(ValueError, match=r"key 'bounds\[0\].*nest more than 16"):
            make({"bounds": _deep_list(5000)})
    cycle = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="key 'rocks"):
        small.set_params(rocks=cycle)


def test_a_value_of_another_type_is_refused_naming_the_key(fishschool, small):
    with pytest.raises(TypeError, match="key 'bounds\\[2\\]'.*object"):
        small.set_params(bounds=[1.0, 2.0, object()])
    with pytest.raises(TypeError, match="keys must be str"):
        fishschool.Simulation({1: 2})
    # NumPy values are their Python values.
    small.set_params(dt=np.float64(0.02), bounds=np.array([30.0, 30.0, 30.0]))
    assert small.params["dt"] == pytest.approx(0.02) and small.params["bounds"] == [30, 30, 30]


def test_a_school_past_the_fish_limit_is_refused_before_it_is_made(fishschool, small):
    # A broadcast view of 10^12 rows costs NumPy nothing; a school of them is past the limit.
    huge = np.broadcast_to(np.zeros(3), (10 ** 12, 3))
    for call in (small.set_school, small.add_fish,
                 lambda p: fishschool.measure(p, p)):
        with pytest.raises(ValueError, match="16000000 fish"):
            call(huge)
    with pytest.raises(ValueError, match="16000000 fish"):
        small.remove_fish(np.broadcast_to(np.int64(0), (10 ** 12,)))
    for keys in ({"fishCount": 10 ** 12}, {"fishCount": 10 ** 30}):
        with pytest.raises(ValueError, match="fishCount"):
            small.set_params(**keys)
        with pytest.raises(ValueError, match="fishCount"):
            fishschool.Simulation(**keys)
    assert small.fish_count == 300


def test_bad_config_raises(fishschool, tmp_path):
    with pytest.raises(ValueError, match="rSeparation"):
        fishschool.Simulation({"rSeparation": -3})
    with pytest.raises(ValueError, match="bogus"):
        fishschool.Simulation(bogus=1)
    bad = tmp_path / "bad.json"
    bad.write_text('{"dt": 0}')
    with pytest.raises(ValueError, match="bad.json"):
        fishschool.Simulation(bad)
    with pytest.raises(FileNotFoundError):
        fishschool.Simulation(tmp_path / "missing.json")
    with pytest.raises(TypeError):
        fishschool.Simulation(42)


def test_bad_backend_name(fishschool, small):
    with pytest.raises(ValueError, match="cuda"):
        fishschool.Simulation(backend="cuda")
    with pytest.raises(ValueError, match="must be cpu, tbb"):
        small.backend = "cuda"
    assert small.backend == "tbb"


# ---- the school -------------------------------------------------------------------------------


def test_set_school_float32_and_float64(small):
    positions = np.array([[0, 0, 0], [1, 2, 3], [-5, 4, 10]], dtype=np.float64)
    velocities = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float32)
    small.step(3)
    small.set_school(positions, velocities)
    assert small.fish_count == 3 and small.time == 0.0
    assert np.array_equal(small.positions, positions.astype(np.float32))
    assert np.array_equal(small.velocities, velocities)
    # Strided input (a slice of a wider array) is read through its strides.
    wide = np.arange(12, dtype=np.float32).reshape(2, 6)
    small.set_school(wide[:, ::2])
    assert np.array_equal(small.positions, wide[:, ::2])
    assert np.array_equal(small.velocities, np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("positions, error", [
    (np.zeros((4, 2)), ValueError),
    (np.zeros(3), ValueError),
    (np.zeros((2, 3, 1)), ValueError),
    (np.zeros((4, 3), dtype=np.int32), TypeError),
    (np.zeros((4, 3), dtype=np.float16), TypeError),
    (np.zeros((4, 3), dtype=np.complex64), TypeError),
    ([["a", "b", "c"]], TypeError),
    (np.array([[0, 0, 0], [np.nan, 0, 0]]), ValueError),
    (np.array([[0, 0, np.inf]], dtype=np.float32), ValueError),
    (np.array([[1e300, 0, 0]]), ValueError),   # beyond a float: inf
    (np.array([[100.0, 0, 0]]), ValueError),   # outside the tank
])
def test_set_school_refuses(small, positions, error):
    before = small.positions.copy()
    with pytest.raises(error):
        small.set_school(positions)
    with pytest.raises(error):
        small.add_fish(positions)
    assert np.array_equal(small.positions, before)


def test_set_school_refuses_mismatched_velocities(small):
    with pytest.raises(ValueError, match="velocities"):
        small.set_school(np.zeros((3, 3)), np.zeros((2, 3)))
    with pytest.raises(ValueError):
        small.set_school(np.zeros((1, 3)), np.array([[np.nan, 0, 0]]))


def test_add_and_remove_fish(small):
    old = small.positions.copy()
    small.add_fish(np.array([[1.0, 2.0, 3.0]]), np.array([[0.5, 0.0, 0.0]]))
    assert small.fish_count == 301
    assert np.array_equal(small.positions[300], [1, 2, 3])
    small.remove_fish([300, 0])
    assert small.fish_count == 299
    assert np.array_equal(small.positions, old[1:])
    small.remove_fish(np.array([5], dtype=np.uint32))
    small.remove_fish(0)
    small.remove_fish([])
    assert small.fish_count == 297


@pytest.mark.parametrize("indices, error", [
    ([1000], ValueError),
    ([3, 3], ValueError),
    ([-1], ValueError),
    ([1.0], TypeError),
    ([True], TypeError),
    ([[1, 2]], ValueError),
])
def test_remove_fish_refuses(small, indices, error):
    with pytest.raises(error):
        small.remove_fish(indices)
    assert small.fish_count == 300


def test_reset(fishschool, small):
    small.step(4)
    small.reset(8)
    assert small.time == 0.0
    with fishschool.Simulation(fishCount=300, seed=8) as fresh:
        assert np.array_equal(small.positions, fresh.positions)
    with pytest.raises(ValueError, match="seed"):
        small.reset(-1)
    with pytest.raises(ValueError, match="seed"):
        small.reset(2 ** 64)
    with pytest.raises(TypeError):
        small.reset(1.5)


@pytest.mark.parametrize("n, error", [(-1, ValueError), (1.5, TypeError), ("3", TypeError),
                                      (2 ** 70, ValueError)])
def test_bad_step_count(small, n, error):
    with pytest.raises(error):
        small.step(n)
    assert small.step_count == 0


# ---- files ------------------------------------------------------------------------------------


def test_state_and_config_files(fishschool, small, tmp_path):
    small.step(5)
    small.save_state(tmp_path / "s.csv")
    small.save_config(str(tmp_path / "c.json"))
    saved = small.positions.copy()
    small.step(5)
    small.load_state(tmp_path / "s.csv")
    assert np.array_equal(small.positions, saved)
    with fishschool.Simulation(tmp_path / "c.json") as again:
        assert again.params == small.params
    with pytest.raises(FileNotFoundError):
        small.load_state(tmp_path / "none.csv")
    (tmp_path / "bad.csv").write_text("x,y,z\n")
    with pytest.raises(ValueError, match="bad header"):
        small.load_state(tmp_path / "bad.csv")
    with pytest.raises(OSError):
        small.save_state(tmp_path / "no-such-folder" / "s.csv")


# ---- measures ---------------------------------------------------------------------------------


def test_polarization_from_numpy_matches_measures(fishschool):
    with fishschool.Simulation(fishCount=500, seed=3) as sim:
        sim.step(120)
        v = sim.velocities.astype(np.float64)
        unit = v / np.linalg.norm(v, axis=1, keepdims=True)
        polarization = np.linalg.norm(unit.mean(axis=0))
        m = sim.measures()
        assert set(m) == {"polarization", "milling", "nearest_neighbor_m", "neighbors",
                          "direction_error", "groups", "largest_group_share", "rotation",
                          "state", "dispersion_m", "wall_distance_m", "wall_angle",
                          "centre_wall_distance_m", "centre_wall_angle"}
        assert m["polarization"] == pytest.approx(polarization, abs=1e-5)
        assert math.isnan(m["direction_error"])  # no fish informed
        assert m["groups"] >= 1 and 0 < m["largest_group_share"] <= 1


def test_each_species_share_in_the_largest_group(fishschool):
    # Two species apart, each its own group: the larger one is the largest.
    with fishschool.Simulation(fishCount=30, seed=1, rocks=[], startRadius=0,
                               species=[{"name": "a", "count": 20}, {"name": "b", "count": 10}],
                               groupDistance=1.5) as sim:
        # Species a's 20 fish in a row 1 m apart at x = -20, b's 10 at x = +10; linked at 1.5 m.
        positions = np.zeros((30, 3))
        positions[:20, 0] = -20.0 + np.arange(20)
        positions[20:, 0] = 10.0 + np.arange(10)
        sim.set_school(positions, np.tile([1.0, 0.0, 0.0], (30, 1)), species=[0] * 20 + [1] * 10)
        assert list(sim.species) == [0] * 20 + [1] * 10
        assert [s["count"] for s in sim.params["species"]] == [20, 10]
        with pytest.raises(ValueError, match=r"species: 2 \(fish 0\) is not allowed; must be "
                                             r"from 0 to 1"):
            sim.add_fish([[0.0, 5.0, 0.0]], species=[2])
        with pytest.raises(ValueError, match=r"species: shape \(2,\) is not allowed"):
            sim.add_fish([[0.0, 5.0, 0.0]], species=[1, 1])
        m = sim.measures()
        assert m["groups"] == 2
        assert m["largest_group_share"] == pytest.approx(20 / 30)
        assert m["largest_group_share_by_species"] == pytest.approx([1.0, 0.0])


# ---- closing ----------------------------------------------------------------------------------


def test_closed_simulation_raises(fishschool):
    with fishschool.Simulation(fishCount=20) as sim:
        positions = sim.positions
        expected = positions.copy()
    assert sim.closed
    calls = [lambda: sim.step(), lambda: sim.positions, lambda: sim.params,
             lambda: sim.fish_count, lambda: sim.measures(), lambda: sim.set_params(seed=2),
             lambda: sim.reset(1), lambda: sim.backend, lambda: sim.save_state("x.csv")]
    for call in calls:
        with pytest.raises(RuntimeError, match="the simulation is closed"):
            call()
    sim.close()  # twice: nothing
    # An array read before close stays readable: the buffer it views is kept for it.
    assert np.array_equal(positions, expected)
    assert "closed" in repr(sim)


# ---- threads ----------------------------------------------------------------------------------


def test_step_releases_the_gil(fishschool):
    with fishschool.Simulation(fishCount=2000, seed=1) as sim:
        sim.step(1)
        count = 0
        stop = False

        def spin():
            nonlocal count
            while not stop:
                count += 1

        thread = threading.Thread(target=spin)
        thread.start()
        try:
            time.sleep(0.02)
            before = count
            start = time.perf_counter()
            sim.step(200)
            seconds = time.perf_counter() - start
            during = count - before
        finally:
            stop = True
            thread.join()
        print(f"200 steps of 2000 fish: {seconds:.3f} s; the thread counted {during} meanwhile")
        # Holding the GIL, the step would leave the thread no bytecode to run.
        assert during > 10000


def test_ctrl_c_stops_a_long_step(fishschool):
    # A process started in the background of a script (`cmd &`, nohup) begins with SIGINT
    # ignored, and Python then leaves it so (the step would run on forever): Ctrl-C is Python's
    # here whatever the launcher did.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupt_a_long_step(fishschool)
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt_a_long_step(fishschool):
    with fishschool.Simulation(fishCount=2000, seed=1) as sim:
        timer = threading.Timer(0.3, os.kill, args=(os.getpid(), signal.SIGINT))
        timer.start()
        start = time.perf_counter()
        try:
            with pytest.raises(KeyboardInterrupt):
                sim.step(10 ** 12)
        finally:
            timer.cancel()
        assert time.perf_counter() - start < 10
        taken = sim.step_count
        assert taken > 0
        sim.step()  # usable after
        assert sim.step_count == taken + 1


def test_calls_during_a_step_on_another_thread_raise(fishschool):
    with fishschool.Simulation(fishCount=3000, seed=1) as sim:
        thread = threading.Thread(target=sim.step, args=(400,))
        thread.start()
        refused = None
        while thread.is_alive():
            try:
                sim.fish_count
            except RuntimeError as error:
                refused = error
                break
            time.sleep(0.001)
        thread.join()
        if refused is None:
            pytest.skip("the step ended before this thread could call in")
        assert "busy" in str(refused)
        assert sim.step_count == 400


# ---- backends ---------------------------------------------------------------------------------


def test_backend_switch_keeps_the_school(small):
    small.step(7)
    positions, velocities = small.positions.copy(), small.velocities.copy()
    small.backend = "tbb"
    assert small.backend == "tbb" and small.step_count == 7
    assert np.array_equal(small.positions, positions)
    assert np.array_equal(small.velocities, velocities)
    small.step(3)
    small.backend = "cpu"
    assert small.step_count == 10


def test_gpu_backend(fishschool, gpu_reason):
    if gpu_reason:
        print(gpu_reason)
        pytest.skip(gpu_reason)
    with fishschool.Simulation(fishCount=1000, seed=2, backend="gpu") as sim:
        assert sim.backend == "gpu"
        sim.step(30)
        positions = sim.positions
        assert positions.shape == (1000, 3)
        assert np.all(np.isfinite(positions))
        kept = positions.copy()
        sim.backend = "cpu"
        assert np.array_equal(sim.positions, kept)
        assert sim.step_count == 30
        sim.backend = "gpu"
        sim.step(5)
        m = sim.measures()
        assert 0.0 <= m["polarization"] <= 1.0 and not math.isnan(m["milling"])


# ---- ensembles --------------------------------------------------------------------------------


def _ensemble_file(folder, body=None):
    path = folder / "e.json"
    path.write_text(json.dumps(body or {
        "base": {"fishCount": 30, "rocks": []},
        "axes": {"noise": [0, 0.1]},
        "replicates": 3, "steps": 5, "seed": 4,
    }))
    return path


def test_run_ensemble_reports_progress_and_resumes(fishschool, tmp_path):
    file = _ensemble_file(tmp_path)
    seen = []
    outcome = fishschool.run_ensemble(file, tmp_path / "out", jobs=2,
                                      progress=lambda done, total, failed: seen.append(done))
    assert outcome == {"total": 6, "ran": 6, "failed": 0}
    assert sorted(seen) == [1, 2, 3, 4, 5, 6]
    parts = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert "manifest.json" in parts and any(p.startswith("part-") for p in parts)
    # Done: the same call runs nothing; --only runs one again.
    assert fishschool.run_ensemble(file, tmp_path / "out")["ran"] == 0
    assert fishschool.run_ensemble(file, tmp_path / "out", only=[2])["ran"] == 1


def test_merge_ensemble_writes_what_the_cli_merge_writes(fishschool, cli, tmp_path):
    file = _ensemble_file(tmp_path)
    fishschool.run_ensemble(file, tmp_path / "out", shard=(0, 2))   # part way: 3 of 6
    merged = fishschool.merge_ensemble(tmp_path / "out", tmp_path / "py.csv",
                                       summary=tmp_path / "py-summary.csv")
    assert merged == {"runs": 6, "merged": 3, "failed": 0}
    result = subprocess.run([str(cli), "ensemble", "merge", str(tmp_path / "out"), "--csv",
                             str(tmp_path / "cli.csv"), "--summary",
                             str(tmp_path / "cli-summary.csv")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "merged 3 of 6 runs" in result.stderr
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    assert (tmp_path / "py-summary.csv").read_bytes() == (tmp_path / "cli-summary.csv").read_bytes()
    with pytest.raises(ValueError, match="--csv"):
        fishschool.merge_ensemble(tmp_path / "out", tmp_path / "out" / "manifest.json")


def test_run_ensemble_refuses_what_the_cli_refuses(fishschool, tmp_path):
    file = _ensemble_file(tmp_path)
    with pytest.raises(ValueError, match="named twice"):
        fishschool.run_ensemble(file, tmp_path / "out", only=[1, 1])
    with pytest.raises(ValueError, match="cannot be used together"):
        fishschool.run_ensemble(file, tmp_path / "out", only=[1], shard=(0, 2))
    (tmp_path / "x").mkdir()
    other = _ensemble_file(tmp_path / "x",
                           {"base": {"fishCount": 31}, "axes": {}, "steps": 2, "seed": 1})
    fishschool.run_ensemble(other, tmp_path / "other")
    with pytest.raises(ValueError, match="another ensemble file"):
        fishschool.run_ensemble(file, tmp_path / "other")
    bad = tmp_path / "bad.json"
    bad.write_text('{"base": {}, "axes": {"noise": []}, "steps": 1}')
    with pytest.raises(ValueError, match="bad.json"):
        fishschool.run_ensemble(bad, tmp_path / "out2")


ENSEMBLE_CTRL_C = r"""
import signal, sys
sys.path.insert(0, sys.argv[1])
import fishschool
signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    fishschool.run_ensemble(sys.argv[2], sys.argv[3], jobs=2)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
"""


def _rows_written(folder):
    """The run indices of the part files' rows."""
    runs = []
    for part in folder.glob("part-*.csv"):
        for line in part.read_text().splitlines()[1:]:
            runs.append(int(line.split(",")[0]))
    return runs


def test_ctrl_c_stops_run_ensemble_and_the_same_call_resumes(fishschool, tmp_path):
    file = _ensemble_file(tmp_path, {
        "base": {"fishCount": 400, "rocks": []},
        "axes": {"noise": [0, 0.1]},
        "replicates": 6, "steps": 400, "seed": 4,
    })
    out = tmp_path / "out"
    module_dir = pathlib.Path(fishschool.__file__).parent
    process = subprocess.Popen(
        ["/usr/bin/python3", "-c", ENSEMBLE_CTRL_C, str(module_dir), str(file), str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (out.is_dir() and _rows_written(out)) and process.poll() is None:
            assert time.monotonic() < deadline, "no run finished in 2 minutes"
            time.sleep(0.05)
        assert process.poll() is None, "the ensemble ended before it could be interrupted"
        process.send_signal(signal.SIGINT)
        start = time.monotonic()
        stdout, stderr = process.communicate(timeout=30)
        seconds = time.monotonic() - start
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    print(f"stopped {seconds:.2f} s after SIGINT")
    assert seconds < 5, stderr
    assert process.returncode == 0, stderr
    assert "KeyboardInterrupt" in stdout, stdout + stderr
    done = _rows_written(out)
    assert 0 < len(done) < 12 and len(set(done)) == len(done)
    # The same call goes on from there: the runs left, each once.
    outcome = fishschool.run_ensemble(file, out, jobs=2)
    assert outcome == {"total": 12, "ran": 12 - len(done), "failed": 0}
    assert sorted(_rows_written(out)) == list(range(12))


def test_run_ensemble_raises_what_progress_raised(fishschool, tmp_path):
    def stop(done, total, failed):
        raise KeyError("from the callback")
    with pytest.raises(KeyError, match="from the callback"):
        fishschool.run_ensemble(_ensemble_file(tmp_path), tmp_path / "out", progress=stop)
