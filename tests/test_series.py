"""Series (comparable runs), fits only within them, and a verdict per series with its evidence."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.analysis.rules import NOT_RULED_OUT
from lbanalysis.analysis.series import assign_series, fit_series, series_table
from lbanalysis.analysis.verdict import verdicts

from .conftest import FIXTURES, corpus

AB = FIXTURES / "ab"


def test_captured_runs_against_one_server_form_one_series():
    runs = lbanalysis.read([AB / n for n in ("ab_c1.txt", "ab_c10.txt", "ab_c50.txt", "ab_keepalive.txt")])
    names = assign_series(runs)
    # same tool, host, port and path: -c 1, 10 and 50 are one series; keep-alive is another test
    assert names.tolist() == ["ab 127.0.0.1:18080/"] * 3 + ["ab 127.0.0.1:18080/ keep-alive"]
    table = series_table(runs).set_index("series")
    assert table.loc["ab 127.0.0.1:18080/", "loads"] == 3
    assert table.loc["ab 127.0.0.1:18080/", "enough for"] == "linear, knee"
    assert assign_series(runs, by="tool").tolist() == ["ab"] * 4


def test_runs_of_unknown_targets_are_never_pooled_across_files():
    runs = lbanalysis.read(corpus("public", "siege"), errors="skip")
    names = assign_series(runs)
    per_file = pd.DataFrame({"source": runs["source"], "series": names}).groupby("series")["source"].nunique()
    assert (per_file == 1).all() and len(per_file) == runs["source"].nunique()


def test_fits_only_where_they_hold():
    runs = pd.DataFrame({"tool": "ab", "host": "h", "concurrency": [1, 2, 4, 8, 16, 32],
                         "requests_per_s": [100.0, 190, 345, 580, 880, 1000]})  # fmt: skip
    table, fits = fit_series(runs, model="usl")
    assert table.loc[0, "fitted"] and list(fits) == ["ab h"] and table.loc[0, "r2"] > 0.99
    noise = runs.assign(requests_per_s=[500.0, 90, 700, 120, 650, 100])
    table, fits = fit_series(noise, model="usl")
    assert not fits and table.loc[0, "verdict"].startswith("no model fits these points (R² ")


def test_error_verdict_names_its_share_and_threshold():
    runs = lbanalysis.read([AB / "ab_non2xx_503.txt"])
    v = verdicts(runs)
    assert v.loc[0, "verdict"] == "errors"
    assert v.loc[0, "evidence"].startswith(
        "at concurrency 2, 100.0% of the attempts failed or were not 2xx (100 of 100 completed requests; threshold 1%)"
    )
    assert verdicts(runs, error_share=1.0).loc[0, "verdict"] != "errors"  # a parameter, not a constant


def test_impossible_utilisation_is_a_capacity_mismatch_not_a_network_verdict():
    runs = lbanalysis.read([AB / "ab_10k_body.txt"])
    v = verdicts(runs, capacity="10 Mbit/s")
    assert v.loc[0, "verdict"] == "capacity mismatch" and v.loc[0, "utilisation"] > 1
    assert "against 10 Mbit/s for its path (given: 10 Mbit/s)" in v.loc[0, "evidence"]
    wire = v.loc[0, "utilisation"] * 10e6
    v = verdicts(runs, capacity=wire / 0.9)  # a path that the run fills to 90 %
    assert v.loc[0, "verdict"] == "network" and ": 90% (threshold 80%)" in v.loc[0, "evidence"]
    # a capacity measured for another host applies to nothing
    assert verdicts(runs, capacity={"lb.example": "10 Mbit/s"}).loc[0, "verdict"] == "cannot tell"


def test_load_generator_verdict_from_littles_law():
    runs = lbanalysis.read(corpus("public", "siege", "ZadokhinDima__siege_testing__siege.out"))
    v = verdicts(runs)
    row = v.iloc[0]
    assert row["verdict"] == "load generator"
    top = runs.loc[runs["concurrency"] == runs["concurrency"].max()]
    in_flight = (top["requests_per_s"] * top["latency_mean_s"]).mean()
    assert f"throughput × latency = {in_flight:.1f} requests in flight (" in row["evidence"]
    # siege printed the mean to 10 ms; even at either end of that step the clients were idle
    assert "with the mean latency printed to 10 ms), 2% of the 100 asked" in row["evidence"]
    # siege's output does not show a delay set in .siegerc: the evidence says it may be that
    assert "the client did not keep its connections busy, or a delay between requests set in .siegerc, which " \
           "siege's output does not show" in row["evidence"]  # fmt: skip
    # ... so the share of each iteration spent waiting is unknown: no high confidence (#38)
    assert row["confidence"] == "low" and row["evidence"].endswith("idle clients cannot be told from think time")
    # siege -d 0.5 waits 0.25 s on average: the users busy in their iterations, waits included, are still half
    told = verdicts(runs.assign(delay_s=0.5, think_time_s=0.25, think_time_source="siege -d 0.5")).iloc[0]
    assert "throughput × (latency + the wait asked, 0.25 s (siege -d 0.5)) = 50.1 users busy" in told["evidence"]
    bench = verdicts(runs.assign(benchmark_mode=True)).iloc[0]  # siege -b: no delay, so no such doubt
    assert bench["evidence"].endswith("the client did not keep its connections busy")


def test_a_latency_printed_as_zero_is_no_evidence_of_an_idle_client():
    # siege prints "Response time: 0.00 secs" for a mean under 5 ms: Little's law cannot be applied
    runs = lbanalysis.read([FIXTURES / "stall" / "siege_stall_verbose.txt"])
    assert runs.loc[0, "latency_mean_s"] == 0 and runs.loc[0, "concurrency"] == 4
    assert runs.loc[0, "latency_mean_step_s"] == 0.01  # printed to 10 ms: the true mean is below 5 ms
    row = verdicts(runs).iloc[0]
    assert row["verdict"] == "cannot tell"
    assert row["evidence"].startswith(
        "at concurrency 4, throughput × latency = 0.0 requests in flight, but with the mean latency printed to "
        "10 ms anything from 0.0 to 5.2: too coarse to tell whether the 4 clients were busy (threshold 80%)"
    )
    # where the step is not known, a mean printed as 0 is no figure at all
    row = verdicts(runs.drop(columns="latency_mean_step_s"), min_duration_s=0).iloc[0]
    assert row["verdict"] == "cannot tell"
    assert row["evidence"].endswith("mean latency printed as 0 (below the tool's printed resolution): "
                                    f"requests in flight cannot be computed; {NOT_RULED_OUT}")  # fmt: skip
    # with its true mean (about 4 ms: 1,034 req/s x 4 ms = 4 in flight for 4 asked) the client was busy
    row = verdicts(runs.assign(latency_mean_s=0.004, latency_mean_step_s=0.0001), min_duration_s=0).iloc[0]
    assert row["evidence"] == f"1 load only: a bound needs at least 3 to show; {NOT_RULED_OUT}"
    row = verdicts(runs.assign(latency_mean_s=0.001, latency_mean_step_s=float("nan")), min_duration_s=0).iloc[0]
    assert row["verdict"] == "load generator" and "throughput × latency = 1.0 requests in flight" in row["evidence"]


def test_a_fixed_rate_run_is_no_load_generator_verdict():
    runs = lbanalysis.read([FIXTURES / "wrk" / "wrk2_rate_spectrum.txt"])
    assert runs.loc[0, "rate_target_per_s"] == 2000 and runs.loc[0, "concurrency"] == 100
    row = verdicts(runs).iloc[0]  # 2,000 req/s x 6.6 ms = 13 in flight of 100 connections: by design
    assert row["verdict"] == "cannot tell"
    assert row["evidence"].endswith(
        "at concurrency 100 the tool was asked for a fixed 2,000 requests/s (open loop) and gave 2,000 (100%): "
        "connections idle between requests are no sign of a client that could not keep up"
    )
    closed = verdicts(runs.assign(rate_target_per_s=float("nan"))).iloc[0]  # the same figures from plain wrk
    assert closed["verdict"] == "load generator"


@pytest.mark.parametrize("model", ["usl"])
def test_one_load_says_so(model):
    v = verdicts(lbanalysis.read([AB / "ab_c10.txt"]), min_duration_s=0)
    assert (v.loc[0, "verdict"], v.loc[0, "evidence"]) == (
        "cannot tell",
        f"1 load only: a bound needs at least 3 to show; {NOT_RULED_OUT}",  # no CPU figure for ab either
    )


def test_capacity_from_a_manifest_column(tmp_path):
    from lbanalysis.report import explore

    shutil.copy(AB / "ab_10k_body.txt", tmp_path / "big.txt")
    shutil.copy(AB / "ab_c10.txt", tmp_path / "small.txt")
    (tmp_path / "manifest.csv").write_text("file,capacity\nbig.txt,10 Mbit/s\nsmall.txt,1 Gbit/s\n")
    runs = lbanalysis.read(tmp_path)
    v = verdicts(runs).set_index("series")
    assert sorted(v["verdict"]) == ["cannot tell", "capacity mismatch"]
    assert (v["verdict"] == "capacity mismatch").sum() == 1
    s = explore.network_section(explore.load(tmp_path))
    assert s.text[0].startswith("Capacity given per run by the `capacity` column (manifest)")
    table = s.tables[-1].set_index("source")
    assert table.loc["big.txt", "capacity Mbit/s"] == 10.0 and table.loc["small.txt", "capacity Mbit/s"] == 1000.0
