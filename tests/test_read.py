"""The read() API: inputs, metadata, errors, detection, parallel reads."""

from __future__ import annotations

import io
import shutil
import warnings

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import lbanalysis
from lbanalysis.text import normalize, split_transcript

from .conftest import FIXTURES, ROOT

AB = FIXTURES / "ab"
EXCERPT = "ab -k -c {c} -n 1000 http://h/\nRequests per second:    {r} [#/sec] (mean)\n"


@pytest.fixture
def tree(tmp_path):
    """A folder shaped like the lbbench layout: <setup>/<mode>."""
    for setup, mode, c, r in [
        ("shared-1-cpu-1-ram", "haproxy-2", 10, "836.55"),
        ("shared-1-cpu-1-ram", "node", 10, "2670.14"),
        ("compute-8-cpu-16-ram", "haproxy-4", 20, "7969.17"),
    ]:
        d = tmp_path / setup
        d.mkdir(exist_ok=True)
        (d / mode).write_text(EXCERPT.format(c=c, r=r))
    return tmp_path


def test_read_returns_runs_frame_from_file_dir_glob_list_and_buffer(tree):
    one = tree / "shared-1-cpu-1-ram" / "node"
    assert len(lbanalysis.read(one)) == 1
    assert len(lbanalysis.read(str(tree))) == 3
    assert len(lbanalysis.read(str(tree / "*" / "haproxy-*"))) == 2
    assert len(lbanalysis.read([one, tree / "compute-8-cpu-16-ram"])) == 2
    buf = lbanalysis.read(io.StringIO(one.read_text()))
    assert buf.loc[0, "source"] == "<buffer>" and buf.loc[0, "requests_per_s"] == 2670.14


def test_pattern_turns_path_segments_into_columns(tree):
    runs = lbanalysis.read(tree, pattern="{setup}/{mode}").sort_values("requests_per_s")
    assert runs[["setup", "mode"]].values.tolist() == [
        ["shared-1-cpu-1-ram", "haproxy-2"],
        ["shared-1-cpu-1-ram", "node"],
        ["compute-8-cpu-16-ram", "haproxy-4"],
    ]


def test_pattern_numbers_become_numeric(tmp_path):
    for p in (1, 2):
        d = tmp_path / f"{p}_ab" / "rep-1"
        d.mkdir(parents=True)
        (d / "ab-0.txt").write_text(EXCERPT.format(c=5, r="100.00"))
    runs = lbanalysis.read(tmp_path, pattern="{procs}_ab/rep-{rep}")
    assert sorted(runs["procs"].tolist()) == [1, 2] and runs["procs"].dtype == "Int64"


def test_manifest_found_in_folder_and_given_explicitly(tree):
    (tree / "manifest.csv").write_text("file,vcpus,note\nshared-1-cpu-1-ram/node,1,direct\ncompute-8-cpu-16-ram/*,8,\n")
    runs = lbanalysis.read(tree).set_index("requests_per_s")
    assert runs.loc[2670.14, "vcpus"] == 1 and runs.loc[2670.14, "note"] == "direct"
    assert runs.loc[7969.17, "vcpus"] == 8
    assert pd.isna(runs.loc[836.55, "vcpus"])
    none = lbanalysis.read(tree, manifest=False)
    assert "vcpus" not in none.columns
    explicit = lbanalysis.read(tree / "shared-1-cpu-1-ram", manifest=tree / "manifest.csv")
    assert sorted(explicit["vcpus"].dropna().tolist()) == [1]


def test_an_empty_manifest_cell_leaves_what_another_row_gave(tree):
    """A glob row gives every file of a setup its vCPUs; a later row about one of them, its vcpus cell empty,
    adds a note and takes nothing away."""
    (tree / "manifest.csv").write_text(
        "file,vcpus,note\nshared-1-cpu-1-ram/*,1,\nshared-1-cpu-1-ram/node,,direct\n*/haproxy-4,,\n"
    )
    runs = lbanalysis.read(tree).set_index("requests_per_s")
    assert runs.loc[[836.55, 2670.14], "vcpus"].tolist() == [1, 1] and runs["vcpus"].dtype == "Int64"
    assert runs.loc[2670.14, "note"] == "direct" and pd.isna(runs.loc[836.55, "note"])
    assert pd.isna(runs.loc[7969.17, "vcpus"])  # a row of empty cells: missing, not borrowed


def test_manifest_never_overrides_what_the_output_shows(tree):
    (tree / "manifest.csv").write_text("file,concurrency\nshared-1-cpu-1-ram/node,99\n")
    ds = lbanalysis.read(tree, table="all")
    assert ds.runs.set_index("requests_per_s").loc[2670.14, "concurrency"] == 10
    assert any("manifest says concurrency" in n for n in ds.notes)


def test_unknown_format_lists_known_formats(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("just some words\n")
    with pytest.raises(lbanalysis.UnknownFormatError) as e:
        lbanalysis.read(f)
    msg = str(e.value)
    assert "notes.txt:1" in msg and "known formats" in msg and "ab-gnuplot" in msg


def test_errors_modes_name_every_skipped_file(tree):
    bad = tree / "shared-1-cpu-1-ram" / "broken.txt"
    bad.write_text("not a benchmark\n")
    with pytest.raises(lbanalysis.ParseError, match=r"broken\.txt"):
        lbanalysis.read(tree)
    with pytest.warns(lbanalysis.SkippedFileWarning, match=r"broken\.txt"):
        runs = lbanalysis.read(tree, errors="warn")
    assert len(runs) == 3
    assert [s["source"] for s in runs.attrs["skipped"]] == [str(bad)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = lbanalysis.read(tree, errors="skip", table="all")
    assert ds.skipped["source"].tolist() == [str(bad)]


def test_missing_path_is_a_clear_error(tmp_path):
    with pytest.raises(lbanalysis.LBAnalysisError, match="no such file"):
        lbanalysis.read(tmp_path / "nope")
    ds = lbanalysis.read([tmp_path / "nope", AB / "ab_c1.txt"], errors="skip", table="all")
    assert len(ds.runs) == 1 and "nope" in ds.skipped.loc[0, "source"]


def test_folder_walk_ignores_docs_but_lists_them():
    ds = lbanalysis.read(AB, table="all", errors="skip")
    assert any(p.endswith("COMMANDS.md") for p in ds.ignored)


def test_tool_override_and_bad_tool(tree):
    f = tree / "shared-1-cpu-1-ram" / "node"
    assert lbanalysis.read(f, tool="ab").loc[0, "tool"] == "ab"
    with pytest.raises(lbanalysis.UnknownFormatError, match="known tools"):
        lbanalysis.read(f, tool="wrk2")


def test_bom_crlf_and_prompts_do_not_change_values():
    plain = lbanalysis.read(AB / "ab_c10.txt")
    text = "\ufeff$ ab -n 1000 -c 10 http://127.0.0.1:18080/\r\n" + (AB / "ab_c10.txt").read_text().replace(
        "\n", "\r\n"
    )
    messy = lbanalysis.read(io.StringIO(text))
    cols = ["requests", "failed", "requests_per_s", "latency_mean_s", "bytes_total", "concurrency"]
    assert_frame_equal(plain[cols], messy[cols])
    assert messy.loc[0, "command"] == "ab -n 1000 -c 10 http://127.0.0.1:18080/"


@pytest.mark.parametrize(
    "line, tool",
    [
        ("root@host:~# ab -k -c 10 -n 1000 http://h/", "ab"),
        ("$ siege -c 10 -t 30S http://h/", "siege"),
        ("user@box ~/x> gobench -u http://h/ -c 10 -t 5", "gobench"),
        ("➜  ~ iperf3 -c 10.0.0.1", "iperf3"),
        ("C:\\Iperf>iperf3 -c 192.168.8.21", "iperf3"),
        ("[root@lb ~]# iperf -c 10.0.0.2 -P 4", "iperf"),
        ("% sudo ab -n 10 http://h/", "ab"),
    ],
)
def test_prompt_lines_of_common_shells(line, tool):
    segs = split_transcript(normalize(line + "\nout\n"))
    assert segs[-1].tool == tool and segs[-1].text == "out\n"


def test_prose_mentioning_a_tool_is_not_a_command():
    segs = split_transcript("We used ab and siege for this.\nab test results:\n")
    assert all(s.command is None for s in segs)


def test_workers_give_the_same_frame(tmp_path):
    for i in range(12):
        shutil.copy(AB / "ab_c10.txt", tmp_path / f"c10-{i:02d}.txt")
        shutil.copy(AB / "ab_post_json.txt", tmp_path / f"post-{i:02d}.txt")
    one = lbanalysis.read(tmp_path, table="all")
    two = lbanalysis.read(tmp_path, table="all", workers=2)
    for name in ("runs", "percentiles", "phases"):
        assert_frame_equal(getattr(one, name), getattr(two, name))


def test_bad_table_and_errors_arguments():
    with pytest.raises(lbanalysis.LBAnalysisError, match="unknown table"):
        lbanalysis.read(AB / "ab_c1.txt", table="nope")
    with pytest.raises(lbanalysis.LBAnalysisError, match="errors must be"):
        lbanalysis.read(AB / "ab_c1.txt", errors="ignore")  # type: ignore[arg-type]


def test_import_is_light():
    import subprocess
    import sys

    code = (
        "import sys, lbanalysis; bad = [m for m in ('matplotlib', 'seaborn', 'scipy', 'papermill') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == ""


def test_progress_bar_counts_files_or_bytes(tmp_path, capsys):
    for i in range(3):
        shutil.copy(AB / "ab_c10.txt", tmp_path / f"r{i}.txt")
    lbanalysis.read(tmp_path, progress=True)
    err = capsys.readouterr().err
    assert "reading" in err and "3/3" in err and "file" in err
    lbanalysis.read(tmp_path, progress=False)
    assert capsys.readouterr().err == ""


def test_lbignore_file_names_files_a_folder_walk_passes_over(tree):
    (tree / "notes.txt").write_text("these are notes, not a benchmark\n")
    (tree / "shared-1-cpu-1-ram" / "todo.txt").write_text("more notes\n")
    with pytest.raises(lbanalysis.UnknownFormatError):
        lbanalysis.read(tree)
    (tree / ".lbignore").write_text("# not tool output\nnotes.txt\nshared-1-cpu-1-ram/todo.txt\n")
    ds = lbanalysis.read(tree, table="all")
    assert len(ds.runs) == 3 and ds.skipped.empty
    assert {p.rsplit("/", 1)[-1] for p in ds.ignored} >= {"notes.txt", "todo.txt", ".lbignore"}


def test_the_issue_example_reads_the_lbbench_folder():
    runs = lbanalysis.read(ROOT / "data" / "raw" / "lbbench", pattern="{setup}/{mode}")
    assert len(runs) == 58 and runs["requests_per_s"].notna().all()
    one = runs[(runs["setup"] == "shared-1-cpu-1-ram") & (runs["mode"] == "haproxy-2")]
    assert one["requests_per_s"].tolist() == [836.55, 780.21]


def test_reading_leaves_the_garbage_collector_as_it_was(tree):
    import gc

    assert gc.isenabled()
    lbanalysis.read(tree, errors="skip")
    assert gc.isenabled()
    gc.disable()
    try:
        lbanalysis.read(tree, errors="skip")
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(lbanalysis.LBAnalysisError):
        lbanalysis.read(tree / "notes.txt")
    assert gc.isenabled()


def test_a_text_file_larger_than_the_first_read_is_read_whole(tmp_path):
    """Files past the 64 KiB first read take the second read: every run in them counts."""
    one = (FIXTURES / "ab" / "ab_c10.txt").read_text()
    runs = 60
    text = "".join(f"$ ab -n 1000 -c 10 http://127.0.0.1:{8000 + i}/\n{one}\n" for i in range(runs))
    assert len(text.encode()) > 1 << 16
    path = tmp_path / "transcript.txt"
    path.write_text(text)
    got = lbanalysis.read(path)
    assert len(got) == runs and got["url"].tolist()[-1] == f"http://127.0.0.1:{8000 + runs - 1}/"
    assert got["requests_per_s"].notna().all()


def test_runs_alone_equal_the_runs_of_every_table_for_every_fixture():
    """read(path) asks the readers for no detail table (they skip those rows); its runs stay the same."""
    ds = lbanalysis.read(FIXTURES, table="all", errors="skip")
    assert len(ds.runs) > 200 and len(ds.intervals) > 100 and len(ds.requests) > 100
    runs = lbanalysis.read(FIXTURES, errors="skip")
    assert_frame_equal(runs, ds.runs)
    assert runs.attrs["skipped"] == ds.skipped.to_dict("records")
    for table in ("percentiles", "phases", "requests", "intervals"):
        assert_frame_equal(lbanalysis.read(FIXTURES, table=table, errors="skip"), getattr(ds, table))


def test_outputs_that_are_not_tests_are_listed_apart():
    text = (
        "$ ab -V\nThis is ApacheBench, Version 2.3 <$Revision: 1903618 $>\n"
        "Copyright 1996 Adam Twiss, Zeus Technology Ltd, http://www.zeustech.net/\n\n"
        "$ siege -c 10 -t 5S http://h/\n\n"
        "$ iperf3 --version\niperf 3.12 (cJSON 1.7.15)\nLinux lb 6.1.0 #1 SMP x86_64\n\n"
        "$ ab -n 100 http://127.0.0.1:18099/\n" + (FIXTURES / "ab" / "ab_refused.txt").read_text()
    )
    ds = lbanalysis.read(io.StringIO(text), table="all")
    # the refused test was attempted: it stays a run, with its error
    assert ds.runs["command"].tolist() == ["ab -n 100 http://127.0.0.1:18099/"]
    assert ds.runs["error"].notna().all() and ds.runs["run"].tolist() == [0]
    assert ds.not_runs[["line", "tool", "command", "kind"]].to_dict("records") == [
        {"line": 1, "tool": "ab", "command": "ab -V", "kind": "version banner"},
        {"line": 5, "tool": "siege", "command": "siege -c 10 -t 5S http://h/", "kind": "bare command (no output)"},
        {"line": 7, "tool": "iperf3", "command": "iperf3 --version", "kind": "version banner"},
    ]
    assert "not runs=3" in repr(ds)


def test_summary_counts_what_is_not_a_test(capsys):
    from lbanalysis import cli

    status = cli.main(["summary", str(FIXTURES / "iperf2")])
    out = capsys.readouterr().out
    assert status == 0
    assert "Not tests, not counted: 2 (help text 1, version banner 1)" in out


def test_engines_are_a_table_chosen_by_name():
    from lbanalysis.reader import ENGINES, engine_named

    assert list(ENGINES) == ["pandas", "dask"]
    assert engine_named("dask") is ENGINES["dask"]
    with pytest.raises(lbanalysis.LBAnalysisError, match="engine must be one of 'pandas', 'dask', not 'polars'"):
        lbanalysis.read(FIXTURES / "ab" / "ab_c1.txt", engine="polars")
