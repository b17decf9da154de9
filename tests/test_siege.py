"""siege readers on real outputs: siege 4.0.7 captures (tests/fixtures/siege) and public files (corpus).

Expected values are what siege printed, converted by hand here: MB x 2^20 -> bytes, MB/sec x 2^20 -> B/s,
ms x 1e-3 -> s.
"""

from __future__ import annotations

import csv
import io
import shutil
from datetime import datetime

import numpy as np
import pandas as pd
import pytest

import lbanalysis
from lbanalysis.errors import ParseError, UnknownFormatError
from lbanalysis.readers.siege.text import parse_command, siege_time

from .conftest import FIXTURES, ROOT, corpus, expect

SIEGE = FIXTURES / "siege"
MB = 2.0**20
NAN = np.nan


def expect_requests(reqs: pd.DataFrame, rows: list[dict]) -> None:
    expect(reqs, rows, "requests")


def summary(req, avail, elapsed, mb, resp, rate, mbps, conc, ok, failed, longest, shortest, *, ms=False) -> dict:
    """A run row from the thirteen printed summary values (times in secs unless ms=True)."""
    t = 1e-3 if ms else 1.0
    return {
        "requests": req,
        "availability_pct": avail,
        "duration_s": elapsed,
        "bytes_total": mb * MB,
        "latency_mean_s": resp * t,
        "requests_per_s": rate,
        "bytes_per_s": mbps * MB,
        "concurrency_achieved": conc,
        "requests_ok": ok,
        "failed": failed,
        "latency_max_s": longest * t,
        "latency_min_s": shortest * t,
    }


def read_text(s: str, **kw):
    return lbanalysis.read(io.StringIO(s), **kw)


# ------------------------------------------------------------ summary text ---


def test_summary_plain_reps_whole_row():
    runs = lbanalysis.read(SIEGE / "siege_plain_reps.txt")
    expect(
        runs,
        [
            {
                "source": str(SIEGE / "siege_plain_reps.txt"),
                "run": 0,
                "line": 1,
                "tool": "siege",
                "format": "siege",
                "tool_version": "4.0.7",
                "concurrency": 5,
                **summary(50, 100.00, 0.49, 0.01, 0.05, 102.04, 0.02, 4.94, 50, 0, 0.28, 0.02),
                "http_ok": None,
                "error": None,
                "warnings": None,
            }
        ],
    )


def test_timed_run_with_lifting_line_and_command_fields():
    text = (SIEGE / "siege_time_5s.txt").read_text()
    cmd = "siege -R ../capture/siegerc-plain -c 5 -t 5S 'http://127.0.0.1:18181/slow?ms=20'"
    runs = read_text(f"$ {cmd}\n{text}")
    expect(
        runs,
        [
            {
                "command": cmd,
                "concurrency": 5,
                "time_limit_s": 5.0,
                "requests_planned": None,
                "url": "http://127.0.0.1:18181/slow?ms=20",
                "host": "127.0.0.1",
                "port": 18181,
                "path": "/slow?ms=20",
                "method": "GET",
                "benchmark_mode": False,
                **summary(353, 100.00, 5.49, 0.06, 0.05, 64.30, 0.01, 2.98, 353, 0, 0.72, 0.02),
                "error": None,
            }
        ],
    )


def test_benchmark_and_delay_runs():
    runs = lbanalysis.read([SIEGE / "siege_benchmark.txt", SIEGE / "siege_delay.txt"])
    expect(
        runs,
        [
            {"concurrency": 10, **summary(9257, 100.00, 2.94, 1.56, 0.00, 3148.64, 0.53, 7.02, 9257, 0, 0.24, 0.00)},
            {"concurrency": 5, **summary(20, 100.00, 2.18, 0.00, 0.17, 9.17, 0.00, 1.59, 20, 0, 0.69, 0.01)},
        ],
    )


def test_big_body_megabytes_are_binary():
    r = lbanalysis.read(SIEGE / "siege_big_body.txt").iloc[0]
    # 40 x 300000 bytes = 12,000,000 B = 11.44 MiB (siege prints MB = 2^20 bytes)
    assert r["requests"] == 40
    text = (SIEGE / "siege_big_body.txt").read_text()
    printed = float(text.split("Data transferred:")[1].split()[0])
    assert printed == pytest.approx(12_000_000 / MB, abs=0.01)
    assert r["bytes_total"] == pytest.approx(printed * MB)


def test_404_is_a_transaction_but_not_a_successful_one():
    expect(
        lbanalysis.read(SIEGE / "siege_404.txt"),
        [{**summary(15, 100.00, 0.01, 0.00, 0.00, 1500.00, 0.22, 2.00, 0, 0, 0.01, 0.00), "error": None}],
    )


@pytest.mark.parametrize(
    ("name", "row"),
    [
        ("siege_500.txt", summary(0, 0.00, 0.02, 0.00, 0.00, 0.00, 0.02, 2.50, 0, 15, 0.01, 0.00)),
        ("siege_503.txt", summary(0, 0.00, 0.02, 0.00, 0.00, 0.00, 0.02, 3.00, 0, 15, 0.01, 0.00)),
    ],
)
def test_5xx_only_run_has_no_transaction_and_is_an_error_row(name, row):
    # siege 4.0.7 counts 5xx responses as failed transactions, not as hits
    expect(lbanalysis.read(SIEGE / name), [{**row, "error": "no transaction completed (15 failed)"}])


def test_refused_port_is_an_error_row_with_siege_message():
    expect(
        lbanalysis.read(SIEGE / "siege_refused.txt"),
        [
            {
                "concurrency": 2,
                **summary(0, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0, 6, 0.00, 0.00),
                "error": "socket: unable to connect sock.c:282: Connection refused (6 times)",
                "warnings": None,
            }
        ],
    )


def test_aborted_run_after_excessive_socket_failure():
    expect(
        lbanalysis.read(SIEGE / "siege_refused_abort.txt"),
        [
            {
                "requests": 0,
                "failed": 11,
                "error": "siege aborted due to excessive socket failure",
                "warnings": "socket: unable to connect sock.c:282: Connection refused (11 times)",
            }
        ],
    )


def test_aborted_notice_on_the_under_siege_line():
    # siege 4.1.5 (JoeDog/siege#212): the notice follows "under siege..." on the same line
    out = (
        "** SIEGE 4.1.5\n** Preparing 100 concurrent users for battle.\n"
        "The server is now under siege...siege aborted due to excessive socket failure; you\n"
        "can change the failure threshold in $HOME/.siegerc\n\n"
        "Transactions:\t\t       0    hits\nFailed transactions:\t        1024\n"
    )
    expect(
        read_text(out),
        [{"tool_version": "4.1.5", "concurrency": 100, "requests": 0, "failed": 1024,
          "error": "siege aborted due to excessive socket failure"}],
    )  # fmt: skip


def test_connection_reset_is_an_error_row():
    r = lbanalysis.read(SIEGE / "siege_reset.txt").iloc[0]
    assert (r["requests"], r["failed"]) == (0, 4)
    assert r["error"] == "socket: read error Connection reset by peer sock.c:635: Connection reset by peer (4 times)"


def test_sigint_on_hanging_server_no_transaction():
    expect(
        lbanalysis.read(SIEGE / "siege_sigint_hang.txt"),
        [{"requests": 0, "failed": 0, "duration_s": 2.00, "error": "no transaction completed"}],
    )


def test_sigint_run_without_reps_or_time_completes():
    r = lbanalysis.read(SIEGE / "siege_sigint.txt").iloc[0]
    assert r["requests"] > 0 and pd.isna(r["error"])


def test_users_capped_preparing_line_wins_over_c_and_warning_kept():
    text = (SIEGE / "siege_users_capped.txt").read_text()
    runs = read_text("$ siege -R ../capture/siegerc-plain -c 300 -r 1 http://127.0.0.1:18180/\n" + text)
    expect(
        runs,
        [
            {
                "concurrency": 255,
                "repetitions": 1,
                "requests_planned": 255,
                **summary(255, 100.00, 0.11, 0.04, 0.02, 2318.18, 0.39, 57.45, 255, 0, 0.05, 0.00),
                "error": None,
                "warnings": "WARNING: The number of users is capped at 255.",
            }
        ],
    )


def test_debug_banner_and_http_ok_received():
    runs = lbanalysis.read(SIEGE / "siege_debug.txt")
    expect(
        runs,
        [
            {
                "tool_version": "4.0.7",
                "concurrency": 1,
                **summary(2, 100.00, 0.01, 0.00, 0.00, 200.00, 0.03, 1.00, 2, 0, 0.01, 0.00),
                "http_ok": 2,
                "label": None,
                "error": None,
                "warnings": None,  # the "HTTP/1.1 200 OK" response heads are no broken verbose lines
            }
        ],
    )


def test_get_headers_mode_summary_without_banner():
    expect(
        lbanalysis.read(SIEGE / "siege_get_headers.txt"),
        [
            {
                "line": 21,
                "tool_version": None,
                "label": None,  # header lines such as "Accept-Ranges: bytes" are no labels
                **summary(1, 100.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 1, 0, 0.00, 0.00),
                "error": None,
                "warnings": None,
            }
        ],
    )


def test_help_output_is_not_a_run():
    runs = lbanalysis.read(SIEGE / "siege_help.txt")
    assert len(runs) == 0
    assert [(n["tool"], n["kind"]) for n in runs.attrs["not_runs"]] == [("siege", "help text")]


def test_version_output_is_not_a_run():
    runs = lbanalysis.read(SIEGE / "siege_version.txt")
    assert len(runs) == 0 and [n["kind"] for n in runs.attrs["not_runs"]] == ["version banner"]


def test_config_output_is_recognised_but_holds_no_run():
    with pytest.raises(ParseError, match="recognised the format but found no run"):
        lbanalysis.read(SIEGE / "siege_config_plain.txt")


def test_quiet_run_prints_nothing():
    with pytest.raises(UnknownFormatError, match="empty"):
        lbanalysis.read(SIEGE / "siege_quiet.txt")


def test_log_file_error_notice_on_a_completed_run_is_a_warning():
    expect(
        lbanalysis.read(SIEGE / "siege_log_space_trap.txt"),
        [
            {
                "requests": 1,
                "error": None,
                "warnings": "unable to create log file: /var/log/log/siege.log: No such file or directory",
            }
        ],
    )


def test_post_url_with_data_in_the_command():
    text = (SIEGE / "siege_post.txt").read_text()
    cmd = """siege -R ../capture/siegerc-plain -c 3 -r 5 'http://127.0.0.1:18181/submit POST {"user":"lbtest","n":1}'"""
    expect(
        read_text(f"$ {cmd}\n{text}"),
        [
            {
                "url": "http://127.0.0.1:18181/submit",
                "method": "POST",
                "path": "/submit",
                "requests_planned": 15,
                **summary(15, 100.00, 0.01, 0.00, 0.00, 1500.00, 0.06, 3.00, 15, 0, 0.01, 0.00),
            }
        ],
    )


@pytest.mark.parametrize(("name", "hits"), [("siege_plain_pty.txt", 15), ("siege_color_pty.txt", 14)])
def test_pty_captures_with_crlf_read_like_plain_ones(name, hits):
    expect(
        lbanalysis.read(SIEGE / name),
        [{"tool_version": "4.0.7", "concurrency": 3, "requests": hits, "error": None, "warnings": None}],
    )


# ----------------------------------------------------------- verbose lines ---


def test_verbose_redirected_requests_after_summary():
    ds = lbanalysis.read(SIEGE / "siege_verbose.txt", table="all")
    expect(ds.runs, [{"requests": 15, "requests_ok": 15, "error": None, "warnings": None}])
    lat = [0.01] * 8 + [0.02] + [0.01] * 6
    expect_requests(
        ds.requests,
        [
            {"run": 0, "seq": i, "status": 200, "latency_s": x, "bytes": 177.0, "method": "GET", "url": "/slow?ms=10"}
            for i, x in enumerate(lat)
        ],
    )


def test_verbose_colour_pty_requests_before_summary():
    ds = lbanalysis.read(SIEGE / "siege_color_pty.txt", table="all")
    expect(ds.runs, [summary(14, 93.33, 0.03, 0.02, 0.00, 466.67, 0.71, 1.00, 12, 1, 0.03, 0.00)])
    post = ("POST", "http://127.0.0.1:18181/submit")
    printed = [
        (200, 0.00, 42, *post),
        (200, 0.00, 177, "GET", "/"),
        (200, 0.00, 10240, "GET", "/10k.txt"),
        (404, 0.00, 14, "GET", "/404-page"),
        (200, 0.00, 10240, "GET", "/10k.txt"),
        (200, 0.00, 42, *post),
        (200, 0.00, 177, "GET", "/"),
        (404, 0.00, 14, "GET", "/404-page"),
        (200, 0.00, 177, "GET", "/"),
        (200, 0.00, 177, "GET", "/flaky"),
        (200, 0.03, 177, "GET", "/slow?ms=20"),
        (200, 0.00, 329, "GET", "/var"),
        (200, 0.00, 177, "GET", "/"),
        (200, 0.00, 177, "GET", "/"),
        (500, 0.00, 26, "GET", "/flaky"),
    ]
    expect_requests(
        ds.requests,
        [
            {"run": 0, "seq": i, "status": s, "latency_s": t, "bytes": float(b), "method": m, "url": u}
            for i, (s, t, b, m, u) in enumerate(printed)
        ],
    )


def test_coloured_verbose_redirected_to_a_file():
    """ANSI colours in a file (colour on, 2>&1 > file): removed before reading, statuses by colour kept."""
    ds = lbanalysis.read(SIEGE / "siege_color_redirect.txt", table="all")
    expect(ds.runs, [summary(14, 93.33, 0.02, 0.02, 0.00, 700.00, 0.77, 1.00, 13, 1, 0.02, 0.00)])
    assert ds.requests["status"].tolist() == [200, 404, 200, 200, 200, 200, 200, 500, 200, 200, 200, 200, 200, 200, 200]
    assert ds.requests["bytes"].tolist()[:5] == [10240.0, 14.0, 177.0, 177.0, 440.0]
    assert not ds.requests["url"].str.contains("\x1b").any()


def test_flaky_verbose_500s_are_failed_transactions():
    ds = lbanalysis.read(SIEGE / "siege_flaky_verbose.txt", table="all")
    expect(ds.runs, [summary(10, 66.67, 0.01, 0.00, 0.00, 1000.00, 0.18, 0.00, 10, 5, 0.00, 0.00)])
    assert ds.requests["status"].tolist() == [200, 200, 500, 200, 500, 200, 500, 200, 200, 200, 500, 200, 200, 200, 500]
    assert (ds.requests["bytes"] == np.where(ds.requests["status"] == 200, 177.0, 26.0)).all()


def test_urls_file_sequential_and_internet():
    seq = lbanalysis.read(SIEGE / "siege_urls_sequential.txt", table="all")
    expect_requests(
        seq.requests,
        [
            {"seq": 0, "status": 200, "bytes": 177.0, "url": "/"},
            {"seq": 1, "status": 404, "bytes": 14.0, "url": "/404-page"},
        ],
    )
    internet = lbanalysis.read(SIEGE / "siege_urls_internet.txt", table="all")
    assert len(internet.requests) == internet.runs.loc[0, "requests"] == 15
    assert internet.requests["method"].value_counts().to_dict() == {"GET": 13, "POST": 2}
    text = (SIEGE / "siege_urls_internet.txt").read_text()
    cmd = "siege -R ../capture/siegerc-plain -v -i -c 3 -r 5 -f ../capture/siege_urls.txt"
    r = read_text(f"$ {cmd}\n{text}").iloc[0]
    assert (r["urls_file"], r["internet_mode"], r["requests_planned"], pd.isna(r["url"])) == (
        "../capture/siege_urls.txt",
        True,
        15,
        True,
    )


def test_verbose_lines_without_summary_are_an_error_row():
    ds = lbanalysis.read(SIEGE / "siege_streams_stdout.txt", table="all")
    expect(ds.runs, [{"requests": None, "error": "no summary in the output (4 verbose request lines)"}])
    assert ds.requests["latency_s"].tolist() == [0.02, 0.02, 0.00, 0.01]


def test_verbose_line_forms_timestamp_display_id_cache_ms_and_csv():
    out = (
        "** SIEGE 4.1.7\n"
        "[Sat, 2024-01-06 10:00:00] HTTP/1.1 200     0.06 secs:     395 bytes ==> GET  /a\n"
        "  12) HTTP/1.1 301   0.10 secs:       0 bytes ==> GET  /b\n"
        "HTTP/1.1 200(C)  0.00 secs:     395 bytes ==> GET  /a\n"
        "HTTP/2 404    12.50 ms:      10 bytes ==> HEAD /c\n"
        "HTTP/1.1,200,  0.06,    395,/d,0,2024-01-06 10:00:01\n"
    )
    ds = read_text(out, table="all")
    expect_requests(
        ds.requests,
        [
            {"seq": 0, "status": 200, "latency_s": 0.06, "bytes": 395.0, "method": "GET", "url": "/a"},
            {"seq": 1, "status": 301, "latency_s": 0.10, "bytes": 0.0, "method": "GET", "url": "/b"},
            {"seq": 2, "status": 200, "latency_s": 0.00, "bytes": 395.0, "method": "GET", "url": "/a"},
            {"seq": 3, "status": 404, "latency_s": 0.0125, "bytes": 10.0, "method": "HEAD", "url": "/c"},
            {"seq": 4, "status": 200, "latency_s": 0.06, "bytes": 395.0, "method": None, "url": "/d"},
        ],
    )


# -------------------------------------------------------- units by version ---


def test_siege_4_1_summary_in_ms():
    out = (
        "** SIEGE 4.1.7\n** Preparing 25 concurrent users for battle.\nThe server is now under siege...\n"
        "Transactions:\t\t     879    hits\nAvailability:\t\t      100.00 %\nElapsed time:\t\t        9.98 secs\n"
        "Data transferred:\t        1.23 MB\nResponse time:\t\t       27.63 ms\n"
        "Transaction rate:\t       88.08 trans/sec\nThroughput:\t\t        0.12 MB/sec\nConcurrency:\t\t        2.43\n"
        "Successful transactions:      879\nFailed transactions:\t        0\n"
        "Longest transaction:\t      310.00 ms\nShortest transaction:\t        1.00 ms\n \n"
    )
    expect(
        read_text(out),
        [
            {
                "tool_version": "4.1.7",
                "concurrency": 25,
                **summary(879, 100.00, 9.98, 1.23, 27.63, 88.08, 0.12, 2.43, 879, 0, 310.00, 1.00, ms=True),
            }
        ],
    )


def test_time_without_unit_takes_the_version_default():
    base = "Transactions:  10 hits\nResponse time:  {v}\nLongest transaction:  {v}\n"
    old = read_text("** SIEGE 4.0.7\n" + base.format(v="20.00")).iloc[0]
    new = read_text("** SIEGE 4.1.7\n" + base.format(v="20.00")).iloc[0]
    assert (old["latency_mean_s"], old["latency_max_s"]) == (20.0, 20.0)
    assert (new["latency_mean_s"], new["latency_max_s"]) == (0.02, 0.02)
    assert "read as ms (siege 4.1.7 default)" in new["warnings"]


def test_siege_2_bytes_and_bytes_per_sec():
    out = (
        "** Siege 2.60\n** Preparing 100 concurrent users for battle.\nThe server is now under siege...done\n"
        "Transactions:                    339 hits\nAvailability:                  93.39 %\n"
        "Elapsed time:                  67.47 secs\nData transferred:            4273708 bytes\n"
        "Response time:                  8.25 secs\nTransaction rate:               5.02 trans/sec\n"
        "Throughput:                 63342.34 bytes/sec\nConcurrency:                   41.47\n"
        "Successful transactions:         337\nFailed transactions:              26\n"
        "Longest transaction:           17.77 secs\nShortest transaction:           0.37 secs\n"
    )
    expect(
        read_text(out),
        [
            {
                "tool_version": "2.60",
                "concurrency": 100,
                "bytes_total": 4273708.0,
                "bytes_per_s": 63342.34,
                "requests": 339,
                "requests_ok": 337,
                "failed": 26,
                "latency_max_s": 17.77,
            }
        ],
    )


def test_unknown_unit_is_a_parse_error_naming_file_and_line():
    with pytest.raises(ParseError) as e:
        read_text("** SIEGE 4.0.7\nTransactions:  5 hits\nData transferred:  1.00 furlongs\n")
    assert e.value.line == 3 and "furlongs" in str(e.value)


# -------------------------------------------------------------------- JSON ---

JSON_50 = {"requests": 50, "availability_pct": 100.0, "duration_s": 0.22, "bytes_total": 0.01 * MB}


@pytest.mark.parametrize(
    ("name", "concurrency_achieved"),
    [("siege_json_flag.txt", 4.95), ("siege_json_rc.txt", 4.82), ("siege_json_debian_default.txt", 5.00)],
)
def test_json_forms_of_the_same_run(name, concurrency_achieved):
    expect(
        lbanalysis.read(SIEGE / name),
        [
            {
                "tool": "siege",
                "format": "siege-json",
                "line": 2,
                "tool_version": None,
                **summary(50, 100.00, 0.22, 0.01, 0.02, 227.27, 0.04, concurrency_achieved, 50, 0, 0.03, 0.02),
                "error": None,
            }
        ],
    )


def test_json_stdout_only_file():
    expect(
        lbanalysis.read(SIEGE / "siege_json_stdout_only.json"),
        [{"format": "siege-json", "line": 1, **summary(20, 100.00, 0.06, 0.00, 0.01, 333.33, 0.06, 4.00, 20, 0,
                                                       0.02, 0.00)}],
    )  # fmt: skip


def test_json_with_refused_notices_before_it_is_an_error_row():
    expect(
        lbanalysis.read(SIEGE / "siege_json_zero.txt"),
        [
            {
                "format": "siege-json",
                "line": 1,
                **summary(0, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0, 6, 0.00, 0.00),
                "error": "socket: unable to connect sock.c:282: Connection refused (6 times)",
            }
        ],
    )


def test_json_5xx_only_is_an_error_row():
    expect(
        lbanalysis.read(SIEGE / "siege_json_failures.txt"),
        [{**summary(0, 0.00, 0.02, 0.00, 0.00, 0.00, 0.01, 1.50, 0, 10, 0.01, 0.00),
          "error": "no transaction completed (10 failed)"}],
    )  # fmt: skip


def test_json_nan_values_and_several_objects_in_one_file():
    obj = '{\n\t"transactions": %s,\n\t"response_time": %s,\n\t"concurrency": -nan,\n\t"http_ok_received": 7\n}\n'
    runs = read_text("^C\n" + obj % (7, "0.50") + obj % (0, "nan"))
    expect(
        runs,
        [
            {"format": "siege-json", "requests": 7, "latency_mean_s": 0.5, "concurrency_achieved": NAN, "http_ok": 7},
            {"format": "siege-json", "requests": 0, "latency_mean_s": NAN, "concurrency_achieved": NAN, "http_ok": 7},
        ],
    )


# --------------------------------------------------------- transcripts ---


def test_transcript_of_three_runs():
    runs = lbanalysis.read(SIEGE / "siege_transcript.txt")
    assert runs["concurrency"].tolist() == [5, 10, 25]
    assert runs["requests_planned"].tolist() == [50, 100, 250]
    assert runs["requests"].tolist() == [50, 100, 250]
    assert runs["line"].tolist() == [1, 18, 35]
    assert runs["command"].str.startswith("siege -R ../capture/siegerc-plain -c ").all()


def test_root_prompt_crlf_transcript_mixing_text_json_and_refused():
    expect(
        lbanalysis.read(SIEGE / "siege_transcript_root_crlf.txt"),
        [
            {
                "line": 1,
                "format": "siege",
                "benchmark_mode": True,
                "concurrency": 10,
                "time_limit_s": 2.0,
                **summary(6222, 100.00, 1.09, 1.05, 0.00, 5708.26, 0.96, 9.67, 6222, 0, 0.02, 0.00),
                "error": None,
            },
            {
                "line": 20,
                "format": "siege-json",
                "benchmark_mode": False,
                "concurrency": 10,
                "time_limit_s": NAN,
                **summary(100, 100.00, 0.03, 0.02, 0.00, 3333.33, 0.56, 6.33, 100, 0, 0.01, 0.00),
                "error": None,
            },
            {
                "line": 36,
                "format": "siege",
                "benchmark_mode": False,
                "concurrency": 2,
                "time_limit_s": NAN,
                **summary(0, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0, 4, 0.00, 0.00),
                "error": "socket: unable to connect sock.c:282: Connection refused (4 times)",
            },
        ],
    )


def test_log_runs_transcript_marks_become_labels():
    runs = lbanalysis.read(SIEGE / "siege_log_runs_transcript.txt")
    expect(
        runs,
        [
            {"label": "baseline: nginx c=5", "format": "siege", "concurrency": 5, "requests_planned": 50,
             "time_limit_s": NAN, "requests": 50, "error": None},
            {"label": None, "format": "siege", "concurrency": 10, "requests_planned": 100,
             "time_limit_s": NAN, "requests": 100, "error": None},
            {"label": "backend slow, 20 ms", "format": "siege", "concurrency": 5, "requests_planned": 25,
             "time_limit_s": NAN, "requests": 25, "error": None},
            {"label": None, "format": "siege", "concurrency": 10, "requests_planned": None,
             "time_limit_s": 2.0, "requests": 599, "error": None},
            {"label": "errors: 503 + refused", "format": "siege", "concurrency": 2, "requests_planned": 10,
             "time_limit_s": NAN, "requests": 0, "error": "no transaction completed (10 failed)"},
            {"label": None, "format": "siege", "concurrency": 2, "requests_planned": 6, "time_limit_s": NAN,
             "requests": 0, "error": "socket: unable to connect sock.c:282: Connection refused (6 times)"},
            {"label": None, "format": "siege", "concurrency": 4, "requests_planned": 20,
             "time_limit_s": NAN, "requests": 20, "error": None},
            {"label": "json run", "format": "siege-json", "concurrency": 2, "requests_planned": 10,
             "time_limit_s": NAN, "requests": 10, "error": None},
        ],
    )  # fmt: skip
    assert runs.loc[6, "bytes_total"] == 5.72 * MB


# --------------------------------------------------------------- siege.log ---


def test_log_across_runs_with_marks_nan_inf_and_whole_megabytes():
    runs = lbanalysis.read(SIEGE / "siege_runs.log")
    ts = datetime(2026, 11, 22, 12, 58, 49)
    ts2 = datetime(2026, 11, 22, 12, 58, 51)
    cols = ("requests", "duration_s", "bytes_total", "latency_mean_s", "requests_per_s", "bytes_per_s",
            "concurrency_achieved", "requests_ok", "failed")  # fmt: skip
    printed = [
        (3, ts, "baseline: nginx c=5", (50, 0.02, 0, 0.00, 2500.00, 0.00, 5.00, 50, 0)),
        (4, ts, "baseline: nginx c=5", (100, 0.17, 0, 0.01, 588.24, 0.00, 3.53, 100, 0)),
        (6, ts, "backend slow, 20 ms", (25, 0.16, 0, 0.03, 156.25, 0.00, 4.00, 25, 0)),
        (7, ts2, "backend slow, 20 ms", (599, 1.36, 0, 0.02, 440.44, 0.00, 9.85, 599, 0)),
        (9, ts2, "errors: 503 + refused", (0, 0.01, 0, NAN, 0.00, 0.00, 2.00, 0, 10)),  # inf
        (10, ts2, "errors: 503 + refused", (0, 0.00, 0, NAN, NAN, NAN, NAN, 0, 6)),  # -nan
        (11, ts2, "errors: 503 + refused", (20, 0.05, 5, 0.01, 400.00, 100.00, 3.00, 20, 0)),
        (13, ts2, "json run", (10, 0.11, 0, 0.02, 90.91, 0.00, 1.91, 10, 0)),
    ]
    rows = []
    for line, t, label, vals in printed:
        d = dict(zip(cols, vals, strict=True))
        d["bytes_total"] *= MB  # whole MB, truncated by siege (5.72 MB -> 5)
        d["bytes_per_s"] *= MB
        err = f"no transaction completed ({d['failed']} failed)" if d["requests"] == 0 else None
        rows.append({"line": line, "tool": "siege", "format": "siege-log", "timestamp": t, "label": label, **d,
                     "concurrency": None, "tool_version": None, "error": err})  # fmt: skip
    expect(runs, rows)


def test_log_abort_mark_sets_error_on_the_run_before_it():
    log = (
        "      Date & Time,  Trans,  Elap Time,  Data Trans,  Resp Time,  Trans Rate,  Throughput,  Concurrent,"
        "    OKAY,   Failed\n"
        "**** run A ****\n"
        "2024-01-01 10:00:00,     12,       1.00,           0,       0.10,       12.00,        0.00,        1.20,"
        "      12,    1024\n"
        "**** siege aborted due to excessive socket failure. ****\n"
        "2024-01-01 10:01:00,     30,       1.00,           0,       0.10,       30.00,        0.00,        3.00,"
        "      30,       0\n"
    )
    expect(
        read_text(log),
        [
            {"label": "run A", "requests": 12, "error": "siege aborted due to excessive socket failure."},
            {"label": "run A", "requests": 30, "error": None},
        ],
    )


def test_log_fields_run_together_or_wider_than_the_header():
    log = (
        "      Date & Time,  Trans,  Elap Time,  Data Trans,  Resp Time,  Trans Rate,  Throughput,  Concurrent,"
        "    OKAY,   Failed\n"
        # wider than the header: numbers outgrew their widths
        "2024-01-01 10:00:00,123456789,12345678.50,123456789012,12345678.25,123456789.00,123456789.00,"
        "123456789.00,123456789,123456789\n"
        # two fields ran together without their comma (Resp Time + Trans Rate)
        "2024-01-01 10:00:01,     10,       2.00,           1,       0.2012345.00,        0.50,        2.00,"
        "      10,       0\n"
    )
    expect(
        read_text(log),
        [
            {"requests": 123456789, "duration_s": 12345678.5, "bytes_total": 123456789012 * MB,
             "latency_mean_s": 12345678.25, "requests_per_s": 123456789.0, "failed": 123456789, "error": None},
            {"requests": 10, "duration_s": 2.0, "bytes_total": 1 * MB, "latency_mean_s": 0.20,
             "requests_per_s": 12345.0, "failed": 0, "error": None},
        ],
    )  # fmt: skip


def test_log_unreadable_row_is_an_error_row_not_a_crash():
    log = (
        "      Date & Time,  Trans,  Elap Time,  Data Trans,  Resp Time,  Trans Rate,  Throughput,  Concurrent,"
        "    OKAY,   Failed\n"
        "2024-01-01 10:00:00,     10,   garbage\n"
    )
    r = read_text(log).iloc[0]
    assert r["timestamp"] == pd.Timestamp("2024-01-01 10:00:00")
    assert r["error"].startswith("unreadable siege.log row")


# ------------------------------------------------------- command lines ---


def test_command_line_short_attached_and_long_forms():
    assert parse_command("siege -c25 -r10 -b -i -d2 -f urls.txt") == {
        "concurrency": 25,
        "repetitions": 10,
        "requests_planned": 250,
        "delay_s": 2.0,
        "urls_file": "urls.txt",
        "benchmark_mode": True,
        "internet_mode": True,
    }
    d = parse_command(
        "siege --concurrent=8 --reps=3 --benchmark --internet --file=u.txt --delay=0.5 --log --mark='A B' "
        "--json-output --verbose --quiet https://h.example/x"
    )
    assert (d["concurrency"], d["repetitions"], d["requests_planned"], d["delay_s"], d["urls_file"]) == (
        8,
        3,
        24,
        0.5,
        "u.txt",
    )
    assert (d["benchmark_mode"], d["internet_mode"], d["label"], d["url"], d["port"]) == (
        True,
        True,
        "A B",
        "https://h.example/x",
        443,
    )
    # getopt_long accepts unique prefixes; -l takes its file only attached
    d = parse_command("siege --conc 4 --time=2M -l/tmp/x.log -qv localhost:8080")
    assert (d["concurrency"], d["time_limit_s"], d["host"], d["port"], d["path"]) == (4, 120.0, "localhost", 8080, "/")


@pytest.mark.parametrize(
    ("value", "seconds"), [("5S", 5.0), ("5s", 5.0), ("1M", 60.0), ("1H", 3600.0), ("30", 1800.0), ("90sec", 90.0)]
)
def test_time_option_modifiers_and_minutes_default(value, seconds):
    assert siege_time(value) == seconds
    assert parse_command(f"siege -t {value} http://h/")["time_limit_s"] == seconds


def test_reps_once_gives_no_planned_requests():
    d = parse_command("siege -r once -c 5 -f urls.txt")
    assert "repetitions" not in d and "requests_planned" not in d


def test_repetitions_times_preparing_line_when_c_is_missing():
    r = read_text("$ siege -r 4 http://h/\n** SIEGE 4.0.7\n** Preparing 25 concurrent users for battle.\n"
                  "Transactions:  100 hits\n").iloc[0]  # fmt: skip
    assert (r["concurrency"], r["repetitions"], r["requests_planned"]) == (25, 4, 100)


def test_command_without_output_is_not_a_run():
    runs = read_text("$ siege -c 5 -r 5 http://h/\n")
    assert len(runs) == 0
    assert runs.attrs["not_runs"] == [
        {
            "source": "<buffer>",
            "line": 1,
            "tool": "siege",
            "command": "siege -c 5 -r 5 http://h/",
            "kind": "bare command (no output)",
        }
    ]
    # a command whose output is an error is an attempted test: a row with its error
    r = read_text(
        "$ siege -c 5 -r 5 http://127.0.0.1:18099/\n[error] socket: unable to connect sock.c:282: Connection refused\n"
    )
    assert len(r) == 1 and r.loc[0, "error"]


# ------------------------------------------------------- public corpus ---


def test_corpus_compose_prefixes_label_lines_and_missing_unit():
    """ZadokhinDima: docker compose "siege  | " prefixes, "Concurrency == N" lines between runs, siege 3.0.5,
    and a last run whose "Response time:" lost its unit."""
    path = corpus("public", "siege", "ZadokhinDima__siege_testing__siege.out")
    runs = lbanalysis.read(path)
    printed = [
        (3, 10, summary(1181, 100.00, 59.82, 0.03, 0.01, 19.74, 0.00, 0.12, 1181, 0, 0.70, 0.00)),
        (23, 25, summary(2889, 100.00, 59.73, 0.07, 0.01, 48.37, 0.00, 0.54, 2889, 0, 1.26, 0.00)),
        (43, 50, summary(5899, 100.00, 59.49, 0.15, 0.01, 99.16, 0.00, 1.21, 5899, 0, 1.31, 0.00)),
        (63, 100, summary(11547, 100.00, 59.87, 0.30, 0.01, 192.87, 0.00, 2.54, 11547, 0, 1.42, 0.00)),
    ]
    expect(
        runs,
        [
            {
                "line": line,
                "format": "siege",
                "tool_version": "3.0.5",
                "label": f"Concurrency == {c}",
                "concurrency": c,
                **s,
                "error": None,
                "warnings": "Response time printed without a unit; read as secs (siege 3.0.5 default)"
                if c == 100
                else None,
            }
            for line, c, s in printed
        ],
    )


ZADOKHIN = ("public", "siege", "ZadokhinDima__siege_testing__siege.out")


def test_compose_prefixes_are_stripped():
    runs = lbanalysis.read(corpus(*ZADOKHIN))
    assert runs["requests"].tolist() == [1181, 2889, 5899, 11547]
    assert runs["tool_version"].eq("3.0.5").all()


def test_label_lines_between_runs_become_labels():
    runs = lbanalysis.read(corpus(*ZADOKHIN))
    assert runs["label"].tolist() == [
        "Concurrency == 10",
        "Concurrency == 25",
        "Concurrency == 50",
        "Concurrency == 100",
    ]
    assert runs["concurrency"].tolist() == [10, 25, 50, 100]


def test_response_time_without_unit_uses_the_version_default():
    r = lbanalysis.read(corpus(*ZADOKHIN)).iloc[3]
    assert r["latency_mean_s"] == 0.01
    assert r["warnings"] == "Response time printed without a unit; read as secs (siege 3.0.5 default)"


def test_log_header_bytes_that_are_not_utf8(tmp_path):
    head = (
        b"\xbf\xf2\xbc\xdc      Date & Time,  Trans,  Elap Time,  Data Trans,  Resp Time,  Trans Rate,  Throughput,  "
    )
    head += b"Concurrent,    OKAY,   Failed\n"
    row = b"2017-06-30 10:01:07,  10000,      69.75,           0,       0.10,      143.37,        0.00,       14.99,"
    row += b"   10000,       0\n"
    (tmp_path / "siege.log").write_bytes(head + row)
    expect(
        lbanalysis.read(tmp_path / "siege.log"),
        [{"format": "siege-log", "label": None, "requests": 10000, "requests_per_s": 143.37, "error": None}],
    )


def test_log_leading_label_column():
    log = (
        "name,      Date & Time,  Trans,  Elap Time,  Data Trans,  Resp Time,  Trans Rate,  Throughput,  Concurrent,"
        "    OKAY,   Failed\n"
        "**** a mark ****\n"
        "spark,     2017-06-30 10:16:34,  10000,      75.64,           0,       0.10,      132.21,        0.00,"
        "       13.74,   10000,       0\n"
        "2017-06-30 10:20:00,  10,      1.00,           0,       0.10,      10.00,        0.00,       1.00,   10,       0\n"
    )
    expect(read_text(log), [{"label": "spark", "requests": 10000}, {"label": "a mark", "requests": 10}])


def test_corpus_summary_spliced_into_half_written_verbose_line():
    """donejs: the summary starts after "HTTP/1.1 200    " and the rest of that line comes after it."""
    path = corpus("public", "siege", "donejs__ssr-perf__siege.txt")
    ds = lbanalysis.read(path, table="all")
    expect(
        ds.runs,
        [
            {
                "line": 1,
                "tool_version": "4.0.1",
                "concurrency": 50,
                **summary(3002, 100.00, 179.01, 28.48, 1.76, 16.77, 0.16, 29.58, 3002, 0, 57.32, 0.00),
                "error": None,
                "warnings": "skipped 2 broken verbose line fragment(s) (line 3003, 3018)",
            }
        ],
    )
    req = ds.requests
    # 3002 transactions: 3001 complete lines + the one cut in two by the summary
    assert len(req) == 3001
    assert req["seq"].tolist() == list(range(3001))
    assert req["url"].value_counts().to_dict() == {
        "/": 751,
        "/node_modules/steal/steal.production.js": 751,
        "/wp-content/uploads/2015/10/donejs-logo-ie.png": 750,
        "/dist/bundles/perf/index.css": 749,
    }
    assert (req["status"] == 200).all() and (req["method"] == "GET").all()
    # the two complete lines printed after the summary are kept
    expect_requests(
        req.tail(2),
        [
            {"seq": 2999, "status": 200, "latency_s": 0.01, "bytes": 395.0, "url": "/"},
            {"seq": 3000, "status": 200, "latency_s": 0.01, "bytes": 21016.0,
             "url": "/node_modules/steal/steal.production.js"},
        ],
    )  # fmt: skip
    assert req["latency_s"].max() == 57.32  # = Longest transaction


def test_corpus_log_leading_label_column_and_gbk_header():
    """GJguojin: a first column (header in GBK, not UTF-8) holds a label per row."""
    path = corpus("public", "siege", "GJguojin__restful__siege.log")
    expect(
        lbanalysis.read(path),
        [
            {"line": n, "format": "siege-log", "label": label, "timestamp": pd.Timestamp(ts), "requests": tr,
             "duration_s": el, "bytes_total": 0.0, "latency_mean_s": rt, "requests_per_s": rate,
             "bytes_per_s": 0.0, "concurrency_achieved": conc, "requests_ok": ok, "failed": f, "error": None}
            for n, label, ts, tr, el, rt, rate, conc, ok, f in [
                (2, "easyrest", "2017-06-30 10:01:07", 10000, 69.75, 0.10, 143.37, 14.99, 10000, 0),
                (3, "jersey", "2017-06-30 10:07:58", 10000, 72.97, 0.11, 137.03, 14.48, 10000, 0),
                (4, "spark", "2017-06-30 10:16:34", 10000, 75.64, 0.10, 132.21, 13.74, 10000, 0),
                (5, "springMVC", "2017-06-30 10:22:34", 9999, 73.84, 0.11, 135.42, 14.27, 9999, 1),
            ]
        ],
    )  # fmt: skip


def test_corpus_log_inf_and_nan_response_times():
    """Shiv1990: runs with no transaction log inf and nan as response time."""
    path = corpus("public", "siege", "Shiv1990__node-clustering-sample__siege.log")
    expect(
        lbanalysis.read(path),
        [
            {"requests": 1151, "duration_s": 60.00, "latency_mean_s": 0.03, "concurrency_achieved": 0.52,
             "failed": 0, "error": None},
            {"requests": 0, "duration_s": 4.60, "latency_mean_s": NAN, "concurrency_achieved": 0.14,
             "failed": 57, "error": "no transaction completed (57 failed)"},
            {"requests": 0, "duration_s": 24.75, "latency_mean_s": NAN, "concurrency_achieved": 0.00,
             "failed": 143, "error": "no transaction completed (143 failed)"},
            {"requests": 125, "duration_s": 8.87, "latency_mean_s": 0.01, "concurrency_achieved": 0.19,
             "failed": 0, "error": None},
        ],
    )  # fmt: skip


def _log_by_csv_module(path) -> list[dict]:
    """An independent reading of a plain siege.log with the csv module, for comparison."""
    rows = []
    with open(path, newline="") as fh:
        for n, cells in enumerate(csv.reader(fh), start=1):
            if n == 1:
                continue
            v = [c.strip() for c in cells]
            rows.append(
                {
                    "line": n,
                    "timestamp": pd.Timestamp(v[0]),
                    "requests": int(v[1]),
                    "duration_s": float(v[2]),
                    "bytes_total": int(v[3]) * MB,
                    "latency_mean_s": float(v[4]),
                    "requests_per_s": float(v[5]),
                    "bytes_per_s": float(v[6]) * MB,
                    "concurrency_achieved": float(v[7]),
                    "requests_ok": int(v[8]),
                    "failed": int(v[9]),
                }
            )
    return rows


@pytest.mark.parametrize(
    ("name", "n"),
    [("liubin__sohu-cloudscape-nodejs-test__siege.log", 16), ("stremglav__testecho__siege.log", 50)],
)
def test_corpus_plain_logs_equal_an_independent_csv_reading(name, n):
    path = corpus("public", "siege", name)
    runs = lbanalysis.read(path)
    assert len(runs) == n
    expect(runs, _log_by_csv_module(path))
    assert (runs["format"] == "siege-log").all()
    assert runs.loc[runs["requests"] == 0, "error"].str.startswith("no transaction completed").all()


def test_every_public_siege_file_reads():
    folder = corpus("public", "siege")
    runs = lbanalysis.read(folder)
    assert runs.groupby("source").size().to_dict() == {
        str(folder / "GJguojin__restful__siege.log"): 4,
        str(folder / "Shiv1990__node-clustering-sample__siege.log"): 4,
        str(folder / "ZadokhinDima__siege_testing__siege.out"): 4,
        str(folder / "donejs__ssr-perf__siege.txt"): 1,
        str(folder / "liubin__sohu-cloudscape-nodejs-test__siege.log"): 16,
        str(folder / "stremglav__testecho__siege.log"): 50,
    }
    assert (runs["tool"] == "siege").all()


# ------------------------------------------------------------- mixed folder ---


def test_read_folder_mixing_ab_siege_every_form_and_gobench(tmp_path):
    files = {
        "ab/c10.txt": FIXTURES / "ab" / "ab_c10.txt",
        "siege/summary.txt": SIEGE / "siege_plain_reps.txt",
        "siege/verbose.txt": SIEGE / "siege_color_pty.txt",
        "siege/run.json": SIEGE / "siege_json_stdout_only.json",
        "siege/siege.log": SIEGE / "siege_runs.log",
        "siege/transcript.txt": SIEGE / "siege_transcript_root_crlf.txt",
        "gobench/run-01.txt": ROOT / "data" / "raw" / "haproxy-maxconn-gobench" / "run-01.txt",
    }
    for rel, src in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, tmp_path / rel)
    ds = lbanalysis.read(tmp_path, table="all")
    runs = ds.runs
    assert runs["source"].map(lambda s: s[len(str(tmp_path)) + 1 :]).value_counts().to_dict() == {
        "ab/c10.txt": 1,
        "gobench/run-01.txt": 1,
        "siege/run.json": 1,
        "siege/siege.log": 8,
        "siege/summary.txt": 1,
        "siege/transcript.txt": 3,
        "siege/verbose.txt": 1,
    }
    by = runs.set_index(runs["source"].map(lambda s: s[len(str(tmp_path)) + 1 :]))
    expect(
        by.loc[["ab/c10.txt", "gobench/run-01.txt", "siege/run.json", "siege/summary.txt", "siege/verbose.txt"]],
        [
            {"tool": "ab", "format": "ab", "concurrency": 10, "requests": 1000, "requests_per_s": 4638.30,
             "bytes_per_s": 1852.60 * 1024, "latency_mean_s": 0.002156, "duration_s": 0.216},
            {"tool": "gobench", "format": "gobench", "concurrency": 20, "requests": 627867, "requests_per_s": 20928.0,
             "bytes_per_s": 2699828.0, "latency_mean_s": NAN, "duration_s": 30.0},
            {"tool": "siege", "format": "siege-json", "concurrency": None, "requests": 20, "requests_per_s": 333.33,
             "bytes_per_s": 0.06 * MB, "latency_mean_s": 0.01, "duration_s": 0.06},
            {"tool": "siege", "format": "siege", "concurrency": 5, "requests": 50, "requests_per_s": 102.04,
             "bytes_per_s": 0.02 * MB, "latency_mean_s": 0.05, "duration_s": 0.49},
            {"tool": "siege", "format": "siege", "concurrency": 3, "requests": 14, "requests_per_s": 466.67,
             "bytes_per_s": 0.71 * MB, "latency_mean_s": 0.00, "duration_s": 0.03},
        ],
    )  # fmt: skip
    assert by.loc["siege/siege.log", "format"].eq("siege-log").all()
    assert by.loc["siege/transcript.txt", "format"].tolist() == ["siege", "siege-json", "siege"]
    assert sorted(runs["tool"].unique()) == ["ab", "gobench", "siege"]
    # verbose lines land in the requests table, joined by source and run
    assert ds.requests["source"].astype(str).str.endswith("verbose.txt").all() and len(ds.requests) == 15
