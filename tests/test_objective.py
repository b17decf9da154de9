"""Objectives, capacity at an objective per series, and the `check` gate, on committed outputs.

Every value asserted is computed here from the files (the percentiles ab printed, its per-request log), not
copied from what the code under test returns.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

import lbanalysis
from articles import paths
from lbanalysis.analysis.engine import study
from lbanalysis.analysis.objective import Objective, ObjectiveError, run_values
from lbanalysis.analysis.slo import CAPACITY_COLUMNS, STATUSES
from lbanalysis.cli import main

from .conftest import FIXTURES

HEALTHY = FIXTURES / "scenarios" / "healthy" / "ab"  # ab -c 1, 2, 4, 6, 8, three runs each
SIEGE = FIXTURES / "scenarios" / "loadgen" / "siege"


# ------------------------------------------------------------ objectives ---
@pytest.mark.parametrize(
    ("text", "clauses"),
    [
        ("p99 <= 50ms, errors <= 1%", [("p99", "<=", 0.05), ("share", "<=", 0.01)]),
        ("p95<0.2s and mean<=80 ms", [("p95", "<", 0.2), ("mean", "<=", 0.08)]),
        ("p99.9 ≤ 250us; max <= 2s", [("p99.9", "<=", 0.00025), ("max", "<=", 2.0)]),
        ("rps >= 1k, errors <= 0.005", [("rps", ">=", 1000.0), ("share", "<=", 0.005)]),
        ("median <= 10ms", [("p50", "<=", 0.01)]),
    ],
)
def test_objective_reads_its_clauses(text, clauses):
    o = Objective(text)
    assert [(c.stat, c.op, c.limit) for c in o.clauses] == [(s, op, pytest.approx(v)) for s, op, v in clauses]
    assert Objective(str(o)) == o  # its text reads back as the same objective


def test_objective_from_keywords_and_top_level_name():
    assert lbanalysis.Objective(p99="50ms", errors="1%") == Objective("p99 <= 50ms, errors <= 1%")
    assert str(Objective(p99_9=0.2, rps=500)) == "p99.9 <= 0.2s, rps >= 500"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("p99 >= 50ms", "latency is a ceiling"),
        ("rps <= 100", "rps is a floor"),
        ("errors <= 150%", "between 0 and 100 %"),
        ("p99 <= 50 parsecs", "a latency is in us, ms or s, not 'parsecs'"),
        ("p99 <= fast", "not an objective clause"),
        ("p0 <= 1ms", "above 0 and at most 100"),
        ("speed <= 1ms", "unknown objective name 'speed'"),
        ("", "at least one clause"),
    ],
)
def test_objective_refuses_what_it_cannot_read(text, says):
    with pytest.raises(ObjectiveError, match=says):
        Objective(text)


# ------------------------------------------------------------ run values ---
def test_a_printed_percentile_is_the_tools_and_one_not_printed_is_not_guessed():
    ds = lbanalysis.read(HEALTHY, table="all")
    st = study(ds)
    values, why = run_values(st.runs, Objective("p99 <= 50ms, p99.9 <= 50ms"), percentiles=ds.percentiles)
    printed = ds.percentiles[ds.percentiles["percentile"] == 99.0]
    keys = zip(printed["source"].astype(str), printed["run"], strict=True)
    key = dict(zip(keys, printed["latency_s"], strict=True))
    mine = [key[(str(s), r)] for s, r in zip(st.runs["source"], st.runs["run"], strict=True)]
    assert values["p99 <= 50ms"].tolist() == mine
    shown = sorted(set(ds.percentiles["percentile"]))
    assert shown == [50.0, 66.0, 75.0, 80.0, 90.0, 95.0, 98.0, 99.0, 100.0]
    assert values["p99.9 <= 50ms"].isna().all()
    assert set(why["p99.9 <= 50ms"]) == {
        "ab printed the percentiles 50, 66, 75, 80, 90, 95, 98, 99, 100 %, not 99.9, and no per-request log was read"
    }


def test_a_percentile_not_printed_comes_from_the_per_request_log_of_the_run():
    files = [FIXTURES / "ab" / "ab_gnuplot.txt", FIXTURES / "ab" / "ab_gnuplot.tsv"]
    ds = lbanalysis.read(files, table="all")
    st = study(ds)
    values, why = run_values(st.runs, Objective("p99.9 <= 1s"), percentiles=ds.percentiles, requests=ds.requests)
    summary = st.runs.index[st.runs["twin_of"].isna()][0]
    ttime = np.sort(ds.requests["latency_s"].to_numpy(float))
    assert values.loc[summary, "p99.9 <= 1s"] == ttime[math.ceil(0.999 * len(ttime)) - 1]  # nearest rank
    assert why.loc[summary, "p99.9 <= 1s"] == "nearest rank of the per-request log"


def test_siege_and_wrk_without_latency_cannot_be_judged_on_a_percentile():
    for path, said in [(SIEGE, "siege prints no percentiles"), (FIXTURES / "wrk" / "wrk_basic.txt",
                                                               "wrk prints percentiles only with --latency")]:  # fmt: skip
        ds = lbanalysis.read(path, table="all")
        values, why = run_values(study(ds).runs, Objective("p99 <= 1s, mean <= 1s"), percentiles=ds.percentiles)
        assert values["p99 <= 1s"].isna().all() and set(why["p99 <= 1s"]) == {
            f"{said} and no per-request log or histogram was read: p99 is not guessed"
        }
        assert values["mean <= 1s"].notna().all()  # the mean they print is judged
    wrk = lbanalysis.read(FIXTURES / "wrk" / "wrk_basic.txt")
    assert values["mean <= 1s"].tolist() == wrk["latency_mean_s"].tolist() == [pytest.approx(0.01910)]  # 19.10ms


# -------------------------------------------------------------- capacity ---
def _mean_p99_per_load(ds: lbanalysis.Dataset) -> pd.Series:
    p99 = ds.percentiles[ds.percentiles["percentile"] == 99.0].astype({"source": str})
    runs = ds.runs.astype({"source": str})[["source", "run", "concurrency"]]
    return p99.merge(runs, on=["source", "run"]).groupby("concurrency")["latency_s"].mean()


def test_capacity_crosses_where_the_mean_p99_of_the_repeats_passes_the_limit():
    ds = lbanalysis.read(HEALTHY, table="all")
    st = study(ds, objective="p99 <= 30ms, errors <= 1%")
    cap = st.capacity()
    assert list(cap.columns) == list(CAPACITY_COLUMNS)
    row = cap.iloc[0]
    per_load = _mean_p99_per_load(ds)  # 1: 19 ms, 2: 23.7 ms, 4: 56.7 ms (one run of 123 ms), 6, 8 below 30 ms
    first_fail = per_load.index[per_load > 0.03].min()
    met = per_load.index[per_load.index < first_fail].max()
    assert (row["status"], row["met_load"], row["failed_load"]) == ("crossed", met, first_fail)
    assert row["failed_clause"] == "p99 <= 30ms" and row["load"] == "concurrency"
    m0, m1 = per_load[met] / 0.03 - 1, per_load[first_fail] / 0.03 - 1
    assert row["capacity_load"] == pytest.approx(met + m0 / (m0 - m1) * (first_fail - met))
    x = ds.runs.groupby("concurrency")["requests_per_s"].mean()
    t = (row["capacity_load"] - met) / (first_fail - met)
    assert row["capacity_requests_per_s"] == pytest.approx(x[met] + t * (x[first_fail] - x[met]))
    assert met <= row["lower"] <= row["capacity_load"] <= row["upper"] <= first_fail  # three runs a side
    assert "met again at concurrency 6, 8 past the failure" in row["evidence"]
    assert row["verdict"] and "What bounds it (up to concurrency 4)" in row["evidence"]
    assert st.objective == Objective("p99 <= 30ms, errors <= 1%")


def test_capacity_says_met_everywhere_failed_at_once_or_cannot_judge():
    ds = lbanalysis.read(HEALTHY, table="all")
    top = study(ds).capacity("p99 <= 1s").iloc[0]
    assert (top["status"], top["met_load"]) == ("met at every load", 8.0) and math.isnan(top["capacity_load"])
    low = study(ds).capacity("mean <= 1ms").iloc[0]
    assert (low["status"], low["failed_load"], low["failed_clause"]) == (
        "failed at the lowest load",
        1.0,
        "mean <= 1ms",
    )
    siege = study(lbanalysis.read(SIEGE, table="all"), objective="p99 <= 1s").capacity().iloc[0]
    assert siege["status"] == "cannot judge" and "siege prints no percentiles" in siege["evidence"]
    assert {top["status"], low["status"], siege["status"]} < set(STATUSES)


def test_too_few_runs_a_side_gives_no_interval():
    runs = lbanalysis.read(HEALTHY)
    two = runs.groupby("concurrency").head(2)  # two runs at each load
    row = study(two, objective="mean <= 13ms").capacity().iloc[0]
    assert row["status"] == "crossed" and math.isnan(row["lower"]) and math.isnan(row["upper"])
    assert "too few runs to tell its interval (2 at" in row["evidence"]


def test_along_a_scale_factor_the_capacity_is_the_fewest_that_meet():
    """At a fixed load, more servers is easier: the answer is how many servers meet the objective."""
    runs = pd.DataFrame({"tool": "ab", "host": "lb", "concurrency": 100, "servers": [1, 2, 3, 4] * 3,
                         "requests_per_s": [1000.0, 1900, 2700, 3400] * 3,
                         "latency_mean_s": [0.100, 0.052, 0.037, 0.029] * 3, "requests": 10000, "failed": 0,
                         "duration_s": 10.0})  # fmt: skip
    row = study(runs, load="servers", objective="mean <= 40ms").capacity().iloc[0]
    assert (row["load"], row["status"], row["met_load"], row["failed_load"]) == ("servers", "crossed", 3, 2)
    m0, m1 = 0.037 / 0.04 - 1, 0.052 / 0.04 - 1
    assert row["capacity_load"] == pytest.approx(3 + m0 / (m0 - m1) * (2 - 3))
    assert "What bounds it (down to servers 2)" in row["evidence"]


def test_ab_excerpts_are_judged_on_the_mean_ab_prints_concurrency_over_rate():
    """Article 000 quotes only ab's rate: its Time per request is concurrency / rate (Little's law)."""
    runs = lbanalysis.read(paths.raw("haproxy-wordpress-ab"))
    apache = runs[runs["target"] == "apache"]
    values, why = run_values(apache, Objective("mean <= 10ms"))
    assert values["mean <= 10ms"].tolist() == (apache["concurrency"] / apache["requests_per_s"]).tolist()
    assert set(why["mean <= 10ms"]) == {
        "concurrency / requests per second (Little's law: what ab prints as its Time per request)"
    }


# ----------------------------------------------------------------- check ---
def test_check_exit_status_junit_and_markdown(tmp_path, capsys):
    junit = tmp_path / "check.xml"
    assert main(["check", str(HEALTHY), "--objective", "p99 <= 30ms, errors <= 1%", "--junit", str(junit)]) == 1
    root = ET.parse(junit).getroot()
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    assert [name for _, name in cases] == ["p99 <= 30ms", "errors <= 1%"]
    assert root.get("tests") == "2" and root.get("failures") == "1" and root.get("errors") == "0"
    failed = next(iter(cases.values()))
    worst = _mean_p99_per_load(lbanalysis.read(HEALTHY, table="all")).max()
    assert f"p99 {worst * 1e3:.3g} ms" in failed.find("failure").get("message")
    assert main(["check", str(HEALTHY), "--objective", "p99 <= 1s, errors <= 1%"]) == 0
    assert main(["check", str(SIEGE), "--objective", "p99 <= 1s"]) == 2  # siege prints no percentiles
    capsys.readouterr()
    assert main(["check", str(HEALTHY), "--objective", "p99 <= 1s", "--baseline", str(HEALTHY),
                 "--format", "markdown"]) == 0  # fmt: skip
    shown = capsys.readouterr().out
    assert shown.startswith("### lbanalysis check: passed\n\nObjective: `p99 <= 1s` (3 met, 0 failed, 0 cannot judge)")
    assert "req/s against the baseline" in shown and "current/baseline = 1.000" in shown
    assert main(["check", str(HEALTHY), "--objective", "p99 <= fast"]) == 2
    capsys.readouterr()
    assert main(["check", str(FIXTURES / "iperf3"), "--objective", "p99 <= 1s"]) == 2
    assert "no HTTP load-test series to judge against p99 <= 1s" in capsys.readouterr().err


def test_sweep_search_needs_an_objective_and_a_plain_sweep_its_loads(tmp_path):
    url = "http://127.0.0.1:9/"
    assert main(["sweep", "ab", url, "--search", "--duration", "2s", "-o", str(tmp_path / "a")]) == 2
    assert main(["sweep", "ab", url, "--duration", "2s", "-o", str(tmp_path / "b")]) == 2
    assert main(["sweep", "ab", url, "--objective", "p99 <= 1s", "--search", "--repeat", "2", "--duration", "2s",
                 "-o", str(tmp_path / "c")]) == 2  # fmt: skip
    assert not any(tmp_path.iterdir())  # refused before anything ran


# ---------------------------------------------------------------- search ---
def _table(rows: list[tuple[float, int, bool]]) -> pd.DataFrame:
    """A load table as the search reads it: (level, runs, met)."""
    return pd.DataFrame([{"series": "s", "load": "concurrency", "level": lv, "runs": n, "requests_per_s": 100.0 * lv,
                          "met": met, "failed_clause": "" if met else "p99 <= 50ms", "values": "", "why": ""}
                         for lv, n, met in rows])  # fmt: skip


def test_search_steps_double_bisect_repeat_confirm_and_stop():
    from lbanalysis.sweep.search import _decide, _Plan

    plan = _Plan("p99 <= 50ms", first=2, share=0.05, max_runs=20, time_limit=60, max_load=None, repeats=3)
    assert _decide(_table([(2, 1, True)]), plan)[:2] == ("doubling", 4)
    assert _decide(_table([(2, 1, True), (4, 1, True), (8, 1, False)]), plan)[:2] == ("bisection", 6)
    bracket = [(2, 1, True), (4, 1, True), (5, 1, False), (6, 1, False), (8, 1, False)]
    step, load, why = _decide(_table(bracket), plan)
    assert (step, load) == ("repeat", 4) and why == "at the boundary between 4 (met) and 5 (failed): run 2 of 3 at 4"
    full = [(2, 1, True), (4, 3, True), (5, 3, False), (6, 1, False)]
    assert _decide(_table(full), plan)[:2] == ("confirmation", 4)
    assert _decide(_table(full), plan)[0] == ""  # confirmed once: done
    assert (
        _decide(_table([(2, 1, False)]), plan)[2] == "p99 <= 50ms failed at the first load, 2: start lower (--loads N)"
    )
    capped = _Plan("p99 <= 50ms", first=2, share=0.05, max_runs=20, time_limit=60, max_load=6, repeats=3)
    assert _decide(_table([(2, 1, True), (4, 1, True)]), capped)[:2] == ("doubling", 6)
    assert _decide(_table([(2, 1, True), (6, 1, True)]), capped)[2] == (
        "p99 <= 50ms met at --max-load 6: the capacity is above it"
    )


def test_a_throughput_floor_starts_the_walk_where_it_is_reached():
    """rps >= N: a load too light to give N is not a failure of the objective; no load reaching it is."""
    runs = lbanalysis.read(HEALTHY)
    x = runs.groupby("concurrency")["requests_per_s"].mean()  # 1: 83.5, 2: 152.5, 4: 302, 6: 459, 8: 552
    st = study(runs)
    floor = round(float(x[2]) + 1)  # reached from concurrency 4 on
    row = st.capacity(f"rps >= {floor}, mean <= 1s").iloc[0]
    assert row["status"] == "met at every load" and row["met_load"] == 8
    assert "below concurrency 4 the throughput floor is not reached yet" in row["evidence"]
    never = st.capacity(f"rps >= {round(float(x.max()) + 1)}").iloc[0]
    assert (never["status"], never["failed_clause"]) == ("failed at the lowest load", f"rps >= {round(x.max() + 1)}")
    assert f"the most: {x.max():,.0f} requests/s at 8" in never["evidence"]
    gate = st.clauses(f"rps >= {floor}").iloc[0]
    assert (gate["status"], gate["worst_load"], gate["value"]) == ("met", 8, x[8])
