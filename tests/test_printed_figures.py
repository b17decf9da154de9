"""Figures the tools print that used to be lost, on captured fixtures (#26 item 2)."""

from __future__ import annotations

import io

import pandas as pd
import pytest

import lbanalysis

from .conftest import FIXTURES, corpus


def read(path, **kw) -> lbanalysis.Dataset:
    return lbanalysis.read(path, table="all", **kw)


def test_iperf3_text_per_stream_totals():
    ds = read(FIXTURES / "iperf3" / "iperf3_tcp_P2.txt")
    s = ds.streams
    assert s[["stream", "direction"]].values.tolist() == [["5", "sender"], ["5", "receiver"], ["7", "sender"],
                                                         ["7", "receiver"]]  # fmt: skip
    assert s["bits_per_s"].tolist() == [4.84e9, 4.83e9, 4.77e9, 4.76e9]
    assert s["retransmits"].tolist()[::2] == [3, 0] and s["local_port"].tolist()[::2] == [44294, 44300]
    assert ds.runs.loc[0, "streams"] == 2  # the run row keeps the [SUM]


def test_iperf3_json_per_stream_rtt():
    ds = read(FIXTURES / "iperf3" / "iperf3_tcp_P2_json.json")
    sent = ds.streams[ds.streams["direction"] == "sender"]
    assert sent["rtt_mean_s"].tolist() == [0.001055, 0.000514]
    assert sent["rtt_min_s"].tolist() == [0.000372, 0.000193] and sent["rtt_max_s"].tolist() == [0.002371, 0.000772]
    r = ds.runs.iloc[0]
    assert (r["rtt_min_s"], r["rtt_max_s"]) == (0.000193, 0.002371)
    assert r["rtt_mean_s"] == pytest.approx((0.001055 + 0.000514) / 2)
    streams = ds.intervals[ds.intervals["stream"] != "SUM"]
    assert streams["rtt_s"].notna().all() and streams["rtt_s"].max() < 0.01  # us -> s


def test_iperf2_enhanced_rtt_and_stream_totals():
    ds = read(FIXTURES / "iperf2" / "iperf2_tcp_enhanced_P2.txt")
    s = ds.streams.set_index("stream")
    assert s.loc["2", "rtt_s"] == 0.001894 and s.loc["1", "rtt_s"] == 0.001134  # 3836K/1894(3645) us
    assert s.loc["2", "cwnd_bytes"] == 3836 * 1024 and s.loc["2", "retransmits"] == 22
    assert ds.runs.loc[0, "rtt_mean_s"] == pytest.approx((0.001894 + 0.001134) / 2)


def test_iperf2_out_of_order_zero_only_where_it_would_print():
    udp = read(FIXTURES / "iperf2" / "iperf2_udp_client.txt").runs.iloc[0]
    assert udp["lost_packets"] is not pd.NA and udp["out_of_order"] == 0
    tcp = read(FIXTURES / "iperf2" / "iperf2_tcp_client.txt").runs.iloc[0]
    assert pd.isna(tcp["out_of_order"])


WRK_HEAD = "Running 1s test @ http://h:81/x\n  2 threads and 10 connections\n  445 requests in 1.12s, 272.63KB read\n"


def test_wrk_counters_zero_only_when_the_output_is_complete():
    whole = lbanalysis.read(io.StringIO(WRK_HEAD + "Requests/sec:    396.33\nTransfer/sec:    242.81KB\n")).iloc[0]
    assert whole["non_2xx_3xx"] == 0 and whole["socket_errors_read"] == 0
    cut = lbanalysis.read(io.StringIO(WRK_HEAD)).iloc[0]  # stops before the place they would print
    assert pd.isna(cut["non_2xx_3xx"]) and pd.isna(cut["socket_errors_read"])


def test_summary_p99_of_a_wrk2_spectrum_without_that_tick():
    from lbanalysis.cli import summary_table

    ds = read(corpus("peers", "virtualclient", "wrkStandardExample2.txt"))
    table = summary_table(ds.runs, percentiles=ds.percentiles)
    # 99 % is no tick of the spectrum: wrk2's printed line; 50 % is one (1.427 ms, printed 1.43ms)
    assert table.loc[0, "p99 ms"] == "3.96" and table.loc[0, "p50 ms"] == "1.43"


def test_gobench_attempts_beside_responses():
    runs = lbanalysis.read(FIXTURES / "gobench")
    net = runs.dropna(subset=["failed_network", "requests_attempted"])
    assert len(net) and (net["requests_attempted"] - net["failed_network"] == net["requests"]).all()


def test_siege_verbose_csv_lines_read_alone():
    text = " 1,HTTP/1.1,200,  0.02,    177,/,1,2026-11-22 12:53:39\n 0,HTTP/1.1,404,  0.01,     14,/x,2,2026-11-22 12:53:40\n"
    ds = read(io.StringIO(text))
    assert ds.runs["tool"].tolist() == ["siege"]
    req = ds.requests
    assert req["client"].tolist() == [1, 0] and req["status"].tolist() == [200, 404]
    assert req["logged"].tolist() == [pd.Timestamp("2026-11-22 12:53:39"), pd.Timestamp("2026-11-22 12:53:40")]


def test_haproxy_csv_after_an_empty_line():
    text = "\n# pxname,svname,qcur,qmax,scur,smax,slim,stot,act,bck,lastsess,type\napp,s1,0,1,0,2,2,10,1,0,-1,2\n"
    s = read(io.StringIO(text)).servers.iloc[0]
    assert (s["active_servers"], s["backup_servers"], s["sessions_total"]) == (1, 0, 10)
    assert pd.isna(s["last_session_s"])  # -1: no session yet


def test_hey_response_time_histogram():
    h = read(FIXTURES / "hey" / "hey_basic.txt").histogram
    assert len(h) == 11 and h["count"].sum() == 200  # every request in one bucket
    assert h["latency_s"].is_monotonic_increasing
