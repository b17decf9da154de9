"""The study: one answer per folder (series identity, error shares, capacity, verdict rules), shown as is by explore."""

from __future__ import annotations

import io
import os
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis import report
from lbanalysis.analysis import rules
from lbanalysis.analysis.engine import error_shares, study
from lbanalysis.analysis.network import network_utilisation
from lbanalysis.capacity import link_capacity
from tests.conftest import FIXTURES, ROOT, corpus

AB = FIXTURES / "ab"
WORDPRESS = ROOT / "data" / "raw" / "haproxy-wordpress-ab"


class _Tables(HTMLParser):
    """The cells of every table of a page, as text, row by row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.rows:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def test_explore_verdict_table_is_the_studys_summary_frame(tmp_path):
    page = report.run_notebook(report.EXPLORE_NOTEBOOK, {"logs": str(WORDPRESS)}, tmp_path, name="explore")
    parser = _Tables()
    parser.feed(Path(page).read_text(encoding="utf-8"))
    expected = study(lbanalysis.read(WORDPRESS, table="all")).summary_frame()
    assert len(expected)
    rows = {tuple(r) for r in parser.rows}
    for rec in expected.itertuples(index=False):
        cells = [str(rec.series), str(rec.runs), str(rec.used), str(rec.loads), rec.verdict, rec.resource,
                 rec.confidence, " ".join(str(rec.evidence).split())]  # fmt: skip
        assert any(r[-len(cells) :] == tuple(cells) for r in rows), cells


def _published_source(path: str) -> str:
    """The published source of a corpus file: its repository and commit (public2/SOURCES.tsv), else the
    ``owner__repo`` its name starts with (public/SOURCES.md)."""
    p = Path(path)
    if p.parts[-3] == "public2" or p.parts[-2] == "public2":
        table = pd.read_csv(corpus("public2", "SOURCES.tsv"), sep="\t")
        origin = dict(zip(table["file"], table["origin"], strict=True))
        rel = f"{p.parent.name}/{p.name}"
        text = str(origin.get(rel, rel))
        return text.split()[0] + (" @" + text.split("@")[1].split()[0] if "@" in text else "")
    return "__".join(p.name.split("__")[:2])


def test_corpus_series_never_mix_origins_methods_or_queries():
    """On unrelated public outputs: no series mixes origins, methods or queries; no error share above 100 %;
    no capacity crosses origins."""
    ds = lbanalysis.read([corpus("public"), corpus("public2")], errors="skip", table="all")
    # by default the origin is the file's folder
    plain = study(ds)
    runs = plain.runs.dropna(subset=["series"])
    assert len(runs) > 50
    folders = runs["source"].astype(str).map(os.path.dirname)
    assert (runs.assign(_f=folders).groupby("series")["_f"].nunique() == 1).all()
    # with each file's published source declared as its origin (a manifest's `origin` column)
    ds.runs = ds.runs.assign(origin=ds.runs["source"].astype(str).map(_published_source))
    s = study(ds)
    runs = s.runs.dropna(subset=["series"])
    assert (runs.groupby("series")["origin"].nunique() == 1).all()
    assert (runs.groupby("series")["method"].nunique(dropna=False) == 1).all()
    queries = runs["url"].astype("string").str.extract(r"\?(.*)$", expand=False).fillna("")
    assert (runs.assign(_q=queries).groupby("series")["_q"].nunique() == 1).all()
    for st in (plain, s):
        shares = st.runs["error_share"].dropna()
        assert ((shares >= 0) & (shares <= 1)).all()
        # iperf runs in public/iperf* measured other people's hosts: no HTTP run gets their capacity
        assert st.runs["capacity_bits_per_s"].isna().all()
        assert set(st.verdicts["verdict"]) <= set(rules.VERDICTS)


def test_error_share_from_each_tools_own_counters_never_above_one():
    runs = lbanalysis.read([AB / "ab_refused_r.txt", AB / "ab_reset_r.txt", AB / "ab_non2xx_500_flaky.txt",
                            FIXTURES / "wrk" / "wrk_latency_404.txt", FIXTURES / "hey" / "hey_refused.txt",
                            FIXTURES / "gobench" / "shapes" / "gobench_fork_refused.txt"])  # fmt: skip
    shares = error_shares(runs)
    assert (shares["error_share"] <= 1).all()
    by_file = dict(zip(runs["source"].map(lambda p: Path(p).name), shares["error_share"], strict=True))
    assert by_file["ab_refused_r.txt"] == 1.0  # 30 failed of 20 'complete': no more than all of them
    assert by_file["ab_non2xx_500_flaky.txt"] == pytest.approx(1 / 3)
    assert by_file["wrk_latency_404.txt"] == 1.0  # every answer a 404
    assert by_file["hey_refused.txt"] == 1.0 and by_file["gobench_fork_refused.txt"] == 1.0
    assert set(shares["error_basis"]) >= {"completed requests", "responses + connect, write and timeout errors"}


def test_series_identity_keeps_queries_methods_origins_and_debug_runs_apart(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    base = {"tool": "wrk", "host": "h", "port": 80, "concurrency": 10, "requests_per_s": 100.0,
            "requests": 1000, "duration_s": 10.0}  # fmt: skip
    runs = pd.DataFrame(
        [
            {**base, "url": "http://h:80/slow", "path": "/slow", "source": str(tmp_path / "a" / "1.txt")},
            {**base, "url": "http://h:80/slow?ms=1500", "path": "/slow", "source": str(tmp_path / "a" / "2.txt")},
            {**base, "url": "http://h:80/slow", "path": "/slow", "source": str(tmp_path / "b" / "3.txt")},
            {**base, "url": "http://h:80/slow", "path": "/slow", "method": "POST", "source": str(tmp_path / "a" / "4.txt")},
        ]
    )  # fmt: skip
    s = study(runs)
    assert s.runs["series"].nunique() == 4
    assert study(runs, group="tool").runs["series"].nunique() == 1  # declared the same workload
    assert study(runs, origin="none").runs["series"].nunique() == 3  # folders pooled: query and method still apart
    ab = study(lbanalysis.read(AB / "ab_single_request.txt"))
    assert ab.runs.loc[0, "left_out"].startswith("too few requests: 1")


def test_an_ab_summary_and_its_own_g_log_are_one_run():
    ds = lbanalysis.read([AB / "ab_gnuplot.txt", AB / "ab_gnuplot.tsv"], table="all")
    s = study(ds)
    log = s.runs[s.runs["source"].str.endswith(".tsv")].iloc[0]
    assert log["left_out"].startswith("the same run as ab/ab_gnuplot.txt:1")
    assert not s.runs["used"].all()


def test_ab_cannot_show_an_idle_client_from_its_printed_latency():
    runs = pd.DataFrame({"tool": "ab", "host": "h", "concurrency": [10, 20, 40], "requests_per_s": [900.0, 950, 960],
                         "latency_mean_s": [10 / 900, 20 / 950, 40 / 960], "requests": 5000, "duration_s": 5.0, "bytes_per_s": 1e6})  # fmt: skip
    v = study(runs, capacity="1 Gbit/s").verdicts.iloc[0]
    assert v["verdict"] != "load generator"
    assert "ab cannot show an idle client" in v["evidence"]


def test_falling_throughput_with_rising_latency_is_saturation():
    runs = pd.DataFrame({"tool": "siege", "host": "h", "concurrency": [10, 20, 40, 80, 160] * 2,
                         "requests_per_s": [500.0, 1000, 1000, 700, 400] * 2,
                         "latency_mean_s": [0.02, 0.02, 0.04, 0.114, 0.4] * 2, "requests": 5000, "duration_s": 10.0})  # fmt: skip
    runs = runs.assign(bytes_per_s=1e6)
    v = study(runs, capacity="1 Gbit/s").verdicts.iloc[0]
    assert (v["verdict"], v["confidence"]) == ("server saturation", "medium")  # the client's CPU not ruled out
    assert "falling past the peak" in v["evidence"] and "not the network" in v["evidence"]
    once = study(runs.head(5), capacity="1 Gbit/s").verdicts.iloc[0]
    assert once["confidence"] == "low" and "not called significant" in once["evidence"]
    # without a capacity or statistics, a flat throughput cannot tell a server from a full link
    alone = study(runs).verdicts.iloc[0]
    assert (
        alone["verdict"] == "cannot tell" and "the pattern of a saturated server or of a full link" in alone["evidence"]
    )


def test_a_shaped_50_mbit_path_is_network_on_the_payload_basis():
    """iperf3 measured 46.8 Mbit/s of goodput; ab moved 46.6 Mbit/s of payload: network, not a mismatch."""
    iperf = pd.DataFrame({"tool": "iperf3", "role": "client", "reverse": False, "direction": "receiver",
                          "protocol": "tcp", "local_host": "127.0.0.1", "remote_host": "127.0.0.1",
                          "bits_per_s": [46.8e6], "source": "lab/iperf3.txt", "line": 1, "run": 0})  # fmt: skip
    udp = iperf.assign(protocol="udp", bits_per_s=1e6, line=30)
    http = pd.DataFrame({"tool": "ab", "host": "127.0.0.1", "concurrency": [5, 10, 20],
                         "requests_per_s": [500.0, 560, 566], "bytes_per_s": [46.6e6 / 8 * 0.88, 46.6e6 / 8 * 0.99,
                                                                              46.6e6 / 8], "keepalive": True,
                         "requests": 5000, "duration_s": 10.0, "source": "lab/ab.txt", "line": 1, "run": [0, 1, 2]})  # fmt: skip
    runs = pd.concat([http, iperf, udp], ignore_index=True)
    s = study(runs)
    v = s.verdicts.iloc[0]
    assert v["verdict"] == "network", v["evidence"]
    assert (
        "payload" in v["evidence"] and "(iperf 127.0.0.1→127.0.0.1, iperf3.txt:1)" in v["evidence"]
    )  # the iperf run behind it, named from
    # the folder read (lab/): a page sent elsewhere names no folder of the machine that made it
    assert s.runs["capacity_bits_per_s"].dropna().unique().tolist() == [46.8e6]  # the UDP test is no capacity
    # each run's own reading of its path, made once here (explore's network table shows this column)
    by_load = s.runs.set_index("concurrency")
    assert by_load["path_bound"].to_dict() == {
        c: "network" if u >= 0.8 else "" for c, u in by_load["utilisation"].items()
    }
    assert (by_load["path_bound"] == "network").any()
    mismatched = study(runs, mismatch_above=0.9).runs
    assert set(mismatched["path_bound"]) >= {"capacity mismatch"}
    assert study(runs, mismatch_above=0.9).verdicts.iloc[0]["verdict"] == "capacity mismatch"
    # network_utilisation gives the same numbers from the same capacity
    paths = link_capacity(iperf)
    util = network_utilisation(http.assign(local_host="127.0.0.1", remote_host="127.0.0.1"), paths, saturated=False)
    mine = s.runs.dropna(subset=["utilisation"]).sort_values("run")["utilisation"].tolist()
    assert util["utilisation"].tolist() == pytest.approx(mine)


def test_capacity_never_crosses_origins_and_inconsistent_tests_are_not_averaged():
    iperf = pd.DataFrame({"tool": "iperf3", "role": "client", "direction": "receiver", "local_host": "10.0.0.1",
                          "remote_host": "10.0.0.2", "bits_per_s": [90e6], "source": "x/iperf.txt", "line": 1,
                          "run": 0})  # fmt: skip
    http = pd.DataFrame({"tool": "ab", "host": "10.0.0.2", "concurrency": [1, 2, 4], "requests_per_s": 100.0,
                         "bytes_per_s": 1e6, "requests": 1000, "duration_s": 10.0, "run": [0, 1, 2]})  # fmt: skip
    two = pd.concat([http.assign(source="x/ab.txt"), http.assign(source="y/ab.txt"), iperf], ignore_index=True)
    s = study(two)
    caps = s.runs.groupby("origin")["capacity_bits_per_s"].max()
    assert caps["x"] == 90e6 and pd.isna(caps["y"])
    spread = pd.concat([two, iperf.assign(bits_per_s=400e6, line=20, run=1)], ignore_index=True)
    s = study(spread)
    assert s.runs["capacity_bits_per_s"].isna().all()
    assert "inconsistent, not averaged" in s.runs["capacity_note"].iloc[0]


def test_client_and_server_copies_of_one_test_count_once():
    text_c = lbanalysis.read(corpus("public", "iperf3"), errors="skip")
    assert len(link_capacity(text_c))  # still paths
    copies = pd.DataFrame({"tool": "iperf3", "role": ["client", "server"], "reverse": False,
                           "direction": ["receiver", "receiver"], "local_host": ["a", "b"], "remote_host": ["b", "a"],
                           "local_port": [40000, 5201], "remote_port": [5201, 40000],
                           "bits_per_s": [94e6, 94.1e6]})  # fmt: skip
    cap = link_capacity(copies)
    assert cap["n_runs"].tolist() == [1]


def test_rules_are_one_table():
    table = rules.rules_table()
    assert table["verdict"].tolist()[0] == "errors" and "server saturation" in set(table["verdict"])
    assert set(rules.THRESHOLDS) >= {"error_share", "network_threshold", "min_requests", "min_duration_s"}
    with pytest.raises(TypeError, match="unknown threshold"):
        study(pd.DataFrame({"tool": ["ab"]}), nonsense=1)


def test_summary_and_to_dict():
    s = study(
        lbanalysis.read(io.StringIO("ab -c 10 -n 100 http://web/\nRequests per second:    1000.5 [#/sec] (mean)\n"))
    )
    assert str(s.summary()).startswith("1 series: cannot tell (1).")
    d = s.to_dict()
    assert d["series"][0]["verdict"] == "cannot tell" and d["thresholds"]["error_share"] == 0.01
    assert "<table" in s._repr_html_()


def test_compare_names_what_bounded_each_side():
    from lbanalysis.cli import compare_table

    compare = FIXTURES / "compare"
    runs = pd.concat(
        [lbanalysis.read(compare / side).assign(side=side) for side in ("before", "after")], ignore_index=True
    )
    table = compare_table(runs, "side", "before", "after")
    assert set(table["bound_a"]) == set(table["bound_b"]) == {"cannot tell"}  # runs under a second: no curve


def test_empty_and_toolless_inputs():
    assert str(study(pd.DataFrame()).summary()) == "No HTTP load-test series."
    assert study(pd.DataFrame({"tool": ["iperf3"], "bits_per_s": [1e9]})).summary_frame().empty
    bare = pd.DataFrame({"concurrency": [1, 2, 4], "requests_per_s": [1.0, 2, 3], "latency_mean_s": 0.1})
    assert study(bare).summary_frame().loc[0, "verdict"] == "no bound reached"


def test_a_link_capacity_frame_counts_only_for_runs_beside_its_iperf_files():
    iperf = pd.DataFrame({"tool": "iperf3", "role": "client", "direction": "receiver", "local_host": "10.0.0.1",
                          "remote_host": "10.0.0.2", "bits_per_s": [90e6], "source": "x/iperf.txt", "line": 1,
                          "run": 0})  # fmt: skip
    http = pd.DataFrame({"tool": "ab", "host": "10.0.0.2", "concurrency": [1, 2, 4], "requests_per_s": 100.0,
                         "bytes_per_s": 1e6, "requests": 1000, "duration_s": 10.0, "run": [0, 1, 2]})  # fmt: skip
    two = pd.concat([http.assign(source="x/ab.txt"), http.assign(source="y/ab.txt")], ignore_index=True)
    s = study(two, capacity=link_capacity(iperf))
    caps = s.runs.groupby("origin")["capacity_bits_per_s"].max()
    assert caps["x"] == 90e6 and pd.isna(caps["y"])


def test_open_loop_series_without_clients_vary_the_rate_asked():
    """vegeta sets a rate, not clients: its series is judged over -rate (here two rates: too few to call a bound)."""
    s = lbanalysis.study(lbanalysis.read(FIXTURES / "vegeta" / "vegeta_sweep_transcript.txt", table="all"))
    row = s.verdicts.set_index("series").loc["vegeta 127.0.0.1:18882/"]
    assert row["load"] == "rate_target_per_s" and row["loads"] == 2
    assert row["verdict"] == "cannot tell" and "2 loads only" in row["evidence"]
    assert "at rate 200 the tool was asked for a fixed 200 requests/s" in row["evidence"]


def test_a_runs_table_with_repeated_index_labels_is_studied_like_its_rows():
    runs = lbanalysis.read(FIXTURES / "scenarios" / "saturation" / "ab")
    twice = pd.concat([runs, runs])
    assert not twice.index.is_unique
    once, s = study(runs).summary_frame(), study(twice).summary_frame()
    assert s["runs"].tolist() == [2 * n for n in once["runs"]] and s["series"].tolist() == once["series"].tolist()


# ------------------------------------------------- what an error says ---
@pytest.mark.parametrize(
    ("path", "kind", "verdict", "said"),
    [
        # the tool refused its command line: nothing was sent, nothing is known of the server
        ("ab/ab_usage_c_gt_n.txt", "command refused", "cannot tell", "the tool refused its command line (1)"),
        ("ab/ab_usage_invalid_url.txt", "command refused", "cannot tell", "the tool refused its command line (1)"),
        # the result went elsewhere (handleSummary, --json): the run happened, this output does not show it
        ("k6/k6_handle_summary_run.txt", "no result shown", "cannot tell", "no result (1)"),
        ("locust/locust_json_run.txt", "no result shown", "cannot tell", "no result (1)"),
        ("siege/siege_streams_stdout.txt", "no result shown", "cannot tell", "no result (1)"),
        # the tool tried and got no answer: all errors
        ("ab/ab_refused.txt", "no answer", "errors", "aborted with no answer"),
        ("wrk/wrk_refused.txt", "no answer", "errors", "aborted with no answer"),
        ("pasted/captured_ab_unreachable_stderr.txt", "no answer", "errors", "aborted with no answer"),
        ("siege/siege_refused.txt", "no answer", "errors", "6 of 6 transactions"),
    ],
)
def test_an_error_counts_against_the_server_only_when_no_answer_came(path, kind, verdict, said):
    """Each reader says what its error means (``error_kind``); a refused command line or a result written
    elsewhere is no failed request (they were "errors, 100 % of the attempts failed")."""
    ds = lbanalysis.read(FIXTURES / path, table="all")
    assert ds.runs["error_kind"].dropna().unique().tolist() == [kind]
    v = study(ds).verdicts.iloc[0]
    assert v["verdict"] == verdict and said in v["evidence"], v["evidence"]


def test_network_failures_count_where_a_tool_also_fills_wrks_http_error_column():
    """Locust fills wrk's ``non_2xx_3xx`` with its HTTP errors, so wrk's counters were taken for it: its
    1,907 refused connections (``failed_network``) counted as 0 errors of 0 attempts, and the series said
    "cannot tell" instead of "errors"."""
    ds = lbanalysis.read(FIXTURES / "locust" / "locust_refused.txt", table="all")
    s = study(ds)
    run = s.runs.iloc[0]
    assert (run["errors"], run["attempts"], run["error_share"]) == (1907, 1907, 1.0)
    assert s.verdicts.iloc[0]["verdict"] == "errors"
    assert "1,907 of 1,907 requests + network failures" in s.verdicts.iloc[0]["evidence"]


# ------------------------------------------------------------ open loop ---
def _open_loop(sent: list[float], got: list[float]) -> pd.DataFrame:
    """Two repeats of a fixed-rate tool at 100, 200 and 400 requests/s asked (what a vegeta sweep reads as)."""
    rates = [100.0, 200.0, 400.0] * 2
    return pd.DataFrame({"tool": "vegeta", "url": "http://web:80/", "host": "web", "port": 80, "path": "/",
                         "rate_target_per_s": rates, "rate_sent_per_s": sent * 2, "requests_per_s": got * 2,
                         "latency_mean_s": [0.010, 0.011, 0.900] * 2, "requests": [1000, 2000, 4000] * 2,
                         "requests_ok": [1000, 2000, 4000] * 2, "failed": 0, "failed_network": 0,
                         "duration_s": 10.0, "bytes_per_s": 2e5, "source": "lab/vegeta.txt", "line": 1,
                         "run": range(6)})  # fmt: skip


def test_an_open_loop_series_whose_answers_fall_behind_the_rate_is_not_unbounded():
    """Throughput still grew (+15 %) but the answers came at 230 of the 400/s asked: the server (or the path)
    fell behind. It said "no bound reached (high)" before."""
    runs = _open_loop([100, 200, 400], [100, 200, 230])
    unknown = study(runs).verdicts.iloc[0]
    assert (
        unknown["verdict"] == "cannot tell" and "pattern of a saturated server or of a full link" in unknown["evidence"]
    )
    assert "asked for 400 requests/s (open loop) and the answers came at 230 (57%, below 90%)" in unknown["evidence"]
    known = study(runs, capacity="1 Gbit/s").verdicts.iloc[0]  # the path far from full: the server
    # no CPU figure for the client: its CPU is not ruled out, so not "high"
    assert (known["verdict"], known["confidence"], known["resource"]) == ("server saturation", "medium", "")
    assert rules.NOT_RULED_OUT in known["evidence"]
    assert "mean latency rose from 10.0 ms at rate 100 to 900 ms" in known["evidence"]


def test_an_open_loop_tool_that_could_not_send_the_rate_is_the_load_generator():
    v = study(_open_loop([100, 200, 260], [100, 200, 255]), capacity="1 Gbit/s").verdicts.iloc[0]
    assert v["verdict"] == "load generator", v["evidence"]
    assert "asked for 400 requests/s and sent 260 (65%, below 90%): the load generator could not send" in v["evidence"]


def test_an_open_loop_series_that_kept_up_at_every_rate_reached_no_bound():
    v = study(_open_loop([100, 200, 400], [100, 200, 396]), capacity="1 Gbit/s").verdicts.iloc[0]
    assert v["verdict"] == "no bound reached", v["evidence"]


def test_k6_arrival_rate_that_dropped_iterations_is_the_load_generator():
    """k6's arrival-rate executor with too few pre-allocated users: it drops the iterations it has no user
    for, so it sent less than the rate asked (the rate varies, its 10 users do not: the series varies the rate)."""
    rates = [50.0, 100.0, 200.0] * 2
    runs = pd.DataFrame({"tool": "k6", "url": "http://web:80/", "host": "web", "port": 80, "path": "/",
                         "concurrency": 10, "rate_target_per_s": rates, "iterations": [500, 1000, 1100] * 2,
                         "iterations_dropped": [0, 0, 900] * 2, "requests": [500, 1000, 1100] * 2,
                         "requests_ok": [500, 1000, 1100] * 2, "failed": 0, "failed_network": 0,
                         "requests_per_s": [50.0, 100.0, 110.0] * 2, "latency_mean_s": 0.09, "duration_s": 10.0,
                         "source": "lab/k6.txt", "line": 1, "run": range(6)})  # fmt: skip
    v = study(runs, capacity="1 Gbit/s").verdicts.iloc[0]
    assert (v["load"], v["verdict"]) == ("rate_target_per_s", "load generator"), v["evidence"]
    assert "asked for 200 requests/s and sent 110 (55%, below 90%)" in v["evidence"]


def test_connections_that_failed_to_open_are_no_idle_client():
    """A published wrk output at 1,000 connections, 753 and 757 of them failed to connect: the 245 that opened
    were busy (244 requests in flight). It said "load generator (high): the client did not keep its
    connections busy"; the output cannot tell the client's limits from the server's accept queue."""
    ds = lbanalysis.read(corpus("public2", "wrk", "05-playvsspring-dollar-4runs-socketerr.txt"), table="all")
    v = study(ds).verdicts.iloc[0]
    assert (v["verdict"], v["confidence"]) == ("cannot tell", ""), v["evidence"]
    assert v["evidence"].startswith("at concurrency 1000, 755 of the 1000 connections failed to connect")
    assert "the 245 that opened carried 244.1 requests in flight, busy" in v["evidence"]


def test_study_of_a_folder_reads_it_and_warns_of_each_skipped_file(tmp_path):
    (tmp_path / "c10.txt").write_text((AB / "ab_c10.txt").read_text())
    (tmp_path / "notes.txt").write_text("we ran it twice\n")
    with pytest.warns(lbanalysis.SkippedFileWarning, match="notes.txt"):
        s = study(tmp_path)
    given = study(lbanalysis.read(tmp_path / "c10.txt", table="all"))
    assert len(s.runs) == 1 and s.runs["requests_per_s"].iloc[0] == given.runs["requests_per_s"].iloc[0] > 0
