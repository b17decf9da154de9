"""iperf 2 readers (text and -y C) on real outputs: captures and the public corpus."""

from __future__ import annotations

import io

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.errors import ParseError
from lbanalysis.readers import detect
from lbanalysis.readers.iperf.shared import parse_command

from .conftest import FIXTURES, corpus, expect

I2 = FIXTURES / "iperf2"
MB, KB, GB = 2.0**20, 2.0**10, 2.0**30


def read_all(path, **kw):
    return lbanalysis.read(path, table="all", **kw)


# ------------------------------------------------------------- corpus ---
def test_sigusr1_bom_crlf_bare_intervals_misnamed_iperf3():
    ds = read_all(corpus("public", "iperf2", "sigusr1__parse-iperf-result__iperf3.txt"))
    expect(
        ds.runs,
        [
            {
                "tool": "iperf",
                "format": "iperf2",
                "line": 1,
                "role": None,
                "direction": None,
                "protocol": "tcp",
                "streams": 1,
                "bits_per_s": 16.2e6,
                "bytes_total": 58.1 * MB,
                "duration_s": 30.1,
                "error": None,
            }
        ],
    )
    iv = ds.intervals
    assert len(iv) == 30
    expect(
        iv.iloc[[0, 17]],
        [
            {"stream": "3", "start_s": 0.0, "end_s": 1.0, "bytes": 2.0 * MB, "bits_per_s": 16.8e6, "direction": None},
            {"stream": "3", "start_s": 17.0, "end_s": 18.0, "bytes": 768 * KB, "bits_per_s": 6.29e6, "direction": None},
        ],
        "intervals",
    )


def test_jmhen_client_killed_before_total_keeps_intervals():
    ds = read_all(corpus("public", "iperf2", "jmhen__congestion-control__iperf.txt"))
    expect(
        ds.runs,
        [
            {
                "role": "client",
                "direction": None,
                "host": "10.0.0.2",
                "port": 5001,
                "local_host": "10.0.0.1",
                "local_port": 56591,
                "remote_host": "10.0.0.2",
                "remote_port": 5001,
                "bits_per_s": None,
                "bytes_total": None,
                "error": "no summary line (run interrupted?)",
                "warnings": "TCP window size: 32.0 MByte (WARNING: requested 16.0 MByte)",
            }
        ],
    )
    iv = ds.intervals
    assert len(iv) == 389 and (iv["direction"] == "sender").all()
    assert (iv["bytes"].iloc[0], iv["bits_per_s"].iloc[0]) == (20 * MB, 168e6)
    assert (iv["bytes"] > 0).sum() == 10  # bursts every ~39 s between hundreds of '0.00 Bytes' intervals
    assert iv.loc[iv["start_s"] == 311.0, "bytes"].item() == 6.75 * MB
    past_100 = iv[iv["start_s"] >= 99]
    assert past_100[["start_s", "end_s"]].iloc[:2].values.tolist() == [[99.0, 100.0], [100.0, 101.0]]


def test_jmhen_server_truncated_without_total():
    ds = read_all(corpus("public", "iperf2", "jmhen__congestion-control__iperf-recv.txt"))
    r = ds.runs.iloc[0]
    assert (r["role"], r["port"], r["local_host"], r["remote_port"]) == ("server", 5001, "10.0.0.2", 56591)
    assert r["error"] == "no summary line (run interrupted?)" and pd.isna(r["bits_per_s"])
    iv = ds.intervals
    assert len(iv) == 426 and (iv["direction"] == "receiver").all() and (iv["stream"] == "4").all()
    assert (iv["bytes"].iloc[0], iv["bits_per_s"].iloc[0]) == (177 * KB, 1.45e6)


def test_ribsssss_udp_server_banner_only_is_a_no_data_run():
    ds = read_all(corpus("public", "iperf2", "ribsssss__Manangement-System-of-SDVN-Testbed__iperf_result.txt"))
    expect(
        ds.runs,
        [{"tool": "iperf", "role": "server", "protocol": "udp", "port": 5001, "bits_per_s": None, "error": "no data"}],
    )
    assert ds.intervals.empty


def test_corpus_folder_reads():
    runs = lbanalysis.read(corpus("public", "iperf2"))
    assert len(runs) == 4 and set(runs["tool"]) == {"iperf"}


# ------------------------------------------------------- unit snippets ---
def test_parse_command_short_long_and_glued_options():
    o = parse_command("iperf -c 10.0.0.2 -p5003 -P 4 -t30 -i 1 -u -b 10M -y C --reverse")
    assert (o["c"], o["p"], o["P"], o["t"], o["u"], o["b"], o["y"], o["R"]) == (
        "10.0.0.2",
        "5003",
        "4",
        "30",
        True,
        "10M",
        "C",
        True,
    )


def test_adaptive_and_byte_rate_units():
    text = (
        "[  3]  0.0- 1.0 sec  0.00 Bytes  0.00 bits/sec\n"
        "[  3]  1.0- 2.0 sec   512 KBytes  4.19 Mbits/sec\n"
        "[  3]  2.0- 3.0 sec  1.50 GBytes  12.9 Gbits/sec\n"
        "[  3]  3.0- 4.0 sec  8.00 MBytes  8.00 MBytes/sec\n"
        "[  3]  4.0- 5.0 sec   100 Kbits   100 Kbits/sec\n"
    )
    iv = lbanalysis.read(io.StringIO(text), table="intervals")
    assert iv["bytes"].tolist() == [0.0, 512 * KB, 1.5 * GB, 8 * MB, 100e3 / 8]
    assert iv["bits_per_s"].tolist() == [0.0, 4.19e6, 12.9e9, 8 * MB * 8, 100e3]


def test_udp_client_2_0_server_report_and_out_of_order():
    text = (
        "------------------------------------------------------------\n"
        "Client connecting to 10.0.0.2, UDP port 5001\n"
        "Sending 1470 byte datagrams\n"
        "UDP buffer size:  208 KByte (default)\n"
        "------------------------------------------------------------\n"
        "[  3] local 10.0.0.1 port 44262 connected with 10.0.0.2 port 5001\n"
        "[ ID] Interval       Transfer     Bandwidth\n"
        "[  3]  0.0-10.0 sec  1.25 MBytes  1.05 Mbits/sec\n"
        "[  3] Sent 893 datagrams\n"
        "[  3] Server Report:\n"
        "[  3]  0.0-10.0 sec  1.24 MBytes  1.04 Mbits/sec   0.014 ms    7/  893 (0.78%)\n"
        "[  3]  0.0-10.0 sec  2 datagrams received out-of-order\n"
    )
    ds = read_all(io.StringIO(text))
    expect(
        ds.runs,
        [
            {
                "role": "client",
                "protocol": "udp",
                "direction": "receiver",
                "bits_per_s": 1.04e6,
                "bytes_total": 1.24 * MB,
                "sender_bits_per_s": 1.05e6,
                "sender_bytes_total": 1.25 * MB,
                "jitter_s": 14e-6,
                "lost_packets": 7,
                "total_packets": 893,
                "lost_percent": 0.78,
                "out_of_order": 2,
            }
        ],
    )
    assert ds.intervals.empty


def test_failed_connect_2_0_and_transcript_of_two_runs():
    text = (
        "$ iperf -c 10.0.0.9 -t 5\n"
        "connect failed: Connection refused\n"
        "$ iperf -c 10.0.0.2 -t 5 -P 2\n"
        "[  4] local 10.0.0.1 port 5 connected with 10.0.0.2 port 5001\n"
        "[  3] local 10.0.0.1 port 6 connected with 10.0.0.2 port 5001\n"
        "[  4]  0.0- 5.0 sec  50.0 MBytes  83.9 Mbits/sec\n"
        "[  3]  0.0- 5.0 sec  60.0 MBytes   101 Mbits/sec\n"
        "[SUM]  0.0- 5.0 sec   110 MBytes   185 Mbits/sec\n"
    )
    runs = lbanalysis.read(io.StringIO(text))
    expect(
        runs,
        [
            {
                "line": 1,
                "host": "10.0.0.9",
                "time_limit_s": 5.0,
                "bits_per_s": None,
                "error": "connect failed: Connection refused",
            },
            {"line": 3, "host": "10.0.0.2", "time_limit_s": 5.0, "bits_per_s": 185e6, "error": None},
        ],
    )
    assert runs.loc[1, "streams"] == 2 and runs.loc[1, "concurrency"] == 2 and runs.loc[1, "local_port"] == 6


def test_csv_2_0_udp_client_with_server_report_line_and_sum_id():
    text = (
        "20140505120506,10.0.0.1,39432,10.0.0.2,5001,3,0.0-10.0,1312710,1049974\n"
        "20140505120506,10.0.0.1,39432,10.0.0.2,5001,3,0.0-10.0,1312710,1049958,0.006,2,893,0.224,1\n"
    )
    ds = read_all(io.StringIO(text))
    expect(
        ds.runs,
        [
            {
                "format": "iperf2-csv",
                "protocol": "udp",
                "direction": "receiver",
                "timestamp": pd.Timestamp("2014-05-05 12:05:06"),
                "bits_per_s": 1049958.0,
                "sender_bits_per_s": 1049974.0,
                "jitter_s": 6e-6,
                "lost_packets": 2,
                "total_packets": 893,
                "lost_percent": 0.224,
                "out_of_order": 1,
                "local_host": "10.0.0.1",
                "remote_port": 5001,
            }
        ],
    )
    sums = (
        "20140505120506,10.0.0.1,39432,10.0.0.2,5001,3,0.0-10.0,100,80\n"
        "20140505120506,10.0.0.1,39433,10.0.0.2,5001,4,0.0-10.0,100,80\n"
        "20140505120506,10.0.0.1,0,10.0.0.2,5001,-1,0.0-10.0,200,160\n"
    )
    runs = lbanalysis.read(io.StringIO(sums))
    assert (runs.loc[0, "bits_per_s"], runs.loc[0, "streams"]) == (160.0, 2)


def test_csv_garbage_line_names_file_and_line():
    text = "20140505120506,10.0.0.1,39432,10.0.0.2,5001,3,0.0-1.0,1312710,1049974\n"
    with pytest.raises(ParseError) as e:
        lbanalysis.read(io.StringIO("x\n" + text), format="iperf2-csv")
    assert e.value.line == 1


def test_detect_names_iperf2_formats():
    assert detect("Server listening on TCP port 5001\n") == "iperf2"
    assert detect("20261122125358,127.0.0.1,54092,127.0.0.1,18991,1,0.0-1.0,2381971516,19055772128\n") == "iperf2-csv"


# ------------------------------------------- iperf 2.1.8 captures (fixtures) ---
def test_tcp_client_intervals_and_total():
    ds = read_all(I2 / "iperf2_tcp_i1.txt")
    expect(
        ds.runs,
        [
            {
                "tool": "iperf",
                "format": "iperf2",
                "line": 2,
                "role": "client",
                "direction": "sender",
                "reverse": False,
                "protocol": "tcp",
                "streams": 1,
                "host": "127.0.0.1",
                "port": 18501,
                "local_host": "127.0.0.1",
                "local_port": 53754,
                "remote_host": "127.0.0.1",
                "remote_port": 18501,
                "bits_per_s": 11.7e9,
                "bytes_total": 4.10 * GB,
                "duration_s": 3.0012,
                "sender_bits_per_s": 11.7e9,
                "sender_bytes_total": 4.10 * GB,
                "retransmits": None,
                "error": None,
                "warnings": None,
            }
        ],
    )
    expect(
        ds.intervals,
        [
            {
                "run": 0,
                "stream": "1",
                "start_s": 0.0,
                "end_s": 1.0,
                "bytes": 286 * MB,
                "bits_per_s": 2.40e9,
                "direction": "sender",
            },
            {
                "run": 0,
                "stream": "1",
                "start_s": 1.0,
                "end_s": 2.0,
                "bytes": 1.02 * GB,
                "bits_per_s": 8.73e9,
                "direction": "sender",
            },
            {
                "run": 0,
                "stream": "1",
                "start_s": 2.0,
                "end_s": 3.0,
                "bytes": 2.80 * GB,
                "bits_per_s": 24.1e9,
                "direction": "sender",
            },
        ],
        "intervals",
    )


def test_parallel_streams_out_of_order_with_sum():
    ds = read_all(I2 / "iperf2_tcp_P3_i1.txt")
    expect(
        ds.runs,
        [{"streams": 3, "bits_per_s": 7.51e9, "bytes_total": 2.62 * GB, "duration_s": 3.0012, "local_port": 59032}],
    )
    iv = ds.intervals
    assert iv.groupby("stream").size().to_dict() == {"1": 3, "2": 3, "3": 3, "SUM": 3}
    assert iv.loc[iv["stream"] == "SUM", "bits_per_s"].tolist() == [7.77e9, 7.57e9, 7.19e9]
    assert iv.loc[iv["stream"] == "3", "bytes"].tolist() == [413 * MB, 464 * MB, 294 * MB]


def test_sum_only_lines_give_the_stream_count():
    ds = read_all(I2 / "iperf2_tcp_P3_sum_only.txt")
    expect(ds.runs, [{"streams": 3, "bits_per_s": 6.51e9, "bytes_total": 2.28 * GB, "local_host": None}])
    assert ds.intervals["stream"].tolist() == ["SUM"] * 3


def test_reverse_star_ids_make_the_client_the_receiver():
    ds = read_all(I2 / "iperf2_tcp_reverse_i1.txt")
    expect(
        ds.runs,
        [{"role": "client", "reverse": True, "direction": "receiver", "bits_per_s": 14.9e9, "sender_bits_per_s": None}],
    )
    assert ds.intervals["stream"].tolist() == ["1"] * 3 and (ds.intervals["direction"] == "receiver").all()


def test_enhanced_columns_retries_cwnd_and_connect_time():
    ds = read_all(I2 / "iperf2_tcp_enhanced.txt")
    expect(
        ds.runs,
        [
            {
                "timestamp": pd.Timestamp("2026-11-22 13:12:16"),
                "local_host": "127.0.0.1",
                "local_port": 48368,
                "bits_per_s": 5.89e9,
                "bytes_total": 2.07 * GB,
                "retransmits": 12,
            }
        ],
    )
    assert ds.intervals["retransmits"].tolist() == [6, 4, 2]
    assert ds.intervals["cwnd_bytes"].tolist() == [1023 * KB, 1151 * KB, 3836 * KB]


def test_enhanced_parallel_connect_lines_before_the_banner():
    runs = lbanalysis.read(I2 / "iperf2_tcp_enhanced_P2.txt")
    expect(runs, [{"role": "client", "streams": 2, "bits_per_s": 7.79e9, "retransmits": 29, "error": None}])


def test_format_options_bytes_and_kbits():
    fm = read_all(I2 / "iperf2_tcp_fM_bytes.txt")
    expect(fm.runs, [{"bits_per_s": 484 * MB * 8, "bytes_total": 1869 * MB, "duration_s": 3.8641}])
    assert fm.intervals["bytes"].iloc[3] == 0.119 * MB and fm.intervals["bits_per_s"].iloc[3] == 0.138 * MB * 8
    fk = lbanalysis.read(I2 / "iperf2_tcp_fk.txt")
    assert (fk.loc[0, "bits_per_s"], fk.loc[0, "bytes_total"]) == (13976163e3, 5139200 * KB)


def test_killed_runs_keep_intervals_without_inventing_a_total():
    for name in ("iperf2_tcp_killed_int.txt", "iperf2_tcp_killed_kill.txt"):
        ds = read_all(I2 / name)
        expect(ds.runs, [{"role": "client", "bits_per_s": None, "error": "no summary line (run interrupted?)"}])
        assert len(ds.intervals) == 2
    # SIGINT without -i: iperf 2 still prints its total
    runs = lbanalysis.read(I2 / "iperf2_tcp_killed_int_noi.txt")
    expect(runs, [{"bits_per_s": 12.1e9, "duration_s": 2.5151, "error": None}])


def test_full_duplex_gives_one_row_per_direction_and_ignores_the_mixed_sum():
    client = lbanalysis.read(I2 / "iperf2_tcp_full_duplex.txt")
    expect(
        client,
        [
            {"reverse": False, "direction": "sender", "bits_per_s": 16.0e9, "bytes_total": 5.59 * GB},
            {"reverse": True, "direction": "receiver", "bits_per_s": 9.95e9, "bytes_total": 3.48 * GB},
        ],
    )
    server = lbanalysis.read(I2 / "iperf2_server_tcp_duplex.txt")
    expect(
        server,
        [
            {"line": 2, "reverse": False, "direction": "receiver", "bits_per_s": 16.0e9, "remote_port": 40784},
            {"line": 2, "reverse": True, "direction": "sender", "bits_per_s": 9.95e9, "remote_port": 40784},
            {"line": 10, "reverse": False, "direction": "receiver", "bits_per_s": 16.2e9, "remote_port": 44618},
            # a dual test: the server's back-connection to the client's listener
            {"line": 10, "reverse": True, "direction": "sender", "bits_per_s": 14.8e9, "remote_port": 18509},
        ],
    )


def test_dualtest_back_connection_to_the_client_listener_is_reverse():
    runs = lbanalysis.read(I2 / "iperf2_tcp_dualtest.txt")
    expect(
        runs,
        [
            {"role": "client", "reverse": True, "direction": "receiver", "bits_per_s": 14.9e9, "local_port": 18509},
            {"role": "client", "reverse": False, "direction": "sender", "bits_per_s": 16.2e9, "local_port": 44618},
        ],
    )


def test_server_log_one_test_per_connection_group():
    runs = lbanalysis.read(I2 / "iperf2_server_tcp_multi.txt")
    expect(
        runs,
        [
            {"line": 2, "streams": 1, "reverse": False, "bits_per_s": 20.0e9, "remote_port": 53750, "warnings": None},
            {"line": 8, "streams": 1, "reverse": False, "bits_per_s": 11.7e9, "remote_port": 53754, "warnings": None},
            {"line": 11, "streams": 3, "reverse": False, "bits_per_s": 11.5e9, "remote_port": 59012, "warnings": None},
            {"line": 19, "streams": 3, "reverse": False, "bits_per_s": 7.51e9, "remote_port": 59030, "warnings": None},
            {"line": 27, "streams": 1, "reverse": True, "bits_per_s": 19.3e9, "remote_port": 59042, "warnings": None},
            # the [SUM] 0.0000-6.0196 line after this test adds two tests up: the stream's total is used
            {"line": 30, "streams": 1, "reverse": False, "bits_per_s": 8.79e9, "remote_port": 39606, "warnings": None},
            {
                "line": 34,
                "streams": 1,
                "reverse": False,
                "bits_per_s": 20.3e9,
                "remote_port": 39608,
                "warnings": "recv failed: Connection reset by peer",
            },
        ],
    )
    assert (runs["role"] == "server").all() and (runs["local_port"] == 18501).all()


def test_udp_client_server_report_and_the_server_side_agree():
    client = read_all(I2 / "iperf2_udp_i1.txt")
    server = read_all(I2 / "iperf2_server_udp_i1.txt")
    cols = {"protocol": "udp", "direction": "receiver", "bits_per_s": 10.5e6, "bytes_total": 3.75 * MB}
    cols |= {"duration_s": 3.0018, "lost_packets": 0, "total_packets": 2678, "lost_percent": 0.0}
    expect(client.runs, [{**cols, "role": "client", "jitter_s": 0.0, "sender_bits_per_s": 10.5e6}])
    expect(server.runs, [{**cols, "role": "server", "jitter_s": 1e-6, "sender_bits_per_s": None}])
    assert client.intervals["total_packets"].isna().all() and (client.intervals["direction"] == "sender").all()
    assert server.intervals["total_packets"].tolist() == [893, 891, 892]
    assert server.intervals["jitter_s"].tolist() == [1e-6, 1e-6, 1e-6]
    # a UDP test at a set rate measures that rate, not the link: no capacity unless asked for
    assert lbanalysis.link_capacity(pd.concat([client.runs, server.runs])).empty
    cap = lbanalysis.link_capacity(pd.concat([client.runs, server.runs]), protocol=None)
    assert cap[["local_host", "remote_host", "n_runs", "capacity_bits_per_s"]].values.tolist() == [
        ["127.0.0.1", "127.0.0.1", 1, 10.5e6]  # the client's and the server's copy of one test count once
    ]


def test_udp_loss_enhanced_server_report():
    runs = lbanalysis.read(I2 / "iperf2_udp_loss.txt")
    expect(
        runs,
        [
            {
                "bits_per_s": 943e6,
                "bytes_total": 337 * MB,
                "sender_bits_per_s": 2.42e9,
                "sender_bytes_total": 866 * MB,
                "lost_packets": 377337,
                "total_packets": 617866,
                "lost_percent": 61.0,
                "jitter_s": 0.0,
            }
        ],
    )


def test_udp_without_server_keeps_the_sender_figures():
    runs = lbanalysis.read(I2 / "iperf2_udp_no_server.txt")
    expect(runs, [{"direction": "sender", "bits_per_s": 1.05e6, "total_packets": 181, "error": None}])
    assert runs.loc[0, "warnings"] == (
        "read failed: Connection refused; [  3] WARNING: did not receive ack of last datagram after 10 tries."
    )


def test_udp_parallel_reports_added_up_and_server_sum_without_jitter():
    client = lbanalysis.read(I2 / "iperf2_udp_P2.txt")
    expect(
        client,
        [
            {
                "streams": 2,
                "bits_per_s": 10.5e6,
                "bytes_total": 3.76 * MB,
                "lost_packets": 1,
                "total_packets": 2682,
                "jitter_s": 11e-6,
                "warnings": "no [SUM] server report: per-stream reports added up",
            }
        ],
    )
    server = read_all(I2 / "iperf2_server_udp_P2.txt")
    # the server's [SUM] prints no jitter: the worst stream's (0.011, 0.012 ms), as when reports are added up
    expect(
        server.runs, [{"streams": 2, "bits_per_s": 10.5e6, "lost_packets": 1, "total_packets": 2682, "jitter_s": 12e-6}]
    )
    assert server.streams["jitter_s"].tolist() == [11e-6, 12e-6]
    sums = server.intervals[server.intervals["stream"] == "SUM"]
    assert sums["lost_packets"].tolist() == [1, 0, 0] and sums["jitter_s"].isna().all()


def test_csv_tcp_parallel_without_sum_line_adds_streams_up():
    ds = read_all(I2 / "iperf2_tcp_csv_P2_i1.txt")
    expect(
        ds.runs,
        [
            {
                "format": "iperf2-csv",
                "role": None,
                "direction": None,
                "streams": 2,
                "timestamp": pd.Timestamp("2026-11-22 13:13:00"),
                "bits_per_s": 14649706228.0 + 8348910059.0,
                "bytes_total": 5503713340.0 + 3133014076.0,
                "duration_s": 3.0,
                "local_port": 52064,
                "remote_port": 18510,
                "warnings": "no SUM line: per-stream totals added up",
            }
        ],
    )
    assert len(ds.intervals) == 6 and ds.intervals["bytes"].iloc[0] == 812646460.0


def test_csv_udp_client_and_server_sides():
    client = read_all(I2 / "iperf2_udp_csv_i1.txt")
    expect(client.runs, [{"direction": "sender", "bits_per_s": 10493335.0, "total_packets": None, "jitter_s": None}])
    expect(
        client.intervals.iloc[[0]],
        [{"direction": "sender", "total_packets": 893, "jitter_s": None, "lost_packets": None}],
        "intervals",
    )
    server = read_all(I2 / "iperf2_server_udp_csv_i1.txt")
    expect(
        server.runs,
        [
            {
                "direction": "receiver",
                "bits_per_s": 10493384.0,
                "jitter_s": 2e-6,
                "lost_packets": 0,
                "total_packets": 2678,
            }
        ],
    )


def test_csv_server_log_of_equal_length_tests_is_added_up_known_limitation():
    """2.1.8 server CSV: no SUM line, epoch-0 timestamps: a 1-stream and a 2-stream test of 3 s read as one."""
    runs = lbanalysis.read(I2 / "iperf2_server_tcp_csv.txt")
    expect(runs, [{"streams": 3, "bits_per_s": 12602083592.0 + 8015541752.0 + 9598115148.0}])
    assert "added up" in runs.loc[0, "warnings"] and pd.isna(runs.loc[0, "timestamp"])


def test_refused_connects_and_a_bad_option():
    for name in ("iperf2_tcp_refused.txt", "iperf2_tcp_refused_enhanced.txt", "iperf2_tcp_refused_csv.txt"):
        runs = lbanalysis.read(I2 / name)
        assert runs["error"].tolist() == ["tcp connect failed: Connection refused"], name
        assert runs["local_host"].isna().all()  # not the dummy 'local 0.0.0.0 port 0' line
    runs = lbanalysis.read(I2 / "iperf2_bad_option.txt")
    expect(
        runs,
        [
            {
                "role": "client",
                "port": 18599,
                "error": "tcp connect failed: Connection refused",
                "warnings": "iperf: unrecognized option `--no-such-option'",
            }
        ],
    )


def test_transcript_of_three_client_runs():
    ds = read_all(I2 / "iperf2_transcript.txt")
    expect(
        ds.runs,
        [
            {
                "line": 1,
                "command": "iperf -c 127.0.0.1 -p 18507 -t 2",
                "concurrency": None,
                "streams": 1,
                "bits_per_s": 20.3e9,
            },
            {
                "line": 9,
                "command": "iperf -c 127.0.0.1 -p 18507 -t 2 -P 2",
                "concurrency": 2,
                "streams": 2,
                "bits_per_s": 23.3e9,
            },
            {
                "line": 20,
                "command": "iperf -c 127.0.0.1 -p 18507 -t 2 -i 1 -f m",
                "concurrency": None,
                "streams": 1,
                "bits_per_s": 22712e6,
            },
        ],
    )
    assert (ds.runs["time_limit_s"] == 2.0).all() and ds.intervals["run"].tolist() == [2, 2]


def test_help_and_version_are_not_runs_and_the_folder_reads():
    ds = lbanalysis.read(I2, table="all", errors="skip")
    assert ds.skipped.empty
    names = sorted(zip((s.rsplit("/", 1)[-1] for s in ds.not_runs["source"]), ds.not_runs["kind"], strict=True))
    assert names == [("iperf2_help.txt", "help text"), ("iperf2_version.txt", "version banner")]
    assert set(ds.not_runs["tool"]) == {"iperf"}
    assert set(ds.runs["tool"]) == {"iperf"} and ds.runs["bits_per_s"].notna().sum() >= 40
