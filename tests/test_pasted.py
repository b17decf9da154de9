"""Outputs in the shapes people publish them in: each bug found on published outputs, its fixture and test.

The fixtures in tests/fixtures/pasted/ are real captures (``captured_*``,
COMMANDS.md) and shapes derived from them (SOURCES.md); the outputs people
published are read in place from ../shared/corpus/public2/ (its SOURCES.tsv
names each one's repository, commit and lines).
"""

from __future__ import annotations

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.errors import UnknownFormatError

from .conftest import FIXTURES, corpus

PASTED = FIXTURES / "pasted"
# what a pasted output without its first line or command cannot show
_FROM_COMMAND = ["command", "url", "host", "port", "path", "time_limit_s", "method", "requests_planned"]


def _runs(name: str) -> pd.DataFrame:
    return lbanalysis.read(PASTED / name)


def _same_figures(got: pd.Series, captured: str, skip: list[str]) -> None:
    """A run read from a pasted shape holds the figures of the capture it was made of."""
    want = _runs(captured).iloc[0]
    cols = [c for c in want.index if c not in ["source", "run", "line", *skip] and not pd.isna(want[c])]
    assert {c: got[c] for c in cols} == {c: want[c] for c in cols}


def test_wrk_without_its_running_line_is_recognised():
    runs = _runs("wrk_no_running_line.txt")
    assert runs[["tool", "threads", "concurrency"]].values.tolist() == [["wrk", 2, 10]]
    assert runs[["requests", "requests_per_s", "latency_mean_s"]].notna().all(axis=None)
    _same_figures(runs.iloc[0], "captured_wrk_t2_c10.txt", _FROM_COMMAND)
    assert runs[["url", "time_limit_s"]].isna().all(axis=None)  # only the Running line shows them


@pytest.mark.parametrize("name", ["wrk_two_runs_from_threads_line.txt", "wrk_two_runs_under_headings.txt"])
def test_wrk_results_without_running_lines_do_not_run_together(name):
    runs = _runs(name)
    assert runs["concurrency"].tolist() == [10, 5]
    _same_figures(runs.iloc[0], "captured_wrk_t2_c10.txt", _FROM_COMMAND)
    _same_figures(runs.iloc[1], "captured_wrk_t1_c5_latency.txt", _FROM_COMMAND)
    pcts = lbanalysis.read(PASTED / name, table="percentiles")
    assert set(pcts["run"]) == {1}  # only the --latency run printed a distribution


def test_hey_release_binary_is_the_hey_command():
    run = _runs("hey_release_binary.txt").iloc[0]
    assert run["command"] == "./hey_linux_amd64 -n 100 -c 4 -m HEAD http://127.0.0.1:18310/"
    assert (run["tool"], run["concurrency"], run["method"], run["requests_planned"], run["line"]) == (
        "hey", 4, "HEAD", 100, 1
    )  # fmt: skip
    _same_figures(run, "captured_hey_release_binary.txt", [*_FROM_COMMAND, "concurrency"])


def test_backslash_continued_command_keeps_all_its_lines():
    run = _runs("hey_backslash_command.txt").iloc[0]
    assert run["command"] == "hey -n 100 -c 5 -m POST -T application/json -d '{\"a\": 1}' http://127.0.0.1:18311/"
    assert (run["url"], run["method"], run["concurrency"], run["line"]) == ("http://127.0.0.1:18311/", "POST", 5, 1)
    _same_figures(run, "captured_hey_post_backslash.txt", [*_FROM_COMMAND, "concurrency"])


def test_bare_command_without_output_is_not_a_run():
    ds = lbanalysis.read(PASTED / "bare_command_notes.txt", table="all")
    assert ds.runs[["tool", "line", "command"]].values.tolist() == [
        ["wrk", 7, "wrk -t2 -c10 -d1s http://127.0.0.1:18310/"]
    ]
    assert ds.runs["error"].isna().all()
    _same_figures(ds.runs.iloc[0], "captured_wrk_t2_c10.txt", [])
    assert ds.not_runs[["line", "tool", "command", "kind"]].values.tolist() == [
        [3, "hey", "hey -n 200 -c 10 http://127.0.0.1:18310/", "bare command (no output)"]
    ]


def test_iperf3_udp_client_without_connecting_line_is_the_client():
    run = _runs("iperf3_udp_client_no_connecting_line.txt").iloc[0]
    assert (run["role"], run["protocol"], run["reverse"]) == ("client", "udp", False)
    _same_figures(run, "captured_iperf3_udp_client.txt", ["host", "port", "line"])


def test_iperf3_udp_client_after_the_server_half_is_the_client():
    runs = _runs("iperf3_udp_server_then_client.txt")
    assert runs[["role", "protocol", "reverse", "line"]].values.tolist() == [
        ["server", "udp", False, 2], ["client", "udp", False, 13]
    ]  # fmt: skip
    _same_figures(runs.iloc[0], "captured_iperf3_udp_server.txt", [])
    _same_figures(runs.iloc[1], "captured_iperf3_udp_client.txt", ["host", "port"])


def test_show_stat_after_ohmyzsh_prompt_is_read():
    ds = lbanalysis.read(PASTED / "haproxy_ohmyzsh_transcript.txt", table="all")
    assert ds.runs[["tool", "line"]].values.tolist() == [["ab", 1], ["haproxy", 47]]
    assert ds.runs["command"].tolist() == [
        "ab -n 200 -c 4 http://127.0.0.1:18312/",
        'echo "show stat" | sudo socat stdio /run/haproxy/admin.sock',
    ]
    assert ds.servers["server"].tolist() == ["FRONTEND", "web1", "web2", "BACKEND"]
    assert ds.servers["sessions_total"].tolist() == [200, 100, 100, 200]


def test_haproxy_addr_port_goes_to_the_port_column():
    servers = lbanalysis.read(PASTED / "captured_show_stat.csv", table="servers")
    got = servers[["server", "address", "port"]].astype(object)
    assert got.where(got.notna(), None).values.tolist() == [
        ["FRONTEND", None, None], ["web1", "127.0.0.1", 18310], ["web2", "127.0.0.1", 18311], ["BACKEND", None, None]
    ]  # fmt: skip


def test_hey_reindented_in_source_code_is_recognised():
    runs = _runs("hey_indented_in_source.txt")
    assert len(runs) == 1 and runs["line"].tolist() == [6]
    _same_figures(runs.iloc[0], "captured_hey_n200_c10.txt", [])
    pcts = lbanalysis.read(PASTED / "hey_indented_in_source.txt", table="percentiles")
    assert len(pcts) == len(lbanalysis.read(PASTED / "captured_hey_n200_c10.txt", table="percentiles")) == 7


def test_hey_reindented_in_go_source_as_gvisor_ships_it():
    """The shape's public source: gVisor's hey_test.go holds hey's output so (its test asserts these two)."""
    run = lbanalysis.read(corpus("peers", "gvisor", "hey_sample.txt")).iloc[0]
    assert (run["tool"], run["requests_per_s"], run["latency_mean_s"]) == ("hey", 89.3202, 0.5351)


@pytest.mark.parametrize("path", [PASTED / "notes.tsv", "public2/SOURCES.tsv"], ids=["notes", "public2"])
def test_tab_separated_notes_are_not_a_run(path):
    if isinstance(path, str):
        path = corpus(*path.split("/"))
    with pytest.raises(UnknownFormatError):
        lbanalysis.read(path)
    ds = lbanalysis.read([path, PASTED / "captured_wrk_t2_c10.txt"], table="all", errors="skip")
    assert ds.runs["tool"].tolist() == ["wrk"] and len(ds.not_runs) == 0
    assert ds.skipped["source"].tolist() == [str(path)]
    assert "no known format" in ds.skipped["reason"][0]


def test_siege_result_under_note_in_another_language_does_not_inherit_the_command():
    runs = _runs("siege_note_other_language.txt")
    assert runs[["concurrency", "requests", "line"]].values.tolist() == [[20, 200, 1], [25, 1000, 21]]
    assert runs["requests_planned"].tolist()[0] == 200
    assert runs.iloc[1][["command", "requests_planned", "url"]].isna().all()


def test_ab_w_html_tables_read_as_an_ab_run():
    ds = lbanalysis.read(PASTED / "ab_w_prompt.txt", table="all")
    run = ds.runs.iloc[0]
    assert run["command"] == "ab -w -n 100 -c 2 http://127.0.0.1:18310/"
    want = {
        "tool": "ab", "tool_version": "2.3", "server_software": "nginx/1.22.1", "port": 18310, "path": "/",
        "document_length_bytes": 177.0, "concurrency": 2, "requests": 100, "failed": 0, "bytes_total": 40900.0,
        "bytes_html": 17700.0,
    }  # fmt: skip
    assert {k: run[k] for k in want} == want
    html = (PASTED / "captured_ab_w.txt").read_text()
    assert f"<td colspan=2 bgcolor=white>{run['duration_s']:.3f} seconds</td>" in html
    assert f"<td colspan=2 bgcolor=white>{run['requests_per_s']:.2f}</td>" in html
    assert f"<td colspan=2 bgcolor=white>{run['bytes_per_s'] / 1024:.2f} kb/s received</td>" in html
    assert ds.phases["phase"].tolist() == ["connect", "processing", "total"]
    assert run["error"] is pd.NA


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("captured_ab_refused_stderr.txt", "apr_socket_recv: Connection refused (111)"),
        ("captured_ab_reset_stderr.txt", "apr_socket_recv: Connection reset by peer (104)"),
        (
            "captured_ab_unreachable_stderr.txt",
            "Test aborted after 10 failures; apr_socket_connect(): Network is unreachable (101)",
        ),
    ],
)
def test_ab_stderr_alone_is_a_failed_ab_run(name, error):
    runs = _runs(name)
    assert runs[["tool", "error"]].values.tolist() == [["ab", error]]
    assert runs[["requests", "requests_per_s"]].isna().all(axis=None)


# ../shared/corpus/public2: file -> runs columns per run, as SOURCES.tsv states the printed figures
PUBLIC2 = {
    "wrk/01-pseudohighload-socketerr-non2xx-prompt.txt": [
        {"threads": 12, "concurrency": 2400, "requests": 10833, "duration_s": 60.0, "requests_per_s": 180.43,
         "latency_mean_s": 5.06, "socket_errors_connect": 1391, "socket_errors_timeout": 1214,
         "non_2xx_3xx": 1214, "command": "wrk -t 12 -c 2400 -d 60 --timeout 6 http://localhost:80"},
    ],
    "wrk/02-huststore-indented-lua-done-2runs.txt": [
        {"threads": 24, "concurrency": 1000, "requests": 19246971, "duration_s": 45.1, "requests_per_s": 426762.49,
         "latency_mean_s": 0.00493, "bytes_per_s": 37.85 * 2**20, "line": 2},
        {"threads": 24, "concurrency": 1000, "requests": 10756638, "duration_s": 10.1, "requests_per_s": 1065200.13,
         "latency_mean_s": 0.00103, "bytes_per_s": 1.07 * 2**30, "line": 58},
    ],
    "wrk/03-plover-zsh-prompt-heading.txt": [
        {"threads": 20, "concurrency": 20, "requests": 1440, "duration_s": 30.06, "requests_per_s": 47.9,
         "latency_mean_s": 0.41318, "line": 4, "command": "wrk -t20 -c20 -d30s http://127.0.0.1:4000/render"},
    ],
    "wrk/04-pvzavito-latency-nocommand.txt": [
        {"threads": 4, "concurrency": 100, "requests": 209440, "duration_s": 30.06, "requests_per_s": 6968.07,
         "latency_mean_s": 0.02075, "bytes_per_s": 7.24 * 2**20},
    ],
    "wrk/05-playvsspring-dollar-4runs-socketerr.txt": [
        {"threads": 4, "concurrency": 500, "requests": 117458, "requests_per_s": 3905.10, "socket_errors_connect": 253,
         "socket_errors_read": 21, "line": 1},
        {"threads": 8, "concurrency": 500, "requests": 152297, "requests_per_s": 5059.82, "socket_errors_read": 37},
        {"threads": 4, "concurrency": 1000, "requests": 150626, "requests_per_s": 5010.62,
         "socket_errors_connect": 753, "socket_errors_read": 62},
        {"threads": 8, "concurrency": 1000, "requests": 153507, "requests_per_s": 5100.54,
         "socket_errors_connect": 757, "socket_errors_read": 77, "socket_errors_write": 16, "line": 34},
    ],
    "wrk2/01-bookinfo-script-u-latency-overload.txt": [
        {"threads": 2, "concurrency": 100, "requests": 7477, "duration_s": 30.0, "requests_per_s": 249.19,
         "latency_mean_s": 17.42, "hdr_latency_mean_s": 17.416073},
    ],
    "wrk2/02-highloaddht-bare-flags-3runs-R.txt": [
        # each run under its flags without the program name: they are its command (-R: the rate asked)
        {"threads": 1, "concurrency": 64, "requests": 119714, "requests_per_s": 1995.22, "hdr_latency_mean_s": 0.001441,
         "rate_target_per_s": 2000.0, "line": 1,
         "command": "-t1 -c64 -d60s -R2000 -s ./wrk/get.lua --latency http://localhost:8081"},
        {"threads": 64, "concurrency": 64, "requests": 2399298, "requests_per_s": 40038.45,
         "rate_target_per_s": 40000.0, "line": 115},
        {"threads": 64, "concurrency": 64, "requests": 4689203, "requests_per_s": 78260.56,
         "rate_target_per_s": 80000.0, "line": 316},
    ],
    "wrk2/05-dht-fork-raw-log-U-65conns.txt": [
        {"threads": 1, "concurrency": 65, "requests": 149062, "duration_s": 25.0, "requests_per_s": 5962.48,
         "hdr_latency_mean_s": 0.012203},
    ],
    "wrk2/06-wrk2-readme-example1-indented-u-latency.txt": [
        {"threads": 2, "concurrency": 100, "requests": 60031, "duration_s": 30.01, "requests_per_s": 2000.67,
         "rate_target_per_s": 2000.0, "hdr_latency_mean_s": 0.006178},
    ],
    "hey/05-atsnginx-all-4xx-raw-log.txt": [
        {"requests": 256, "non_2xx": 256, "duration_s": 1.0483, "requests_per_s": 244.2017, "latency_mean_s": 0.0481,
         "bytes_total": 40192.0},
    ],
    "hey/06-webserver-nobody-timeouts-raw-log.txt": [
        # hey's Requests/sec (404.1060) counts the 4 errors; requests_per_s holds responses per second
        {"requests": 99996, "failed": 4, "duration_s": 247.4598, "requests_per_s": 99996 / 247.4598},
    ],
    "ab/03-modx-https-kc-combined-t60-fenced-cmd.txt": [
        {"concurrency": 10, "time_limit_s": 60.0, "keepalive": True, "requests": 1689, "failed": 0,
         "duration_s": 60.015, "requests_per_s": 28.14, "latency_mean_s": 0.355331, "port": 443,
         "tls_protocol": "TLSv1.2", "bytes_total": 74341335.0},
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(PUBLIC2))
def test_public_outputs_read_in_place(name):
    runs = lbanalysis.read(corpus("public2", *name.split("/")))
    assert len(runs) == len(PUBLIC2[name])
    assert runs["error"].isna().all()
    for (_, got), want in zip(runs.iterrows(), PUBLIC2[name], strict=True):
        assert {k: got[k] for k in want} == {
            k: pytest.approx(v) if isinstance(v, float) else v for k, v in want.items()
        }


def test_shapes_are_what_the_script_makes():
    """Every pasted shape is the real capture with only the framing the script writes (SOURCES.md too)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("derive_pasted", FIXTURES / "capture" / "derive_pasted.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for name, (_how, make) in mod.SHAPES.items():
        assert (PASTED / name).read_bytes().decode("utf-8") == make(), name  # as written: a raw log's CRs too
        assert f"| `{name}` |" in (PASTED / "SOURCES.md").read_text(encoding="utf-8"), name


def test_vegeta_report_in_a_workflow_log_reads():
    """argo logs: each line after its step's name and a TAB; the report is the run-benchmark step's line."""
    ds = lbanalysis.read(FIXTURES / "vegeta" / "vegeta_shape_seldon_argo_log.txt", table="all")
    run = ds.runs.iloc[0]
    assert len(ds.runs) == 1
    assert (run["tool"], run["format"], run["line"], run["requests"], run["requests_per_s"]) == (
        "vegeta", "vegeta-json", 7, 11457, 378.3088422183642
    )  # fmt: skip
    assert (run["latency_mean_s"], run["rate_sent_per_s"], run["bytes_total"]) == (
        0.263055331,
        381.9013297040498,
        1420668,
    )
    assert ds.percentiles["latency_s"].tolist() == [0.261546418, 0.289796292, 0.297608972, 0.324027882]


def test_ab_url_is_the_commands_not_a_note_after_it():
    """`# ab ... http://host/42.html  //必须在后方指定…`: the note after `//` is no URL, nor are the notes after values."""
    run = lbanalysis.read(FIXTURES / "ab" / "published" / "ab_2.0.40_chinese_notes.txt").iloc[0]
    assert run["command"] == "ab -n 100 -c 5 -k http://www.gaingreat.com/42.html"
    assert (run["url"], run["host"], run["port"], run["path"]) == (
        "http://www.gaingreat.com/42.html",
        "www.gaingreat.com",
        80,
        "/42.html",
    )
    assert (run["server_software"], run["server_hostname"]) == ("nginx", "www.gaingreat.com")
    assert (run["requests"], run["failed"], run["requests_per_s"], run["concurrency"]) == (100, 73, 3.06, 5)


def test_siege_runs_after_a_note_do_not_inherit_an_earlier_command():
    """Notes in Chinese among Latin words (`使用gunicorn启动服务,开启多线程`) end the reach of `siege -c 2000 -r 10`."""
    runs = lbanalysis.read(FIXTURES / "siege" / "published" / "siege_json_runs_between_chinese_notes.txt")
    assert runs["requests"].tolist() == [500, 500, 500, 1181, 1080, 1186, 9997, 10000, 9435]
    assert runs["concurrency"].tolist() == [50, 50, 50, 2000, *[pd.NA] * 5]
    assert runs["requests_planned"].tolist() == [500, 500, 500, 20000, *[pd.NA] * 5]
    assert runs["command"].notna().tolist() == [True] * 4 + [False] * 5
    assert runs["url"].iloc[3] == "http://122.51.83.195:5000/job/job_status" and runs["url"].iloc[4:].isna().all()


@pytest.mark.parametrize(
    "name, captured, line",
    [
        ("ab_github_actions_log.txt", "captured_ab_through_haproxy.txt", 2),
        ("siege_gitlab_log.txt", "captured_siege_c20_r10.txt", 1),
        ("hey_gh_run_view_log.txt", "captured_hey_n200_c10.txt", 1),
        ("wrk_step_name_tab.txt", "captured_wrk_t1_c5_latency.txt", 1),
        ("wrk_compose_v2.txt", "captured_wrk_t2_c10.txt", 1),
        ("ab_jenkins_pipeline_log.txt", "captured_ab_through_haproxy.txt", 4),
        ("ab_jenkins_freestyle_clock.txt", "captured_ab_through_haproxy.txt", 1),
        ("ab_buildkite_raw_log.txt", "captured_ab_through_haproxy.txt", 1),
        ("ab_travis_raw_log.txt", "captured_ab_through_haproxy.txt", 1),
        ("wrk_travis_log_copied.txt", "captured_wrk_t2_c10.txt", 1),
        ("hey_circleci_local_execute.txt", "captured_hey_n200_c10.txt", 3),
        ("ab_circleci_step_output.txt", "captured_ab_through_haproxy.txt", 2),
    ],
)
def test_an_output_inside_a_log_reads_as_the_bare_output(name, captured, line):
    """A constant prefix on every line (CI time stamps, a step's name and a TAB, compose's `svc-1  | `) comes off;
    Travis CI's fold and timer markers go, CircleCI's step header is no command of its own."""
    runs = _runs(name)
    assert len(runs) == 1 and runs["line"].iloc[0] == line
    _same_figures(runs.iloc[0], captured, [])
    for table in ("percentiles", "phases"):
        got = lbanalysis.read(PASTED / name, table=table).drop(columns=["source"])
        want = lbanalysis.read(PASTED / captured, table=table).drop(columns=["source"])
        pd.testing.assert_frame_equal(got, want)


def test_ci_step_headers_and_markers_are_no_runs_nor_commands():
    """CircleCI's `====>> hey ...` names the step (the command follows under `#!/bin/bash -eo pipefail`); Travis's
    `travis_time:end:...,event=script` runs into `The command "..." exited with 0.` in a copied log."""
    for name in ("hey_circleci_local_execute.txt", "wrk_travis_log_copied.txt", "ab_travis_raw_log.txt"):
        ds = lbanalysis.read(PASTED / name, table="all")
        assert len(ds.runs) == 1 and ds.runs.attrs["not_runs"] == [] and ds.skipped.empty, name
    from lbanalysis.text import normalize

    text = (PASTED / "ab_travis_raw_log.txt").read_bytes().decode("utf-8")
    bare = normalize(text)
    assert "travis_" not in bare and "\r" in text and bare.count("\n") == text.count("\n")  # lines as an editor shows


def test_k6_from_docker_logs_t_reads_as_its_console():
    """`docker logs -t`: an RFC 3339 time with up to nine decimals before every line of k6's output."""
    got = _runs("k6_docker_logs_t.txt")
    want = lbanalysis.read(FIXTURES / "k6" / "k6_nginx.txt")
    # the think time is read from the script beside the output: the console's folder has it, the paste's none
    assert got["think_time_s"].isna().all() and want["think_time_s"].notna().all()
    mine = ["source", "line", "think_time_s", "think_time_source"]
    pd.testing.assert_frame_equal(got.drop(columns=mine, errors="ignore"), want.drop(columns=mine, errors="ignore"))


def test_a_sar_table_keeps_its_times():
    """sysstat's tables start their rows with a time too (with AM/PM or several spaces): not a Jenkins clock."""
    from lbanalysis.text import normalize

    text = "12:00:01 AM     CPU     %user\n12:00:02 AM     all      1.00\n12:00:03 AM     all      2.00\n"
    assert normalize(text) == text.rstrip("\n") or normalize(text) == text
