"""autobench's results table: captures of autobench 2.1.2 running httperf 0.9.0 against 127.0.0.1
(tests/fixtures/autobench/COMMANDS.md), the same tables pasted in columns and as Markdown, and a published
README's Markdown tables (tests/fixtures/autobench/shapes/SOURCES.md)."""

from __future__ import annotations

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.readers.autobench.table import detect

from .conftest import FIXTURES, expect

AUTOBENCH = FIXTURES / "autobench"
#: What a row of each layout gives, whatever the layout (not where it stands).
SAME = ["tool", "host", "rate_target_per_s", "requests_per_s", "requests_attempted_per_s", "connection_rate_per_s",
        "interval_requests_per_s_min", "interval_requests_per_s_mean", "interval_requests_per_s_max",
        "interval_requests_per_s_stdev", "latency_mean_s", "bytes_per_s_total", "errors_per_reply_pct"]  # fmt: skip


def _runs(name: str) -> pd.DataFrame:
    return lbanalysis.read(AUTOBENCH / name)


def test_a_tsv_is_one_run_per_rate_in_si_units():
    expect(
        _runs("autobench_nginx.tsv"),
        [
            {"tool": "autobench", "format": "autobench", "host": "127.0.0.1", "line": 2, "rate_target_per_s": 20.0,
             "requests_attempted_per_s": 20.2, "requests_per_s": 20.2, "connection_rate_per_s": 10.1,
             "interval_requests_per_s_mean": 20.0, "interval_requests_per_s_stdev": 0.0, "latency_mean_s": 0.0003,
             "bytes_per_s_total": 9.3 * 1024, "errors_per_reply_pct": 0.0},
            {"tool": "autobench", "format": "autobench", "host": "127.0.0.1", "line": 3, "rate_target_per_s": 40.0,
             "requests_attempted_per_s": 40.2, "requests_per_s": 40.2, "connection_rate_per_s": 20.1,
             "interval_requests_per_s_mean": 40.0, "interval_requests_per_s_stdev": 0.0, "latency_mean_s": 0.0002,
             "bytes_per_s_total": 18.4 * 1024, "errors_per_reply_pct": 0.0},
            {"tool": "autobench", "format": "autobench", "host": "127.0.0.1", "line": 4, "rate_target_per_s": 60.0,
             "requests_attempted_per_s": 60.2, "requests_per_s": 60.2, "connection_rate_per_s": 30.1,
             "interval_requests_per_s_mean": 60.0, "interval_requests_per_s_stdev": 0.0, "latency_mean_s": 0.0002,
             "bytes_per_s_total": 27.6 * 1024, "errors_per_reply_pct": 0.0},
            {"tool": "autobench", "format": "autobench", "host": "127.0.0.1", "line": 5, "rate_target_per_s": 80.0,
             "requests_attempted_per_s": 80.2, "requests_per_s": 80.2, "connection_rate_per_s": 40.1,
             "interval_requests_per_s_mean": 80.0, "interval_requests_per_s_stdev": 0.0, "latency_mean_s": 0.0002,
             "bytes_per_s_total": 36.7 * 1024, "errors_per_reply_pct": 0.0},
        ],
    )  # fmt: skip


def test_each_row_holds_what_httperf_printed_at_that_rate():
    """The same runs, printed by httperf on autobench's stdout: the table copies its figures (its rate in requests/s,
    httperf's --rate in connections/s; the calls per connection are 2)."""
    table = _runs("autobench_nginx.tsv")
    httperf = _runs("autobench_nginx_stdout.txt")
    assert httperf["tool"].tolist() == ["httperf"] * 4
    assert (httperf["rate_target_per_s"] * httperf["calls_per_connection"]).tolist() == table[
        "rate_target_per_s"
    ].tolist()
    for col in ("requests_attempted_per_s", "connection_rate_per_s", "interval_requests_per_s_mean",
                "latency_mean_s", "bytes_per_s_total"):  # fmt: skip
        assert httperf[col].tolist() == pytest.approx(table[col].tolist()), col


def test_errors_are_autobench_share_of_the_replies_and_short_runs_have_no_reply_rate_sample():
    runs = _runs("autobench_jitter.tsv")
    assert runs["rate_target_per_s"].tolist() == [5.0, 10.0, 15.0]
    assert runs["errors_per_reply_pct"].tolist() == pytest.approx(
        [66.6666666666667, 66.6666666666667, 33.3333333333333]
    )
    assert runs["latency_mean_s"].tolist() == pytest.approx([0.4764, 0.6171, 0.5348])
    # errors: not every request was answered, so the request rate is not the reply rate, and all-zero reply rates
    # are no sample (runs under 5 s): no throughput is shown
    assert runs["requests_per_s"].isna().all() and runs["interval_requests_per_s_mean"].isna().all()
    assert runs["requests_attempted_per_s"].tolist() == [4.3, 7.1, 9.4]


def test_no_reply_is_autobench_101_a_run_with_no_answer():
    runs = _runs("autobench_refused.tsv")
    assert runs["rate_target_per_s"].tolist() == [10.0, 20.0]
    assert runs["requests"].tolist() == [0, 0] and runs["error_kind"].tolist() == ["no answer"] * 2
    assert runs["error"].iloc[0] == "no reply (autobench's errors 101: its mark for zero replies)"
    assert runs["errors_per_reply_pct"].isna().all() and runs["latency_mean_s"].isna().all()
    assert runs["connection_rate_per_s"].tolist() == [11.1, 22.2]


def test_two_hosts_are_two_runs_per_row():
    runs = _runs("autobench_two_hosts.csv")
    assert runs[["host", "rate_target_per_s", "line"]].values.tolist() == [
        ["127.0.0.1", 20.0, 2], ["localhost", 20.0, 2], ["127.0.0.1", 40.0, 3], ["localhost", 40.0, 3]
    ]  # fmt: skip
    assert runs["latency_mean_s"].tolist() == pytest.approx([0.0004, 0.0211, 0.0004, 0.0209])
    assert runs["requests_per_s"].tolist() == [20.3, 20.2, 40.7, 40.1]


@pytest.mark.parametrize(
    ("pasted", "written", "shift"),
    [
        ("autobench_nginx_column_t.txt", "autobench_nginx.tsv", 0),
        ("autobench_two_hosts_markdown.txt", "autobench_two_hosts.csv", 1),
    ],
)
def test_the_table_pasted_in_columns_or_as_markdown_reads_as_written(pasted, written, shift):
    got, want = _runs(pasted), _runs(written)
    pd.testing.assert_frame_equal(got[SAME], want[SAME])
    assert (got["line"] - want["line"]).tolist() == [shift] * len(want)  # the Markdown rule under the header


def test_a_published_markdown_table_without_hosts():
    runs = _runs("shapes/autobench_markdown_no_hosts.txt")
    assert len(runs) == 30 and runs["host"].isna().all()
    assert runs["line"].tolist()[::10] == [5, 20, 35]  # three tables, each under its heading
    first = runs.iloc[0]
    assert (first["rate_target_per_s"], first["requests_attempted_per_s"], first["latency_mean_s"]) == (
        200.0, 60.0, 2.5854
    )  # fmt: skip
    # errors: the replies that came per second (avg_rep_rate), not the requests made
    assert first["errors_per_reply_pct"] == 35.2345154436999 and first["requests_per_s"] == 44.4
    assert runs["errors_per_reply_pct"].max() == 494.350842418236  # more errors than replies
    # the cached setup: no error up to 1000 requests/s asked, so every request was answered (req_rate)
    assert runs["requests_per_s"].tolist()[20:26] == [200.0, 400.1, 600.1, 800.0, 1000.0, 1118.2]


def test_the_published_tables_are_three_setups_under_their_headings_each_judged_by_its_errors():
    s = lbanalysis.study(AUTOBENCH / "shapes" / "autobench_markdown_no_hosts.txt")
    headings = ["Apache benchmarking", "NGINX-phpfpm benchmark", "NGINX-phpfpm with FastCGI Cache benchmark"]
    assert s.runs["heading"].tolist() == [h for h in headings for _ in range(10)]
    design = s.design.set_index("factor")
    assert design.loc["heading", "role"] == "setup" and design.loc["heading", "source"] == "a line inside the file"
    v = s.verdicts.set_index(s.verdicts["series"].str.extract(r"\) (.*)$")[0])
    assert sorted(v.index) == sorted(headings)  # never pooled into one series
    assert (v["verdict"] == "errors").all()
    # errors per 100 replies x as a share of the attempts: x / (100 + x); Apache's worst, 494.35 at 1800/s
    assert "at rate 1800, 83.2% of the attempts failed" in v.loc["Apache benchmarking", "evidence"]
    cached = s.runs[s.runs["heading"] == headings[2]]
    assert cached["error_share"].tolist()[:5] == [0.0] * 5
    assert cached["error_share"].iloc[9] == pytest.approx(10.0941363275491 / 110.0941363275491)


def test_stderr_lines_inside_a_table_do_not_end_it(tmp_path):
    """autobench ... > out.tsv 2>&1: httperf's warning and autobench's note for a rate with no reply come between
    the rows (both lines as the captures show them)."""
    warning = (AUTOBENCH / "autobench_refused_stderr.txt").read_text().splitlines()[:2]
    lines = (AUTOBENCH / "autobench_refused.tsv").read_text().splitlines()
    path = tmp_path / "out.tsv"
    path.write_text("\n".join([lines[0], *warning, lines[1], lines[2]]) + "\n")
    runs = lbanalysis.read(path)
    assert runs["rate_target_per_s"].tolist() == [10.0, 20.0] and runs["line"].tolist() == [4, 5]
    assert (
        runs["warnings"].iloc[0] == "warning: open file limit > FD_SETSIZE; limiting max. # of open files to FD_SETSIZE"
    )


def test_a_row_of_the_wrong_width_is_an_error_naming_its_line(tmp_path):
    lines = (AUTOBENCH / "autobench_nginx.tsv").read_text().splitlines()
    path = tmp_path / "cut.tsv"
    path.write_text("\n".join([lines[0], lines[1], lines[2].rsplit("\t", 3)[0]]) + "\n")
    with pytest.raises(lbanalysis.ParseError, match=r"cut\.tsv:3: autobench table: 7 cells where its header names 10"):
        lbanalysis.read(path)


def test_the_version_banner_is_no_run():
    ds = lbanalysis.read(AUTOBENCH / "autobench_version.txt", table="all")
    assert ds.runs.empty
    assert [(r["tool"], r["kind"]) for r in ds.runs.attrs["not_runs"]] == [("autobench", "version banner")]


def test_detect_wants_the_header_not_the_word():
    assert detect((AUTOBENCH / "autobench_two_hosts.csv").read_text())
    assert not detect("dem_req_rate is the demanded request rate\n")
