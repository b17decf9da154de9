"""A vs B comparison with a bootstrap interval of the ratio of means."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lbanalysis.analysis import compare


def _runs(ratio: float, n: int = 5, sd: float = 0.02, seed: int = 0, levels=(10, 20, 40)) -> pd.DataFrame:
    """Setups A and B, ``n`` runs per load level; B's true mean is ``ratio`` x A's."""
    rng = np.random.default_rng(seed)
    rows = []
    for level in levels:
        base = 1000.0 + 10 * level
        for setup, mean in (("A", base), ("B", base * ratio)):
            for v in mean * (1 + sd * rng.standard_normal(n)):
                rows.append({"setup": setup, "concurrency": level, "requests_per_s": v})
    return pd.DataFrame(rows)


def test_clear_gain_is_beyond_noise_and_interval_holds_the_truth():
    res = compare(_runs(1.5), by="setup", a="A", b="B", at="concurrency")
    assert res.index.tolist() == [10, 20, 40, "overall"]
    assert res.index.name == "concurrency"
    assert res["significant"].all()
    assert ((res["lower"] <= 1.5) & (1.5 <= res["upper"])).all()
    assert res.loc["overall", "n_a"] == 15 and res.loc["overall", "n_b"] == 15
    assert res.loc["overall", "verdict"].startswith("B is 50% higher than A")
    assert res.loc["overall", "change_pct"] == pytest.approx(50, abs=2)


def test_no_difference_is_within_noise():
    res = compare(_runs(1.0, seed=1), by="setup", a="A", b="B", at="concurrency")
    assert not res.loc["overall", "significant"]
    assert res.loc["overall", "lower"] < 1 < res.loc["overall", "upper"]
    assert res.loc["overall", "verdict"].startswith("no difference beyond run-to-run noise: B/A = ")


def test_lower_is_worded_lower():
    res = compare(_runs(0.7, seed=2), by="setup", a="A", b="B")
    assert res.index.tolist() == ["overall"]
    assert res.loc["overall", "verdict"].startswith("B is 30% lower than A")


def test_overall_averages_levels_not_runs():
    # A has extra runs at the slow level: the overall ratio must not lean on them
    runs = _runs(1.2, sd=0.0)
    extra = pd.DataFrame({"setup": "A", "concurrency": 10, "requests_per_s": [1100.0] * 20})
    res = compare(pd.concat([runs, extra]), by="setup", a="A", b="B", at="concurrency")
    assert res.loc["overall", "ratio"] == pytest.approx(1.2)


def test_seeded_and_reproducible():
    runs = _runs(1.1, seed=3)
    first = compare(runs, by="setup", a="A", b="B", at="concurrency", n_boot=300, seed=7)
    again = compare(runs, by="setup", a="A", b="B", at="concurrency", n_boot=300, seed=7)
    pd.testing.assert_frame_equal(first, again)
    assert first.attrs["n_boot"] == 300 and first.attrs["a"] == "A"


def test_too_few_runs_and_missing_levels():
    runs = pd.DataFrame(
        {"setup": ["A", "B", "A", "A", "B", "B", "A"], "concurrency": [10, 10, 20, 20, 20, 20, 40],
         "requests_per_s": [100.0, 150.0, 100.0, 104.0, 150.0, 151.0, 99.0]}
    )  # fmt: skip
    res = compare(runs, by="setup", a="A", b="B", at="concurrency")
    assert pd.isna(res.loc[10, "significant"]) and "too few runs" in res.loc[10, "verdict"]
    # two runs against two: a bootstrap of two runs has three possible means; too few to tell
    assert pd.isna(res.loc[20, "significant"]) and res.loc[20, "verdict"].startswith("too few runs to tell")
    assert "needs 3 or more a side" in res.loc[20, "verdict"]
    assert np.isnan(res.loc[20, "runs_needed"])  # no planning figure from two runs a side
    assert np.isnan(res.loc[10, "runs_needed"])  # one run a side: no spread to plan from
    assert res.loc[40, "verdict"] == "no runs of B at concurrency=40"
    assert np.isnan(res.loc[40, "ratio"])
    assert "too few runs to tell (2 of 2 load levels" in res.loc["overall", "verdict"]
    assert res.loc["overall", "ratio"] == pytest.approx((150 + 150.5) / (100 + 102))


def test_unknown_setup_or_column():
    runs = _runs(1.0)
    with pytest.raises(ValueError, match="no runs with setup == 'C'; values are: A, B"):
        compare(runs, by="setup", a="A", b="C")
    with pytest.raises(ValueError, match="no column 'mode'"):
        compare(runs, by="mode", a="A", b="B")


def test_two_runs_against_two_are_too_few_even_when_far_apart():
    runs = pd.DataFrame({"setup": ["A", "A", "B", "B"], "requests_per_s": [100.0, 101.0, 200.0, 202.0]})
    res = compare(runs, by="setup", a="A", b="B")
    assert pd.isna(res.loc["overall", "significant"]) and np.isnan(res.loc["overall", "lower"])
    assert "too few runs to tell" in res.loc["overall", "verdict"]
    assert compare(runs, by="setup", a="A", b="B", min_runs=2).loc["overall", "significant"]


def test_runs_needed_grows_with_spread_over_difference():
    from lbanalysis.analysis.comparison import runs_needed

    tight = runs_needed(np.array([100.0, 101, 99]), np.array([110.0, 111, 109]))
    loose = runs_needed(np.array([100.0, 110, 90]), np.array([104.0, 114, 94]))
    assert tight == 3 and loose > 30
