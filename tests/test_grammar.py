"""The one line grammar of readers/base.py: kinds tried in order, one handler signature, one scanner."""

from __future__ import annotations

import importlib
import re

from lbanalysis.readers.base import LineKind, scan
from lbanalysis.text import at_line_start, normalize, split_transcript

from .conftest import FIXTURES


def _note(name):
    def handler(seen: list, n: int, m: re.Match) -> None:
        seen.append((name, n, m.group(0)))

    return handler


def test_first_kind_whose_hint_and_pattern_match_reads_the_line():
    kinds = [
        LineKind("never", "zzz", re.compile(r"a"), _note("never")),  # its hint is not in the line: pattern not tried
        LineKind("number", "", re.compile(r"\d+"), _note("number")),
        LineKind("word", "", re.compile(r"\w+"), _note("word")),
        LineKind("inside", "=", re.compile(r"=\d"), _note("inside"), search=True),
    ]
    assert scan("12 a\nab\n  \nx=1\n", kinds, []) == [("number", 1, "12"), ("word", 2, "ab"), ("word", 4, "x")]
    assert scan("-x=1", kinds, []) == [("inside", 1, "=1")]


def test_a_handler_may_pass_a_line_on_or_say_where_the_scan_goes_on():
    def maybe(seen: list, n: int, m: re.Match):
        return False if m.group(1) == "no" else None

    def skip_two(seen: list, n: int, m: re.Match) -> int:
        seen.append(("skip", n))
        return n + 3

    kinds = [
        LineKind("maybe", "", re.compile(r"(\w+)!"), maybe),
        LineKind("skip", "skip", re.compile(r"skip"), skip_two),
        LineKind("any", "", re.compile(r".+"), _note("any")),
    ]
    text = "no!\nyes!\nskip\nx\ny\nz"
    assert scan(text, kinds, []) == [("any", 1, "no!"), ("skip", 3), ("any", 6, "z")]


def test_a_block_kind_spans_lines_and_the_scan_passes_over_them():
    kinds = [
        LineKind("table", "TABLE", re.compile(r"TABLE(?:\n\d+)*"), _note("table"), block=True),
        LineKind("any", "", re.compile(r".+"), _note("any")),
    ]
    seen = scan("a\nTABLE\n1\n2\nb\nTABLE", kinds, [])
    assert seen == [("any", 1, "a"), ("table", 2, "TABLE\n1\n2"), ("any", 5, "b"), ("table", 6, "TABLE")]


def test_lines_no_hint_stands_on_are_passed_over_with_their_numbers_kept():
    """With a block among the kinds and a hint for each, the scan seeks the next line a hint stands on (at its start
    and after a block): what it reads, and the numbers of the lines, are what the line-by-line scan gives."""
    kinds = [
        LineKind("table", "TABLE", re.compile(r"TABLE(?:\n\d+)*"), _note("table"), block=True),
        LineKind("pair", "=", re.compile(r"(\w+)=\d+"), _note("pair")),
    ]
    text = "notes\n\nmore notes\nTABLE\n1\n2\nEnd\n\na=1\nnothing\nTABLE\nb=2 and notes\nlast"
    want = [("table", 4, "TABLE\n1\n2"), ("pair", 9, "a=1"), ("table", 11, "TABLE"), ("pair", 12, "b=2")]
    assert scan(text, kinds, []) == want
    # the same with a kind that reads any line (no seeking then: every line is asked), its lines left out
    anyline = [*kinds, LineKind("any", "", re.compile(r".+"), _note("any"))]
    assert [s for s in scan(text, anyline, []) if s[0] != "any"] == want


def test_prepare_changes_a_line_and_other_gets_the_lines_no_kind_reads():
    other: list = []
    kinds = [LineKind("num", "", re.compile(r"\s*\d+$"), _note("num"))]
    seen = scan(
        "[t] 5\n[t]   \nfree text\n", kinds, [], prepare=lambda n, line: line.removeprefix("[t]"),
        other=lambda n, line: other.append((n, line)),
    )  # fmt: skip
    assert seen == [("num", 1, " 5")] and other == [(3, "free text")]


def test_a_pattern_at_a_line_start_sought_from_line_ends_finds_what_it_finds_everywhere():
    # the detection patterns that are sought so (at_line_start), on every fixture and its segments, as pasted
    modules = [
        importlib.import_module(f"lbanalysis.readers.{m}.text") for m in ("ab", "siege", "gobench", "fortio", "httperf")
    ]
    texts = ["", "\n", "x", " Requests per second: 5 [#/sec]", "a\n\nComplete requests: 5\n"]
    for p in sorted(FIXTURES.rglob("*")):
        if p.is_file() and p.stat().st_size < 200_000:
            clean = normalize(p.read_text(encoding="utf-8", errors="replace"))
            texts += [clean, "\n" + clean, "  " + clean, *(s.text for s in split_transcript(clean))]
    found = 0
    for m in modules:
        for t in texts:
            assert m._DETECTED(t) == (m._DETECT_RE.search(t) is not None), (m.__name__, t[:200])
            found += m._DETECTED(t)
    assert found > 100  # the outputs of these tools are among the texts: the check bites
    for bad in (r"^a|b", r"a", r"^x"):  # not anchored as a whole, or not MULTILINE
        try:
            at_line_start(re.compile(bad, 0 if bad == r"^x" else re.M))
        except ValueError:
            continue
        raise AssertionError(bad)
