"""vegeta: every report of one set of results says the same, each figure as printed, old layouts, the transcript."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis import registry
from lbanalysis.readers import detect
from tests.test_wrk_hey import whole_row

VEGETA = Path(__file__).resolve().parent / "fixtures" / "vegeta"

# vegeta_report.txt, as printed (vegeta v12.13.0, nginx at 50/s for 2 s)
REPORT = {
    "tool": "vegeta", "format": "vegeta", "requests": 100, "failed_network": 0, "requests_ok": 100, "non_2xx": 0,
    "failed": 0, "status_codes": "200: 100", "rate_sent_per_s": 50.79, "requests_ok_per_s": 50.78,
    "requests_per_s": 50.78, "duration_s": 1.969, "send_duration_s": 1.969, "wait_s": 284.757e-6,
    "latency_min_s": 256.145e-6, "latency_mean_s": 836.899e-6, "latency_max_s": 32.305e-3, "bytes_total": 17700.0,
    "bytes_per_request": 177.0, "bytes_sent": 0.0, "bytes_sent_per_request": 0.0, "requests_attempted": 100, "success_pct": 100.0,
}  # fmt: skip


def test_text_report_whole_row_and_percentiles():
    ds = lbanalysis.read(VEGETA / "vegeta_report.txt", table="all")
    whole_row(ds.runs, 0, REPORT)
    assert ds.percentiles["percentile"].tolist() == [50.0, 90.0, 95.0, 99.0]
    assert ds.percentiles["latency_s"].tolist() == pytest.approx([329.854e-6, 410.565e-6, 691.392e-6, 22.309e-3])


def test_json_report_and_csv_results_agree_with_the_text_report():
    text = lbanalysis.read(VEGETA / "vegeta_report.txt").iloc[0]
    js = lbanalysis.read(VEGETA / "vegeta_report.json").iloc[0]
    csv = lbanalysis.read(VEGETA / "vegeta_nginx.csv").iloc[0]
    assert js["format"] == "vegeta-json" and csv["format"] == "vegeta-csv"
    for col in ("requests", "requests_ok", "failed", "failed_network", "status_codes", "bytes_total"):
        assert text[col] == js[col] == csv[col], col
    # the text rounds: the JSON has vegeta's own figures, the CSV gives them again from every result
    for col in ("duration_s", "latency_mean_s", "latency_max_s", "rate_sent_per_s", "requests_per_s"):
        assert js[col] == pytest.approx(csv[col], rel=1e-6), col  # vegeta truncates its mean to a ns
        assert text[col] == pytest.approx(js[col], rel=5e-3), col
    assert js["requests_per_s"] == pytest.approx(50.783378, abs=1e-6)  # vegeta's throughput, as printed in JSON
    assert js["timestamp"] == csv["timestamp"] == pd.Timestamp("2026-11-25 18:45:07.158948225")


def test_csv_into_the_requests_table():
    ds = lbanalysis.read(VEGETA / "vegeta_mixed.csv", table="all")
    req = ds.requests
    assert len(req) == 60 and req["seq"].tolist() == list(range(60)) and req["start_s"].is_monotonic_increasing
    assert req["status"].value_counts().to_dict() == {200: 20, 404: 20, 503: 20}
    assert set(req.loc[req["status"] == 404, "error"]) == {"404 Not Found"}
    assert req.loc[req["status"] == 200, "error"].isna().all()
    assert (req["method"] == "GET").all() and req["url"].str.startswith("http://127.0.0.1:18881/").all()
    r = ds.runs.iloc[0]
    assert (r["requests"], r["requests_ok"], r["non_2xx"], r["failed"]) == (60, 20, 40, 40)
    assert pd.isna(r["url"])  # three URLs: none is the run's
    assert r["latency_mean_s"] == pytest.approx(req["latency_s"].mean())


def test_mixed_statuses_count_as_vegeta_does():
    r = lbanalysis.read(VEGETA / "vegeta_mixed_report.txt").iloc[0]
    assert (r["requests"], r["requests_ok"], r["non_2xx"], r["failed"], r["failed_network"]) == (60, 20, 40, 40, 0)
    assert r["success_pct"] == 33.33 and r["requests_ok_per_s"] == 19.5
    assert r["requests_per_s"] == pytest.approx(60 / 1.026)  # responses, not vegeta's successes
    assert r["warnings"] == "503 Service Unavailable; 404 Not Found" and pd.isna(r["error"])


def test_refused_is_a_run_with_its_error_and_no_latency():
    for name in ("vegeta_refused_report.txt", "vegeta_refused_report.json", "vegeta_refused.csv"):
        ds = lbanalysis.read(VEGETA / name, table="all")
        r = ds.runs.iloc[0]
        assert (r["requests"], r["failed_network"], r["failed"], r["requests_per_s"]) == (0, 20, 20, 0.0), name
        assert "connect: connection refused" in r["error"], name
        assert pd.isna(r["latency_mean_s"]) and ds.percentiles.empty, name
    req = lbanalysis.read(VEGETA / "vegeta_refused.csv", table="requests")
    assert (req["status"] == 0).all() and req["error"].str.contains("connection refused").all()


def test_timeouts_are_failures_beside_the_responses():
    r = lbanalysis.read(VEGETA / "vegeta_timeout_report.txt").iloc[0]
    assert (r["requests"], r["failed_network"], r["requests_ok"], r["status_codes"]) == (5, 5, 5, "0: 5; 200: 5")
    assert "Client.Timeout exceeded" in r["warnings"]
    assert r["requests_per_s"] == 4.49  # every response was a 200: vegeta's throughput as printed


def test_histogram_into_cumulative_percentiles():
    ds = lbanalysis.read(VEGETA / "vegeta_hist.txt", table="all")
    p = ds.percentiles
    assert p["latency_s"].tolist() == pytest.approx([200e-6, 500e-6, 1e-3, 2e-3, 5e-3])  # +Inf is not a bound
    assert p["count"].tolist() == [0, 93, 96, 96, 98] and p["percentile"].tolist() == [0.0, 93.0, 96.0, 96.0, 98.0]
    assert pd.isna(ds.runs.loc[0, "requests"])  # a histogram counts results, answered or not


def test_ndjson_results():
    ds = lbanalysis.read(VEGETA / "vegeta_results.json", table="all")
    r = ds.runs.iloc[0]
    assert r["format"] == "vegeta-results-json" and r["requests"] == 10 and r["path"] == "/slow"
    assert ds.requests["bytes"].eq(177).all() and ds.requests["latency_s"].between(0.02, 0.03).all()


def test_post_bytes_out():
    r = lbanalysis.read(VEGETA / "vegeta_post.txt").iloc[0]
    assert (r["bytes_sent"], r["bytes_total"], r["bytes_per_request"]) == (2020.0, 860.0, 43.0)


def test_sweep_transcript_takes_the_rate_from_each_command():
    ds = lbanalysis.read(VEGETA / "vegeta_sweep_transcript.txt", table="all")
    runs = ds.runs
    assert runs["format"].tolist() == ["vegeta", "vegeta", "vegeta", "vegeta-json", "vegeta"]
    assert runs["rate_target_per_s"].tolist() == [50.0, 200.0, 100.0, 100.0, 50.0]
    assert runs["time_limit_s"].tolist() == [2.0, 2.0, 2.0, 2.0, 1.0]
    assert runs["port"].tolist() == [18882, 18882, 18881, 18881, 18881] and runs["line"].tolist() == [1, 10, 19, 28, 30]
    assert runs.loc[1, "requests"] == 400 and runs.loc[1, "rate_sent_per_s"] == 200.4
    assert ds.percentiles.loc[ds.percentiles["run"] == 4, "count"].tolist() == [0, 8, 8, 44]


def test_older_layouts_read_by_field_name():
    r2019 = lbanalysis.read(VEGETA / "vegeta_shape_readme_2019.txt", table="all")
    r = r2019.runs.iloc[0]
    assert (r["requests"], r["failed_network"], r["requests_per_s"], r["rate_sent_per_s"]) == (665, 535, 65.87, 120.0)
    assert r["requests_attempted"] == 1200
    assert pd.isna(r["latency_min_s"]) and r["latency_mean_s"] == pytest.approx(0.113172398)
    assert r["warnings"].count("Get http://localhost:6060") == 6
    assert r2019.runs.loc[1, "command"].startswith("cat results.bin | vegeta report -type='hist")
    r2015 = lbanalysis.read(VEGETA / "vegeta_shape_readme_2015.txt").iloc[0]
    assert pd.isna(r2015["requests_ok_per_s"]) and r2015["requests_per_s"] == pytest.approx(665 / 10.094965987)
    r2014 = lbanalysis.read(VEGETA / "vegeta_shape_readme_2014.txt").iloc[0]
    assert r2014["duration_s"] == pytest.approx(1.998307684) and r2014["requests"] == 665
    bud = lbanalysis.read(VEGETA / "vegeta_shape_bud_runtime.txt")
    assert bud["requests"].tolist() == [1, 236] and bud["send_duration_s"].tolist() == [0.0, 4.982]
    assert bud["latency_max_s"].tolist() == pytest.approx([0.430399, 10.009])


def test_a_row_with_fewer_values_than_fields_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    text = (VEGETA / "vegeta_report.txt").read_text().replace("50.79, 50.78", "50.79")
    bad.write_text(text)
    with pytest.raises(lbanalysis.ParseError, match=r"bad\.txt:1"):
        lbanalysis.read(bad)


def test_an_error_set_before_any_report_belongs_to_no_run_shown(tmp_path):
    """An excerpt that starts at a report's Error Set (the report above it cut off) reads the reports that
    follow and lends them none of its errors; a command followed by nothing but an error set is one failed
    run naming them (it raised an IndexError from the reader before)."""
    refused = (VEGETA / "vegeta_refused_report.txt").read_text()
    errors = refused[refused.index("Error Set:") :]
    excerpt = tmp_path / "excerpt.txt"
    excerpt.write_text(errors + "\n" + (VEGETA / "vegeta_report.txt").read_text())
    ds = lbanalysis.read(excerpt, table="all")
    whole_row(ds.runs, 0, REPORT)
    assert len(ds.runs) == 1 and pd.isna(ds.runs.loc[0, "error"])
    alone = tmp_path / "alone.txt"
    alone.write_text("$ echo 'GET http://127.0.0.1:18899/' | vegeta attack -rate=20 -duration=1s | vegeta report\n"
                     + errors)  # fmt: skip
    run = lbanalysis.read(alone).iloc[0]
    assert run["tool"] == "vegeta" and run["rate_target_per_s"] == 20
    assert run["error"] == ("no report, only its error set: Get \"http://127.0.0.1:18899/\": dial tcp "
                            "0.0.0.0:0->127.0.0.1:18899: connect: connection refused")  # fmt: skip


def test_detection_is_not_confused():
    assert detect((VEGETA / "vegeta_report.txt").read_text()) == "vegeta"
    assert detect((VEGETA / "vegeta_nginx.csv").read_text()) == "vegeta-csv"
    assert detect((VEGETA / "vegeta_report.json").read_text()) == "vegeta-json"
    assert detect((VEGETA / "vegeta_results.json").read_text()) == "vegeta-results-json"
    assert detect("Summary:\n  Total:\t0.9702 secs\n  Slowest:\t0.0752 secs\n") == "hey"
    assert not registry.get_tool("vegeta").closed_loop  # open loop: a rate, not clients
    runs = lbanalysis.read(VEGETA / "vegeta_version.txt", errors="skip")
    assert runs.empty


def test_hdrplot_into_the_percentiles_at_full_resolution():
    ds = lbanalysis.read(VEGETA / "vegeta_hdrplot.txt", table="all")
    p = ds.percentiles
    assert len(p) == 94 and p["percentile"].iloc[[0, 1, -1]].tolist() == pytest.approx([0.0, 10.0, 100.0])
    assert p["latency_s"].iloc[[0, -1]].tolist() == pytest.approx([0.256145e-3, 32.305457e-3])
    assert p["count"].iloc[[1, -1]].tolist() == [10, 100]
    report = lbanalysis.read(VEGETA / "vegeta_report.txt").iloc[0]  # the same results: the same min and max
    assert report["latency_min_s"] == pytest.approx(p["latency_s"].iloc[0], abs=1e-9)
    assert report["latency_max_s"] == pytest.approx(p["latency_s"].iloc[-1], abs=1e-6)


def test_zsh_prompts_before_the_pipeline():
    text = (VEGETA / "vegeta_sweep_transcript.txt").read_text().replace("$ echo", "➜  ~ echo")
    runs = lbanalysis.read(io.StringIO(text))
    assert runs["rate_target_per_s"].tolist() == [50.0, 200.0, 100.0, 100.0, 50.0]
    assert runs["command"].str.startswith("echo 'GET http://127.0.0.1:1888").all()


def test_a_result_without_a_usable_latency_gives_no_end_time():
    """A NaN or absurd latency (a damaged results file) leaves the wait and duration empty, not a wrapped integer."""
    from lbanalysis.readers.vegeta.shared import Results, summarize

    res = Results()
    res.add(0, float("nan"), 200, 10, 0, url="http://h:81/x")
    res.add(10**9, 1e300, 200, 0, 0, url="http://h:81/x")
    r = summarize(res)
    assert r["send_duration_s"] == 1.0
    assert math.isnan(r["wait_s"]) and math.isnan(r["duration_s"])
