"""Trajectories (docs/trajectories.md) as the field's own tools read them: a file written by
`fishschool-cli simulate --trajectory`, read by MDAnalysis (Debian's, its H5MD reader), by h5py,
by scripts/trajectory_measures.py and by the module's fishschool.Trajectory."""

import importlib.util
import json
import pathlib
import shutil
import subprocess
import warnings

import h5py
import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
MEASURES_SCRIPT = REPO / "scripts" / "trajectory_measures.py"

# A small school with a leader and a predator, so that the kinds show.
CONFIG = {"fishCount": 300, "seed": 21, "leaders": 1, "predators": 1, "noise": 0.05}
STEPS, EVERY = 40, 10


def read_state_csv(path):
    """A state CSV's numbers (float32) and its kinds (None without a kind column)."""
    lines = path.read_text().splitlines()
    assert lines[0] in ("x,y,z,vx,vy,vz", "x,y,z,vx,vy,vz,kind")
    rows = [line.split(",") for line in lines[1:]]
    # %.9g of a float reads back as the same float.
    numbers = np.array([[float(v) for v in row[:6]] for row in rows]).astype(np.float32)
    kinds = [row[6] for row in rows] if lines[0].endswith(",kind") else None
    return numbers, kinds


@pytest.fixture(scope="module")
def run(cli, tmp_path_factory):
    """One run's trajectory, its config, its last state and its measures CSV."""
    folder = tmp_path_factory.mktemp("trajectory")
    config = folder / "school.json"
    config.write_text(json.dumps(CONFIG))
    paths = {"config": config, "trajectory": folder / "school.h5",
             "state": folder / "state.csv", "metrics": folder / "metrics.csv"}
    result = subprocess.run(
        [str(cli), "simulate", "--config", str(config), "--steps", str(STEPS),
         "--trajectory", str(paths["trajectory"]), "--trajectory-every", str(EVERY),
         "--state-out", str(paths["state"]), "--metrics", str(paths["metrics"]),
         "--metrics-every", str(EVERY)],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return paths


@pytest.fixture(scope="module")
def ours(run):
    """The file's frames as h5py reads them."""
    with h5py.File(run["trajectory"], "r") as f:
        school = f["particles/school"]
        return {"step": school["position/step"][...], "time": school["position/time"][...],
                "position": school["position/value"][...],
                "velocity": school["velocity/value"][...]}


# ---- h5py: the layout -------------------------------------------------------------------------


def test_h5py_reads_the_layout(fishschool, run, ours):
    frames = STEPS // EVERY + 1
    with fishschool.Simulation(run["config"]) as sim:
        expected_config = sim.params
    with h5py.File(run["trajectory"], "r") as f:
        assert list(f["h5md"].attrs["version"]) == [1, 1]
        assert f["h5md/creator"].attrs["name"] == "fishschool"
        assert f["h5md/creator"].attrs["version"] == fishschool.__version__

        box = f["particles/school/box"]
        assert box.attrs["dimension"] == 3
        assert list(box.attrs["boundary"]) == ["none"] * 3
        bounds = np.array(expected_config["bounds"], dtype=np.float32)
        assert np.array_equal(box["edges/value"][...], np.tile(2 * bounds, (frames, 1)))

        position = f["particles/school/position/value"]
        assert position.dtype == np.float32 and position.shape == (frames, CONFIG["fishCount"], 3)
        assert f["particles/school/velocity/value"].shape == position.shape
        assert list(ours["step"]) == list(range(0, STEPS + 1, EVERY))
        assert np.allclose(ours["time"], ours["step"] * expected_config["dt"], rtol=1e-6)
        # Units said where MDAnalysis 2.4 does not look (it refuses unit = "m").
        units = {"particles/school/position/value": "m",
                 "particles/school/velocity/value": "m/s",
                 "particles/school/position/time": "s",
                 "particles/school/box/edges/value": "m",
                 "observables/nearest_neighbor/value": "m"}
        for name, unit in units.items():
            assert f[name].attrs["fishschool_unit"] == unit, name
            assert "unit" not in f[name].attrs, name

        species = f["particles/school/species"][...]
        assert species.dtype == np.int32 and species.shape == (CONFIG["fishCount"],)
        assert list(species[:3]) == [1, 2, 0]  # the leader first, then the predator
        assert np.count_nonzero(species == 1) == CONFIG["leaders"]
        assert np.count_nonzero(species == 2) == CONFIG["predators"]

        assert json.loads(f["parameters/config"][()]) == expected_config


def test_the_last_frame_is_the_state_out(run, ours):
    state, kinds = read_state_csv(run["state"])
    assert np.array_equal(ours["position"][-1], state[:, :3])
    assert np.array_equal(ours["velocity"][-1], state[:, 3:])
    if kinds is not None:
        with h5py.File(run["trajectory"], "r") as f:
            species = f["particles/school/species"][...]
        names = {0: "fish", 1: "leader", 2: "predator"}
        assert kinds == [names[int(k)] for k in species]
    assert not np.array_equal(ours["position"][0], ours["position"][-1])


def test_observables_are_the_metrics_csv(run):
    # The first six columns: direction_error, empty without informed fish, is not an observable.
    rows = np.loadtxt(run["metrics"], delimiter=",", skiprows=1, ndmin=2, usecols=range(6))
    with h5py.File(run["trajectory"], "r") as f:
        group = f["observables"]
        for column, name in enumerate(
                ["polarization", "milling", "nearest_neighbor", "neighbors"], start=2):
            assert list(group[name]["step"][...]) == list(rows[:, 0].astype(int))
            # The CSV's 9 significant digits.
            assert np.allclose(group[name]["value"][...], rows[:, column], rtol=1e-8, atol=0)


# ---- MDAnalysis -------------------------------------------------------------------------------


def mdanalysis_universe(path, fish):
    # Its modules' DeprecationWarnings under Python 3.11, kept out of the report (recorded and
    # dropped: MDAnalysis puts a filter of its own before any other when imported).
    with warnings.catch_warnings(record=True):
        import MDAnalysis
        universe = MDAnalysis.Universe.empty(fish, trajectory=True)
        # No unit attributes (docs/trajectories.md): MDAnalysis reads the values as they are.
        universe.load_new(str(path), format="H5MD", convert_units=False)
    return universe


def test_mdanalysis_reads_every_frame(run, ours):
    with h5py.File(run["trajectory"], "r") as f:
        measures = {name: f[f"observables/{name}/value"][...]
                    for name in ("polarization", "neighbors")}
    universe = mdanalysis_universe(run["trajectory"], CONFIG["fishCount"])
    frames = len(ours["step"])
    assert universe.trajectory.n_frames == frames
    seen = 0
    for ts in universe.trajectory:
        k = ts.frame
        assert np.array_equal(ts.positions, ours["position"][k])
        assert np.array_equal(ts.velocities, ours["velocity"][k])
        assert ts.time == pytest.approx(ours["time"][k])
        assert ts.data["step"] == ours["step"][k]
        # The observables, one a frame, are the frame's data.
        assert ts.data["polarization"] == measures["polarization"][k]
        assert ts.data["neighbors"] == measures["neighbors"][k]
        seen += 1
    assert seen == frames
    universe.trajectory.close()


def test_mdanalysis_reads_an_ensemble_runs_trajectory(cli, tmp_path):
    """`ensemble run --only I --trajectory` (docs/ensembles.md): the run again, with its history."""
    ensemble = tmp_path / "ensemble.json"
    ensemble.write_text(json.dumps({"base": {"fishCount": 120}, "axes": {"noise": [0, 0.1]},
                                    "steps": 30, "seed": 3}))
    path = tmp_path / "run1.h5"
    result = subprocess.run([str(cli), "ensemble", "run", str(ensemble), "--out",
                             str(tmp_path / "out"), "--only", "1", "--trajectory", str(path),
                             "--trajectory-every", "10"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    with h5py.File(path, "r") as f:
        positions = f["particles/school/position/value"][...]
        milling = f["observables/milling/value"][...]
        row = dict(f["parameters/ensemble_run"].attrs)
    assert row["index"] == 1 and row["status"] == "ok" and row["steps"] == 30
    universe = mdanalysis_universe(path, positions.shape[1])
    assert universe.trajectory.n_frames == len(positions) == len(milling) >= 4
    for ts in universe.trajectory:
        assert np.array_equal(ts.positions, positions[ts.frame])
        # The school's measures at each frame; no window: the last is the row's.
        assert ts.data["milling"] == milling[ts.frame]
    assert milling[-1] == row["milling"]
    universe.trajectory.close()


# ---- scripts/trajectory_measures.py -----------------------------------------------------------


def measures_script(*args):
    """The script as a program: its exit status and output."""
    return subprocess.run(["/usr/bin/python3", str(MEASURES_SCRIPT), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def measures_main():
    """The script's main(argv) in this process: no interpreter to start (NumPy and h5py take
    half a second to import)."""
    spec = importlib.util.spec_from_file_location("trajectory_measures", MEASURES_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


def test_measures_script_agrees_with_the_file(run):
    result = measures_script(run["trajectory"])
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("polarization", "milling", "nearest_neighbor", "neighbors", "groups",
                 "largest_group_share"):
        assert any(line.split()[:1] == [name] and line.endswith("ok")
                   for line in result.stdout.splitlines()), result.stdout


def test_measures_script_finds_a_perturbed_measure(run, tmp_path, measures_main, capsys):
    copy = tmp_path / "perturbed.h5"
    shutil.copyfile(run["trajectory"], copy)
    with h5py.File(copy, "r+") as f:
        step = int(f["observables/milling/step"][2])
        f["observables/milling/value"][2] += 3e-5
    assert measures_main([str(copy)]) == 1
    out = capsys.readouterr().out
    assert f"step {step}: milling" in out and "FAIL (1)" in out
    # Within the tolerance: agrees.
    with h5py.File(copy, "r+") as f:
        f["observables/milling/value"][2] -= 2.5e-5
    assert measures_main([str(copy)]) == 0


def test_measures_script_refuses_what_is_not_a_trajectory(run, tmp_path, measures_main, capsys):
    assert measures_main([str(run["state"])]) == 2
    assert "not an HDF5 file" in capsys.readouterr().err
    empty = tmp_path / "empty.h5"
    with h5py.File(empty, "w") as f:
        f.create_group("h5md")
    assert measures_main([str(empty)]) == 2
    assert "particles: missing" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        measures_main([])
    assert usage.value.code == 2


# ---- fishschool.Trajectory --------------------------------------------------------------------


def test_module_reads_the_trajectory(fishschool, run, ours):
    with h5py.File(run["trajectory"], "r") as f:
        group = f["observables"]
        recorded = {name: group[name]["value"][...] for name in
                    ("polarization", "milling", "nearest_neighbor", "neighbors")}
        recorded_steps = group["polarization/step"][...]
        species = f["particles/school/species"][...]
        config = json.loads(f["parameters/config"][()])
    frames = len(ours["step"])
    with fishschool.Trajectory(run["trajectory"]) as t:
        assert t.frame_count == len(t) == frames
        assert t.fish_count == CONFIG["fishCount"]
        assert np.array_equal(t.steps, ours["step"]) and t.steps.dtype == np.int64
        assert np.array_equal(t.times, ours["time"])
        assert t.config == config
        assert t.config_at(-1) == config  # no change recorded
        assert np.array_equal(t.kinds, species)
        m = t.measures
        assert np.array_equal(m["step"], recorded_steps)
        assert np.array_equal(m["polarization"], recorded["polarization"])
        assert np.array_equal(m["milling"], recorded["milling"])
        assert np.array_equal(m["nearest_neighbor_m"], recorded["nearest_neighbor"])
        assert np.array_equal(m["neighbors"], recorded["neighbors"])
        for k in range(frames):
            positions, velocities = t.frame(k)
            assert np.array_equal(positions, ours["position"][k])
            assert np.array_equal(velocities, ours["velocity"][k])
        positions, velocities = t.frame(-1)
        assert np.array_equal(positions, ours["position"][-1])
        assert positions.dtype == np.float32 and positions.shape == (CONFIG["fishCount"], 3)
        assert not positions.flags.writeable
        assert velocities.ctypes.data == positions.ctypes.data + 12  # one buffer of fish
        with pytest.raises(IndexError, match=f"frame {frames}: no such frame"):
            t.frame(frames)
        with pytest.raises(IndexError):
            t.frame(-frames - 1)
        with pytest.raises(TypeError):
            t.frame(1.5)
        assert "frames of 300 fish" in repr(t)
    assert t.closed
    with pytest.raises(RuntimeError, match="closed"):
        t.frame(0)
    # The arrays read before outlive the file.
    assert np.array_equal(positions, ours["position"][-1])


def test_module_refuses_what_is_not_a_trajectory(fishschool, run, tmp_path):
    with pytest.raises(ValueError):
        fishschool.Trajectory(run["state"])
    with pytest.raises(FileNotFoundError):
        fishschool.Trajectory(tmp_path / "none.h5")
    broken = tmp_path / "broken.h5"
    shutil.copyfile(run["trajectory"], broken)
    with h5py.File(broken, "r+") as f:
        del f["particles/school/velocity"]
    with pytest.raises(ValueError, match="particles/school/velocity"):
        fishschool.Trajectory(broken)


@pytest.mark.parametrize("text, words", [
    ("{\"dt\": ", ["not a config's JSON", "Expecting value"]),
    ("[" * 5000 + "]" * 5000, ["nest more than 16"]),
])
def test_a_config_that_is_not_json_names_the_file_and_its_object(fishschool, run, tmp_path,
                                                                  text, words):
    hostile = tmp_path / "hostile.h5"
    shutil.copyfile(run["trajectory"], hostile)
    with h5py.File(hostile, "r+") as f:
        del f["parameters/config"]
        f["parameters/config"] = text
    with fishschool.Trajectory(hostile) as t:
        for read in (lambda: t.config, lambda: t.config_at(0)):
            with pytest.raises(ValueError) as error:
                read()
            message = str(error.value)
            assert f"{hostile}: parameters/config" in message, message
            for word in words:
                assert word in message, message


def test_continue_from_a_frame(fishschool, run, ours):
    """A school started from frame k with the file's config steps as the run did, when the
    step counter (the noise's) is where the run's was."""
    with fishschool.Trajectory(run["trajectory"]) as t:
        config = t.config
        start = t.frame(1)
    with fishschool.Simulation(config) as sim:
        sim.step(EVERY)
        sim.set_school(*start)
        sim.step(EVERY)
        assert np.array_equal(sim.positions, ours["position"][2])
        assert np.array_equal(sim.velocities, ours["velocity"][2])


# ---- fishschool.TrajectoryWriter --------------------------------------------------------------


def test_writer_records_a_simulation(fishschool, tmp_path):
    path = tmp_path / "recorded.h5"
    taken, schools = [], []
    with fishschool.Simulation(fishCount=120, seed=3, leaders=2, predators=1) as sim:
        with fishschool.TrajectoryWriter(path, sim) as out:
            for k in range(4):
                if k:
                    sim.step(5)
                if k == 2:
                    sim.set_params(rCohesion=12)
                out.add_frame(sim)
                taken.append(sim.measures())
                schools.append((sim.positions.copy(), sim.velocities.copy()))
            assert out.frame_count == 4
            assert not path.exists()  # written beside it until closed
        assert out.closed and path.exists()
        with pytest.raises(RuntimeError, match="closed"):
            out.add_frame(sim)

    with fishschool.Trajectory(path) as t:
        assert list(t.steps) == [0, 5, 10, 15]
        assert t.times == pytest.approx(np.array(t.steps) * t.config["dt"])
        assert list(t.kinds[:4]) == [1, 1, 2, 0]
        for k, (positions, velocities) in enumerate(schools):
            assert np.array_equal(t.frame(k)[0], positions)
            assert np.array_equal(t.frame(k)[1], velocities)
        assert t.config["rCohesion"] != 12 and t.config_at(1) == t.config
        assert t.config_at(2)["rCohesion"] == 12 and t.config_at(3)["rCohesion"] == 12
        m = t.measures
        assert list(m["step"]) == [0, 5, 10, 15]
        assert list(m["polarization"]) == [x["polarization"] for x in taken]
        assert list(m["neighbors"]) == [x["neighbors"] for x in taken]
    # The change of rCohesion at step 10 is the file's too: the neighbours agree with it.
    result = measures_script(path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_writer_refuses(fishschool, tmp_path):
    with fishschool.Simulation(fishCount=50, seed=1) as sim:
        with pytest.raises(OSError):
            fishschool.TrajectoryWriter(tmp_path / "no" / "such" / "folder.h5", sim)
        out = fishschool.TrajectoryWriter(tmp_path / "t.h5", sim)
        out.add_frame(sim)
        with pytest.raises(ValueError, match="frames go forward"):
            out.add_frame(sim)
        sim.step()
        # A trajectory holds one school: its size is kept until the recording ends.
        with pytest.raises(ValueError, match="while a trajectory records"):
            sim.set_params(fishCount=60)
        assert sim.fish_count == 50
        with fishschool.Simulation(fishCount=50, seed=1) as other:
            with pytest.raises(ValueError, match="the Simulation it was made with"):
                out.add_frame(other)
        out.close()
        out.close()  # once is enough
    with fishschool.Trajectory(tmp_path / "t.h5") as t:
        assert t.frame_count == 1


def test_an_exception_in_the_with_block_keeps_the_frames_recorded(fishschool, tmp_path):
    path = tmp_path / "stopped.h5"
    with fishschool.Simulation(fishCount=40, seed=2) as sim:
        with pytest.raises(KeyboardInterrupt):
            with fishschool.TrajectoryWriter(path, sim) as out:
                out.add_frame(sim)
                sim.step(3)
                out.add_frame(sim)
                raise KeyboardInterrupt
    with fishschool.Trajectory(path) as t:
        assert list(t.steps) == [0, 3]
