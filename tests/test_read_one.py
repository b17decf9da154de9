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
from unittest import mock

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


def _step_by_step(seg: Segment, trailers: list) -> tuple:
    """What the dispatcher makes of a segment without :attr:`Format.read_one`."""
    with mock.patch.object(readers, "_read_at_once", lambda *a: None):
        return _answer(seg, trailers)


def _answer(seg: Segment, trailers: list) -> tuple:
    cands = readers.all_formats()
    try:
        part, recognised = readers._read_segment(seg, cands, cands, None, trailers)
    except readers.LBAnalysisError as e:
        return type(e).__name__, str(e)
    return part.runs, part.tables, part.not_runs, recognised


@pytest.mark.parametrize("where", ["fixtures", "corpus"])
def test_every_segment_read_at_once_gets_the_answer_of_the_step_by_step_read(where):
    roots = [FIXTURES] if where == "fixtures" else [corpus(k) for k in ("repos", "public", "public2", "lab")]
    cands = readers.all_formats()
    taken = 0
    for seg, trailers in _segments(roots):
        if trailers or readers._read_at_once(seg, cands, None) is None:
            continue
        taken += 1
        assert _answer(seg, trailers) == _step_by_step(seg, trailers), (seg.source, seg.line)
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
    assert readers._read_at_once(Segment(WRK, command=COMMAND, tool="wrk"), cands, None) is not None
    assert readers._read_at_once(Segment(WRK, command=COMMAND, tool="wrk"), cands, "ab") is None  # the caller's tool
    assert readers._read_at_once(Segment(WRK), cands, None) is None  # no command: the runs may be several
    # a command asking for the version is set aside, as the step-by-step read sets it aside
    version = Segment(WRK, command="wrk --version " + COMMAND[4:], tool="wrk")
    asked, (step, _) = (
        readers._read_at_once(version, cands, None),
        readers._read_segment(version, cands, cands, None, []),
    )
    assert (asked.runs, asked.not_runs) == (step.runs, step.not_runs) == ([], asked.not_runs)
    assert asked.not_runs[0]["kind"] == "help or version output"


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: Numbers and units as wrk prints them (first), and as an edited or damaged output may show them.
_NUMBERS = (["0", "0.00", "1", "16.44", "999.99", "4.18", "10"], ["1.2.3", "-1", "nan", "-nan", "00.5", ""])
_TIME_UNITS = (["us", "ms", "s", "m", "h"], ["", "ns", "sec"])
_RATE_SUFFIX = (["", "k", "M"], ["K", "G", "x"])
_BYTE_UNITS = (["B", "KB", "MB", "GB"], ["TB", "kB", ""])
_PCTS = (["87.14%", "-nan%", "100.00%", "5%"], ["nan%", "87.14", "-1%"])
#: Lines that may stand around a run: notes none of wrk's line kinds reads (first), and lines they read.
_NOTES = (
    ["End time: 1506570222", "", "podnum=40", "Start time: 1506570500", "== next =="],
    [
        "  Socket errors: connect 0, read 0, write 0, timeout 48",
        "  Non-2xx or 3xx responses: 12",
        "Requests/sec: 5.00",
        "  Latency Distribution",
        "     50%    3.82ms",
        "unable to connect to 10.0.0.2:80 Connection refused",
        "took 1.5 s",
        "#[Mean    =        1.234, StdDeviation   =        0.456]",
        "Running 10s test @ http://10.0.0.3/",
        "  2 threads and 10 connections",
        "    Latency   1.00ms  2.00ms  3.00ms  50.00%",
    ],
)


@st.composite
def _wrk_segments(draw) -> Segment:
    """A wrk command and a segment of one wrk run between notes: a canonical run among notes none of wrk's line
    kinds reads, or (each one draw in two) with its values and units, or the lines around it, drawn from what an
    edited output shows too."""
    odd = draw(st.booleans())  # the run's values (else canonical)
    odd_notes = draw(st.booleans())  # the lines around it (else notes no line kind reads)

    def pick(choices: tuple[list[str], list[str]], odd: bool = odd) -> str:
        return draw(st.sampled_from(choices[0] + choices[1] if odd else choices[0]))

    def n() -> str:
        return pick(_NUMBERS)

    def t() -> str:
        return pick(_TIME_UNITS)

    def r() -> str:
        return pick(_RATE_SUFFIX)

    run = [
        f"Running {n()}{t()} test @ http://10.0.0.{draw(st.integers(1, 3))}:{draw(st.sampled_from(['80', '8888']))}/",
        f"  {draw(st.integers(0, 64))} threads and {draw(st.integers(0, 2000))} connections",
        "  Thread Stats   Avg      Stdev     Max   +/- Stdev",
        f"    Latency   {n()}{t()}  {n()}{t()}  {n()}{t()}  {pick(_PCTS)}",
        f"    Req/Sec   {n()}{r()}  {n()}{r()}  {n()}{r()}  {pick(_PCTS)}",
    ]
    if draw(st.booleans()):
        run += ["  Latency Distribution", *(f"     {p}%  {n()}{t()}" for p in ("50", "75", "99"))]
    run.append(f"  {draw(st.integers(0, 10**7))} requests in {n()}{t()}, {n()}{pick(_BYTE_UNITS)} read")
    if draw(st.booleans()):
        run.append("  Socket errors: connect 0, read 3, write 0, timeout 48")
    if draw(st.booleans()):
        run.append(f"  Non-2xx or 3xx responses: {draw(st.integers(0, 99))}")
    run += [f"Requests/sec: {n()}{r()}", f"Transfer/sec:     {n()}{pick(_BYTE_UNITS)}"]
    lines = [pick(_NOTES, odd_notes) for _ in range(draw(st.integers(0, 2)))] + run
    lines += [pick(_NOTES, odd_notes) for _ in range(draw(st.integers(0, 4)))]
    end = "\n" if draw(st.booleans()) else ""
    command = draw(st.sampled_from([COMMAND, "wrk -t2 -c10 -d5s --latency http://10.0.0.2:8888/", "wrk --version"]))
    return Segment("\n".join(lines) + end, "x.log", 2, command=command, tool="wrk", command_line=1)


_TAKEN: list[int] = []


@settings(max_examples=1000, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seg=_wrk_segments())
def _drawn(seg):
    cands = readers.all_formats()
    if readers._read_at_once(seg, cands, None) is None:
        return  # left to the scan: the step-by-step read is the read
    _TAKEN.append(1)
    assert _answer(seg, []) == _step_by_step(seg, [])


def test_a_drawn_wrk_segment_read_at_once_gets_the_step_by_step_answer():
    _TAKEN.clear()
    _drawn()
    assert len(_TAKEN) > 50  # the drawn segments read at once are many: the check bites
