"""k6: the end-of-test summary (v1 and classic layouts), summary JSON and metric points, against what k6 printed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.analysis.latency import is_closed_loop
from lbanalysis.readers import detect

K6 = Path(__file__).resolve().parent / "fixtures" / "k6"
SKIP = ("k6_version.txt", "k6_help.txt", "k6_handle_summary_run.txt", "k6_refused_stdout.txt", "k6_503_stdout.txt")
TEXTS = sorted(p.name for p in K6.glob("k6_*.txt") if p.name not in SKIP)
UNITS = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}


def run(name: str, table: str = "all") -> lbanalysis.Dataset:
    return lbanalysis.read(K6 / name, table=table)


def seconds(text: str) -> float:
    m = re.fullmatch(r"([\d.]+)(ns|µs|ms|s|m)", text)
    assert m, text
    return float(m.group(1)) * UNITS[m.group(2)]


def printed(name: str) -> list[dict]:
    """What each summary of a file printed: http_reqs, http_req_failed and http_req_duration, read by plain regexes."""
    out = []
    for block in re.split(r"\n(?=\$ k6 run)", (K6 / name).read_text()):
        reqs = re.search(r"http_reqs\.+: (\d+)\s+([\d.]+)/s", block)
        if not reqs:
            continue
        failed = re.search(r"http_req_failed\.+: [\d.]+%\s+(?:(\d+) out of|✓ (\d+))", block)
        dur = re.search(r"http_req_duration\.+: avg=(\S+)\s+min=(\S+)\s+med=(\S+)\s+max=(\S+)", block)
        refused = len(re.findall(r'msg="Request Failed"', block))
        out.append({"reqs": int(reqs.group(1)), "rate": float(reqs.group(2)),
                    "failed": int(failed.group(1) or failed.group(2)), "refused": refused,
                    "avg": seconds(dur.group(1)), "min": seconds(dur.group(2)), "med": seconds(dur.group(3)),
                    "max": seconds(dur.group(4))})  # fmt: skip
    return out


@pytest.mark.parametrize("name", TEXTS)
def test_every_summary_holds_the_printed_figures(name):
    ds = run(name)
    want = printed(name)
    assert len(ds.runs) == len(want)
    for i, w in enumerate(want):
        r = ds.runs.iloc[i]
        assert r["tool"] == "k6" and r["format"] == "k6"
        assert r["requests"] + r["failed_network"] == w["reqs"]  # http_reqs counts requests without a response too
        assert r["failed_network"] == w["refused"] and r["failed"] == w["failed"]
        assert r["requests_ok"] == w["reqs"] - w["failed"]
        assert r["duration_s"] == pytest.approx(w["reqs"] / w["rate"])
        if r["requests"]:
            assert (r["latency_mean_s"], r["latency_min_s"], r["latency_max_s"]) == pytest.approx(
                (w["avg"], w["min"], w["max"])
            )
            med = ds.percentiles[(ds.percentiles["run"] == i) & (ds.percentiles["percentile"] == 50.0)]
            assert med["latency_s"].tolist() == pytest.approx([w["med"]])
        else:
            assert pd.isna(r["latency_mean_s"]) and r["error"].startswith("no response")


def test_v1_summary_whole_row():
    r = run("k6_nginx.txt").runs.iloc[0]
    text = (K6 / "k6_nginx.txt").read_text()
    checks = int(re.search(r"checks_succeeded\.+: [\d.]+% (\d+) out of", text).group(1))
    assert r["concurrency"] == 5 and r["vus_max"] == 5 and r["time_limit_s"] == 3.0
    assert r["scenarios"] == "default: 5 looping VUs for 3s (gracefulStop: 30s)"
    assert r["checks_passed"] == checks and r["checks_failed"] == 0 and r["iterations"] == r["requests"]
    assert r["thresholds"] == "checks rate>0.9: ok; http_req_duration p(95)<500: ok" and r["thresholds_failed"] == 0
    data = re.search(r"data_received\.+: ([\d.]+) (k|M)B\s+([\d.]+) (k|M)B/s", text)
    scale = {"k": 1e3, "M": 1e6}
    assert r["bytes_total"] == pytest.approx(float(data.group(1)) * scale[data.group(2)])
    assert r["bytes_per_s"] == pytest.approx(float(data.group(3)) * scale[data.group(4)])
    assert pd.isna(r["rate_target_per_s"]) and is_closed_loop(r["tool"], r["rate_target_per_s"])
    assert pd.isna(r["error"])


def test_classic_layout_public_output():
    ds = run("k6_public_v0.txt")
    r = ds.runs.iloc[0]
    assert (r["requests"], r["failed"], r["checks_passed"], r["checks_failed"]) == (1500, 0, 1500, 0)
    assert (r["concurrency"], r["vus_max"], r["time_limit_s"]) == (300, 300, 10.0)
    assert r["latency_mean_s"] == pytest.approx(0.06084) and r["requests_per_s"] == 148.659449
    assert (r["bytes_total"], r["bytes_sent"]) == (1.7e6, 185e3)
    assert r["thresholds"] == "http_req_duration: ok"
    assert ds.percentiles["percentile"].tolist() == [50.0, 90.0, 95.0]
    assert ds.percentiles["latency_s"].tolist() == pytest.approx([0.01461, 0.19613, 0.21434])
    phases = ds.phases.set_index("phase")
    assert phases.loc["waiting", "mean_s"] == pytest.approx(0.05961)
    assert phases.loc["blocked", "median_s"] == pytest.approx(5.13e-6)
    assert list(phases.index) == ["blocked", "connecting", "tls_handshaking", "sending", "waiting", "receiving"]


def test_refused_requests_are_failures_not_responses():
    for name in ("k6_refused.txt", "k6_legacy_refused.txt"):
        r = run(name).runs.iloc[0]
        assert (r["requests"], r["failed"], r["failed_network"], r["requests_ok"]) == (0, 10, 10, 0)
        assert "connection refused" in r["error"] and r["error"].endswith("(x10)")
        assert pd.isna(r["latency_mean_s"]) and r["requests_per_s"] == 0


def test_stdout_alone_does_not_tell_refused_from_answered_failures():
    # k6 writes the banner and the summary to stdout, its log (Request Failed) and progress to stderr
    refused = run("k6_refused_stdout.txt").runs.iloc[0]
    assert (refused["requests"], refused["failed_network"], refused["bytes_total"]) == (0, 10, 0)  # no byte came back
    unavailable = run("k6_503_stdout.txt").runs.iloc[0]
    assert pd.isna(unavailable["requests"]) and pd.isna(unavailable["failed_network"])
    assert (unavailable["failed"], unavailable["requests_ok"]) == (20, 0) and unavailable["bytes_total"] > 0


def test_error_statuses_are_responses_that_failed():
    for name, checks in (("k6_404.txt", 20), ("k6_503.txt", 20)):
        r = run(name).runs.iloc[0]
        assert (r["requests"], r["failed"], r["failed_network"], r["requests_ok"]) == (20, 20, 0, 0)
        assert (r["checks_passed"], r["checks_failed"], r["thresholds_failed"]) == (0, checks, 1)
        assert "checks rate>0.9: failed" in r["thresholds"] and pd.isna(r["error"])


def test_arrival_rate_is_open_loop_and_counts_dropped_iterations():
    r = run("k6_arrival_dropped.txt").runs.iloc[0]
    dropped = int(re.search(r"dropped_iterations\.+: (\d+)", (K6 / "k6_arrival_dropped.txt").read_text()).group(1))
    assert r["rate_target_per_s"] == 50.0 and r["iterations_dropped"] == dropped > 0
    assert not is_closed_loop(r["tool"], r["rate_target_per_s"])
    s = run("k6_scenarios.txt").runs.iloc[0]
    assert s["rate_target_per_s"] == 40.0 and s["concurrency"] == 11 and s["time_limit_s"] == 3.0
    assert (
        s["scenarios"].startswith("arrivals: 40.00 iterations/s for 3s")
        and "; looping: 3 looping VUs" in s["scenarios"]
    )
    assert s["thresholds_failed"] == 1 and "http_req_duration{scenario:looping} p(99)<10: failed" in s["thresholds"]


def test_full_mode_reads_total_results_only():
    ds = run("k6_scenarios_full.txt")
    assert len(ds.runs) == 1
    text = (K6 / "k6_scenarios_full.txt").read_text()
    total = text.split("█ TOTAL RESULTS")[1].split("█ SCENARIO")[0]
    assert ds.runs.loc[0, "requests"] == int(re.search(r"http_reqs\.+: (\d+)", total).group(1))
    assert len(ds.phases) == 6 and len(ds.percentiles) == 3


def test_legacy_scenarios_marks_thresholds_on_metric_lines():
    r = run("k6_legacy_scenarios.txt").runs.iloc[0]
    assert r["thresholds"] == (
        "http_req_duration{scenario:arrivals}: ok; http_req_duration{scenario:looping}: failed; http_req_failed: ok"
    )
    assert r["thresholds_failed"] == 1 and r["checks_failed"] == 0 and r["checks_passed"] > 0


def test_transcript_three_runs_and_stdout_only():
    runs = run("k6_transcript.txt", "runs")
    assert runs["concurrency"].tolist() == [2, 4, 8] and runs["time_limit_s"].tolist() == [1.0] * 3
    assert runs["command"].notna().all() and runs["command"].str.startswith("k6 run --").all()
    q = run("k6_quiet_stdout.txt").runs.iloc[0]
    assert q["failed_network"] == 0 and pd.isna(q["scenarios"])  # stdout only: no banner, no log


def test_k6_commands_in_a_transcript():
    import io

    text = "$ k6 version\n" + (K6 / "k6_version.txt").read_text() + "$ k6 run -q -u 2 -d 1500ms x.js\n"
    text += (K6 / "k6_quiet_stdout.txt").read_text() + "k6 is a load tester; k6 run needs a script\n"
    ds = lbanalysis.read(io.StringIO(text), table="all")
    assert ds.not_runs["kind"].tolist() == ["version banner"]
    r = ds.runs.iloc[0]
    assert len(ds.runs) == 1 and r["command"] == "k6 run -q -u 2 -d 1500ms x.js"
    assert (r["concurrency"], r["time_limit_s"]) == (2, 1.5)  # the time limit from the command alone


def test_handle_summary_run_without_summary_is_an_error_row():
    r = run("k6_handle_summary_run.txt").runs.iloc[0]
    assert "handleSummary()" in r["error"] and pd.isna(r["requests"])


def test_summary_export_equals_the_text_summary():
    text, export = run("k6_slow_iterations.txt"), run("k6_slow_export.json")
    t, e = text.runs.iloc[0], export.runs.iloc[0]
    assert e["format"] == "k6-summary-json"
    for col in ("requests", "failed", "requests_ok", "failed_network", "iterations", "checks_passed", "vus_max"):
        assert t[col] == e[col], col
    assert e["duration_s"] == pytest.approx(t["duration_s"], rel=1e-6)
    for col in ("latency_mean_s", "latency_min_s", "latency_max_s"):
        assert e[col] == pytest.approx(t[col], rel=5e-3), col
    assert e["thresholds"] == t["thresholds"]
    assert export.percentiles["latency_s"].tolist() == pytest.approx(text.percentiles["latency_s"].tolist(), rel=5e-3)
    assert len(export.phases) == 6


def test_summary_json_layouts():
    s = run("k6_scenarios_export.json").runs.iloc[0]
    assert s["thresholds_failed"] == 1 and "http_req_duration{scenario:looping} p(99)<10: failed" in s["thresholds"]
    assert s["checks_passed"] == run("k6_scenarios.txt").runs.loc[0, "checks_passed"]
    h = run("k6_handle_summary.json").runs.iloc[0]
    assert (h["requests"], h["thresholds"], h["checks_passed"]) == (30, "http_req_duration p(95)<500: ok", 30)
    n = run("k6_new_export.json").runs.iloc[0]
    assert (n["tool_version"], n["requests"], n["checks_passed"], n["iterations"]) == ("1.8.1", 30, 30, 30)
    assert n["duration_s"] == json.loads((K6 / "k6_new_export.json").read_text())["config"]["duration"]


def test_points_json_and_csv_give_the_same_requests_as_the_summary():
    summary = run("k6_points_run.txt").runs.iloc[0]
    js, cs = run("k6_points.json"), run("k6_points.csv")
    for ds in (js, cs):
        r = ds.runs.iloc[0]
        assert (r["requests"], r["failed"], r["requests_ok"], r["non_2xx"], r["failed_network"]) == (12, 4, 8, 4, 0)
        assert (r["checks_passed"], r["checks_failed"]) == (summary["checks_passed"], summary["checks_failed"])
        assert r["latency_mean_s"] == pytest.approx(summary["latency_mean_s"], rel=1e-3)
        assert r["bytes_sent"] == summary["bytes_sent"] == 912
        assert sorted(ds.requests["status"].tolist()) == [200] * 8 + [500] * 4
    assert js.requests["latency_s"].sort_values().tolist() == cs.requests["latency_s"].sort_values().tolist()
    assert js.requests["start_s"].is_monotonic_increasing and js.requests["start_s"].iloc[0] == 0
    assert js.runs.loc[0, "duration_s"] == pytest.approx(summary["duration_s"], abs=0.01)
    # k6's default CSV times are whole seconds: no start times, no duration
    assert cs.requests["start"].isna().all() and pd.isna(cs.runs.loc[0, "duration_s"])
    micro = run("k6_points_micro.csv")
    assert micro.requests["start_s"].notna().all() and micro.runs.loc[0, "requests"] == 30
    assert micro.runs.loc[0, "duration_s"] == pytest.approx(
        run("k6_points_micro_run.txt").runs.loc[0, "duration_s"], abs=0.01
    )


def test_stalls_of_a_closed_loop_run_show_in_the_start_times():
    from lbanalysis.analysis.latency import latency_tail, stalls

    ds = run("k6_stall_points.csv")
    summary = run("k6_stall_run.txt").runs.iloc[0]
    assert ds.runs.loc[0, "requests"] == summary["requests"] == 300 and ds.runs.loc[0, "concurrency"] == 4
    assert ds.runs.loc[0, "latency_max_s"] == pytest.approx(summary["latency_max_s"], rel=1e-3)
    found = stalls(ds.requests)
    assert len(found) >= 2 and found["duration_s"].between(0.5, 0.7).all()  # the server stalls 0.6 s of every 1.5 s
    tail = latency_tail(ds.requests).iloc[0]
    assert tail["stalls"] == len(found) and tail["slow_requests"] > 0


def test_points_without_response_are_not_requests():
    for name in ("k6_points_refused.json", "k6_points_refused.csv"):
        ds = run(name)
        r = ds.runs.iloc[0]
        assert (r["requests"], r["failed"], r["failed_network"]) == (0, 3, 3) and r["error"].startswith("no response")
        assert len(ds.requests) == 0


@pytest.mark.parametrize(
    "name, fmt",
    [("k6_nginx.txt", "k6"), ("k6_legacy.txt", "k6"), ("k6_public_v0.txt", "k6"), ("k6_quiet_stdout.txt", "k6"),
     ("k6_slow_export.json", "k6-summary-json"), ("k6_handle_summary.json", "k6-summary-json"),
     ("k6_new_export.json", "k6-summary-json"), ("k6_points.json", "k6-json"), ("k6_points.csv", "k6-csv")],
)  # fmt: skip
def test_detection(name, fmt):
    assert detect((K6 / name).read_text()) == fmt


def test_other_tools_are_not_read_as_k6():
    fixtures = K6.parent
    for path in sorted(fixtures.glob("*/*")):
        if path.parent.name in ("k6", "capture") or path.suffix not in (".txt", ".csv", ".json", ".log"):
            continue
        if path.name.startswith("k6_"):  # a k6 output in a folder of shapes of several tools (pasted/)
            continue
        found = detect(path.read_text(errors="replace"))
        assert found is None or not found.startswith("k6"), path


def test_broken_points_name_file_and_line(tmp_path):
    lines = (K6 / "k6_points.csv").read_text().split("\n")
    lines[5] = lines[5].replace(",", ";", 3)
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines))
    with pytest.raises(lbanalysis.ParseError) as e:
        lbanalysis.read(bad)
    assert "bad.csv" in str(e.value) and ":6" in str(e.value)
