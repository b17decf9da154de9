"""A sweep's log read without the clean-up and the command search (:attr:`Format.sweep`, issue #39).

(``tests/test_sweep.py`` is the ``lbanalysis sweep`` command's.)

A sweep's log (ktaka's kube-lb-bench: thousands of wrk runs, each after its
command, between notes such as ``podnum=4`` and ``Start time: 1505451110``)
is cut into its segments by one match a run (:func:`lbanalysis.text.cut_sweep`),
each segment read at once, and the settings sought in the notes alone. These
tests hold that every such text of the fixtures and the corpus, and of a
thousand drawn ones, gets the answer of the full path: the runs with their
settings, their detail rows, what is set aside, the error; and that the cut
is the full path's cut but for the indentation the clean-up takes off.
"""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest

import lbanalysis.readers as readers
from lbanalysis.errors import LBAnalysisError
from lbanalysis.files import parsed
from lbanalysis.text import cut_sweep, decode, normalize, split_transcript

from .conftest import FIXTURES, corpus
from .test_read_one import COMMAND, WRK  # one canonical wrk run and its command


def _cut(text: str):
    """The cut of the first sweep format that takes ``text``, else None."""
    for _, unit in readers._sweeps(None):
        if (cut := cut_sweep(text, "x.log", unit)) is not None:
            return cut
    return None


def _read(text: str) -> bool:
    """Whether the sweep path reads ``text`` (else it leaves it to the full path)."""
    try:
        return readers._read_sweep(text, "x.log", None, readers.all_formats(), None) is not None
    except LBAnalysisError:
        return True  # it read it, and raised what the full path raises (compared by :func:`_answer`)


def _answer(text: str, full: bool = False) -> tuple:
    """What a read of ``text`` gives (runs marked with their settings): by the sweep path where it takes the text,
    or (``full``) by the full path."""
    try:
        if full:
            with mock.patch.object(readers, "_read_sweep", lambda *a: None):
                p = parsed(text, "x.log", None, None, None)
        else:
            p = parsed(text, "x.log", None, None, None)
    except LBAnalysisError as e:
        return type(e).__name__, str(e)
    return p.runs, p.tables, p.not_runs


def _same_cut(text: str) -> None:
    """The sweep's cut is the full path's (its clean-up cut by the command search), but for indentation."""
    segments = _cut(text).segments
    full = split_transcript(normalize(text), "x.log")

    def key(s):
        lines = tuple(ln.strip() for ln in s.text.split("\n"))
        return s.line, s.command, s.tool, s.prompt, s.commands, s.command_line, lines

    assert [key(s) for s in segments] == [key(s) for s in full]


def _texts(roots: list[Path]) -> list[tuple[Path, str]]:
    out = []
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            if path.stat().st_size <= 3_000_000:
                out.append((path, decode(path.read_bytes())))
    return out


@pytest.mark.parametrize("where", ["fixtures", "corpus"])
def test_every_sweep_of_the_fixtures_and_the_corpus_gets_the_full_path_s_answer(where):
    roots = [FIXTURES] if where == "fixtures" else [corpus(k) for k in ("repos", "public", "public2", "lab")]
    taken = read = 0
    for path, text in _texts(roots):
        if _cut(text) is None:
            continue
        taken += 1
        read += _read(text)
        _same_cut(text)
        assert _answer(text) == _answer(text, full=True), path
    # ktaka's sweep logs alone: 383 files, 6,900 runs; nearly all of them read by the sweep path
    assert taken >= (1 if where == "fixtures" else 380) and read >= (1 if where == "fixtures" else 370)


def test_a_text_the_clean_up_or_the_command_search_would_act_on_is_left_to_the_full_path():
    sweep = f"podnum=1\n{COMMAND}\n{WRK}End time: 1\n\npodnum=2\n{COMMAND}\n{WRK}"
    assert _cut(sweep) is not None
    for edited in (
        sweep.replace("podnum=2", "> podnum=2"),  # a quote
        sweep.replace("\n", "\r\n"),  # CRLF
        sweep.replace("End time: 1", "End time:\t1"),  # a TAB
        sweep.replace("End time: 1", "took 1.5 s"),  # prose
        sweep.replace("End time: 1", "$ ab -n 1 http://h/"),  # another tool's command
        sweep.replace(COMMAND, COMMAND + " # note"),  # a shell comment
        sweep.replace(COMMAND, f"{COMMAND} \\\n  --latency", 1),  # a command continued
        sweep.replace("Thread Stats", "Thread  Stat"),  # a run not canonical
        sweep + "Requests/sec: 5\n",  # a line of wrk's after the last run
    ):
        assert _cut(edited) is None or _answer(edited) == _answer(edited, full=True), edited


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from .test_read_one import _BYTE_UNITS, _NUMBERS, _PCTS, _RATE_SUFFIX, _TIME_UNITS, _wrk_segments  # noqa: E402

#: Notes between runs: settings, times, host names (first), and lines that are notes to the cut and may be more to
#: the full path (a tool's name, a setting's word, a figure, a heading), or no notes to it.
_NOTES = (
    ["podnum=4", "Start time: 1505451110", "End time: 1505451140", "", "   ", "kt-test-lb1", "1169", "30s"],
    ["run: 3", "servers=4", "concurrency: 64", "tool: wrk", "ab: 5", "Latency: 5", "time: 2", "siege=1",
     "Requests: 9", "iteration 2", "## wrk", "10 connections", "--", "wrk=2", "x: wrk", "$ ab -n 1 http://h/",
     "> quoted: 1", "> podnum=3", "\tTAB: 1", "    indented: 2", "Requests/sec: 5.00", "wrk -c1 http://h/",
     "$ wrk -t1 http://h/", "wrk --version", "  Socket errors: connect 0, read 1, write 0, timeout 2", "#",
     "Start time: wrk -c800 -t40 -d60s http://10.0.255.2:8888/coffee", "  2 threads and 10 connections", "[x]",
     "Running 1s test @ http://h/"],
)  # fmt: skip
_HOSTS = ["10.0.0.2:8888", "siege.local", "ab", "wrk:81", "h", "haproxy:80", "vegeta", "show", "travis_ci"]


@st.composite
def _canonical(draw) -> str:
    """A wrk command and a canonical run after it, as wrk prints them."""

    def n(choices=_NUMBERS[0]) -> str:
        return draw(st.sampled_from(choices))

    latency = draw(st.booleans())
    lines = [
        f"wrk -c{draw(st.integers(1, 900))} -t{draw(st.integers(1, 64))} -d30s{' --latency' if latency else ''}"
        " http://10.0.0.2:8888/",
        f"Running {n()}{n(_TIME_UNITS[0])} test @ http://10.0.0.2:8888/",
        f"  {draw(st.integers(1, 64))} threads and {draw(st.integers(1, 2000))} connections",
        "  Thread Stats   Avg      Stdev     Max   +/- Stdev",
        f"    Latency   {n()}{n(_TIME_UNITS[0])}  {n()}{n(_TIME_UNITS[0])}  {n()}{n(_TIME_UNITS[0])}  {n(_PCTS[0])}",
        f"    Req/Sec   {n()}{n(_RATE_SUFFIX[0])}  {n()}{n(_RATE_SUFFIX[0])}  {n()}{n(_RATE_SUFFIX[0])}  {n(_PCTS[0])}",
    ]
    if latency:
        lines += ["  Latency Distribution", *(f"     {p}%  {n()}{n(_TIME_UNITS[0])}" for p in ("50", "75", "99"))]
    lines.append(f"  {draw(st.integers(0, 10**7))} requests in {n()}{n(_TIME_UNITS[0])}, {n()}{n(_BYTE_UNITS[0])} read")
    if draw(st.booleans()):
        lines.append(f"  Socket errors: connect 0, read {draw(st.integers(0, 500))}, write 0, timeout 48")
    if draw(st.booleans()):
        lines.append(f"  Non-2xx or 3xx responses: {draw(st.integers(0, 99))}")
    lines += [f"Requests/sec: {n()}{n(_RATE_SUFFIX[0])}", f"Transfer/sec:     {n()}{n(_BYTE_UNITS[0])}"]
    return "\n".join(lines) + "\n"


@st.composite
def _sweeps(draw) -> str:
    """A sweep's log: notes, then runs each after a wrk command (or without one), with notes after it (a canonical
    run, or one in four a drawn segment of ``test_read_one``: values or lines wrk reads otherwise), to targets
    whose names may be tools'."""
    notes = _NOTES[0] + _NOTES[1] if draw(st.booleans()) else _NOTES[0]
    text = "".join(draw(st.sampled_from(notes)) + "\n" for _ in range(draw(st.integers(0, 3))))
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.integers(0, 3)):
            run = draw(_canonical())
            text += run if draw(st.integers(0, 3)) else run.split("\n", 1)[1]  # one in four without its command
        else:
            seg = draw(_wrk_segments())
            text += seg.command + "\n" + seg.text.rstrip("\n") + "\n"
        text += "".join(draw(st.sampled_from(notes)) + "\n" for _ in range(draw(st.integers(0, 2))))
    text = text.replace("10.0.0.2:8888", draw(st.sampled_from(_HOSTS)))
    return text if draw(st.booleans()) else text.rstrip("\n")


_TAKEN: list[bool] = []  # for each drawn sweep the cut takes: whether the sweep path reads it


@settings(max_examples=1000, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(text=_sweeps())
def _drawn(text):
    if _cut(text) is None:
        return  # the full path is the read
    _TAKEN.append(_read(text))
    _same_cut(text)
    assert _answer(text) == _answer(text, full=True)


def test_a_drawn_sweep_gets_the_full_path_s_answer():
    _TAKEN.clear()
    _drawn()
    # the drawn sweeps the cut takes are many, and most are read by the sweep path: the check bites
    assert len(_TAKEN) > 120 and sum(_TAKEN) > 80


@settings(max_examples=200, deadline=None, derandomize=True)
@given(run=_canonical())
def test_a_run_a_sweep_pattern_matches_is_recognised_by_its_format(run):
    """The dispatcher cuts only a text its format's ``detect`` recognises, and does not ask ``detect`` again of a
    segment that starts with a run its ``sweep`` pattern matched (:attr:`Format.sweep`): it must be true of a
    text wherever such a run stands at a line's start."""
    body = run.split("\n", 1)[1]  # without the command
    for f, _ in readers._sweeps(None):
        assert f.sweep.match(body) is not None
        assert f.detect(body + "End time: 1\n") and f.detect("podnum=4\nStart time: 1\n" + run + "End time: 1\n")
