"""iperf 2 readers (text and -y C) on real outputs: captures and the public corpus."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import lbanalysis
from lbanalysis import schema
from lbanalysis.errors import ParseError
from lbanalysis.readers import detect
from lbanalysis.readers._iperf import parse_command

from .conftest import FIXTURES, corpus

I2 = FIXTURES / "iperf2"
MB, KB, GB = 2.0**20, 2.0**10, 2.0**30


def expect(frame: pd.DataFrame, rows: list[dict], table: str = "runs") -> None:
    """Compare the given columns of a frame with rows, with schema dtypes."""
    cols = list(rows[0])
    spec = schema.TABLES[table]
    exp = schema.conform(rows, {c: spec[c] for c in cols})
    got = frame[cols].reset_index(drop=True)
    assert_frame_equal(got, exp, check_exact=False, rtol=1e-9)


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
