"""Locust: the end-of-run tables, the --csv files and the JSON statistics, against what Locust printed and wrote."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.analysis.latency import is_closed_loop
from lbanalysis.readers import detect
from lbanalysis.readers.locust.text import error_kind

LOCUST = Path(__file__).resolve().parent / "fixtures" / "locust"
TEXTS = sorted(
    p.name
    for p in LOCUST.glob("locust_*.txt")
    if p.name not in ("locust_version.txt", "locust_help.txt", "locust_json_run.txt")
)
STATS = sorted(p.name for p in LOCUST.glob("locust_*_stats.csv"))
AGG = re.compile(r"^\s+Aggregated\s+(\d+)\s+(\d+)\([\d.]+%\) \|\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+ \|\s+([\d.]+)", re.M)


def run(name: str, table: str = "all") -> lbanalysis.Dataset:
    return lbanalysis.read(LOCUST / name, table=table)


def printed(name: str) -> dict:
    """The last Aggregated rows of a file, its percentile labels and the errors of its report (plain regexes)."""
    text = (LOCUST / name).read_text()
    reqs, fails, avg, low, high, rate = AGG.findall(text)[-1]
    head = re.findall(r"^Type\s+Name\s+((?:[\d.]+%\s+)+)# reqs", text, re.M)[-1].split()
    row = re.findall(r"^\s+Aggregated\s+((?:\d+\s+)+)\d+\s*$", text, re.M)[-1].split()
    errors = (
        re.findall(r"^(\d+)\s{2,}(\S.*?)\s*$", text.split("Error report")[-1], re.M) if "Error report" in text else []
    )
    return {"reqs": int(reqs), "fails": int(fails), "avg": int(avg) / 1e3, "min": int(low) / 1e3,
            "max": int(high) / 1e3, "rate": float(rate), "percentiles": [float(x.rstrip("%")) for x in head],
            "values": [int(v) / 1e3 for v in row], "errors": [(int(n), e) for n, e in errors]}  # fmt: skip


@pytest.mark.parametrize("name", TEXTS)
def test_every_table_holds_the_printed_figures(name):
    ds = run(name)
    w = printed(name)
    r = ds.runs.iloc[0]
    assert len(ds.runs) == 1 and r["tool"] == "locust" and r["format"] == "locust"
    refused = sum(n for n, e in w["errors"] if "ConnectionRefusedError" in e)
    assert (r["failed"], r["failed_network"], r["requests"]) == (w["fails"], refused, w["reqs"] - refused)
    assert r["requests_ok"] == w["reqs"] - w["fails"] and r["duration_s"] == pytest.approx(w["reqs"] / w["rate"])
    assert r["tool_version"] == "2.47.0" and r["latency_mean_step_s"] == 0.001 if r["requests"] else True
    if r["requests"]:
        assert (r["latency_mean_s"], r["latency_min_s"], r["latency_max_s"]) == (w["avg"], w["min"], w["max"])
        assert ds.percentiles["percentile"].tolist() == w["percentiles"]
        assert ds.percentiles["latency_s"].tolist() == w["values"]
        assert r["requests_per_s"] == w["rate"] if not refused else True
    else:
        assert pd.isna(r["latency_mean_s"]) and r["error"].startswith("no response") and len(ds.percentiles) == 0


def test_log_lines_give_the_load():
    r = run("locust_periodic.txt").runs.iloc[0]
    assert (r["concurrency"], r["spawn_rate_per_s"], r["time_limit_s"]) == (3, 1.0, 4.0)
    first = re.match(r"\[([\d-]+ [\d:]+),", (LOCUST / "locust_periodic.txt").read_text()).group(1)
    assert r["timestamp"] == pd.Timestamp(first) and pd.isna(r["rate_target_per_s"])
    assert is_closed_loop(r["tool"], r["rate_target_per_s"])


def test_failures_with_a_response_and_without():
    m = run("locust_mixed.txt").runs.iloc[0]
    w = printed("locust_mixed.txt")
    statuses = sum(n for n, e in w["errors"] if "HTTPError(" in e)
    assert (m["requests"], m["failed"], m["failed_network"], m["non_2xx_3xx"]) == (w["reqs"], w["fails"], 0, statuses)
    assert 0 < statuses < w["fails"]  # the script's own failures are responses too, not statuses
    assert m["exceptions"] == len(re.findall(r"/ERROR/locust\.user\.task: ", (LOCUST / "locust_mixed.txt").read_text()))
    assert "GET /sized: body is not the 177-byte page (x" in m["warnings"] and pd.isna(m["error"])
    r = run("locust_refused.txt").runs.iloc[0]
    n = printed("locust_refused.txt")["reqs"]
    assert (r["requests"], r["failed_network"], r["requests_per_s"]) == (0, n, 0.0)
    assert r["error"] == f"no response: GET /: ConnectionRefusedError(111, 'Connection refused') (x{n})"
    r = run("locust_404.txt").runs.iloc[0]
    n = printed("locust_404.txt")["reqs"]
    assert (r["requests"], r["failed"], r["non_2xx_3xx"], r["requests_ok"]) == (n, n, n, 0)


@pytest.mark.parametrize(
    "error, kind",
    [("HTTPError('503 Server Error: Service Unavailable for url: /503')", "status"),
     ("ConnectionRefusedError(111, 'Connection refused')", "no response"),
     ("RemoteDisconnected('Remote end closed connection without response')", "no response"),
     ("CatchResponseError('body is not the 177-byte page')", "script"), ("body is not the page", "script")],
)  # fmt: skip
def test_error_kinds(error, kind):
    assert error_kind(error) == kind


def _csv_rows(name: str) -> list[dict]:
    with open(LOCUST / name, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("name", STATS)
def test_stats_csv_aggregated_row_with_the_files_beside_it(name):
    ds = run(name)
    r = ds.runs.iloc[0]
    agg = [x for x in _csv_rows(name) if x["Name"] == "Aggregated"][-1]
    failures = _csv_rows(name.replace("_stats.csv", "_failures.csv"))
    refused = sum(int(f["Occurrences"]) for f in failures if f["Error"].startswith("ConnectionRefusedError"))
    reqs, fails = int(agg["Request Count"]), int(agg["Failure Count"])
    assert r["format"] == "locust-stats-csv"
    assert (r["requests"], r["failed"], r["failed_network"]) == (reqs - refused, fails, refused)
    assert r["bytes_per_request"] == float(agg["Average Content Size"])
    assert r["duration_s"] == pytest.approx(reqs / float(agg["Requests/s"]))
    exceptions = sum(int(x["Count"]) for x in _csv_rows(name.replace("_stats.csv", "_exceptions.csv")))
    assert (r["exceptions"] if exceptions else 0) == exceptions or pd.isna(r["exceptions"])
    history = _csv_rows(name.replace("_stats.csv", "_stats_history.csv"))
    assert r["concurrency"] == max(int(h["User Count"]) for h in history)
    assert len(ds.tables["intervals"]) == len(history)
    assert ds.tables["intervals"]["users"].tolist() == [int(h["User Count"]) for h in history]
    if r["requests"]:
        assert r["latency_mean_s"] == pytest.approx(float(agg["Average Response Time"]) / 1e3)
        assert ds.percentiles["latency_s"].tolist() == [float(agg[f"{p}"]) / 1e3 for p in
                                                         ("50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%",
                                                          "99.9%", "99.99%", "100%")]  # fmt: skip


def test_the_other_csv_files_are_parts_of_their_run():
    ds = lbanalysis.read(LOCUST, table="all")
    assert len(ds.skipped) == 0
    parts = ds.not_runs[ds.not_runs["source"].str.contains("_failures|_exceptions|_history")]
    assert len(parts) == 3 * len(STATS)
    assert ds.runs["source"].str.contains("_failures|_exceptions|_history").sum() == 0


def test_history_alone_is_a_run(tmp_path):
    (tmp_path / "x_stats_history.csv").write_text((LOCUST / "locust_nginx_stats_history.csv").read_text())
    ds = lbanalysis.read(tmp_path / "x_stats_history.csv", table="all")
    last = [x for x in _csv_rows("locust_nginx_stats_history.csv") if x["Name"] == "Aggregated"][-1]
    r = ds.runs.iloc[0]
    assert (r["requests"], r["concurrency"]) == (int(last["Total Request Count"]), 5)
    assert len(ds.tables["intervals"]) == 3


def test_stats_csv_alone_with_failures_leaves_requests_empty(tmp_path):
    (tmp_path / "m_stats.csv").write_text((LOCUST / "locust_mixed_stats.csv").read_text())
    r = lbanalysis.read(tmp_path / "m_stats.csv").iloc[0]
    agg = [x for x in _csv_rows("locust_mixed_stats.csv") if x["Name"] == "Aggregated"][-1]
    reqs, fails = int(agg["Request Count"]), int(agg["Failure Count"])
    assert pd.isna(r["requests"]) and (r["failed"], r["requests_ok"]) == (fails, reqs - fails) and fails > 0


def test_json_statistics():
    import json

    r = run("locust_json_stdout.json").runs.iloc[0]
    doc = json.loads((LOCUST / "locust_json_stdout.json").read_text())
    assert r["format"] == "locust-json" and r["requests"] == sum(e["num_requests"] for e in doc)
    assert r["bytes_per_request"] == 177.0 and r["failed"] == 0
    m = run("locust_json.json")
    doc = json.loads((LOCUST / "locust_json.json").read_text())
    fails, reqs = sum(e["num_failures"] for e in doc), sum(e["num_requests"] for e in doc)
    assert pd.isna(m.runs.loc[0, "requests"]) and (m.runs.loc[0, "failed"], m.runs.loc[0, "requests_ok"]) == (
        fails,
        reqs - fails,
    )
    assert m.percentiles["percentile"].tolist()[-1] == 100.0 and len(m.tables["intervals"]) == len(
        {t for e in doc for t in e["num_reqs_per_sec"]}
    )
    side = run("locust_json_run.txt").runs.iloc[0]
    assert "--json" in side["error"] and side["exceptions"] > 0


@pytest.mark.parametrize(
    "name, fmt",
    [("locust_nginx.txt", "locust"), ("locust_periodic.txt", "locust"), ("locust_nginx_stats.csv", "locust-stats-csv"),
     ("locust_nginx_stats_history.csv", "locust-history-csv"), ("locust_mixed_failures.csv", "locust-failures-csv"),
     ("locust_mixed_exceptions.csv", "locust-exceptions-csv"), ("locust_json.json", "locust-json")],
)  # fmt: skip
def test_detection(name, fmt):
    assert detect((LOCUST / name).read_text()) == fmt


def test_other_tools_are_not_read_as_locust():
    for path in sorted(LOCUST.parent.glob("*/*")):
        if path.parent.name in ("locust", "capture") or path.suffix not in (".txt", ".csv", ".json", ".log"):
            continue
        found = detect(path.read_text(errors="replace"))
        assert found is None or not found.startswith("locust"), path


# Locust 0.x (before 1.0) printed a Total row without times and '# reqs' before the percentiles
# (its stats.print_stats); this is such an output, as published in a 2017 tutorial.
OLD = """\
 [2017-10-30 22:18:30,301] DESKTOP-SMGQBBM/INFO/locust.main: Time limit reached. Stopping Locust.
 [2017-10-30 22:18:30,302] DESKTOP-SMGQBBM/INFO/locust.main: Shutting down (exit code 0), bye.
  Name                                                          # reqs      # fails     Avg     Min     Max  |  Median   req/s
 --------------------------------------------------------------------------------------------------------------------------------------------
  GET /                                                            117     0(0.00%)      31      17      96  |      28    2.10
 --------------------------------------------------------------------------------------------------------------------------------------------
  Total                                                            117     0(0.00%)                                       2.10

 Percentage of the requests completed within given times
  Name                                                           # reqs    50%    66%    75%    80%    90%    95%    98%    99%   100%
 --------------------------------------------------------------------------------------------------------------------------------------------
  GET /                                                             117     28     30     36     37     49     62     69     72     96
 --------------------------------------------------------------------------------------------------------------------------------------------
  Total                                                             117     28     30     36     37     49     62     69     72     96
"""


def test_locust_0x_layout():
    import io

    ds = lbanalysis.read(io.StringIO(OLD), table="all")
    r = ds.runs.iloc[0]
    assert (r["tool"], r["requests"], r["failed"], r["requests_per_s"]) == ("locust", 117, 0, 2.10)
    assert pd.isna(r["latency_mean_s"])  # the Total row of Locust 0.x has no times
    assert ds.percentiles["percentile"].tolist() == [50.0, 66.0, 75.0, 80.0, 90.0, 95.0, 98.0, 99.0, 100.0]
    assert ds.percentiles["latency_s"].tolist() == [0.028, 0.030, 0.036, 0.037, 0.049, 0.062, 0.069, 0.072, 0.096]


def _warnings(name: str) -> list[tuple[int, str]]:
    """(line, text) of each WARNING line of a fixture (plain reading)."""
    lines = (LOCUST / name).read_text().splitlines()
    return [(i, line) for i, line in enumerate(lines, 1) if "/WARNING/" in line]


def test_cpu_warning_is_a_sample_of_locusts_own_cpu():
    """'CPU usage above 90%!' is Locust's own process at 90 % of its core or more: a cpu row of that run."""
    ds = run("cpu/locust_cpu.txt")
    (line, text), _end = _warnings("cpu/locust_cpu.txt")
    assert "CPU usage above 90%!" in text and "was too high" in _end[1]
    cpu = ds.cpu
    assert len(cpu) == 1  # the end-of-test repeat is the same warning
    row = cpu.iloc[0]
    assert (row["line"], row["run"], row["run_source"], row["paired_by"]) == (
        line,
        0,
        ds.runs["source"][0],
        "same file",
    )
    assert (row["scope"], row["role"], row["command"], row["summary"], row["tool"]) == (
        "process", "client", "locust", "warning", "locust"
    )  # fmt: skip
    assert (row["cpu_pct"], row["busy_pct"], row["cores"], row["host"]) == (90.0, 90.0, 1.0, "vm")
    assert row["time"] == pd.Timestamp(re.match(r"^\[([\d-]+ [\d:]+)", text).group(1))


def test_a_masters_log_names_the_worker_over_its_cpu():
    ds = run("cpu/locust_master_cpu.txt")
    [(line, text)] = _warnings("cpu/locust_master_cpu.txt")
    worker = re.search(r"Worker (\S+) \(index", text).group(1)
    row = ds.cpu.iloc[0]
    assert len(ds.cpu) == 1 and row["line"] == line and row["command"] == "locust --worker"
    assert row["host"] == worker.rsplit("_", 1)[0] and row["cpu_pct"] == 90.0
    assert ds.runs["concurrency"][0] == 8  # 'All users spawned: ... (8 total users)'


def test_the_end_of_test_warning_alone_gives_the_same_row():
    """A log cut before the first warning still says the CPU was over Locust's threshold at some point."""
    text = (LOCUST / "cpu/locust_cpu.txt").read_text()
    cut = "\n".join(line for line in text.splitlines() if "CPU usage above" not in line) + "\n"
    from lbanalysis.readers.locust.text import parse
    from lbanalysis.text import Segment

    rows = parse(Segment(cut, "cut.txt")).tables["cpu"]
    [row] = rows
    assert row["cpu_pct"] == 90.0 and row["summary"] == "warning"
    assert "was too high" in cut.splitlines()[row["line"] - 1]


def test_a_published_warning_with_no_statistics():
    """Locust with its web interface (issue #2555): no table, so no result, but its CPU warning is still read."""
    ds = run("published/locust_cpu_warning_issue2555.txt")
    assert ds.runs["error"][0].startswith("no result") and ds.runs["tool_version"][0] == "2.20.1"
    row = ds.cpu.iloc[0]
    assert (row["host"], row["line"], row["cpu_pct"]) == ("Kim-PC-Win-11", 4, 90.0)
