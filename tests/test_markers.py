"""A text no format claims is refused from its markers, without the clean-up and detection passes (issue #39).

Before cleaning a text up and cutting it into segments, ``parse_text`` looks
for the registry's markers (:data:`lbanalysis.registry.DETECTION_MARKERS`,
the tools' executables as words) in a head of it, then in the whole text: a
text longer than the head in which none stands is refused at once, with the
reason the full pass gives. What is counted here is work (calls of the
clean-up and of the transcript splitter), not time. The last tests check
the markers themselves: every fixture and corpus file that no marker stands
in gets the same answer either way (a format whose outputs show none of its
tool's markers would lose runs here).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import lbanalysis
import lbanalysis.readers as readers
from lbanalysis.errors import LBAnalysisError, UnknownFormatError
from lbanalysis.readers.sniff import WORDS_HEAD, json_document
from lbanalysis.text import decode

from .conftest import FIXTURES, corpus

# A table of figures that is no tool's output (the shape of an author's own summary), long enough to be
# past the head that always gets the full pass.
TABLE = "label\tkeepalive\ttotal_reqs\tconc\n" + "".join(f"run{i}\t1\t{1000 + i}\t{i % 40}\n" for i in range(6000))
# A wrk output as wrk 4.1.0 prints it (tests/fixtures/wrk/wrk_c10.txt holds the same shape)
WRK = (
    "Running 2s test @ http://127.0.0.1:18080/\n"
    "  1 threads and 5 connections\n"
    "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n"
    "    Latency   309.37us  155.74us   3.47ms   91.80%\n"
    "    Req/Sec    16.14k     1.70k   18.38k    75.00%\n"
    "  32110 requests in 2.00s, 25.99MB read\n"
    "Requests/sec:  16054.95\n"
    "Transfer/sec:     13.00MB\n"
)


def _counting(monkeypatch) -> dict[str, list[int]]:
    """Count the clean-up and the transcript splitter's calls in the dispatcher (the length of each text)."""
    calls: dict[str, list[int]] = {"normalize": [], "split_transcript": []}
    for name in calls:
        real = getattr(readers, name)

        def counted(text, *args, real=real, name=name, **kwargs):
            calls[name].append(len(text))
            return real(text, *args, **kwargs)

        monkeypatch.setattr(readers, name, counted)
    return calls


def test_a_long_table_no_marker_stands_in_is_refused_without_the_full_pass(tmp_path, monkeypatch):
    path = tmp_path / "aggregate.tsv"
    path.write_text(TABLE)
    assert len(TABLE) > 4 * readers.HEAD_CHARS
    calls = _counting(monkeypatch)
    early = lbanalysis.read(path, table="all", errors="skip").skipped["reason"].tolist()
    assert calls["split_transcript"] == []  # no transcript splitting, no detection of segments
    assert len(calls["normalize"]) == 1 and calls["normalize"][0] < len(TABLE)  # only a head, to name its first line
    assert len(early) == 1 and "no known format recognised" in early[0] and "label\tkeepalive" in early[0]
    # the full pass (no refusal from markers) gives the same reason, after cleaning up and splitting the whole text
    monkeypatch.setattr(readers, "_unclaimed", lambda text: False)
    full = lbanalysis.read(path, table="all", errors="skip").skipped["reason"].tolist()
    assert full == early and max(calls["normalize"]) == len(TABLE) and calls["split_transcript"]


def test_an_output_after_pages_of_prose_is_still_read(tmp_path, monkeypatch):
    """A transcript may begin with any amount of prose: a marker past the head sends the text to the full pass."""
    prose = "Notes on the balancer, kept while it was tuned.\nNothing else changed here.\n" * 1200  # ~90 KB
    path = tmp_path / "notes.md"
    path.write_text(prose + "\n" + WRK)
    assert readers.markers()[0] and not readers._shows_marker(prose[: readers.HEAD_CHARS])
    calls = _counting(monkeypatch)
    runs = lbanalysis.read(path)
    assert runs["requests_per_s"].tolist() == [16054.95] and runs["requests"].tolist() == [32110]
    assert calls["split_transcript"]  # the full pass ran
    assert runs["line"].tolist() == [prose.count("\n") + 2]


def test_a_short_text_no_marker_stands_in_is_refused_once_it_is_no_clean_output(monkeypatch):
    """A text within the head is cleaned up and tried as a clean output first (a table no whole-file format knows:
    not even that); showing no marker, it is then refused with the full pass's reason, without splitting it or
    asking every format. One that shows a marker gets the full pass."""
    calls = _counting(monkeypatch)
    with pytest.raises(UnknownFormatError, match="no known format recognised") as early:
        readers.parse_text("label,conc,rqs\na,1,2\n", "a.csv")
    assert calls["split_transcript"] == [] and len(calls["normalize"]) == 1  # the reason's: a table, no clean-up
    with pytest.raises(UnknownFormatError, match="no known format recognised"):
        readers.parse_text("notes on the run\nnothing changed\n", "a.txt")
    assert calls["split_transcript"] == [] and len(calls["normalize"]) == 3  # the clean-up, then the reason's
    with pytest.raises(UnknownFormatError, match="no known format recognised") as marked:
        readers.parse_text("label,conc,rqs\nRequests per second: x\n", "b.csv")  # a marker, but no output
    assert calls["split_transcript"]  # the full pass ran
    monkeypatch.setattr(readers, "_unclaimed", lambda text: False)
    with pytest.raises(UnknownFormatError) as full:
        readers.parse_text("label,conc,rqs\na,1,2\n", "a.csv")
    assert str(full.value) == str(early.value) and "label,conc,rqs" in str(marked.value)


def test_a_command_alone_is_a_marker(monkeypatch):
    """A wrk command with no output is a bare command (not a skipped file) however long the text around it."""
    table = TABLE.replace("\t", ",")
    p = readers.parse_text(table + "$ wrk -t2 -c10 -d5s http://h/\n", "log.txt")
    assert [n["kind"] for n in p.not_runs] == ["bare command (no output)"]


def test_every_tool_has_markers():
    """A tool without markers turns the refusal off for every text (its outputs could not be told): give it some."""
    from lbanalysis import registry

    assert sorted(registry.DETECTION_MARKERS) == sorted(registry.names())
    assert all(registry.DETECTION_MARKERS.values()) and ("", frozenset()) not in readers.markers()[0]


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def _answer(text: str, source: str) -> tuple:
    """What ``parse_text`` gives for a text: its runs and not-runs counted, or its error."""
    try:
        p = readers.parse_text(text, source)
    except LBAnalysisError as e:
        return type(e).__name__, str(e)
    return len(p.runs), len(p.not_runs), len(p.tables.get("cpu") or [])


def _unmarked_answers_agree(files: list[Path], monkeypatch) -> int:
    """For every file no marker stands in: the answer with a refusal on markers (before the clean-up for every
    text, and as a read makes it: a long text before, a short one after the clean output is ruled out) is the full
    pass's. Returns how many such files there were."""
    checked = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            try:
                text = decode(path.read_bytes())
            except (UnicodeError, ValueError):
                continue
            if not readers._unclaimed(text):
                continue  # a marker stands in it: the full pass reads it either way
            checked += 1
            as_read = _answer(text, str(path))
            monkeypatch.setattr(readers, "HEAD_CHARS", 0)
            first = _answer(text, str(path))
            monkeypatch.undo()
            monkeypatch.setattr(readers, "_unclaimed", lambda text: False)
            full = _answer(text, str(path))
            monkeypatch.undo()
            assert as_read == first == full, path
    return checked


def test_every_fixture_no_marker_stands_in_is_one_no_format_claims(monkeypatch):
    assert _unmarked_answers_agree(_files(FIXTURES), monkeypatch) > 10  # there are such files: the check bites


def test_every_corpus_file_no_marker_stands_in_is_one_no_format_claims(monkeypatch):
    assert _unmarked_answers_agree(_files(corpus("repos")), monkeypatch) > 100


def _json_claims(files: list[Path]) -> dict[str, int]:
    """For every JSON document among the files: each whole-file format that recognises it, counted by name."""
    whole = readers._by_kind(None)[0]
    claims: dict[str, int] = {}
    for path in files:
        try:
            doc = json_document(decode(path.read_bytes()))
        except (UnicodeError, ValueError):
            continue
        for f in whole if doc is not None else ():
            if f.detect(doc):
                claims[f.name] = claims.get(f.name, 0) + 1
    return claims


@pytest.mark.parametrize("where", ["fixtures", "corpus"])
def test_a_json_document_is_claimed_only_by_formats_that_say_they_read_json(where):
    """A text taken for JSON is asked of the formats marked ``json`` alone (a third of the cost of a small JSON
    file was asking the other thirty): no other whole-file format recognises any JSON fixture or corpus file."""
    files = _files(FIXTURES) if where == "fixtures" else [p for k in ("repos", "public", "public2", "lab")
                                                         for p in _files(corpus(k))]  # fmt: skip
    claims = _json_claims(files)
    flagged = {f.name for f in readers._json_formats(None)}
    assert sum(claims.values()) > 50 and len(claims) >= (10 if where == "fixtures" else 3)  # the check bites
    assert set(claims) <= flagged, set(claims) - flagged


def _json_documents(files: list[Path]) -> list[str]:
    docs = []
    for path in files:
        try:
            doc = json_document(decode(path.read_bytes()))
        except (UnicodeError, ValueError):
            continue
        if doc is not None:
            docs.append(doc)
    return docs


@pytest.mark.parametrize("where", ["fixtures", "corpus"])
def test_every_json_document_a_format_recognises_holds_one_of_its_words(where):
    """A JSON document is asked only of the formats one of whose words (``Format.json_words``) it holds: every
    document of the fixtures and the corpus that a format recognises holds one of its words, as the dispatcher
    finds them (for any tool asked, or none)."""
    files = _files(FIXTURES) if where == "fixtures" else [p for k in ("repos", "public", "public2", "lab", "peers")
                                                         for p in _files(corpus(k))]  # fmt: skip
    claimed: dict[str, int] = {}
    for doc in _json_documents(files):
        for f in readers._json_formats(None):
            if f.json_words is not None and f.detect(doc):
                claimed[f.name] = claimed.get(f.name, 0) + 1
                assert f in readers._json_asked(doc, None), (f.name, doc[:200])
                assert f in readers._json_asked(doc, f.tool), (f.name, doc[:200])
    assert sum(claimed.values()) > 50 and len(claimed) >= (12 if where == "fixtures" else 3)  # the check bites


def test_a_json_document_is_asked_of_the_formats_its_words_name():
    """What the words save: a bombardier result is not asked of iperf3's, siege's or fortio's format; one that
    holds no format's words only of those that say none; a document past the searched head of every format."""
    bombardier = '{"spec": {"numberOfConnections": 2}, "result": {"bytesRead": 0, "latency": {"mean": 1}}}'
    asked = [f.name for f in readers._json_asked(bombardier, None)]
    assert "bombardier-json" in asked and not {"iperf3-json", "siege-json", "fortio-json"} & set(asked)
    assert {f.name for f in readers._json_asked('{"a": 1}', None)} == {
        f.name for f in readers._json_formats(None) if f.json_words is None
    }
    # a word inside a longer key or value is not the word; a word quoted anywhere is (a value too: detect looks so)
    assert "iperf3-json" not in [f.name for f in readers._json_asked('{"start_time": 1, "x": "restart"}', None)]
    assert "iperf3-json" in [f.name for f in readers._json_asked('{"a": "x", "b": "start"}', None)]
    long = '{"a": "' + "x" * WORDS_HEAD + '"}'
    assert readers._json_asked(long, None) == readers._json_formats(None)


@pytest.mark.parametrize("where", ["fixtures", "corpus"])
def test_a_segment_no_marker_stands_in_is_one_no_format_detects(where, monkeypatch):
    # a transcript's segments (notes between runs, a command's missing output) are not asked of every format when
    # no marker stands in them: every format asked anyway says none is its own
    from lbanalysis.text import normalize, split_transcript

    roots = [FIXTURES] if where == "fixtures" else [corpus(k) for k in ("repos", "public", "public2", "lab")]
    shows_marker = readers._shows_marker
    monkeypatch.setattr(readers, "_shows_marker", lambda text: True)  # every format asked
    cands = readers.candidate_formats(None, None)
    unmarked = 0
    for root in roots:
        for path in _files(root):
            if path.stat().st_size > 3_000_000:
                continue
            for seg in split_transcript(normalize(decode(path.read_bytes())), str(path)):
                if not shows_marker(seg.text):
                    unmarked += 1
                    assert readers._detect_segment(seg, cands) is None, (path, seg.line)
    assert unmarked > 20  # there are such segments: the check bites
