"""The explore notebook and the library functions it calls."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import nbformat
import pandas as pd
import pytest

import lbanalysis
from lbanalysis import cli, report
from lbanalysis.errors import LBAnalysisError
from lbanalysis.formatting import fmt
from lbanalysis.report import explore
from tests.conftest import FIXTURES, ROOT, corpus

AB = FIXTURES / "ab"
SIEGE = FIXTURES / "siege"
WORDPRESS = ROOT / "data" / "raw" / "haproxy-wordpress-ab"
NOTEBOOK = report.EXPLORE_NOTEBOOK
SECTIONS = (
    "Conclusion",
    "What bounded each series",
    "Throughput and latency against load",
    "Saturation knee",
    "Latency percentiles",
    "Tail latency, corrected for coordinated omission",
    "Per-request time series",
    "Network utilisation",
    "Load balancer",
    "Comparison of groups",
    "Series, one by one",
    "What was read",
    "Runs",
)


def html_text(path: Path) -> str:
    """The visible text of an nbconvert HTML page (no styles, scripts, tags, images)."""
    s = path.read_text(encoding="utf-8")
    s = re.sub(r"<(style|script)\b.*?</\1>", " ", s, flags=re.S)
    s = re.sub(r"</?code>", "", s)
    s = re.sub(r"<[^>]+>", " ", s)
    return re.sub(r"\s+", " ", html.unescape(s))


def plain(message: str) -> str:
    """An ABSENT message as the HTML shows it (`code` marks dropped)."""
    return message.replace("`", "")


# ------------------------------------------------------------ notebook ---
def test_notebook_is_stripped_and_has_one_parameters_cell():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    assert nb.metadata["kernelspec"]["name"] == "python3"


def test_notebook_parameters_are_typed_and_commented():
    params = report.notebook_parameters(NOTEBOOK)
    expected = {
        "logs": "str",
        "pattern": "Optional[str]",
        "manifest": "Optional[str]",
        "load": "str",
        "group": "Optional[str]",
        "link_capacity": "Optional[str]",
        "iperf": "Optional[str]",
        "threshold": "float",
        "output_dir": "Optional[str]",
        "fit_model": "str",
    }
    for name, type_name in expected.items():
        assert params[name]["inferred_type_name"] == type_name, name
        assert params[name]["help"], f"{name} has no comment"
    assert params["load"]["default"] == '"concurrency"'
    assert params["threshold"]["default"] == "0.8"
    assert params["fit_model"]["default"] == '"usl"'
    # the default points at a bundled folder, found from any working directory
    assert Path(explore.resolve(eval(params["logs"]["default"]))).is_dir()


def test_notebook_cells_carry_no_logic():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code" and "parameters" not in c.metadata.get("tags", [])]
    for src in code:
        for word in ("def ", "for ", "if ", "while ", "lambda", "import pandas", "import matplotlib", ".groupby"):
            assert word not in src, f"logic in the notebook: {src!r}"
    headings = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "markdown"]
    assert [h.lstrip("# ") for h in headings] == [
        "Explore load-test outputs",
        "Appendix",
    ]  # the rest: each section's own


# ------------------------------------------------------------- reading ---
def test_load_missing_path():
    with pytest.raises(LBAnalysisError, match="no such file or folder"):
        explore.load("/nonexistent/logs")


def test_read_summary_lists_skipped_files_and_why(tmp_path):
    shutil.copy(AB / "ab_c10.txt", tmp_path)
    shutil.copy(AB / "ab_version.txt", tmp_path)
    (tmp_path / "notes.dat").write_text("not a tool output\n")
    (tmp_path / "README.md").write_text("# notes\n")
    s = explore.read_summary(explore.load(tmp_path))
    assert s.text[0] == "1 file read, 1 run: ab 1."
    counts, series, skipped, not_runs = s.tables
    # the study's series: its one run is too short for a curve, as every other section says
    assert series[["series", "runs", "runs in curves", "loads in curves", "enough for"]].to_dict("records") == [
        {"series": "ab 127.0.0.1:18080/", "runs": 1, "runs in curves": 0, "loads in curves": 0,
         "enough for": "no curve (too few loads)"}
    ]  # fmt: skip
    assert counts.to_dict("records") == [{"tool": "ab", "files": 1, "runs": 1, "with error": 0}]
    assert skipped["file"].tolist() == ["notes.dat"]
    assert skipped["why"].tolist() == ["line 1: no known format recognised"]
    # a version banner is read, but it is not a test: listed apart, not counted, not skipped
    assert "1 output is not a test" in " ".join(s.text)
    assert not_runs[["file", "tool", "what"]].to_dict("records") == [
        {"file": "ab_version.txt", "tool": "ab", "what": "version banner"}
    ]
    assert any("README.md" in t for t in s.text)


def test_runs_section_writes_runs_csv(tmp_path):
    ds = explore.load(WORDPRESS)
    s = explore.runs_section(ds, tmp_path)
    table = s.tables[0]
    assert len(table) == 8
    assert {"test", "target", "concurrency", "requests/s"} <= set(table.columns)
    back = pd.read_csv(tmp_path / "runs.csv")
    assert back["requests_per_s"].tolist() == ds.runs["requests_per_s"].tolist()


def test_runs_of_several_kinds_get_a_table_each():
    ds = explore.load([AB / "ab_c10.txt", FIXTURES / "iperf3" / "iperf3_client_logfile.txt"])
    s = explore.runs_section(ds)
    assert s.text == ["HTTP load tests: 1 run (ab).", "Network tests: 1 run (iperf3)."]
    http, network = s.tables
    assert "requests/s" in http.columns and "rate (Mbit/s)" not in http.columns
    assert "rate (Mbit/s)" in network.columns and "requests/s" not in network.columns
    # each row keeps its own figures (the network run comes second in the runs table)
    assert http.loc[0, "requests/s"] == ds.runs.loc[0, "requests_per_s"]
    assert network.loc[0, "rate (Mbit/s)"] == pytest.approx(ds.runs.loc[1, "bits_per_s"] / 1e6)


def test_unknown_group_column_is_named():
    ds = explore.load(WORDPRESS)
    with pytest.raises(LBAnalysisError, match=r"group column 'setup' is not in the runs table \(columns from"):
        explore.scaling_section(ds.runs, "concurrency", "setup")


# ------------------------------------------------------------ sections ---
def test_scaling_section_per_group(tmp_path):
    ds = explore.load(WORDPRESS)
    s = explore.scaling_section(ds.runs, "concurrency", "target", "usl", tmp_path)
    assert not s.absent
    table = s.tables[0].set_index("target")
    assert table.index.tolist() == ["apache", "haproxy"]
    # apache ran at 10, 20, 30 and 150 clients: 4 loads leave the 3 USL parameters one degree of freedom
    assert table.loc["apache", "loads"] == 4 and table.loc["apache", "fitted"] == "no"
    assert table.loc["apache", "verdict"] == "too few loads for a usl fit: 4 (it needs 5)"
    assert table.loc["haproxy", "verdict"] == "too few loads for a usl fit: 2 (it needs 5)"
    assert (tmp_path / "throughput-latency.png").stat().st_size > 10_000
    ax = s.figures[0].axes[0]
    assert {t.get_text() for t in s.figures[0].legends[0].get_texts()} == {"apache", "haproxy"}
    assert not ax.collections  # no confidence band: no curve was fitted
    # Amdahl (2 parameters) with 4 loads: fitted only if it explains the points
    amdahl = explore.scaling_section(ds.runs, "concurrency", "target", "amdahl").tables[0].set_index("target")
    r2 = amdahl.loc["apache", "r2"]
    assert amdahl.loc["apache", "fitted"] == ("yes" if r2 >= 0.8 else "no")
    assert amdahl.loc["apache", "verdict"].startswith("amdahl fits" if r2 >= 0.8 else "no model fits these points")


def test_no_fit_across_unrelated_targets(tmp_path):
    """Real outputs of unrelated people's servers: every series stands alone, none is pooled into a curve."""
    folder = tmp_path / "logs"
    for p in sorted(corpus("public", "ab").iterdir()):
        shutil.copy(p, folder / p.name) if folder.exists() else (folder.mkdir(), shutil.copy(p, folder / p.name))
    for name in ("ab_c1.txt", "ab_c10.txt", "ab_c50.txt", "ab_keepalive.txt"):
        shutil.copy(AB / name, folder / name)
    runs = explore.load(folder).runs
    s = explore.scaling_section(runs)
    table = s.tables[0]
    # the three captured runs against one nginx form one series; the public runs are each their own, at one
    # load each: counted, not drawn
    assert table["series"].tolist() == ["ab 127.0.0.1:18080/"]
    assert re.search(r"\d+ series \(same tool, target and settings\); 1 ran at two concurrency values", s.text[0])
    local = table.iloc[0]
    # each of them ran under a second: kept and drawn hollow, but no curve rests on them
    assert local["loads"] == 0 and local["fitted"] == "no" and local["verdict"].startswith("no run counts in curves")
    assert "0 of them have a Universal Scalability Law curve that fits" in s.text[0]


def test_sections_say_when_data_is_absent():
    ds = explore.load(AB / "ab_c10.txt")
    assert explore.scaling_section(ds.runs).text == [explore.ABSENT["loads"].format(load="concurrency")]
    assert explore.knee_section(ds.runs).text == [explore.ABSENT["knee"].format(load="concurrency")]
    assert explore.timeseries_section(ds).text == [explore.ABSENT["requests"]]
    assert explore.network_section(ds).text == [explore.ABSENT["capacity"]]
    assert explore.compare_section(ds.runs).text == [explore.ABSENT["group"]]
    assert explore.compare_section(ds.runs.assign(setup="x"), "setup").text == [
        explore.ABSENT["one_group"].format(group="setup")
    ]
    assert not explore.percentiles_section(ds).absent  # ab printed them
    siege = explore.load(SIEGE / "siege_plain_nginx_fast.txt")
    assert explore.percentiles_section(siege).text == [explore.ABSENT["percentiles"]]
    assert all(s.absent for s in [explore.scaling_section(siege.runs), explore.timeseries_section(siege)])


def test_tail_section_on_captured_stalls(tmp_path):
    ds = explore.load(FIXTURES / "stall")
    s = explore.tail_section(ds, tmp_path)
    assert not s.absent
    # the sentence is computed from the table beside it
    (table,) = s.tables
    assert set(table["tool"]) == {"ab", "hey", "siege"}
    row = table.loc[(table["p99 corrected (ms)"] / table["p99 (ms)"]).idxmax()]
    assert s.text[0] == (
        f"Largest gap: `{row['source']}` printed a 99th percentile of {fmt(row['p99 (ms)'] / 1e3, 's')}; corrected "
        f"for the requests its stalls kept from being sent, {fmt(row['p99 corrected (ms)'] / 1e3, 's')}."
    )
    assert (table["p99 corrected (ms)"] > 400).all() and (table["p99 (ms)"] < 50).all()
    assert (tmp_path / "latency_tail.png").exists()
    # ab's percentiles come with the closed-loop warning
    assert explore.percentiles_section(ds).text[-1].startswith("These tools are closed-loop")
    assert explore.tail_section(explore.load(AB / "ab_c10.txt")).text == [explore.ABSENT["tail"]]


def test_series_section_one_part_per_series(tmp_path):
    runs = [AB / n for n in ("ab_c1.txt", "ab_c10.txt", "ab_c50.txt", "ab_keepalive.txt", "ab_non2xx_503.txt")]
    ds = explore.load(runs)
    s = explore.series_section(ds, output_dir=tmp_path)
    # three series (one per target and setting); only -c 1/10/50 against nginx ran at more than one load
    assert s.text[0] == "1 of 3 series ran at two loads or more."
    assert s.text[1] == "### ab 127.0.0.1:18080/"
    # each run is shorter than a second: kept, shown, but no curve can carry a verdict
    assert s.text[2].startswith("Cannot tell: no run can carry a curve: too short (3)")
    (table,) = s.tables
    assert table["concurrency"].tolist() == [1, 10, 50] and table["runs"].tolist() == [1, 1, 1]
    plain = ds.runs[ds.runs["source"].str.contains(r"ab_c\d+\.txt$")]
    assert table["requests_per_s"].tolist() == plain.sort_values("concurrency")["requests_per_s"].tolist()
    assert '<h4 id="ab-127.0.0.1:18080/">ab 127.0.0.1:18080/</h4>' in s._repr_html_()  # in the appendix
    assert (tmp_path / "series.png").exists()


def test_percentile_table_in_ms():
    ds = explore.load(AB / "ab_c50.txt")
    table = explore.percentile_table(ds.percentiles, ds.runs)
    assert table.columns.tolist() == ["source", "run", "concurrency"] + [
        f"p{p} (ms)" for p in (50, 66, 75, 80, 90, 95, 98, 99, 100)
    ]
    pct = ds.percentiles.set_index("percentile")["latency_s"]
    assert table.loc[0, "p99 (ms)"] == pytest.approx(pct[99.0] * 1e3)


def test_per_request_timeseries_from_ab_gnuplot():
    ds = lbanalysis.read(AB / "ab_gnuplot.tsv", table="all")
    ts = explore.per_request_timeseries(ds.requests, freq="1s")
    assert ts["requests"].sum() == len(ds.requests) == 1000
    assert (ts["requests_per_s"] == ts["requests"]).all()  # 1 s bins
    weighted = (ts["latency_mean_s"] * ts["requests"]).sum() / ts["requests"].sum()
    assert weighted == pytest.approx(ds.requests["latency_s"].mean())


def test_per_request_timeseries_from_wall_clock_start():
    t0 = pd.Timestamp("2024-01-01 12:00:00")
    req = pd.DataFrame(
        {
            "source": "x",
            "run": 0,
            "start": [t0, t0 + pd.Timedelta("200ms"), t0 + pd.Timedelta("700ms"), t0 + pd.Timedelta("1100ms")],
            "start_s": float("nan"),
            "latency_s": [0.1, 0.2, 0.3, 0.4],
        }
    )
    ts = explore.per_request_timeseries(req, freq="500ms")
    assert ts["t_s"].tolist() == [0.0, 0.5, 1.0]
    assert ts["requests_per_s"].tolist() == [4.0, 2.0, 2.0]
    assert ts["latency_max_s"].tolist() == [0.2, 0.3, 0.4]


def test_wrk2_uncorrected_latencies_are_not_mixed_into_the_recorded_line():
    ds = lbanalysis.read(FIXTURES / "wrk" / "wrk2_u_latency.txt", table="all")
    kinds = {"recorded", "uncorrected", "recorded printed", "uncorrected printed"}  # spectra and the lines above
    assert set(ds.percentiles["kind"]) == kinds
    s = explore.percentiles_section(ds)
    assert s.text[0].startswith("wrk2 also printed, for 1 run, the latencies it measured without correcting")
    recorded = ds.percentiles[ds.percentiles["kind"] == "recorded"].set_index("percentile")["latency_s"]
    assert s.tables[0].loc[0, "p99 (ms)"] == pytest.approx(recorded[99.0] * 1e3)
    # and the CLI summary's p99 is the recorded one too
    from lbanalysis.cli import summary_table

    table = summary_table(ds.runs, percentiles=ds.percentiles)
    assert table.loc[0, "p99 ms"] == f"{recorded[99.0] * 1e3:.2f}"


def test_a_corrected_tail_below_the_printed_one_is_explained():
    # 227 of 3,001 siege requests took over 10 expected intervals: the added requests outnumber the printed tail
    ds = explore.load(corpus("public", "siege", "donejs__ssr-perf__siege.txt"))
    s = explore.tail_section(ds)
    (row,) = s.tables[0].to_dict("records")
    assert row["p99 corrected (ms)"] < row["p99 (ms)"] and row["slow requests"] == 227
    assert s.text[-1].startswith("1 run (`donejs__ssr-perf__siege.txt`) has a corrected 99th percentile below")


def test_edge_bins_are_partial_and_left_out_of_the_rates():
    ds = lbanalysis.read([FIXTURES / "stall" / "ab_stall.tsv", FIXTURES / "stall" / "hey_stall.csv"], table="all")
    ts = explore.per_request_timeseries(ds.requests, freq="1s")
    flags = {src.rsplit("/", 1)[-1]: g["partial"].tolist() for src, g in ts.groupby("source", observed=True)}
    # ab -g logs starts to the second: the run began somewhere in its first bin and ended in its last
    assert flags["ab_stall.tsv"] == [True, True]
    # hey logs offsets from the first request: only the last bin is cut short
    assert flags["hey_stall.csv"] == [False, False, True]
    table = explore.timeseries_section(ds).tables[0].set_index("source")
    assert table.loc["ab_stall.tsv", "full_bins"] == 0 and pd.isna(table.loc["ab_stall.tsv", "peak_req_per_s"])
    hey = ts[ts["source"].str.endswith("hey_stall.csv")]
    assert table.loc["hey_stall.csv", "peak_req_per_s"] == hey.loc[~hey["partial"], "requests_per_s"].max()


def test_timeseries_of_logs_without_start_times_says_so():
    stall = FIXTURES / "stall"
    siege = lbanalysis.read(stall / "siege_stall_verbose.txt", table="all")
    assert len(siege.requests) and siege.requests["start_s"].isna().all()
    assert explore.timeseries_section(siege).text == [explore.ABSENT["start times"]]
    both = lbanalysis.read([stall / "siege_stall_verbose.txt", stall / "hey_stall.csv"], table="all")
    s = explore.timeseries_section(both)
    assert (
        "1 of the 2 runs with per-request logs log no start times (siege -v logs none): they are not drawn." in s.text
    )
    assert s.tables[0]["source"].tolist() == ["hey_stall.csv"]


def test_timeseries_section(tmp_path):
    ds = explore.load(FIXTURES / "stall" / "hey_stall.csv")
    s = explore.timeseries_section(ds, output_dir=tmp_path)
    assert s.tables[0].loc[0, "source"] == "hey_stall.csv"
    assert {t.get_text() for t in s.figures[0].legends[0].get_texts()} == {"hey_stall.csv"}  # named by its file
    assert (tmp_path / "timeseries.png").exists()
    # a run within one bin: nothing to draw over time, said in a line, and its counts in the table
    short = explore.timeseries_section(explore.load(AB / "ab_gnuplot.tsv"), output_dir=tmp_path / "short")
    assert not short.figures and short.tables[0].loc[0, "requests"] == 1000
    assert short.text[-1].startswith("The run with start times lasted under two bins of 1s: nothing to draw")


def test_knee_section_per_group():
    ds = explore.load(WORDPRESS)
    s = explore.knee_section(ds.runs, "concurrency", "target")
    table = s.tables[0]
    # haproxy ran at 2 loads: no knee is looked for there, and the section says so
    assert table.index.tolist() == ["apache"]
    assert table.loc["apache", "knee concurrency"] in (10, 20, 30, 150)
    assert s.text[0] == "1 of 2 series ran at three concurrency values or more: a knee is looked for only in those."


def test_network_section_with_a_given_capacity(tmp_path):
    ds = explore.load([AB / "ab_c1.txt", AB / "ab_c10.txt", AB / "ab_c50.txt", AB / "ab_10k_body.txt"])
    s = explore.network_section(ds, "1 Gbit/s", threshold=0.8, output_dir=tmp_path)
    assert s.text[0].startswith("Capacity given: 1 Gbit/s, for every path")
    table = s.tables[0]
    assert table["utilisation (%)"].tolist() == pytest.approx((table["used Mbit/s"] / 10).tolist())
    s = explore.network_section(ds, "100 Mbit/s", threshold=0.8, output_dir=tmp_path)
    table = s.tables[0]
    assert len(table) == 4
    assert table["utilisation (%)"].tolist() == pytest.approx(table["used Mbit/s"].tolist())
    # ab counts every byte received: the wire carries at least that much
    assert (table["used Mbit/s"] >= ds.runs["bytes_per_s"] * 8 / 1e6).all()
    # 100 MB/s of 10 kB pages cannot go through a 100 Mbit/s link: a capacity mismatch, not a network-bound run
    big = table[table["source"] == "ab_10k_body.txt"].iloc[0]
    assert big["utilisation (%)"] > 100 and big["bound by"] == "capacity mismatch"
    assert "Mbit/s (wire) against 100 Mbit/s for its path (given: 100 Mbit/s)" in big["why"]
    rest = table[table["source"] != "ab_10k_body.txt"]
    assert (rest["bound by"] == "network").tolist() == (rest["utilisation (%)"] >= 80).tolist()
    # the labels are the study's own (one judgement, shown here)
    from lbanalysis.report.explore.study import study_of

    assert table["bound by"].tolist() == study_of(ds, "100 Mbit/s", threshold=0.8).runs["path_bound"].tolist()
    assert "capacity mismatch, not a verdict" in s.text[1]
    assert (tmp_path / "utilisation.png").exists()


def test_network_section_capacity_per_host():
    ds = explore.load([AB / "ab_c10.txt", FIXTURES / "haproxy" / "ab_through_haproxy.txt"])
    s = explore.network_section(ds, "127.0.0.1=1 Gbit/s")
    assert s.text[0].startswith("Capacity given per host: 127.0.0.1 1 Gbit/s")
    assert s.tables[0]["capacity Mbit/s"].tolist() == [1000.0, 1000.0]
    s = explore.network_section(ds, "lb.example=1 Gbit/s")
    assert "2 runs have no measured path to their host" in s.text[-1]
    with pytest.raises(LBAnalysisError, match="host=rate pairs"):
        explore.network_section(ds, "=1 Gbit/s,")


def test_network_section_capacity_from_iperf_folder(tmp_path):
    iperf = tmp_path / "iperf"
    iperf.mkdir()
    src = corpus("public", "iperf3", "Mejtus1__Iperf__iperf.txt")
    shutil.copy(src, iperf)
    measured = lbanalysis.read(iperf)
    s = explore.network_section(explore.load(WORDPRESS), iperf=iperf)
    assert (
        f"measured by {len(measured)} iperf run{'' if len(measured) == 1 else 's'} in `{iperf}`, per path" in s.text[0]
    )
    # that iperf file measured other people's hosts: nothing is pooled into "the" capacity of these runs
    assert "8 runs have no measured path to their host: no utilisation." in s.text[-1]
    # the path iperf measured is listed; no run has a utilisation, so no run table is shown
    (paths,) = s.tables
    assert paths["iperf runs"].sum() == len(measured) and not s.figures


def test_compare_section():
    ds = explore.load(WORDPRESS)
    s = explore.compare_section(ds.runs, "target", "concurrency")
    table = s.tables[0]
    assert set(table["a"]) == {"apache"} and set(table["b"]) == {"haproxy"}
    overall = table[table["at"] == "overall"].iloc[0]
    runs = ds.runs
    means = runs.groupby("target")["requests_per_s"].mean()
    assert overall["ratio"] == pytest.approx(means["haproxy"] / means["apache"])
    assert len(s.figures) == 1


def test_section_renders_html():
    s = explore.Section("T").add("a `col` <b>").add(pd.DataFrame({"x": [1.5]}))
    fig, (ax,) = explore._figure()
    ax.plot([0, 1], [0, 1])
    out = s.add(fig)._repr_html_()
    assert "<code>col</code> &lt;b&gt;" in out
    assert "<table" in out
    assert '<img src="data:image/png;base64,' in out


# ------------------------------------------------ executed notebooks ---
def _copy(src: Path, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, dest / src.name)


def _first(fixture_dir: Path, pattern: str, *corpus_parts: str) -> list[Path]:
    """Fixture files matching ``pattern``, else the corpus files (skips when neither exists)."""
    found = sorted(fixture_dir.glob(pattern)) if fixture_dir.is_dir() else []
    if found:
        return found[:2]
    folder = corpus(*corpus_parts)
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix != ".md")[:2]


@pytest.fixture
def mixed_folder(tmp_path: Path) -> Path:
    """ab (two setups, per-request log, percentiles), siege, gobench and iperf outputs, and a junk file."""
    root = tmp_path / "mixed"
    for name in ("ab_c1.txt", "ab_c10.txt", "ab_c50.txt", "ab_gnuplot.tsv"):
        _copy(AB / name, root / "setup-a")
    for name in ("ab_transcript_keepalive.txt", "ab_keepalive.txt"):
        _copy(AB / name, root / "setup-b")
    for name in ("siege_plain_nginx_fast.txt", "siege_benchmark.txt"):
        _copy(SIEGE / name, root / "siege")
    for p in _first(FIXTURES / "gobench", "gobench_*.txt", "lab", "gobench"):
        _copy(p, root / "gobench")
    _copy(corpus("public", "iperf3", "Mejtus1__Iperf__iperf.txt"), root / "iperf")  # someone else's path
    _copy(FIXTURES / "iperf3" / "iperf3_tcp_client.txt", root / "iperf")  # the path to 127.0.0.1, as the ab runs
    (root / "notes.dat").write_text("not the output of a tool\n")
    return root


@pytest.mark.slow
def test_explore_notebook_on_a_mixed_folder(mixed_folder, tmp_path):
    out = tmp_path / "report"
    params = {"logs": str(mixed_folder), "pattern": "{setup}/*", "group": "setup", "threshold": 0.9}
    page = report.run_notebook(NOTEBOOK, params, out, name="explore")
    text = html_text(page)
    for title in SECTIONS:
        assert title in text
    assert "Traceback" not in text
    assert "notes.dat line 1: no known format recognised" in text
    assert re.search(r"Capacity measured by \d+ iperf runs? among these files", text)
    assert "each HTTP run is compared with the path to its own host" in text
    # two gobench runs: compare() says it cannot judge (needs 3 a side) instead of claiming a difference
    assert (
        "setup-b vs " in text
        or "setup-b is" in text
        or "too few runs to tell (gobench: 2 runs, setup-b: 4 runs" in text
    )
    for absent in ("requests", "percentiles", "capacity", "group"):
        assert plain(explore.ABSENT[absent]) not in text
    runs = pd.read_csv(out / "runs.csv")
    assert {"ab", "siege", "gobench", "iperf3"} <= set(runs["tool"])
    assert set(runs["setup"]) == {"setup-a", "setup-b", "siege", "gobench", "iperf"}
    # the iperf folder is a sibling of the HTTP runs' folders: another origin, so its paths are shown but
    # applied to no run (no utilisation chart)
    assert "only from another origin: not applied" in text
    for png in ("throughput-latency", "percentiles", "comparison"):
        assert (out / f"{png}.png").exists(), png
    # ab -g's run lasted under two one-second bins: said, not drawn
    assert "The run with start times lasted under two bins of 1s" in text
    # the conclusion first, the evidence, then the appendix; no programmer's notation in sight
    assert text.index("Conclusion") < text.index("What bounded each series") < text.index("Appendix")
    assert text.index("Appendix") < text.index("What was read") < text.index("Runs")
    assert not re.search(r"\d\.?\d*e[+-]\d\d", text) and "summary_frame" not in text
    executed = nbformat.read(out / "explore.ipynb", as_version=4)
    assert executed.metadata["papermill"]["parameters"]["group"] == "setup"


@pytest.mark.slow
def test_explore_command_on_one_tool(tmp_path, capsys):
    out = tmp_path / "wordpress"
    status = cli.main(["explore", str(WORDPRESS), "-o", str(out), "--no-input"])
    err = capsys.readouterr().err
    assert status == 0, err
    assert sorted(p.name for p in out.iterdir() if p.suffix != ".png") == ["explore.html", "explore.ipynb", "runs.csv"]
    text = html_text(out / "explore.html")
    for title in SECTIONS:
        assert title in text
    for absent in ("requests", "percentiles", "capacity", "group", "tail"):
        assert plain(explore.ABSENT[absent]) in text, absent
    assert "8 files read, 8 runs: ab 8." in text
    assert "ex.read_summary" not in text and "read_summary" not in text  # --no-input
    executed = nbformat.read(out / "explore.ipynb", as_version=4)
    assert executed.metadata["papermill"]["parameters"]["logs"] == str(WORDPRESS.resolve())
    assert len(pd.read_csv(out / "runs.csv")) == 8


def test_check_parameters_fails_early():
    ds = explore.load(WORDPRESS)
    explore.check_parameters(ds, load="concurrency", group="target")
    with pytest.raises(LBAnalysisError, match="load column 'clients'"):
        explore.check_parameters(ds, load="clients")
    with pytest.raises(LBAnalysisError, match="fit_model must be"):
        explore.check_parameters(ds, fit_model="cubic")
    with pytest.raises(LBAnalysisError, match="between 0 and 1"):
        explore.check_parameters(ds, threshold=80)


def test_explore_command_fails_when_nothing_was_read(tmp_path, capsys):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "notes.dat").write_text("not the output of a tool\n")
    out = tmp_path / "report"
    assert cli.main(["explore", str(tmp_path / "logs"), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "no runs found in" in err and "1 file could not be read: notes.dat" in err and "no report written" in err
    assert not out.exists()


def test_load_balancer_one_table_per_distinct_snapshot_and_per_run():
    ds = explore.load(FIXTURES / "haproxy")
    s = explore.load_balancer_section(ds)
    # the transcript's show stat before and after its ab run: the run's own counts, first
    assert s.text[:2] == ["### Per load-test run", "1 run with a snapshot just before and just after it: the requests "
                          "each server was given during the run."]  # fmt: skip
    assert s.text[2].startswith("transcript_socat.txt (ab), backend `app`: 3 servers")
    # one show stat saved as CSV (three HAProxy versions), typed output, JSON and the stats page: one table
    forms = [t for t in s.text if t.startswith("7 files (")]
    assert len(forms) == 1 and "show_stat.json" not in forms[0]  # three named, then "and 4 more"
    assert sum(t.startswith(("7 files", "`show_stat_during.csv`")) for t in s.text) == 2
    assert len(s.tables) == 3  # the run, the seven files' snapshot, the one taken during a run
    run = s.tables[0]
    assert run["requests"].tolist() == [189, 204, 207] and run["maxconn reached"].tolist() == ["yes"] * 3
    assert not any("True" in str(v) for t in s.tables for v in t.to_numpy().ravel())


def test_conclusion_is_one_line_per_series_of_the_study():
    ds = explore.load(WORDPRESS)
    st = explore.study_of(ds)
    s = explore.conclusion_section(ds)
    (table,) = s.tables
    frame = st.summary_frame().set_index("series")
    assert sorted(table["series"]) == sorted(frame.index)
    for row in table.itertuples(index=False):
        assert (row.verdict, row.resource, row.confidence) == tuple(
            frame.loc[row.series, ["verdict", "resource", "confidence"]]
        )
    for row in table.itertuples(index=False):  # the best mean throughput of a load, at that load
        mine = st.runs[(st.runs["series"] == row.series) & st.runs["used"]]
        means = mine.groupby("concurrency")["requests_per_s"].mean()
        assert row[4] == pytest.approx(means.max()) and row[5] == means.idxmax()
    assert s.text[0].startswith(f"{len(frame)} series. Verdicts: ")


# ------------------------------------------------------------ open loop ---
def test_a_fixed_rate_series_is_shown_against_the_rate_asked():
    """vegeta at 50 to 300 requests/s before a server that answers at most 200/s (captured scenario): its
    series is judged, tabled and drawn against the rate asked, beside closed-loop series of concurrency, and
    no section says it ran "at one concurrency" or leaves its best rate and its rate empty."""
    ds = explore.load([FIXTURES / "scenarios" / "saturation" / t for t in ("ab", "hey", "vegeta")])
    name = "vegeta 127.0.0.1:18522/slow?ms=20 [vegeta]"
    st = explore.study_of(ds)
    table = explore.conclusion_table(st, ds.percentiles).set_index("series")
    assert table.loc[name, "at load"] == "rate 300" and table.loc[name, "best requests/s"] == pytest.approx(190.8)
    assert table.loc[name.replace("vegeta", "ab").replace("18522", "18520"), "at load"] == "concurrency 4"
    s = explore.open_loop_section(ds)
    assert not s.absent and len(s.figures) == 1
    assert s.text == [
        f"{name}: the answers kept up with the rate asked up to 150 requests/s (149 answered); at 300 requests/s "
        "asked (301 sent) they came at 191 (64%, below 90%)."
    ]
    rows = s.tables[0].set_index("rate asked (requests/s)")
    assert rows.loc[300.0, "answers / asked (%)"] == pytest.approx(63.6, abs=0.1)
    assert "1 fixed-rate series varies the rate asked" in explore.scaling_section(ds).text[0]
    knee = explore.knee_section(ds).tables[0]
    assert knee.loc[name, "knee"] == "rate 150" and knee.loc[name, "saturated"] == "yes"
    assert explore.series_section(ds).text[0] == "3 of 3 series ran at two loads or more."


def test_no_open_loop_section_without_a_fixed_rate_series():
    s = explore.open_loop_section(explore.load(FIXTURES / "scenarios" / "saturation" / "ab"))
    assert s.absent and s.text == ["No series of a fixed-rate tool ran at two rates or more."]


def test_a_rate_of_failures_is_said_to_be_one():
    """Every answer a 404 (the errors-404 scenario): the tools still print requests/s; the conclusion says those
    count failures, naming the series, instead of leaving 30,000 requests/s beside "errors" unexplained."""
    ds = explore.load(FIXTURES / "scenarios" / "errors-404")
    text = explore.conclusion_section(ds).text
    said = [t for t in text if "every attempt of every run failed" in t]
    assert said == [
        "In 2 series (hey 127.0.0.1:18543/missing.html [hey], wrk 127.0.0.1:18543/missing.html [wrk]) every attempt "
        "of every run failed, yet a rate was printed: those requests/s count failures (ab counts a refused or "
        "failed request as completed, wrk and hey an error page as an answer), not service."
    ]
    assert not any(
        "every attempt" in t for t in explore.conclusion_section(explore.load(FIXTURES / "scenarios" / "healthy")).text
    )
