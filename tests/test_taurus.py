"""Taurus (bzt) final stats: a live capture (Taurus 1.17.2 driving ab, tests/fixtures/taurus/COMMANDS.md) and the
documented shape (one line per percentile)."""

from __future__ import annotations

import pandas as pd

import lbanalysis
from lbanalysis.readers import detect

from .conftest import FIXTURES

TAURUS = FIXTURES / "taurus"


def test_the_final_stats_of_a_live_run_are_its_run():
    ds = lbanalysis.read(TAURUS / "taurus_ab.txt", table="all")
    assert len(ds.runs) == 1
    r = ds.runs.iloc[0]
    assert (r["tool"], r["tool_version"], r["concurrency"], r["line"]) == ("taurus", "1.17.2", 4, 14)
    assert (r["requests_attempted"], r["requests"], r["requests_ok"], r["failed"], r["success_pct"]) == (
        400, 400, 400, 0, 100.0
    )  # fmt: skip
    assert r["duration_s"] == 8.0 and pd.isna(r["requests_per_s"])  # Taurus's whole test: no rate derived
    assert (r["latency_mean_s"], r["latency_min_s"], r["latency_max_s"]) == (0.0, 0.021, 0.076)
    pcts = ds.percentiles.set_index("percentile")["latency_s"].to_dict()
    assert pcts == {0.0: 0.021, 50.0: 0.064, 90.0: 0.068, 95.0: 0.069, 99.0: 0.072, 99.9: 0.076, 100.0: 0.076}
    assert ds.metrics[["metric", "stat", "value"]].values.tolist() == [
        ["http://127.0.0.1:18570/slow?ms=20", "succ", 100.0],
        ["http://127.0.0.1:18570/slow?ms=20", "avg_rt", 0.0],
    ]
    assert ds.phases[["phase", "mean_s"]].values.tolist() == [["first byte", 0.0], ["connect", 0.0]]


def test_stats_logged_twice_by_two_reporters_are_one_run_that_says_so():
    ds = lbanalysis.read(TAURUS / "taurus_ab_twice.txt", table="all")
    assert len(ds.runs) == 1 and len(ds.percentiles) == 7
    r = ds.runs.iloc[0]
    assert (r["requests_attempted"], r["duration_s"], r["latency_max_s"]) == (400, 9.0, 0.084)
    assert r["warnings"] == "the same final stats logged again at line 35 (two final-stats reporters): read once"


def test_the_documented_final_stats_with_a_line_per_percentile():
    """Taurus's docs (Reporting.md): 367 samples, 8.17 % failures: 30 failed (the one count 8.17 % rounds to)."""
    ds = lbanalysis.read(TAURUS / "shapes" / "taurus_docs_final_stats.txt", table="all")
    r = ds.runs.iloc[0]
    assert (r["requests_attempted"], r["failed"], r["success_pct"]) == (367, 30, 91.83)
    assert pd.isna(r["requests"]) and pd.isna(r["concurrency"])  # which failures got an answer is not shown
    assert (r["latency_mean_s"], r["latency_min_s"], r["latency_max_s"]) == (0.385, 0.125, 3.641)
    assert ds.percentiles["percentile"].tolist() == [0.0, 50.0, 90.0, 95.0, 99.0, 99.9, 100.0]
    assert ds.phases[["phase", "mean_s"]].values.tolist() == [["first byte", 0.115], ["connect", 0.0]]
    s = lbanalysis.study(ds)
    assert round(s.runs.iloc[0]["error_share"], 4) == round(30 / 367, 4)


def test_a_large_run_keeps_no_failure_count_its_share_cannot_give():
    from lbanalysis.readers.taurus.text import parse
    from lbanalysis.text import Segment

    r = parse(Segment("Samples count: 123456, 0.01% failures\n")).runs[0]
    assert r["requests_attempted"] == 123456 and r["success_pct"] == 99.99 and "failed" not in r


def test_taurus_is_detected_by_its_final_stats():
    assert detect((TAURUS / "taurus_ab.txt").read_text()) == "taurus"
