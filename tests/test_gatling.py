"""Gatling: the console's Global Information (2.x and 3.x), simulation.log text layouts, the binary log refused."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.analysis.engine import error_shares
from lbanalysis.errors import ParseError
from lbanalysis.readers import detect

GATLING = Path(__file__).resolve().parent / "fixtures" / "gatling"


def _one(name: str, table: str = "all"):
    return lbanalysis.read(GATLING / name, table=table)


def test_console_global_information_as_printed():
    ds = _one("gatling-3.7.6_two.txt")
    text = (GATLING / "gatling-3.7.6_two.txt").read_text()
    r = ds.runs.iloc[0]
    assert (r["tool"], r["format"], r["label"]) == ("gatling", "gatling", "TwoRequests")
    count = next(ln for ln in text.splitlines() if ln.startswith("> request count"))
    total, ok, ko = (int(x) for x in count.replace("(OK=", " ").replace("KO=", " ").replace(")", " ").split()[3:6])
    assert (r["requests_attempted"], r["requests_ok"], r["failed"], r["failed_network"]) == (total, ok, ko, 0)
    assert r["requests"] == total and "found 404" in r["warnings"]
    metrics = ds.metrics.set_index(["metric", "stat"])["value"]
    assert metrics[("Global Information", "count KO")] == ko
    assert metrics[("Response Time Distribution", "failed")] == ko
    assert ds.percentiles["percentile"].tolist() == [50.0, 75.0, 95.0, 99.0]
    per_request = {m: metrics[(m, "OK")] + metrics[(m, "KO")] for m in ("pages / index", "pages / missing")}
    assert sum(per_request.values()) == total


def test_console_and_log_of_one_run_agree():
    console = _one("gatling-3.7.6_nginx.txt").runs.iloc[0]
    log = _one("gatling-3.7.6_nginx.simulation.log")
    r = log.runs.iloc[0]
    assert (r["format"], r["tool_version"], r["label"]) == ("gatling-log", "3.7.6", "OneRequest")
    assert r["requests_attempted"] == console["requests_attempted"] == len(log.requests)
    assert r["latency_max_s"] == pytest.approx(console["latency_max_s"], abs=1e-3)
    assert r["latency_min_s"] == pytest.approx(console["latency_min_s"], abs=1e-3)
    assert log.requests["success"].all() and log.requests["label"].eq("get").all()


def test_log_groups_and_ko_messages():
    log = _one("gatling-3.7.6_two.simulation.log")
    assert set(log.requests["label"]) == {"pages / index", "pages / missing"}
    missing = log.requests[log.requests["label"] == "pages / missing"]
    assert (~missing["success"]).all() and missing["error"].str.contains("found 404").all()
    r = log.runs.iloc[0]
    assert r["failed"] == len(missing) and r["failed_network"] == 0 and r["requests"] == len(log.requests)


def test_refused_is_no_answer_and_all_errors():
    for name in ("gatling-3.7.6_refused.txt", "gatling-3.7.6_refused.simulation.log"):
        r = _one(name).runs
        assert r["requests"].iloc[0] == 0 and r["failed_network"].iloc[0] == r["requests_attempted"].iloc[0]
        assert r["error_kind"].iloc[0] == "no answer" and "Connection refused" in r["error"].iloc[0]
        assert error_shares(r)["error_share"].iloc[0] == 1.0
    ko = _one("gatling-3.7.6_503.txt").runs
    assert error_shares(ko)["error_share"].iloc[0] == 1.0 and ko["failed_network"].iloc[0] == 0


def test_binary_log_is_named_and_refused():
    binary = GATLING / "gatling-3.13.1_nginx.simulation.log"
    with pytest.raises(ParseError, match=r"binary Gatling simulation.log, written by Gatling 3\.13\.1 .*console") as e:
        lbanalysis.read(binary)
    assert "gatling-3.13.1_nginx.simulation.log:1" in str(e.value)
    assert lbanalysis.read(GATLING / "gatling-3.12.0_nginx.simulation.log").iloc[0]["tool_version"] == "3.12.0"


@pytest.mark.parametrize(
    ("text", "layout"),
    [
        # 2.0/2.1: the kind third, request and response times apart (nuxeo/gatling-report SimulationParserV2)
        ("Sim\tsim\tRUN\t1000\t \t2.0\nscn\t7\tREQUEST\t\tget\t1000\t1001\t1050\t1100\tOK\t \n", "2.0"),
        # 2.2/2.3: RUN with 7 fields (SimulationParserV23)
        ("RUN\tSim\tsim\tsim\t1000\t \t2.0\nREQUEST\tscn\t7\t\tget\t1000\t1100\tOK\t \n", "2.2"),
        # 3.0-3.3: REQUEST with the user (SimulationParserV3, V32)
        ("RUN\tSim\tsim\t1000\t \t3.0.3\nREQUEST\t7\t\tget\t1000\t1100\tOK\t \n", "3.0"),
    ],
)
def test_older_log_layouts(text, layout, tmp_path):
    p = tmp_path / "simulation.log"
    p.write_text(text)
    ds = lbanalysis.read(p, table="all")
    assert ds.requests["latency_s"].tolist() == [0.1] and ds.requests["label"].tolist() == ["get"]
    assert ds.requests["client"].fillna(7).tolist() == [7]
    assert ds.runs["label"].iloc[0] == "Sim"


def test_a_broken_log_names_its_file_and_line(tmp_path):
    p = tmp_path / "simulation.log"
    p.write_text("RUN\tSim\tsim\t1000\t \t3.7.6\nREQUEST\t\tget\tsoon\t1100\tOK\t \n")
    with pytest.raises(ParseError, match="time stamp that is no number") as e:
        lbanalysis.read(p)
    assert "simulation.log:2" in str(e.value)


def test_never_confused_with_the_others():
    for name in ("gatling-3.7.6_nginx.txt", "gatling-3.9.5_two.txt"):
        text = (GATLING / name).read_text()
        assert detect(text) == "gatling"
        for other in ("hey", "oha", "wrk", "httperf", "ab"):
            assert detect(text, tool=other) is None
    assert detect((GATLING / "gatling-3.7.6_nginx.simulation.log").read_text()) == "gatling-log"


def test_a_folder_of_gatling_outputs_through_study_and_explore():
    from lbanalysis.report import explore

    ds = explore.load([GATLING / n for n in ("gatling-3.7.6_nginx.txt", "gatling-3.7.6_404.txt")])
    st = lbanalysis.study(ds)
    shares = st.runs.set_index("source")["error_share"]
    assert shares[str(GATLING / "gatling-3.7.6_404.txt")] == 1.0
    assert shares[str(GATLING / "gatling-3.7.6_nginx.txt")] == 0.0
    assert len(explore.conclusion_table(st, ds.percentiles)) == len(st.verdicts) >= 1


@pytest.mark.parametrize("family", ["jmeter", "gatling", "httperf"])
def test_jmeter_gatling_and_httperf_never_confused(family):
    """Every capture of one of the three is detected as its own tool's format, never as one of the other two."""
    from lbanalysis.readers import get_format

    folder = GATLING.parent / family
    files = [p for p in sorted(folder.rglob("*")) if p.is_file() and p.suffix not in (".md", ".jmx")]
    assert files, folder
    for p in files:
        name = detect(p.read_text(errors="replace"))
        assert name is not None and get_format(name).tool == family, (p.name, name)


def test_the_table_console_of_newer_gatling_is_read_as_the_block_was():
    """Gatling's table console (published: Junhyunny's post, `rampUsers(10).during(10)`): thousands with commas,
    '-' for no KO figure, units in the labels, the distribution's `OK:` and `KO` rows."""
    ds = lbanalysis.read(GATLING / "shapes" / "gatling_table_rampusers.txt", table="all")
    r = ds.runs.iloc[0]
    assert r["label"] == "computerdatabase.SimpleCustomSimulator"
    assert (r["requests_attempted"], r["requests_ok"], r["failed"], r["non_2xx"]) == (10, 10, 0, 0)
    assert (r["latency_min_s"], r["latency_max_s"], r["latency_mean_s"], r["latency_stdev_s"]) == pytest.approx(
        (0.005, 2.040, 0.413, 0.671)
    )
    assert r["requests_attempted_per_s"] == 1.0 and pd.isna(r["duration_s"])  # no 'completed in' line shown
    assert ds.percentiles.set_index("percentile")["latency_s"].round(3).to_dict() == {
        50.0: 0.009,
        75.0: 1.009,
        95.0: 2.04,
        99.0: 2.04,
    }
    m = ds.metrics.set_index(["metric", "stat"])["value"]
    assert m[("Response Time Distribution", "OK: 800 ms <= t < 1200 ms")] == 2.0
    assert m[("Response Time Distribution", "OK: t >= 1200 ms %")] == 10.0
    assert m[("Response Time Distribution", "KO")] == 0.0 and m[("Home", "OK")] == 10.0
    assert ("Global Information", "min KO") not in m.index  # '-': no KO figure


def test_a_status_check_that_found_a_5xx_counts_in_non_2xx_beside_failed():
    """'status.find.in([200, 209], 304), found 503': an answer outside 2xx, counted in non_2xx as well as in
    failed (every KO); the simulation.log's request rows carry the status found."""
    for name in ("gatling-3.7.6_503.txt", "gatling-3.7.6_503.simulation.log"):
        r = lbanalysis.read(GATLING / name).iloc[0]
        assert (r["requests_attempted"], r["failed"], r["non_2xx"], r["failed_network"]) == (10, 10, 10, 0), name
    req = lbanalysis.read(GATLING / "gatling-3.7.6_503.simulation.log", table="requests")
    assert req["status"].tolist() == [503] * 10
    ok = lbanalysis.read(GATLING / "gatling-3.7.6_nginx.txt").iloc[0]
    assert ok["non_2xx"] == 0 and ok["failed"] == 0


def test_a_failed_check_on_a_2xx_answer_is_no_non_2xx():
    from lbanalysis.readers.gatling.shared import non_2xx, status_found

    assert status_found("status.find.in(200,201,202,203,204,205,206,207,208,209,304), but actually found 503") == 503
    assert non_2xx({"status.find.is(201), but actually found 200": 4, "j.n.ConnectException: refused": 2}) == 0
