"""gobench reader on real outputs: the article's net/http runs (data/raw) and the lab's fasthttp runs (corpus)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lbanalysis
from lbanalysis.readers.gobench.text import parse_command

from .conftest import ROOT, corpus, expect

ARTICLE = ROOT / "data" / "raw" / "haproxy-maxconn-gobench"


def text(s: str, **kw) -> pd.DataFrame:
    return lbanalysis.read(io.StringIO(s), **kw)


def test_article_net_http_ten_outputs_whole_frame():
    runs = lbanalysis.read(ARTICLE)
    # Requests printed, ok, network failed, bad, rate, read B/s, write B/s (every file: 30 s, -t 30);
    # requests is responses received: the printed Requests minus Network failed
    printed = [
        ("fast", 20, 627867, 627867, 0, 0, 20928, 2699828, 1841801),
        ("fast", 20, 527141, 527141, 0, 0, 17571, 2266727, 1546353),
        ("slow", 20, 180, 180, 0, 0, 6, 774, 586),
        ("slow", 20, 180, 180, 0, 0, 6, 774, 586),
        ("slow", 20, 180, 180, 0, 0, 6, 774, 586),
        ("slow", 100, 266, 180, 86, 0, 6, 774, 1120),
        ("slow", 100, 426, 360, 66, 0, 12, 1548, 1630),
        ("slow", 100, 595, 540, 55, 0, 18, 2322, 2179),
        ("slow", 100, 760, 720, 40, 0, 24, 3096, 2698),
        ("slow", 100, 900, 900, 0, 0, 30, 3870, 2933),
    ]
    rows = []
    for i, (speed, c, req, ok, net, bad, rate, rd, wr) in enumerate(printed, start=1):
        rows.append(
            {
                "source": str(ARTICLE / f"run-{i:02d}.txt"),
                "line": 1,  # the command line
                "tool": "gobench",
                "format": "gobench",
                "command": f"gobench -u http://10.42.226.10/{speed} -c {c} -t 30",
                "url": f"http://10.42.226.10/{speed}",
                "host": "10.42.226.10",
                "port": 80,
                "path": f"/{speed}",
                "method": "GET",
                "concurrency": c,
                "time_limit_s": 30.0,
                "requests_planned": None,
                "keepalive": True,
                "requests": req - net,
                "requests_ok": ok,
                "failed_network": net,
                "non_2xx": bad,
                "failed": net + bad,
                "requests_per_s": float(rate),
                "bytes_per_s": float(rd),
                "bytes_sent_per_s": float(wr),
                "duration_s": 30.0,
                "latency_mean_s": np.nan,
                "latency_max_s": np.nan,
                "error": None,
            }
        )
    expect(runs, rows)
    # the manifest beside the files still applies
    assert runs["maxconn"].tolist() == [20, 20, 20, 20, 20, 20, 40, 60, 80, 100]


def test_lab_fasthttp_outputs_whole_frame():
    folder = corpus("lab", "gobench")
    runs = lbanalysis.read(folder)
    expect(
        runs,
        [
            {
                "source": str(folder / "gobench-c10-r100-refused.txt"),
                "tool": "gobench",
                "concurrency": 10,
                "requests": 0,  # 1000 attempts, none answered
                "requests_ok": 0,
                "failed_network": 1000,
                "non_2xx": 0,
                "failed": 1000,
                "requests_per_s": 0.0,
                "bytes_per_s": 0.0,
                "bytes_sent_per_s": 0.0,
                "duration_s": 1.0,
                "error": "every request failed at the network level (1000 network failures)",
            },
            {
                "source": str(folder / "gobench-c10-t5-haproxy-small.txt"),
                "tool": "gobench",
                "concurrency": 10,
                "requests": 54133,
                "requests_ok": 54133,
                "failed_network": 0,
                "non_2xx": 0,
                "failed": 0,
                "requests_per_s": 10826.0,
                "bytes_per_s": 4222374.0,
                "bytes_sent_per_s": 931259.0,
                "duration_s": 5.0,
                "error": None,
            },
            {
                "source": str(folder / "gobench-c30-t5-smallmaxconn-slow.txt"),
                "tool": "gobench",
                "concurrency": 30,
                "requests": 38,
                "requests_ok": 8,
                "failed_network": 0,
                "non_2xx": 30,
                "failed": 30,
                "requests_per_s": 1.0,
                "bytes_per_s": 1671.0,
                "bytes_sent_per_s": 1224.0,
                "duration_s": 5.0,
                "error": None,
            },
            {
                "source": str(folder / "gobench-usage-error.txt"),
                "tool": "gobench",
                "concurrency": None,
                "requests": None,
                "requests_ok": None,
                "failed_network": None,
                "non_2xx": None,
                "failed": None,
                "requests_per_s": np.nan,
                "bytes_per_s": np.nan,
                "bytes_sent_per_s": np.nan,
                "duration_s": np.nan,
                "error": "Requests or period must be provided",
            },
        ],
    )


def test_gobench_prints_no_latency_columns_stay_empty():
    runs = lbanalysis.read(corpus("lab", "gobench"))
    for col in ("latency_mean_s", "latency_min_s", "latency_max_s", "bytes_total", "availability_pct"):
        assert runs[col].isna().all(), col


def test_usage_error_file_is_one_error_row_with_command_fields():
    src = corpus("lab", "gobench", "gobench-usage-error.txt").read_text()
    runs = text("$ gobench -u http://127.0.0.1:8080/ -c 10\n" + src)
    expect(
        runs,
        [
            {
                "tool": "gobench",
                "line": 1,
                "url": "http://127.0.0.1:8080/",
                "port": 8080,
                "concurrency": 10,
                "requests": None,
                "error": "Requests or period must be provided",
            }
        ],
    )


def test_refused_run_keeps_its_figures_and_command():
    src = corpus("lab", "gobench", "gobench-c10-r100-refused.txt").read_text()
    runs = text("user@lab:~$ gobench -u http://127.0.0.1:8099/ -c 10 -r 100\n" + src)
    expect(
        runs,
        [
            {
                "concurrency": 10,
                "repetitions": 100,
                "requests_planned": 1000,
                "requests": 0,  # 1000 attempts, none answered
                "failed_network": 1000,
                "failed": 1000,
                "error": "every request failed at the network level (1000 network failures)",
            }
        ],
    )


def test_dispatching_line_wins_over_the_default_of_100_clients():
    runs = text("gobench -u http://h/ -r 5\nDispatching 7 clients\nWaiting for results...\n\nRequests:  35 hits\n")
    assert runs.loc[0, "concurrency"] == 7
    assert runs.loc[0, "requests_planned"] == 35


def test_net_http_version_decimal_test_time_and_rates():
    out = (
        "Dispatching 4 clients\nWaiting for results...\n\n"
        "Requests:                             100 hits\n"
        "Successful requests:                   99 hits\n"
        "Network failed:                         1 hits\n"
        "Bad requests failed (!2xx):             0 hits\n"
        "Successful requests rate:              50 hits/sec\n"
        "Read throughput:                    12345 bytes/sec\n"
        "Write throughput:                    6789 bytes/sec\n"
        "Test time:                           1.98 sec\n"
    )
    expect(
        text(out),
        [
            {
                "requests": 99,  # 100 attempts, one without an answer
                "requests_ok": 99,
                "failed_network": 1,
                "failed": 1,
                "requests_per_s": 50.0,
                "bytes_per_s": 12345.0,
                "bytes_sent_per_s": 6789.0,
                "duration_s": 1.98,
                "error": None,
            }
        ],
    )


def test_interrupted_output_without_summary_is_an_error_row():
    r = text("gobench -u http://h/ -c 3 -t 60\nDispatching 3 clients\nWaiting for results...\n^C\n").iloc[0]
    assert r["concurrency"] == 3
    assert r["error"].startswith("no result in the output")


def test_two_pasted_outputs_without_commands_are_two_runs():
    one = corpus("lab", "gobench", "gobench-c10-t5-haproxy-small.txt").read_text()
    two = corpus("lab", "gobench", "gobench-c30-t5-smallmaxconn-slow.txt").read_text()
    runs = text(one + "\n" + two)
    assert runs["concurrency"].tolist() == [10, 30]
    assert runs["requests"].tolist() == [54133, 38]
    assert runs["line"].tolist() == [1, 13]


@pytest.mark.parametrize(
    "message",
    [
        "Only one should be provided: [requests|period]",
        "flag provided but not defined: -x",
        'invalid value "ten" for flag -c: parse error',
    ],
)
def test_flag_errors_are_error_rows(message):
    usage = "Usage of /root/go/bin/gobench:\n  -c int\n    \tNumber of concurrent clients (default 100)\n"
    runs = text(f"{message}\n{usage}")
    assert len(runs) == 1
    assert runs.loc[0, "tool"] == "gobench"
    assert runs.loc[0, "error"] == message


def test_usage_text_alone_is_help_not_a_run():
    runs = text("Usage of gobench:\n  -auth string\n    \tAuthorization header\n  -c int\n")
    assert len(runs) == 0 and [n["kind"] for n in runs.attrs["not_runs"]] == ["help text"]
    # with a command that asked for a test, the same text is a failed attempt: a row with its error
    runs = text("$ gobench -c 10 -t 5\nUsage of gobench:\n  -auth string\n    \tAuthorization header\n")
    assert runs["error"].tolist() == ["usage error"]


def test_command_line_options_of_both_versions():
    d = parse_command("gobench -k=false -u https://lb.example/api -c=50 -r 200 -auth 'Basic eA==' -tr 100 -tw 200")
    assert d == {
        "concurrency": 50,
        "repetitions": 200,
        "requests_planned": 10000,
        "keepalive": False,
        "method": "GET",
        "url": "https://lb.example/api",
        "host": "lb.example",
        "port": 443,
        "path": "/api",
    }
    d = parse_command("./gobench --u http://h:81 -f urls.txt -t 10 -d body.json -k")
    assert (d["urls_file"], d["time_limit_s"], d["method"], d["keepalive"], d["concurrency"], d["port"], d["path"]) == (
        "urls.txt",
        10.0,
        "POST",
        True,
        100,
        81,
        "/",
    )
    assert "repetitions" not in parse_command("gobench -u http://h/ -r -1 -t 5")


def test_keepalive_default_is_true_and_only_k_false_turns_it_off():
    assert parse_command("gobench -u http://h/ -t 5")["keepalive"] is True
    assert parse_command("gobench -u http://h/ -t 5 -k=0")["keepalive"] is False


SHAPES = Path(__file__).resolve().parent / "fixtures" / "gobench" / "shapes"


def test_fork_with_total_requests_binary_rates_and_go_durations():
    runs = lbanalysis.read(SHAPES)
    by = {Path(r["source"]).name: r for _, r in runs.iterrows()}
    pos = by["gobench_fork_positional.txt"]
    assert pos["url"] == "http://127.0.0.1:18080/api/demo" and pos["port"] == 18080 and pos["concurrency"] == 100
    assert (pos["requests"], pos["requests_ok"], pos["non_2xx"], pos["failed"]) == (664004, 664001, 3, 3)
    assert pos["bytes_per_s"] == 19 * 2**20 and pos["bytes_sent_per_s"] == 6.0 * 2**20
    assert pos["duration_s"] == 10.001 and pos["timestamp"] == pd.Timestamp("2026-11-24 10:25:57.176")
    post = by["gobench_fork_tabs_post.txt"]
    assert post["method"] == "POST" and post["concurrency"] == 20 and post["requests_planned"] == 1000
    assert post["duration_s"] == pytest.approx(0.092985453) and post["requests_per_s"] == 10754.113
    assert post["bytes_sent_per_s"] == 987 * 2**10
    refused = by["gobench_fork_refused.txt"]
    # 96,383 attempts and not one answer: no completed request
    assert refused["requests"] == 0 and refused["failed_network"] == 96383 and refused["time_limit_s"] == 10.0
    assert refused["error"] == "every request failed at the network level (96383 network failures)"


def test_fork_commented_in_a_shell_script():
    # the fork's output pasted as `# ` comments after the commands of a script
    body = (SHAPES / "gobench_fork_positional.txt").read_text().split("\n", 1)[1]
    script = "gobench http://127.0.0.1:18080/api/demo\n" + "".join(
        f"# {ln}\n" if ln else "#\n" for ln in body.split("\n")
    )
    runs = text(script)
    assert runs.loc[0, "requests"] == 664004 and runs.loc[0, "url"] == "http://127.0.0.1:18080/api/demo"
