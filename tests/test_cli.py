"""The ``lbanalysis`` command line: exit codes, files written, values in them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis import cli
from tests.conftest import FIXTURES, ROOT, corpus

AB = FIXTURES / "ab"
WORDPRESS = ROOT / "data" / "raw" / "haproxy-wordpress-ab"
LBBENCH = ROOT / "data" / "raw" / "lbbench"
VENV_BIN = Path(sys.executable).parent


def printed_rps(path: Path) -> float:
    """The 'Requests per second' figure as ab printed it in the file."""
    m = re.search(r"Requests per second:\s+([\d.]+)", path.read_text())
    assert m, path
    return float(m.group(1))


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def good_and_junk(tmp_path: Path) -> Path:
    """Three ab outputs and a file no reader recognises."""
    folder = tmp_path / "logs"
    folder.mkdir()
    for name in ("ab_c1.txt", "ab_c10.txt", "ab_c50.txt"):
        shutil.copy(AB / name, folder / name)
    (folder / "zz_junk.txt").write_text("this is not the output of any load-test tool\n")
    return folder


# ---------------------------------------------------------------- help ---
def test_console_script_help_subprocess():
    exe = VENV_BIN / "lbanalysis"
    if not exe.exists():
        pytest.skip("console script not installed (make venv installs it)")
    proc = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert "examples:" in proc.stdout
    for command in ("read", "summary", "report", "explore"):
        assert command in proc.stdout


@pytest.mark.parametrize("command", ["read", "summary", "report", "explore"])
def test_each_command_help_has_an_example(command, capsys):
    status, out, _ = run([command, "--help"], capsys)
    assert status == 0
    assert "examples:" in out
    assert f"lbanalysis {command}" in out.split("examples:")[1]


def test_python_m_summary_subprocess():
    proc = subprocess.run(
        [sys.executable, "-m", "lbanalysis", "summary", str(AB / "ab_c10.txt"), str(AB / "ab_c50.txt")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["source", "run", "tool"]
    row = next(ln for ln in lines if ln.startswith("ab_c10.txt"))
    assert f"{printed_rps(AB / 'ab_c10.txt'):.1f}" in row.split()
    assert lines[-1].startswith("2 run(s) from 2 file(s): ab 2")
    assert proc.stderr == ""


def test_no_command_is_a_usage_error(capsys):
    status, _, err = run([], capsys)
    assert status == 2
    assert "usage:" in err


def test_version(capsys):
    status, out, _ = run(["--version"], capsys)
    assert status == 0 and out.strip() == f"lbanalysis {lbanalysis.__version__}"


# ---------------------------------------------------------------- read ---
def test_read_csv_values_match_the_files(tmp_path, capsys):
    files = [AB / "ab_c1.txt", AB / "ab_c10.txt", AB / "ab_c50.txt"]
    out = tmp_path / "runs.csv"
    status, stdout, err = run(["read", *files, "-o", out], capsys)
    assert status == 0, err
    assert stdout == ""
    assert "wrote 3 runs rows" in err
    back = pd.read_csv(out)
    assert back["concurrency"].tolist() == [1, 10, 50]
    assert back["requests_per_s"].tolist() == [printed_rps(f) for f in files]
    expected = lbanalysis.read(files)
    assert back.columns.tolist() == expected.columns.tolist()
    assert back["requests"].tolist() == expected["requests"].tolist()
    assert back["latency_mean_s"].tolist() == pytest.approx(expected["latency_mean_s"].tolist())


@pytest.mark.parametrize("name", ["runs.json", "runs.parquet", "runs.tsv", "runs.csv.gz"])
def test_read_formats_from_extension(name, tmp_path, capsys):
    out = tmp_path / name
    status, _, err = run(["read", AB, "--errors", "skip", "-o", out, "-q"], capsys)
    assert status == 0, err
    if name.endswith(".json"):
        back = pd.DataFrame(json.loads(out.read_text()))
    elif name.endswith(".parquet"):
        back = pd.read_parquet(out)
    elif name.endswith(".tsv"):
        back = pd.read_csv(out, sep="\t")
    else:
        back = pd.read_csv(out)
    expected = lbanalysis.read(AB, errors="skip")
    assert len(back) == len(expected)
    assert back["requests_per_s"].tolist() == pytest.approx(
        expected["requests_per_s"].astype(float).tolist(), nan_ok=True
    )
    assert back["source"].tolist() == expected["source"].tolist()


def test_read_to_stdout(capsys):
    status, out, err = run(["read", AB / "ab_percentiles.txt", "--table", "percentiles", "-o", "-"], capsys)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "source,run,percentile,latency_s,kind,count"  # kind and count: wrk2 spectra
    assert len(lines) == 1 + 9  # ab prints 50 66 75 80 90 95 98 99 100
    assert lines[-1].split(",")[2:4] == ["100.0", pytest.approx(lines[-1].split(",")[3])]
    assert lines[-1].split(",")[4:] == ["", ""]  # ab has one latency and no counts


def test_read_table_all_writes_one_file_per_table(tmp_path, capsys):
    folder = tmp_path / "tables"
    status, _, err = run(
        ["read", AB / "ab_gnuplot.tsv", AB / "ab_c10.txt", "--table", "all", "-o", f"{folder}/"], capsys
    )
    assert status == 0, err
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{t}.csv" for t in lbanalysis.schema.TABLES)
    assert len(pd.read_csv(folder / "runs.csv")) == 2
    assert len(pd.read_csv(folder / "requests.csv")) == 1000  # ab -g: one line per request
    assert len(pd.read_csv(folder / "phases.csv")) == 4  # connect, processing, waiting, total of ab_c10


def test_read_table_all_with_a_file_is_a_usage_error(tmp_path, capsys):
    status, _, err = run(["read", AB / "ab_c10.txt", "--table", "all", "-o", tmp_path / "x.csv"], capsys)
    assert status == 2
    assert "give -o a folder" in err


def test_read_unknown_extension(tmp_path, capsys):
    status, _, err = run(["read", AB / "ab_c10.txt", "-o", tmp_path / "runs.xlsx"], capsys)
    assert status == 2
    assert err.strip().endswith("unknown output format '.xlsx'; use .csv, .tsv, .json or .parquet")
    assert not (tmp_path / "runs.xlsx").exists()


def test_read_article_data_with_manifest(tmp_path, capsys):
    out = tmp_path / "runs.csv"
    status, _, err = run(["read", WORDPRESS, "-o", out], capsys)
    assert status == 0, err
    back = pd.read_csv(out).sort_values("test")
    manifest = pd.read_csv(WORDPRESS / "manifest.csv").sort_values("test")
    assert back["test"].tolist() == list(range(22, 30))
    assert back["target"].tolist() == manifest["target"].tolist()
    assert back["concurrency"].tolist() == manifest["concurrency"].tolist()
    for rec in back.itertuples():
        assert rec.requests_per_s == printed_rps(Path(rec.source))


def test_read_article_data_with_pattern(tmp_path, capsys):
    out = tmp_path / "runs.parquet"
    status, _, err = run(["read", LBBENCH, "--pattern", "{setup}/{mode}", "-o", out], capsys)
    assert status == 0, err
    back = pd.read_parquet(out)
    assert len(back) == 58 and set(back["mode"]) >= {"haproxy-2", "haproxy-4", "node"}
    assert (back["setup"] == back["droplet"]).all()  # the pattern agrees with the manifest
    assert "skipped" not in err  # figures.txt (not tool output) is named in data/raw/lbbench/.lbignore


def test_read_corpus(tmp_path, capsys):
    folder = corpus("public", "ab")
    out = tmp_path / "runs.csv"
    status, _, err = run(["read", folder, "--errors", "warn", "-o", out], capsys)
    assert status == 0, err
    back = pd.read_csv(out)
    assert (back["tool"] == "ab").all() and len(back) >= 1


# ------------------------------------------------------- bad inputs ---
def test_bad_path_is_a_usage_error(tmp_path, capsys):
    missing = tmp_path / "nope"
    status, out, err = run(["read", missing, "-o", tmp_path / "runs.csv"], capsys)
    assert status == 2
    assert err == f"lbanalysis: error: {missing}: no such file, folder or glob match\n"
    assert out == ""
    assert not (tmp_path / "runs.csv").exists()


def test_unreadable_file_stops_the_export_with_errors_raise(good_and_junk, tmp_path, capsys):
    out = tmp_path / "runs.csv"
    status, _, err = run(["read", good_and_junk, "--errors", "raise", "-o", out], capsys)
    assert status == 1
    junk = good_and_junk / "zz_junk.txt"
    assert err.startswith(f"lbanalysis: error: {junk}:")
    assert err.count("\n") == 1  # one line
    assert "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("mode", ["warn", "skip"])
def test_unreadable_file_skipped_and_listed(mode, good_and_junk, tmp_path, capsys):
    out = tmp_path / "runs.csv"
    status, _, err = run(["read", good_and_junk, "--errors", mode, "-o", out], capsys)
    assert status == 0
    back = pd.read_csv(out)
    assert sorted(Path(s).name for s in back["source"]) == ["ab_c1.txt", "ab_c10.txt", "ab_c50.txt"]
    assert back.sort_values("concurrency")["requests_per_s"].tolist() == [
        printed_rps(good_and_junk / n) for n in ("ab_c1.txt", "ab_c10.txt", "ab_c50.txt")
    ]
    warning = [ln for ln in err.splitlines() if ln.startswith("lbanalysis: warning: skipped")]
    assert len(warning) == 1 and "zz_junk.txt" in warning[0]
    if mode == "warn":
        assert "no known format" in warning[0]


def test_missing_path_among_good_ones_with_warn(good_and_junk, tmp_path, capsys):
    out = tmp_path / "runs.csv"
    status, _, err = run(["read", good_and_junk, tmp_path / "gone.txt", "--errors", "warn", "-o", out], capsys)
    assert status == 0
    assert len(pd.read_csv(out)) == 3
    assert "gone.txt: no such file" in err


def test_nothing_readable_is_a_data_error(tmp_path, capsys):
    (tmp_path / "junk.txt").write_text("hello\n")
    status, _, err = run(["read", tmp_path, "--errors", "skip", "-o", tmp_path / "runs.csv"], capsys)
    assert status == 1
    assert "no runs found" in err.splitlines()[-1]


def test_internal_errors_have_no_traceback(monkeypatch, capsys):
    def boom(args):
        raise RuntimeError("something broke\nsecond line")

    monkeypatch.setattr(cli, "cmd_summary", boom)
    monkeypatch.delenv("LBANALYSIS_DEBUG", raising=False)
    status, _, err = run(["summary", AB / "ab_c10.txt"], capsys)
    assert status == 1
    assert err.startswith("lbanalysis: error: internal error: RuntimeError: something broke")
    assert "Traceback" not in err


# -------------------------------------------------------- progress ---
@pytest.mark.parametrize("tty, expected", [(False, False), (True, None)])
def test_progress_only_on_a_terminal(tty, expected, monkeypatch, tmp_path, capsys):
    seen = {}
    real = lbanalysis.reader.read

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(lbanalysis.reader, "read", spy)
    monkeypatch.setattr(cli, "_isatty", lambda stream: tty)
    status, _, _ = run(["read", AB / "ab_c10.txt", "-o", tmp_path / "r.csv"], capsys)
    assert status == 0
    assert seen["progress"] is expected  # None: read() shows a bar for 50+ files


# --------------------------------------------------------- workers ---
@pytest.fixture
def many_files(tmp_path: Path) -> Path:
    """80 files: copies of the ab fixtures that hold a run, in sub-folders."""
    sources = [p for p in sorted(AB.glob("ab_*.txt")) if "usage" not in p.name and "help" not in p.name]
    folder = tmp_path / "many"
    for i in range(80):
        src = sources[i % len(sources)]
        dest = folder / f"batch-{i // 20}" / f"{i:03d}-{src.name}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dest)
    return folder


def test_workers_give_the_same_frame(many_files):
    one = lbanalysis.read(many_files, workers=1, errors="skip", table="all")
    two = lbanalysis.read(many_files, workers=2, errors="skip", table="all")
    for name in lbanalysis.schema.TABLES:
        pd.testing.assert_frame_equal(getattr(one, name), getattr(two, name))
    pd.testing.assert_frame_equal(one.skipped, two.skipped)


def test_workers_option(many_files, tmp_path, capsys):
    a, b = tmp_path / "w1.csv", tmp_path / "w0.csv"
    assert run(["read", many_files, "--errors", "skip", "--workers", "1", "-o", a], capsys)[0] == 0
    assert run(["read", many_files, "--errors", "skip", "--workers", "0", "-o", b], capsys)[0] == 0
    assert a.read_text() == b.read_text()
    assert len(pd.read_csv(a)) >= 80


def test_workers_must_be_a_count(capsys):
    status, _, err = run(["read", AB, "--workers", "-1"], capsys)
    assert status == 2
    assert "--workers" in err


# --------------------------------------------------------- summary ---
def test_summary_lines_and_footer(good_and_junk, capsys):
    status, out, err = run(["summary", good_and_junk], capsys)
    assert status == 0
    lines = out.splitlines()
    header = lines[0].split()
    assert header[:4] == ["source", "run", "tool", "conc"]
    assert "req/s" in header and "mean" in header and "transfer" in header
    rows = {ln.split()[0]: ln.split() for ln in lines[1:-2]}
    assert set(rows) == {"ab_c1.txt", "ab_c10.txt", "ab_c50.txt"}
    assert lines[-2] == "Design: c 1, 10, 50; read from the folder and file names."  # c equals the concurrency
    assert rows["ab_c50.txt"][3] == "50"
    assert f"{printed_rps(good_and_junk / 'ab_c50.txt'):.1f}" in rows["ab_c50.txt"]
    assert lines[-1] == "3 run(s) from 3 file(s): ab 3. Skipped 1: zz_junk.txt."
    # every skipped file, with its reason, on stderr at the end: the same policy as read
    assert err.startswith(f"lbanalysis: warning: skipped {good_and_junk / 'zz_junk.txt'}:1: no known format recognised")
    assert err.count("\n") == 1


def test_summary_article_data(capsys):
    status, out, _ = run(["summary", WORDPRESS], capsys)
    assert status == 0
    rows = [ln for ln in out.splitlines()[1:-2]]
    assert len(rows) == 8
    assert out.splitlines()[-2].startswith("Design: 2 targets (")  # Apache direct, HAProxy in front
    assert all(r.startswith("test-") for r in rows)
    assert out.splitlines()[-1].startswith("8 run(s) from 8 file(s): ab 8")


def test_summary_shows_errors_of_runs(capsys):
    status, out, _ = run(["summary", AB / "ab_refused.txt", AB / "ab_c1.txt"], capsys)
    assert status == 0
    refused = next(ln for ln in out.splitlines() if ln.startswith("ab_refused.txt"))
    assert "Connection refused" in refused
    assert "1 with an error" in out.splitlines()[-1]


def test_summary_nothing_read(tmp_path, capsys):
    (tmp_path / "x.txt").write_text("nothing\n")
    status, out, err = run(["summary", tmp_path], capsys)
    assert status == 1
    assert out.splitlines()[-1].startswith("0 run(s) from 0 file(s). Skipped 1: x.txt")
    assert "no runs found" in err


# ---------------------------------------------------- report usage ---
def test_report_needs_names_or_all(tmp_path, capsys):
    status, _, err = run(["report", "--notebooks", tmp_path], capsys)
    assert status == 2
    assert "--all" in err


def test_explore_bad_path(tmp_path, capsys):
    status, _, err = run(["explore", tmp_path / "nope"], capsys)
    assert status == 2
    assert err.strip() == f"lbanalysis: error: {tmp_path / 'nope'}: no such file, folder or glob match"


def test_explore_bad_capacity(capsys):
    status, _, err = run(["explore", AB, "--capacity", "fast"], capsys)
    assert status == 2
    assert "--capacity 'fast'" in err


def test_explore_parameters():
    args = cli.build_parser().parse_args(
        ["explore", str(AB), "--group", "setup", "--capacity", "1 Gbit/s", "--threshold", "0.9", "--model", "amdahl"]
    )
    assert cli.explore_parameters(args) == {
        "logs": str(AB.resolve()),
        "group": "setup",
        "link_capacity": "1 Gbit/s",
        "threshold": 0.9,
        "fit_model": "amdahl",
    }


def test_importing_the_command_line_stays_light():
    code = (
        "import sys, lbanalysis, lbanalysis.cli, lbanalysis.report, lbanalysis.explore, lbanalysis.paths\n"
        "print(sorted(m for m in ('matplotlib', 'scipy', 'seaborn', 'papermill', 'nbconvert') if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "[]", proc.stderr


def test_summary_bad_path(tmp_path, capsys):
    status, out, err = run(["summary", AB / "ab_c10.txt", tmp_path / "typo"], capsys)
    assert status == 2
    assert out == ""
    assert err == f"lbanalysis: error: {tmp_path / 'typo'}: no such file, folder or glob match\n"
