"""fishschool.measure_trajectory and fishschool.compare_trajectories (docs/data.md): NumPy arrays
of a trajectory's measures and histograms, the same numbers as `fishschool-cli measure` and as
the NumPy computation of scripts/trajectory_measures.py --histograms."""

import csv
import math
import pathlib
import subprocess

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
MEASURES_SCRIPT = REPO / "scripts" / "trajectory_measures.py"
DISTRIBUTIONS = ("wall_distance", "wall_angle", "nearest_neighbor", "neighbor_heading",
                 "viewing_angle", "speed", "polarization", "milling", "turning_angle",
                 "turn_axis_change")


def simulate(cli, path, seed):
    result = subprocess.run(
        [str(cli), "simulate", "--fish", "250", "--seed", str(seed), "--steps", "60",
         "--trajectory", str(path), "--trajectory-every", "10"],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return path


@pytest.fixture(scope="module")
def files(cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("measure")
    return {"a": simulate(cli, folder / "a.h5", 1), "b": simulate(cli, folder / "b.h5", 2),
            "folder": folder}


def test_measure_trajectory_returns_arrays_a_value_a_frame(fishschool, files):
    m = fishschool.measure_trajectory(files["a"])
    assert m["step"].dtype == np.int64 and m["step"].tolist() == [0, 10, 20, 30, 40, 50, 60]
    assert m["time"].shape == (7,) and m["time"].dtype == np.float64
    assert m["fish"].tolist() == [250] * 7
    for column in ("polarization", "milling", "nearest_neighbor_m", "neighbors"):
        assert m[column].shape == (7,) and m[column].dtype == np.float64
    assert m["walls"] is True
    assert set(m["histograms"]) == set(DISTRIBUTIONS)
    for name, h in m["histograms"].items():
        assert h["counts"].dtype == np.int64
        assert h["edges"].shape == (len(h["counts"]) + 1,)
        assert np.all(np.diff(h["edges"]) > 0)
    per_fish = 250 * 7
    for name in ("speed", "nearest_neighbor", "wall_distance"):
        h = m["histograms"][name]
        assert h["below"] + h["counts"].sum() + h["above"] == per_fish, name
    assert m["histograms"]["polarization"]["counts"].sum() == 7
    # A turn a fish from each frame to the next: 6 of them, every fish moving.
    turning = m["histograms"]["turning_angle"]
    assert turning["below"] + turning["counts"].sum() + turning["above"] == 250 * 6
    # A turn axis change from each frame's turn to the next: 5 a fish, where it turns in both.
    axes = m["histograms"]["turn_axis_change"]
    assert 0 < axes["below"] + axes["counts"].sum() + axes["above"] <= 250 * 5
    # The histogram of the frames' polarization holds the frames' values.
    edges = m["histograms"]["polarization"]["edges"]
    assert np.array_equal(np.histogram(m["polarization"], bins=edges)[0],
                          m["histograms"]["polarization"]["counts"])


def test_compare_trajectories_gives_the_hellinger_distance_of_each(fishschool, files):
    same = fishschool.compare_trajectories(files["a"], files["a"])
    assert set(same["hellinger"]) == set(DISTRIBUTIONS)
    assert all(value == 0.0 for value in same["hellinger"].values())
    other = fishschool.compare_trajectories(files["a"], files["b"])
    for name in DISTRIBUTIONS:
        a = other["a"]["histograms"][name]
        b = other["b"]["histograms"][name]
        p = np.concatenate([[a["below"]], a["counts"], [a["above"]]]).astype(float)
        q = np.concatenate([[b["below"]], b["counts"], [b["above"]]]).astype(float)
        expected = math.sqrt(max(0.0, 1.0 - np.sum(np.sqrt(p / p.sum() * q / q.sum()))))
        assert other["hellinger"][name] == pytest.approx(expected, abs=1e-9), name
    assert 0.0 < other["hellinger"]["speed"] < 1.0


def test_a_file_that_is_not_a_trajectory_is_a_value_error_naming_it(fishschool, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a trajectory\n")
    with pytest.raises(ValueError, match="notes.txt"):
        fishschool.measure_trajectory(text)
    with pytest.raises(FileNotFoundError):
        fishschool.measure_trajectory(tmp_path / "missing.h5")
    with pytest.raises(ValueError, match="notes.txt"):
        fishschool.compare_trajectories(text, text)


def read_histograms(path):
    with open(path, newline="", encoding="utf-8") as f:
        return [row for row in csv.reader(f)]


def test_the_numpy_computation_gives_the_same_histograms(cli, files):
    ours = files["folder"] / "ours.csv"
    theirs = files["folder"] / "numpy.csv"
    result = subprocess.run([str(cli), "measure", str(files["a"]), "--histograms", str(ours)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    result = subprocess.run(["/usr/bin/python3", str(MEASURES_SCRIPT), "--histograms",
                             str(theirs), str(files["a"])],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    a, b = read_histograms(ours), read_histograms(theirs)
    assert len(a) == len(b) and a[0] == b[0]
    for row_a, row_b in zip(a[1:], b[1:]):
        assert row_a[:4] == row_b[:4]
        # A value on a bin's edge may fall either side of it after another order of sums.
        assert abs(int(row_a[4]) - int(row_b[4])) <= 1, (row_a, row_b)


def test_anisotropy_is_the_clis_and_refuses_bad_frames(fishschool, cli, files):
    a = fishschool.anisotropy(files["a"], neighbours=4, first=2)
    assert a["n"].tolist() == [1, 2, 3, 4]
    assert a["frames"].tolist() == [5] * 4
    assert a["isotropic"] == pytest.approx(1 / 3)
    assert np.all((a["gamma"] >= 0) & (a["gamma"] <= 1))
    out = files["folder"] / "gamma.csv"
    result = subprocess.run([str(cli), "anisotropy", str(files["a"]), "--neighbours", "4",
                             "--first", "2", "--csv", str(out)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(out.open()))
    assert [float(r["gamma"]) for r in rows] == pytest.approx(a["gamma"].tolist(), rel=1e-8)
    with pytest.raises(ValueError, match="frame 99 is not allowed; the file has 7 frames"):
        fishschool.anisotropy(files["a"], first=99)
    with pytest.raises(ValueError, match="neighbours: 0 is not allowed"):
        fishschool.anisotropy(files["a"], neighbours=0)
    bad = subprocess.run([str(cli), "anisotropy", str(files["a"]), "--first", "99"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "the file has 7 frames" in bad.stderr


def test_a_round_tank_measures_against_its_wall(fishschool, cli, tmp_path):
    config = tmp_path / "round.json"
    config.write_text('{"arena": "cylinder", "arenaRadius": 10, "fishCount": 100, '
                      '"bounds": [12, 5, 12], "rocks": [], "dimensions": 2}')
    path = tmp_path / "round.h5"
    result = subprocess.run([str(cli), "simulate", "--config", str(config), "--steps", "40",
                             "--trajectory", str(path), "--trajectory-every", "10", "--check"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    trajectory = fishschool.Trajectory(path)
    positions, _ = trajectory.frame(trajectory.frame_count - 1)
    radial = np.hypot(positions[:, 0], positions[:, 2])
    assert radial.max() <= 10.0 * (1 + 1e-5)
    m = fishschool.measure_trajectory(path)
    # The mean wall distance is the radius less the mean distance from the axis.
    assert m["wall_distance_m"][-1] == pytest.approx(10.0 - radial.mean(), rel=1e-5)
    assert np.all((m["wall_angle"] >= 0) & (m["wall_angle"] <= np.pi))
    assert set(m["state"].tolist()) <= {0.0, 1.0, 2.0, 3.0}
