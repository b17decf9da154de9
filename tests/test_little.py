"""Little's law check and connection sizing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lbanalysis.analysis.little import OPEN_LOOP, ZERO_LATENCY, littles_law, required_connections


def _runs(**cols) -> pd.DataFrame:
    base = {"concurrency": pd.array([10, 40, 50], dtype="Int64"), "requests_per_s": [200.0, 100.0, 100.0],
            "latency_mean_s": [0.05, 0.38, 0.2]}  # fmt: skip
    base.update(cols)
    return pd.DataFrame(base)


def test_adds_little_concurrency_and_ratio():
    out = littles_law(_runs())
    assert out["concurrency_little"].tolist() == pytest.approx([10.0, 38.0, 20.0])
    assert out["concurrency_ratio"].tolist() == pytest.approx([1.0, 0.95, 0.4])
    assert out["concurrency_low"].tolist() == [False, False, True]
    assert str(out["concurrency_low"].dtype) == "boolean"
    assert out["concurrency_reason"].tolist()[:2] == ["", ""]
    assert "only 20 of 50 clients busy" in out.loc[2, "concurrency_reason"]
    assert "load generator" in out.loc[2, "concurrency_reason"]


def test_input_is_not_modified_and_columns_are_kept():
    runs = _runs(setup=["a", "b", "c"])
    out = littles_law(runs)
    assert "concurrency_little" not in runs.columns
    assert out["setup"].tolist() == ["a", "b", "c"]


def test_threshold_is_a_parameter():
    out = littles_law(_runs(), threshold=0.96)
    assert out["concurrency_low"].tolist() == [False, True, True]


def test_reason_names_think_time_and_failures():
    out = littles_law(_runs(delay_s=[0.0, 0.0, 1.0], failed=pd.array([0, 0, 12], dtype="Int64")))
    reason = out.loc[2, "concurrency_reason"]
    assert "think time between requests (delay 1 s)" in reason
    assert "12 failed requests" in reason


def test_missing_figures_give_na_not_a_flag():
    runs = _runs(latency_mean_s=[0.05, np.nan, 0.2], concurrency=pd.array([10, 40, None], dtype="Int64"))
    out = littles_law(runs)
    assert out["concurrency_low"].isna().tolist() == [False, True, True]
    assert out["concurrency_reason"].tolist() == ["", "", ""]


def test_ratio_above_one_is_reported_without_flag():
    out = littles_law(_runs(latency_mean_s=[0.1, 0.38, 0.2]))
    assert not out.loc[0, "concurrency_low"]
    assert "measured differently" in out.loc[0, "concurrency_reason"]


def test_ab_runs_satisfy_the_law_by_construction():
    # ab: time per request (mean) = concurrency * time taken / requests
    requests, taken, c = 10000, 12.5, 25
    runs = pd.DataFrame(
        {"concurrency": [c], "requests_per_s": [requests / taken], "latency_mean_s": [c * taken / requests]}
    )
    assert littles_law(runs).loc[0, "concurrency_ratio"] == pytest.approx(1.0)


def test_required_connections_article_example():
    assert required_connections(100, 3) == 300
    assert required_connections(100, 3.0, headroom=1.2) == 360
    assert required_connections(10, 0.05) == 1
    assert required_connections(7, 0.1) == 1  # 0.7 in flight still needs a connection


def test_required_connections_from_a_frame_and_series():
    frame = pd.DataFrame({"requests_per_s": [100.0, 33.0], "latency_mean_s": [3.0, 0.1], "svc": [1.0, 2.0]})
    got = required_connections(frame)
    assert got.name == "required_connections" and got.tolist() == [300, 4]
    assert required_connections(frame, "svc").tolist() == [100, 66]
    assert required_connections(frame["requests_per_s"], 2.0, headroom=1.5).tolist() == [300, 99]
    with pytest.raises(TypeError, match="service time"):
        required_connections(100)


def test_a_latency_printed_as_zero_is_not_an_idle_client():
    runs = pd.DataFrame({"concurrency": [4, 4], "requests_per_s": [1034.0, 1034.0], "latency_mean_s": [0.0, 0.001]})
    out = littles_law(runs)
    assert pd.isna(out.loc[0, "concurrency_ratio"]) and out.loc[0, "concurrency_low"] is pd.NA
    assert out.loc[0, "concurrency_reason"] == ZERO_LATENCY
    assert bool(out.loc[1, "concurrency_low"]) and "load generator" in out.loc[1, "concurrency_reason"]


def test_a_fixed_rate_run_is_not_a_busy_client_question():
    runs = pd.DataFrame({"concurrency": [100, 100], "requests_per_s": [2000.0, 2000.0], "latency_mean_s": [0.0066, 0.0066],
                         "rate_target_per_s": [2000.0, None]})  # fmt: skip
    out = littles_law(runs)
    assert out.loc[0, "concurrency_low"] is pd.NA and out.loc[0, "concurrency_reason"] == OPEN_LOOP
    assert bool(out.loc[1, "concurrency_low"])  # the same figures without a fixed rate: 13 busy of 100
