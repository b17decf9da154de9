"""Knee finding on plateaus with known knees."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lbanalysis.analysis.saturation import Knee, find_knee
from lbanalysis.errors import FitError

LOADS = [5, 10, 20, 30, 40, 60, 80, 100, 120]


def _plateau(knee: float = 40, rate: float = 25.0, repeats: int = 3, sd: float = 10.0, seed: int = 0) -> pd.DataFrame:
    """Throughput = rate * min(load, knee) + noise; latency = load / throughput (closed loop)."""
    rng = np.random.default_rng(seed)
    n = np.repeat(LOADS, repeats).astype(float)
    y = rate * np.minimum(n, knee) + rng.normal(0, sd, len(n))
    return pd.DataFrame({"concurrency": pd.array(n.astype(int), dtype="Int64"), "requests_per_s": y,
                         "latency_mean_s": n / y})  # fmt: skip


def test_plateau_method_finds_the_known_knee():
    k = find_knee(_plateau(), latency="latency_mean_s")
    assert isinstance(k, Knee)
    assert k.x == 40.0
    assert k.saturated
    assert k.y == pytest.approx(1000, abs=15)
    assert k.plateau == pytest.approx(1000, abs=10)
    assert k.latency_rising is True
    assert k.latency == pytest.approx(0.04, abs=0.002)
    assert k.latency_last == pytest.approx(0.12, abs=0.005)
    assert "stops growing at concurrency=40" in k.reason and "latency keeps rising" in k.reason
    assert k.n_loads == len(LOADS)


def test_piecewise_method_finds_the_known_knee():
    k = find_knee(_plateau(knee=60, seed=1), method="piecewise")
    assert k.x == 60.0 and k.method == "piecewise" and k.saturated


def test_noise_moves_the_knee_no_later_than_the_true_one():
    # with much noise the 'not significantly below the max' load can only come earlier
    k = find_knee(_plateau(sd=80.0, seed=2))
    assert k.x <= 40.0


def test_without_repeats_the_relative_tolerance_applies():
    runs = pd.DataFrame({"concurrency": [1, 2, 4, 8, 16], "requests_per_s": [100.0, 200, 380, 390, 392]})
    assert find_knee(runs).x == 4.0
    assert find_knee(runs, rel_tol=0.001).x == 16.0


def test_still_growing_is_not_saturated():
    runs = pd.DataFrame({"concurrency": LOADS, "requests_per_s": [10.0 * n for n in LOADS]})
    for method in ("plateau", "piecewise"):
        k = find_knee(runs, method=method)
        assert not k.saturated, method
        assert "still growing" in k.reason


def test_retrograde_curve_knee_before_the_peak_load():
    n = np.array(LOADS, dtype=float)
    runs = pd.DataFrame({"concurrency": n, "requests_per_s": 100 * n / (1 + 0.02 * (n - 1) + 0.0004 * n * (n - 1))})
    k = find_knee(runs)
    assert k.x_max == 60.0 and k.x <= k.x_max and k.saturated  # true peak at sqrt(0.98/0.0004) = 49.5
    assert k.plateau < k.max_y


def test_by_gives_one_row_per_group_and_coerces_errors():
    runs = pd.concat(
        [_plateau(knee=40).assign(servers="one"), _plateau(knee=80, seed=3).assign(servers="two"),
         pd.DataFrame({"concurrency": [1, 2], "requests_per_s": [1.0, 2.0], "servers": "tiny"})],
        ignore_index=True,
    )  # fmt: skip
    table = find_knee(runs, by="servers", errors="coerce")
    assert table.index.name == "servers"
    assert table.loc["one", "x"] == 40.0 and table.loc["two", "x"] == 80.0
    assert np.isnan(table.loc["tiny", "x"]) and "3 or more" in table.loc["tiny", "reason"]
    with pytest.raises(FitError, match="3 or more"):
        find_knee(runs, by="servers")


def test_to_dict_and_series():
    k = find_knee(_plateau())
    assert k.to_dict()["x"] == 40.0
    assert k.to_series()["method"] == "plateau"


def test_unknown_method_and_missing_column():
    with pytest.raises(ValueError, match="known methods"):
        find_knee(_plateau(), method="magic")
    with pytest.raises(FitError, match="no column 'clients'"):
        find_knee(_plateau(), x="clients")
