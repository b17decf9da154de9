"""The design of an experiment read as its author designed it (issue #41): the folders of
``../shared/corpus/repos/`` (read in place), each with the design an expert reads in it and one fact its author
states, through ``read`` + ``study``; and the tokens of names found in published folders."""

from __future__ import annotations

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.analysis import study
from lbanalysis.design import infer, path_tokens, section_lines, sentence
from lbanalysis.schema.design import DESIGN, RANKING

from .conftest import FIXTURES, corpus

REPOS = ("repos",)


def _read(*parts: str, **kw):
    return lbanalysis.read(corpus(*REPOS, *parts), table="all", errors="skip", **kw)


def _role(ds, factor: str) -> str:
    hit = ds.design[ds.design["factor"] == factor]
    assert len(hit), f"{factor} not in the design:\n{ds.design[['factor', 'role', 'values']]}"
    return str(hit["role"].iloc[0])


def _pooled(s, column: str) -> pd.Series:
    """Per series, how many values of ``column`` its runs hold (1: never pooled across them)."""
    return s.runs.dropna(subset=["series"]).groupby("series")[column].nunique(dropna=False)


# ------------------------------------------------------------------ tokens ---
@pytest.mark.parametrize(
    ("path", "expected"),
    [
        # gaplo917/load-balancer-benchmark: client machine, load balancer, connections
        ("bc1/benchmark-result/n1-highcpu-8-apache-worker/c6000.json",
         [("bc1", None), ("benchmark-result", None), (1.0, "n"), ("highcpu-apache-worker", None), (8.0, None),
          (6000.0, "c")]),
        # actionjack/cloud-floundry-ab-benchmark: requests and concurrency in one folder name
        ("suite-root-url-test/90000-conc-3000/ab_report.txt",
         [("suite-root-url-test", None), (90000.0, None), (3000.0, "conc"), ("ab-report", None)]),
        # ktaka-ccmp/kube-lb-bench: a try, NIC settings, the load balancer, its CPUs and a repeat index
        ("AWS/2nd_try/rss_rps_rfs_0_1_0/ipvs_cpu16_3.log",
         [("AWS", None), (2.0, "try"), ("rss_rps_rfs_0_1_0", None), ("ipvs", None), (16.0, "cpu"), (3.0, None)]),
        ("GCP/PodNumDependence_lvs4cpu/1st_try/proxy.log",
         [("GCP", None), ("PodNumDependence-lvs", None), (4.0, "cpu"), (1.0, "try"), ("proxy", None)]),
        # sargun/servicemesh: a time stamp (dropped) and the setup
        ("output/2020-05-23-092011_direct.json", [("output", None), ("direct", None)]),
        # SaltyAom/bun-http-framework-benchmark: a framework whose name holds a digit stays a word
        ("results/node/h3.txt", [("results", None), ("node", None), ("h3", None)]),
        # names as people write them: key=value, 10k, run numbers, servers behind a balancer
        ("haproxy-4/c=100_run2.txt", [(4.0, "haproxy"), (100.0, "c"), (2.0, "run")]),
        ("nginx/10k-users.log", [("nginx", None), (10000.0, "users")]),
        # goldenrye/monolake benchmark/client/benchmark-monolake-16core-https.sh: 16c is the proxy's cores
        ("https-result-16c-monolake-tiny.txt", [("https-result-monolake-tiny", None), (16.0, "c")]),
    ],
)  # fmt: skip
def test_path_tokens_of_published_names(path, expected):
    got = [(t.value, t.key) for t in path_tokens(path)]
    assert got == expected


def test_section_lines_name_settings_but_not_tool_output():
    text = "podnum=4\nStart time: 1505447679\nwrk -c800 -t40 http://h/\n  40 threads and 800 connections\n" \
           "Requests/sec:  11501.22\n\n=== 1000 concurrent users ===\niteration 3\n"  # fmt: skip
    assert section_lines(text) == [(1, "podnum", 4.0), (7, "concurrent", 1000.0), (8, "iteration", 3.0)]


def test_design_table_has_the_contract_columns():
    runs = pd.DataFrame({"source": [f"x/{lb}/c{c}.txt" for lb in ("a", "b") for c in (1, 2)], "tool": "ab",
                         "concurrency": [1, 2, 1, 2], "requests_per_s": 1.0})  # fmt: skip
    d = infer(runs)
    assert list(d.table.columns) == list(DESIGN)
    assert d.table.set_index("factor")["role"].to_dict() == {"path[0]": "setup", "c": "load"}
    assert "c1 equals the connections ab printed in 4 of 4 runs" in d.table["evidence"].tolist()
    assert infer(runs, overrides={"path[0]": "repeat"}).role_of("path[0]") == "repeat"
    with pytest.raises(ValueError, match="unknown role"):
        infer(runs, overrides={"path[0]": "servers"})


def test_a_small_index_is_a_repeat_unless_the_runs_differ_beyond_noise():
    base = {"tool": "wrk", "url": "http://h/", "concurrency": 10}
    same = pd.DataFrame([{**base, "source": f"d/web_{i}.log", "requests_per_s": 1000.0 + i} for i in range(4)])
    assert infer(same).role_of("file#1") == "repeat"
    apart = pd.DataFrame([{**base, "source": f"d/web_{i}.log", "requests_per_s": 1000.0 * (i + 1)} for i in range(4)])
    d = infer(apart)
    assert d.role_of("file#1") == "setup"
    assert "kept apart" in d.table.set_index("factor").loc["file#1", "evidence"]


# ------------------------------------------------------------ real folders ---
def test_bun_frameworks_are_setups_ranked_as_the_author_ranked_them():
    """SaltyAom/bun-http-framework-benchmark: one file per framework under its runtime, all at 500
    connections (video at 10). It pooled each runtime's frameworks ("best requests/s 246,392": a mean of eight
    frameworks). The author's results.md ranks uws on node first."""
    ds = _read("SaltyAom+bun-http-framework-benchmark")
    assert _role(ds, "path[0]") == "setup" and _role(ds, "file") == "setup"
    assert _role(ds, "target") == "workload"
    s = study(ds)
    assert (_pooled(s, "source") == 1).all()  # one file: one framework of one runtime
    r = s.ranking(n_boot=200)
    assert list(r.columns) == list(RANKING)
    ping = r[(r["workload"] == "bombardier /") & (r["load"] == "concurrency 500")]
    assert len(ping) == 26 and ping["rank"].tolist() == list(range(1, 27))
    assert ping.iloc[0]["setup"] == "node uws"
    assert ping["requests_per_s"].is_monotonic_decreasing
    assert set(ping["differs_from_next"].iloc[:-1]) == {"too few runs to tell"}  # one run each
    assert ping["note"].str.contains("the client ran on the same host").all()
    assert set(r["load"]) == {"concurrency 500", "concurrency 10"}


def test_cloud_foundry_sweep_is_one_series_per_suite_along_concurrency():
    """actionjack/cloud-floundry-ab-benchmark: one folder per run, <requests>-conc-<concurrency>. It gave 19
    one-run series. The author: the root test "started failing after 2500 concurrent connections"."""
    ds = _read("actionjack+cloud-floundry-ab-benchmark")
    assert _role(ds, "conc") == "load"
    assert "equals the connections ab printed" in ds.design.set_index("factor").loc["conc", "evidence"]
    assert _role(ds, "path[1]#1") == "load"  # the requests: 30 per connection, ab's -n
    s = study(ds)
    v = s.verdicts.set_index("series")
    assert len(v) == 2, v.index.tolist()
    root = v.loc["ab 10.0.0.14:80/ keep-alive"]
    assert root["loads"] >= 8 and root["verdict"] == "errors"
    runs = s.runs[(s.runs["series"] == "ab 10.0.0.14:80/ keep-alive") & s.runs["twin_of"].isna()]
    shares = runs.groupby("concurrency")["error_share"].max()
    assert shares.loc[500] == 0 and shares.loc[2500] > 0.5  # clean to 500; most attempts failed at 2,500
    # "started failing after 2500": past it ab printed no result at all, and those runs join the sweep at the
    # concurrency their folder names
    failed = runs[runs["error"].notna()]
    assert sorted(failed["concurrency"]) == [3000, 3500, 4000] and (runs["concurrency"] <= 2500).sum() == 8
    assert set(failed["load_from"]) == {"concurrency from the name (conc)"}


def test_kube_lb_pods_are_the_axis_and_tries_repeat():
    """ktaka-ccmp/kube-lb-bench, AWS 2nd try: each log sweeps podnum= at one wrk setting (800 connections), five
    logs per NIC setting. The author: requests/s rise with the pods, then flatten near 89-90k from about 8."""
    ds = _read("ktaka-ccmp+kube-lb-bench", "AWS", "2nd_try")
    d = ds.design.set_index("factor")
    assert (d.loc["podnum", "role"], d.loc["podnum", "source"], bool(d.loc["podnum", "axis"])) == (
        "scale", "a line inside the file", True)  # fmt: skip
    assert d.loc["file#1", "role"] == "repeat" and d.loc["path[0]", "role"] == "setup"
    s = study(ds)
    v = s.verdicts.set_index("series")
    assert len(v) == 2 and (v["load"] == "podnum").all() and (v["runs"] == 75).all()
    top = v.loc["wrk 172.16.26.2:8888/ rss_rps_rfs_0_1_0"]
    assert top["figures"]["stops_at"] == 8
    assert "from podnum 8" in top["evidence"] and "adding stops paying" in top["evidence"]
    runs = s.runs[s.runs["series"] == top.name]
    flat = runs[runs["podnum"] >= 8].groupby("podnum")["requests_per_s"].mean()
    assert flat.between(85_000, 100_000).all()
    fits = s.fits[s.fits["series"] == top.name].set_index("model")
    assert sorted(fits.index) == ["amdahl", "linear", "usl"]
    assert (fits["loads"] == 15).all()  # fitted along the pods, not "1 load only"
    assert fits.loc["usl", "fitted"] and 8 <= fits.loc["usl", "peak load"] <= 40


def test_kube_lb_types_in_file_names_are_never_pooled():
    """KVM/Measurement.2: the load balancer type in the file name (lvs_cpu16.log, proxy_cpu16.log, single.log),
    its CPUs a second scale factor; all types were pooled per folder."""
    ds = _read("ktaka-ccmp+kube-lb-bench", "KVM", "Measurement.2")
    assert _role(ds, "file") == "setup" and _role(ds, "cpu") == "scale"
    s = study(ds)
    assert (_pooled(s, "file") == 1).all() and (_pooled(s, "cpu") == 1).all()
    along = s.verdicts[s.verdicts["load"] == "podnum"]
    assert len(along) == 10  # lvs and proxy at 2, 4, 8, 12, 16 CPUs, each along podnum
    assert "kept apart" in ds.design.set_index("factor").loc["cpu", "evidence"]


def test_a_role_given_by_hand_wins():
    ds = _read("ktaka-ccmp+kube-lb-bench", "AWS", "2nd_try", design={"file#1": "setup"})
    assert _role(ds, "file#1") == "setup"
    assert len(study(ds).verdicts) == 10
    assert len(study(_read("ktaka-ccmp+kube-lb-bench", "AWS", "2nd_try"), design={"path[0]": "repeat"}).verdicts) == 1


def test_design_sentence_says_what_was_compared():
    ds = _read("SaltyAom+bun-http-framework-benchmark")
    text = sentence(ds.design)
    assert text.startswith("3 path[0] (bun, deno, node) × 19 file (")
    assert text.endswith("; read from the folder and file names")


def test_capacity_along_pods_reads_how_many_pods_meet_an_objective():
    """Along a scale factor the objective's question is how many units meet it (#40 on #41's axis): the AWS 2nd
    try's first NIC setting reaches 90,000 requests/s between 6 pods (80,093) and 8 (94,665)."""
    s = study(_read("ktaka-ccmp+kube-lb-bench", "AWS", "2nd_try"), objective="rps >= 90000")
    c = s.capacity().set_index("series").loc["wrk 172.16.26.2:8888/ rss_rps_rfs_0_1_0"]
    assert (c["load"], c["status"], c["met_load"], c["failed_load"]) == ("podnum", "crossed", 8.0, 6.0)
    assert 6 < c["lower"] <= c["capacity_load"] <= c["upper"] < 8


def test_a_name_read_as_a_load_that_is_not_the_printed_load_is_kept_apart():
    """goldenrye/monolake names its wrk outputs https-result-16c-monolake-tiny.txt: 16c is the proxy machine's
    cores, while wrk ran -c 1000 every time. c is a load's name, but its values are not the printed load."""
    runs = pd.DataFrame(
        {
            "source": [f"r/https-result-{c}c-monolake-{size}.txt" for c in (4, 16) for size in ("tiny", "small")],
            "tool": "wrk",
            "concurrency": 1000,
            "url": [f"https://h:{port}/" for port in (6442, 6443) * 2],
            "requests_per_s": 2000.0,
        }
    )
    d = infer(runs).table.set_index("factor")
    assert d.loc["c", "role"] == "setup" and "not the load the tool printed" in d.loc["c", "evidence"]
    assert d.loc["concurrency", "role"] == "constant"


def test_load_balancers_and_client_machines_are_series_along_connections():
    """gaplo917/load-balancer-benchmark: bc0/ and bc1/ (the two client machines), n1-highcpu-8-<lb> (six load
    balancers), c<connections>.json. The author: a thread-per-request load balancer (Apache prefork, worker,
    event) "will eat up all your memory" and cannot take a traffic spike."""
    ds = _read("gaplo917+load-balancer-benchmark")
    d = ds.design.set_index("factor")
    assert d.loc["path[0]", "values"] == "bc0, bc1" and d.loc["path[0]", "role"] == "setup"
    assert d.loc["path[2]", "values"] == "apache-event, apache-prefork, apache-worker, haproxy, nginx, traefik"
    assert d.loc["c", "role"] == "load" and "in 68 of 68 runs" in d.loc["c", "evidence"]
    s = study(ds)
    v = s.verdicts.set_index("series")
    assert len(v) == 12 and (v["load"] == "concurrency").all()
    assert (_pooled(s, "path[0]") == 1).all() and (_pooled(s, "path[2]") == 1).all()
    lb = pd.Series(v.index.str.split().str[-1], index=v.index)
    assert set(v.loc[lb.str.startswith("apache"), "verdict"]) == {"errors"}  # every thread-per-request one fails
    assert "errors" not in set(v.loc[~lb.str.startswith("apache"), "verdict"])
    assert sentence(ds.design).startswith("2 path[0] (bc0, bc1) × 6 path[2] (apache-event, ")


def test_service_mesh_setups_and_the_two_ways_of_loading_are_apart():
    """sargun/servicemesh: <timestamp>_<setup>.json, fortio at qps max or 1,000 over 1-200 connections. A fixed
    rate and "as fast as it can" are two ways of loading a server: never one series; the fixed rate kept."""
    ds = _read("sargun+servicemesh")
    assert len(ds.runs) == 144
    d = ds.design.set_index("factor")
    assert d.loc["file", "values"] == "direct, haproxy, envoy, mesh2, mesh, direct6"
    s = study(ds)
    v = s.verdicts.set_index("series")
    assert len(v) == 12 and (v["runs"] == 12).all()
    fixed = v[v.index.str.contains("at a fixed rate")]
    assert len(fixed) == 6 and set(fixed["verdict"]) == {"no bound reached"}
    assert fixed["evidence"].str.startswith("the answers kept the rate asked (1,000 requests/s, open loop)").all()
    r = s.ranking(n_boot=200)
    at50 = r[(r["workload"] == "fortio /echo as fast as it can") & (r["load"] == "concurrency 50")]
    assert at50["setup"].tolist()[-2:] == ["envoy", "haproxy"]  # the two proxies in front: about half the rate
    assert at50["requests_per_s"].iloc[-1] < 0.6 * at50["requests_per_s"].iloc[0]


def test_article_004_curves_run_along_vcpus_from_the_design():
    """Article 004 (lbbench): each mode (node, haproxy-N) on droplets of 1 to 32 vCPUs, shared or compute. The
    droplet names the points along vcpus (one vcpus each), so the series are mode × kind along vcpus, and their
    Amdahl fits are the notebook's own fits by mode and kind, where four or more vCPU counts allow one."""
    from lbanalysis.analysis import fit_scaling
    from lbanalysis.reader import DEFAULT_IGNORE

    from .conftest import ROOT

    ds = lbanalysis.read(ROOT / "data" / "raw" / "lbbench", pattern="{setup}/{mode}", table="all",
                         ignore=(*DEFAULT_IGNORE, "figures.txt", "claims.csv"))  # fmt: skip
    d = ds.design.set_index("factor")
    assert d.loc["vcpus", "role"] == "scale" and bool(d.loc["vcpus", "axis"])
    assert d.loc["droplet", "role"] == "constant" and "names the points along vcpus" in d.loc["droplet", "evidence"]
    s = study(ds)
    along = s.verdicts[s.verdicts["load"] == "vcpus"]
    assert len(along) == 7  # node, haproxy-2, -4 on both kinds, haproxy-8 on compute
    mine = s.fits[s.fits["model"] == "amdahl"].dropna(subset=["r2"]).set_index("series")["r2"]
    theirs = fit_scaling(ds.runs, x="vcpus", y="requests_per_s", by=["mode", "kind"], model="amdahl",
                         errors="coerce").to_frame()["r2"]  # fmt: skip
    assert len(mine) == 3
    for name, r2 in mine.items():
        mode, kind = name.split()[4:6]
        assert r2 == pytest.approx(theirs.loc[(mode, kind)], rel=1e-9)
    v = s.verdicts.set_index("series").loc["ab (target not shown) haproxy-4 shared haproxy backends=4"]
    assert v["evidence"].startswith("requests/s 737 at vcpus 1 to 8,191 at vcpus 8 (11.1x); still +38.5% per vcpus")


def test_unrelated_published_files_in_one_folder_are_never_pooled():
    """../shared/corpus/public/siege holds siege.log files of six publications, none showing its target: their
    names are the setups (a name no target goes with is what is compared), one series per file."""
    ds = lbanalysis.read(corpus("public"), table="all", errors="skip")
    s = study(ds)
    assert (_pooled(s, "source") == 1).all()
    assert ds.design.set_index("factor").loc["file", "role"] == "setup"


def test_a_markdown_heading_over_each_run_that_names_its_load_is_no_setup():
    """``## 2 threads, 10 connections`` over a wrk run at 10 connections labels the load: one sweep, not two."""
    ds = lbanalysis.read(FIXTURES / "pasted" / "wrk_two_runs_under_headings.txt", table="all")
    assert sorted(ds.runs["heading"]) == ["1 thread, 5 connections, --latency", "2 threads, 10 connections"]
    d = ds.design.set_index("factor")
    assert "heading" not in d.index or d.loc["heading", "role"] == "constant"
    s = lbanalysis.study(ds)
    assert len(s.verdicts) == 1 and s.verdicts["runs"].iloc[0] == 2
