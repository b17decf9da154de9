"""crank: its JSON results (published shapes, tests/fixtures/crank/shapes/SHAPES.md; crank needs dotnet, not here):
the load job is the run, every job's CPU and memory go to the cpu table with its role; values from the JSON itself."""

from __future__ import annotations

import json

import pytest

import lbanalysis
from lbanalysis.readers import detect

from .conftest import FIXTURES

SHAPES = FIXTURES / "crank" / "shapes"
MIB = 1024 * 1024


def _jobs(name: str) -> dict:
    doc = json.loads((SHAPES / name).read_text())
    return (doc.get("jobResults") or doc)["jobs"]


@pytest.mark.parametrize("name", ["crank_docs_hello_bombardier.json", "crank_fortunes_wrk_document.json",
                                  "crank_yarp_bombardier_c4.json"])  # fmt: skip
def test_detected_as_crank_not_as_the_bombardier_result_inside(name):
    assert detect((SHAPES / name).read_text()) == "crank-json"
    ds = lbanalysis.read(SHAPES / name, table="all")
    assert ds.runs["format"].tolist() == ["crank-json"] and ds.runs["tool"].tolist() == ["crank"]
    jobs = _jobs(name)
    # every job's highest CPU and working set, its cores, its role
    most = ds.cpu[ds.cpu["summary"] == "max"].set_index("host")
    assert sorted(most.index) == sorted(jobs)
    for job, j in jobs.items():
        res = j["results"]
        assert (
            most.loc[job, "busy_pct"] == res["benchmarks/cpu"] and most.loc[job, "cpu_pct"] == res["benchmarks/cpu/raw"]
        )
        assert most.loc[job, "max_rss_bytes"] == res["benchmarks/working-set"] * MIB
        assert most.loc[job, "scope"] == "process" and most.loc[job, "run"] == 0
        proc = (j.get("environment") or {}).get("proc")
        assert (most.loc[job, "cores"] == proc) if proc else most.isna().loc[job, "cores"]


def test_bombardier_s_own_result_is_the_run():
    ds = lbanalysis.read(SHAPES / "crank_yarp_bombardier_c4.json", table="all")
    r = ds.runs.iloc[0]
    res = _jobs("crank_yarp_bombardier_c4.json")["load"]["results"]
    raw = res["bombardier/raw"][0]
    assert (r["concurrency"], r["method"], r["time_limit_s"]) == (4, "POST", 60.0)
    assert r["requests"] == res["bombardier/requests"] == raw["result"]["req2xx"] == 676855
    assert r["requests_per_s"] == pytest.approx(676855 / raw["result"]["timeTakenSeconds"])
    assert r["interval_requests_per_s_mean"] == res["bombardier/rps/mean"]
    assert r["latency_mean_s"] == pytest.approx(res["bombardier/latency/mean"] / 1e6)
    assert r["latency_max_s"] == res["bombardier/latency/max"] / 1e6 and r["non_2xx_3xx"] == 0
    assert ds.percentiles["latency_s"].tolist() == pytest.approx([344e-6, 392e-6, 439e-6, 471e-6, 543e-6])


def test_a_proxy_scenario_names_the_proxy_the_load_balancer():
    ds = lbanalysis.read(SHAPES / "crank_yarp_bombardier_c4.json", table="all")
    roles = ds.cpu.drop_duplicates("host").set_index("host")["role"].to_dict()
    assert roles == {"load": "client", "application": "load balancer", "downstream": "server"}
    # the one-second samples of each job inside the load's first and last are the run's; the others (the proxy's
    # start-up) belong to no run
    samples = ds.cpu[ds.cpu["summary"].isna()]
    load = samples[samples["host"] == "load"]
    for host in ("application", "downstream"):
        mine = samples[samples["host"] == host]
        inside = mine["time"].between(load["time"].min(), load["time"].max())
        assert inside.sum() > 60 and (mine["run"].notna() == inside).all() and (~inside).any()
    jobs = _jobs("crank_yarp_bombardier_c4.json")
    app = [m for m in jobs["application"]["measurements"][0] if m["name"] == "benchmarks/cpu"]
    # crank's highest (67 %, results) was a sample just before the load began; during the load, at most 65 %
    mine = samples[samples["host"] == "application"]
    assert mine["busy_pct"].max() == max(m["value"] for m in app) == jobs["application"]["results"]["benchmarks/cpu"]
    assert mine[mine["run"].notna()]["busy_pct"].max() == 65.0
    assert len(load) == len([m for m in jobs["load"]["measurements"][0] if m["name"] == "benchmarks/cpu"])


def test_wrk_figures_in_ms_and_a_server_behind_no_proxy():
    ds = lbanalysis.read(SHAPES / "crank_fortunes_wrk_document.json", table="all")
    r = ds.runs.iloc[0]
    res = _jobs("crank_fortunes_wrk_document.json")["load"]["results"]
    assert r["requests"] == res["wrk/requests"] and r["requests_per_s"] == res["wrk/rps/mean"]
    assert r["latency_mean_s"] == res["wrk/latency/mean"] / 1e3 and r["latency_max_s"] == res["wrk/latency/max"] / 1e3
    assert r["failed"] == res["wrk/errors/socketerrors"] and r["non_2xx_3xx"] == res["wrk/errors/badresponses"]
    assert r["bytes_per_s"] == res["wrk/throughput"] * MIB and r["label"] == "FortunesPlatform"
    assert ds.percentiles["percentile"].tolist() == [50, 75, 90, 99]
    assert ds.percentiles["latency_s"].tolist() == pytest.approx(
        [res[f"wrk/latency/{p}"] / 1e3 for p in (50, 75, 90, 99)]
    )
    roles = ds.cpu.set_index("host")["role"].to_dict()
    assert roles == {"db": "server", "application": "server", "load": "client"}


def test_a_failed_crank_and_a_result_without_a_load_job(tmp_path):
    doc = json.loads((SHAPES / "crank_docs_hello_bombardier.json").read_text())
    doc["returnCode"] = 1
    path = tmp_path / "failed.json"
    path.write_text(json.dumps(doc))
    assert lbanalysis.read(path).iloc[0]["error"] == "crank returned 1"
    del doc["jobResults"]["jobs"]["load"]
    path.write_text(json.dumps(doc))
    with pytest.raises(lbanalysis.ParseError, match="without a load job"):
        lbanalysis.read(path)
