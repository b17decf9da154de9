"""Coordinated omission: stalls in start times and the corrected tail, on captured stall runs.

The fixtures in tests/fixtures/stall/ were captured against a backend that stalls 0.6 s in every
1.5 s (see its COMMANDS.md): each closed-loop tool recorded only 4 stalled requests, so its own
99th percentile is a few milliseconds.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lbanalysis as lb
from lbanalysis.analysis import latency

STALL = Path(__file__).parent / "fixtures" / "stall"
PAUSE_S = 0.6


@pytest.fixture(scope="module")
def stall_ds():
    return lb.read(STALL, table="all")


def _run(tail: pd.DataFrame, name: str) -> pd.Series:
    rows = tail[tail["source"].str.endswith(name)]
    assert len(rows) == 1, tail
    return rows.iloc[0]


def _naive(lat: np.ndarray, interval: float, p: float) -> float:
    """HdrHistogram's recordValueWithExpectedInterval, written out, then the nearest rank."""
    values = []
    for v in lat:
        values.append(v)
        missing = v - interval
        while interval > 0 and missing >= interval - 1e-12:
            values.append(missing)
            missing -= interval
    return float(np.percentile(np.array(values), p, method="inverted_cdf"))


@pytest.mark.parametrize("seed", range(6))
def test_correction_equals_the_written_out_histogram(seed):
    rng = np.random.default_rng(seed)
    lat = np.round(rng.exponential(0.003, 400), 4)
    lat[rng.integers(0, 400, 5)] = rng.uniform(0.05, 0.4, 5).round(4)
    req = pd.DataFrame({"source": "x", "run": 0, "latency_s": lat})
    got = latency.corrected_percentiles(req, [50, 90, 99, 99.9, 100])
    interval = float(np.median(lat))
    for p, value in zip(got["percentile"], got["corrected_latency_s"], strict=True):
        assert value == pytest.approx(_naive(lat, interval, p), abs=1e-9), p
    assert (got["latency_s"] == [np.percentile(lat, p, method="inverted_cdf") for p in got["percentile"]]).all()


def test_ab_g_stall_raw_tail_hides_it_corrected_tail_shows_it(stall_ds):
    tail = latency.latency_tail(stall_ds.requests, stall_ds.runs)
    ab = _run(tail, "ab_stall.tsv")
    assert ab["requests"] == 2000
    assert ab["p99_s"] <= 0.01  # what ab printed: 99% within 4 ms
    assert 0.8 * PAUSE_S <= ab["p99_corrected_s"] <= PAUSE_S + 0.01
    assert ab["slow_requests"] == 4  # one stalled request per connection
    # ab logs start times to the second: a 0.6 s stall cannot show in them, and the note says so
    assert ab["start_resolution_s"] == 1.0 and ab["stalls"] == 0
    assert "only stalls of 2 s or more" in ab["note"]
    # ab's own summary of the same run agrees with the raw side
    summary = stall_ds.percentiles[stall_ds.percentiles["source"].str.endswith("ab_stall.txt")]
    assert summary.loc[summary["percentile"] == 99, "latency_s"].item() == pytest.approx(ab["p99_s"], abs=0.002)


def test_hey_csv_stall_is_found_in_start_times(stall_ds):
    found = latency.stalls(stall_ds.requests)
    hey = found[found["source"].str.endswith("hey_stall.csv")]
    assert len(hey) >= 1
    assert (hey["duration_s"].between(0.8 * PAUSE_S, PAUSE_S + 0.05)).all()
    tail = _run(latency.latency_tail(stall_ds.requests, stall_ds.runs), "hey_stall.csv")
    assert tail["stalls"] == len(hey) and tail["stalled_s"] == pytest.approx(hey["duration_s"].sum())
    assert tail["p99_s"] < 0.05 < 0.8 * PAUSE_S <= tail["p99_corrected_s"]


def test_siege_verbose_has_no_start_times_and_a_coarse_clock(stall_ds):
    tail = _run(latency.latency_tail(stall_ds.requests, stall_ds.runs), "siege_stall_verbose.txt")
    assert tail["tool"] == "siege" and tail["concurrency"] == 4
    assert pd.isna(tail["stalls"]) and math.isnan(tail["stalled_s"])
    assert tail["expected_interval_s"] == 0.01 and tail["interval_is_clock_step"]
    assert "no start times logged" in tail["note"] and "lower bound" in tail["note"]
    assert tail["p99_corrected_s"] > 10 * tail["p99_s"]


def test_open_loop_runs_and_network_tools_are_left_out():
    req = pd.DataFrame({"source": ["a", "b", "c"], "run": 0, "latency_s": [0.001, 0.002, 0.003]})
    runs = pd.DataFrame(
        {"source": ["a", "b", "c"], "run": 0, "tool": ["wrk", "wrk", "iperf3"], "rate_target_per_s": [None, 2e3, None]}
    )
    assert latency.latency_tail(req, runs)["source"].tolist() == ["a"]
    assert latency.is_closed_loop("hey") and not latency.is_closed_loop("haproxy")


def test_no_correction_below_the_timer_resolution():
    req = pd.DataFrame({"source": "a", "run": 0, "latency_s": [0.0] * 10})
    got = latency.latency_tail(req)
    assert got.loc[0, "p99_corrected_s"] == 0.0 and "no correction possible" in got.loc[0, "note"]


def test_a_frame_without_latencies_is_named():
    with pytest.raises(ValueError, match="latency_s"):
        latency.corrected_percentiles(pd.DataFrame({"source": ["a"], "run": [0]}))
