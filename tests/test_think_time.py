"""Think time is no client bound (issue #38): a closed model whose clients wait between requests keeps few requests
in flight by design. Where the iteration is known (k6's iterations/s × iteration_duration, or throughput × (latency
+ the wait a script or a command asks)), the users busy in their iterations are compared to the load; where a wait
is possible but unknown, the load-generator rule says so at low confidence."""

from __future__ import annotations

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.analysis import rules
from lbanalysis.scripts import script_named, think_time
from tests.conftest import FIXTURES

#: The k6 run of issue #38: 20,000 VUs whose script sleeps 6 s per iteration, as it printed
#: (http_reqs 18,992/s, http_req_duration avg=36.79ms, iteration_duration avg=6.26s, iterations 3,165/s).
ISSUE_K6 = {"concurrency": 20000, "requests_per_s": 18992.0, "latency_mean_s": 0.03679, "iterations_per_s": 3165.0,
            "iteration_mean_s": 6.26}  # fmt: skip


def _k6(**figures: float) -> pd.DataFrame:
    """One k6 run against one target, 60 s long, with the figures given (no error)."""
    row = {"tool": "k6", "url": "http://web:80/", "host": "web", "port": 80, "path": "/", "duration_s": 60.0,
           "failed": 0, "failed_network": 0, "source": "lab/k6.txt", "line": 1, "run": 0, **figures}  # fmt: skip
    row["requests"] = row["requests_ok"] = round(row["requests_per_s"] * 60)
    return pd.DataFrame([row])


def test_the_issue_k6_run_kept_every_vu_busy_so_it_is_no_client_bound():
    """3,165 iterations/s × 6.26 s = 19,813 VUs busy of the 20,000: the client kept its VUs. It said "load generator
    (high): throughput × latency = 698.7 requests in flight, 3 % of the 20,000 asked"."""
    v = lbanalysis.study(_k6(**ISSUE_K6)).verdicts.iloc[0]
    assert v["verdict"] != "load generator", v["evidence"]
    assert "698.7 requests in flight" not in v["evidence"]


def test_the_same_run_without_its_iteration_figures_is_a_client_bound_of_low_confidence_only():
    figures = {k: v for k, v in ISSUE_K6.items() if not k.startswith("iteration")}
    v = lbanalysis.study(_k6(**figures)).verdicts.iloc[0]
    assert (v["verdict"], v["confidence"]) == ("load generator", "low"), v["evidence"]
    assert "698.7 requests in flight, 3% of the 20000 asked" in v["evidence"]
    assert "or a sleep() in its script" in v["evidence"]
    assert "the share of each iteration spent waiting is unknown" in v["evidence"]


def test_iterations_that_do_not_fill_the_vus_are_a_client_bound_of_high_confidence():
    """The same requests, but iterations of 2 s at 3,165/s: 6,330 VUs busy of 20,000 (32 %)."""
    v = lbanalysis.study(_k6(**{**ISSUE_K6, "iteration_mean_s": 2.0})).verdicts.iloc[0]
    assert (v["verdict"], v["confidence"]) == ("load generator", "high"), v["evidence"]
    assert "iterations/s × iteration duration = 3,165 × 2 s = 6330.0 users busy in their iterations" in v["evidence"]


def test_a_tool_with_no_hidden_wait_keeps_its_high_confidence():
    """wrk cannot be told to wait: few requests in flight are a client that did not keep its connections busy."""
    runs = _k6(**{k: v for k, v in ISSUE_K6.items() if not k.startswith("iteration")}).assign(tool="wrk")
    v = lbanalysis.study(runs).verdicts.iloc[0]
    assert (v["verdict"], v["confidence"]) == ("load generator", "high"), v["evidence"]
    assert v["evidence"].endswith("(below 80%): the client did not keep its connections busy")


def test_the_rule_reads_the_busy_users_from_the_iteration_first():
    loads = pd.DataFrame({"x": [18992.0], "r": [0.03679], "step": [0.0], "think": [None], "iter_rate": [3165.0],
                          "iter_s": [6.26]}, index=pd.Index([20000.0], name="load"))  # fmt: skip
    e = rules.Evidence(load="concurrency", loads=loads, errors=pd.DataFrame(), tool="k6")
    busy = rules._busy_users(e)
    assert busy is not None and round(busy["busy"], 1) == 19812.9 and round(busy["busy_ratio"], 3) == 0.991
    assert rules._generator(e, rules.THRESHOLDS) is None


# ------------------------------------------------------------ the live Locust scenario, the k6 shape ---
def test_locust_with_a_wait_time_read_from_its_locustfile_is_no_client_bound():
    """Captured live (tests/fixtures/scenarios/think-time/locust): wait_time = constant(1), 4 to 64 users before a
    10 ms service. At 64 users 61.70 and 62.01 requests/s, 46 and 45 ms: 2.8 requests in flight (4 %), but
    61.855 × (0.0455 + 1) = 64.7 users busy."""
    ds = lbanalysis.read(FIXTURES / "scenarios" / "think-time" / "locust", table="all")
    assert ds.runs["think_time_s"].tolist() == [1.0] * 10
    assert set(ds.runs["think_time_source"]) == {"locustfile.py:6: wait_time = constant(1)"}
    top = ds.runs[ds.runs["concurrency"] == 64]
    assert sorted(top["requests_per_s"]) == [61.70, 62.01] and sorted(top["latency_mean_s"]) == [0.045, 0.046]
    v = lbanalysis.study(ds).verdicts.iloc[0]
    assert (v["verdict"], v["confidence"]) == ("no bound reached", "high"), v["evidence"]


def test_siege_delay_is_a_random_wait_of_half_of_it_on_average():
    runs = lbanalysis.read(FIXTURES / "scenarios" / "loadgen" / "siege")
    assert set(runs["delay_s"]) == {0.5} and set(runs["think_time_s"]) == {0.25}
    v = lbanalysis.study(runs).verdicts.iloc[0]
    assert v["verdict"] == "no bound reached", v["evidence"]


def test_a_locustfile_without_a_wait_asks_none():
    runs = lbanalysis.read(FIXTURES / "scenarios" / "client-cpu-locust", table="runs")
    assert set(runs["think_time_s"]) == {0.0} and set(runs["think_time_source"]) == {"locustfile.py: no wait asked"}


def test_a_k6_console_with_a_random_sleep_reads_its_iterations():
    """centminmod/k6-benchmarking's published run (k6 v0.40.0, sleep 1 to 5 s per iteration, VUs ramping to 100)."""
    ds = lbanalysis.read(FIXTURES / "k6" / "shapes" / "k6_0.40_random_sleep.txt", table="all")
    r = ds.runs.iloc[0]
    assert (r["iterations"], r["iterations_per_s"], r["iteration_mean_s"]) == (1769, 14.289059, 3.06)
    assert (r["concurrency"], r["latency_mean_s"], bool(r["ramped"])) == (100, 0.00026587, True)
    v = lbanalysis.study(ds).verdicts.iloc[0]
    assert v["verdict"] == "cannot tell" and "the clients ramped up and down during the run" in v["evidence"]
    assert "14.29 × 3.06 s = 43.7 users busy on average" in v["evidence"]


@pytest.mark.parametrize(
    ("tool", "command", "script"),
    [
        ("locust", "locust -f perf/lf.py --headless -u 10", "perf/lf.py"),
        ("locust", "locust --headless -u 10 --host http://h", "locustfile.py"),
        ("jmeter", "jmeter -n -t plan.jmx -l out.jtl", "plan.jmx"),
    ],
)
def test_the_script_a_command_runs(tool, command, script):
    assert script_named(tool, command) == script


def test_a_wait_no_pattern_sizes_stays_unknown():
    mean, where = think_time("locust", "class U(HttpUser):\n    wait_time = constant_pacing(2)\n", "lf.py")
    assert mean != mean and where == "lf.py:2: wait_time = constant_pacing(2)"
    mean, _ = think_time("locust", "    wait_time = constant(1)\n    wait_time = constant(2)\n")
    assert mean != mean  # two waits: which one applies is not read


def test_littles_law_per_run_names_the_iterations_as_the_cause():
    from lbanalysis.analysis.little import littles_law

    runs = pd.DataFrame([ISSUE_K6])
    assert littles_law(runs).loc[0, "concurrency_reason"] == (
        "only 699 of 20000 clients busy on average (3% < 80%): the iterations kept 19,813 users busy "
        "(iterations/s × iteration duration): the rest of each iteration is the script's wait"
    )
