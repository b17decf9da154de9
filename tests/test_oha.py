"""oha: the text summary (not hey's), --output-format json and csv, each figure as printed, the 0.x layout."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis import registry
from lbanalysis.readers import detect
from tests.test_wrk_hey import whole_row

FIXTURES = Path(__file__).resolve().parent / "fixtures"
OHA = FIXTURES / "oha"

# oha_nginx.txt, as printed (oha 1.16.0, `-n 500 -c 10`, nginx)
NGINX = {
    "tool": "oha", "format": "oha", "success_pct": 100.0, "duration_s": 14.07e-3, "latency_max_s": 1.3348e-3,
    "latency_min_s": 0.077e-3, "latency_mean_s": 0.2581e-3, "requests_per_s": 35536.7164,
    "bytes_total": 86.43 * 1024, "bytes_per_request": 177.0, "bytes_per_s": 6.00 * 1024**2, "requests": 500,
    "requests_ok": 500, "non_2xx": 0, "status_codes": "200: 500", "failed": 0, "failed_network": 0,
    "requests_attempted_per_s": 35536.7164,
}  # fmt: skip


def test_text_summary_whole_row_distribution_and_details():
    ds = lbanalysis.read(OHA / "oha_nginx.txt", table="all")
    whole_row(ds.runs, 0, NGINX)
    assert ds.percentiles["percentile"].tolist() == [10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 99.99]
    assert ds.percentiles["latency_s"].iloc[[0, -1]].tolist() == pytest.approx([0.1293e-3, 1.3348e-3])
    assert ds.histogram["count"].sum() == 500 and ds.histogram["latency_s"].iloc[-1] == pytest.approx(1.335e-3)
    phases = ds.phases.set_index("phase")
    assert phases.index.tolist() == ["dns+dialup", "dns"]
    assert phases.loc["dns+dialup", ["mean_s", "min_s", "max_s"]].tolist() == pytest.approx([0.1023e-3, 0.045e-3,
                                                                                                 0.2398e-3])  # fmt: skip


def test_json_summary():
    ds = lbanalysis.read(OHA / "oha_nginx.json", table="all")
    r = ds.runs.iloc[0]
    assert r["format"] == "oha-json" and (r["requests"], r["requests_ok"], r["bytes_total"]) == (500, 500, 88500.0)
    assert r["duration_s"] == 0.056321542 and r["requests_per_s"] == 8877.597847019173
    assert r["latency_mean_s"] == pytest.approx(0.001024068844) and r["bytes_per_request"] == 177.0
    assert ds.percentiles["latency_s"].tolist()[:3] == pytest.approx([0.000097697, 0.00012658, 0.000138548])
    assert set(ds.phases["phase"]) == {"dns+dialup", "dns", "first byte"}
    assert ds.percentiles["kind"].fillna("").value_counts().to_dict() == {"": 9, "first byte": 9}
    assert ds.histogram["count"].sum() == 500 and ds.histogram["latency_s"].iloc[-1] == 0.032455563
    assert (r["interval_requests_per_s_mean"], r["interval_requests_per_s_p99_99"]) == (
        14634.049140684128, 41215.961364133356)  # fmt: skip


def test_any_response_is_an_oha_success_and_counts_by_status():
    r404 = lbanalysis.read(OHA / "oha_404.txt").iloc[0]
    assert (r404["success_pct"], r404["requests"], r404["requests_ok"], r404["non_2xx"]) == (100.0, 100, 0, 100)
    for name in ("oha_flaky_breakdown.txt", "oha_flaky_breakdown.json"):
        ds = lbanalysis.read(OHA / name, table="all")
        r = ds.runs.iloc[0]
        assert (r["requests"], r["requests_ok"], r["non_2xx"], r["status_codes"]) == (90, 60, 30, "200: 60; 500: 30")
        kinds = ds.percentiles["kind"].fillna("").value_counts().to_dict()
        assert (kinds[""], kinds["2xx only"], kinds["4xx + 5xx only"]) == (9, 9, 9), name  # --stats-success-breakdown


def test_refused_and_timeouts_are_runs_with_their_error():
    for name in ("oha_refused.txt", "oha_refused.json"):
        ds = lbanalysis.read(OHA / name, table="all")
        r = ds.runs.iloc[0]
        assert (r["requests"], r["failed"], r["failed_network"], r["requests_per_s"]) == (0, 20, 20, 0.0), name
        assert r["error"] == "Connection refused (os error 111) (x20)" and r["success_pct"] == 0.0, name
        assert pd.isna(r["latency_mean_s"]) and ds.percentiles.empty and ds.phases.empty, name
        assert pd.isna(r["bytes_per_request"]), name
    t = lbanalysis.read(OHA / "oha_timeout.txt").iloc[0]
    assert (t["requests"], t["failed"], t["error"]) == (0, 6, "timeout (x6)")


def test_requests_cut_off_by_the_deadline_are_no_failures():
    r = lbanalysis.read(OHA / "oha_haproxy_time.txt").iloc[0]
    assert (r["requests"], r["failed"], r["warnings"]) == (46125, 0, "aborted due to deadline (x20)")
    assert r["requests_per_s"] == pytest.approx(46125 / 2.0011893)  # oha printed 23058.7878, the 20 included
    assert r["duration_s"] == pytest.approx(2.0011893)


def test_time_units():
    assert lbanalysis.read(OHA / "oha_time_unit_ms.txt").iloc[0]["duration_s"] == pytest.approx(0.1919254)
    slow = lbanalysis.read(OHA / "oha_slow.txt").iloc[0]
    assert slow["latency_min_s"] > 0.05 and slow["requests"] == 200


def test_csv_into_the_requests_table():
    ds = lbanalysis.read(OHA / "oha_slow.csv", table="all")
    req = ds.requests
    assert len(req) == 60 and req["seq"].tolist() == list(range(60)) and req["status"].eq(200).all()
    assert req[["start_s", "connect_s", "waiting_s", "latency_s", "bytes"]].notna().all().all()
    assert ds.runs.loc[0, "format"] == "oha-csv" and ds.runs.loc[0, "requests"] == 60


def test_sweep_transcript_takes_the_concurrency_from_each_command():
    runs = lbanalysis.read(OHA / "oha_sweep_transcript.txt")
    assert runs["concurrency"].tolist() == [1, 8, 32, 32]
    assert runs["format"].tolist() == ["oha", "oha", "oha", "oha-json"]
    assert runs["time_limit_s"].eq(1.0).all() and runs["port"].eq(18882).all()


def test_the_0x_layout():
    ds = lbanalysis.read(OHA / "oha_shape_0x_rust_rest.txt", table="all")
    r = ds.runs.iloc[0]
    assert (r["success_pct"], r["duration_s"], r["requests"], r["requests_per_s"]) == (100.0, 300.001, 463145,
                                                                                         1543.8113)  # fmt: skip
    assert (r["time_limit_s"], r["port"]) == (300.0, 8080)
    assert ds.percentiles["percentile"].tolist() == [10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0]


def test_detection_is_not_confused_with_hey():
    assert detect((OHA / "oha_nginx.txt").read_text()) == "oha"
    assert detect((OHA / "oha_shape_0x_rust_rest.txt").read_text()) == "oha"
    assert detect((OHA / "oha_nginx.json").read_text()) == "oha-json"
    assert detect((OHA / "oha_slow.csv").read_text()) == "oha-csv"
    for name in ("hey_basic.txt", "hey_refused.txt", "hey_post_duration.txt"):
        assert detect((FIXTURES / "hey" / name).read_text()) == "hey", name
    assert lbanalysis.read(FIXTURES / "hey" / "hey_basic.txt").iloc[0]["tool"] == "hey"
    assert registry.get_tool("oha").closed_loop
    assert lbanalysis.read(OHA / "oha_version.txt", errors="skip").empty


def test_a_summary_cut_short_counts_nothing_it_did_not_show(tmp_path):
    text = (OHA / "oha_refused.txt").read_text()
    cut = tmp_path / "cut.txt"
    cut.write_text(text[: text.index("Status code distribution")])
    r = lbanalysis.read(cut).iloc[0]
    assert pd.isna(r["requests"]) and pd.isna(r["failed"]) and "stops before" in r["error"]
    cut.write_text(text[: text.index("Error distribution")])
    r = lbanalysis.read(cut).iloc[0]
    assert r["requests"] == 0 and pd.isna(r["failed"]) and "stops before its error distribution" in r["warnings"]
