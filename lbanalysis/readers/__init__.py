"""Format registry and dispatch: text in, :class:`Parsed` runs out.

Detecting a format is separate from reading it: every format has a
``detect(text)`` that peeks at normalized text. :func:`detect` names the
format of a text (or returns None); :func:`parse_text` detects and reads,
first trying whole-file formats (CSV logs, TSV, JSON) on the whole text,
then splitting terminal transcripts into one segment per command and
reading each segment with the format that recognises it.

>>> p = parse_text("Requests per second:    12570.77 [#/sec] (mean)\\n", "x.txt")
>>> p.runs[0]["tool"], p.runs[0]["requests_per_s"]
('ab', 12570.77)
>>> detect("hello world") is None
True
"""

from __future__ import annotations

import importlib
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import replace
from functools import cache, lru_cache
from typing import Any, NoReturn

import pandas as pd

from ..design.tokens import section_lines
from ..errors import LBAnalysisError, ParseError, UnknownFormatError
from ..text import Segment, as_printed, command_argv, cut_sweep, longest_of, normalize, split_transcript, sweep_unit
from .base import Format, Parsed
from .moved import install
from .sniff import all_json, csv_document, json_asked, json_document, json_start, words_pattern

__all__ = ["FORMATS", "TOOLS", "Format", "Parsed", "all_formats", "detect", "formats", "get_format", "parse_text"]

from .. import registry

install()  # old module paths (lbanalysis.readers.k6_json) still import, with a DeprecationWarning


@cache
def all_formats() -> list[Format]:
    """Every tool's formats in the registry's detection order: whole-file formats first.

    The reader modules the registry names are imported here, on the first
    call (``import lbanalysis`` imports none of them); ``FORMATS`` is this list.

    >>> from lbanalysis.readers import FORMATS
    >>> all_formats() is FORMATS, all_formats()[0].name
    (True, 'ab-gnuplot')
    """
    found: list[Format] = []
    for tool in registry.TOOLS:
        for name in tool.readers:
            mod = importlib.import_module(f"{__name__}.{name}")
            found.extend(mod.FORMATS)
    return [f for f in found if f.whole_file] + [f for f in found if not f.whole_file]


def __getattr__(name: str) -> Any:
    """``FORMATS`` (:func:`all_formats`) and the reader modules, imported when first asked for."""
    if name == "FORMATS":
        return all_formats()
    if not name.startswith("__"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


TOOLS = registry.names()


def formats() -> dict[str, str]:
    """Known format names and what they are.

    >>> "ab" in formats()
    True
    """
    return {f.name: f.description for f in all_formats()}


@cache
def _known() -> str:
    """The names of every format, as an error lists them (once: the formats are fixed on first use)."""
    return ", ".join(f.name for f in all_formats())


def get_format(name: str) -> Format:
    """The format called ``name``; an unknown name lists the known ones."""
    for f in all_formats():
        if f.name == name:
            return f
    raise UnknownFormatError(f"unknown format {name!r}; known formats: {_known()}")


def candidate_formats(tool: str | None, fmt: str | None) -> list[Format]:
    """The formats a file may be in: the one named, else the tool's, else all (an unknown name fails here).

    >>> [f.name for f in candidate_formats("ab", "ab")]
    ['ab']
    """
    if fmt is not None:
        return [get_format(fmt)]
    if tool is None:
        return all_formats()
    if tool not in TOOLS:
        raise UnknownFormatError(f"unknown tool {tool!r}; known tools: {', '.join(TOOLS)}")
    return [f for f in all_formats() if f.tool == tool]


@cache
def _by_kind(tool: str | None) -> tuple[list[Format], list[Format]]:
    """The whole-file formats and the text formats of a tool (None: every tool), in detection order."""
    cands = candidate_formats(tool, None)
    return [f for f in cands if f.whole_file], [f for f in cands if not f.whole_file]


@cache
def _json_formats(tool: str | None) -> list[Format]:
    """The whole-file formats of a tool (None: every tool) that may recognise a JSON document, in detection order."""
    return [f for f in _by_kind(tool)[0] if f.json]


@cache
def _json_words(tool: str | None) -> re.Pattern:
    """The words of :func:`_json_formats` as one pattern (:func:`~lbanalysis.readers.sniff.words_pattern`)."""
    return words_pattern(_json_formats(tool))


def _json_asked(doc: str, tool: str | None) -> list[Format]:
    """The formats of :func:`_json_formats` that may recognise a JSON document (:func:`~.sniff.json_asked`)."""
    return json_asked(doc, _json_formats(tool), _json_words(tool))


@cache
def _plain(tool: str | None) -> list[Format]:
    """The formats of a tool (None: every tool) that know their clean outputs at a glance (:attr:`Format.plain`)."""
    return [f for f in candidate_formats(tool, None) if f.plain is not None]


@cache
def _trailers(tool: str | None) -> list[Format]:
    """The formats whose output may be appended after another tool's (``time -v``), of a tool (None: any)."""
    return [f for f in all_formats() if f.trailer is not None and (tool is None or f.tool == tool)]


def _trailers_in(text: str, tool: str | None) -> list[Format]:
    """The formats of :func:`_trailers` whose report begins somewhere in ``text``, each search made once (the four
    sysstat tools share one).

    >>> [f.name for f in _trailers_in("Requests per second: 5\\nreal\\t0m1.000s\\nuser\\t0m0.1s\\n", None)]
    ['time']
    """
    found: dict[Callable, bool] = {}
    out = []
    for f in _trailers(tool):
        there = found.get(f.trailer)  # type: ignore[arg-type]
        if there is None:
            there = found[f.trailer] = f.trailer(text) is not None  # type: ignore[index,misc]
        if there:
            out.append(f)
    return out


def detect(text: str, *, tool: str | None = None) -> str | None:
    """Name of the first format that recognises (normalized) text, else None.

    >>> detect("Dispatching 10 clients\\nWaiting for results...\\n") in (None, "gobench")
    True
    """
    text = normalize(text)
    for f in candidate_formats(tool, None):
        if f.whole_file and f.detect(text):
            return f.name
    for seg in split_transcript(text):
        f = _detect_segment(seg, candidate_formats(tool, None))
        if f is not None:
            return f.name
    return None


_OWN: dict[tuple[int, str], tuple[list[Format], list[Format]]] = {}


def _own(cands: list[Format], tool: str) -> list[Format]:
    """The formats of ``tool`` among ``cands`` (the lists are fixed: worked out once per list and tool)."""
    got = _OWN.get((id(cands), tool))
    if got is None or got[0] is not cands:
        got = _OWN[(id(cands), tool)] = (cands, [f for f in cands if f.tool == tool])  # holds cands: its id stays
    return got[1]


def _detect_segment(seg: Segment, cands: list[Format]) -> Format | None:
    # Prefer the formats of the tool named on the command line.
    if seg.tool is not None:
        for f in _own(cands, seg.tool):
            if f.detect(seg.text):
                return f
    if len(seg.text) <= HEAD_CHARS and not _shows_marker(seg.text):
        # a text no tool's marker stands in is no format's (notes between runs: tests/test_markers.py); a long one is
        # asked of the formats at once (a search of every marker over 30 KB costs twice what the formats' checks do)
        return None
    for f in cands:
        if f.detect(seg.text):
            return f
    return None


def _primary(tool: str, cands: list[Format]) -> Format | None:
    for f in cands:
        if f.tool == tool and not f.whole_file:
            return f
    return None


def _finish(p: Parsed, f: Format, seg: Segment, commands: list[str | None] | None = None) -> Parsed:
    """Tool, format, line numbers in the file, and each run's command (``commands``: one per run)."""
    base = seg.line - 1
    cpu = p.tables.get("cpu")
    if base and isinstance(cpu, list):
        for row in cpu:
            row["line"] = base + row["line"] if row.get("line") is not None else None
    for i, r in enumerate(p.runs):
        r.setdefault("tool", f.tool)
        r.setdefault("format", f.name)
        command = seg.command if commands is None else commands[i]
        if command and not r.get("command"):
            r["command"] = command
        rel = r.get("line")
        if seg.command and i == 0:
            r["line"] = seg.command_line or seg.line - 1  # the run starts at its command line
        else:
            r["line"] = base + rel if rel is not None else seg.line
    return p


# What stands between two results of one segment and ends the reach of the command above them:
# a Markdown heading, rule or fence, or a note in words of any language (three words or more, or
# four characters of a script written without spaces, maybe among Latin words: `使用gunicorn启动服务`; no figures).
_LETTER = r"[^\W\d_]"
_PUNCT = r"[,'()/.:;!?«»“”‘’…、。，：；！？（）-]"
_CJK = r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
_SEPARATOR = (
    rf"^\s*(?:#{{1,6}}\s|[=*_-]{{3,}}\s*$|```|~~~"
    rf"|{_LETTER}(?:{_LETTER}|[,'()/-])*(?:\s+(?:{_LETTER}|{_PUNCT})+){{2,}}\s*$"
    rf"|(?=(?:[^\d\n]*?{_CJK}){{4}})[^\d\n]*$)"
)


@cache
def _separator_re() -> re.Pattern:
    """:data:`_SEPARATOR`, compiled when first needed (its Unicode classes take 2 ms)."""
    return re.compile(_SEPARATOR)


# Fields a command and an output can both state: when they differ, the output is another test's.
_IDENTITY = ("url", "host", "port", "path", "tls_protocol")


def _separated(lines: list[str], rel: int | None) -> bool:
    """Whether the last non-empty line before segment line ``rel`` (1-based) is a heading or a note.

    >>> [_separated([note, "", "Transactions: 5 hits"], 3)
    ...  for note in ("Then with more users:", "Теперь увеличим нагрузку:", "然后把并发提高：", "使用gunicorn启动服务,开启多线程",
    ...               "-c 20 -r 10", "并发 2000 个")]
    [True, True, True, True, False, False]
    """
    if rel is None:
        return False
    for line in reversed(lines[: max(rel - 1, 0)]):
        if line.strip():
            return bool(_separator_re().match(line))
    return False


def _command_fields(f: Format, seg: Segment, command: str) -> dict:
    """What a command alone says of its run (the reader's row for a command without output)."""
    try:
        runs = f.parse(Segment("", seg.source, seg.line, command=command, tool=seg.tool)).runs
    except Exception:  # a reader that needs output to say anything
        return {}
    return runs[0] if runs else {}


def _contradicts(own: dict, said: dict) -> bool:
    """Whether a run's own output states another target than the command."""
    return any(own.get(k) is not None and said.get(k) is not None and own[k] != said[k] for k in _IDENTITY)


def _scoped(f: Format, seg: Segment, runs: list[tuple[tuple, int, int]] | None = None) -> Parsed:
    """Read a segment; with several results, each gets only the command that applies to it.

    The k-th result of ``cmd1 && cmd2`` gets the k-th command; a later result
    keeps the last command only when nothing separates it from the one
    before (a heading, a note) and its own output does not name another
    target (URL, host, port, path, TLS version). ``runs``: a sweep's runs in a segment without a command, for
    :func:`_parse`.
    """
    part = _parse(f, seg, runs)
    if len(part.runs) < 2 or seg.command is None:
        return _finish(part, f, seg)
    commands: list[str | None] = [seg.command] * len(part.runs)
    lines = seg.text.split("\n")
    bare: Parsed | None = None
    for k in range(1, len(part.runs)):
        if k < len(seg.commands):
            own = _parse(f, replace(seg, command=seg.commands[k]))
            if len(own.runs) > k:
                part.runs[k] = own.runs[k]
            commands[k] = seg.commands[k]
            continue
        bare = bare or _parse(f, replace(seg, command=None, commands=()))
        last = seg.commands[-1] if seg.commands else seg.command
        if len(bare.runs) > k and (
            _separated(lines, part.runs[k].get("line")) or _contradicts(bare.runs[k], _command_fields(f, seg, last))
        ):
            part.runs[k] = bare.runs[k]
            commands[k] = None
    return _finish(part, f, seg, commands)


def _parse(f: Format, seg: Segment, runs: list[tuple[tuple, int, int]] | None = None) -> Parsed:
    """``f.parse(seg)`` (``f.parse(seg, runs)`` given the runs a sweep's cut found: :attr:`Format.sweep`); an
    exception that is not the package's own becomes a :class:`ParseError`.

    A reader should raise ``ParseError`` itself, naming the line; this is the
    net under it, so a caller never gets a raw ``ValueError`` or
    ``OverflowError`` from deep inside a reader (the original is kept as
    ``__cause__``).
    """
    if runs is not None:
        return _netted(f, seg, f.parse, seg, runs)
    return _netted(f, seg, f.parse, seg)


def _netted(f: Format, seg: Segment, read: Callable[..., Parsed], *args: Any) -> Parsed:
    """``read(*args)``, a reader of ``f`` on ``seg``: an exception not the package's own becomes a ParseError."""
    try:
        return read(*args)
    except LBAnalysisError:
        raise
    except Exception as e:
        raise ParseError(
            f"could not read this {f.name} output ({type(e).__name__}: {e})", source=seg.source, line=seg.line
        ) from e


@cache
def _any_info_re() -> re.Pattern:
    """Every tool's help and version patterns in one: a text none of them matches is no tool's help or banner."""
    return re.compile("|".join(f"(?:{p})" for t in registry.TOOLS for p, _ in t.info_patterns) or "(?!)", re.MULTILINE)


def _info_kind(seg: Segment) -> tuple[str, str] | None:
    """(tool, kind) of a help text or version banner (of the segment's tool, or of any when no command names one).

    One pass of all the tools' patterns first: most texts are no help at all.

    >>> _info_kind(Segment("Usage: wrk <options> <url>\\n")), _info_kind(Segment("a,b\\n1,2\\n"))
    (('wrk', 'help text'), None)
    """
    head = seg.text[:4000]
    if _any_info_re().search(head) is None:
        return None
    for name in [seg.tool] if seg.tool else registry.names():
        kind = registry.info_kind(name, head)
        if kind:
            return name, kind
    return None


_UNQUOTED = str.maketrans("", "", "'\"\\")


@lru_cache(maxsize=4096)
def _asks_info(command: str, tool: str) -> bool:
    """Whether a command passes the tool one of its help or version options.

    An option can be among the arguments only if it stands in the command
    once quotes and backslashes are taken out (shell quoting only removes
    characters): most commands are not split at all.

    >>> _asks_info("ab -h", "ab"), _asks_info("ab -c 10 'http://h/-h'", "ab"), _asks_info("ab -c 10 http://h/", "ab")
    (True, False, False)
    """
    options = registry.get_tool(tool).info_options  # (asked once per command: a sweep's log repeats its command)
    bare = command.translate(_UNQUOTED)
    if not any(o in bare for o in options):
        return False
    return not set(command_argv(command)).isdisjoint(options)


def _not_a_test(r: dict, seg: Segment) -> str | None:
    """Why a run row is not a test: help or version asked for, help printed, or a command with no output."""
    command = r.get("command") or seg.command
    tool = r.get("tool")
    if command and tool in TOOLS and _asks_info(command, tool):
        return registry.info_kind(tool, seg.text[:4000]) or "help or version output"
    error = str(r.get("error") or "")
    if error.startswith("usage error") and not (command and command_argv(command)):
        return "help text"
    if error == "no output after the command":  # nothing of the tool's output follows (maybe notes)
        return "bare command (no output)"
    return None


def _set_aside(p: Parsed, seg: Segment) -> Parsed:
    """Move the rows that are not tests from ``p.runs`` to ``p.not_runs``, renumbering the detail rows."""
    kinds = [_not_a_test(r, seg) for r in p.runs]
    if not any(kinds):
        return p
    keep = {old: new for new, old in enumerate(i for i, k in enumerate(kinds) if not k)}
    for r, kind in zip(p.runs, kinds, strict=True):
        if kind:
            p.not_runs.append({"line": r.get("line"), "tool": r.get("tool"), "command": r.get("command"), "kind": kind})
    p.runs = [r for r, k in zip(p.runs, kinds, strict=True) if not k]
    for name, rows in list(p.tables.items()):
        if isinstance(rows, pd.DataFrame):
            rows = rows[rows["run"].isin(list(keep))]
            p.tables[name] = rows.assign(run=rows["run"].map(keep))
        else:
            p.tables[name] = [
                {**row, "run": keep[row["run"]] if row["run"] is not None else None}
                for row in rows
                if row["run"] is None or row["run"] in keep
            ]
    return p


def _cut_trailer(seg: Segment, trailers: list[Format]) -> tuple[Segment, Parsed | None]:
    """A segment without the reports appended after its tool's output (``time -v``, a monitor run after it),
    and those reports read, each with the format whose output begins there (:attr:`Format.trailer`).

    >>> head, tail = _cut_trailer(Segment("Requests per second: 5\\nreal 1.00\\nuser 0.20\\nsys 0.10\\n"),
    ...                           [get_format("time")])
    >>> head.text, tail.tables["cpu"][0]["line"], tail.tables["cpu"][0]["cpu_pct"]
    ('Requests per second: 5\\n', 2, 30.0)
    """
    starts: dict[int, list[Format]] = {}
    for f in trailers:
        at = f.trailer(seg.text) if f.trailer is not None else None
        if at is not None and not (at == 0 and seg.command is None):  # at 0: the whole text is the report
            starts.setdefault(at, []).append(f)
    if not starts:
        return seg, None
    cuts = sorted(starts)
    tail = Parsed()
    for at, end in zip(cuts, [*cuts[1:], len(seg.text)], strict=True):
        text = seg.text[at:end]
        f = next((f for f in starts[at] if f.detect(text)), starts[at][0])
        rest = Segment(text, seg.source, seg.line + seg.text.count("\n", 0, at), command=seg.command)
        tail.extend(_finish(_parse(f, rest), f, replace(rest, command=None)))
    return replace(seg, text=seg.text[: cuts[0]]), tail


def _append_trailer(part: Parsed, tail: Parsed) -> None:
    """The rows of a report cut off a segment (:func:`_cut_trailer`), as the rows of the segment's last run."""
    last = len(part.runs) - 1 if part.runs else None
    for name, rows in tail.tables.items():
        assert isinstance(rows, list)
        part.tables.setdefault(name, []).extend({**r, "run": last} for r in rows)  # type: ignore[union-attr]


def _format_of(seg: Segment, seg_cands: list[Format], cands: list[Format], tool: str | None) -> Format | None:
    """The format that reads a segment: the one its text shows, else its command's tool, else the caller's."""
    f = _detect_segment(seg, seg_cands)
    if f is None and seg.tool is not None and (tool is None or seg.tool == tool):
        f = _primary(seg.tool, cands)  # a command whose output is missing or an error
    if f is None and tool is not None and seg.command is None and seg.text.strip():
        f = _primary(tool, cands)  # the caller says what it is
    return f


def parse_text(
    text: str,
    source: str = "<buffer>",
    *,
    tool: str | None = None,
    fmt: str | None = None,
    tables: frozenset[str] | None = None,
) -> Parsed:
    """Read every run in a text (one output, a transcript, a log, JSON).

    ``tables`` names the detail tables the caller will use (None: all);
    readers may leave the others unbuilt (:meth:`Segment.wants`).

    Raises :class:`UnknownFormatError` (listing the known formats) when no
    format recognises any part of the text, and :class:`ParseError` when a
    recognised output is broken.
    """
    cands = candidate_formats(tool, fmt)
    done, asked = _read_document(text, source, tool, fmt, cands, tables)
    if done is not None:
        return done
    raw, printed = text, fmt is None and as_printed(text)
    if printed and (done := _read_plain(text, source, tool, tables)) is not None:
        return done  # one output as its tool printed it (the whole text its pattern, so no sweep): no clean-up
    if fmt is None and (done := _read_sweep(text, source, tool, cands, tables)) is not None:
        return done
    if fmt is None and tool is None:
        _refuse_unmarked(text, source, short=False)  # a long text no tool's marker stands in: no clean-up
    text = normalize(text)
    if fmt is not None:
        seg = Segment(text, source, 1, tables=tables)
        return _finish(_parse(cands[0], seg), cands[0], seg)
    done = None if printed and text is raw else _read_plain(text, source, tool, tables)  # not tried twice
    if done is None and tool is None:
        _refuse_unmarked(raw, source, short=True)  # a short one once it is no clean output
    if done is None and text != asked:  # the clean-up changed it: its whole-file formats are asked again
        done = _read_whole(text, source, tool, tables)
    if done is None:
        done = _read_segments(text, source, tool, cands, tables)
    return done


def _read_document(
    text: str, source: str, tool: str | None, fmt: str | None, cands: list[Format], tables: frozenset[str] | None
) -> tuple[Parsed | None, str | None]:
    """A JSON document or a table read as it is by the whole-file format that recognises it, with no clean-up;
    else None, and the table every whole-file format was asked of already (None: no table). A JSON document, or
    a short table, that no format can claim is refused here (:class:`UnknownFormatError`)."""
    if (fmt is None or cands[0].whole_file) and (doc := json_document(text)) is not None:
        # a JSON document needs none of the clean-up of pasted text: the whole-file formats read it as it is
        for f in cands if fmt is not None else _json_asked(doc, tool):
            if fmt is not None or f.detect(doc):
                seg = Segment(doc, source, 1, tables=tables)
                return _finish(_parse(f, seg), f, seg), None
        if tool is None and json_start(doc) and all_json(doc):
            _refuse(doc, source)  # a JSON document no whole-file format knows: no transcript is in it
    elif fmt is None and (table := csv_document(text)) is not None:
        for f in _by_kind(tool)[0]:  # a table that one of them knows is read as it is; else the full path
            if f.detect(table):
                seg = Segment(table, source, 1, tables=tables)
                return _finish(_parse(f, seg), f, seg), None
        if tool is None and len(text) <= HEAD_CHARS and _unclaimed(text):
            # a short table no whole-file format knows and no marker stands in: refused as it would be after the
            # clean-up and the try as a clean output, which find nothing in it (:func:`markers`)
            _refuse_early(text, source)
        return None, table
    return None, None


#: A text longer than this is first searched for the registry's markers (:func:`markers`), and refused at once when
#: it shows none (no clean-up, no detection); a shorter one is cleaned up and tried as a clean output first (most are
#: one: their marker need not be sought), then refused so.
HEAD_CHARS = 4096
#: The head searched for markers first: the first kilobyte shows one in 473 of the 477 long texts of the fixtures
#: and the corpus that show any (a search of a kilobyte costs a microsecond a marker; the others' whole text is then
#: searched)
_MARKER_HEAD = 1024
_REASON_CHARS = 1 << 16  # the head cleaned up to name a refused text's first line (as the full clean-up does)


_REGEX_CHARS = frozenset(".^$*+?{}[]\\|()")


@cache
def markers() -> tuple[tuple[tuple[str, frozenset[str]], ...], tuple[re.Pattern, ...], re.Pattern]:
    """What some tool's output shows wherever it stands in a text, as written (before any clean-up): the registry's
    :data:`~lbanalysis.registry.DETECTION_MARKERS` and the tools' executables as words (a command line). Markers
    without a regular expression's characters are plain texts, each with its characters (one absent from a text
    rules it out without a search); the others are patterns; then a pattern of the executables. A text in which
    none stands holds no tool's output,
    no command and no help text: no format can claim it (``tests/test_markers.py`` checks it on every fixture).

    >>> plain, patterns, command = markers()
    >>> "Requests per second" in dict(plain), command.search("$ wrk -t2 http://h/") is not None
    (True, True)
    """
    # a tool without markers (a new one not given any) has "", which every text holds: no text is refused so
    found = [m for name in registry.names() for m in registry.DETECTION_MARKERS.get(name) or ("",)]
    plain = tuple((m, frozenset(m)) for m in dict.fromkeys(m for m in found if _REGEX_CHARS.isdisjoint(m)))
    exes = {exe for t in registry.TOOLS for exe in t.executables}
    patterns = [re.compile(m, re.MULTILINE) for m in dict.fromkeys(found) if not _REGEX_CHARS.isdisjoint(m)]
    # an executable not after a word's letters (that is checked at each match: a pattern starting with a look
    # behind is searched for at every position of the text, one starting with a name far faster)
    command = re.compile(longest_of(exes) + r"(?:\.exe)?(?![\w.-])")
    return plain, tuple(patterns), command


def _shows_marker(text: str) -> bool:
    """Whether one of :func:`markers` stands in a text.

    >>> _shows_marker("Requests per second: 5"), _shows_marker("/proc/irq/41/smp_affinity : 0001")
    (True, False)
    """
    plain, patterns, command = markers()
    # a command first: one search (a transcript shows one at its top, where a hundred texts are sought in turn)
    if any(m.start() == 0 or text[m.start() - 1] not in _WORD for m in command.finditer(text)):
        return True
    if len(text) > HEAD_CHARS:  # a long text: the markers it cannot hold (a character missing) are not sought
        chars = set(text)
        if any(m_chars <= chars and m in text for m, m_chars in plain):
            return True
    elif len(text) <= _TREE_CHARS:  # a short text: one search for them all (a fixed cost a marker is more)
        if _plain_tree().search(text) is not None:
            return True
    elif any(map(text.__contains__, _plain_markers())):  # each sought in C, not by a step of Python each
        return True
    return any(p.search(text) is not None for p in patterns)


@cache
def _plain_markers() -> tuple[str, ...]:
    """The plain texts of :func:`markers`."""
    return tuple(m for m, _ in markers()[0])


#: A text up to this long is searched for the plain markers in one pass of a pattern of them all
#: (:func:`_plain_tree`): a search for each costs a tenth of a microsecond however short the text (a 200-character
#: table: 11 µs for them all, 2.5 µs in one pass); a longer one, each in turn (4,000 characters: 170 µs, 210 µs).
_TREE_CHARS = 1024


@cache
def _plain_tree() -> re.Pattern:
    """The plain texts of :func:`markers` as one pattern (:func:`~lbanalysis.text.longest_of`: a tree of their
    common beginnings).

    >>> _plain_tree().search("x Requests per second: 5").group(0)
    'Requests per second'
    """
    return re.compile(longest_of(_plain_markers()))


_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _unclaimed(text: str) -> bool:
    """Whether no format can claim a text, seen from its markers alone (:func:`markers`): none stands in its head
    (most outputs show one there), nor further on (a transcript may begin with any amount of prose).

    Texts whose clean-up changes what lines hold (ANSI colours inside lines, outputs quoted in Ansible's JSON
    strings) are never refused so.

    >>> _unclaimed("label,conc,rqs\\n" + "a,1,2\\n" * 5), _unclaimed("Requests per second: 5\\n")
    (True, False)
    """
    if "\x1b" in text or "stdout_lines" in text or _shows_marker(text[:_MARKER_HEAD]):
        return False
    return len(text) <= _MARKER_HEAD or not _shows_marker(text)  # a text within the head was sought whole


def _refuse_unmarked(text: str, source: str, *, short: bool) -> None:
    """Refuse a text (as written) that no tool's marker stands in, without the detection over every format: a long
    text (over :data:`HEAD_CHARS`) before its clean-up, a short one (``short``) once it is no clean output (most
    files are one: their markers need not be sought). Returns when a marker stands, or the text is of the other
    length.

    >>> _refuse_unmarked("label,conc,rqs\\na,1,2\\n", "a.csv", short=False)  # short: not refused before the clean-up
    >>> _refuse_unmarked("label,conc,rqs\\na,1,2\\n", "a.csv", short=True)
    Traceback (most recent call last):
    lbanalysis.errors.UnknownFormatError: a.csv:1: no known format recognised; known formats: ...
    """
    if (len(text) <= HEAD_CHARS) == short and _unclaimed(text):
        _refuse_early(text, source)


def _refuse_early(text: str, source: str) -> None:
    """Refuse a text :func:`_unclaimed` found no marker in, as :func:`_checked` would after the full pass: the
    error names its first line, cleaned up from a head of the text (returns when the head is blank: the full pass
    says what the text is)."""
    head = text[: text.rfind("\n", 0, _REASON_CHARS) + 1 or _REASON_CHARS]
    clean = normalize(head)
    if clean.strip():
        _refuse(clean, source)


def _refuse(text: str, source: str) -> NoReturn:
    """Raise the error of a text no format recognises (as :func:`_checked` says it)."""
    if not text.strip():
        raise UnknownFormatError("the file is empty (no tool output)", source=source)
    first = next((ln for ln in text.split("\n") if ln.strip()), "")
    raise UnknownFormatError(
        f"no known format recognised; known formats: {_known()}", source=source, line=1, text=first
    )


def _read_plain(text: str, source: str, tool: str | None, tables: frozenset[str] | None) -> Parsed | None:
    """A text that is one clean output (:attr:`Format.plain`) read straight away, else None.

    What the steps after it would find is what this finds: no whole-file format,
    one segment without a command, no report appended (``tests/test_plain.py``).
    """
    for f in _plain(tool):
        m = f.plain.fullmatch(text)  # type: ignore[union-attr]
        if m is None:
            continue
        seg = Segment(text, source, 1, tables=tables)
        part = _parse_plain(f, m, seg) if f.read_plain is not None else _parse(f, seg)
        part = _set_aside(_finish(part, f, seg), seg)
        return part if part.runs and not part.not_runs else None
    return None


def _parse_plain(f: Format, m: re.Match, seg: Segment) -> Parsed:
    """``f.read_plain(m, seg)``, under the same net as :func:`_parse`."""
    return _netted(f, seg, f.read_plain, m, seg)  # type: ignore[arg-type]


def _read_whole(text: str, source: str, tool: str | None, tables: frozenset[str] | None) -> Parsed | None:
    """The text read with the first whole-file format (CSV log, TSV, JSON) that recognises it, else None."""
    for f in _by_kind(tool)[0]:
        if f.detect(text):
            seg = Segment(text, source, 1, tables=tables)
            return _finish(_parse(f, seg), f, seg)
    return None


def _read_segments(
    text: str, source: str, tool: str | None, cands: list[Format], tables: frozenset[str] | None
) -> Parsed:
    """The text cut into one segment per command shown, each read with the format that recognises it."""
    # a report that no search of the whole text finds is in none of its segments (each a slice of it, cut at line
    # starts): each trailer is looked for once a text, not once a segment
    segments = split_transcript(text, source)
    return _read_cut(segments, text, source, tool, cands, tables, _trailers_in(text, tool))  # type: ignore[return-value]


def _read_cut(
    segments: list[Segment],
    text: str,
    source: str,
    tool: str | None,
    cands: list[Format],
    tables: frozenset[str] | None,
    trailers: list[Format],
    swept: Format | None = None,
    runs: list[tuple[tuple, int, int]] | None = None,
    bare: list[tuple[tuple, int, int]] | None = None,
) -> Parsed | None:
    """The segments of a text each read with the format that recognises it (``swept``: the text is a sweep's log
    of this format's, :func:`_read_sweep`, and each segment after a command is read at once,
    :func:`_read_at_once`, else None; ``runs``: the run its pattern matched after each command, in order;
    ``bare``: those before any command, in the first segment)."""
    for seg in segments:
        seg.tables = tables
    if len(segments) == 1 and segments[0].command is None:
        seg_cands = _by_kind(tool)[1]  # the whole text again: its whole-file formats were just tried
    else:
        seg_cands = cands
    out = Parsed()
    seen_any = False
    ran = iter(runs or ())
    for seg in segments:
        if swept is not None and seg.command is not None:
            if (part := _read_at_once(seg, seg_cands, tool, swept, next(ran, None))) is None:
                return None
            recognised = True
        else:
            given = (swept, bare) if swept is not None and bare and seg is segments[0] else None
            part, recognised = _read_segment(seg, seg_cands, cands, tool, trailers, given)
        seen_any = seen_any or recognised
        if len(segments) == 1 and recognised and part.runs and not part.not_runs:
            return part  # the common case: nothing to renumber
        out.extend(part)
    return _checked(out, seen_any, text, source)


def _read_segment(
    seg: Segment,
    seg_cands: list[Format],
    cands: list[Format],
    tool: str | None,
    trailers: list[Format],
    swept: tuple[Format, list[tuple[tuple, int, int]]] | None = None,
) -> tuple[Parsed, bool]:
    """One segment's runs (and the reports appended to it), and whether some format recognised it (``swept``: a
    format and the runs a sweep's cut found it in the segment, handed to its ``parse``)."""
    if not trailers and (one := _read_at_once(seg, seg_cands, tool)) is not None:
        return one, True
    seg, tail = _cut_trailer(seg, trailers)
    f = _format_of(seg, seg_cands, cands, tool)
    if f is None:
        if tail is not None:  # no tool's output before the reports (notes, a monitor's command)
            return tail, False
        part = Parsed()
        info = _info_kind(seg) if seg.text.strip() else None
        if info:
            part.not_runs.append({"line": seg.line, "tool": info[0], "command": seg.command, "kind": info[1]})
        return part, False
    part = _set_aside(_scoped(f, seg, swept[1] if swept is not None and swept[0] is f else None), seg)
    if tail is not None:
        _append_trailer(part, tail)
    if not part.runs and not part.not_runs and (info := _info_kind(seg)):
        part.not_runs.append({"line": seg.line, "tool": info[0], "command": seg.command, "kind": info[1]})
    return part, True


def _read_at_once(
    seg: Segment,
    seg_cands: list[Format],
    tool: str | None,
    detected: Format | None = None,
    run: tuple[tuple, int, int] | None = None,
) -> Parsed | None:
    """A segment after its tool's command read at once by the format that recognises it (:attr:`Format.read_one`),
    as :func:`_read_segment` reads it step by step, else None (a segment without reports appended: the caller
    checks).

    The steps it stands for: the format is the first of the command's tool's that detects the text (the tool
    is the caller's, if any); the reader's one run gets its tool, format, command and line
    (:func:`_finish`: a single run needs no scoping); a command asking for help or the version is set aside
    (:func:`_set_aside`). ``detected``: a format known to recognise the text (a run its :attr:`Format.sweep`
    pattern matched stands at the segment's start), not asked again when it is that first format; ``run``: that
    match, as its groups, start and end in the segment's text, handed to the format's ``read_one``.
    """
    if seg.command is None or seg.tool is None or (tool is not None and tool != seg.tool):
        return None
    own = _own(seg_cands, seg.tool)
    if not own or own[0].read_one is None or not (own[0] is detected or own[0].detect(seg.text)):
        return None
    f = own[0]
    if run is not None and f is detected:
        part = _netted(f, seg, f.read_one, seg, run)  # type: ignore[arg-type]
    else:
        part = _netted(f, seg, f.read_one, seg)  # type: ignore[arg-type]
    if part is None or len(part.runs) != 1:
        return None
    return _set_aside(_finish(part, f, seg), seg)


@cache
def _sweeps(tool: str | None) -> tuple[tuple[Format, re.Pattern[str]], ...]:
    """The formats that read a sweep's log at once (:attr:`Format.sweep`), of ``tool`` if given, each with the
    pattern of one of its runs after its command (:func:`~lbanalysis.text.sweep_unit`)."""
    return tuple(
        (f, sweep_unit(registry.get_tool(f.tool).executables, f.sweep))
        for f in candidate_formats(tool, None)
        if f.sweep is not None and f.read_one is not None
    )


def _read_sweep(
    text: str, source: str, tool: str | None, cands: list[Format], tables: frozenset[str] | None
) -> Parsed | None:
    """A sweep's log (:attr:`Format.sweep`) read as :func:`_read_segments` reads it cleaned up, without the
    clean-up and the command search (:func:`~lbanalysis.text.cut_sweep`), each run after a command read at once
    (:func:`_read_at_once`), runs without one by the format that recognises them; else None (a run after a
    command not read at once, a report appended: the full path reads the text). A report appended to a run (GNU
    time's, a monitor's) begins on a line that is no part of the runs' output: it is sought in the notes.
    The settings its notes and commands name are sought there alone (:attr:`Parsed.sections`): the runs' output
    names none.

    The steps it passes by find nothing in such a text: it shows a run of the tool's (no refusal), is no clean
    output and no whole-file format's (``tests/test_sweep_log.py``).
    """
    for f, unit in _sweeps(tool):
        # a text with one of its runs is one its format recognises (:attr:`Format.sweep`): the others (an ab
        # summary) are not cut at all
        if not f.detect(text):
            continue
        cut = cut_sweep(text, source, unit)
        if cut is None:
            continue
        pieces = [text[a:b] for a, b in cut.outside]
        if _trailers_in("".join(pieces), tool):  # a report appended begins on a line of notes, if anywhere
            return None
        out = _read_cut(cut.segments, text, source, tool, cands, tables, [], f, cut.runs, cut.bare)
        if out is not None:
            out.sections = _sections_in(text, cut.outside, pieces)
        return out
    return None


def _sections_in(
    text: str, parts: list[tuple[int, int]], pieces: list[str] | None = None
) -> list[tuple[int, str, float | str]]:
    """:func:`~lbanalysis.design.tokens.section_lines` of the parts of ``text`` (start, end: each from a line's
    start to a line's start, but the last, in order; ``pieces``: their texts, if cut already), as the lines of
    ``text`` name them: one search of the parts joined.

    >>> _sections_in("podnum=1\\nout\\nx=2\\npodnum=2\\n", [(0, 9), (17, 26)])
    [(1, 'podnum', 1.0), (4, 'podnum', 2.0)]
    """
    pieces = [text[a:b] for a, b in parts] if pieces is None else pieces
    found = section_lines("".join(pieces))
    if not found:
        return []
    joined, first = [], []  # the first line of each part in the parts joined, and in ``text``
    j = line = 1
    pos = 0
    for (start, _), piece in zip(parts, pieces, strict=True):
        line += text.count("\n", pos, start)
        pos = start
        joined.append(j)
        first.append(line)
        j += piece.count("\n")
    out = []
    for n, key, value in found:
        i = bisect_right(joined, n) - 1
        out.append((first[i] + n - joined[i], key, value))
    return out


def _checked(out: Parsed, seen_any: bool, text: str, source: str) -> Parsed:
    """What was read of a text; when nothing was, the error that says why."""
    if out.runs or out.not_runs or out.tables.get("cpu"):
        return out
    if seen_any:
        raise ParseError("recognised the format but found no run in it", source=source)
    _refuse(text, source)
