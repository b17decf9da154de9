"""Clean outputs read straight away (``Format.plain``) read exactly as the full dispatch reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from lbanalysis import readers
from lbanalysis.readers import parse_text
from lbanalysis.text import as_printed, normalize, split_transcript

from .conftest import CORPUS, FIXTURES

#: The files the speed bench copies (bench/bench_read.py): all of them must take the short way.
BENCH = ["ab_c1.txt", "ab_c10.txt", "ab_keepalive.txt", "ab_post_json.txt", "ab_https_haproxy.txt"]


def _texts() -> list[tuple[str, str]]:
    """(name, normalized text) of every small text file among the fixtures and the shared corpus."""
    out = []
    for base in (FIXTURES, CORPUS):
        for p in sorted(base.rglob("*")) if base.is_dir() else []:
            if p.is_file() and p.stat().st_size < 200_000:
                try:
                    out.append((str(p), normalize(p.read_text(encoding="utf-8"))))
                except (UnicodeDecodeError, OSError):
                    continue
    return out


def _plain_hits() -> list[tuple[str, str, str]]:
    """(name, format, text) of the files some format's plain pattern matches whole."""
    hits = []
    for name, text in _texts():
        for f in readers._plain(None):
            if f.plain.fullmatch(text):
                hits.append((name, f.name, text))
                break
    return hits


HITS = _plain_hits()


def test_bench_files_take_the_short_way() -> None:
    names = {Path(n).name for n, fmt, _ in HITS if fmt == "ab" and "/fixtures/ab/" in n}
    assert set(BENCH) <= names
    assert len(HITS) >= 40


def _full(text: str, tables: frozenset[str] | None, monkeypatch: pytest.MonkeyPatch):
    with monkeypatch.context() as m:
        m.setattr(readers, "_plain", lambda tool: [])
        return parse_text(text, "f.txt", tables=tables)


@pytest.mark.parametrize(("name", "fmt", "text"), HITS, ids=[Path(n).name for n, _, _ in HITS])
def test_plain_reads_as_the_full_dispatch(name: str, fmt: str, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # what the short way skips finds nothing: no whole-file format, one segment without a command, no report
    assert not any(f.detect(text) for f in readers._by_kind(None)[0])
    segments = split_transcript(text, "f.txt")
    assert len(segments) == 1 and segments[0].command is None and segments[0].text == text
    assert readers._cut_trailer(segments[0], readers._trailers(None))[1] is None
    for tables in (None, frozenset()):
        short = parse_text(text, "f.txt", tables=tables)
        full = _full(text, tables, monkeypatch)
        assert short.runs == full.runs
        assert short.tables == full.tables
        assert short.not_runs == full.not_runs


def test_outputs_cut_off_in_their_tables_read_as_the_full_dispatch(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean output cut anywhere after its results block (a copy stopped early): the pattern, tried
    whatever the text's last line, reads what the full dispatch reads of it (the rows printed before the cut)."""
    text = normalize((FIXTURES / "ab" / "ab_post_json.txt").read_text(encoding="utf-8"))
    plain = readers.get_format("ab").plain
    assert plain is not None
    short_ways = 0
    for cut in range(text.index("Connection Times"), len(text) + 1):
        part = text[:cut]
        short_ways += plain.fullmatch(part) is not None
        for tables in (None, frozenset()):
            short, full = parse_text(part, "f.txt", tables=tables), _full(part, tables, monkeypatch)
            assert (short.runs, short.tables, short.not_runs) == (full.runs, full.tables, full.not_runs), cut
    assert short_ways > 50


def _raw_hits() -> list[tuple[str, str]]:
    """(name, text as written) of the small files that one format's plain pattern matches whole before any clean-up."""
    hits = []
    for base in (FIXTURES, CORPUS):
        for p in sorted(base.rglob("*")) if base.is_dir() else []:
            if not (p.is_file() and p.stat().st_size < 200_000):
                continue
            try:
                text = p.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            if as_printed(text) and any(f.plain.fullmatch(text) for f in readers._plain(None)):
                hits.append((str(p), text))
    return hits


RAW_HITS = _raw_hits()


def test_outputs_as_printed_are_read_before_any_clean_up(monkeypatch: pytest.MonkeyPatch) -> None:
    # the bench's files are read as written: their clean-up (a dedent of ab's indented `kb/s sent` lines, in one)
    # is never run
    names = {Path(n).name for n, _ in RAW_HITS if "/fixtures/ab/" in n}
    assert set(BENCH) <= names
    assert len(RAW_HITS) >= 40

    def no_clean_up(text: str) -> str:
        raise AssertionError("cleaned up")

    monkeypatch.setattr(readers, "normalize", no_clean_up)
    for name in BENCH:
        assert parse_text((FIXTURES / "ab" / name).read_text(encoding="utf-8"), name).runs[0]["requests_per_s"] > 0
    with pytest.raises(AssertionError, match="cleaned up"):
        parse_text("> Requests per second: 5.00\n> Time per request: 2.000 [ms]\n", "quoted.txt")


@pytest.mark.parametrize(("name", "text"), RAW_HITS, ids=[Path(n).name for n, _ in RAW_HITS])
def test_output_as_printed_reads_as_once_cleaned_up(name: str, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # an output that its format's whole pattern matches as written reads as it does once cleaned up: the clean-up
    # takes out quoting and line prefixes, which no such output carries
    for tables in (None, frozenset()):
        short = parse_text(text, "f.txt", tables=tables)
        with monkeypatch.context() as m:
            m.setattr(readers, "as_printed", lambda text: False)
            cleaned = parse_text(text, "f.txt", tables=tables)
        assert (short.runs, short.tables, short.not_runs) == (cleaned.runs, cleaned.tables, cleaned.not_runs)
