"""The everyday commands: summary formats and filters, one skip policy, compare."""

from __future__ import annotations

import shutil
import time

import pandas as pd
import pytest

from lbanalysis import cli

from .conftest import FIXTURES

AB = FIXTURES / "ab"
COMPARE = FIXTURES / "compare"


def run(argv: list, capsys) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_summary_tells_runs_of_one_file_apart_with_percentiles(capsys):
    status, out, _ = run(["summary", AB / "ab_transcript_keepalive.txt", "--format", "csv"], capsys)
    assert status == 0
    table = pd.read_csv(__import__("io").StringIO(out), dtype=str).fillna("")
    assert table["label / command"].tolist() == [f"ab -k -c {c} -n 2000 http://127.0.0.1:18080/" for c in (1, 10, 50)]
    pct = __import__("lbanalysis").read(AB / "ab_transcript_keepalive.txt", table="percentiles")
    p99 = pct[pct["percentile"] == 99]["latency_s"].tolist()
    assert table["p99 ms"].tolist() == [f"{v * 1e3:.2f}" for v in p99]
    assert (table["transfer"].str.endswith("MB/s")).all() and (table["link"] == "").all()


def test_summary_keeps_whole_sources_in_files_and_pipes(capsys, tmp_path):
    long = tmp_path / ("a-rather-long-folder-name-" * 3) / "and-a-long-file-name-for-its-run.txt"
    long.parent.mkdir()
    long.write_bytes((AB / "ab_c10.txt").read_bytes())
    other = tmp_path / "b" / "c1.txt"
    other.parent.mkdir()
    other.write_bytes((AB / "ab_c1.txt").read_bytes())
    status, out, _ = run(["summary", tmp_path, "--format", "csv"], capsys)
    assert status == 0
    table = pd.read_csv(__import__("io").StringIO(out))
    assert sorted(table["source"]) == [
        "a-rather-long-folder-name-" * 3 + "/and-a-long-file-name-for-its-run.txt",
        "b/c1.txt",
    ]
    status, out, _ = run(["summary", tmp_path], capsys)  # text to a pipe: cut to 60 characters, file name kept
    first = out.split("\n")[1].split("  ")[0]
    assert "..." in first and first.endswith("/and-a-long-file-name-for-its-run.txt") and len(first) <= 60


def test_summary_markdown_to_paste(capsys):
    status, out, _ = run(
        ["summary", AB / "ab_c10.txt", FIXTURES / "iperf3" / "iperf3_tcp_P2.txt", "--format", "markdown"], capsys
    )
    assert status == 0
    lines = out.strip().split("\n")
    assert lines[0].startswith("| source | run | tool |") and lines[1].startswith("|---|---:|---|")
    assert "| 9590.0 Mbit/s |" in out  # a link's rate in bit/s, apart from HTTP transfer in B/s
    assert "2 run(s) from 2 file(s)" in lines[-1]


def test_where_selects_runs_and_a_bad_expression_is_a_usage_error(capsys, tmp_path):
    status, out, _ = run(["summary", AB, "--where", "tool == 'ab' and concurrency >= 50", "--format", "csv"], capsys)
    assert status == 0
    table = pd.read_csv(__import__("io").StringIO(out))
    assert (table["conc"] >= 50).all() and len(table) >= 2
    status, out, _ = run(
        ["read", AB, "--where", "concurrency == 50", "--table", "percentiles", "-o", tmp_path / "p.csv"], capsys
    )
    pct = pd.read_csv(tmp_path / "p.csv")
    runs = __import__("lbanalysis").read(AB, errors="skip")
    c50 = set(
        zip(runs.loc[runs["concurrency"] == 50, "source"], runs.loc[runs["concurrency"] == 50, "run"], strict=True)
    )
    assert status == 0 and len(pct) > 0 and set(zip(pct["source"], pct["run"], strict=True)) <= c50
    start = time.perf_counter()
    status, _, err = run(["summary", AB, "--where", "nosuch > 1"], capsys)
    assert status == 2 and "--where 'nosuch > 1': name 'nosuch' is not defined" in err
    assert time.perf_counter() - start < 30  # no notebook, no retry: it stops after reading


def test_read_and_summary_share_one_skip_policy(capsys, tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(AB / "ab_c10.txt", folder)
    (folder / "junk.dat").write_text("not a tool output\n")
    status, _, err = run(["read", folder, "-o", tmp_path / "runs.csv", "-q"], capsys)
    assert status == 0 and "skipped " in err and "junk.dat:1: no known format recognised" in err
    status, out, err = run(["summary", folder], capsys)
    assert status == 0 and "junk.dat:1: no known format recognised" in err and "Skipped 1: junk.dat" in out
    status, _, err = run(["read", folder, "--errors", "raise", "-o", tmp_path / "r.csv"], capsys)
    assert status != 0 and "junk.dat" in err
    assert cli.build_parser().parse_args(["read", "x"]).errors == "skip"


def test_compare_two_folders(capsys):
    status, out, _ = run(["compare", COMPARE / "before", COMPARE / "after", "--format", "csv"], capsys)
    assert status == 0
    table = pd.read_csv(__import__("io").StringIO(out))
    assert table["series"].tolist() == ["ab 127.0.0.1:18095/"] * 2 and table["metric"].tolist() == [
        "req/s",
        "mean latency ms",
    ]
    runs = __import__("lbanalysis").read([COMPARE / "before", COMPARE / "after"])
    before = runs[runs["source"].str.contains("/before/")]["requests_per_s"]
    after = runs[runs["source"].str.contains("/after/")]["requests_per_s"]
    row = table.iloc[0]
    assert (row["n_a"], row["n_b"]) == (6, 6)
    assert row["change_pct"] == pytest.approx((after.mean() / before.mean() - 1) * 100)
    assert row["lower"] <= after.mean() / before.mean() <= row["upper"]
    assert row["verdict"].startswith("after is ") and "95% CI" in row["verdict"]


def test_compare_with_too_few_runs_says_so(capsys, tmp_path):
    for side in ("before", "after"):
        (tmp_path / side).mkdir()
        for name in ("ab_c5_r1.txt", "ab_c5_r2.txt"):
            shutil.copy(COMPARE / side / name, tmp_path / side / name)
    status, out, _ = run(["compare", tmp_path / "before", tmp_path / "after", "--format", "markdown"], capsys)
    assert status == 0
    assert "too few runs to tell (before: 2 runs, after: 2 runs; run-to-run noise needs 3 or more a side)" in out
    assert out.startswith("| series | metric | runs before | runs after |")


def test_compare_two_values_of_a_column(capsys, tmp_path):
    logs = tmp_path / "logs"
    shutil.copytree(COMPARE / "before", logs / "python")
    shutil.copytree(COMPARE / "after", logs / "nginx")
    status, out, _ = run(
        ["compare", "python", "nginx", "--by", "server", "--in", logs, "--pattern", "{server}/*"], capsys
    )
    assert status == 0 and "nginx is " in out and "higher than python" in out
    status, _, err = run(
        ["compare", "python", "apache", "--by", "server", "--in", logs, "--pattern", "{server}/*"], capsys
    )
    assert status == 2 and "no runs with server == 'apache'; values: nginx, python" in err


def test_unknown_group_column_is_a_usage_error_before_any_notebook(capsys, tmp_path):
    out = tmp_path / "report"
    status, _, err = run(["explore", AB, "--group", "nosuch", "-o", out], capsys)
    assert status == 2 and "--group 'nosuch' is not a column of the runs table" in err
    assert not out.exists()  # nothing was started
    logs = tmp_path / "logs" / "setup-a"
    logs.mkdir(parents=True)
    shutil.copy(AB / "ab_c10.txt", logs)
    status, _, err = run(
        ["explore", tmp_path / "logs", "--pattern", "{setup}/*", "--group", "setupx", "-o", out], capsys
    )
    assert status == 2 and "columns from --pattern or manifests: setup" in err
    status, _, err = run(["explore", tmp_path / "logs", "--load", "clients", "-o", out], capsys)
    assert status == 2 and "--load 'clients'" in err
