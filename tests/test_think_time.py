"""Think time is no client bound (issue #38): a closed model whose clients wait between requests keeps few requests
in flight by design. Where the iteration is known (k6's iterations/s × iteration_duration, or throughput × (latency
+ the wait a script or a command asks)), the users busy in their iterations are compared to the load; where a wait
is possible but unknown, the load-generator rule says so at low confidence."""

from __future__ import annotations

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.analysis import rules
from lbanalysis.scripts import script_named, think_time, wait_asked, with_think_times
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


# ------------------------------------------------------------ k6: the sleeps of a script (issue #38, part 2) ---
K6_SHAPES = FIXTURES / "k6" / "shapes" / "scripts"


@pytest.mark.parametrize(
    ("script", "mean", "said"),
    [
        ("random_sleep.js", 3.0, "random_sleep.js:13: sleep(randomIntBetween(1, 5)); // 1 to 5 s (3 s per iteration, 1 request)"),
        ("sleep_between_gets.js", 12.5, "sleep_between_gets.js:7: sleep(randomIntBetween(20, 30)) (25 s per iteration, 2 requests)"),
        ("check_then_sleep.js", 1.0, "check_then_sleep.js:15: sleep(1); (1 s per iteration, 1 request)"),
        ("groups_with_sleeps.js", 1.0, "groups_with_sleeps.js:7: sleep(0.5); (3 sleeps, 3 s per iteration, 3 requests)"),
        ("group_random_sleep.js", None, "group_random_sleep.js:13: sleep(10 * Math.random()); (5 s per iteration, no request read)"),
        ("sleep_in_loop.js", None, "sleep_in_loop.js:8: sleep(1); (a sleep or request repeated an unknown number of times)"),
        ("sleep_in_branch.js", None, "sleep_in_branch.js:7: sleep(5); (a sleep or request repeated an unknown number of times)"),
    ],
)  # fmt: skip
def test_the_sleeps_of_published_k6_script_shapes(script, mean, said):
    wait = wait_asked("k6", (K6_SHAPES / script).read_text(), script)
    assert (None if wait.mean != wait.mean else wait.mean) == mean
    assert wait.where == said


def test_a_k6_output_names_its_script_on_its_script_line():
    """k6_404.txt was run as `k6 run ../capture/k6_get.js` (captured): its banner's `script:` line names the script
    beside the output; it GETs and sleeps not."""
    runs = lbanalysis.read(FIXTURES / "k6" / "k6_404.txt", table="runs")
    assert runs.loc[0, "think_time_s"] == 0.0
    assert runs.loc[0, "think_time_source"] == "../capture/k6_get.js: no sleep in the default function"


def _issue_run_with_script(folder, script: str) -> pd.DataFrame:
    """The issue's run (its printed figures, iteration figures left out: a summary excerpt) as read from
    `folder/k6.txt`, run as `k6 run issue.js`, with `script` as issue.js beside it."""
    (folder / "issue.js").write_text(script)
    figures = {k: v for k, v in ISSUE_K6.items() if not k.startswith("iteration")}
    runs = _k6(**figures).assign(source=str(folder / "k6.txt"), command="k6 run --vus 20000 issue.js")
    return with_think_times(runs)


#: A script of the issue's shape (not its own script, which it did not show): 18,992 requests/s over 3,165
#: iterations/s are 6 requests per iteration, and its VUs slept 6 s per iteration.
ISSUE_SHAPE = "".join(["import http from 'k6/http';\nimport { sleep } from 'k6';\n\nexport default function () {\n",
                       *["  http.get('http://web/');\n  sleep(1);\n"] * 6, "}\n"])  # fmt: skip


def test_the_issue_k6_run_with_its_sleeps_read_from_the_script_is_no_client_bound(tmp_path):
    """No iteration_duration printed, but the script beside the output sleeps 6 s over 6 requests: 1 s per request;
    18,992 × (0.03679 + 1) = 19,690.8 users busy of 20,000 (98 %): no client bound."""
    runs = _issue_run_with_script(tmp_path, ISSUE_SHAPE)
    assert runs.loc[0, "think_time_s"] == 1.0
    assert runs.loc[0, "think_time_source"] == "issue.js:6: sleep(1); (6 sleeps, 6 s per iteration, 6 requests)"
    v = lbanalysis.study(runs).verdicts.iloc[0]
    assert v["verdict"] != "load generator", v["evidence"]


def test_the_issue_k6_run_whose_sleep_is_in_a_loop_is_never_high_confidence(tmp_path):
    looped = ISSUE_SHAPE.replace("export default function () {\n", "export default function () {\n  for (const p of pages) {\n").replace("}\n", "}\n}\n", 1)  # fmt: skip
    runs = _issue_run_with_script(tmp_path, looped)
    assert (
        pd.isna(runs.loc[0, "think_time_s"])
        and "repeated an unknown number of times" in runs.loc[0, "think_time_source"]
    )
    v = lbanalysis.study(runs).verdicts.iloc[0]
    assert (v["verdict"], v["confidence"]) == ("load generator", "low"), v["evidence"]


def test_a_k6_summary_export_beside_its_one_script_reads_the_script(tmp_path):
    """A JSON summary export has no command: the one .js in its folder is the script it ran."""
    (tmp_path / "summary.json").write_bytes((FIXTURES / "k6" / "k6_slow_export.json").read_bytes())
    (tmp_path / "load.js").write_text((K6_SHAPES / "check_then_sleep.js").read_text())
    runs = lbanalysis.read(tmp_path, table="runs")
    assert runs.loc[0, "think_time_s"] == 1.0 and runs.loc[0, "think_time_source"].startswith("load.js:15: sleep(1);")
    (tmp_path / "other.js").write_text("export default function () {}\n")  # two scripts: which one ran is unknown
    assert lbanalysis.read(tmp_path, table="runs")["think_time_source"].isna().all()


# ------------------------------------------------------------ JMeter: its timers (issue #38, part 2) ---
JMETER_THINK = FIXTURES / "scenarios" / "think-time" / "jmeter"


def _plan(timer: str) -> str:
    """The captured scenario's plan with its Uniform Random Timer replaced by ``timer``."""
    s = (JMETER_THINK / "plan.jmx").read_text()
    return s[: s.index("<UniformRandomTimer")] + timer + s[s.index("</UniformRandomTimer>") + 21 :]


def _timer(cls: str, **props: str) -> str:
    body = "".join(f'<stringProp name="{k.replace("_", ".")}">{v}</stringProp>' for k, v in props.items())
    return f'<{cls} guiclass="x" testclass="{cls}" testname="t" enabled="true">{body}</{cls}>'


@pytest.mark.parametrize(
    ("timer", "mean"),
    [
        (_timer("ConstantTimer", ConstantTimer_delay="300"), 0.3),
        (_timer("UniformRandomTimer", ConstantTimer_delay="200", RandomTimer_range="200.0"), 0.3),  # delay + range/2
        (_timer("GaussianRandomTimer", ConstantTimer_delay="300", RandomTimer_range="100.0"), 0.3),  # the offset
        (_timer("PoissonRandomTimer", ConstantTimer_delay="100", RandomTimer_range="200.0"), 0.3),  # offset + lambda
        (_timer("ConstantTimer", ConstantTimer_delay="${__P(think,300)}"), 0.3),
        (_timer("SyncTimer") + _timer("ConstantTimer", ConstantTimer_delay="300"), None),
        (_timer("JSR223Timer"), None),
        (_timer("ConstantTimer", ConstantTimer_delay="${think}"), None),
    ],
)
def test_the_mean_wait_of_each_jmeter_timer(timer, mean):
    wait = wait_asked("jmeter", _plan(timer), "plan.jmx")
    assert (None if wait.mean != wait.mean else round(wait.mean, 9)) == mean, wait.where
    assert wait.rate != wait.rate


def test_samplers_with_different_waits_are_weighed_by_their_loops():
    """Two GETs, the second with its own Constant Timer of 1 s, inside a Loop Controller of 3: each runs as
    often, 0.5 s before a request on average; under an If Controller how often the second runs is unknown."""
    get = '<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{0}"/>'
    own = '<hashTree><ConstantTimer testclass="ConstantTimer" testname="c"><stringProp name="ConstantTimer.delay">'
    plan = ('<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="p"/><hashTree><ThreadGroup '
            'testclass="ThreadGroup" testname="tg"/><hashTree><{c} testclass="{c}" testname="l"><stringProp '
            'name="LoopController.loops">3</stringProp></{c}><hashTree>' + get.format("a") + "<hashTree/>"
            + get.format("b") + own + "1000</stringProp></ConstantTimer><hashTree/></hashTree></hashTree></hashTree>"
            "</hashTree></hashTree></jmeterTestPlan>")  # fmt: skip
    wait = wait_asked("jmeter", plan.format(c="LoopController"), "p.jmx")
    assert wait.mean == 0.5 and wait.where.endswith("(Constant Timer: 500 ms on average over 2 samplers)")
    wait = wait_asked("jmeter", plan.format(c="IfController"), "p.jmx")
    assert wait.mean != wait.mean and "run an unknown number of times" in wait.where


@pytest.mark.parametrize(
    ("timer", "threads", "rate"),
    [
        ('<ConstantThroughputTimer testclass="ConstantThroughputTimer" testname="ctt"><intProp name="calcMode">1'
         "</intProp><doubleProp><name>throughput</name><value>600.0</value></doubleProp></ConstantThroughputTimer>", 8, 10.0),
        ('<ConstantThroughputTimer testclass="ConstantThroughputTimer" testname="ctt"><intProp name="calcMode">0'
         "</intProp><doubleProp><name>throughput</name><value>60.0</value></doubleProp></ConstantThroughputTimer>", 8, 8.0),
        ('<PreciseThroughputTimer testclass="PreciseThroughputTimer" testname="ptt"><doubleProp><name>throughput</name>'
         '<value>36000.0</value></doubleProp><intProp name="throughputPeriod">3600</intProp></PreciseThroughputTimer>', 8, 10.0),
    ],
)  # fmt: skip
def test_a_throughput_timer_paces_the_run_at_its_target(timer, threads, rate):
    wait = wait_asked("jmeter", _plan(timer), "plan.jmx", threads=threads)
    assert wait.rate == rate and wait.mean != wait.mean and "paced at" in wait.where


def test_jmeter_with_a_uniform_random_timer_read_from_its_plan_is_no_client_bound():
    """Captured live (tests/fixtures/scenarios/think-time/jmeter): a Uniform Random Timer of 200 ms + up to 200 ms
    before each GET, 4 to 64 threads before a 10 ms service. At 64 threads 192.8 and 196.4 requests/s, 15 and
    14 ms: 2.8 requests in flight (4 %), but 194.6 × (0.0145 + 0.3) = 61.2 threads busy (96 %)."""
    ds = lbanalysis.read(JMETER_THINK, table="all")
    assert ds.runs["think_time_s"].tolist() == [0.3] * 10
    assert set(ds.runs["think_time_source"]) == {
        'plan.jmx:47: UniformRandomTimer "Uniform Random Timer" (Uniform Random Timer: 300 ms on average before each '
        "request)"
    }
    top = ds.runs[ds.runs["concurrency"] == 64]
    assert sorted(top["requests_per_s"]) == [192.8, 196.4] and sorted(top["latency_mean_s"]) == [0.014, 0.015]
    v = lbanalysis.study(ds).verdicts.iloc[0]
    assert (v["verdict"], v["confidence"]) == ("no bound reached", "high"), v["evidence"]


@pytest.mark.parametrize("plan", [None, _timer("SyncTimer")], ids=["no plan", "synchronizing timer"])
def test_the_same_jmeter_runs_with_their_wait_unknown_are_never_high_confidence(tmp_path, plan):
    for f in JMETER_THINK.glob("*.txt"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    if plan is not None:
        (tmp_path / "plan.jmx").write_text(_plan(plan))
    ds = lbanalysis.read(tmp_path, table="all")
    assert ds.runs["think_time_s"].isna().all()
    v = lbanalysis.study(ds).verdicts.iloc[0]
    assert v["confidence"] != "high" and (v["verdict"], v["confidence"]) == ("load generator", "low"), v["evidence"]


JMETER_PACED = FIXTURES / "scenarios" / "think-time" / "jmeter-paced"


def test_a_jmeter_plan_paced_by_a_constant_throughput_timer_is_an_open_model_at_its_target():
    """Captured live (tests/fixtures/scenarios/think-time/jmeter-paced): 6000 samples per minute shared by all
    threads, 4 to 64 threads before a 10 ms service. From 8 threads on the answers keep the 100 requests/s asked
    (96.8 at 8, 104.8 at 64): a flat throughput that is the pace, not a saturated server."""
    ds = lbanalysis.read(JMETER_PACED, table="all")
    assert set(ds.runs["rate_target_per_s"]) == {100.0} and ds.runs["think_time_s"].isna().all()
    assert set(ds.runs["think_time_source"]) == {
        'plan.jmx:47: ConstantThroughputTimer "Constant Throughput Timer" (6000 samples per minute: paced at 100 '
        "requests/s)"
    }
    top = ds.runs[ds.runs["concurrency"] == 64]
    assert sorted(top["requests_per_s"]) == [103.5, 106.1]
    v = lbanalysis.study(ds).verdicts.iloc[0]
    assert (v["verdict"], v["confidence"]) == ("no bound reached", "high"), v["evidence"]
    assert (
        "the answers kept the rate asked (100 requests/s, open loop) at every concurrency from 8 to 64" in v["evidence"]
    )
    assert "the rate asked is the pace of plan.jmx:47: ConstantThroughputTimer" in v["evidence"]


def test_the_paced_runs_without_their_plan_are_never_high_confidence(tmp_path):
    """The same outputs, the plan left behind: 2.2 requests in flight of 64 threads, and a wait JMeter's output
    cannot show: a client bound of low confidence at most."""
    for f in JMETER_PACED.glob("*.txt"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    v = lbanalysis.study(lbanalysis.read(tmp_path, table="all")).verdicts.iloc[0]
    assert (v["verdict"], v["confidence"]) == ("load generator", "low"), v["evidence"]
    assert "timers in its test plan, which JMeter's output does not show" in v["evidence"]
