"""Several load-generator processes at once, read and judged as one test (lbanalysis.analysis.tests).

The fixtures (tests/fixtures/parallel/, made by capture/capture_parallel.sh) are one, two and four ab
processes started together against a backend that answers after 50 ms, at 8, 16 and 32 connections in
all, twice, with a manifest naming each file's test; the tests at 16 connections also wrote ab -g logs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lbanalysis
import lbanalysis.analysis
from lbanalysis.analysis import study
from lbanalysis.analysis import tests as par  # (its names start with 'test': not imported into a test module)

from .conftest import FIXTURES

PAR = FIXTURES / "parallel"
MANIFEST = pd.read_csv(PAR / "manifest.csv")


#: The folder is read and studied once (module fixtures), on the one worker that runs these tests.
pytestmark = pytest.mark.xdist_group("parallel")


@pytest.fixture(scope="module")
def ds():
    return lbanalysis.read(PAR, table="all")


@pytest.fixture(scope="module")
def st(ds):
    return study(ds)


def _own(ds) -> pd.DataFrame:
    """Each process's own printed figures, from the files the manifest names (read one by one)."""
    rows = []
    for _, m in MANIFEST.iterrows():
        r = lbanalysis.read(PAR / m["file"], manifest=False).iloc[0]
        rows.append({**m.to_dict(), "concurrency": r["concurrency"], "requests": r["requests"],
                     "requests_per_s": r["requests_per_s"], "latency_mean_s": r["latency_mean_s"]})  # fmt: skip
    return pd.DataFrame(rows)


def test_the_manifest_declares_eighteen_tests_of_one_two_and_four_processes(ds):
    ab = ds.runs[ds.runs["format"] == "ab"]
    assert ab["test"].nunique() == 18 and len(MANIFEST) == 42
    assert sorted(MANIFEST.groupby("test")["processes"].first().value_counts().items()) == [(1, 6), (2, 6), (4, 6)]


def test_each_test_is_one_row_its_load_and_rate_the_sums_of_its_processes(ds, st):
    own = _own(ds)
    t = st.tests.set_index("test")
    assert len(t) == 18 and set(t["processes"]) == {1, 2, 4}
    for name, g in own.groupby("test"):
        row = t.loc[name]
        assert row["processes"] == len(g) and row["test_basis"] == "declared (test)"
        assert row["load"] == g["concurrency"].sum()  # the total concurrency: 8, 16 or 32
        assert row["requests"] == g["requests"].sum()
        assert row["requests_per_s"] == pytest.approx(g["requests_per_s"].sum(), rel=1e-9)  # each process's own rate
        weighted = (g["latency_mean_s"] * g["requests"]).sum() / g["requests"].sum()
        assert row["latency_mean_s"] == pytest.approx(weighted, rel=1e-9)
        assert row["error_share"] == 0 and row["errors"] == 0 and row["attempts"] == row["requests"]
    assert set(t["load"]) == {8, 16, 32}


def test_the_study_judges_tests_not_processes(st):
    ab = st.runs[st.runs["format"] == "ab"]
    # 18 tests and the four runs of the background log; the -g logs are their processes' own (counted once)
    assert len(ab) == 22 and ab["series"].nunique() == 1
    assert sorted(ab.groupby("concurrency").size().items()) == [(4, 4), (8, 6), (16, 6), (32, 6)]
    v = st.verdicts.iloc[0]
    assert v["runs"] == 22 and v["loads"] == 4
    assert "12 of its 22 runs are tests of several processes at once, each judged as one run" in v["evidence"]
    # the processes stay, as detail: 6 x (1 + 2 + 4) = 42, each with its own error share and test
    p = st.processes
    assert len(p) == 42 and set(p["test"]) == set(st.tests["test"]) and (p["error_share"] == 0).all()
    assert (p.groupby("test")["process"].max() == p.groupby("test")["processes"].first()).all()  # the manifest's
    assert set(p["test_row"]) <= set(st.runs.index)


def test_the_combined_rate_is_what_one_process_at_the_same_total_gives(st):
    # A closed loop through a 50 ms service: the rate is the connections over the time per request (Little's law),
    # however many processes hold them; the time per request is measured (ab's Connection Times, weighted).
    runs = st.runs[(st.runs["format"] == "ab") & st.runs["test"].notna()]
    little = runs["concurrency"] / runs["latency_used_s"]
    assert np.allclose(runs["requests_per_s"], little, rtol=0.05)
    assert (runs["latency_used_s"] >= 0.050).all()  # never faster than the service time
    # beside each test of two or four processes, the one process at the same total in the same repeat
    t = st.tests.merge(MANIFEST.groupby("test")["file"].first().str.extract(r"_r(\d)_")[0].rename("repeat"),
                       left_on="test", right_index=True)  # fmt: skip
    one = t[t["processes"] == 1].set_index(["load", "repeat"])["requests_per_s"]
    several = t[t["processes"] > 1]
    ratio = (
        several["requests_per_s"].to_numpy()
        / one.loc[list(zip(several["load"], several["repeat"], strict=True))].to_numpy()
    )
    # a shared 2-core machine moves single tests by up to a quarter; the middle of the twelve holds at 1
    assert abs(np.median(ratio) - 1) < 0.1 and (abs(ratio - 1) < 0.3).all()


def test_percentiles_are_merged_from_the_per_request_logs_never_averaged(st):
    t = st.tests.set_index("test")
    logged = t[t["load"] == 16]
    assert len(logged) == 6
    for name, row in logged.iterrows():
        files = MANIFEST.loc[MANIFEST["test"] == name, "file"].str.replace(".txt", ".tsv")
        ttime = np.concatenate([pd.read_csv(PAR / f, sep="\t")["ttime"].to_numpy(float) / 1e3 for f in files])
        assert row["percentiles_basis"] == f"merged from {len(files)} per-request logs ({len(ttime):,} requests)"
        assert [row["latency_p50_s"], row["latency_p90_s"], row["latency_p99_s"]] == pytest.approx(
            np.percentile(ttime, [50, 90, 99])
        )
    # without a log, what each process printed stays per process
    other = t[(t["load"] != 16) & (t["processes"] > 1)]
    assert other["latency_p99_s"].isna().all()
    assert (other["percentiles_basis"] == "printed per process only (not merged)").all()


def test_tests_are_found_from_overlapping_manifest_times_without_a_test_column(ds):
    m = MANIFEST.drop(columns="test").assign(_dir=str(PAR.resolve()))
    found = study(lbanalysis.read(PAR, table="all", manifest=m)).tests
    # the same 12 tests of several processes (the single ones overlap nothing: they are no test)
    assert len(found) == 12 and set(found["processes"]) == {2, 4}
    assert found["test_basis"].eq("overlapping times: start and end times (manifest)").all()
    declared = MANIFEST[MANIFEST["processes"] > 1].groupby("test")["file"].apply(frozenset)
    got = found["sources"].map(lambda s: frozenset(s.split(", ")))
    assert set(got) == set(declared)


def test_tests_are_found_from_the_per_request_logs_without_a_manifest():
    found = study(lbanalysis.read(PAR, table="all", manifest=False)).tests
    # only the tests at 16 connections wrote -g logs: their 2 + 2 tests of two and four processes
    assert sorted(found["processes"]) == [2, 2, 4, 4]
    assert found["test_basis"].eq("overlapping times: per-request log").all()
    assert (found["load"] == 16).all()


def test_four_ab_in_the_background_into_one_log_stay_four_runs_and_a_note_says_why(ds, st):
    log = st.runs[st.runs["source"].astype(str).str.endswith("ab_background.log")]
    assert len(log) == 4 and log["test"].isna().all() and (log["concurrency"] == 4).all()
    assert (log["requests"] == 300).all()
    assert "ab_background.log: its 4 runs show neither a command line nor a start or end time, so whether they " \
        "ran at the same time (processes started in the background into one log) cannot be told" in \
        st.verdicts.iloc[0]["evidence"]  # fmt: skip
    assert par.windows(ds.runs[ds.runs["source"].astype(str).str.endswith(".log")])["start"].isna().all()


def test_one_slow_process_drags_a_test_and_is_named():
    runs = pd.DataFrame({"source": ["x/a.txt", "x/b.txt"], "run": 0, "tool": "ab", "url": "http://h/",
                         "test": "t1", "concurrency": [10, 10], "requests": [5000, 2000], "failed": 0,
                         "duration_s": [5.0, 5.1], "requests_per_s": [1000.0, 392.2]})  # fmt: skip
    one, processes = par.fold(runs)
    assert one.iloc[0]["requests_per_s"] == pytest.approx(1392.2) and one.iloc[0]["concurrency"] == 20
    assert "its slowest process (b.txt) gave 61% less per connection than its fastest" in one.iloc[0]["test_note"]
    assert processes["spread"].iloc[0] == pytest.approx((100 - 39.22) / ((100 + 39.22) / 2))


def test_durations_that_differ_are_said_and_a_process_missing_a_count_leaves_it_empty():
    runs = pd.DataFrame({"source": ["x/a", "x/b"], "run": 0, "tool": "ab", "url": "http://h/", "test": 7,
                         "concurrency": [5, 5], "requests": [500, 400], "failed": [0, None],
                         "duration_s": [5.0, 4.0], "requests_per_s": [100.0, 100.0]})  # fmt: skip
    one, _ = par.fold(runs)
    assert "ran 4 to 5 s (more than 10% apart)" in one.iloc[0]["test_note"]
    assert pd.isna(one.iloc[0]["failed"])  # what one process does not show stays empty, never a partial sum


def test_a_test_value_names_a_test_within_its_folder_and_other_tools_never_fold():
    runs = pd.DataFrame({"source": ["p2/rep-1/a", "p2/rep-1/b", "p3/rep-1/a"], "run": 0, "tool": "ab",
                         "url": "http://h/", "test": "rep-1", "requests": 10})  # fmt: skip
    ident = par.identify(runs)
    assert ident["test"].tolist() == ["p2/rep-1", "p2/rep-1", "p3/rep-1"]
    iperf = pd.DataFrame({"source": ["d/client", "d/server"], "run": 0, "tool": "iperf3", "host": "10.0.0.1",
                          "timestamp": pd.to_datetime(["2026-01-01 10:00:00"] * 2), "duration_s": 10.0})  # fmt: skip
    assert par.identify(iperf)["test"].isna().all()  # a client and its server: one measurement, not processes


def test_tests_of_is_the_study_table(ds, st):
    pd.testing.assert_frame_equal(lbanalysis.analysis.tests_of(ds), st.tests)
    assert Path(PAR / "COMMANDS.md").read_text().count("ab -c") >= 42


def test_summary_lists_a_test_as_one_line_with_its_sums_and_no_borrowed_percentile(ds, st):
    from lbanalysis.analysis.tests import per_test_percentiles, with_tests
    from lbanalysis.cli import summary_table

    table = summary_table(with_tests(ds.runs, st), percentiles=per_test_percentiles(st, ds.percentiles), study=st)
    rows = table[table["label / command"].str.startswith("test=")].set_index("label / command")
    assert len(rows) == 18
    t = st.tests.set_index("test")
    assert rows.loc["test=t09 processes=4", "req/s"] == f"{t.loc['t09', 'requests_per_s']:.1f}"
    assert rows.loc["test=t09 processes=4", "conc"] == "32" and rows.loc["test=t09 processes=4", "p99 ms"] == ""
    assert rows.loc["test=t05 processes=2", "p99 ms"] == f"{t.loc['t05', 'latency_p99_s'] * 1e3:.2f}"  # merged
    assert (rows["verdict"] == "no bound reached").all()


def test_compare_counts_tests_not_processes(ds):
    from lbanalysis.cli import compare_table

    runs = ds.runs.assign(repeat=ds.runs["source"].astype(str).str.extract(r"_r(\d)_")[0])
    table = compare_table(runs.dropna(subset=["repeat"]), "repeat", "1", "2")
    rate = table[table["metric"] == "req/s"].iloc[0]
    assert rate["n_a"] == 9 and rate["n_b"] == 9  # 9 tests a side (21 processes)


def test_explore_appendix_lists_the_tests_and_their_processes(ds, st):
    from lbanalysis.report import explore as ex

    text = str(ex.read_summary(ds, st))
    assert "12 tests of several load-generator processes run at once, each judged as one run above" in text
    assert "Their processes, each as it printed:" in text


def test_an_interrupted_parallel_sweep_reads_and_says_what_is_missing():
    # the sweep's manifest says two processes per test; one output of t2 was never written
    runs = pd.DataFrame({"source": ["s/t1-p1.txt", "s/t1-p2.txt", "s/t2-p1.txt"], "run": 0, "tool": "ab",
                         "url": "http://h/", "test": ["t1", "t1", "t2"], "processes": 2, "process": [1, 2, 1],
                         "concurrency": 5, "requests": 500, "failed": 0, "duration_s": 5.0,
                         "requests_per_s": 100.0})  # fmt: skip
    one, processes = par.fold(runs)
    assert one.set_index("test")["processes"].to_dict() == {"t1": 2, "t2": 1}
    assert (
        one.set_index("test").loc["t2", "test_note"] == "test t2: 1 of its 2 processes read (the others left no output)"
    )
    assert one.set_index("test").loc["t1", "requests_per_s"] == 200.0 and processes["process"].tolist() == [1, 2, 1]
