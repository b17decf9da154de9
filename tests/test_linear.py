"""A read's cost grows with the folder, not with its square (issue #39).

Timing a read on a shared 2-core machine flakes; the number of Python
function calls a read makes does not. A folder of runs, CPU monitors beside
them and files that are no tool's output is read once as it is and once
copied two and four times side by side: the four-fold read may make at most
4.4 times the calls of the first, and what the second doubling adds at most
1.1 times twice what the first added (constant costs hide a square in the
plain ratio; the increments do not). What grew with the square before (pandas deep-copying
the skipped files' records kept in ``runs.attrs`` into each frame built while
pairing the CPU samples, each sample's file compared with every run) shows
as calls. ``make bench`` (``bench/bench_repos.py``) times the same growth on
real repositories.
"""

from __future__ import annotations

import copy
import shutil
import sys
import warnings
from collections import Counter
from pathlib import Path

import pandas as pd

import lbanalysis

from .conftest import FIXTURES

PAIRED = FIXTURES / "cpu" / "paired"
NOTES = "Notes on this run: the balancer was restarted before it.\nNothing else changed.\n"


def _folder(root: Path, copies: int) -> Path:
    """``copies`` copies of the paired CPU fixtures, each with a file of notes (skipped) beside them."""
    for i in range(copies):
        shutil.copytree(PAIRED, root / f"copy{i:02d}")
        (root / f"copy{i:02d}" / f"notes{i}.txt").write_text(NOTES)
    return root


def _calls(folder: Path) -> tuple[int, int, lbanalysis.Dataset]:
    """Python function calls made by one read of ``folder`` (all, and ``copy.deepcopy``'s), and its Dataset."""
    counts: Counter = Counter()
    deepcopy = copy.deepcopy.__code__

    def count(frame, event, arg):
        if event == "call":
            counts["all"] += 1
            if frame.f_code is deepcopy:
                counts["deepcopy"] += 1

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.setprofile(count)
        try:
            ds = lbanalysis.read(folder, table="all", errors="skip")
        finally:
            sys.setprofile(None)
    return counts["all"], counts["deepcopy"], ds


def test_read_calls_grow_linearly(tmp_path):
    one, two, four = (_folder(tmp_path / f"x{n}", n) for n in (3, 6, 12))
    _calls(one)  # warm: regular expressions compiled, readers imported
    (calls_1, deep_1, ds1), (calls_2, _, _), (calls_4, deep_4, ds4) = (_calls(f) for f in (one, two, four))
    # the reads are what they should be: every copy's runs, samples paired, notes skipped
    assert len(ds4.runs) == 4 * len(ds1.runs) > 0
    assert len(ds4.skipped) == 4 * len(ds1.skipped) == 12
    assert ds4.cpu["paired_by"].value_counts().to_dict() == {
        k: 4 * v for k, v in ds1.cpu["paired_by"].value_counts().to_dict().items()
    }
    assert calls_4 <= 4.4 * calls_1, (calls_1, calls_4)
    # what the second doubling adds is at most 1.1 times twice what the first added (the square: 4 times)
    assert calls_4 - calls_2 <= 2.2 * (calls_2 - calls_1), (calls_1, calls_2, calls_4)
    assert deep_4 <= deep_1 + 50, (deep_1, deep_4)  # pandas' copies of attrs do not grow with the skipped files


def test_attrs_records_are_shared_not_copied(tmp_path):
    runs = lbanalysis.read(_folder(tmp_path, 2), errors="skip")
    skipped = runs.attrs["skipped"]
    assert [s["source"] for s in skipped] == [str(tmp_path / f"copy{i:02d}" / f"notes{i}.txt") for i in range(2)]
    derived = runs[runs["concurrency"] > 0]["source"].map(str)
    assert derived.attrs["skipped"] is skipped  # pandas' deep copy of attrs is the object itself
    assert pd.DataFrame(skipped).columns.tolist() == ["source", "reason"]
    assert skipped == [dict(s) for s in skipped]  # equal to plain records
    try:
        skipped[0]["reason"] = "changed"
    except TypeError as e:
        assert "read-only" in str(e)
    else:  # pragma: no cover
        raise AssertionError("a skipped record could be changed in place")


def test_each_file_is_prepared_by_what_it_is(monkeypatch, tmp_path):
    """A JSON document, a CSV table and a console output as its tool printed it skip the clean-up of pasted text;
    a pasted output (CRLF line ends, here) gets it once."""
    import lbanalysis.readers as readers

    cleaned: list[str] = []
    normalize = readers.normalize

    def counted(text: str) -> str:
        cleaned.append(text[:40])
        return normalize(text)

    monkeypatch.setattr(readers, "normalize", counted)
    pasted = tmp_path / "pasted.txt"
    pasted.write_bytes((FIXTURES / "ab" / "ab_c1.txt").read_bytes().replace(b"\n", b"\r\n"))
    files = [
        FIXTURES / "bombardier" / "bombardier_nginx.json",  # pretty-printed JSON
        FIXTURES / "iperf3" / "iperf3_json_logfile.json",
        FIXTURES / "locust" / "locust_haproxy_stats.csv",
        FIXTURES / "ab" / "ab_c10.txt",  # a console output as ab printed it
        pasted,  # the same kind of output pasted from another system: cleaned once
    ]
    ds = lbanalysis.read(files, table="all")
    assert sorted(ds.runs["format"]) == ["ab", "ab", "bombardier-json", "iperf3-json", "locust-stats-csv"]
    assert cleaned == [pasted.read_bytes().decode()[:40]]
    assert ds.runs.loc[ds.runs["source"].str.endswith("pasted.txt"), "requests_per_s"].notna().all()


def test_a_json_document_no_format_knows_is_refused_at_once(tmp_path):
    path = tmp_path / "result.json"
    path.write_text('{\n    "package": "demo",\n    "dependencies": {"left-pad": "1.3.0"}\n}\n')  # no tool's output
    ds = lbanalysis.read(path, table="all", errors="skip")
    assert ds.skipped["reason"].str.contains("no known format recognised").all() and len(ds.skipped) == 1


def _lines_run(fn, *args, where: str) -> tuple[object, int]:
    """What ``fn(*args)`` returns, and how many lines of the module ``where`` (a path's end) it ran: a loop's
    every turn counts, where a count of calls misses a comprehension's."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        count += event == "line"
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename.endswith(where) else None

    sys.settrace(calls)
    try:
        return fn(*args), count
    finally:
        sys.settrace(None)


def test_the_files_a_run_wrote_are_looked_for_in_its_folder_only():
    """A study pairs a printed run with the files it wrote beside it (Locust's ``--csv``) among its folder's
    runs of its tool in other formats, not among every run: the lines run grow with the runs, not with their
    square (explore over ktaka's 7,002 wrk runs spent a minute comparing each with every other)."""
    from lbanalysis.analysis.evidence import twins as tw

    def folders(n: int) -> pd.DataFrame:
        rows = []
        for i in range(n):  # a printed Locust run and the CSV it wrote, in a folder each; a wrk run beside them
            rows += [
                {"source": f"f{i}/run.txt", "tool": "locust", "format": "locust", "command": "locust --csv run",
                 "concurrency": 10.0, "requests": 500.0},
                {"source": f"f{i}/run_stats.csv", "tool": "locust", "format": "locust-csv", "command": "",
                 "concurrency": 10.0, "requests": 498.0},
                {"source": f"f{i}/wrk.txt", "tool": "wrk", "format": "wrk", "command": "wrk -c8 http://h/",
                 "concurrency": 8.0, "requests": 100.0},
            ]  # fmt: skip
        return pd.DataFrame(rows)

    where = "analysis/evidence/twins.py"
    small, large = folders(50), folders(400)
    found, lines_small = _lines_run(tw.written_twins, small, pd.Series(pd.NA, index=small.index), where=where)
    assert found.tolist() == [k - 1 if k % 3 == 1 else pd.NA for k in range(150)]  # each CSV is its run's
    found, lines_large = _lines_run(tw.written_twins, large, pd.Series(pd.NA, index=large.index), where=where)
    assert found.notna().sum() == 400
    assert lines_large <= 8.8 * lines_small, (lines_small, lines_large)  # 8 times the runs: 64 times the square
