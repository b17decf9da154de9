"""ApacheBench readers on real outputs: our captures (tests/fixtures/ab) and the public corpus."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import lbanalysis
from lbanalysis import schema
from lbanalysis.readers.ab.text import parse_command

from .conftest import FIXTURES, corpus, expect

AB = FIXTURES / "ab"


def one(name: str, **kw) -> pd.Series:
    runs = lbanalysis.read(AB / name, **kw)
    assert len(runs) == 1, runs
    return runs.iloc[0]


def test_post_with_body_sent_and_three_transfer_rates():
    runs = lbanalysis.read(AB / "ab_post_json.txt")
    expect(
        runs,
        [
            {
                "tool": "ab",
                "tool_version": "2.3",
                "server_software": "BaseHTTP/0.6",
                "host": "127.0.0.1",
                "port": 18081,
                "path": "/submit",
                "url": "http://127.0.0.1:18081/submit",
                "document_length_bytes": 43.0,
                "concurrency": 5,
                "duration_s": 0.183,
                "requests": 200,
                "failed": 0,
                "non_2xx": 0,
                "bytes_total": 41200.0,
                "bytes_sent": 48800.0,
                "bytes_html": 8600.0,
                "requests_per_s": 1090.51,
                "latency_mean_s": 0.004585,
                "latency_mean_all_s": 0.000917,
                "bytes_per_s": 219.38 * 1024,
                "bytes_sent_per_s": 259.85 * 1024,
                "bytes_per_s_total": 479.23 * 1024,
                "latency_min_s": 0.001,
                "latency_max_s": 0.014,
                "error": None,
            }
        ],
    )


def test_post_phases_and_percentiles_long_form():
    ds = lbanalysis.read(AB / "ab_post_json.txt", table="all")
    src = str(AB / "ab_post_json.txt")
    exp_phases = schema.conform(
        [
            {"source": src, "run": 0, "phase": p, "min_s": a, "mean_s": b, "sd_s": c, "median_s": d, "max_s": e}
            for p, a, b, c, d, e in [
                ("connect", 0, 0, 0.1, 0, 1),
                ("processing", 1, 4, 2.8, 3, 14),
                ("waiting", 0, 4, 2.7, 3, 14),
                ("total", 1, 4, 2.7, 3, 14),
            ]
        ],
        "phases",
    )
    for c in ("min_s", "mean_s", "sd_s", "median_s", "max_s"):
        exp_phases[c] = exp_phases[c] / 1000
    assert_frame_equal(ds.phases, exp_phases)
    pct = ds.percentiles
    assert pct["percentile"].tolist() == [50, 66, 75, 80, 90, 95, 98, 99, 100]
    assert np.allclose(pct["latency_s"], [0.003, 0.004, 0.005, 0.007, 0.009, 0.010, 0.013, 0.014, 0.014])
    assert (pct["source"] == src).all() and (pct["run"] == 0).all()


def test_keepalive_requests_line_sets_keepalive():
    r = one("ab_keepalive.txt")
    assert r["keepalive"] is True or r["keepalive"] == True  # noqa: E712 (pandas boolean)
    assert r["keepalive_requests"] == 1000 and r["requests"] == 1000


def test_tls_lines():
    r = one("ab_https_haproxy.txt")
    assert (r["tls_protocol"], r["tls_cipher"], r["tls_key_bits"], r["tls_cipher_bits"]) == (
        "TLSv1.3",
        "TLS_AES_256_GCM_SHA384",
        2048,
        256,
    )
    assert r["tls_temp_key"] == "X25519 253 bits"
    assert r["url"] == "https://127.0.0.1:18443/"  # from the command line shown in COMMANDS.md? no: built from output
    sni = one("ab_https_sni_localhost.txt")
    assert sni["tls_server_name"] == "localhost"


def test_connection_times_short_layout_of_dash_S():
    ph = lbanalysis.read(AB / "ab_S.txt", table="phases")
    total = ph.set_index("phase").loc["total"]
    assert (total["min_s"], total["mean_s"], total["max_s"]) == (0.001, 0.001, 0.001)
    assert pd.isna(total["sd_s"]) and pd.isna(total["median_s"])


def test_failure_breakdown_and_variable_length():
    r = one("ab_failed_length.txt")
    assert r["failed"] == 199 and r["failed_length"] == 199 and r["failed_connect"] == 0
    v = one("ab_variable_length.txt")
    assert v["document_length_variable"] == True  # noqa: E712
    assert pd.isna(v["document_length_bytes"]) and v["failed"] == 0


def test_non_2xx_and_requests_ok():
    # every third response is a 500 whose page has another length: ab counts each of them twice, as a
    # Length failure and as Non-2xx; 300 - 100 - 100 would count 100 requests twice, and the output cannot
    # say in general how many are the same: requests_ok stays empty
    r = one("ab_non2xx_500_flaky.txt")
    assert (r["requests"], r["failed"], r["failed_length"], r["non_2xx"]) == (300, 100, 100, 100)
    assert pd.isna(r["requests_ok"])
    # only one kind of failure: nothing to count twice
    assert one("ab_non2xx_503.txt")["requests_ok"] == 0
    assert one("ab_failed_length.txt")["requests_ok"] == 1


def test_ab_2_0_failure_breakdown_without_receive():
    r = one("shapes/ab_2.0.40_failed_length.txt")
    assert r["tool_version"] == "2.0.40-dev" and r["write_errors"] == 0 and r["duration_s"] == 0.144
    assert (r["failed"], r["failed_connect"], r["failed_length"], r["failed_exceptions"]) == (199, 0, 199, 0)
    assert pd.isna(r["failed_receive"])  # ab 2.0 does not print it: not 0
    assert r["requests_ok"] == 1


@pytest.mark.parametrize(
    "name, error",
    [
        ("ab_refused.txt", "apr_socket_recv: Connection refused (111)"),
        ("ab_reset.txt", "apr_socket_recv: Connection reset by peer (104)"),
        ("ab_timeout.txt", "apr_pollset_poll: The timeout specified has expired (70007)"),
        ("ab_usage_invalid_url.txt", "ab: invalid URL"),
        ("ab_usage_c_gt_n.txt", "ab: Cannot use concurrency level greater than total number of requests"),
    ],
)
def test_failed_runs_are_rows_with_error(name, error):
    r = one(name)
    assert r["error"] == error
    assert pd.isna(r["requests_per_s"])


BENCH_ONLY = "ab printed no result, its error was not captured"


@pytest.mark.parametrize(
    "name, host, stdout",
    [
        ("ab_killed_hang_stdout.txt", "127.0.0.1", "Benchmarking 127.0.0.1 (be patient)"),
        ("ab_streams_refused_stdout.txt", "127.0.0.1", "Benchmarking 127.0.0.1 (be patient)..."),
    ],
)
def test_an_output_that_ends_after_benchmarking_is_a_failed_run(name, host, stdout):
    """ab began and printed nothing more (killed while its connections hung, or its error on stderr, not kept):
    a run row with ``error`` set, the host of its banner, no figure; the study counts it as a failed run."""
    ds = lbanalysis.read(AB / name, table="all")
    r = ds.runs.iloc[0]
    assert len(ds.runs) == 1 and r["host"] == host and r["tool_version"] == "2.3"
    assert r["error"] == f"the output ends after {stdout!r}: {BENCH_ONLY}" and pd.isna(r["error_kind"])
    assert pd.isna(r["requests"]) and pd.isna(r["requests_per_s"]) and pd.isna(r["concurrency"])
    s = lbanalysis.study(ds)
    assert s.runs.iloc[0]["error_share"] == 1.0
    v = s.verdicts.iloc[0]
    assert v["verdict"] == "errors" and "1 run aborted with no answer" in v["evidence"], v["evidence"]


@pytest.mark.parametrize("folder", ["90000-conc-3000", "105000-conc-3500", "120000-conc-4000"])
def test_corpus_runs_that_failed_after_their_banner_are_rows_with_error(folder):
    """actionjack's Cloud Foundry root-URL test: 'started failing after 2500 concurrent connections'; the
    three reports past it end after 'Benchmarking 10.0.0.14 (be patient)' (they were skipped as 'found no
    run'). Read in place: each a failed run of host 10.0.0.14, nothing else invented."""
    path = corpus("repos", "actionjack+cloud-floundry-ab-benchmark", "tests", "suite-root-url-test", folder,
                  "ab_report.txt")  # fmt: skip
    r = lbanalysis.read(path).iloc[0]
    assert r["host"] == "10.0.0.14" and r["tool_build"] == "1528965"
    assert r["error"] == f"the output ends after 'Benchmarking 10.0.0.14 (be patient)': {BENCH_ONLY}"
    assert pd.isna(r["requests_per_s"]) and pd.isna(r["concurrency"]) and pd.isna(r["url"])


def test_the_corpus_folder_counts_its_failed_runs_as_errors():
    root = corpus("repos", "actionjack+cloud-floundry-ab-benchmark", "tests", "suite-root-url-test")
    ds = lbanalysis.read(root, table="all", errors="skip")
    failed = ds.runs[ds.runs["error"].notna().to_numpy(bool)]
    assert sorted(p.split("/")[-2] for p in failed["source"]) == ["105000-conc-3500", "120000-conc-4000",
                                                                  "90000-conc-3000"]  # fmt: skip
    shares = lbanalysis.study(ds).runs.set_index("source").loc[failed["source"], "error_share"]
    assert shares.tolist() == [1.0, 1.0, 1.0]


def test_illegal_option_before_a_run_is_a_warning_not_a_second_run():
    r = one("ab_usage_illegal_option.txt")
    assert pd.isna(r["error"]) and r["warnings"] == "ab: illegal option -- Q"
    assert r["requests"] == 1


def test_version_banner_only_is_not_a_run():
    runs = lbanalysis.read(AB / "ab_version.txt")
    assert len(runs) == 0
    assert runs.attrs["not_runs"] == [
        {"source": str(AB / "ab_version.txt"), "line": 1, "tool": "ab", "command": None, "kind": "version banner"}
    ]


def test_transcript_with_root_prompts():
    runs = lbanalysis.read(AB / "ab_transcript_root_haproxy.txt")
    expect(
        runs,
        [
            {"run": 0, "command": "ab -n 501 -c 1 http://127.0.0.1:18090/", "concurrency": 1, "keepalive": False},
            {"run": 1, "command": "ab -n 501 -c 1 http://127.0.0.1:18090/", "concurrency": 1, "keepalive": False},
            {"run": 2, "command": "ab -k -n 1000 -c 10 http://127.0.0.1:18090/", "concurrency": 10, "keepalive": True},
            {"run": 3, "command": "ab -n 200 -c 20 https://127.0.0.1:18443/", "concurrency": 20, "keepalive": False},
        ],
    )
    assert runs["requests_planned"].tolist() == [501, 501, 1000, 200]
    assert runs["line"].tolist()[0] == 1


def test_transcript_crlf_with_a_refused_run_in_the_middle():
    runs = lbanalysis.read(AB / "ab_transcript_crlf.txt")
    assert len(runs) == 3
    assert runs["error"].isna().tolist() == [True, False, True]
    assert runs.loc[1, "error"] == "apr_socket_recv: Connection refused (111)"
    assert runs["concurrency"].tolist() == [5, 1, 25]


def test_gnuplot_tsv_ordered_by_start_time():
    ds = lbanalysis.read(AB / "ab_both.tsv", table="all")
    req = ds.requests
    raw = pd.read_csv(AB / "ab_both.tsv", sep="\t")
    assert len(req) == len(raw) == 200
    assert req["start"].is_monotonic_increasing
    assert req["seq"].tolist() == list(range(200))
    # same multiset of total times, in seconds
    assert sorted(req["latency_s"]) == sorted(raw["ttime"] / 1000)
    assert ds.runs.loc[0, "requests"] == 200
    assert ds.runs.loc[0, "format"] == "ab-gnuplot"


def test_percentile_csv_0_to_100():
    pct = lbanalysis.read(AB / "ab_percentiles.csv", table="percentiles")
    assert pct["percentile"].tolist() == list(map(float, range(101)))
    assert pct["latency_s"].iloc[0] == pytest.approx(0.000565)
    assert pct["latency_s"].iloc[-1] == pytest.approx(0.001472)


def test_parse_command_combined_flags_and_defaults():
    d = parse_command("ab -kc10 -n100 http://h/x")
    assert (d["keepalive"], d["concurrency"], d["requests_planned"], d["path"]) == (True, 10, 100, "/x")
    d = parse_command("ab -p body.json -T application/json http://h:81/")
    assert (d["method"], d["port"], d["concurrency"]) == ("POST", 81, 1)


def test_excerpt_like_article_000():
    import io

    text = "ab -k -c 150 -n 1000000 http://tu-lb-01/\nRequests per second:    29331.99 [#/sec] (mean)\n"
    runs = lbanalysis.read(io.StringIO(text))
    expect(
        runs,
        [
            {
                "tool": "ab",
                "concurrency": 150,
                "keepalive": True,
                "requests_planned": 1000000,
                "url": "http://tu-lb-01/",
                "requests_per_s": 29331.99,
                "requests": None,
                "duration_s": None,
                "error": None,
            }
        ],
    )


# ------------------------------------------------------------ public corpus
def test_corpus_wsl_prompt_non2xx_empty_server():
    runs = lbanalysis.read(corpus("public", "ab", "Zadneprovski__HttpServer__ab.log"))
    expect(
        runs,
        [
            {
                "tool_version": "2.3",
                "tool_build": "1903618",
                "command": "ab -n 1000 -c 10 http://127.0.0.1:8080/index.html",
                "server_software": "",
                "requests": 1000,
                "failed": 0,
                "non_2xx": 1000,
                "requests_ok": 0,
                "requests_per_s": 4680.03,
                "bytes_total": 40000.0,
                "bytes_per_s": 182.81 * 1024,
                "latency_max_s": 0.006,
            }
        ],
    )


def test_corpus_refused_right_after_banner():
    r = lbanalysis.read(corpus("public", "ab", "varuns2903__http-server__ab.log")).iloc[0]
    assert r["error"] == "apr_socket_recv: Connection refused (111)"
    assert r["tool_build"] == "1934973"


def test_corpus_fish_prompt_padded_with_spaces():
    r = lbanalysis.read(corpus("public", "ab", "mlebkowski__react-demo-app__apache_bench.txt")).iloc[0]
    assert r["command"] == "ab -n 2500 -c 250 http://localhost:3000/"
    assert (r["concurrency"], r["requests"], r["requests_per_s"]) == (250, 2500, 3111.91)
    assert r["latency_max_s"] == pytest.approx(0.233)


def test_corpus_failed_breakdown():
    r = lbanalysis.read(corpus("public", "ab", "nazibul7__TurboProxy__benchmarks_ab.txt")).iloc[0]
    assert (r["failed"], r["failed_length"], r["failed_receive"], r["requests_ok"]) == (3, 3, 0, 997)


def test_corpus_notes_with_two_bannerless_results():
    runs = lbanalysis.read(corpus("public", "ab", "damz__drupal_extension__benchmarks_ab.txt"))
    expect(
        runs,
        [
            {"server_software": "nginx/0.7.65", "requests_per_s": 374.64, "duration_s": 26.692, "write_errors": 0},
            {"server_software": "nginx/0.7.65", "requests_per_s": 366.00, "duration_s": 27.323, "write_errors": 0},
        ],
    )
    assert runs["tool_version"].isna().all()


def test_every_corpus_file_reads_or_fails_clearly():
    folder = corpus("public", "ab")
    ds = lbanalysis.read(folder, table="all", errors="skip")
    assert ds.skipped.empty
    assert len(ds.runs) == 6


def _agree(paths) -> int:
    """The runs read do not depend on the detail tables asked for (a lean read builds no detail rows)."""
    from lbanalysis.readers.ab import text as ab
    from lbanalysis.text import Segment, normalize

    checked = 0
    for path in sorted(paths):
        seg = Segment(normalize(path.read_text(errors="replace")), str(path))
        full = ab.parse(seg)
        # read(path) asks for no detail table: the same runs, and no rows built for nothing
        for want in ([], ["phases"], ["percentiles"]):
            lean = ab.parse(dataclasses.replace(seg, tables=frozenset(want)))
            assert lean.runs == full.runs, (path.name, want)
            assert lean.tables == {k: v for k, v in full.tables.items() if k in want}, (path.name, want)
        checked += 1
    return checked


def _label_by_label(text: str) -> list:
    """The runs of ``text`` read without the results block's line kind: every label on its own line."""
    from lbanalysis.readers.ab import text as ab
    from lbanalysis.readers.base import scan

    kinds = [k for k in ab.LINE_KINDS if k.name != "results"]
    return scan(text, kinds, ab._Reader()).finished()


def test_lean_and_full_reads_agree_on_every_fixture():
    """The runs of every fixture are the same whichever detail tables are asked for."""
    assert _agree([*AB.glob("*.txt"), *(FIXTURES / "ab-quoted").glob("*")]) > 30


def test_results_block_and_labels_read_alike_on_every_fixture():
    """The results block read in one match gives exactly what reading it label by label gives."""
    from lbanalysis.readers.ab import text as ab
    from lbanalysis.text import normalize

    for path in [*AB.glob("*.txt"), *(FIXTURES / "ab-quoted").glob("*")]:
        text = normalize(path.read_text(errors="replace"))
        text = ab.from_html(text) if "</th>" in text else text
        whole, labels = ab._scan(text), _label_by_label(text)
        assert [(r.d, r.phases, r.pcts, r.warnings) for r in whole] == [
            (r.d, r.phases, r.pcts, r.warnings) for r in labels
        ], path.name


@pytest.mark.parametrize("workers", [1, 2])
def test_runs_alone_equal_the_runs_of_every_table(workers):
    """read(path) skips the detail rows; its runs frame is still the one table="all" gives."""
    paths = [*AB.glob("*.txt"), *(FIXTURES / "ab-quoted").glob("*")]
    ds = lbanalysis.read(paths, table="all", errors="skip", workers=workers)
    assert len(ds.percentiles) > 100 and len(ds.phases) > 40
    assert_frame_equal(lbanalysis.read(paths, errors="skip", workers=workers), ds.runs)
    assert_frame_equal(lbanalysis.read(paths, table="phases", errors="skip", workers=workers), ds.phases)
    assert_frame_equal(lbanalysis.read(paths, table="percentiles", errors="skip", workers=workers), ds.percentiles)


def test_lean_and_full_reads_agree_on_the_public_corpus():
    assert _agree(p for p in corpus("public", "ab").iterdir() if p.is_file()) >= 5


@pytest.mark.parametrize(
    "name",
    [
        "ab_c10.txt",
        "ab_post_json.txt",
        "ab_https_haproxy.txt",
        "ab_keepalive.txt",
        "ab_non2xx_404.txt",
        "ab_plain.txt",
        "ab_https_nginx_tls12.txt",
    ],
)
def test_results_block_template_matches_real_captures(name):
    """The one-match results block must match ab 2.3's own output (else every file is read label by label)."""
    from lbanalysis.readers.ab import text as ab
    from lbanalysis.text import normalize

    text = normalize((AB / name).read_text())
    m = ab._RESULTS_RE.match(text, text.index("Server Software:"))
    assert m is not None
    r = ab._Run(1)
    ab._fill_results(m, r)
    assert r.d["requests"] > 0 and r.d["requests_per_s"] > 0
    (whole,) = ab._scan(text)  # banner, progress, results block, the two tables: a few matches
    assert whole.d == {**r.d, "tool": "ab", "line": 1, **{k: whole.d[k] for k in ("tool_version", "host")}}
    assert len(whole.phases) == 4 and whole.pcts[-1]["percentile"] == 100.0
    assert [(run.d, run.phases, run.pcts) for run in _label_by_label(text)] == [(whole.d, whole.phases, whole.pcts)]


def test_a_results_block_cut_off_anywhere_is_read_label_by_label():
    """An output cut inside its results block (a copy stopped early, the TLS lines present): the one-match
    pattern does not match, and the labels printed before the cut are read one by one, as if it were not there;
    the run has no rate (its line was not printed) and no error. Cut inside the first label, the file holds
    no result: a ParseError names it. Cut after a number (no newline after it: the number may be cut short),
    the last line is left unread and the run says so."""
    from lbanalysis.errors import ParseError
    from lbanalysis.readers import parse_text
    from lbanalysis.readers.ab import text as ab
    from lbanalysis.text import normalize

    text = normalize((AB / "ab_https_sni_localhost.txt").read_text())
    start, stop = text.index("Server Software:"), text.index("Requests per second:")
    for cut in range(start, stop):
        part = text[:cut]
        assert ab._RESULTS_RE.match(part, start) is None, cut
        whole, labels = ab._scan(part), _label_by_label(part)
        assert [(r.d, r.phases, r.pcts) for r in whole] == [(r.d, r.phases, r.pcts) for r in labels], cut
        dropped = ab.cut_line(part)
        kept = part[: len(part) - len(dropped or "")]
        if len(kept) < start + len("Server Software:"):
            with pytest.raises(ParseError, match=r"^cut\.txt: recognised the format but found no run in it"):
                parse_text(part, "cut.txt")
            continue
        (run,) = parse_text(part, "cut.txt").runs
        assert "requests_per_s" not in run and "error" not in run and run["tool_version"] == "2.3", cut
        assert ("ends inside its last line" in run.get("warnings", "")) == (dropped is not None), cut
    (run,) = parse_text(text[: text.index("Failed requests:")], "cut.txt").runs
    assert run["requests"] == 100 and "failed" not in run and "bytes_total" not in run


def test_results_block_template_steps_aside_for_a_second_pasted_result():
    from lbanalysis.readers.ab import text as ab
    from lbanalysis.text import normalize

    text = normalize((AB / "ab_c10.txt").read_text())
    first, second = ab._scan(text + "\nComplete requests:      7\n")  # a repeated label starts a run
    assert first.d["requests"] == 1000 and second.d == {"tool": "ab", "line": text.count("\n") + 2, "requests": 7}


def test_ab13_output_quoted_in_the_modperl_guide():
    runs = lbanalysis.read(FIXTURES / "ab-quoted" / "modperl-guide-ab13.txt")
    expect(
        runs,
        [
            {
                "command": "./ab -n 100 -c 10 http://www.example.com/perl/access/access.cgi",
                "url": "http://www.example.com/perl/access/access.cgi",
                "concurrency": 10,
                "requests_planned": 100,
                "requests": 100,
                "failed": 0,
                "duration_s": 1.683,
                "bytes_total": 16100.0,
                "bytes_html": 1600.0,
                "requests_per_s": 59.42,
                "bytes_per_s": 9570.0,  # ab 1.3 "kb/s" = bytes per millisecond
                "latency_min_s": 0.077,
                "latency_max_s": 1.360,
                "latency_mean_s": None,  # ab 1.3 prints no Time per request
            }
        ],
    )
    phases = lbanalysis.read(FIXTURES / "ab-quoted" / "modperl-guide-ab13.txt", table="phases")
    assert phases["phase"].tolist() == ["connect", "processing", "total"]
    assert phases["mean_s"].tolist() == [0.029, 0.124, 0.153]


def test_a_full_output_cut_inside_a_number_leaves_it_empty_and_says_so():
    # a copy stopped mid-line: "Requests per second:    46" was 4638.30; never read as a smaller number
    import io
    import re

    text = (FIXTURES / "ab" / "ab_c10.txt").read_text()
    for label, column in [
        ("Requests per second:", "requests_per_s"),
        ("Complete requests:", "requests"),
        ("Time per request:", "latency_mean_s"),
        ("Total:", "latency_min_s"),
    ]:
        at = text.index(label)
        line = text[at : text.index("\n", at)]
        digits = re.search(r"\d+", line)
        cut = text[: at + digits.end()]  # the line's first number, no newline after it: maybe cut
        row = lbanalysis.read(io.StringIO(cut)).iloc[0]
        assert pd.isna(row[column]), (label, row[column])
        assert "ends inside its last line" in row["warnings"] and line[:12] in row["warnings"]
    # the whole output without its final newline ends in "(longest request)": nothing is cut
    whole = lbanalysis.read(io.StringIO(text.rstrip("\n"))).iloc[0]
    assert whole["requests_per_s"] == 4638.30 and pd.isna(whole["warnings"])
    # an excerpt pasted without the banner is read as it stands
    excerpt = lbanalysis.read(io.StringIO("Complete requests:      100\nRequests per second:    37.04")).iloc[0]
    assert excerpt["requests_per_s"] == 37.04 and pd.isna(excerpt["warnings"])
