"""What every reader module provides, and the small helpers they share.

A reader module defines one or more :class:`Format` objects in a
module-level ``FORMATS`` list. A format has a ``detect(text) -> bool`` that
peeks at normalized text, and a ``parse(segment) -> Parsed`` that returns
plain Python rows under the column names of :mod:`lbanalysis.schema`.

Rows in ``Parsed.runs`` are one dict per run. Rows of detail tables carry a
``run`` key: the index of their run in ``Parsed.runs``. The dispatcher fills
``source`` and renumbers runs across the segments of a file. A run may give
``line`` relative to its segment text (1-based); the dispatcher makes it
absolute.

>>> p = Parsed([{"tool": "ab", "requests": 5}], {"percentiles": [{"run": 0, "percentile": 50.0, "latency_s": 0.1}]})
>>> p.n_runs
1
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Generic, TypeVar
from urllib.parse import urlsplit

import pandas as pd

from ..errors import ParseError
from ..schema import COMMAND_REFUSED, NO_ANSWER, NO_RESULT_SHOWN
from ..text import Segment, longest_of

__all__ = [
    "COMMAND_REFUSED",
    "NO_ANSWER",
    "NO_RESULT_SHOWN",
    "ByteRanges",
    "Format",
    "LineKind",
    "ParseError",
    "Parsed",
    "Runs",
    "Segment",
    "error_kind",
    "error_row",
    "hint_search",
    "scan",
    "target",
    "to_float",
    "to_int",
]


@dataclass
class Parsed:
    """Runs (list of dicts) and detail tables (list of dicts or a frame) read from one segment."""

    runs: list[dict] = field(default_factory=list)
    tables: dict[str, list[dict] | pd.DataFrame] = field(default_factory=dict)
    #: outputs that are not tests (help, version banners, bare commands): line, tool, command, kind
    not_runs: list[dict] = field(default_factory=list)
    #: the lines before the runs that name settings, as :func:`~lbanalysis.design.tokens.section_lines` gives them,
    #: when the reading found them already (a sweep's notes); None: :func:`~lbanalysis.design.sections.mark` seeks
    #: them in the text
    sections: list[tuple[int, str, float | str]] | None = None

    @property
    def n_runs(self) -> int:
        return len(self.runs)

    def add_run(self, run: dict, **details: list[dict]) -> int:
        """Append one run and its detail rows (``intervals=[...]``); returns its index.

        >>> p = Parsed()
        >>> p.add_run({"tool": "iperf3"}, intervals=[{"start_s": 0.0}, {"start_s": 1.0}])
        0
        >>> p.tables["intervals"][1]
        {'run': 0, 'start_s': 1.0}
        """
        i = len(self.runs)
        self.runs.append(run)
        for name, rows in details.items():
            if rows:
                self.tables.setdefault(name, []).extend({"run": i, **r} for r in rows)  # type: ignore[union-attr]
        return i

    def extend(self, other: Parsed) -> None:
        """Append another result, renumbering its runs after ours."""
        offset = len(self.runs)
        self.runs.extend(other.runs)
        self.not_runs.extend(other.not_runs)
        for name, rows in other.tables.items():
            if isinstance(rows, pd.DataFrame):
                rows = rows.assign(run=rows["run"] + offset) if offset else rows
            else:
                rows = [{**r, "run": _shifted(r["run"], offset)} for r in rows] if offset else rows
            mine = self.tables.get(name)
            if mine is None:
                self.tables[name] = rows
            elif isinstance(mine, pd.DataFrame) or isinstance(rows, pd.DataFrame):
                self.tables[name] = pd.concat([pd.DataFrame(mine), pd.DataFrame(rows)], ignore_index=True)
            else:
                mine.extend(rows)


def _shifted(run: int | None, offset: int) -> int | None:
    """A detail row's run renumbered after ``offset`` runs; None (a sample of no run: the cpu table) stays None.

    >>> _shifted(1, 2), _shifted(None, 2)
    (3, None)
    """
    return None if run is None else run + offset


@dataclass(frozen=True)
class Format:
    """One input format: its name, tool, detector and parser.

    ``whole_file`` formats are tried on the whole file before it is split
    into transcript segments (CSV logs, TSV, JSON documents). ``parse_path``
    is an optional fast path used when the input is a file on disk, called as
    ``parse_path(path, source, tables, executor=None)`` (``tables``: the
    detail tables the caller wants, None for all; see :meth:`Segment.wants`;
    ``executor``: the caller's thread pool, from ``read(..., executor=)``).
    ``ranges``: the format's ability to be read in byte ranges of a large
    file (see :class:`ByteRanges`); engines that partition files use it.
    ``trailer(text)``: where this format's output begins when it is appended
    after another tool's output in one segment (``time``'s report after the
    command it timed), as an offset in ``text``, else None; the dispatcher
    reads the part before with the tool's format and this part with this one,
    its rows belonging to the run printed just before.
    ``plain``: a pattern that a whole (normalized) text matches only when it
    is one clean output of this format and nothing else (no command line,
    appended report, quoting or other format in it); the dispatcher reads
    such a text with this format straight away, skipping detection and
    transcript splitting (ab's summaries: most files read in bulk).
    ``read_plain(match, segment)``: how such a text is read from the
    pattern's match, giving what ``parse`` gives (default: ``parse``).
    ``json``: a whole-file format that may recognise a JSON document (a
    text taken for JSON is asked of these alone, in their order;
    ``tests/test_markers.py`` holds that no other format recognises one of
    the fixtures or the corpus).
    ``json_words``: for such a format, keys one of which (quoted, as
    ``"key"``) every document it recognises holds, wherever they stand;
    None: not said. The dispatcher finds which of all the formats' words a
    document's head holds in one search and asks only the formats with a
    word there, and those that say none (``tests/test_markers.py`` holds
    the words true of every JSON document of the fixtures and the corpus).
    ``read_one(segment)``: the runs of a segment after its tool's command
    that holds one output in the shape the reader reads in one match and no
    other line the reader would read, as ``parse`` gives them (their rows
    before the dispatcher's tool, format, command and line), without the
    line scan; None for any other segment, which ``parse`` then reads. The
    dispatcher asks it first for such segments (a sweep's log: thousands of
    them), after the checks ``parse`` would go through
    (``tests/test_read_one.py`` holds the answers equal on every segment of
    the fixtures and the corpus).
    Given ``run`` too (``read_one(segment, run)``: the groups of its
    ``sweep`` pattern's match, and where it starts and ends in the
    segment's text), it reads that run without matching it again.
    ``sweep``: the pattern of one run's output as it follows its command in
    a sweep's log (wrk: its canonical block, the shape ``read_one`` reads),
    whose lines hold no free text but in the first (the target), and which
    ``detect`` recognises wherever it matches at a line's start (the
    dispatcher asks ``detect`` before it cuts a text). A text
    that is such runs, each maybe after a command of the tool, and notes
    between them is cut without the clean-up and the command search
    (:func:`~lbanalysis.text.cut_sweep`); each run after a command is read
    by ``read_one(segment, run)``, the runs before any command by
    ``parse(segment, runs)`` (their groups, starts and ends in the
    segment's text), which a format with ``sweep`` accepts
    (``tests/test_sweep_log.py`` holds the answers equal to the full
    path's).
    """

    name: str
    tool: str
    detect: Callable[[str], bool]
    parse: Callable[[Segment], Parsed]
    whole_file: bool = False
    parse_path: Callable[..., Parsed] | None = None
    description: str = ""
    ranges: ByteRanges | None = None
    trailer: Callable[[str], int | None] | None = None
    plain: re.Pattern[str] | None = None
    read_plain: Callable[[re.Match[str], Segment], Parsed] | None = None
    json: bool = False
    json_words: tuple[str, ...] | None = None
    read_one: Callable[..., Parsed | None] | None = None
    sweep: re.Pattern[str] | None = None


@dataclass(frozen=True)
class ByteRanges:
    """How a per-request log is read in byte ranges, each on its own worker, into the ``requests`` table.

    - ``cut(path, blocksize)``: the byte ranges ``(start, stop)`` of the
      file's data, at line ends, about ``blocksize`` bytes each; None when
      the file is not of this format.
    - ``read(path, start, stop)``: one range parsed (a picklable piece).
    - ``keys(piece)``: the piece's order keys, ascending, and its rows per
      key; the engine merges them so that rows keep the order the whole
      file reads in (stable by key, then by range).
    - ``rows(piece, low, dest)``: the piece's rows as a ``requests`` frame
      (``source`` left to the engine); ``low`` is the file's first key,
      ``dest[i]`` the output row where the piece's ``i``-th key begins.
    """

    cut: Callable[[Path, int], list[tuple[int, int]] | None]
    read: Callable[[Path, int, int], Any]
    keys: Callable[[Any], tuple[Any, Any]]
    rows: Callable[[Any, int, Any], pd.DataFrame]


#: What a handler returns: None (the line is read), False (not this kind after all: the
#: next kinds are tried), or the number of the line the scan goes on at (lines skipped).
Step = bool | int | None


@dataclass(frozen=True)
class LineKind:
    """One kind of line a format prints: its name, a hint, its pattern and its handler.

    ``hint`` is a text the line must hold (``""``: any line), checked
    before the pattern as a fast filter. ``pattern`` is matched at the
    start of the line (``search=True``: anywhere in it); with ``block=True``
    it is matched at the line's start in the whole text and may span
    several lines (a table), which the scan then passes over. ``handler``
    is called as ``handler(reader, n, m)``: the reader's state, the line's
    number (1-based) and the match; it returns a :data:`Step`.
    """

    name: str
    hint: str
    pattern: re.Pattern[str]
    handler: Callable[[Any, int, re.Match[str]], Step]
    search: bool = False
    block: bool = False


_COMPILED: dict[int, tuple[Sequence[LineKind], list[tuple], bool, Callable | None]] = {}


def _compiled(kinds: Sequence[LineKind]) -> tuple[list[tuple], bool, Callable | None]:
    """The kinds as (hint, the pattern's match or search, block, handler) tuples, whether one is a block, and the
    search for the next place any hint stands (None when some kind reads any line), made once per list of kinds."""
    got = _COMPILED.get(id(kinds))
    if got is None or got[0] is not kinds:
        table = [(k.hint, k.pattern.search if k.search else k.pattern.match, k.block, k.handler) for k in kinds]
        hints = {k.hint for k in kinds}
        # a hint that may hold a line end could stand across two lines: no search then
        seek = None if "" in hints or any("\n" in h for h in hints) else re.compile(longest_of(hints)).search
        got = _COMPILED[id(kinds)] = (kinds, table, any(k.block for k in kinds), seek)  # holds the list: its id stays
    return got[1], got[2], got[3]


def hint_search(kinds: Sequence[LineKind]) -> Callable[..., re.Match[str] | None] | None:
    """The search :func:`scan` makes for the next place a hint of ``kinds`` stands (``search(text, pos)``), None
    when some kind reads any line: a reader that reads a whole output in one match asks it whether any line after
    the match is one the scan would read.

    >>> kinds = [LineKind("pair", "=", re.compile(r"(\\w+)=(\\d+)"), lambda r, n, m: None)]
    >>> hint_search(kinds)("no pair\\na=1").start()
    9
    """
    return _compiled(kinds)[2]


def _next_hint(text: str, pos: int, seek: Callable) -> tuple[int, int] | None:
    """The start of the first line from ``pos`` (a line's start) on which some hint stands, and how many lines
    before it were passed over; None when no hint stands in the rest of the text.

    >>> _next_hint("a\\nb\\nxy hint\\nc", 0, re.compile("hint").search)
    (4, 2)
    """
    m = seek(text, pos)
    if m is None:
        return None
    start = text.rfind("\n", pos, m.start()) + 1 or pos
    return start, text.count("\n", pos, start)


def scan(
    text: str,
    kinds: Sequence[LineKind],
    reader: Any,
    *,
    prepare: Callable[[int, str], str] | None = None,
    other: Callable[[int, str], None] | None = None,
) -> Any:
    """Read ``text`` line by line: the first kind whose hint and pattern match calls its handler.

    Lines are right-stripped; ``prepare(n, line)`` may change a line first
    (strip a prompt or a timestamp; it sees blank lines too); lines blank
    after it are passed over; ``other(n, line)`` gets the lines no kind
    reads. ``kinds`` is a list fixed when its module loads (its form for the
    loop is kept). Returns ``reader``.

    >>> kinds = [LineKind("pair", "=", re.compile(r"(\\w+)=(\\d+)"), lambda r, n, m: r.append((n, m[1], int(m[2]))))]
    >>> scan("a=1\\n\\nnoise\\nb=2", kinds, [])
    [(1, 'a', 1), (4, 'b', 2)]
    >>> block = LineKind("block", "begin", re.compile(r"begin\\n(\\w+)\\nend\\n"), lambda r, n, m: r.append((n, m[1])), block=True)
    >>> scan("x\\nbegin\\ny\\nend\\nbegin\\nz", [block, LineKind("any", "", re.compile(".+"), lambda r, n, m: r.append((n, m[0])))], [])
    [(1, 'x'), (2, 'y'), (5, 'begin'), (6, 'z')]
    """
    table, blocks, seek = _compiled(kinds)
    if not blocks:
        return _scan_lines(text, table, reader, prepare, other)
    lines = text.split("\n")
    end = len(text)
    i, total, pos = 0, len(lines), 0
    # the lines on which no kind's hint stands are passed over, at the start and after a block (an output's own
    # lines read at once, often notes after it): unless a prepared line or one that no kind reads is asked for
    seek = seek if prepare is None and other is None else None
    skip = seek is not None
    while i < total:
        if skip:
            skip = False
            found = _next_hint(text, pos, seek)  # type: ignore[arg-type]
            if found is None:
                break
            pos, passed = found
            i += passed
        start = pos  # where the line starts in the text
        raw = lines[i]
        pos += len(raw) + 1  # where the next one starts
        i += 1  # the line's number; the index of the next one
        line = raw.rstrip()
        if prepare is not None:
            line = prepare(i, line).rstrip()
        if not line:
            continue
        for hint, match, block, handler in table:
            if hint not in line:
                continue
            m = match(text, start) if block else match(line)
            if m is None:
                continue
            step = handler(reader, i, m)
            if step is False:
                continue
            if block and m.end() > pos:  # pass over the lines the block spans (the rest of its last one too)
                stop = m.end() if text[m.end() - 1] == "\n" else text.find("\n", m.end()) + 1 or end + 1
                i = total if stop > end else i + text.count("\n", pos, stop)
                pos = stop
                skip = seek is not None
            elif step is not None and step is not True:
                while i + 1 < step and i < total:  # lines the handler read itself
                    pos += len(lines[i]) + 1
                    i += 1
            break
        else:
            if other is not None:
                other(i, line)
    return reader


def _scan_lines(
    text: str,
    table: list[tuple],
    reader: Any,
    prepare: Callable[[int, str], str] | None,
    other: Callable[[int, str], None] | None,
) -> Any:
    """:func:`scan` for kinds of one line each (no ``block``): the same reading, over the split lines (faster).

    >>> kinds = [LineKind("skip", "skip", re.compile(r"skip (\\d+)"), lambda r, n, m: r.append(n) or int(m[1]))]
    >>> scan("skip 3\\nskip 9\\nskip 4\\nskip 1", kinds, [])
    [1, 3, 4]
    """
    lines = text.split("\n")
    i, total = 0, len(lines)
    while i < total:
        line = lines[i].rstrip()
        i += 1  # the line's number; the index of the next one
        if prepare is not None:
            line = prepare(i, line).rstrip()
        if not line:
            continue
        for hint, match, _, handler in table:
            if hint not in line:
                continue
            m = match(line)
            if m is None:
                continue
            step = handler(reader, i, m)
            if step is False:
                continue
            if step is not None and step is not True and step > i + 1:
                i = step - 1  # lines the handler read itself
            break
        else:
            if other is not None:
                other(i, line)
    return reader


_NUM_RE = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def printed_step(text: str | None) -> float | None:
    """The step of a number as printed: 0.01 for ``0.01`` or ``12.50``, 1 for ``7``; None if no number.

    A value printed to this step lies within half a step of the printed one.

    >>> printed_step("0.01 secs"), printed_step("12.50"), printed_step("7"), printed_step("nan"), printed_step("-")
    (0.01, 0.01, 1.0, None, None)
    """
    if text is None:
        return None
    head = text.split(None, 1)
    if not head:
        return None
    num = head[0]
    try:
        if not math.isfinite(float(num)):
            return None
    except ValueError:
        return None
    mantissa, _, exponent = num.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def to_float(text: str | None) -> float | None:
    """First number in text as float (``nan``/``inf`` understood), else None.

    >>> to_float("  12.5 [ms] (mean)"), to_float("nan"), to_float("-"), to_float("1,234")
    (12.5, nan, None, 1.0)
    """
    if text is None:
        return None
    head = text.split(None, 1)
    if head:
        try:
            v = float(head[0])
            return float("nan") if v != v else v
        except ValueError:
            pass
    m = _NUM_RE.search(text)
    return float(m.group(0)) if m else None


def to_int(text: str | None) -> int | None:
    """First number in text as int, else None.

    >>> to_int("Complete requests:      1000"), to_int("none")
    (1000, None)
    """
    v = to_float(text)
    if v is None or v != v or v in (float("inf"), float("-inf")):
        return None
    return round(v)


R = TypeVar("R")


@dataclass
class Runs(Generic[R]):
    """The runs of one segment as :func:`scan`'s handlers build them; lines before the first run belong to none.

    ``new(line)`` makes a run; ``starts(kind, match, current)`` is the one place that decides where a run
    starts (``current``: the run being read, or None).

    >>> rs = Runs(lambda n: [n], lambda kind, m, cur: kind == "head")
    >>> rs.run_for("body", 1, None), rs.run_for("head", 2, None), rs.run_for("body", 3, None)
    (None, [2], [2])
    """

    new: Callable[[int], R]
    starts: Callable[[str, Any, R | None], bool]
    runs: list[R] = field(default_factory=list)

    def run_for(self, kind: str, n: int, m: Any) -> R | None:
        """The run a line of this kind belongs to, started here when ``starts`` says so."""
        if self.starts(kind, m, self.runs[-1] if self.runs else None):
            self.runs.append(self.new(n))
        return self.runs[-1] if self.runs else None


def target(url: str) -> dict:
    """Run fields of a target URL: ``url``, ``host``, ``path`` and ``port`` (the scheme's own when none is
    given; left out when the port is not a number).

    >>> target("http://127.0.0.1:18880/x")["port"], target("https://h/slow?ms=50")["path"], target("https://h")["port"]
    (18880, '/slow', 443)
    """
    return dict(_target(url))  # a dict of its own: callers add to it


@lru_cache(maxsize=1024)
def _target(url: str) -> dict:
    """:func:`target`, once per URL (a sweep's files name one target; read, never changed)."""
    parts = urlsplit(url)
    out: dict = {"url": url, "host": parts.hostname, "path": parts.path or "/"}
    try:
        out["port"] = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        pass
    return out


def error_row(tool: str, message: str, kind: str | None = None, **extra) -> dict:
    """A run row for a run that produced no result (error set, figures empty); ``kind`` is its
    ``error_kind`` (:data:`lbanalysis.schema.ERROR_KINDS`), where the output says.

    >>> error_row("k6", "no result: the output stops before k6's summary", NO_RESULT_SHOWN)["error_kind"]
    'no result shown'
    """
    return {"tool": tool, "error": message, **({"error_kind": kind} if kind else {}), **extra}


def error_kind(messages: Sequence[str], kinds: Sequence[tuple[re.Pattern, str]]) -> str | None:
    """What a run's error lines say of its requests: the first of ``kinds`` (pattern, kind) a message
    matches, the command refused before all (the tool sent nothing, whatever else it printed).

    >>> kinds = [(re.compile(r"^ab: "), COMMAND_REFUSED), (re.compile(r"^apr_"), NO_ANSWER)]
    >>> error_kind(["apr_socket_recv: Connection refused (111)"], kinds)
    'no answer'
    >>> error_kind(["Test aborted", "ab: invalid URL"], kinds), error_kind(["odd"], kinds)
    ('command refused', None)
    """
    found = [kind for msg in messages for pattern, kind in kinds if pattern.search(msg.strip())]
    return COMMAND_REFUSED if COMMAND_REFUSED in found else found[0] if found else None
