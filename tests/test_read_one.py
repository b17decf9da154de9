"""A segment after its tool's command that holds one output read at once (:attr:`Format.read_one`, issue #39).

A sweep's log is thousands of segments, each a command and one run. The
dispatcher asks the command's format to read such a segment in one match,
without the line scan and the steps around it; these tests hold that every
segment of the fixtures and the corpus gets the same answer either way (the
runs, their detail rows, what is set aside), and that the segments it takes
are many (the check bites).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import lbanalysis.readers as readers
from lbanalysis.readers.wrk import text as wrk
from lbanalysis.text import Segment, decode, normalize, split_transcript

from .conftest import FIXTURES, corpus

WRK = (
    "Running 30s test @ http://10.0.0.2:8888/\n"
    "  40 threads and 800 connections\n"
    "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n"
    "    Latency    10.80ms   33.26ms 910.89ms   96.85%\n"
    "    Req/Sec     4.18k     0.93k   13.56k    74.50%\n"
    "  4990710 requests in 30.10s, 1.15GB read\n"
    "Requests/sec: 165806.32\n"
    "Transfer/sec:     39.18MB\n"
)
COMMAND = "wrk -c800 -t40 -d30s http://10.0.0.2:8888/"


def _segments(roots: list[Path]) -> list[tuple[Segment, list]]:
    """Every segment of every file under ``roots`` (each with the reports its text shows appended, as the
    dispatcher finds them once a text)."""
    out = []
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            if path.stat().st_size > 3_000_000:
                continue
            text = normalize(decode(path.read_bytes()))
            trailers = readers._trailers_in(text, None)
            out.extend((seg, trailers) for seg in split_transcript(text, str(path)))
    return out


def _step_by_step(seg: Segment, trailers: list, monkeypatch) -> tuple:
    """What the dispatcher makes of a segment without :attr:`Format.read_one`."""
    with monkeypatch.context() as m:
        m.setattr(readers, "_read_one", lambda *a: None)
        return _answer(seg, trailers)


def _answer(seg: Segment, trailers: list) -> tuple:
    cands = readers.all_formats()
    try:
        part, recognised = readers._read_segment(seg, cands, cands, None, trailers)
    except readers.LBAnalysisError as e:
        return type(e).__name__, str(e)
    return part.runs, part.tables, part.not_runs, recognised


@pytest.mark.parametrize("where", ["fixtures", "corpus"])
def test_every_segment_read_at_once_gets_the_answer_of_the_step_by_step_read(where, monkeypatch):
    roots = [FIXTURES] if where == "fixtures" else [corpus(k) for k in ("repos", "public", "public2", "lab")]
    cands = readers.all_formats()
    taken = 0
    for seg, trailers in _segments(roots):
        if trailers or readers._read_one(seg, cands, None) is None:
            continue
        taken += 1
        assert _answer(seg, trailers) == _step_by_step(seg, trailers, monkeypatch), (seg.source, seg.line)
    assert taken > (10 if where == "fixtures" else 5000)  # ktaka's sweep logs alone hold 5,440


def test_a_line_the_scan_would_read_after_the_run_leaves_the_segment_to_the_scan():
    seg = Segment(WRK + "End time: 1506570222\n\npodnum=40\n", command=COMMAND, tool="wrk")
    assert wrk.read_one(seg) is not None  # notes without any of wrk's hints after the run
    for after in ("  Socket errors: connect 0, read 0, write 0, timeout 4\n", "  50%  3.2ms\n", WRK):
        assert wrk.read_one(Segment(WRK + after, command=COMMAND, tool="wrk")) is None, after
    # nor a line before it (a note naming a figure), nor a run that is not canonical
    assert wrk.read_one(Segment("took 1.5 s\n" + WRK, command=COMMAND, tool="wrk")) is None
    assert wrk.read_one(Segment(WRK.replace("Thread Stats", "Thread  Stat"), command=COMMAND, tool="wrk")) is None


def test_only_a_command_of_the_segment_s_own_tool_and_one_not_asking_for_help_is_read_at_once():
    cands = readers.all_formats()
    assert readers._read_one(Segment(WRK, command=COMMAND, tool="wrk"), cands, None) is not None
    assert readers._read_one(Segment(WRK, command=COMMAND, tool="wrk"), cands, "ab") is None  # the caller's tool
    assert readers._read_one(Segment(WRK), cands, None) is None  # no command: the runs may be several
    # a command asking for the version is set aside, as the step-by-step read sets it aside
    version = Segment(WRK, command="wrk --version " + COMMAND[4:], tool="wrk")
    asked, (step, _) = readers._read_one(version, cands, None), readers._read_segment(version, cands, cands, None, [])
    assert (asked.runs, asked.not_runs) == (step.runs, step.not_runs) == ([], asked.not_runs)
    assert asked.not_runs[0]["kind"] == "help or version output"
