"""bombardier: the text result (with and without -l, intro and progress bar) and -o json, each figure as printed."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis import registry
from lbanalysis.readers import detect
from tests.test_wrk_hey import whole_row

BOMB = Path(__file__).resolve().parent / "fixtures" / "bombardier"

# bombardier_nginx.txt, as printed (bombardier v1.2.6, `-c 10 -n 2000 -l`, nginx)
NGINX = {
    "tool": "bombardier", "format": "bombardier", "url": "http://127.0.0.1:18880/",
    "host": "127.0.0.1", "port": 18880, "path": "/", "concurrency": 10, "requests_planned": 2000,
    "interval_requests_per_s_mean": 20678.13, "interval_requests_per_s_stdev": 13614.11,
    "interval_requests_per_s_max": 37274.92, "requests_per_s": 20678.13, "latency_mean_s": 527.11e-6,
    "latency_stdev_s": 1.44e-3, "latency_max_s": 13.68e-3, "requests": 2000, "requests_ok": 2000, "non_2xx": 0,
    "status_codes": "2xx: 2000", "failed": 0, "failed_network": 0, "bytes_per_s_total": 8.43 * 1024**2,
}  # fmt: skip


def test_text_result_whole_row_and_distribution():
    ds = lbanalysis.read(BOMB / "bombardier_nginx.txt", table="all")
    whole_row(ds.runs, 0, NGINX)
    assert ds.percentiles["percentile"].tolist() == [50.0, 75.0, 90.0, 95.0, 99.0]
    assert ds.percentiles["latency_s"].tolist() == pytest.approx([219e-6, 281e-6, 388e-6, 2.97e-3, 5.98e-3])


def test_json_result_whole_row():
    ds = lbanalysis.read(BOMB / "bombardier_nginx.json", table="all")
    r = ds.runs.iloc[0]
    assert r["format"] == "bombardier-json" and (r["concurrency"], r["requests_planned"]) == (10, 2000)
    assert (r["requests"], r["requests_ok"], r["failed"], r["bytes_total"], r["bytes_sent"]) == (
        2000, 2000, 0, 814000.0, 126000.0)  # fmt: skip
    assert r["duration_s"] == 0.312224072 and r["requests_per_s"] == pytest.approx(2000 / 0.312224072)
    assert r["bytes_per_s_total"] == pytest.approx((814000 + 126000) / 0.312224072)
    assert r["latency_mean_s"] == pytest.approx(1555.968e-6) and r["latency_max_s"] == pytest.approx(76634e-6)
    assert r["interval_requests_per_s_mean"] == pytest.approx(8219.469789473813)  # bombardier's sampled rate
    assert ds.percentiles["latency_s"].tolist() == pytest.approx([219e-6, 312e-6, 3599e-6, 6595e-6, 19974e-6])


def test_statuses_and_errors():
    r404 = lbanalysis.read(BOMB / "bombardier_404.txt").iloc[0]
    assert (r404["requests"], r404["non_2xx"], r404["status_codes"]) == (200, 200, "4xx: 200")
    for name in ("bombardier_503.txt", "bombardier_503.json"):
        r = lbanalysis.read(BOMB / name).iloc[0]
        assert (r["requests"], r["requests_ok"], r["non_2xx"], r["status_codes"]) == (100, 0, 100, "5xx: 100"), name


def test_refused_and_timeouts_are_runs_with_their_error():
    for name in ("bombardier_refused.txt", "bombardier_refused.json"):
        ds = lbanalysis.read(BOMB / name, table="all")
        r = ds.runs.iloc[0]
        assert (r["requests"], r["failed"], r["failed_network"], r["requests_per_s"]) == (0, 20, 20, 0.0), name
        assert r["error"] == "dial tcp 127.0.0.1:18899: connect: connection refused (x20)", name
        assert pd.isna(r["latency_mean_s"]) and ds.percentiles.empty, name
    t = lbanalysis.read(BOMB / "bombardier_timeout.txt").iloc[0]
    assert (t["requests"], t["failed"], t["error"]) == (0, 6, "timeout (x6)")
    assert t["bytes_per_s_total"] == 421.85  # printed without a unit: bytes written only


def test_intro_timed_and_rate_capped():
    r = lbanalysis.read(BOMB / "bombardier_haproxy_time.txt").iloc[0]
    assert (r["time_limit_s"], r["concurrency"], r["requests"]) == (2.0, 20, 39684) and pd.isna(r["requests_planned"])
    rate = lbanalysis.read(BOMB / "bombardier_rate_time.json").iloc[0]
    assert (rate["rate_target_per_s"], rate["time_limit_s"], rate["requests"]) == (100.0, 2.0, 147)
    capped = lbanalysis.read(BOMB / "bombardier_rate.txt").iloc[0]
    assert capped["requests"] == 184 and pd.isna(capped["rate_target_per_s"])  # -r is on the command line only


def test_without_latency_distribution():
    for name in ("bombardier_no_latencies.txt", "bombardier_no_latencies.json"):
        ds = lbanalysis.read(BOMB / name, table="all")
        assert ds.percentiles.empty and ds.runs.loc[0, "latency_max_s"] > 0, name


def test_intro_then_json():
    r = lbanalysis.read(BOMB / "bombardier_intro_json.txt").iloc[0]
    assert r["format"] == "bombardier-json" and (r["requests"], r["concurrency"]) == (50, 2)


def test_sweep_transcript_takes_the_concurrency_from_each_command():
    runs = lbanalysis.read(BOMB / "bombardier_sweep_transcript.txt")
    assert runs["concurrency"].tolist() == [1, 4, 16, 16]
    assert runs["format"].tolist() == ["bombardier"] * 3 + ["bombardier-json"]
    assert runs["time_limit_s"].tolist() == [1.0] * 4 and runs["port"].eq(18882).all()
    assert runs["requests"].tolist() == [5074, 11695, 24210, 12773]


def test_command_line_fields():
    from lbanalysis.readers.bombardier.text import parse_command

    d = parse_command("bombardier -c 4 -n 400 -l -p r -o plain-text -a http://127.0.0.1:18882/")
    assert (d["concurrency"], d["requests_planned"], d["keepalive"]) == (4, 400, False)
    d = parse_command("bombardier --connections=8 --duration=1m0s -m post http://h/")
    assert (d["concurrency"], d["time_limit_s"], d["method"]) == (8, 60.0, "POST")


def test_detection_is_not_confused():
    assert detect((BOMB / "bombardier_404.txt").read_text()) == "bombardier"
    assert detect((BOMB / "bombardier_nginx.json").read_text()) == "bombardier-json"
    wrk = (Path(__file__).parent / "fixtures" / "wrk" / "wrk_basic.txt").read_text()
    assert detect(wrk) == "wrk"
    assert registry.get_tool("bombardier").closed_loop
    assert lbanalysis.read(BOMB / "bombardier_version.txt", errors="skip").empty


def test_an_older_layout_in_markdown_fences():
    ds = lbanalysis.read(BOMB / "bombardier_shape_old_sweep.txt", table="all")
    runs = ds.runs
    assert runs["concurrency"].tolist() == [100, 200, 300] and runs["requests_planned"].eq(1_000_000).all()
    assert runs["requests"].eq(1_000_000).all() and runs["requests_per_s"].tolist() == [11669.0, 13109.0, 13154.0]
    assert runs["interval_requests_per_s_max"].tolist() == [13747.0, 15064.0, 14801.0]
    assert ds.percentiles.groupby("run").size().tolist() == [4, 4, 4]


def test_a_second_distribution_of_2xx_only_is_not_kept():
    from lbanalysis.readers.bombardier.text import parse
    from lbanalysis.text import Segment

    text = (BOMB / "bombardier_404.txt").read_text()
    forked = text.replace("  Latency Distribution\n", "  Latency Distribution (Total)\n").replace(
        "  HTTP codes:", "  Latency Distribution (2xx)\n     50%    1.00ms\n  HTTP codes:"
    )
    assert len(parse(Segment(forked)).tables["percentiles"]) == 5


def test_a_folder_mixing_the_new_tools_with_the_older_ones_reads_without_a_skipped_file(tmp_path):
    fixtures = BOMB.parent
    picks = [
        "bombardier/bombardier_nginx.txt", "bombardier/bombardier_nginx.json", "oha/oha_nginx.txt",
        "oha/oha_nginx.json", "oha/oha_slow.csv", "vegeta/vegeta_report.txt", "vegeta/vegeta_report.json",
        "vegeta/vegeta_mixed.csv", "vegeta/vegeta_results.json", "vegeta/vegeta_hist.txt", "hey/hey_basic.txt",
        "hey/hey_csv.csv", "wrk/wrk_basic.txt", "ab/ab_S.txt", "siege/siege_404.txt",
    ]  # fmt: skip
    for name in picks:
        (tmp_path / name.replace("/", "__")).write_bytes((fixtures / name).read_bytes())
    ds = lbanalysis.read(tmp_path, table="all")
    assert ds.skipped.empty and len(ds.files) == len(picks)
    assert set(ds.runs["tool"]) == {"bombardier", "oha", "vegeta", "hey", "wrk", "ab", "siege"}
    by_format = ds.runs.groupby("format").size().to_dict()
    for fmt in ("bombardier", "bombardier-json", "oha", "oha-json", "oha-csv", "vegeta", "vegeta-json",
                "vegeta-csv", "vegeta-results-json", "hey", "hey-csv"):  # fmt: skip
        assert by_format.get(fmt) >= 1, fmt
    assert set(ds.requests["source"].map(lambda s: Path(s).name)) == {
        "oha__oha_slow.csv", "vegeta__vegeta_mixed.csv", "vegeta__vegeta_results.json", "hey__hey_csv.csv"}  # fmt: skip


def test_json_after_the_intro_and_progress_bar():
    r = lbanalysis.read(BOMB / "bombardier_progress_json.txt").iloc[0]
    assert r["format"] == "bombardier-json" and (r["requests"], r["failed"], r["concurrency"]) == (0, 20, 2)
    assert "connection refused" in r["error"]


def test_a_result_cut_short_counts_nothing_it_did_not_show(tmp_path):
    text = (BOMB / "bombardier_nginx.txt").read_text()
    cut = tmp_path / "cut.txt"
    cut.write_text(text[: text.index("  HTTP codes")])
    r = lbanalysis.read(cut).iloc[0]
    assert pd.isna(r["requests"]) and pd.isna(r["requests_per_s"]) and "stops before" in r["error"]
