"""Any valid JSON of a reader's shape reads: any indentation, CRLF line ends, a byte-order mark, keys in any
order, several documents one after another (``readers.fields.documents``, the one loader of every JSON reader)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.readers import detect, parse_text

from .conftest import FIXTURES, corpus

#: One real output of each JSON reader (format: fixture), the tool's own layout.
OUTPUTS = {
    "bombardier-json": "bombardier/bombardier_nginx.json",
    "vegeta-json": "vegeta/vegeta_report.json",
    "vegeta-results-json": "vegeta/vegeta_results.json",
    "k6-summary-json": "k6/k6_new_export.json",
    "oha-json": "oha/oha_nginx.json",
    "locust-json": "locust/locust_json.json",
    "jmeter-statistics-json": "jmeter/published/statistics_errors.json",
    "siege-json": "siege/siege_json_stdout_only.json",
    "iperf3-json": "iperf3/iperf3_tcp_json.json",
    "fortio-json": "fortio/fortio_503_mix.json",
    "crank-json": "crank/shapes/crank_docs_hello_bombardier.json",
}
#: Formats whose several documents make one run (a result per line: vegeta's results are one attack).
ONE_RUN = {"vegeta-results-json"}


def _values(text: str) -> list:
    """The JSON values of a text, one after another."""
    dec, out, pos = json.JSONDecoder(), [], 0
    while (pos := len(text) - len(text[pos:].lstrip())) < len(text):
        value, pos = dec.raw_decode(text, pos)
        out.append(value)
    return out


def _layouts(text: str) -> dict[str, str]:
    """The same documents written otherwise: indented with CRLF, behind a BOM, with sorted keys, twice."""
    docs = _values(text)
    pretty = "\n".join(json.dumps(d, indent=4) for d in docs) + "\n"
    return {
        "pretty, CRLF": pretty.replace("\n", "\r\n"),
        "BOM": "\ufeff" + text,
        "keys sorted (jq -S)": "\n".join(json.dumps(d, indent=2, sort_keys=True) for d in docs) + "\n",
        "one line": "".join(json.dumps(d, separators=(",", ":")) for d in docs),
        "twice": text.rstrip("\n") + "\n" + text,
        "twice, pretty": pretty + pretty,
    }


def _same(a: pd.DataFrame, b: pd.DataFrame, ordered: bool = True) -> None:
    """Two tables equal but for where their rows stand in the file (and their order, unless ``ordered``)."""
    drop = [c for c in ("source", "line", "run", "run_source") if c in a]
    a, b = a.drop(columns=drop), b.drop(columns=drop)
    if not ordered:  # keys sorted: a document's objects (JMeter's labels) come in another order
        a, b = (t.sort_values(list(t.columns), kind="stable") for t in (a, b))
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))


@pytest.mark.parametrize("fmt", sorted(OUTPUTS))
def test_every_layout_reads_as_the_tool_wrote_it(fmt, tmp_path):
    path = FIXTURES / OUTPUTS[fmt]
    text = path.read_text()
    want = lbanalysis.read(path, table="all")
    for i, (name, layout) in enumerate(_layouts(text).items()):
        if fmt in ONE_RUN and name.startswith("twice"):
            continue  # the same results twice: one attack of twice as many
        copy = tmp_path / f"{i}{path.suffix}"
        copy.write_text(layout, newline="")
        assert detect(layout) == fmt, name
        got = lbanalysis.read(copy, table="all")
        twice = name.startswith("twice") and fmt not in ONE_RUN
        runs = pd.concat([want.runs, want.runs]) if twice else want.runs
        _same(runs.drop(columns=["format"]), got.runs.drop(columns=["format"]))
        assert set(got.runs["format"]) == {fmt}, name
        for table in ("percentiles", "histogram", "metrics", "intervals", "phases", "cpu"):
            w = getattr(want, table)
            _same(pd.concat([w, w]) if twice else w, getattr(got, table), ordered="sorted" not in name)


@pytest.mark.parametrize("fmt", sorted(set(OUTPUTS) - ONE_RUN - {"siege-json"}))
def test_two_documents_on_one_line_are_two_runs(fmt):
    text = (FIXTURES / OUTPUTS[fmt]).read_text().strip()
    assert [r["format"] for r in parse_text(text + text).runs] == [fmt, fmt]


def test_a_broken_document_names_its_line(tmp_path):
    path = tmp_path / "k6.json"
    text = (FIXTURES / OUTPUTS["k6-summary-json"]).read_text()
    path.write_text(text + text.replace('"count"', '"count" 1', 1))
    with pytest.raises(lbanalysis.ParseError, match=r"k6\.json:\d+: broken k6 summary JSON") as e:
        lbanalysis.read(path)
    assert e.value.line > text.count("\n") and '"count" 1' in e.value.text


# gaplo917/load-balancer-benchmark: bombardier -o json pretty-printed, one file per load balancer and connections
GAPLO = ("repos", "gaplo917+load-balancer-benchmark")


def test_gaplo917_every_bombardier_result_reads():
    folder = corpus(*GAPLO)
    paths = sorted(folder.rglob("*.json"))
    runs = lbanalysis.read(folder)
    assert len(paths) == 68 and len(runs) == 68 and set(runs["format"]) == {"bombardier-json"}
    # the connections of each run are the c<N> of its file name
    for _, r in runs.iterrows():
        assert r["concurrency"] == int(re.fullmatch(r"c(\d+)\.json", Path(r["source"]).name)[1])


@pytest.mark.parametrize("name", ["bc1/benchmark-result/n1-highcpu-8-nginx/c1000.json",
                                  "bc0/benchmark-result/n1-highcpu-8-haproxy/c10000.json"])  # fmt: skip
def test_gaplo917_values_are_the_json_s(name):
    path = corpus(*GAPLO) / name
    doc = json.loads(path.read_text())
    ds = lbanalysis.read(path, table="all")
    r, res = ds.runs.iloc[0], doc["result"]
    assert r["concurrency"] == doc["spec"]["numberOfConnections"] == int(path.stem[1:])
    assert r["time_limit_s"] == doc["spec"]["testDurationSeconds"] and r["url"] == doc["spec"]["url"]
    assert r["interval_requests_per_s_mean"] == res["rps"]["mean"]
    assert r["latency_mean_s"] == pytest.approx(res["latency"]["mean"] / 1e6)
    assert r["latency_max_s"] == pytest.approx(res["latency"]["max"] / 1e6)
    assert r["duration_s"] == res["timeTakenSeconds"] and r["bytes_total"] == res["bytesRead"]
    assert r["requests_ok"] == res["req2xx"]
    assert r["requests_per_s"] == pytest.approx(r["requests"] / res["timeTakenSeconds"])
    pct = dict(zip(ds.percentiles["percentile"], ds.percentiles["latency_s"], strict=True))
    assert pct == pytest.approx({float(k): v / 1e6 for k, v in res["latency"]["percentiles"].items()})
