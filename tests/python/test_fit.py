"""fishschool.fit and fishschool.ensemble_sensitivity (docs/data.md, docs/ensembles.md): the same
posterior as `fishschool-cli fit`, bytes for bytes, and the Sobol design's points as SciPy's
unscrambled Sobol sequence gives them."""

import csv
import json
import subprocess

import numpy as np
import pytest

BASE = {"fishCount": 20, "steering": "couzin", "rSeparation": 1, "rAlignment": 3,
        "rCohesion": 6, "dt": 0.1, "maxTurnRate": 40, "noise": 0.05, "boundary": "periodic",
        "bounds": [6, 6, 6], "groupDistance": 3, "rocks": [], "neighborSearch": "all-pairs"}
FIT = {"base": "base.json",
       "parameters": {"orientation-width": {"uniform": [0, 6]},
                      "noise": {"log-uniform": [0.01, 0.5]}},
       "target": {"trajectory": "target.h5", "from_step": 21},
       "statistics": {"measures": ["polarization", "nearest_neighbor_m"],
                      "distributions": ["neighbor_heading"]},
       "steps": 60, "measure": {"last": 40, "every": 2},
       "particles": 20, "budget": 300, "populations": 3, "seed": 3}


@pytest.fixture(scope="module")
def fit_file(cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fit")
    (folder / "base.json").write_text(json.dumps(BASE))
    (folder / "fit.json").write_text(json.dumps(FIT))
    result = subprocess.run([str(cli), "simulate", "--config", str(folder / "base.json"),
                             "--steps", "60", "--seed", "9", "--trajectory",
                             str(folder / "target.h5"), "--trajectory-every", "2"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return folder / "fit.json"


def test_fit_returns_the_posterior_and_the_cli_writes_the_same(fishschool, cli, fit_file,
                                                               tmp_path):
    calls = []
    fitted = fishschool.fit(fit_file, tmp_path / "py", jobs=2,
                            progress=lambda *args: calls.append(args))
    assert fitted["parameters"] == ["orientation-width", "noise"]
    assert set(fitted["targets"]) == {"polarization", "nearest_neighbor_m",
                                      "hellinger_neighbor_heading"}
    assert fitted["targets"]["hellinger_neighbor_heading"] == 0.0
    populations = fitted["populations"]
    assert [p["population"] for p in populations] == list(range(len(populations)))
    assert 2 <= len(populations) <= 3
    assert populations[0]["epsilon"] == float("inf")
    for p in populations:
        assert p["particles"] == 20 and 0 < p["acceptance"] <= 1
        assert set(p["parameters"]) == {"orientation-width", "noise"}
        q = p["parameters"]["noise"]
        assert 0.01 <= q["q05"] <= q["median"] <= q["q95"] <= 0.5
    posterior = fitted["posterior"]
    assert posterior["weight"].shape == (20,)
    assert posterior["weight"].sum() == pytest.approx(1.0)
    assert np.all((posterior["orientation-width"] >= 0) & (posterior["orientation-width"] <= 6))
    assert fitted["simulations"] <= 300
    assert fitted["schools_per_simulation"] == 1  # one target trajectory
    assert fitted["posterior_file"].endswith("posterior.csv")
    # Progress after each simulation and each population.
    assert sum(1 for c in calls if c[3]) == len(populations)
    assert max(c[1] for c in calls) == fitted["simulations"]
    # The command line, on one job, writes the same populations.
    result = subprocess.run([str(cli), "fit", str(fit_file), "--out", str(tmp_path / "cli"),
                             "--jobs", "1"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    for name in ["posterior.csv", "populations.csv"] + [
            f"population-{p['population']}.csv" for p in populations]:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    with open(tmp_path / "py" / "posterior.csv") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["weight"]) for r in rows] == posterior["weight"].tolist()
    # Done: the same call runs nothing more.
    again = fishschool.fit(fit_file, tmp_path / "py")
    assert again["simulations"] == fitted["simulations"]
    assert np.array_equal(again["posterior"]["noise"], posterior["noise"])


def test_bad_fit_files_are_value_errors_naming_the_key(fishschool, fit_file, tmp_path):
    bad = dict(FIT, budget=-1)
    path = fit_file.parent / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="key 'budget'"):
        fishschool.fit(path, tmp_path / "out")
    path.write_text(json.dumps(dict(FIT, parameters={"gills": {"uniform": [0, 1]}})))
    with pytest.raises(ValueError, match="cannot be fitted"):
        fishschool.fit(path, tmp_path / "out")
    with pytest.raises(ValueError, match="jobs"):
        fishschool.fit(fit_file, tmp_path / "out", jobs=-1)
    assert not (tmp_path / "out").exists()


def test_the_sobol_design_is_scipys_sequence_and_its_indices_read(fishschool, cli, tmp_path):
    qmc = pytest.importorskip("scipy.stats.qmc")
    design = {"base": {"fishCount": 4, "rocks": []}, "design": "sobol", "samples": 8,
              "axes": {"noise": {"from": 0, "to": 0.5}, "kAlignment": {"from": 1, "to": 3},
                       "kCohesion": {"from": 0, "to": 2}},
              "steps": 2, "seed": 1}
    (tmp_path / "s.json").write_text(json.dumps(design))
    fishschool.run_ensemble(tmp_path / "s.json", tmp_path / "s", jobs=2)
    fishschool.merge_ensemble(tmp_path / "s", tmp_path / "s.csv")
    with open(tmp_path / "s.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 8 * (3 + 2)
    # SciPy's unscrambled points 1 to 8 in 6 dimensions: A is the first 3, B the last 3.
    base = qmc.Sobol(d=6, scramble=False).random_base2(4)[1:9]
    low, high = np.array([0, 1, 0]), np.array([0.5, 3, 2])
    a, b = low + base[:, :3] * (high - low), low + base[:, 3:] * (high - low)
    keys = ["noise", "kAlignment", "kCohesion"]
    for j in range(8):
        block = [[float(rows[j * 5 + r][k]) for k in keys] for r in range(5)]
        expected = [a[j], *[np.where(np.arange(3) == i, b[j], a[j]) for i in range(3)], b[j]]
        np.testing.assert_allclose(block, expected, rtol=1e-7, atol=1e-9)
    s = fishschool.ensemble_sensitivity(tmp_path / "s", bootstrap=50)
    assert s["samples"] == 8 and s["parameters"] == keys
    for parameter in keys:
        index = s["indices"]["polarization"][parameter]
        assert index["S1_low"] <= index["S1_high"] and index["ST_low"] <= index["ST_high"]
    assert "direction_error" in s["skipped"]
