"""wrk, wrk2 and hey: whole frames of the captured outputs and of wrk2's shapes."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis import schema

FIXTURES = Path(__file__).resolve().parent / "fixtures"
WRK = FIXTURES / "wrk"
HEY = FIXTURES / "hey"


def whole_row(runs: pd.DataFrame, i: int, expected: dict) -> None:
    """Row ``i`` holds exactly ``expected``: every other column is empty."""
    row = runs.iloc[i]
    for col in schema.RUNS:
        got = row[col]
        if col in expected:
            want = expected[col]
            if isinstance(want, float):
                assert got == pytest.approx(want, rel=1e-9, nan_ok=True), col
            else:
                assert got == want, col
        elif col not in ("source", "run", "line"):
            assert pd.isna(got), f"{col} should be empty, holds {got!r}"


WRK_BASIC = {
    "tool": "wrk", "format": "wrk", "url": "http://127.0.0.1:18080/", "host": "127.0.0.1", "port": 18080,
    "path": "/", "concurrency": 10, "threads": 2, "time_limit_s": 2.0, "requests": 1457, "duration_s": 2.05,
    "bytes_total": 559.33 * 1024, "requests_per_s": 710.04, "bytes_per_s": 272.58 * 1024,
    "latency_mean_s": 0.01910, "latency_stdev_s": 0.03884, "latency_max_s": 0.21686,
    "latency_within_stdev_pct": 90.13, "thread_requests_per_s_mean": 478.33,
    "thread_requests_per_s_stdev": 316.16, "thread_requests_per_s_max": 1180.0,
    "thread_requests_per_s_within_stdev_pct": 60.0,
    # printed only when non-zero, between the summary line and Requests/sec: the output shows they were 0
    "socket_errors_connect": 0, "socket_errors_read": 0, "socket_errors_write": 0, "socket_errors_timeout": 0,
    "non_2xx_3xx": 0,
}  # fmt: skip


def test_wrk_summary_whole_row():
    runs = lbanalysis.read(WRK / "wrk_basic.txt")
    assert len(runs) == 1
    whole_row(runs, 0, WRK_BASIC)


def test_wrk_latency_distribution_and_non_2xx():
    ds = lbanalysis.read(WRK / "wrk_latency_404.txt", table="all")
    assert ds.runs.loc[0, "non_2xx_3xx"] == 1453 and pd.isna(ds.runs.loc[0, "non_2xx"])
    pct = ds.percentiles
    assert pct["percentile"].tolist() == [50.0, 75.0, 90.0, 99.0]
    assert pct["latency_s"].tolist() == pytest.approx([0.00382, 0.01805, 0.05447, 0.11036])
    assert pct["kind"].isna().all() and pct["count"].isna().all()


def test_wrk_refused_is_a_run_with_its_error():
    whole_row(
        lbanalysis.read(WRK / "wrk_refused.txt"),
        0,
        {
            "tool": "wrk",
            "format": "wrk",
            "error": "unable to connect to 127.0.0.1:18099: Connection refused",
            "error_kind": "no answer",
            "host": "127.0.0.1",
            "port": 18099,
        },
    )


def test_wrk_no_request_completed_nan_pct():
    runs = lbanalysis.read(WRK / "wrk_timeout.txt")
    r = runs.iloc[0]
    assert r["requests"] == 0 and r["error"].startswith("no response")
    assert pd.isna(r["latency_mean_s"]) and pd.isna(r["latency_within_stdev_pct"])  # '0.00us … -nan%'


def test_wrk_socket_errors():
    r = lbanalysis.read(WRK / "wrk_socket_errors.txt").iloc[0]
    assert [r[f"socket_errors_{k}"] for k in ("connect", "read", "write", "timeout")] == [0, 0, 0, 4]
    assert r["requests"] == 4 and pd.isna(r["latency_mean_s"])  # timed-out requests have no latency in wrk
    c = lbanalysis.read(WRK / "wrk_close.txt").iloc[0]
    assert c["socket_errors_read"] == 2467 and pd.isna(c["error"])


def test_wrk_transcript_three_runs_commands_apply_to_their_own_output():
    runs = lbanalysis.read(WRK / "wrk_transcript.txt")
    assert runs["concurrency"].tolist() == [10, 20, 1]
    assert runs["line"].tolist() == [1, 10, 24]
    assert runs["command"].tolist()[2] == "wrk -t1 -c1 -d1s http://127.0.0.1:18099/"
    assert runs["error"].isna().tolist() == [True, True, False]
    assert runs["requests_per_s"].tolist()[:2] == [396.33, 1141.79]


def test_wrk2_rate_spectrum_and_hdr_summary():
    ds = lbanalysis.read(WRK / "wrk2_rate_spectrum.txt", table="all")
    r = ds.runs.iloc[0]
    assert r["rate_target_per_s"] == 2000.0 and r["concurrency"] == 100 and r["threads"] == 2
    assert (r["hdr_latency_mean_s"], r["hdr_latency_stdev_s"], r["hdr_latency_max_s"], r["hdr_count"]) == (
        pytest.approx(0.006602),
        pytest.approx(0.001919),
        pytest.approx(0.012496),
        39500,
    )
    assert r["requests"] == 60018 and r["bytes_total"] == pytest.approx(19.81 * 2**20)
    pct = ds.percentiles[ds.percentiles["kind"] == "recorded"]  # the full spectrum
    assert len(pct) == 16
    assert pct["percentile"].iloc[-1] == 100.0 and pct["latency_s"].iloc[-1] == pytest.approx(0.012503)
    printed = ds.percentiles[ds.percentiles["kind"] == "recorded printed"]  # the 8 lines above it, kept beside
    assert printed["percentile"].tolist() == [50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0]
    assert printed["count"].isna().all()
    assert pct["count"].tolist()[:3] == [1, 3951, 7921]


def test_wrk2_uncorrected_latency_apart():
    ds = lbanalysis.read(WRK / "wrk2_u_latency.txt", table="all")
    by_kind = ds.percentiles.groupby("kind")["latency_s"].max()
    assert by_kind["recorded"] == pytest.approx(0.012503) and by_kind["uncorrected"] == pytest.approx(0.010967)
    assert ds.runs.loc[0, "hdr_latency_mean_s"] == pytest.approx(0.006602)  # the recorded one, not the uncorrected


HEY_BASIC = {
    "tool": "hey", "format": "hey", "requests": 200, "requests_ok": 200, "non_2xx": 0, "failed": 0,
    "duration_s": 0.9702, "latency_max_s": 0.0752, "latency_min_s": 0.0148, "latency_mean_s": 0.0469,
    "requests_per_s": 206.1449, "bytes_total": 600.0, "bytes_per_s": 600 / 0.9702, "bytes_per_request": 3.0,
    "status_codes": "200: 200", "requests_attempted_per_s": 206.1449,
}  # fmt: skip


def test_hey_summary_whole_row_and_details():
    ds = lbanalysis.read(HEY / "hey_basic.txt", table="all")
    whole_row(ds.runs, 0, HEY_BASIC)
    assert ds.percentiles["percentile"].tolist() == [10, 25, 50, 75, 90, 95, 99]
    assert ds.percentiles["latency_s"].tolist()[-1] == 0.075
    phases = ds.phases.set_index("phase")
    assert phases.index.tolist() == ["dns+dialup", "dns", "req write", "resp wait", "resp read"]
    assert phases.loc["resp read", ["mean_s", "min_s", "max_s"]].tolist() == [0.0436, 0.0, 0.0601]


def test_hey_refused_counts_no_request_and_keeps_the_error():
    r = lbanalysis.read(HEY / "hey_refused.txt").iloc[0]
    assert r["requests"] == 0 and r["failed"] == 20 and r["requests_per_s"] == 0.0  # hey printed 1640/s of errors
    assert "connection refused (x20)" in r["error"]
    assert r["requests_attempted_per_s"] == 1640.37  # hey's own Requests/sec, errors included
    assert pd.isna(r["latency_mean_s"])


def test_hey_non_2xx_and_duration_run():
    r = lbanalysis.read(HEY / "hey_post_duration.txt").iloc[0]
    assert (r["requests"], r["requests_ok"], r["non_2xx"], r["status_codes"]) == (1470, 0, 1470, "501: 1470")


def test_hey_csv_into_requests_table():
    ds = lbanalysis.read(HEY / "hey_csv.csv", table="all")
    req = ds.requests
    assert len(req) == 50 and req["status"].eq(200).all()
    assert req["start_s"].is_monotonic_increasing and req["seq"].tolist() == list(range(50))
    first = req.iloc[0]
    assert first[["latency_s", "connect_s", "write_s", "waiting_s", "read_s"]].notna().all()
    r = ds.runs.iloc[0]
    assert r["requests"] == 50 and r["latency_mean_s"] == pytest.approx(req["latency_s"].mean())
    assert r["format"] == "hey-csv"


def test_hey_csv_bad_number_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.csv"
    text = (HEY / "hey_csv.csv").read_text().splitlines()
    text[3] = text[3].replace("200", "2x0")
    bad.write_text("\n".join(text) + "\n")
    with pytest.raises(lbanalysis.ParseError, match=r"bad\.csv:4"):
        lbanalysis.read(bad)


def test_a_folder_mixing_tools_reads_into_one_runs_frame(tmp_path):
    for src in (WRK / "wrk_basic.txt", WRK / "wrk2_rate_spectrum.txt", HEY / "hey_basic.txt", HEY / "hey_csv.csv",
                FIXTURES / "ab" / "ab_c10.txt", FIXTURES / "siege" / "siege_4.0.7_basic.txt"):  # fmt: skip
        if src.exists():
            shutil.copy(src, tmp_path / src.name)
    runs = lbanalysis.read(tmp_path)
    assert {"wrk", "hey", "ab"} <= set(runs["tool"])
    assert runs["requests_per_s"].notna().sum() >= 4
    assert not math.isnan(runs.loc[runs["tool"] == "wrk", "bytes_per_s"].iloc[0])
