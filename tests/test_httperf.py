"""httperf: its summary as printed, the command it echoes, its own CPU time in the cpu table, errors by kind."""

from __future__ import annotations

from pathlib import Path

import pytest

import lbanalysis
from lbanalysis import registry
from lbanalysis.analysis.engine import error_shares
from lbanalysis.analysis.latency import is_closed_loop
from lbanalysis.readers import detect
from tests.test_wrk_hey import whole_row

HTTPERF = Path(__file__).resolve().parent / "fixtures" / "httperf"

# httperf_calls.txt, as printed (httperf 0.9.0, --rate 20 --num-conns 100 --num-calls 5, nginx)
CALLS = {
    "tool": "httperf", "format": "httperf", "url": "http://127.0.0.1:18600/", "host": "127.0.0.1", "port": 18600,
    "path": "/", "method": "GET", "rate_target_per_s": 20.0, "connections_planned": 100, "calls_per_connection": 5,
    "requests_planned": 500, "connect_burst_max": 1, "connections": 100, "requests_attempted": 500, "requests": 500,
    "duration_s": 4.951, "connection_rate_per_s": 20.2, "connections_concurrent_max": 1,
    "replies_per_connection": 5.0, "requests_attempted_per_s": 101.0, "bytes_sent_per_request": 62.0,
    "interval_samples": 0, "reply_header_bytes": 230.0, "bytes_per_request": 177.0, "reply_footer_bytes": 0.0,
    "reply_bytes": 407.0, "status_codes": "2xx: 500", "non_2xx": 0, "requests_ok": 500,
    "bytes_per_s_total": 46.3 * 1024, "failed": 0, "failed_network": 0, "errors_client_timeout": 0,
    "errors_socket_timeout": 0, "errors_connection_refused": 0, "errors_connection_reset": 0,
    "errors_fd_unavailable": 0, "errors_address_unavailable": 0, "errors_ftab_full": 0, "errors_other": 0,
    "requests_per_s": 500 / 4.951, "bytes_total": 500 * 407.0, "bytes_per_s": 500 * 407.0 / 4.951,
    "bytes_sent": 500 * 62.0, "bytes_sent_per_s": 500 * 62.0 / 4.951, "latency_mean_s": 0.1e-3,
    "warnings": "warning: open file limit > FD_SETSIZE; limiting max. # of open files to FD_SETSIZE",
}  # fmt: skip


def test_summary_whole_row_phases_and_its_own_cpu():
    ds = lbanalysis.read(HTTPERF / "httperf_calls.txt", table="all")
    expected = dict(CALLS)
    expected["command"] = ds.runs["command"].iloc[0]
    assert expected["command"].startswith("httperf --client=0/1 --server=127.0.0.1 --port=18600")
    whole_row(ds.runs, 0, expected)
    phases = ds.phases.set_index("phase")
    assert phases.index.tolist() == ["connection", "connect", "response", "transfer"]
    assert phases.loc["connection", ["min_s", "mean_s", "max_s", "median_s", "sd_s"]].tolist() == pytest.approx(
        [0.3e-3, 0.6e-3, 3.7e-3, 0.5e-3, 0.5e-3]
    )
    cpu = ds.cpu.iloc[0]
    assert (cpu["scope"], cpu["role"], cpu["tool"], cpu["paired_by"], cpu["run"]) == (
        "process", "client", "httperf", "same file", 0)  # fmt: skip
    assert cpu["run_source"] == ds.runs["source"].iloc[0] and cpu["line"] == 20  # its CPU time [s] line
    assert (cpu["user_s"], cpu["system_s"], cpu["user_pct"], cpu["system_pct"], cpu["cpu_pct"]) == (
        0.74, 4.18, 15.0, 84.4, 99.4)  # fmt: skip


def test_reply_rate_samples_only_when_taken():
    nginx = lbanalysis.read(HTTPERF / "httperf_nginx.txt").iloc[0]
    assert nginx["interval_samples"] == 2 and nginx["interval_requests_per_s_mean"] == 200.0
    assert nginx["interval_requests_per_s_stdev"] == 0.0
    short = lbanalysis.read(HTTPERF / "httperf_404.txt").iloc[0]
    assert short["interval_samples"] == 0 and short[["interval_requests_per_s_mean"]].isna().all()
    verbose = lbanalysis.read(HTTPERF / "httperf_verbose.txt", table="all")
    assert verbose.intervals[["start_s", "end_s", "requests_per_s"]].values.tolist() == [[0.0, 5.0, 50.0]]


def test_errors_and_statuses_feed_the_error_share():
    ds = lbanalysis.read(HTTPERF, table="all")
    runs = ds.runs.assign(name=ds.runs["source"].str.rsplit("/", n=1).str[-1]).set_index("name", drop=False)
    shares = error_shares(runs.reset_index(drop=True)).set_index(runs.index)
    refused = runs.loc["httperf_refused.txt"]
    assert (refused["requests"], refused["failed_network"], refused["errors_connection_refused"]) == (0, 10, 10)
    assert refused["error"] == "no reply: connrefused 10" and refused["error_kind"] == "no answer"
    timeout = runs.loc["httperf_timeout.txt"]
    assert (timeout["requests_attempted"], timeout["errors_client_timeout"], timeout["timeout_s"]) == (4, 4, 1.0)
    for name, code in (("httperf_404.txt", "4xx"), ("httperf_503.txt", "5xx")):
        r = runs.loc[name]
        assert r["requests_ok"] == 0 and r["non_2xx"] == r["requests"] and r["status_codes"].startswith(code)
        assert shares.loc[name, "error_share"] == 1.0
    assert shares.loc["httperf_refused.txt", "error_share"] == 1.0
    assert shares.loc["httperf_nginx.txt", "error_share"] == 0.0
    bad = runs.loc["httperf_bad_option.txt"]
    assert bad["error"] == "unrecognized option '--bogus'" and bad["error_kind"] == "command refused"


def test_open_loop_at_its_connection_rate():
    assert registry.get_tool("httperf").closed_loop is False
    hog = lbanalysis.read(HTTPERF / "httperf_hog.txt").iloc[0]
    assert hog["rate_target_per_s"] == 1500.0 and hog["connection_rate_per_s"] == 1060.3  # it could not keep up
    assert not is_closed_loop("httperf", hog["rate_target_per_s"])
    no_rate = lbanalysis.read(HTTPERF / "httperf_no_rate.txt").iloc[0]
    assert no_rate[["rate_target_per_s"]].isna().all() and no_rate["requests_planned"] == 200


def test_a_transcript_reads_each_rate_with_its_echoed_command():
    ds = lbanalysis.read(HTTPERF / "httperf_sweep_transcript.txt", table="all")
    assert ds.runs["rate_target_per_s"].tolist() == [50.0, 100.0, 400.0]
    assert ds.runs["requests"].tolist() == [100, 200, 800]
    assert ds.cpu["run"].tolist() == [0, 1, 2] and ds.not_runs.empty
    assert ds.runs["command"].str.startswith("httperf --server 127.0.0.1 --port 18600 --uri / --rate").all()


@pytest.mark.parametrize(
    "text",
    [
        "Total: connections 5 requests 5 replies 5 test-duration 1.0 s\nReply status: 1xx=0 2xx=5 3xx=0 4xx=0 5xx=0\n",
    ],
)
def test_never_confused_with_the_others(text):
    assert detect(text) == "httperf"
    for name in ("hey", "oha", "wrk", "ab", "bombardier"):
        assert detect(text, tool=name) is None


def test_a_broken_total_is_a_parse_error_naming_the_file(tmp_path):
    p = tmp_path / "broken.txt"
    p.write_text("Total: connections 5 requests 5 replies 5 test-duration 1.0 s\nCPU time [s]: user x system y\n")
    ds = lbanalysis.read(p)
    assert ds.iloc[0]["requests"] == 5  # a line it cannot read is passed over, never a wrong value
    assert ds.iloc[0][["latency_mean_s"]].isna().all()


def test_a_rate_sweep_is_one_series_judged_through_study_and_explore():
    from lbanalysis.report import explore

    ds = explore.load(HTTPERF / "httperf_sweep_transcript.txt")
    st = lbanalysis.study(ds)
    assert len(st.verdicts) == 1
    table = explore.conclusion_table(st, ds.percentiles)
    assert len(table) == 1 and table["at rate"].iloc[0] == 400.0  # judged by the rate asked (open loop)
    assert st.verdicts["load"].iloc[0] == "rate_target_per_s"
    shares = st.runs.set_index("rate_target_per_s")["error_share"]
    assert shares.tolist() == [0.0, 0.0, 0.0]
    refused = lbanalysis.study(lbanalysis.read(HTTPERF / "httperf_refused.txt"))
    assert refused.runs["error_share"].tolist() == [1.0]
