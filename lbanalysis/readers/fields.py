"""Field tables: what a JSON or CSV reader knows, as data, and the one walker that applies it.

A text reader lists its line kinds (:mod:`lbanalysis.readers.base`); a JSON
or CSV reader lists its fields. A :class:`Field` names where a value is in
the document (a path of keys into a JSON object, ``"latency.mean"``, or a
CSV header), the schema column it feeds, the unit the tool writes it in
(converted to the column's SI unit through :data:`lbanalysis.units.PRINTED`)
and its kind (which table or part of a row it feeds, when a reader walks one
table for several). :func:`walk` applies a table to a document: every field
whose value is a number lands in its column, converted; a field the
document does not hold stays out of the row (never borrowed, never zero).

>>> TABLE = (Field("timeTakenSeconds", "duration_s", "s"), Field("latency.mean", "latency_mean_s", "us"),
...          Field("connections", "concurrency", cast=int))
>>> walk({"timeTakenSeconds": 0.5, "latency": {"mean": 1555.968}, "connections": 10.0}, TABLE)
{'duration_s': 0.5, 'latency_mean_s': 0.001555968, 'concurrency': 10}
>>> walk({"latency": "n/a"}, TABLE)
{}

A JSON reader takes its documents from :func:`documents`, the one loader:
any valid JSON of the reader's shape, however indented and with any line
ends, one document or several one after the other (a loop appending to one
file), with plain text between them passed over (a tool's intro, a log's
lines). :func:`has_keys` recognises a document by its keys, in whatever
order and layout they are written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any, NamedTuple

from ..errors import ParseError
from ..text import Segment
from ..units import PRINTED

__all__ = ["Document", "Field", "convert", "documents", "has_keys", "lookup", "number", "si_unit", "walk"]

# Units a JSON field may hold that a printed table does not (a fraction, written as a percentage column).
_EXTRA: dict[str, tuple[str, float]] = {"fraction": ("%", 100.0), "%": ("%", 1.0), "ns": ("s", 1e-9)}
# units whose values are already in the column's SI unit
_AS_WRITTEN = frozenset(["", *(unit for unit, (_, factor) in PRINTED.items() if factor == 1.0)])


@dataclass(frozen=True)
class Field:
    """One source field: where it is, the column it feeds, its unit as written, the kind of row it feeds.

    ``source`` is a path of keys separated by dots (``"rps.percentiles.50"``)
    or a CSV header; ``unit`` a key of :data:`lbanalysis.units.PRINTED`
    (``"ms"``, ``"us"``, ``"B"``; ``""``: as written), ``"%"`` or ``"fraction"``
    (0-1, to a percentage); ``cast`` turns the converted value into the
    column's type (``round`` for a count written as a float).

    >>> Field("http_reqs.count", "requests").path
    ('http_reqs', 'count')
    """

    source: str
    column: str
    unit: str = ""
    kind: str = "runs"
    cast: Callable[[float], Any] | None = None

    @cached_property
    def path(self) -> tuple[str, ...]:
        """The keys from the document's top to the value (split once: field tables are read for every file)."""
        return tuple(self.source.split("."))


def number(value: object) -> float | None:
    """A JSON number as a float; None for anything else (a boolean is not a number here).

    >>> number(3), number(2.5), number(True), number("4")
    (3.0, 2.5, None, None)
    """
    t = type(value)
    if t is float or t is int:  # what json gives: no isinstance checks (field tables are read for every file)
        return float(value)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def lookup(doc: object, path: Iterable[str]) -> object:
    """The value at a path of keys, or None where a step is missing or not an object.

    >>> lookup({"a": {"b": 2}}, ("a", "b")), lookup({"a": 1}, ("a", "b"))
    (2, None)
    """
    for key in path:
        if type(doc) is not dict and not isinstance(doc, Mapping):  # a JSON object is a dict: no ABC check
            return None
        doc = doc.get(key)
    return doc


def convert(value: float, unit: str) -> float:
    """A value written in ``unit``, in the SI unit of its column (a sub-unit is divided out: 62.3 ms is 62.3 / 1e3).

    >>> convert(250.0, "ms"), convert(1555.968, "us"), convert(0.25, "fraction"), convert(2.0, "KB")
    (0.25, 0.001555968, 25.0, 2048.0)
    """
    if unit in _AS_WRITTEN:  # already the column's unit: a CSV of a million rows pays one set lookup a cell
        return value
    _, factor = PRINTED[unit] if unit in PRINTED else _EXTRA[unit]
    if factor < 1:
        return value / round(1 / factor)
    return float(value * factor)


def si_unit(unit: str) -> str:
    """The SI unit a value written in ``unit`` is converted to (``""`` stays ``""``).

    >>> si_unit("ms"), si_unit("B"), si_unit(""), si_unit("fraction"), si_unit("%")
    ('s', 'B', '', '%', '%')
    """
    if not unit:
        return ""
    return (PRINTED[unit] if unit in PRINTED else _EXTRA[unit])[0]


def walk(doc: object, fields: Iterable[Field], kind: str | None = None) -> dict[str, Any]:
    """The columns a document's numbers give, by a field table (only the fields of ``kind``, when given).

    >>> walk({"a": {"b": 1500}}, [Field("a.b", "latency_s", "ms"), Field("a.c", "x")])
    {'latency_s': 1.5}
    """
    row: dict[str, Any] = {}
    for path, column, unit, cast in _plan(fields, kind):
        v = doc
        for key in path:  # lookup(), inline: a field table is walked for every file
            if type(v) is not dict and not isinstance(v, Mapping):
                v = None
                break
            v = v.get(key)
        t = type(v)
        v = float(v) if t is float or t is int else number(v)  # number(), inline for what json gives (per field)
        if v is not None:
            if unit is not None:
                v = convert(v, unit)
            row[column] = cast(v) if cast else v
    return row


_PLANS: dict[tuple[int, str | None], tuple[tuple[Field, ...], list[tuple]]] = {}


def _plan(fields: Iterable[Field], kind: str | None) -> list[tuple]:
    """The fields of ``kind`` as (path, column, unit to convert from or None, cast), worked out once per field
    table (a tuple: fixed when its module loads; any other iterable each time).

    >>> _plan((Field("a.b", "latency_s", "ms"), Field("c", "x", kind="answered")), "runs")
    [(('a', 'b'), 'latency_s', 'ms', None)]
    """
    key = (id(fields), kind)
    got = _PLANS.get(key) if type(fields) is tuple else None
    if got is not None and got[0] is fields:
        return got[1]
    plan = [(f.path, f.column, None if f.unit in _AS_WRITTEN else f.unit, f.cast)
            for f in fields if kind is None or f.kind == kind]  # fmt: skip
    if type(fields) is tuple:
        _PLANS[key] = (fields, plan)  # holds the table: its id stays its own
    return plan


# ------------------------------------------------------------ documents ---
class Document(NamedTuple):
    """One JSON value of a text: the value, its first line (1-based, in the segment), and the line where the
    text ended inside it (``cut``: a file cut short, closed after its last whole member) or None."""

    value: Any
    line: int
    cut: int | None = None


_DECODER = json.JSONDecoder()
_BLANK_RE = re.compile(r"[\s\ufeff]*")


class _Lines:
    """Line numbers of positions in a text, counted forward from the last one asked for (positions only grow)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        if pos < self.pos:
            self.pos, self.line = 0, 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def documents(
    seg: Segment, what: str, *, starts: str = "{", arrays: bool = False, repair: bool = False
) -> list[Document]:
    """Every JSON value of a segment, in order: any indentation, any line ends, one value after another.

    A value starts where a line (after blanks) starts with one of ``starts``
    (``"{"``: objects; ``"["``: arrays, as Locust writes its statistics);
    what stands between values (a tool's intro, a log's lines) is passed
    over, line by line. ``arrays``: a top-level array is opened, each of its
    elements a value (iperf3's ``--json-stream`` events in an array).
    ``repair``: a value the text cuts short (a truncated file) is closed
    after its last whole member and read, its :attr:`Document.cut` set.
    A broken value raises :class:`~lbanalysis.ParseError` naming ``what``
    (the tool), its line and column.

    >>> [(d.value, d.line) for d in documents(Segment('Done!\\n{\\n  "a": 1\\n}{"a": 2}\\n\\n{"a":\\n 3}'), "x")]
    [({'a': 1}, 2), ({'a': 2}, 4), ({'a': 3}, 6)]
    >>> [d.value for d in documents(Segment('[{"a": 1}, {"b": 2}]'), "x", starts="{[", arrays=True)]
    [{'a': 1}, {'b': 2}]
    >>> documents(Segment('{"a": [1, 2], "b": 3, "c'), "x", repair=True)[0]
    Document(value={'a': [1, 2], 'b': 3}, line=1, cut=1)
    >>> documents(Segment('{"a": 1}\\n{"a" 2}', "r.json"), "x")
    Traceback (most recent call last):
    ...
    lbanalysis.errors.ParseError: r.json:2: broken x JSON: Expecting ':' delimiter (column 6)
        {"a" 2}
    """
    text, n = seg.text, len(seg.text)
    lines = _Lines(text)
    out: list[Document] = []
    pos = 0
    while True:
        pos = _BLANK_RE.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= n:
            return out
        ch = text[pos]
        if ch not in starts:  # plain text between documents: the rest of its line
            nl = text.find("\n", pos)
            pos = n if nl < 0 else nl + 1
        elif ch == "[" and arrays:
            pos = _elements(seg, what, pos + 1, lines, out)
        else:
            pos = _one(seg, what, pos, lines, out, repair)


def _one(seg: Segment, what: str, pos: int, lines: _Lines, out: list[Document], repair: bool) -> int:
    """The value at ``pos`` appended to ``out``; returns where the text goes on."""
    text = seg.text
    try:
        value, end = _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError as e:
        fixed = _repair(text, pos) if repair else None
        if fixed is None:
            raise _broken(seg, what, e, lines) from None
        out.append(Document(json.loads(fixed), lines.at(pos), lines.at(len(text.rstrip()))))
        return len(text)
    out.append(Document(value, lines.at(pos)))
    return end


def _elements(seg: Segment, what: str, pos: int, lines: _Lines, out: list[Document]) -> int:
    """The elements of the array opened before ``pos``, each a value in ``out``; returns where the text goes on."""
    text, n = seg.text, len(seg.text)
    while True:
        pos = _BLANK_RE.match(text, pos).end()  # type: ignore[union-attr]
        if pos < n and text[pos] == "]":
            return pos + 1
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise _broken(seg, what, e, lines) from None
        out.append(Document(value, lines.at(pos)))
        pos = _BLANK_RE.match(text, end).end()  # type: ignore[union-attr]
        if pos < n and text[pos] == ",":
            pos += 1
        elif pos < n and text[pos] == "]":
            return pos + 1
        else:
            raise _broken(seg, what, json.JSONDecodeError("expected ',' or ']' in the array", text, pos), lines)


def _broken(seg: Segment, what: str, e: json.JSONDecodeError, lines: _Lines) -> ParseError:
    """The error of a value that does not read: the tool, the line (in the file) and column, the line's text."""
    n = lines.at(e.pos)
    start = seg.text.rfind("\n", 0, e.pos) + 1
    end = seg.text.find("\n", e.pos)
    text_line = seg.text[start : end if end >= 0 else len(seg.text)]
    return ParseError(f"broken {what} JSON: {e.msg} (column {e.colno})", source=seg.source, line=seg.line - 1 + n,
                      text=text_line[:200])  # fmt: skip


def _repair(text: str, pos: int) -> str | None:
    """A value cut short (a truncated file) closed after its last complete member, else None.

    >>> _repair('{"a": [1, 2], "b": {"c": 3, "d', 0)
    '{"a": [1, 2], "b": {"c": 3}}'
    >>> _repair('{"a": 1} x', 0) is None
    True
    """
    stack: list[str] = []
    in_str = esc = False
    cut: tuple[int, list[str]] | None = None
    for i in range(pos, len(text)):
        c = text[i]
        if in_str:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                in_str = False
            continue
        if c == '"':
            in_str = True
        elif c in "{[":
            stack.append(c)
        elif c in "}]":
            if not stack:
                return None
            stack.pop()
            if not stack:
                return None  # the value is complete: the error is elsewhere
        elif c == ",":
            cut = (i, list(stack))
    if not stack or cut is None:
        return None
    i, st = cut
    return text[pos:i] + "".join("}" if b == "{" else "]" for b in reversed(st))


@cache
def _key_patterns(keys: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(rf'"{re.escape(k)}"\s*:') for k in keys)


def has_keys(text: str, keys: Iterable[str], *, opener: str = "{", within: int = 1 << 16) -> bool:
    """True when a text starts (after blanks) with ``opener`` and its first ``within`` characters hold every key
    (as ``"key":``): a JSON document recognised by its keys, whatever their order, indentation and line ends.

    >>> has_keys('{\\r\\n  "b": 1,\\r\\n  "a": {"c": 2}\\r\\n}', ("a", "b", "c")), has_keys('{"a": "b"}', ("a", "b"))
    (True, False)
    >>> has_keys('[{"name": "/"}]', ["name"], opener="[{"), has_keys('x {"a": 1}', ["a"])
    (True, False)
    """
    end = min(len(text), within)  # the head, by bounds (no copy of it per format asked)
    start = _BLANK_RE.match(text, 0, end).end()  # type: ignore[union-attr]
    if not text.startswith(opener[0], start, end):
        return False
    if len(opener) > 1 and not text.startswith(opener[1:], _BLANK_RE.match(text, start + 1, end).end(), end):  # type: ignore[union-attr]
        return False
    keys = tuple(keys)
    if any(text.find(quoted, start, end) < 0 for quoted in _quoted(keys)):
        return False  # a key not even written: no pattern search (most documents asked are not of the format)
    return all(p.search(text, start, end) for p in _key_patterns(keys))


def first_char(text: str) -> str:
    """The first character of a text that is not white space (``""``: none), as ``text.lstrip()[:1]`` without
    copying a document to look at one character.

    >>> first_char("  \\n {"), first_char(" "), first_char("")
    ('{', '', '')
    """
    head = text[:64].lstrip()
    return head[:1] if head or len(text) <= 64 else text.lstrip()[:1]


@cache
def _quoted(keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f'"{k}"' for k in keys)
