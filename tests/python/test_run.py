"""One run for every front end (fishschool/Run.h): the same start, changes and seed give the same
files through fishschool-cli simulate, the Python module, an ensemble run's --trajectory and the
app without a window; each file reads back with --state-in and fishschool.Trajectory; a fish count
is shared among the species everywhere; the extended XYZ recorder writes what ASE reads."""

import json
import os
import pathlib
import subprocess

import h5py
import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
MIXED = REPO / "docs" / "examples" / "mixed-school.json"

# A small mixed school: the fish count override is shared 9 to 1, as the config's counts are.
FISH, STEPS, EVERY, CHANGE_AT = 200, 12, 3, 5


def run_cli(cli, *args):
    result = subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result


def frames_of(path):
    """The datasets a run writes, by name, from an H5MD file."""
    with h5py.File(path, "r") as f:
        school = f["particles/school"]
        out = {name: school[name + "/value"][()] for name in ("position", "velocity")}
        out["step"] = school["position/step"][()]
        out["time"] = school["position/time"][()]
        out["species"] = school["species"][()]
        out["observables"] = {k: f["observables"][k]["value"][()] for k in f["observables"]} \
            if "observables" in f else {}
        out["changes"] = [v.decode() if isinstance(v, bytes) else v
                          for v in f["parameters/changes/value"][()]] \
            if "parameters/changes" in f else []
    return out


def assert_same_frames(a, b, changes=True):
    assert np.array_equal(a["step"], b["step"])
    assert np.array_equal(a["time"], b["time"])
    assert np.array_equal(a["position"], b["position"])
    assert np.array_equal(a["velocity"], b["velocity"])
    assert np.array_equal(a["species"], b["species"])
    assert a["observables"].keys() == b["observables"].keys()
    for name in a["observables"]:
        assert np.array_equal(a["observables"][name], b["observables"][name]), name
    if changes:
        assert a["changes"] == b["changes"]


@pytest.fixture
def change(tmp_path):
    """The change the runs make at CHANGE_AT: two leaders and more noise, the same fish."""
    config = json.loads(MIXED.read_text())
    config.update({"fishCount": FISH, "leaders": 2, "noise": 0.2})
    for species, count in zip(config["species"], (180, 20)):
        species["count"] = count
    path = tmp_path / "change.json"
    path.write_text(json.dumps(config))
    return path


def test_a_fish_count_is_shared_among_the_species(fishschool):
    with fishschool.Simulation(MIXED, fishCount=FISH) as sim:
        assert sim.fish_count == FISH
        assert [s["count"] for s in sim.params["species"]] == [180, 20]
        sim.set_params(fishCount=100)
        assert [s["count"] for s in sim.params["species"]] == [90, 10]
        assert np.count_nonzero(sim.species == 1) == 10


def test_the_cli_and_python_write_the_same_run(fishschool, cli, tmp_path, change):
    out = tmp_path / "cli"
    out.mkdir()
    run_cli(cli, "simulate", "--config", MIXED, "--fish", FISH, "--steps", STEPS,
            "--trajectory", out / "t.h5", "--trajectory-every", EVERY,
            "--metrics", out / "m.csv", "--metrics-every", EVERY, "--state-out", out / "s.csv",
            "--change-config", change, "--change-at", CHANGE_AT)

    ours = tmp_path / "python"
    ours.mkdir()
    with fishschool.Simulation(MIXED, fishCount=FISH) as sim:
        sim.record(trajectory=ours / "t.h5", metrics=ours / "m.csv", state=ours / "s.csv",
                   every=EVERY)
        sim.step(CHANGE_AT)
        sim.set_params(**json.loads(change.read_text()))
        sim.step(STEPS - CHANGE_AT)
        done = sim.finish_recording()
    assert done["frames"] == STEPS // EVERY + 1
    assert (ours / "s.csv").read_bytes() == (out / "s.csv").read_bytes()
    assert (ours / "m.csv").read_bytes() == (out / "m.csv").read_bytes()
    # The same writer and the same data: the same bytes (no object times in the file).
    assert (ours / "t.h5").read_bytes() == (out / "t.h5").read_bytes()
    cli_frames = frames_of(out / "t.h5")
    assert_same_frames(frames_of(ours / "t.h5"), cli_frames)
    assert len(cli_frames["changes"]) == 1

    # Each file reads back, and goes on from its last frame (after the change that added
    # leaders) as the run that wrote it would.
    with fishschool.Trajectory(ours / "t.h5") as t:
        assert t.config_at(-1)["leaders"] == 2 and t.config["leaders"] == 0
        positions, velocities = t.frame(-1)
    run_cli(cli, "simulate", "--state-in", out / "t.h5", "--steps", 0,
            "--state-out", out / "again.csv")
    rows = np.loadtxt(out / "again.csv", delimiter=",", skiprows=1, usecols=range(6),
                      dtype=np.float64).astype(np.float32)
    assert np.array_equal(rows[:, :3], positions)
    assert np.array_equal(rows[:, 3:], velocities)


def test_an_ensemble_run_records_the_frames_the_cli_does(cli, tmp_path):
    ensemble = tmp_path / "e.json"
    base = json.loads(MIXED.read_text())
    base["fishCount"] = FISH
    for species, count in zip(base["species"], (180, 20)):
        species["count"] = count
    ensemble.write_text(json.dumps({"base": base, "axes": {"noise": [0.1]}, "replicates": 1,
                                    "steps": STEPS, "seed": 11}))
    run_cli(cli, "ensemble", "run", ensemble, "--out", tmp_path / "runs", "--only", 0,
            "--trajectory", tmp_path / "e.h5", "--trajectory-every", EVERY, "--jobs", 1)
    with h5py.File(tmp_path / "e.h5", "r") as f:
        seed = int(f["parameters/ensemble_run"].attrs["seed"])
        config = json.loads(f["parameters/config"][()])
    (tmp_path / "run.json").write_text(json.dumps(config))
    run_cli(cli, "simulate", "--config", tmp_path / "run.json", "--seed", seed,
            "--steps", STEPS, "--trajectory", tmp_path / "c.h5", "--trajectory-every", EVERY,
            "--metrics", tmp_path / "m.csv", "--metrics-every", EVERY)
    assert_same_frames(frames_of(tmp_path / "e.h5"), frames_of(tmp_path / "c.h5"))
    assert_reads_back(cli, tmp_path / "e.h5")


def assert_reads_back(cli, path):
    """Every trajectory a front end writes: --state-in starts from its last frame, and
    fishschool.Trajectory reads it."""
    import fishschool
    with fishschool.Trajectory(path) as t:
        positions, _ = t.frame(-1)
    out = path.with_suffix(".again.csv")
    run_cli(cli, "simulate", "--state-in", path, "--steps", 0, "--state-out", out)
    rows = np.loadtxt(out, delimiter=",", skiprows=1, usecols=range(3),
                      dtype=np.float64).astype(np.float32)
    assert np.array_equal(rows, positions)


def app_path(cli):
    path = pathlib.Path(cli).parent / "fishschool"
    return path if path.is_file() and os.access(path, os.X_OK) else None


def test_the_app_starts_and_records_as_the_cli(cli, tmp_path):
    app = app_path(cli)
    if app is None:
        pytest.skip("the app is not built")
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    result = subprocess.run(
        # --density tank: the app's default scales the tank with --fish (docs/app.md).
        [str(app), "--config", str(MIXED), "--fish", str(FISH), "--backend", "cpu", "--paused",
         "--density", "tank",
         "--frames", "2", "--trajectory", str(tmp_path / "app.h5"),
         "--state-out", str(tmp_path / "app.csv")],
        capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    run_cli(cli, "simulate", "--config", MIXED, "--fish", FISH, "--steps", 0,
            "--trajectory", tmp_path / "c.h5", "--metrics", tmp_path / "m.csv",
            "--state-out", tmp_path / "c.csv")
    assert (tmp_path / "app.csv").read_bytes() == (tmp_path / "c.csv").read_bytes()
    assert_same_frames(frames_of(tmp_path / "app.h5"), frames_of(tmp_path / "c.h5"))
    assert_reads_back(cli, tmp_path / "app.h5")


def test_extended_xyz_opens_in_ase(fishschool, tmp_path):
    ase_io = pytest.importorskip("ase.io")
    with fishschool.Simulation(fishCount=30, seed=2, leaders=1) as sim:
        sim.record(trajectory=tmp_path / "t.xyz", every=4)
        sim.step(8)
        sim.finish_recording()
        positions = sim.positions.copy()
        edges = 2 * np.array(sim.params["bounds"])
    frames = ase_io.read(tmp_path / "t.xyz", index=":")
    assert len(frames) == 3
    assert [f.info["step"] for f in frames] == [0, 4, 8]
    assert np.allclose(frames[-1].positions, positions)
    assert np.allclose(frames[-1].cell.lengths(), edges)
    assert list(frames[0].arrays["kind"][:2]) == [1, 0]


def test_the_cli_writes_extended_xyz_and_refuses_other_extensions(cli, tmp_path):
    run_cli(cli, "simulate", "--steps", 2, "--fish", 10, "--trajectory", tmp_path / "t.xyz")
    lines = (tmp_path / "t.xyz").read_text().splitlines()
    assert len(lines) == 3 * 12 and lines[0] == "10"
    result = subprocess.run([str(cli), "simulate", "--steps", "2", "--trajectory",
                             str(tmp_path / "t.txt")], capture_output=True, text=True)
    assert result.returncode == 2
    assert "t.txt" in result.stderr and ".xyz" in result.stderr


def test_measure_takes_any_school(fishschool):
    with fishschool.Simulation(fishCount=200, seed=8) as sim:
        sim.step(20)
        ours = fishschool.measure(sim.positions, sim.velocities,
                                  rCohesion=sim.params["rCohesion"])
        theirs = sim.measures()
    for key in ("polarization", "milling", "nearest_neighbor_m", "neighbors", "groups"):
        assert ours[key] == pytest.approx(theirs[key], rel=1e-12), key
    # Two fish across a periodic face are neighbours through it.
    across = fishschool.measure([[4.5, 0, 0], [-4.5, 0, 0]], [[1, 0, 0], [1, 0, 0]],
                                rCohesion=2, box=[10, 10, 10])
    assert across["nearest_neighbor_m"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="fish 1"):
        fishschool.measure([[0, 0, 0], [np.nan, 0, 0]], [[0, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="box"):
        fishschool.measure([[0, 0, 0]], [[0, 0, 0]], box=[1, 2])


def test_a_recording_is_all_or_nothing(fishschool, tmp_path):
    (tmp_path / "m.csv").write_text("old")
    with fishschool.Simulation(fishCount=20) as sim:
        with pytest.raises(OSError, match="no-such-folder"):
            sim.record(metrics=tmp_path / "m.csv", state=tmp_path / "no-such-folder" / "s.csv")
        assert not sim.recording
        sim.record(metrics=tmp_path / "m.csv")
        sim.step(3)
        sim.drop_recording()
    assert (tmp_path / "m.csv").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.csv"]


@pytest.mark.parametrize("call", ["trajectory", "save_state", "writer"])
def test_a_path_with_a_nul_byte_is_refused(fishschool, tmp_path, call):
    target = str(tmp_path / "out\0.h5")
    with fishschool.Simulation(fishCount=10) as sim:
        with pytest.raises(ValueError, match="null byte"):
            if call == "trajectory":
                fishschool.Trajectory(target)
            elif call == "save_state":
                sim.save_state(target)
            else:
                fishschool.TrajectoryWriter(target, sim)
    assert list(tmp_path.iterdir()) == []


FULL_DISK = r"""
import resource, signal, sys
sys.path.insert(0, sys.argv[1])
import fishschool
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a file over its size limit: an error, not death
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
path = sys.argv[2]
with fishschool.Simulation(fishCount=2000, seed=1) as sim:
    out = fishschool.TrajectoryWriter(path, sim)
    try:
        for _ in range(100):
            sim.step(1)
            out.add_frame(sim)
    except OSError as error:
        print("OSError:", error)
    print("recording:", sim.recording)
    try:
        out.close()
    except RuntimeError as error:
        print("closed:", error)
"""


def test_a_full_disk_names_the_file_and_the_interpreter_exits_cleanly(fishschool, tmp_path):
    """The writer's file closed after a full disk (HDF5 would crash closing it at exit), the
    user's path in the message, and nothing left behind."""
    module_dir = pathlib.Path(fishschool.__file__).parent
    path = tmp_path / "full.h5"
    result = subprocess.run(["/usr/bin/python3", "-c", FULL_DISK, str(module_dir), str(path)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"OSError: trajectory: {path}" in result.stdout, result.stdout
    assert "/proc/self/fd" not in result.stdout
    assert "recording: False" in result.stdout
    assert list(tmp_path.iterdir()) == []


def test_from_trajectory_goes_on_from_a_frame_bit_for_bit(fishschool, tmp_path):
    with fishschool.Simulation(fishCount=150, seed=4, noise=0.2, leaders=2) as sim:
        sim.record(trajectory=tmp_path / "t.h5", every=5)
        sim.step(20)
        sim.finish_recording()
        sim.step(3)
        expected = sim.positions.copy()
        assert list(sim.kinds[:3]) == [1, 1, 0]
    with fishschool.Simulation.from_trajectory(tmp_path / "t.h5") as again:
        assert again.step_count == 20 and again.params["leaders"] == 2
        again.step(3)
        assert np.array_equal(again.positions, expected)
    with fishschool.Simulation.from_trajectory(tmp_path / "t.h5", frame=-2) as earlier:
        assert earlier.step_count == 15
    with pytest.raises(ValueError, match="frame: 9 is not a frame of"):
        fishschool.Simulation.from_trajectory(tmp_path / "t.h5", frame=9)
    with pytest.raises(IndexError):
        fishschool.Simulation.from_trajectory(tmp_path / "t.h5", frame=-9)


def test_snake_case_keys_and_a_run_that_collects_its_measures(fishschool):
    with fishschool.Simulation(fish_count=120, r_cohesion=8, seed=5) as sim:
        assert sim.params["fishCount"] == 120 and sim.params["rCohesion"] == 8
        sim.set_params(k_alignment=0.5)
        assert sim.params["kAlignment"] == 0.5
        with pytest.raises(ValueError, match="fishCount"):
            sim.set_params(fish_count=-1)
        table = sim.run(10, every=4)
        columns = {name: np.asarray(table[name]) for name in ("step", "polarization", "time")}
        assert list(columns["step"]) == [0, 4, 8]
        assert sim.step_count == 10
    with fishschool.Simulation(fish_count=120, r_cohesion=8, seed=5) as twin:
        twin.set_params(k_alignment=0.5)
        twin.step(8)
        assert twin.measures()["polarization"] == columns["polarization"][2]
