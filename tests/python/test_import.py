"""Tracked fish in: fishschool.import_tracks and fishschool-cli import (docs/data.md)."""
import os
import re
import subprocess

import numpy as np
import pytest


def _idtracker(path, trajectories, **extra):
    data = {"trajectories": trajectories, "frames_per_second": 30, "body_length": np.float64(25.0),
            "id_probabilities": np.ones(trajectories.shape[:2] + (1,))}
    data.update(extra)
    np.save(path, data, allow_pickle=True)


def test_idtracker_npy_with_gaps(fishschool, tmp_path):
    t = np.cumsum(np.ones((50, 3, 2)), axis=0)
    t[10:15, 1, :] = np.nan
    _idtracker(tmp_path / "trajectories.npy", t)
    info = fishschool.import_tracks(tmp_path / "trajectories.npy", tmp_path / "t.h5",
                                    body_length_metres=0.05)
    assert (info["frames"], info["fish"], info["missing"]) == (50, 3, 5)
    assert info["fps"] == 30 and info["pixels_per_metre"] == 500
    traj = fishschool.Trajectory(tmp_path / "t.h5")
    missing = traj.missing
    assert missing.shape == (50, 3) and missing[10:15, 1].all() and missing.sum() == 5
    frame = traj.frame(20)
    np.testing.assert_allclose(frame[0][0, :2], t[20, 0] / 500, rtol=1e-6)
    # Centred differences inside, forward and backward beside the gap.
    np.testing.assert_allclose(frame[1][0, :2], [30 / 500, 30 / 500], rtol=1e-5)
    assert np.all(traj.frame(12)[0][1] == 0)


def test_csv_and_trex(fishschool, tmp_path):
    (tmp_path / "t.csv").write_text("x,y,id,frame,extra\n1,2,7,4,a\n2,2,7,5,b\n3,2,7,6,c\n")
    info = fishschool.import_tracks(tmp_path / "t.csv", tmp_path / "c.h5", pixels_per_metre=1,
                                    fps=10, arena=("circle", 1, 2, 5))
    assert (info["format"], info["frames"], info["first_frame"]) == ("csv", 3, 4)
    traj = fishschool.Trajectory(tmp_path / "c.h5")
    np.testing.assert_allclose(traj.frame(1)[1][0], [10, 0, 0], rtol=1e-6)
    for i in range(2):
        x = np.arange(20.0) + i
        x[5] = np.inf
        np.savez(tmp_path / f"rec_fish{i}.npz", X=x, Y=np.zeros(20), frame=np.arange(20),
                 time=np.arange(20) / 25)
    info = fishschool.import_tracks(tmp_path / "rec_fish0.npz", tmp_path / "r.h5",
                                    pixels_per_metre=100)
    assert (info["fish"], info["missing"], info["fps"]) == (2, 2, pytest.approx(25))


class Evil:
    def __reduce__(self):
        return (os.system, ("echo PWNED",))


@pytest.mark.parametrize("name,data,message", [
    ("evil", {"trajectories": Evil()}, "system"),
    ("rank", {"trajectories": np.zeros((4, 2)), "frames_per_second": 30}, "shape (4 x 2)"),
    ("dtype", {"trajectories": np.zeros((4, 2, 2), "i4"), "frames_per_second": 30}, "int32"),
    ("fps0", {"trajectories": np.zeros((4, 2, 2)), "frames_per_second": 0}, "frame rate of 0"),
    ("fpsnan", {"trajectories": np.zeros((4, 2, 2)), "frames_per_second": np.nan}, "nan"),
])
def test_hostile_npy_exits_2(fishschool, tmp_path, cli, name, data, message):
    path = tmp_path / f"{name}.npy"
    np.save(path, data, allow_pickle=True)
    run = subprocess.run([cli, "import", path, "--out", tmp_path / "x.h5",
                          "--pixels-per-metre", "10"], capture_output=True, text=True)
    assert run.returncode == 2, run.stderr
    assert str(path) in run.stderr and message in run.stderr
    assert "PWNED" not in run.stdout and not (tmp_path / "x.h5").exists()
    with pytest.raises(ValueError, match=re.escape(message)):
        fishschool.import_tracks(path, tmp_path / "x.h5", pixels_per_metre=10)


def test_claimed_frames(fishschool, tmp_path, cli):
    (tmp_path / "huge.csv").write_text("frame,id,x,y\n0,1,1,1\n1000000000,1,2,2\n")
    # A .npy whose header claims 1e9 frames of a few bytes of data.
    npy = tmp_path / "claims.npy"
    np.save(npy, np.zeros((2, 2, 2)))
    raw = npy.read_bytes().replace(b"(2, 2, 2)", b"(1000000000, 2, 2)")
    raw = raw[:10] + raw[10:].replace(b" " * 9, b"", 1)
    npy.write_bytes(raw)
    for path in (tmp_path / "huge.csv", npy):
        run = subprocess.run([cli, "import", path, "--out", tmp_path / "x.h5",
                              "--pixels-per-metre", "10", "--fps", "5"],
                             capture_output=True, text=True)
        assert run.returncode == 2 and str(path) in run.stderr, run.stderr


def test_an_imported_files_missing_fish_are_left_out_of_its_measures(fishschool, tmp_path):
    """Tracked fish and a model, measured alike: a fish not found at a frame is nobody's
    neighbour there and counts in no distribution."""
    t = np.zeros((20, 3, 2))
    t[:, 0, 0] = np.arange(20.0)           # three fish in a row, 0.1 m apart
    t[:, 1, 0] = np.arange(20.0) + 10
    t[:, 2, 0] = np.arange(20.0) + 20
    t[5:8, 1, :] = np.nan                   # the middle one lost for three frames
    _idtracker(tmp_path / "trajectories.npy", t)
    fishschool.import_tracks(tmp_path / "trajectories.npy", tmp_path / "t.h5",
                             pixels_per_metre=100)
    m = fishschool.measure_trajectory(tmp_path / "t.h5")
    fish = np.asarray(m["fish"])
    assert list(fish[4:9]) == [3, 2, 2, 2, 3]
    nearest = np.asarray(m["nearest_neighbor_m"])
    assert nearest[4] == pytest.approx(0.1, rel=1e-5)
    assert nearest[6] == pytest.approx(0.2, rel=1e-5)   # the two left are 0.2 m apart
