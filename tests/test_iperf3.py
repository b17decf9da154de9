"""iperf3 readers (text, -J, --json-stream) on real outputs: captures and the public corpus."""

from __future__ import annotations

import io
import json
import timeit

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import lbanalysis
from lbanalysis.errors import ParseError, UnknownFormatError
from lbanalysis.readers import detect
from lbanalysis.readers.iperf import iperf3, iperf3_json
from lbanalysis.text import Segment

from .conftest import FIXTURES, corpus, expect

I3 = FIXTURES / "iperf3"
MB, KB, GB = 2.0**20, 2.0**10, 2.0**30


def read_all(path):
    return lbanalysis.read(path, table="all")


# ------------------------------------------------------------- corpus ---
def test_vladger00_clean_client_baseline():
    ds = read_all(corpus("public", "iperf3", "vladger00__task_iperf__iperf3.txt"))
    expect(
        ds.runs,
        [
            {
                "tool": "iperf3",
                "format": "iperf3",
                "line": 1,
                "role": "client",
                "direction": "receiver",
                "reverse": False,
                "protocol": "tcp",
                "streams": 1,
                "host": "10.0.0.13",
                "port": 5201,
                "local_host": "10.0.0.1",
                "local_port": 39600,
                "remote_host": "10.0.0.13",
                "remote_port": 5201,
                "bits_per_s": 43.6e6,
                "bytes_total": 52.0 * MB,
                "duration_s": 10.0,
                "bytes_per_s": 43.6e6 / 8,
                "sender_bits_per_s": 45.2e6,
                "sender_bytes_total": 53.9 * MB,
                "sender_duration_s": 10.0,
                "retransmits": 0,
                "error": None,
            }
        ],
    )
    iv = ds.intervals
    assert len(iv) == 10
    expect(
        iv.iloc[[0, 9]],
        [
            {
                "run": 0,
                "stream": "5",
                "start_s": 0.0,
                "end_s": 1.0,
                "bytes": 6.86 * MB,
                "bits_per_s": 57.5e6,
                "retransmits": 0,
                "cwnd_bytes": 69.3 * KB,
                "omitted": False,
                "direction": "sender",
            },
            {
                "run": 0,
                "stream": "5",
                "start_s": 9.0,
                "end_s": 10.0,
                "bytes": 5.20 * MB,
                "bits_per_s": 43.6e6,
                "retransmits": 0,
                "cwnd_bytes": 84.8 * KB,
                "omitted": False,
                "direction": "sender",
            },
        ],
        "intervals",
    )


def test_tinoslr_old_server_receiver_zero_bytes_quirk():
    """Old server summary: 'sender 2.89 GBytes' but 'receiver 0.00 Bytes': the zero is not a measurement."""
    ds = read_all(corpus("public", "iperf3", "tinoslr__Thesis__iperf3.txt"))
    expect(
        ds.runs,
        [
            {
                "line": 3,
                "role": "server",
                "direction": "sender",
                "reverse": False,
                "bits_per_s": 41.4e6,
                "bytes_total": 2.89 * GB,
                "duration_s": 600.07,
                "sender_bits_per_s": 41.4e6,
                "local_host": "192.168.178.20",
                "local_port": 5201,
                "remote_host": "192.168.178.34",
                "remote_port": 38116,
                "port": 5201,
                "error": None,
            }
        ],
    )
    assert "receiver summary reads 0 bytes" in ds.runs.loc[0, "warnings"]
    iv = ds.intervals
    assert len(iv) == 601  # 600 one-second intervals and the 600.01-600.07 sliver
    assert (iv["direction"] == "receiver").all()
    assert iv["end_s"].iloc[-1] == 600.07 and iv["bytes"].iloc[-1] == 384 * KB


def test_tinoslr_misnamed_iperf2_is_iperf3_server_test_number_crlf():
    ds = read_all(corpus("public", "iperf3", "tinoslr__Thesis__iperf2.txt"))
    expect(
        ds.runs,
        [
            {
                "tool": "iperf3",
                "role": "server",
                "direction": "receiver",
                "bits_per_s": 30.8e6,
                "bytes_total": 2.15 * GB,
                "duration_s": 600.06,
                "sender_bits_per_s": None,
                "remote_host": "192.168.178.25",
                "remote_port": 56398,
                "port": 5201,
            }
        ],
    )
    assert len(ds.intervals) == 601


def test_fotiosbistas_four_digit_retr_shifts_columns():
    ds = read_all(
        corpus("public", "iperf3", "FotiosBistas__Wireless-Networks-Second-Exercise-Set-Master__iperf_output.txt")
    )
    r = ds.runs.iloc[0]
    assert r["retransmits"] == 2005
    assert r["bits_per_s"] == 151e6 and r["duration_s"] == 60.1 and r["sender_duration_s"] == 60.01
    assert ds.intervals["retransmits"].tolist() == [121, 56, 1, 23, 1804, 0]
    assert ds.intervals["cwnd_bytes"].tolist() == [3.05 * MB, 2.60 * MB, 2.34 * MB, 2.17 * MB, 2.04 * MB, 2.49 * MB]
    assert ds.intervals["bits_per_s"].iloc[4] == 55.1e6


def test_mejtus1_windows_prompt_no_retr_cwnd_in_notes():
    ds = read_all(corpus("public", "iperf3", "Mejtus1__Iperf__iperf.txt"))
    expect(
        ds.runs,
        [
            {
                "line": 15,
                "command": "iperf3 -c 192.168.8.21",
                "host": "192.168.8.21",
                "time_limit_s": None,
                "bits_per_s": 39.5e6,
                "sender_bits_per_s": 39.5e6,
                "bytes_total": 47.1 * MB,
                "retransmits": None,
                "local_port": 62855,
            },
            {
                "line": 37,
                "command": "iperf3 -c 192.168.8.21 -t 60 -i 5",
                "host": "192.168.8.21",
                "time_limit_s": 60.0,
                "bits_per_s": 46.6e6,
                "sender_bits_per_s": 46.6e6,
                "bytes_total": 334 * MB,
                "retransmits": None,
                "local_port": 62863,
            },
        ],
    )
    assert ds.intervals.groupby("run").size().tolist() == [10, 12]
    assert ds.intervals["retransmits"].isna().all() and ds.intervals["cwnd_bytes"].isna().all()


def test_elliotbidwell_ansible_stdout_lines_three_clients():
    ds = read_all(corpus("public", "iperf3", "ElliotBidwell__cloud-env-ansible__iperf3_output.txt"))
    expect(
        ds.runs,
        [
            {
                "line": 17,
                "local_host": "10.50.0.17",
                "bits_per_s": 6.99e9,
                "sender_bits_per_s": 7.00e9,
                "retransmits": 0,
            },
            {
                "line": 47,
                "local_host": "10.50.0.18",
                "bits_per_s": 6.91e9,
                "sender_bits_per_s": 6.91e9,
                "retransmits": 0,
            },
            {
                "line": 77,
                "local_host": "10.50.0.24",
                "bits_per_s": 6.16e9,
                "sender_bits_per_s": 6.17e9,
                "retransmits": 1,
            },
        ],
    )
    assert (ds.runs["remote_host"] == "10.50.0.25").all()
    assert ds.intervals.groupby("run").size().tolist() == [10, 10, 10]


def test_k9a2_tenth_second_intervals_bandwidth_header_reads_fast():
    path = corpus("public", "iperf3", "K9A2__PythonDataAnalysis__iperf.log")
    ds = read_all(path)
    r = ds.runs.iloc[0]
    assert (r["bits_per_s"], r["sender_bits_per_s"], r["bytes_total"]) == (91.2e6, 91.4e6, 653 * MB)
    iv = ds.intervals
    assert len(iv) == 600
    assert iv["start_s"].iloc[1] == 0.1 and iv["end_s"].iloc[-1] == 60.0
    assert iv["bytes"].iloc[3] == 636 * KB and iv["cwnd_bytes"].iloc[0] == 56.6 * KB
    text = path.read_text()
    seconds = min(timeit.repeat(lambda: iperf3.parse(Segment(text)), number=3, repeat=3)) / 3
    assert seconds < 0.25  # a few ms on an idle machine; generous for loaded CI


def test_kfirtoledo_omitted_intervals_restart_at_zero_crlf():
    ds = read_all(
        corpus(
            "public",
            "iperf3",
            "kfirtoledo__CloudPilot_Project__results_host-London_ibm_target-us-west-2_aws_proxy-europe-west2_gcp"
            "_time-27-07-2021_14-54_bw_host_target_direct.res",
        )
    )
    r = ds.runs.iloc[0]
    assert (r["bits_per_s"], r["duration_s"], r["sender_duration_s"]) == (108e6, 10.16, 10.0)
    iv = ds.intervals
    assert iv["omitted"].tolist() == [True] * 3 + [False] * 10
    assert iv["start_s"].tolist()[:4] == [0.0, 1.0, 2.0, 0.0]
    assert iv["cwnd_bytes"].iloc[0] == 852 * KB


def test_kfirtoledo_json_36_byte_limited_no_time_limit():
    ds = read_all(
        corpus(
            "public",
            "iperf3",
            "kfirtoledo__CloudPilot_Project__results_host-ap-south-1_aws_target-us-west1_gcp_proxy-asia-south1_gcp"
            "_time-21-07-2021_12-31_large_file_host_target_direct.res",
        )
    )
    expect(
        ds.runs,
        [
            {
                "format": "iperf3-json",
                "tool_version": "3.6",
                "timestamp": pd.Timestamp("2021-07-21 09:34:37"),
                "role": "client",
                "direction": "receiver",
                "host": "34.127.52.177",
                "port": 5500,
                "local_host": "192.168.44.87",
                "time_limit_s": None,
                "bits_per_s": 87443526.206831723,
                "bytes_total": 210143232.0,
                "duration_s": 19.225503921508789,
                "sender_bits_per_s": 88928988.651023418,
                "sender_bytes_total": 211011072.0,
                "retransmits": 0,
                "cpu_local_pct": 2.9018164091523668,
                "cpu_remote_pct": 0.97515958863265362,
            }
        ],
    )
    assert len(ds.intervals) == 19 and (ds.intervals["direction"] == "sender").all()


def test_kfirtoledo_json_cut_short_keeps_its_interval():
    """The 10k_file document stops mid-way through 'end': a run with error, its one interval kept."""
    ds = read_all(
        corpus(
            "public",
            "iperf3",
            "kfirtoledo__CloudPilot_Project__results_host-lon04_ibm_target-syd01_ibm_proxy-sao01_ibm"
            "_time-19-08-2021_17-25_10k_file_10k_file_host_proxy_k8s5_proxy_4.res",
        )
    )
    r = ds.runs.iloc[0]
    assert r["error"] == "JSON document cut short at line 70 (no summary)"
    assert pd.isna(r["bits_per_s"]) and r["tool_version"] == "3.9"
    expect(
        ds.intervals,
        [{"start_s": 0.0, "end_s": 0.323972, "bytes": 265608.0, "bits_per_s": 6558789.2989784647}],
        "intervals",
    )


def test_kfirtoledo_up_arrow_file_is_not_an_output():
    path = corpus(
        "public",
        "iperf3",
        "kfirtoledo__CloudPilot_Project__results_host-London_ibm_target-australia-southeast1_gcp_baseline"
        "_time-29-07-2021_14-21_baseline_target_host_direct_0.res",
    )
    with pytest.raises(UnknownFormatError, match="no known format"):
        lbanalysis.read(path)
    # the same keystroke as a real escape sequence is nothing at all once ANSI codes are stripped
    with pytest.raises(UnknownFormatError, match="empty"):
        lbanalysis.read(io.StringIO("\x1b[A"))


def test_greepz_json_37plus_server_two_streams_reindented():
    ds = read_all(corpus("public", "iperf3", "greepz__wifiAnalyzer__iperf.json"))
    expect(
        ds.runs,
        [
            {
                "tool_version": "3.7+",
                "role": "server",
                "direction": "receiver",
                "streams": 2,
                "concurrency": 2,
                "time_limit_s": 30.0,
                "bits_per_s": 41963324.473553069,
                "bytes_total": 158003808.0,
                "duration_s": 30.122267,
                "sender_bits_per_s": None,  # the server's sum_sent of 0 bytes is not a measurement
                "cpu_local_pct": 4.4827558037086312,
                "cpu_remote_pct": None,
                "local_host": "10.8.7.49",
                "remote_host": "10.8.42.43",
            }
        ],
    )
    iv = ds.intervals
    assert iv.groupby("stream").size().to_dict() == {"108": 31, "111": 31, "SUM": 31}
    assert (iv["direction"] == "receiver").all()


def test_corpus_folder_reads_with_one_skip():
    ds = lbanalysis.read(corpus("public", "iperf3"), table="all", errors="skip")
    assert len(ds.skipped) == 1 and "no known format" in ds.skipped.loc[0, "reason"]
    assert set(ds.runs["tool"]) == {"iperf3"}
    assert len(ds.runs) == 14


# ------------------------------------------------------- unit snippets ---
def test_detect_tells_iperf3_from_iperf2():
    assert detect("[  5]   0.00-1.00   sec  6.86 MBytes  57.5 Mbits/sec    0   69.3 KBytes\n") == "iperf3"
    assert detect("[  3]  0.0- 1.0 sec  2.00 MBytes  16.8 Mbits/sec\n") == "iperf2"
    assert detect('{"start": {"version": "iperf 3.12"}, "intervals": [], "end": {}}') == "iperf3-json"


def test_broken_json_names_file_and_line():
    text = '{"start": {"version": "iperf 3.12", "test_start": {}},\n "intervals": [1, 2,, 3]}\n'
    with pytest.raises(ParseError) as e:
        lbanalysis.read(io.StringIO(text))
    assert e.value.line == 2 and "broken iperf3 JSON" in str(e.value)


def test_json_array_and_concatenated_objects():
    doc = {
        "start": {"connecting_to": {"host": "h", "port": 5201}, "test_start": {"protocol": "TCP", "num_streams": 1}},
        "intervals": [],
        "end": {"sum_sent": {"start": 0, "end": 1, "bytes": 10, "bits_per_second": 80.0}},
    }
    arr = json.dumps([doc, doc], indent=1)
    runs = lbanalysis.read(io.StringIO(arr))
    assert runs["line"].tolist() == [i + 1 for i, ln in enumerate(arr.split("\n")) if ln == " {"]
    assert runs["direction"].tolist() == ["sender", "sender"]
    two = json.dumps(doc) + "\nrc=0\n" + json.dumps(doc) + "\n"
    assert lbanalysis.read(io.StringIO(two))["line"].tolist() == [1, 3]


def test_json_after_prompts_in_a_transcript():
    doc = json.dumps(
        {
            "start": {"connecting_to": {"host": "h", "port": 5201}, "version": "iperf 3.12"},
            "intervals": [],
            "end": {"sum_received": {"start": 0, "end": 2, "bytes": 2500, "bits_per_second": 10000.0}},
        },
        indent="\t",
    )
    text = f'$ iperf3 -c h -J -t 2\n{doc}\n$ iperf3 -c h -J -u\n{{"start": {{}}, "error": "unable to connect to server: Connection refused"}}\n'
    runs = lbanalysis.read(io.StringIO(text))
    expect(
        runs,
        [
            {
                "format": "iperf3-json",
                "command": "iperf3 -c h -J -t 2",
                "time_limit_s": 2.0,
                "bits_per_s": 10000.0,
                "error": None,
            },
            {
                "format": "iperf3-json",
                "command": "iperf3 -c h -J -u",
                "time_limit_s": None,
                "bits_per_s": None,
                "error": "unable to connect to server: Connection refused",
            },
        ],
    )
    assert runs["protocol"].tolist()[1] == "udp" and runs["role"].tolist() == ["client", "client"]


def test_json_unit_parse_matches_text_parse():
    text = (
        "Connecting to host h, port 5201\n[  5] local a port 1 connected to h port 5201\n"
        "[ ID] Interval           Transfer     Bitrate         Retr\n"
        "[  5]   0.00-10.00  sec  1.16 GBytes  1.00 Gbits/sec    3             sender\n"
        "[  5]   0.00-10.04  sec  1.15 GBytes   988 Mbits/sec                  receiver\n"
    )
    t = iperf3.parse(Segment(text)).runs[0]
    doc = (
        '{"start": {"connecting_to": {"host": "h", "port": 5201}}, "intervals": [], "end": {'
        '"sum_sent": {"start": 0, "end": 10, "bytes": 1245540515.84, "bits_per_second": 1e9, "retransmits": 3},'
        '"sum_received": {"start": 0, "end": 10.04, "bytes": 1234803097.6, "bits_per_second": 9.88e8}}}'
    )
    j = iperf3_json.parse(Segment(doc)).runs[0]
    for k in ("role", "direction", "bits_per_s", "sender_bits_per_s", "retransmits", "duration_s", "sender_duration_s"):
        assert t[k] == j[k], k
    assert t["bytes_total"] == pytest.approx(j["bytes_total"])


# ------------------------------------------------- extra captures (3.12) ---
EXTRA = I3 / "extra"


def test_json_stream_events_give_the_same_run_as_the_document():
    doc = lbanalysis.read(EXTRA / "iperf3_json_two_objects.json", table="all")
    tcp = lbanalysis.read(EXTRA / "iperf3_json_stream_tcp_P2.jsonl", table="all")
    udp = lbanalysis.read(EXTRA / "iperf3_json_stream_udp.jsonl", table="all")
    cols = ["format", "role", "direction", "protocol", "streams", "bits_per_s", "bytes_total", "duration_s"]
    cols += ["sender_bits_per_s", "retransmits", "jitter_s", "lost_packets", "total_packets", "out_of_order"]
    both = pd.concat([tcp.runs[cols], udp.runs[cols]], ignore_index=True)
    assert_frame_equal(both, doc.runs[cols])
    expect(
        tcp.runs,
        [
            {
                "streams": 2,
                "bits_per_s": 9516048243.297415,
                "sender_bits_per_s": 9544949934.74518,
                "retransmits": 3,
                "time_limit_s": 2.0,
            }
        ],
    )
    assert tcp.intervals.groupby("stream").size().to_dict() == {"5": 2, "7": 2, "SUM": 2}
    expect(udp.runs, [{"protocol": "udp", "jitter_s": 5.25374797731638e-06, "lost_packets": 0, "total_packets": 8}])


def test_json_stream_cut_after_its_first_interval():
    ds = lbanalysis.read(EXTRA / "iperf3_json_stream_killed.jsonl", table="all")
    expect(ds.runs, [{"role": "client", "streams": 2, "bits_per_s": None, "error": "no summary (run interrupted?)"}])
    assert len(ds.intervals) == 3


def test_json_array_of_documents():
    runs = lbanalysis.read(EXTRA / "iperf3_json_array.json")
    assert runs["protocol"].tolist() == ["tcp", "udp"] and runs["line"].tolist()[0] == 2
    assert runs["bits_per_s"].tolist() == [9516048243.297415, 1048461.1934993118]


def test_json_documents_after_shell_prompts():
    ds = lbanalysis.read(EXTRA / "iperf3_json_transcript.txt", table="all")
    expect(
        ds.runs,
        [
            {"line": 1, "command": "iperf3 -c 127.0.0.1 -p 18998 -t 2 -J", "reverse": False, "direction": "receiver"},
            {
                "line": 151,
                "command": "iperf3 -c 127.0.0.1 -p 18998 -t 2 -R -J",
                "reverse": True,
                "direction": "receiver",
            },
            {"line": 287, "command": "iperf3 -c 127.0.0.1 -p 18999 -t 2 -J", "reverse": None, "direction": None},
        ],
    )
    assert ds.runs["error"].tolist()[2] == "unable to connect to server: Connection refused"
    assert ds.runs["bits_per_s"].tolist()[:2] == [7595660747.500944, 4968249549.828842]
    iv = ds.intervals
    assert iv.groupby("run")["direction"].unique().map(list).to_dict() == {0: ["sender"], 1: ["receiver"]}


# ------------------------------------------- iperf3 3.12 captures (fixtures) ---
def test_tcp_client_sender_and_receiver_in_one_row():
    ds = read_all(I3 / "iperf3_tcp_client.txt")
    expect(
        ds.runs,
        [
            {
                "tool": "iperf3",
                "format": "iperf3",
                "line": 1,
                "role": "client",
                "direction": "receiver",
                "reverse": False,
                "protocol": "tcp",
                "streams": 1,
                "host": "127.0.0.1",
                "port": 18521,
                "local_port": 44274,
                "remote_port": 18521,
                "bits_per_s": 8.45e9,
                "bytes_total": 2.97 * GB,
                "duration_s": 3.01,
                "sender_bits_per_s": 8.48e9,
                "sender_bytes_total": 2.97 * GB,
                "sender_duration_s": 3.0,
                "retransmits": 1,
                "error": None,
                "warnings": None,
            }
        ],
    )
    expect(
        ds.intervals,
        [
            {
                "stream": "5",
                "start_s": 0.0,
                "end_s": 1.0,
                "bytes": 1.28 * GB,
                "bits_per_s": 11.0e9,
                "retransmits": 0,
                "cwnd_bytes": 2.00 * MB,
            },
            {
                "stream": "5",
                "start_s": 1.0,
                "end_s": 2.0,
                "bytes": 975 * MB,
                "bits_per_s": 8.15e9,
                "retransmits": 0,
                "cwnd_bytes": 1.50 * MB,
            },
            {
                "stream": "5",
                "start_s": 2.0,
                "end_s": 3.0,
                "bytes": 751 * MB,
                "bits_per_s": 6.30e9,
                "retransmits": 1,
                "cwnd_bytes": 2.87 * MB,
            },
        ],
        "intervals",
    )


def test_text_and_json_of_the_same_modes_give_the_same_columns():
    """Same row design for text and -J: the figures differ (separate runs), the shape does not."""
    pairs = [
        ("iperf3_tcp_client.txt", "iperf3_tcp_json.json"),
        ("iperf3_tcp_P2.txt", "iperf3_tcp_P2_json.json"),
        ("iperf3_tcp_reverse.txt", "iperf3_tcp_reverse_json.json"),
        ("iperf3_tcp_bidir.txt", "iperf3_tcp_bidir_json.json"),
        ("iperf3_udp.txt", "iperf3_udp_json.json"),
        ("iperf3_tcp_get_server_output.txt", "iperf3_tcp_json_server_output.json"),
    ]
    shape = ["role", "direction", "reverse", "protocol", "streams"]
    for text, doc in pairs:
        t, j = read_all(I3 / text), read_all(I3 / doc)
        assert_frame_equal(t.runs[shape], j.runs[shape], obj=text)
        filled = ["bits_per_s", "bytes_total", "duration_s", "sender_bits_per_s", "retransmits", "jitter_s"]
        assert (t.runs[filled].notna() == j.runs[filled].notna()).all().all(), text
        key = ["run", "stream", "direction"]
        assert t.intervals.groupby(key).size().index.tolist() == j.intervals.groupby(key).size().index.tolist(), text


def test_verbose_version_time_streams_and_cpu():
    runs = lbanalysis.read(I3 / "iperf3_tcp_verbose.txt")
    expect(
        runs,
        [
            {
                "line": 4,
                "tool_version": "3.12",
                "timestamp": pd.Timestamp("2026-11-22 13:18:13"),
                "time_limit_s": 3.0,
                "concurrency": 1,
                "bits_per_s": 13.6e9,
                "sender_bits_per_s": 13.7e9,
                "retransmits": 2,
                "cpu_local_pct": 33.6,
                "cpu_remote_pct": 31.4,
            }
        ],
    )


def test_timestamp_prefixes_default_and_custom_format():
    a = read_all(I3 / "iperf3_tcp_timestamps.txt")
    b = read_all(I3 / "iperf3_tcp_timestamps_fmt.txt")
    assert a.runs.loc[0, "timestamp"] == pd.Timestamp(a.runs.loc[0, "timestamp"]) and not pd.isna(
        a.runs.loc[0, "timestamp"]
    )
    expect(b.runs, [{"timestamp": pd.Timestamp("2026-11-22 13:18:07"), "bits_per_s": 10.5e9, "retransmits": 5}])
    assert len(a.intervals) == len(b.intervals) == 3
    server = lbanalysis.read(I3 / "iperf3_server_timestamps.txt")
    expect(
        server,
        [{"role": "server", "timestamp": pd.Timestamp("2026-11-22 13:19:40"), "bits_per_s": 8.2e9, "warnings": None}],
    )


def test_omitted_intervals_are_flagged():
    iv = read_all(I3 / "iperf3_tcp_omit.txt").intervals
    assert iv["omitted"].tolist() == [True, True, False, False, False]
    assert iv["start_s"].tolist() == [0.0, 1.0, 0.0, 1.01, 2.0]


def test_udp_loss_receiver_against_sender():
    ds = read_all(I3 / "iperf3_udp_loss.txt")
    expect(
        ds.runs,
        [
            {
                "protocol": "udp",
                "direction": "receiver",
                "bits_per_s": 5.76e9,
                "bytes_total": 2.01 * GB,
                "sender_bits_per_s": 13.7e9,
                "sender_bytes_total": 4.79 * GB,
                "jitter_s": 5e-6,
                "lost_packets": 91174,
                "total_packets": 157102,
                "lost_percent": 58.0,
            }
        ],
    )
    assert ds.intervals["total_packets"].tolist() == [58917, 49793, 48392]
    assert ds.intervals["jitter_s"].isna().all()


def test_udp_reverse_client_measures_the_receiving_side():
    ds = read_all(I3 / "iperf3_udp_reverse.txt")
    expect(
        ds.runs,
        [{"reverse": True, "direction": "receiver", "jitter_s": 18e-6, "lost_packets": 0, "total_packets": 115}],
    )
    assert ds.intervals["jitter_s"].tolist() == [11e-6, 18e-6, 18e-6]
    assert (ds.intervals["direction"] == "receiver").all()


def test_bidir_two_flows_two_rows():
    ds = read_all(I3 / "iperf3_tcp_bidir.txt")
    expect(
        ds.runs,
        [
            {
                "reverse": False,
                "direction": "receiver",
                "bits_per_s": 4.60e9,
                "sender_bits_per_s": 4.62e9,
                "retransmits": 3,
                "local_port": 47732,
            },
            {
                "reverse": True,
                "direction": "receiver",
                "bits_per_s": 4.06e9,
                "sender_bits_per_s": 4.09e9,
                "retransmits": 14,
                "local_port": 47738,
            },
        ],
    )
    iv = ds.intervals
    assert iv.groupby(["run", "stream", "direction"]).size().to_dict() == {
        (0, "5", "sender"): 3,
        (1, "7", "receiver"): 3,
    }


def test_get_server_output_adds_the_receivers_intervals():
    ds = read_all(I3 / "iperf3_tcp_get_server_output.txt")
    expect(ds.runs, [{"bits_per_s": 11.8e9, "sender_bits_per_s": 11.8e9, "retransmits": 2}])
    iv = ds.intervals
    assert iv.groupby("direction").size().to_dict() == {"receiver": 4, "sender": 3}
    assert iv.loc[iv["direction"] == "receiver", "end_s"].tolist() == [1.0, 2.0, 3.0, 3.01]


def test_sigint_client_zero_receiver_line_is_ignored_text_and_json():
    for name in ("iperf3_tcp_sigint.txt", "iperf3_tcp_sigint_json.json"):
        runs = lbanalysis.read(I3 / name)
        r = runs.iloc[0]
        assert r["direction"] == "sender" and pd.isna(r["error"]), name
        assert r["warnings"].startswith("interrupt - the client has terminated; receiver summary reads 0 bytes"), name
    r = lbanalysis.read(I3 / "iperf3_tcp_sigint.txt").iloc[0]
    assert (r["bits_per_s"], r["duration_s"], r["retransmits"]) == (10.0e9, 2.5, 5)


def test_errors_are_runs_with_error_set():
    cases = {
        "iperf3_refused.txt": "unable to connect to server: Connection refused",
        "iperf3_refused_json.json": "unable to connect to server: Connection refused",
        "iperf3_refused_udp.txt": "unable to connect to server: Connection refused",
        "iperf3_server_busy.txt": "the server is busy running a test. try again later",
        "iperf3_server_busy_json.json": "the server is busy running a test. try again later",
        "iperf3_bad_option.txt": "unrecognized option '--json-stream'",
        "iperf3_no_mode.txt": "parameter error - must either be a client (-c) or server (-s)",
    }
    for name, message in cases.items():
        runs = lbanalysis.read(I3 / name)
        assert runs["error"].tolist() == [message], name
        assert runs["bits_per_s"].isna().all()


def test_server_logs_text_and_json():
    multi = lbanalysis.read(I3 / "iperf3_server_multi.txt")
    # 36 connections accepted; the two --bidir tests give two rows each
    assert len(multi) == 38 and (multi["role"] == "server").all() and multi["error"].isna().all()
    assert multi["warnings"].dropna().tolist() == ["the client has terminated"] * 2  # the SIGINT clients
    assert multi.groupby(["protocol", "reverse"]).size().to_dict() == {
        ("tcp", False): 26,
        ("tcp", True): 5,
        ("udp", False): 6,
        ("udp", True): 1,
    }
    doc = read_all(I3 / "iperf3_server_json.json")  # ends with the stub of the server's own SIGTERM
    expect(
        doc.runs,
        [
            {
                "role": "server",
                "protocol": "tcp",
                "direction": "receiver",
                "sender_bits_per_s": None,
                "cpu_remote_pct": None,
            },
            {
                "role": "server",
                "protocol": "udp",
                "direction": "receiver",
                "sender_bits_per_s": None,
                "cpu_remote_pct": 25.218171332097377,  # after a UDP test the server got the client CPU
            },
        ],
    )
    logfile = lbanalysis.read(I3 / "iperf3_server_logfile.txt")
    assert logfile["protocol"].tolist() == ["tcp", "udp"] and logfile["streams"].tolist() == [2, 1]


def test_logfile_outputs_and_empty_terminals():
    assert lbanalysis.read(I3 / "iperf3_client_logfile.txt").loc[0, "bits_per_s"] > 0
    assert lbanalysis.read(I3 / "iperf3_json_logfile.json").loc[0, "format"] == "iperf3-json"
    with pytest.raises(UnknownFormatError, match="empty"):
        lbanalysis.read(I3 / "iperf3_client_logfile_stdout.txt")


def test_transcript_of_three_runs():
    ds = read_all(I3 / "iperf3_transcript.txt")
    expect(
        ds.runs,
        [
            {"line": 1, "reverse": False, "protocol": "tcp", "direction": "receiver", "time_limit_s": 2.0},
            {"line": 13, "reverse": True, "protocol": "tcp", "direction": "receiver", "time_limit_s": 2.0},
            {"line": 26, "reverse": False, "protocol": "udp", "direction": "receiver", "time_limit_s": 2.0},
        ],
    )
    assert ds.runs["command"].str.startswith("iperf3 -c 127.0.0.1 -p 18526 -t 2").all()


def test_the_fixture_folder_reads_with_help_and_version_skipped():
    ds = lbanalysis.read(I3, table="all", errors="skip")
    skipped = sorted(s.rsplit("/", 1)[-1] for s in ds.skipped["source"])
    assert skipped == ["iperf3_client_logfile_stdout.txt", "iperf3_tcp_json_logfile_stdout.txt"]
    # help and version are read, and listed apart as outputs that are not tests
    names = sorted(zip((s.rsplit("/", 1)[-1] for s in ds.not_runs["source"]), ds.not_runs["kind"], strict=True))
    assert names == [("iperf3_help.txt", "help text"), ("iperf3_version.txt", "version banner")]
    assert set(ds.runs["tool"]) == {"iperf3"} and len(ds.intervals) > 300
    cap = lbanalysis.link_capacity(ds.runs, symmetric=True, protocol=None)
    tcp = lbanalysis.link_capacity(ds.runs, symmetric=True)  # UDP tests are no link capacity
    # the client's and the server's copies of one connection count once
    assert 0 < tcp["n_runs"].sum() < cap["n_runs"].sum() < ds.runs["error"].isna().sum()


def test_odd_json_types_and_garbled_dates_read_as_missing():
    doc = {
        "start": {"connected": "none", "timestamp": {"timesecs": 1e30}, "test_start": [], "version": 3},
        "intervals": {"streams": 1},
        "end": {"sum_sent": {"start": 0, "end": 1, "bytes": 2**70, "bits_per_second": 8.0, "retransmits": 2**70}},
    }
    runs = lbanalysis.read(io.StringIO(json.dumps(doc)))
    expect(runs, [{"bits_per_s": 8.0, "retransmits": None, "tool_version": None}])
    assert pd.isna(runs.loc[0, "timestamp"])
    text = (
        "2726-11-22T13:18:07 Connecting to host 127.0.0.1, port 18521\n"
        "2726-11-22T13:18:08 [  5]   0.00-1.00   sec  1.25 GBytes  10.8 Gbits/sec    3   3.62 MBytes\n"
    )
    assert pd.isna(lbanalysis.read(io.StringIO(text)).loc[0, "timestamp"])


def test_3_1_stream_ids_with_a_space_before_the_bracket():
    """iperf 3.1.x prints `[  4 ]` and `[ ID ]`: the same test reads the same as the 3.12 capture."""
    shape = lbanalysis.read(I3 / "shapes" / "iperf3_3.1_stream_ids.txt", table="all")
    capture = lbanalysis.read(I3 / "iperf3_tcp_P2.txt", table="all")
    assert_frame_equal(shape.runs.drop(columns="source"), capture.runs.drop(columns="source"))
    assert len(shape.intervals) == len(capture.intervals) > 3  # the per-stream lines too, not only [SUM]
    ids = {"5": "4", "7": "6"}
    expected = capture.intervals.assign(stream=capture.intervals["stream"].astype(str).map(lambda v: ids.get(v, v)))
    assert_frame_equal(
        shape.intervals.drop(columns="source").astype({"stream": str}),
        expected.drop(columns="source").astype({"stream": str}),
    )


def test_shapes_are_what_the_script_makes(tmp_path):
    import runpy
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    copy = tmp_path / "repo"
    shutil.copytree(root / "tests" / "fixtures", copy / "tests" / "fixtures")
    (copy / "scripts").mkdir()
    shutil.copy(root / "scripts" / "make_version_shapes.py", copy / "scripts")
    runpy.run_path(str(copy / "scripts" / "make_version_shapes.py"), run_name="__main__")
    made = [
        p
        for p in (copy / "tests" / "fixtures").rglob("shapes/*")
        if p.suffix != ".md"
        and not {"haproxy", "crank", "jmeter", "taurus", "k6", "gatling", "autobench"}
        & set(p.parts)  # published as they are, not made
    ]
    assert len(made) == 5
    for p in made:
        assert p.read_text() == (root / p.relative_to(copy)).read_text(), p.name
