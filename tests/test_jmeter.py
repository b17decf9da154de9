"""JMeter: the JTL results (CSV with and without a header, XML), the non-GUI console and the dashboard's
statistics.json, against what JMeter 2.13 wrote here and what newer versions published."""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path

import pytest

import lbanalysis
from lbanalysis import cli, registry
from lbanalysis.analysis.engine import error_shares
from lbanalysis.readers import detect

JMETER = Path(__file__).resolve().parent / "fixtures" / "jmeter"
SHAPES = JMETER / "published"
CSVS = sorted(p.name for p in JMETER.glob("jmeter_*.csv"))
CONSOLES = sorted(p.name for p in JMETER.glob("jmeter_*.txt"))
_SUMMARY = re.compile(
    r"^summary = +(\d+) in +([\d.]+)s = +([\d.]+)/s Avg: +(\d+) Min: +(\d+) Max: +(\d+) Err: +(\d+)", re.M
)
_INTERVAL = re.compile(r"^summary \+ +(\d+) in .*? = +([\d.]+)/s Avg: +(\d+) .*? Err: +(\d+) .*? Active: (\d+)", re.M)


def _samples(path: Path) -> list[dict]:
    """The samples of a CSV fixture, read with the csv module (the header, or JMeter 2.13's 12 or 13 columns)."""
    lines = path.read_text().splitlines()
    if lines[0].startswith("timeStamp"):
        return list(csv.DictReader(lines))
    names = "timeStamp elapsed label responseCode responseMessage threadName dataType success bytes grpThreads"
    names += " allThreads Latency" + (" Connect" if len(next(csv.reader(lines[:1]))) == 13 else "")
    return [dict(zip(names.split(), row, strict=True)) for row in csv.reader(lines)]


@pytest.mark.parametrize("name", CSVS)
def test_csv_every_sample_a_request_row_and_the_run_counts_them(name):
    ds = lbanalysis.read(JMETER / name, table="all")
    rows = _samples(JMETER / name)
    r = ds.runs.iloc[0]
    assert len(ds.runs) == 1 and r["tool"] == "jmeter" and r["format"] == "jmeter-csv"
    assert len(ds.requests) == len(rows) == r["requests_attempted"]
    no_answer = sum(x["responseCode"].startswith("Non HTTP response code") for x in rows)
    failed = sum(x["success"] == "false" for x in rows)
    assert (r["failed_network"], r["requests"], r["failed"]) == (no_answer, len(rows) - no_answer, failed)
    assert r["requests_ok"] == len(rows) - failed
    assert r["non_2xx"] == sum(x["responseCode"].isdigit() and not x["responseCode"].startswith("2") for x in rows)
    assert sorted(ds.requests["latency_s"] * 1e3) == pytest.approx(sorted(float(x["elapsed"]) for x in rows))
    first = min(int(x["timeStamp"]) for x in rows)
    last = max(int(x["timeStamp"]) + int(x["elapsed"]) for x in rows)
    assert r["duration_s"] == pytest.approx((last - first) / 1e3)
    assert ds.requests["start_s"].is_monotonic_increasing and ds.requests["start_s"].iloc[0] == 0
    if "allThreads" in rows[0]:
        assert r["concurrency"] == max(int(x["allThreads"]) for x in rows)
    answered = [float(x["elapsed"]) / 1e3 for x in rows if x["responseCode"].isdigit()]
    if answered:
        assert r["latency_mean_s"] == pytest.approx(sum(answered) / len(answered))


def test_headerless_2_13_columns_into_their_requests_columns():
    ds = lbanalysis.read(JMETER / "jmeter_connect.csv", table="all")
    row = next(csv.reader((JMETER / "jmeter_connect.csv").read_text().splitlines()))
    req = ds.requests
    q = req[(req["thread"] == row[5]) & (req["start"].astype("int64") // 10**6 == int(row[0]))].iloc[0]
    assert q["label"] == row[2] and q["status"] == int(row[3]) and q["thread"] == row[5] and q["success"]
    assert (q["bytes"], q["group_threads"], q["threads"]) == (int(row[8]), int(row[9]), int(row[10]))
    assert (q["first_byte_s"], q["connect_s"]) == (int(row[11]) / 1e3, int(row[12]) / 1e3)


def test_each_label_in_the_metrics_table():
    ds = lbanalysis.read(JMETER / "jmeter_mixed.csv", table="all")
    rows = _samples(JMETER / "jmeter_mixed.csv")
    m = ds.metrics.pivot_table(index="metric", columns="stat", values="value")
    for label in {x["label"] for x in rows}:
        mine = [x for x in rows if x["label"] == label]
        assert m.loc[label, "requests"] == len(mine)
        assert m.loc[label, "failures"] == sum(x["success"] == "false" for x in mine)
        assert m.loc[label, "max"] == max(int(x["elapsed"]) for x in mine) / 1e3
    assert ds.runs.iloc[0]["warnings"].startswith("503 Service Unavailable (x30); 404 Not Found (x30)")
    refused = ds.requests[ds.requests["label"] == "refused"]
    assert (refused["status"] == 0).all()
    assert set(refused["error"]) == {"java.net.ConnectException: Connection refused"}


def test_xml_samples_and_their_nested_parts():
    ds = lbanalysis.read(JMETER / "jmeter_mixed.jtl", table="all")
    text = (JMETER / "jmeter_mixed.jtl").read_text()
    top = re.findall(r"^<httpSample t=\"(\d+)\".*? rc=\"([^\"]*)\"", text, re.M)
    r = ds.runs.iloc[0]
    assert r["format"] == "jmeter-xml" and len(ds.requests) == len(top) == r["requests_attempted"]
    assert r["failed_network"] == sum(rc.startswith("Non HTTP") for _, rc in top)
    redirect = ds.requests[ds.requests["label"] == "redirect"]
    nested = re.findall(r"^  <httpSample ", text, re.M)
    assert len(nested) == 2 * len(redirect) and (redirect["bytes"] == 785).all() and (redirect["status"] == 200).all()
    assert sorted(ds.requests["latency_s"] * 1e3) == pytest.approx(sorted(float(t) for t, _ in top))


def test_xml_and_csv_of_the_same_plan_agree_on_what_failed():
    csv_run = lbanalysis.read(JMETER / "jmeter_mixed.csv").iloc[0]
    xml_run = lbanalysis.read(JMETER / "jmeter_mixed.jtl").iloc[0]
    for run in (csv_run, xml_run):  # 7 samplers: 503, 404, refused always fail, flaky every third
        per = run["requests_attempted"] / 7
        assert run["failed_network"] == per and run["non_2xx"] >= 2 * per


@pytest.mark.parametrize("name", CONSOLES)
def test_console_last_summary_is_the_run(name):
    text = (JMETER / name).read_text()
    totals = _SUMMARY.findall(text)
    runs = lbanalysis.read(JMETER / name, table="all")
    assert len(runs.runs) == len(totals) >= 1
    for (_, r), (n, secs, rate, avg, low, high, err) in zip(runs.runs.iterrows(), totals, strict=True):
        assert r["format"] == "jmeter" and r["requests_attempted"] == int(n) and r["failed"] == int(err)
        assert r["requests_attempted_per_s"] == float(rate)
        assert r["duration_s"] == pytest.approx(float(secs), abs=0.51)
        assert (r["latency_mean_s"], r["latency_min_s"], r["latency_max_s"]) == (
            int(avg) / 1e3, int(low) / 1e3, int(high) / 1e3)  # fmt: skip
        if int(err):  # the console does not say which failed samples got an answer
            assert r.isna()["requests"] and r.isna()["requests_per_s"]
        else:
            assert r["requests"] == int(n) and r["requests_per_s"] == float(rate) and r["failed_network"] == 0


def test_console_intervals_and_the_plans_threads():
    ds = lbanalysis.read(JMETER / "jmeter_slow_transcript.txt", table="all")
    printed = _INTERVAL.findall((JMETER / "jmeter_slow_transcript.txt").read_text())
    iv = ds.intervals
    assert len(iv) == len(printed) == 2
    assert iv["requests"].tolist() == [int(p[0]) for p in printed]
    assert iv["requests_per_s"].tolist() == [float(p[1]) for p in printed]
    assert iv["users"].tolist() == [int(p[4]) for p in printed] and iv["users_finished"].tolist() == [0, 8]
    assert iv["end_s"].iloc[0] == iv["start_s"].iloc[1] and iv["start_s"].iloc[0] == 0
    r = ds.runs.iloc[0]
    assert r["concurrency"] == 8 and str(r["timestamp"]) == "2026-11-27 14:37:06.604000"
    two = lbanalysis.read(JMETER / "jmeter_two_runs.txt")
    assert two["concurrency"].tolist() == [1, 4] and two["requests"].tolist() == [30, 120]


def test_a_plan_that_does_not_load_is_a_refused_command(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text(
        "$ jmeter -n -t plan.jmx -l out.jtl -Jthreads=4\n"
        "Error in NonGUIDriver com.thoughtworks.xstream.security.ForbiddenClassException: "
        "org.apache.jmeter.save.ScriptWrapper\n"
    )
    r = lbanalysis.read(path).iloc[0]
    assert r["tool"] == "jmeter" and r["error_kind"] == "command refused" and r["concurrency"] == 4
    assert "ForbiddenClassException" in r["error"]
    assert error_shares(lbanalysis.read(path)).iloc[0].isna()["error_share"]  # says nothing of the server


def test_a_console_cut_before_its_total_shows_no_result(tmp_path):
    text = (JMETER / "jmeter_slow_transcript.txt").read_text()
    path = tmp_path / "cut.txt"
    path.write_text(text.split("summary =")[0])
    r = lbanalysis.read(path, table="all")
    assert r.runs.iloc[0]["error_kind"] == "no result shown" and len(r.intervals) == 2


def test_statistics_json_total_is_the_run_every_label_metrics():
    ds = lbanalysis.read(SHAPES / "statistics_htmlreportjmeter.json", table="all")
    r = ds.runs.iloc[0]
    assert r["format"] == "jmeter-statistics-json" and r["requests"] == 10 and r["failed"] == 0
    assert r["latency_mean_s"] == pytest.approx(3.3594) and r["bytes_per_s"] == pytest.approx(52.34674697814128 * 1024)
    assert r["duration_s"] == pytest.approx(10 / 1.447596988998263)
    # the median and pct1 ... pct3 at JMeter's default percentiles (90, 95, 99)
    assert ds.percentiles[["percentile", "latency_s"]].values.tolist() == [[50, 3.048], [90, 4.6425], [95, 4.663],
                                                                            [99, 4.663]]  # fmt: skip
    assert r["requests_per_s"] == r["requests_attempted_per_s"] == 1.447596988998263
    m = ds.metrics.pivot_table(index="metric", columns="stat", values="value")
    assert set(m.index) == {"Total", "doma_bhutia_drj_haldiabatch", "yangzom_dawa_sil_haldiabatch",
                            "bhinai_tamang_kpg_haldiabatch"}  # fmt: skip
    assert m.loc["yangzom_dawa_sil_haldiabatch", "pct1"] == 3.956
    errors = lbanalysis.read(SHAPES / "statistics_errors.json")
    share = error_shares(errors).iloc[0]
    assert errors.iloc[0]["failed"] == 300 and errors.isna().iloc[0]["requests"]
    assert share["error_share"] == pytest.approx(300 / 75000) and share["attempts"] == 75000
    # with errors the run still has JMeter's throughput (samples per second, answered or not): it carries a curve
    assert errors.iloc[0]["requests_per_s"] == 1335.1372521095168 and errors.iloc[0]["latency_mean_s"] == pytest.approx(
        1.3366644266666508
    )
    study = lbanalysis.study(lbanalysis.read(SHAPES / "statistics_errors.json", table="all"))
    assert "no throughput" not in study.verdicts.iloc[0]["evidence"] and study.runs["used"].all()


def test_jmeter_5_header_with_an_unknown_host():
    r = lbanalysis.read(SHAPES / "jtl5_unknown_host.csv").iloc[0]
    assert (r["requests"], r["failed_network"], r["requests_attempted"]) == (0, 5, 5)
    assert r["error_kind"] == "no answer" and "java.net.UnknownHostException" in r["error"]
    assert r["bytes_sent"] == 0 and r["url"] == "https://backend.contoso.com/blabla"


def test_error_shares_count_network_failures_and_bad_answers():
    runs = lbanalysis.read([JMETER / "jmeter_mixed.csv", JMETER / "jmeter_refused.csv", JMETER / "jmeter_few.txt"])
    e = error_shares(runs)
    assert e["error_share"].tolist() == pytest.approx([100 / 210, 1.0, 13 / 40])
    assert e["error_basis"].tolist()[:2] == ["requests + network failures"] * 2


def test_detection_is_not_confused():
    for name in CSVS:
        assert detect((JMETER / name).read_text()) == "jmeter-csv", name
    assert detect((JMETER / "jmeter_mixed.jtl").read_text()) == "jmeter-xml"
    assert detect((SHAPES / "statistics_errors.json").read_text()) == "jmeter-statistics-json"
    for name in CONSOLES:
        assert detect((JMETER / name).read_text()) == "jmeter", name
    fixtures = JMETER.parent
    others = {
        "hey-csv": fixtures / "hey" / "hey_csv.csv",
        "oha-csv": fixtures / "oha" / "oha_slow.csv",
        "oha": fixtures / "oha" / "oha_nginx.txt",
        "vegeta-csv": fixtures / "vegeta" / "vegeta_nginx.csv",
        "wrk": fixtures / "wrk" / "wrk_basic.txt",
        "locust-stats-csv": fixtures / "locust" / "locust_nginx_stats.csv",
        "k6-csv": fixtures / "k6" / "k6_points.csv",
    }
    for fmt, path in others.items():
        assert detect(path.read_text()) == fmt, path
    assert registry.get_tool("jmeter").closed_loop and registry.get_tool("jmeter").kind == "http-load"


def test_broken_files_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.csv"
    lines = (JMETER / "jmeter_nginx.csv").read_text().splitlines()
    bad.write_text("\n".join([*lines[:3], lines[3].replace(",true,", ",maybe,"), *lines[4:6]]) + "\n")
    with pytest.raises(lbanalysis.ParseError, match=r"bad\.csv:4: "):
        lbanalysis.read(bad)
    cut = tmp_path / "cut.jtl"
    cut.write_text((JMETER / "jmeter_503.jtl").read_text().replace(' t="', ' t="x', 1))
    with pytest.raises(lbanalysis.ParseError, match=r"cut\.jtl:3: "):
        lbanalysis.read(cut)
    half = tmp_path / "half.jtl"
    half.write_text((JMETER / "jmeter_503.jtl").read_text()[:-30])
    with pytest.raises(lbanalysis.ParseError, match=r"half\.jtl.*broken JMeter XML"):
        lbanalysis.read(half)
    odd = tmp_path / "odd.csv"  # no header and 11 columns: no default layout
    odd.write_text(",".join(lines[0].split(",")[:11]) + "\n")
    assert not detect(odd.read_text()) or detect(odd.read_text()) != "jmeter-csv"


def test_downstream_summary_compare_and_study(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    for name in ("jmeter_two_runs.txt", "jmeter_nginx.csv"):
        shutil.copy(JMETER / name, a / name)
    for name in ("jmeter_two_runs.txt", "jmeter_mixed.csv"):
        shutil.copy(JMETER / name, b / name)
    assert cli.main(["summary", str(a)]) == 0
    out = capsys.readouterr().out
    assert "jmeter" in out and "3 run(s)" in out
    assert cli.main(["compare", str(a), str(b)]) == 0
    assert "jmeter" in capsys.readouterr().out
    st = lbanalysis.study(lbanalysis.read(b, table="all"))
    frame = st.summary_frame()
    assert len(frame) >= 1 and frame["verdict"].notna().all()


def test_explore_sections_on_a_folder_of_jmeter_outputs(tmp_path):
    from lbanalysis.report import explore

    for name in ("jmeter_two_runs.txt", "jmeter_slow_transcript.txt", "jmeter_mixed.csv", "jmeter_mixed.jtl"):
        shutil.copy(JMETER / name, tmp_path / name)
    ds = explore.load(tmp_path)
    opening = explore.opening_section(ds, tmp_path)
    assert "jmeter" in " ".join(opening.text) + " ".join(t.to_string() for t in opening.tables)
    conclusion = explore.conclusion_section(ds)
    table = conclusion.tables[0]
    assert len(table) == len(lbanalysis.study(ds).verdicts) >= 1
    runs = explore.runs_section(ds)
    assert sum(len(t) for t in runs.tables) == len(ds.runs) == 5


def test_a_generate_summary_results_listener_prints_under_its_own_name():
    """JMeter 3.0's release notes: `Generate Summary Results +` / `=` (a listener's name of three words, the
    duration as HH:MM:SS). The last `=` line is the run (32257 samples in 00:03:39 at 147.3/s), the `+` lines its
    intervals; the most Active threads (50) its concurrency."""
    ds = lbanalysis.read(JMETER / "shapes" / "jmeter_3.0_generate_summary_results.txt", table="all")
    assert len(ds.runs) == 1
    r = ds.runs.iloc[0]
    assert (r["requests"], r["requests_per_s"], r["concurrency"], r["failed"]) == (32257, 147.3, 50, 0)
    assert r["latency_max_s"] == 0.001
    assert set(ds.intervals["stream"]) == {"Generate Summary Results"}
    assert ds.intervals["requests"].tolist() == [1, 138, 467, 1662, 1664, 1661]
