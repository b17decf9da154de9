"""wrk's canonical run read in one match (the ``run`` block kind) gives exactly what its lines read one by one give.

Every wrk segment the real read hands to the wrk reader (fixtures and corpus) is read twice: with
:data:`~lbanalysis.readers.wrk.text.LINE_KINDS` and with the same list without its block kind. The readers'
states (each run's row, percentiles, distribution state; the reader's own) and the parsed runs and
percentiles must be equal, NaN for NaN and type for type.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

import lbanalysis
import lbanalysis.readers as readers
from lbanalysis.readers.base import LineKind, scan
from lbanalysis.readers.wrk import text as wrk
from lbanalysis.text import Segment

from .conftest import FIXTURES, corpus

#: The line kinds alone: the path every run took before the block kind.
LINES_ONLY = [k for k in wrk.LINE_KINDS if not k.block]
#: What a file must hold to be worth reading here: wrk's threads line, its Running line, or its refusal.
_WRK_WORDS = re.compile(r"threads and|test @|unable to connect to")
_RUN_FIELDS = ("line", "first", "d", "percentiles", "kind", "spectrum", "spectra")  # not `filled`: the block's own


def same(a: object, b: object) -> bool:
    """Equal values of equal types, NaN equal to NaN, through dicts, lists, tuples and sets.

    >>> same({"a": [1.0, float("nan")]}, {"a": [1.0, float("nan")]}), same(0, 0.0), same({"a": 1}, {"b": 1})
    (True, False, False)
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))  # type: ignore[arg-type]
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(v, b[k]) for k, v in a.items())  # type: ignore[attr-defined]
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))  # type: ignore[arg-type]
    return a == b


def state(rd: wrk._Reader) -> tuple:
    """A reader's state after a scan: its runs' fields and whether it waits for a threads line."""
    return [tuple(getattr(r, f) for f in _RUN_FIELDS) for r in rd.runs], rd.awaits_threads


def parsed(seg: Segment, kinds: list[LineKind], monkeypatch: pytest.MonkeyPatch) -> tuple:
    """The runs and percentile rows :func:`wrk.parse` gives for a segment with these line kinds."""
    with monkeypatch.context() as m:
        m.setattr(wrk, "LINE_KINDS", kinds)
        p = wrk.parse(seg)
    return p.runs, p.tables.get("percentiles", [])


_CALLS: list[int] = []
#: LINE_KINDS with the block's handler counting its calls (in :data:`_CALLS`).
COUNTING = [
    dataclasses.replace(k, handler=lambda rd, n, m: _CALLS.append(n) or wrk._run_block(rd, n, m)) if k.block else k
    for k in wrk.LINE_KINDS
]


def block_runs(text: str) -> int:
    """How many runs of a text the block kind reads."""
    _CALLS.clear()
    scan(text, COUNTING, wrk._Reader())
    return len(_CALLS)


def wrk_segments(paths: Iterable[Path], monkeypatch: pytest.MonkeyPatch) -> list[Segment]:
    """The segments the real read hands to the wrk reader, reading ``paths`` (each once; a segment read at once,
    :func:`~lbanalysis.readers.wrk.text.read_one`, too)."""
    segs: list[Segment] = []
    netted = readers._netted

    def spy(f, seg, read, *args):
        if f.name == "wrk" and read in (f.parse, f.read_one):  # read at once or scanned (tests/test_read_one.py)
            segs.append(seg)
        return netted(f, seg, read, *args)

    files = [p for p in paths if p.is_file() and _WRK_WORDS.search(p.read_text(errors="replace"))]
    with monkeypatch.context() as m:
        m.setattr(readers, "_netted", spy)
        lbanalysis.read(files, table="all", errors="skip")
    return segs


def check_alike(segs: list[Segment], monkeypatch: pytest.MonkeyPatch) -> int:
    """Assert every segment reads alike both ways; returns how many runs the block read."""
    by_block = 0
    for seg in {(s.text, s.command): s for s in segs}.values():
        whole, lines = scan(seg.text, wrk.LINE_KINDS, wrk._Reader()), scan(seg.text, LINES_ONLY, wrk._Reader())
        assert same(state(whole), state(lines)), (seg.source, seg.line)
        assert same(parsed(seg, wrk.LINE_KINDS, monkeypatch), parsed(seg, LINES_ONLY, monkeypatch)), seg.source
        by_block += block_runs(seg.text)
    return by_block


def test_every_wrk_fixture_reads_alike(monkeypatch):
    segs = wrk_segments(sorted(FIXTURES.rglob("*")), monkeypatch)
    assert len(segs) > 30
    assert check_alike(segs, monkeypatch) >= 10  # the captured wrk 4 outputs and more


@pytest.mark.parametrize("part", ["public", "public2", "repos", "lab", "peers"])
def test_every_wrk_output_of_the_corpus_reads_alike(part, monkeypatch):
    segs = wrk_segments(sorted(corpus(part).rglob("*")), monkeypatch)
    by_block = check_alike(segs, monkeypatch)
    if part == "repos":  # ktaka-ccmp+kube-lb-bench alone: 7,002 canonical runs
        assert by_block > 7000


WRK = FIXTURES / "wrk"


@pytest.mark.parametrize(
    ("name", "runs"),
    [
        ("wrk_basic.txt", 1),
        ("wrk_close.txt", 1),
        ("wrk_latency_404.txt", 1),
        ("wrk_socket_errors.txt", 1),
        ("wrk_timeout.txt", 1),
        ("wrk_transcript.txt", 2),
        ("wrk2_rate_spectrum.txt", 0),  # calibration lines and a spectrum: read line by line
        ("wrk2_u_latency.txt", 0),
        ("wrk_refused.txt", 0),
    ],
)
def test_the_block_reads_the_canonical_runs(name, runs):
    assert block_runs((WRK / name).read_text()) == runs


def _variants() -> list[tuple[str, str, int]]:
    """Canonical outputs changed as pasted or odd ones are: (name, text, runs the block reads)."""
    basic, latency = (WRK / "wrk_basic.txt").read_text(), (WRK / "wrk_latency_404.txt").read_text()
    timeout = (WRK / "wrk_timeout.txt").read_text()
    lines = latency.split("\n")
    return [
        ("spaces and tabs around lines", "\n".join(f"\t {ln} \t" if ln else ln for ln in lines), 1),
        ("no newline at the end", latency.rstrip("\n"), 1),
        ("two runs back to back", basic + latency, 2),
        ("no run in one of two", basic + "\n" + timeout, 2),
        ("a distribution without lines", latency.replace("     50%    3.82ms\n     75%   18.05ms\n", "")
         .replace("     90%   54.47ms\n     99%  110.36ms\n", ""), 1),
        ("a note inside", latency.replace("  Latency Distribution\n", "  Latency Distribution\nnote\n"), 0),
        ("a blank line inside", basic.replace("Requests/sec", "\nRequests/sec"), 0),
        ("no Thread Stats header", basic.replace("  Thread Stats   Avg      Stdev     Max   +/- Stdev\n", ""), 0),
        ("no Transfer line", basic.replace("Transfer/sec:    272.58KB\n", ""), 0),
        ("uncorrected distribution", latency.replace("Latency Distribution", "Uncorrected Latency"), 0),
        ("a number printed otherwise", basic.replace("19.10ms", "1.9e1ms"), 0),
        ("a unit wrk2 does not print", basic.replace("559.33KB", "559.33PB"), 0),
        ("digits of another script", basic.replace("1457 requests", "\u0661\u0664\u0665\u0667 requests"), 0),
        ("nan without its sign", timeout.replace("-nan%", "nan%"), 1),
        ("a decimal point without decimals", basic.replace("19.10ms", "19.ms"), 1),
        ("a threads line first", "  4 threads and 8 connections\n" + basic, 1),
        ("after a threads line alone", basic.split("\n", 1)[1] + basic, 1),
        ("a URL without a host", basic.replace("http://127.0.0.1:18080/", "http:///x"), 1),
        ("a port that is no number", basic.replace("127.0.0.1:18080", "127.0.0.1:80x"), 1),
        ("trailing words", basic.replace("Requests/sec:    710.04", "Requests/sec:    710.04 (mean)"), 0),
    ]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "runs"), _variants(), ids=[v[0] for v in _variants()])
def test_odd_shapes_read_alike(name, text, runs, monkeypatch):
    whole, lines = scan(text, wrk.LINE_KINDS, wrk._Reader()), scan(text, LINES_ONLY, wrk._Reader())
    assert same(state(whole), state(lines))
    seg = Segment(text, name)
    assert same(parsed(seg, wrk.LINE_KINDS, monkeypatch), parsed(seg, LINES_ONLY, monkeypatch))
    assert block_runs(text) == runs
