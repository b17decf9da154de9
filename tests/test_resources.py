"""Resource-level verdicts: which CPU (client, load balancer, server), a queue or a link bounded a series.

The CPU samples are built with ``schema.conform(rows, "cpu")``, paired with their runs as the cpu readers pair them.
"""

from __future__ import annotations

import pandas as pd
import pytest

import lbanalysis
from lbanalysis import registry, schema
from lbanalysis.analysis import rules
from lbanalysis.analysis.engine import study
from lbanalysis.analysis.resources import cpu_by_run

from .conftest import FIXTURES

LOADS = [1, 2, 4, 8, 16]


def _series(tool: str, rates: list[float], latency: list[float], *, url: str = "http://10.0.0.5:80/",
            folder: str = "lab", repeats: int = 2, **extra) -> pd.DataFrame:  # fmt: skip
    """A closed-loop series: one file per run, the rates and latencies given per load, repeated."""
    rows = []
    for rep in range(repeats):
        for c, x, r in zip(LOADS, rates, latency, strict=True):
            rows.append({"source": f"{folder}/{tool}_c{c}_r{rep}.txt", "run": 0, "line": 1, "tool": tool, "url": url,
                         "host": url.split("/")[2].split(":")[0], "port": int(url.split(":")[2].split("/")[0]),
                         "path": "/", "keepalive": True, "concurrency": c, "requests_per_s": x * (1 + 0.01 * rep),
                         "latency_mean_s": r, "bytes_per_s": x * 500, "requests": 20000, "failed": 0, "non_2xx": 0, "duration_s": 5.0,
                         **extra})  # fmt: skip
    return pd.DataFrame(rows)


# a plateau from 4 clients on, latency growing with the clients (Little's law holds: x * r = c)
FLAT = [1000.0, 1900, 3800, 3900, 3950]
FLAT_R = [c / x for c, x in zip(LOADS, FLAT, strict=True)]


def _cpu(runs: pd.DataFrame, **per_run) -> pd.DataFrame:
    """One CPU sample per run and per keyword: ``client=(busy %, cores)``, ``server=(busy %, system %)``,
    ``lb_host=(busy %, cores)``, ``idle=Idle_pct``."""
    rows = []
    for _, r in runs.iterrows():
        base = {"run": r["run"], "run_source": r["source"], "paired_by": "name stem", "line": 3}
        if "client" in per_run:
            busy, cores = per_run["client"]
            rows.append({**base, "source": r["source"], "paired_by": "same file", "scope": "process",
                         "command": f"{r['tool']} -c {r['concurrency']} {r['url']}", "cores": cores,
                         "cpu_pct": busy * cores, "busy_pct": busy, "tool": "time"})  # fmt: skip
        if "server" in per_run:
            busy, system = per_run["server"]
            rows.append({**base, "source": "lab/vmstat_web.txt", "host": "web1", "role": "server", "scope": "all",
                         "cores": 4, "busy_pct": busy, "system_pct": system, "user_pct": busy - system,
                         "idle_pct": 100 - busy, "tool": "vmstat"})  # fmt: skip
        if "lb_host" in per_run:
            busy, cores = per_run["lb_host"]
            rows.append({**base, "source": "lab/mpstat_lb.txt", "host": "lb1", "role": "load balancer", "scope": "all",
                         "cores": cores, "busy_pct": busy, "idle_pct": 100 - busy, "tool": "mpstat"})  # fmt: skip
        if "idle" in per_run:
            rows.append({**base, "source": "lab/info.txt", "role": "load balancer", "scope": "process",
                         "idle_pct": per_run["idle"], "busy_pct": 100 - per_run["idle"], "tool": "haproxy"})  # fmt: skip
    return schema.conform(pd.DataFrame(rows), "cpu")


def _verdict(runs: pd.DataFrame, cpu: pd.DataFrame | None = None, **kw) -> pd.Series:
    return study(runs, capacity="10 Gbit/s", cpu=cpu, **kw).verdicts.iloc[0]


def test_a_plateau_without_cpu_figures_is_never_a_high_confidence_server_saturation():
    v = _verdict(_series("ab", FLAT, FLAT_R))
    assert (v["verdict"], v["confidence"], v["resource"]) == ("server saturation", "medium", "")
    assert rules.NOT_RULED_OUT in v["evidence"]


def test_a_client_process_at_its_cpu_quota_is_the_load_generator():
    runs = _series("ab", FLAT, FLAT_R)
    v = _verdict(runs, _cpu(runs, client=(96.0, 0.2)))
    assert (v["verdict"], v["resource"], v["confidence"]) == ("load generator", "client CPU", "high")
    assert (
        "at concurrency 4 to 16 (the plateau), the load tool's process used 96% of the CPU it could use"
        in (v["evidence"])
    )
    assert "lab/ab_c16_r0.txt:3" in v["evidence"]


def test_a_client_measured_idle_rules_itself_out_and_the_server_saturation_is_high():
    runs = _series("wrk", FLAT, FLAT_R)
    v = _verdict(runs, _cpu(runs, client=(30.0, 1.0)))
    assert (v["verdict"], v["resource"], v["confidence"]) == ("server saturation", "", "high")
    assert "used 30% of the CPU it could use" in v["evidence"] and "not the load generator" in v["evidence"]


def test_the_server_cpu_busy_is_named_with_the_kernels_share():
    runs = _series("wrk", FLAT, FLAT_R)
    v = _verdict(runs, _cpu(runs, server=(97.0, 41.0)))
    assert (v["verdict"], v["resource"], v["confidence"]) == ("server saturation", "server CPU", "high")
    assert (
        "the server's CPU was 97% busy, 41% of it in the kernel (system and softirq) (lab/vmstat_web.txt:3)"
        in (v["evidence"])
    )


def test_a_busy_server_cpu_also_rules_out_the_link_when_no_capacity_is_known():
    runs = _series("wrk", FLAT, FLAT_R)
    v = study(runs, cpu=_cpu(runs, server=(97.0, 41.0))).verdicts.iloc[0]
    assert (v["verdict"], v["resource"]) == ("server saturation", "server CPU")


def test_another_client_reaching_far_more_against_the_same_server_moves_the_plateau_to_the_client():
    """The issue's reproduction: ab -k levels at ~17,000/s while wrk, same folder and nginx, answers 47,763/s."""
    ab = _series("ab", [4000.0, 8000, 16800, 17000, 17100], [c / x for c, x in
                 zip(LOADS, [4000.0, 8000, 16800, 17000, 17100], strict=True)])  # fmt: skip
    wrk = _series("wrk", [9000.0, 18000, 30000, 40000, 47763], [c / x for c, x in
                  zip(LOADS, [9000.0, 18000, 30000, 40000, 47763], strict=True)])  # fmt: skip
    st = study(pd.concat([ab, wrk], ignore_index=True), capacity="10 Gbit/s")
    v = st.verdicts.set_index("tool")
    assert (v.loc["ab", "verdict"], v.loc["ab", "confidence"]) == ("load generator", "medium")
    assert (
        "the same server answered 48,002 requests/s" in v.loc["ab", "evidence"]
        and "to wrk in this folder" in (v.loc["ab", "evidence"])
    )
    assert "no CPU figure for the client" in v.loc["ab", "evidence"]
    assert v.loc["wrk", "verdict"] == "no bound reached"


def test_another_client_within_the_noise_does_not_move_the_plateau():
    ab = _series("ab", FLAT, FLAT_R)
    hey = _series("hey", [x * 1.1 for x in FLAT], [r / 1.1 for r in FLAT_R])
    v = study(pd.concat([ab, hey], ignore_index=True), capacity="10 Gbit/s").verdicts.set_index("tool")
    assert v.loc["ab", "verdict"] == "server saturation"


def test_a_client_on_another_target_is_not_compared():
    ab = _series("ab", FLAT, FLAT_R)
    wrk = _series("wrk", [x * 5 for x in FLAT], [r / 5 for r in FLAT_R], url="http://10.0.0.6:80/")
    v = study(pd.concat([ab, wrk], ignore_index=True), capacity="10 Gbit/s").verdicts.set_index("tool")
    assert v.loc["ab", "verdict"] == "server saturation"


def _lb_and_direct(**extra) -> tuple[pd.DataFrame, pd.DataFrame]:
    lb = _series("ab", FLAT, FLAT_R, url="http://10.0.0.1:80/", via="load balancer", **extra)
    direct_x = [1100.0, 2200, 4400, 8800, 12000]
    direct = _series("ab", direct_x, [c / x for c, x in zip(LOADS, direct_x, strict=True)],
                     url="http://10.0.0.5:8080/", via="direct")  # fmt: skip
    return lb, direct


def test_through_the_load_balancer_well_below_its_backend_with_haproxy_idle_at_zero_is_its_cpu():
    lb, direct = _lb_and_direct()
    runs = pd.concat([lb, direct], ignore_index=True)
    cpu = _cpu(lb, idle=3.0)
    v = study(runs, capacity="10 Gbit/s", cpu=cpu).verdicts.set_index("series")
    mine = v.loc["ab 10.0.0.1:80/ keep-alive load balancer"]
    assert (mine["verdict"], mine["resource"], mine["confidence"]) == (
        "server saturation", "load balancer CPU", "high")  # fmt: skip
    assert "the direct series to its backend" in mine["evidence"] and "Idle_pct fell to 3%" in mine["evidence"]


def test_haproxy_idle_pct_alone_never_clears_the_load_balancer():
    """Under a cgroup quota HAProxy's own loop looks idle (Idle_pct high) while it is starved."""
    lb, direct = _lb_and_direct()
    v = study(pd.concat([lb, direct], ignore_index=True), capacity="10 Gbit/s", cpu=_cpu(lb, idle=85.0))
    mine = v.verdicts.set_index("series").loc["ab 10.0.0.1:80/ keep-alive load balancer"]
    assert (mine["verdict"], mine["resource"], mine["confidence"]) == ("server saturation", "load balancer", "medium")
    assert "Idle_pct stayed at 85%" in mine["evidence"] and "does not clear the load balancer" in mine["evidence"]


@pytest.mark.parametrize(("nbproc", "resource"), [(1, "load balancer CPU"), (4, "load balancer")])
def test_one_haproxy_process_saturating_one_core_shows_as_a_quarter_of_four(nbproc, resource):
    """Article 000's test 28: 22 % of 4 vCPUs is 0.88 of the one core one process can use; with nbproc 4 it is not."""
    lb, direct = _lb_and_direct(nbproc=nbproc)
    v = study(pd.concat([lb, direct], ignore_index=True), capacity="10 Gbit/s", cpu=_cpu(lb, lb_host=(22.0, 4)))
    assert v.verdicts.set_index("series").loc["ab 10.0.0.1:80/ keep-alive load balancer", "resource"] == resource


def test_the_direct_series_is_found_from_the_load_balancers_server_addresses():
    lb, direct = _lb_and_direct()
    runs = pd.concat([lb, direct], ignore_index=True).drop(columns="via")
    servers = schema.conform(pd.DataFrame({"source": ["lab/stat_before.csv"] * 2, "proxy": ["be", "be"],
                                           "server": ["web1", "BACKEND"], "address": ["10.0.0.5", None],
                                           "port": [8080, None], "queue_max": [0, 0]}), "servers")  # fmt: skip

    class Data:  # a Dataset's tables
        pass

    ds = Data()
    ds.runs, ds.servers, ds.cpu, ds.phases, ds.requests = runs, servers, _cpu(lb, idle=2.0), None, None
    v = study(ds, capacity="10 Gbit/s").verdicts.set_index("series")
    assert v.loc["ab 10.0.0.1:80/ keep-alive", "resource"] == "load balancer CPU"


def test_cpu_by_run_names_each_figure_and_leaves_unpaired_samples_out():
    runs = _series("ab", FLAT, FLAT_R, repeats=1)
    cpu = _cpu(runs, client=(50.0, 1.0), server=(60.0, 10.0))
    unpaired = cpu.iloc[:1].assign(run=pd.NA, run_source=pd.NA, paired_by="folder", busy_pct=100.0)
    got = cpu_by_run(pd.concat([cpu, unpaired], ignore_index=True), runs)
    assert got["client_busy"].tolist() == [0.5] * 5 and got["server_kernel"].tolist() == [0.1] * 5
    assert got.loc[0, "server_at"] == "lab/vmstat_web.txt:3"
    assert got["lb_busy"].isna().all()


def test_cores_declared_in_a_manifest_column_are_what_the_process_could_use():
    """ab under a cgroup quota of a fifth of one core: time -v prints 19 % of one core, which is all it could use."""
    runs = _series("ab", FLAT, FLAT_R, client_cores=0.2)
    cpu = _cpu(runs, client=(19.0, 1.0)).assign(busy_pct=float("nan"), cores=float("nan"), cpu_pct=19.0)
    v = _verdict(runs, cpu)
    assert (v["verdict"], v["resource"]) == ("load generator", "client CPU")
    assert "used 95% of the CPU it could use" in v["evidence"]


def test_one_run_per_setup_names_the_cpu_used_up_behind_the_client():
    """Article 000's tests: one ab run each, no latency, the load balancer's host at 93 % of its one vCPU."""
    runs = _series("ab", FLAT, FLAT_R, repeats=1).iloc[[2]].assign(latency_mean_s=float("nan"))
    v = _verdict(runs, _cpu(runs, lb_host=(93.0, 1)))
    # a resource used up behind the client is the bound; one run: medium at most
    assert (v["verdict"], v["resource"], v["confidence"]) == ("server saturation", "load balancer CPU", "medium")
    assert v["evidence"].startswith("at concurrency 4, the load balancer's CPU was 93% busy per core it could use")
    assert "1 load only: no plateau shown" in v["evidence"]


def test_a_client_whose_cpu_limit_is_not_known_is_named_by_the_faster_client_not_ruled_out():
    """time -v says ab used 20 % of one core; under a quota of a fifth of one core that is all it could use, but
    nothing says so: the faster client against the same server names the load generator, with ab's figure."""
    ab = _series("ab", [4000.0, 8000, 16800, 17000, 17100], [c / x for c, x in
                 zip(LOADS, [4000.0, 8000, 16800, 17000, 17100], strict=True)])  # fmt: skip
    wrk = _series("wrk", [9000.0, 18000, 30000, 40000, 47763], [c / x for c, x in
                  zip(LOADS, [9000.0, 18000, 30000, 40000, 47763], strict=True)])  # fmt: skip
    cpu = _cpu(ab, client=(20.0, 1.0)).assign(busy_pct=float("nan"), cores=float("nan"), cpu_pct=20.0)
    v = study(pd.concat([ab, wrk], ignore_index=True), capacity="10 Gbit/s", cpu=cpu).verdicts.set_index("tool")
    assert (v.loc["ab", "verdict"], v.loc["ab", "resource"]) == ("load generator", "")
    assert (
        "the load tool's process used 20% of one core (lab/ab_c16_r0.txt:3), the CPU it could use not known"
        in (v.loc["ab", "evidence"])
    )


def test_a_tool_that_spins_shows_no_client_bound_by_its_own_cpu():
    """httperf printed 99.4 % CPU at 20 connections/s (it polls): that figure is no client bound (registry
    ``cpu_spins``), so the per-run figures leave it out; ab's own CPU still counts."""
    ds = lbanalysis.read(FIXTURES / "httperf" / "httperf_calls.txt", table="all")
    assert ds.cpu["cpu_pct"].max() > 99
    assert cpu_by_run(ds.cpu, ds.runs)["client_busy"].isna().all()
    assert "httperf" in registry.cpu_spinners() and "ab" not in registry.cpu_spinners()


def _lines(evidence: str) -> set[tuple[str, int]]:
    """The ``(file, line)`` pairs of a ``file:3-5, file:9`` evidence text."""
    out = set()
    for part in evidence.split(", "):
        name, _, span = part.rpartition(":")
        lo, _, hi = span.partition("-")
        out |= {(name, n) for n in range(int(lo), int(hi or lo) + 1)}
    return out


def test_the_rules_and_cpu_per_run_read_the_same_samples():
    """One sample filter (analysis.cpu.samples): since-boot rows, a monitor's average beside its interval samples,
    folder-paired rows and rows of no run count for neither; an average alone counts for both."""
    from lbanalysis.analysis import cpu_per_run
    from lbanalysis.analysis.resources import samples_by_run

    runs = _series("ab", FLAT, FLAT_R, repeats=1)
    base = {"scope": "all", "host": "web1", "role": "server", "cores": 4, "tool": "mpstat"}
    rows = []
    for k, (_, r) in enumerate(runs.iterrows()):
        paired = {"run": r["run"], "run_source": r["source"], "paired_by": "name stem"}
        src = f"lab/mpstat_c{r['concurrency']}.txt"
        rows += [
            {**base, **paired, "source": src, "line": 3, "busy_pct": 99.0, "summary": "since boot"},
            {**base, **paired, "source": src, "line": 4, "busy_pct": 40.0 + k},
            {**base, **paired, "source": src, "line": 5, "busy_pct": 50.0 + k},
            {**base, **paired, "source": src, "line": 6, "busy_pct": 45.0 + k, "summary": "average"},
            {**base, "source": src, "line": 7, "busy_pct": 100.0, "paired_by": "folder"},
            # a pidstat that printed its average only: it counts
            {**paired, "source": f"lab/pidstat_c{r['concurrency']}.txt", "line": 9, "scope": "process",
             "role": "server", "command": "nginx", "cpu_pct": 30.0, "cores": 1, "summary": "average"},
        ]  # fmt: skip
    cpu = schema.conform(pd.DataFrame(rows), "cpu")
    shown = set().union(*(_lines(e) for e in cpu_per_run(cpu)["evidence"]))
    read = samples_by_run(cpu, runs)
    assert set(zip(read["source"], read["line"].astype(int), strict=True)) == shown
    assert {n for _, n in shown} == {4, 5, 9}
    figures = cpu_by_run(cpu, runs)
    assert figures["server_busy"].tolist() == pytest.approx([(40.0 + 50.0) / 2 / 100 + k / 100 for k in range(5)])


def test_locusts_cpu_warning_names_the_load_generator_as_a_warning_not_a_measure():
    """Locust's "CPU usage above 90%" (a cpu row: process, client, cpu_pct 90 as a lower bound) at the plateau."""
    runs = _series("locust", FLAT, FLAT_R, url="http://10.0.0.5:8089/")
    rows = [{"source": r["source"], "line": 12, "run": r["run"], "run_source": r["source"], "paired_by": "same file",
             "scope": "process", "role": "client", "command": "locust", "cpu_pct": 90.0, "tool": "locust",
             "summary": "Locust's warning"}
            for _, r in runs.iterrows() if r["concurrency"] >= 8]  # fmt: skip
    v = _verdict(runs, schema.conform(pd.DataFrame(rows), "cpu"))
    assert (v["verdict"], v["resource"]) == ("load generator", "client CPU")
    assert "Locust warned its CPU was above 90 % (lab/locust_c16_r0.txt:12)" in v["evidence"]
    assert "used 90%" not in v["evidence"]
    figures = cpu_by_run(schema.conform(pd.DataFrame(rows), "cpu"), runs)
    assert figures["client_busy"].isna().all()  # a bound, not a measured share
    assert figures["client_warned_pct"].dropna().tolist() == [90.0] * 4


def test_locusts_cpu_warning_below_the_plateau_says_nothing_of_it():
    runs = _series("locust", FLAT, FLAT_R, url="http://10.0.0.5:8089/")
    rows = [{"source": r["source"], "line": 12, "run": r["run"], "run_source": r["source"], "paired_by": "same file",
             "scope": "process", "role": "client", "command": "locust", "cpu_pct": 90.0, "tool": "locust",
             "summary": "Locust's warning"}
            for _, r in runs.iterrows() if r["concurrency"] == 1]  # fmt: skip
    v = _verdict(runs, schema.conform(pd.DataFrame(rows), "cpu"))
    assert v["verdict"] != "load generator"


def test_locusts_cpu_warning_beside_a_measured_share_says_both():
    """A measured share below the threshold does not hide the warning, and the verdict states the measure too."""
    runs = _series("locust", FLAT, FLAT_R, url="http://10.0.0.5:8089/")
    warned = [{"source": r["source"], "line": 12, "run": r["run"], "run_source": r["source"], "paired_by": "same file",
               "scope": "process", "role": "client", "command": "locust", "cpu_pct": 90.0, "tool": "locust",
               "summary": "warning"}
              for _, r in runs.iterrows() if r["concurrency"] >= 8]  # fmt: skip
    cpu = pd.concat([_cpu(runs, client=(50.0, 1.0)), schema.conform(pd.DataFrame(warned), "cpu")], ignore_index=True)
    v = _verdict(runs, cpu)
    assert (v["verdict"], v["resource"], v["confidence"]) == ("load generator", "client CPU", "medium")
    assert "Locust warned its CPU was above 90 %" in v["evidence"]
    assert (
        "the load tool's process used 50% of the CPU it could use over the run (lab/locust_c16_r0.txt:3)"
        in v["evidence"]
    )
