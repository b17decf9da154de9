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

from ..errors import LBAnalysisError, ParseError, UnknownFormatError
from ..text import Segment, normalize, split_transcript
from .base import Format, Parsed

__all__ = ["FORMATS", "TOOLS", "Format", "Parsed", "detect", "formats", "get_format", "parse_text"]

from .. import registry


def _load_formats() -> list[Format]:
    """Every tool's formats in the registry's detection order: whole-file formats first."""
    found: list[Format] = []
    for tool in registry.TOOLS:
        for name in tool.readers:
            mod = importlib.import_module(f"{__name__}.{name}")
            found.extend(mod.FORMATS)
    return [f for f in found if f.whole_file] + [f for f in found if not f.whole_file]


FORMATS: list[Format] = _load_formats()
TOOLS = registry.names()


def formats() -> dict[str, str]:
    """Known format names and what they are.

    >>> "ab" in formats()
    True
    """
    return {f.name: f.description for f in FORMATS}


def _known() -> str:
    return ", ".join(f.name for f in FORMATS)


def get_format(name: str) -> Format:
    """The format called ``name``; an unknown name lists the known ones."""
    for f in FORMATS:
        if f.name == name:
            return f
    raise UnknownFormatError(f"unknown format {name!r}; known formats: {_known()}")


def _candidates(tool: str | None, fmt: str | None) -> list[Format]:
    if fmt is not None:
        return [get_format(fmt)]
    if tool is None:
        return FORMATS
    if tool not in TOOLS:
        raise UnknownFormatError(f"unknown tool {tool!r}; known tools: {', '.join(TOOLS)}")
    return [f for f in FORMATS if f.tool == tool]


def detect(text: str, *, tool: str | None = None) -> str | None:
    """Name of the first format that recognises (normalized) text, else None.

    >>> detect("Dispatching 10 clients\\nWaiting for results...\\n") in (None, "gobench")
    True
    """
    text = normalize(text)
    for f in _candidates(tool, None):
        if f.whole_file and f.detect(text):
            return f.name
    for seg in split_transcript(text):
        f = _detect_segment(seg, _candidates(tool, None))
        if f is not None:
            return f.name
    return None


def _detect_segment(seg: Segment, cands: list[Format]) -> Format | None:
    # Prefer the formats of the tool named on the command line.
    if seg.tool is not None:
        own = [f for f in cands if f.tool == seg.tool]
        for f in own:
            if f.detect(seg.text):
                return f
    for f in cands:
        if f.detect(seg.text):
            return f
    return None


def _primary(tool: str, cands: list[Format]) -> Format | None:
    for f in cands:
        if f.tool == tool and not f.whole_file:
            return f
    return None


def _finish(p: Parsed, f: Format, seg: Segment) -> Parsed:
    base = seg.line - 1
    for i, r in enumerate(p.runs):
        r.setdefault("tool", f.tool)
        r.setdefault("format", f.name)
        if seg.command and not r.get("command"):
            r["command"] = seg.command
        rel = r.get("line")
        if seg.command and i == 0:
            r["line"] = seg.line - 1  # the run starts at its command line
        else:
            r["line"] = base + rel if rel is not None else seg.line
    return p


def _parse(f: Format, seg: Segment) -> Parsed:
    """``f.parse(seg)``; an exception that is not the package's own becomes a :class:`ParseError`.

    A reader should raise ``ParseError`` itself, naming the line; this is the
    net under it, so a caller never gets a raw ``ValueError`` or
    ``OverflowError`` from deep inside a reader (the original is kept as
    ``__cause__``).
    """
    try:
        return f.parse(seg)
    except LBAnalysisError:
        raise
    except Exception as e:
        raise ParseError(
            f"could not read this {f.name} output ({type(e).__name__}: {e})", source=seg.source, line=seg.line
        ) from e


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
    text = normalize(text)
    cands = _candidates(tool, fmt)
    if fmt is not None:
        seg = Segment(text, source, 1, tables=tables)
        return _finish(_parse(cands[0], seg), cands[0], seg)
    for f in cands:
        if f.whole_file and f.detect(text):
            seg = Segment(text, source, 1, tables=tables)
            return _finish(_parse(f, seg), f, seg)
    out = Parsed()
    seen_any = False
    segments = split_transcript(text, source)
    for seg in segments:
        seg.tables = tables
    if len(segments) == 1 and segments[0].command is None:
        # the whole text again: its whole-file formats were just tried
        seg_cands = [f for f in cands if not f.whole_file]
    else:
        seg_cands = cands
    for seg in segments:
        f = _detect_segment(seg, seg_cands)
        if f is None and seg.tool is not None and (tool is None or seg.tool == tool):
            f = _primary(seg.tool, cands)  # a command whose output is missing or an error
        if f is None and tool is not None and seg.command is None and seg.text.strip():
            f = _primary(tool, cands)  # the caller says what it is
        if f is None:
            continue
        seen_any = True
        part = _finish(_parse(f, seg), f, seg)
        if len(segments) == 1 and part.runs:
            return part  # the common case: nothing to renumber
        out.extend(part)
    if not out.runs:
        if seen_any:
            raise ParseError("recognised the format but found no run in it", source=source)
        if not text.strip():
            raise UnknownFormatError("the file is empty (no tool output)", source=source)
        first = next((ln for ln in text.split("\n") if ln.strip()), "")
        raise UnknownFormatError(
            f"no known format recognised; known formats: {_known()}", source=source, line=1, text=first
        )
    return out
