"""fortio: its -json result and what `fortio load` prints, against the captures (tests/fixtures/fortio) and the 144
results of sargun/servicemesh (../shared/corpus), every value checked against the JSON itself."""

from __future__ import annotations

import json
import math

import pytest

import lbanalysis
from lbanalysis.readers import detect

from .conftest import FIXTURES, corpus

FORTIO = FIXTURES / "fortio"
TWINS = ["fortio_qps_c4", "fortio_max_c2", "fortio_exactly_c3", "fortio_503_mix", "fortio_backend_503",
         "fortio_refused"]  # fmt: skip


def _doc(name: str) -> dict:
    return json.loads((FORTIO / f"{name}.json").read_text())


def _expect_json(ds: lbanalysis.Dataset, doc: dict, i: int = 0) -> None:
    """The run ``i`` of ``ds`` holds the figures of fortio's JSON result ``doc``."""
    r = ds.runs.iloc[i]
    codes = doc["RetCodes"]
    answered = sum(n for c, n in codes.items() if int(c) >= 0)
    assert r["requests"] == answered and r["requests_attempted"] == sum(codes.values())
    assert r["requests_attempted"] == doc["DurationHistogram"]["Count"]
    assert r["requests_ok"] == sum(n for c, n in codes.items() if 200 <= int(c) < 300)
    assert r["failed_network"] == codes.get("-1", 0) and r["failed"] == sum(codes.values()) - codes.get("200", 0)
    assert r["concurrency"] == doc["NumThreads"] and r["connections"] == doc["SocketCount"]
    assert r["duration_s"] == doc["ActualDuration"] / 1e9 and r["requests_attempted_per_s"] == doc["ActualQPS"]
    assert r["url"] == doc["URL"] and r["label"] == doc["Labels"]
    rate = doc["RequestedQPS"]
    if rate == "max" or float(rate) <= 0:
        assert math.isnan(r["rate_target_per_s"])
    else:
        assert r["rate_target_per_s"] == float(rate)
    if doc.get("Exactly"):
        assert r["requests_planned"] == doc["Exactly"]
    hist = doc["DurationHistogram"]
    mine = ds.histogram[ds.histogram["run"] == r["run"]] if len(ds.histogram) else ds.histogram
    pct = ds.percentiles[ds.percentiles["run"] == r["run"]] if len(ds.percentiles) else ds.percentiles
    if answered:
        assert r["requests_per_s"] == pytest.approx(answered / r["duration_s"])
        assert (r["latency_mean_s"], r["latency_stdev_s"], r["latency_min_s"], r["latency_max_s"]) == (
            hist["Avg"], hist["StdDev"], hist["Min"], hist["Max"])  # fmt: skip
        assert mine[["latency_s", "count"]].values.tolist() == [[b["End"], b["Count"]] for b in hist["Data"]]
        assert mine["count"].sum() == hist["Count"]
        assert pct[["percentile", "latency_s"]].values.tolist() == [
            [p["Percentile"], p["Value"]] for p in hist["Percentiles"] or []
        ]
    else:  # the times of calls that got no answer
        assert math.isnan(r["latency_mean_s"]) and not len(mine) and not len(pct)
        assert r["error_kind"] == "no answer"


@pytest.mark.parametrize("name", [*TWINS, "fortio_stdout"])
def test_json_results_hold_what_fortio_wrote(name):
    path = FORTIO / f"{name}.json"
    assert detect(path.read_text()) == "fortio-json"
    ds = lbanalysis.read(path, table="all")
    assert ds.runs.iloc[0]["format"] == "fortio-json" and ds.runs.iloc[0]["tool"] == "fortio"
    _expect_json(ds, _doc(name))


@pytest.mark.parametrize("name", TWINS)
def test_the_text_it_printed_reads_as_its_json_twin(name):
    text, js = (lbanalysis.read(FORTIO / f"{name}{ext}", table="all") for ext in (".txt", ".json"))
    assert detect((FORTIO / f"{name}.txt").read_text()) == "fortio" and text.runs.iloc[0]["format"] == "fortio"
    a, b = text.runs.iloc[0], js.runs.iloc[0]
    same = ["requests", "requests_ok", "non_2xx", "failed", "failed_network", "requests_attempted", "concurrency",
            "connections", "rate_target_per_s", "requests_planned", "time_limit_s", "url", "status_codes",
            "latency_min_s", "latency_max_s", "bytes_total", "bytes_per_request", "tool_version"]  # fmt: skip
    for col in same:
        assert (a.isna()[col] and b.isna()[col]) or (not a.isna()[col] and a[col] == b[col]), col
    # printed rounded: the time to the nanosecond (calls / time: the rate), avg to 8 digits, +/- to 4
    for col, tol in (("duration_s", 1e-9), ("requests_attempted_per_s", 1e-4), ("latency_mean_s", 1e-10),
                     ("latency_stdev_s", 1e-6)):  # fmt: skip
        assert a[col] == pytest.approx(b[col], abs=tol, nan_ok=True), col
    for table in ("histogram", "percentiles"):
        t, j = getattr(text, table), getattr(js, table)
        assert len(t) == len(j), table
        if len(t):
            assert t["latency_s"].to_numpy() == pytest.approx(j["latency_s"].to_numpy(), rel=1e-5), table


def test_status_codes_make_the_counts():
    mix = lbanalysis.read(FORTIO / "fortio_503_mix.json").iloc[0]
    assert (mix["requests"], mix["requests_ok"], mix["non_2xx"], mix["failed"]) == (100, 73, 27, 27)
    assert mix["status_codes"] == "200: 73; 503: 27" and mix["failed_network"] == 0
    refused = lbanalysis.read(FORTIO / "fortio_refused.txt").iloc[0]
    assert (refused["requests"], refused["failed_network"], refused["requests_per_s"]) == (0, 10, 0.0)
    assert refused["status_codes"] == "-1: 10" and refused["error_kind"] == "no answer"


def test_quiet_output_and_a_transcript_of_three_rates():
    quiet = lbanalysis.read(FORTIO / "fortio_quiet.txt", table="all")
    r = quiet.runs.iloc[0]  # -quiet: no "Ended after": the rate of "All done ... 99.9 qps"
    assert (r["requests"], r["requests_per_s"], r["latency_max_s"], r["connections"]) == (100, 99.9, 0.000874352, 2)
    assert quiet.percentiles["percentile"].tolist() == [50, 75, 90, 99, 99.9]
    sweep = lbanalysis.read(FORTIO / "fortio_sweep_transcript.txt")
    assert sweep["rate_target_per_s"].tolist() == [50, 100, 200] and sweep["requests"].tolist() == [50, 100, 200]
    assert sweep["command"].str.startswith("fortio load -quiet -qps").all() and (sweep["time_limit_s"] == 1).all()


def test_the_version_is_no_run_and_the_json_is_the_text_s_twin():
    ds = lbanalysis.read(FORTIO, table="all")
    assert ds.not_runs["kind"].tolist() == ["version banner"]
    study = lbanalysis.study(ds)
    twins = study.runs.dropna(subset=["twin_of"])
    assert {s.rsplit("/", 1)[-1] for s in twins["source"]} >= {f"{n}.json" for n in TWINS}


def test_histograms_of_two_processes_add_up_bucket_by_bucket():
    """fortio's bucket edges are fixed (-r 0.001, then wider): two runs' buckets below their maxima are the same
    edges, so a test's histogram is their sum and its percentiles are those of every call."""
    a, b = (lbanalysis.read(FORTIO / f"{n}.json", table="all").histogram for n in ("fortio_qps_c4", "fortio_max_c2"))
    inner = sorted(set(a["latency_s"][:-1]) & set(b["latency_s"][:-1]))  # the last bucket ends at each run's max
    assert inner[:2] == [0.001, 0.002]


# sargun/servicemesh: fortio 1.3.1 results, 24 per setup (direct, direct6, haproxy, envoy, mesh, mesh2)
SARGUN = ("repos", "sargun+servicemesh")


def test_sargun_servicemesh_every_result_reads_as_its_json():
    folder = corpus(*SARGUN)
    paths = sorted((folder / "output").glob("*.json"))
    ds = lbanalysis.read(folder, table="all", errors="skip")
    assert len(paths) == 144 and len(ds.runs) == 144 and set(ds.runs["format"]) == {"fortio-json"}
    assert ds.runs["error"].isna().all()
    by_source = {str(s): i for i, s in enumerate(ds.runs["source"])}
    for path in paths:
        i = by_source[str(path)]
        run = ds.runs.iloc[i]
        doc = json.loads(path.read_text())
        assert run["concurrency"] == doc["NumThreads"] and run["requests_attempted_per_s"] == doc["ActualQPS"]
        assert run["requests"] == doc["RetCodes"]["200"] == doc["DurationHistogram"]["Count"]
        assert run["label"] == doc["Labels"] == path.stem.split("_", 1)[1]
        assert run["latency_mean_s"] == doc["DurationHistogram"]["Avg"]
        hist = ds.histogram[ds.histogram["source"].astype(str) == str(path)]
        assert hist["count"].tolist() == [b["Count"] for b in doc["DurationHistogram"]["Data"]]
        if doc["RequestedQPS"] == "max":
            assert math.isnan(run["rate_target_per_s"])
        else:
            assert run["rate_target_per_s"] == float(doc["RequestedQPS"]) == 1000.0
    # what is no output is named, not lost: INSTANCE (the machine) skipped, VERSIONS (the tools' versions) a banner
    assert [s.rsplit("/", 1)[-1] for s in ds.skipped["source"]] == ["INSTANCE"]
    assert [s.rsplit("/", 1)[-1] for s in ds.not_runs["source"]] == ["VERSIONS"]
    assert ds.runs["concurrency"].min() == 1 and ds.runs["concurrency"].max() == 200


def test_sargun_servicemesh_values_of_two_files():
    folder = corpus(*SARGUN) / "output"
    path = folder / "2020-05-23-085011_direct.json"
    ds = lbanalysis.read(path, table="all")
    r = ds.runs.iloc[0]
    assert (r["requests"], r["concurrency"], r["tool_version"]) == (1806587, 1, "1.3.1")
    assert r["requests_per_s"] == pytest.approx(1806587 / 300.000315331) and r["time_limit_s"] == 300.0
    assert r["requests_attempted_per_s"] == 6021.9503369745935 and r["bytes_per_request"] == 5118
    assert ds.percentiles["latency_s"].tolist()[0] == 0.0005259106467786639
    assert ds.histogram["latency_s"].tolist() == [0.001, 0.002, 0.003, 0.003773373]
    assert str(r["timestamp"]) == "2020-05-23 08:50:11.279782298"


def test_two_processes_of_one_test_merge_their_histograms():
    """Two fortio processes declared one test: its percentiles are those of their summed buckets (each the upper
    edge of the bucket it falls in), not either process's."""
    names = ("fortio_qps_c4", "fortio_stdout")
    ds = lbanalysis.read([FORTIO / f"{n}.json" for n in names], table="all")
    ds.runs["test"] = "both"
    st = lbanalysis.study(ds)
    row = st.tests.iloc[0]
    assert row["processes"] == 2 and row["percentiles_basis"].startswith("merged from 2 histograms (500 requests")
    buckets: dict[float, int] = {}
    for n in names:
        for b in _doc(n)["DurationHistogram"]["Data"]:
            buckets[b["End"]] = buckets.get(b["End"], 0) + b["Count"]
    edges, done, want = sorted(buckets), 0, {}
    for edge in edges:
        done += buckets[edge]
        for q in (50, 90, 99):
            if q not in want and done >= q / 100 * 500:
                want[q] = edge
    assert [row[f"latency_p{q}_s"] for q in (50, 90, 99)] == [want[50], want[90], want[99]]


def test_hey_s_histograms_are_not_merged():
    """hey's buckets span each run's own fastest to slowest: two runs' edges are not the same, nothing is merged."""
    hey = FIXTURES / "hey"
    files = sorted(p for p in hey.glob("*.txt") if "Response time histogram" in p.read_text())[:2]
    ds = lbanalysis.read(files, table="all")
    if len(ds.runs) != 2 or not len(ds.histogram):
        pytest.skip("two hey outputs with histograms are needed")
    ds.runs["test"] = "both"
    assert lbanalysis.study(ds).tests.iloc[0]["percentiles_basis"] == "printed per process only (not merged)"
