"""Pasted outputs: quoted, commented or indented text reads exactly as the bare output.

Every small captured fixture is read bare and with each prefix people paste
outputs with (a Markdown indented code block, a TAB, a `# ` or `// ` comment,
a `> ` mail quote, nested `> > `); the runs and every detail table must be
the same, line numbers included (prefixes are taken off without moving lines).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from lbanalysis.errors import LBAnalysisError
from lbanalysis.readers import parse_text
from lbanalysis.text import normalize

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TEXTS = sorted(
    p
    for p in FIXTURES.rglob("*")
    if p.is_file() and p.suffix in (".txt", ".csv", ".tsv", ".json", ".log") and p.stat().st_size < 20_000
)
PREFIXES = {"markdown": "    ", "tab": "\t", "hash": "# ", "slashes": "// ", "mail": "> ", "nested-mail": "> > "}


def _quoted(text: str, prefix: str) -> str:
    return "\n".join(prefix + ln if ln.strip() else ln for ln in text.split("\n"))


def _plain(value):
    """Parsed tables hold lists of dicts or frames: something == can compare."""
    if isinstance(value, pd.DataFrame):
        return value.astype(object).where(value.notna(), None).to_dict("list")
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "NaN"  # NaN != NaN: compared as a marker
    return value


def _parsed(text: str):
    try:
        p = parse_text(text, "x.txt")
    except LBAnalysisError as e:
        return type(e).__name__
    return _plain(p.runs), _plain(p.tables)


def test_there_are_fixtures_of_every_tool():
    families = {p.relative_to(FIXTURES).parts[0] for p in TEXTS}
    assert {"ab", "siege", "iperf2", "iperf3", "wrk", "hey", "haproxy"} <= families


@pytest.mark.parametrize("prefix", PREFIXES.values(), ids=PREFIXES.keys())
def test_quoted_output_reads_as_the_bare_one(prefix):
    different = []
    for path in TEXTS:
        text = path.read_text(errors="replace")
        bare = _parsed(text)
        if isinstance(bare, str):
            continue
        if _parsed(_quoted(text, prefix)) != bare:
            different.append(path.relative_to(FIXTURES).as_posix())
    assert not different


def test_ab_with_progress_lines_in_an_indented_block():
    text = (FIXTURES / "ab" / "ab_c10.txt").read_text()
    assert "Completed 100 requests" in text
    note = "Results of the run:\n\n" + _quoted(text, "    ") + "\nThat is all.\n"
    runs, _ = _parsed(note)
    assert len(runs) == 1 and runs[0]["requests"] == 1000 and runs[0]["line"] == 3


def test_prefixes_come_off_without_moving_lines():
    text = "# note\nfree text\n> a\n>\n> b\n    c\n    d\n# e\n"
    assert normalize(text).split("\n") == ["# note", "free text", "a", "", "b", "c", "d", "# e", ""]


def test_single_lines_keep_their_prefix_among_others():
    # a root prompt, HAProxy's header: one line with `# ` among bare lines is not a quote
    text = "# ab -n 10 http://h/\nThis is ApacheBench, Version 2.3\n"
    assert normalize(text) == text
    assert normalize("# pxname,svname,stot,\napp,s1,5,\n") == "# pxname,svname,stot,\napp,s1,5,\n"


# --- which command a result belongs to -------------------------------------------------------
AB10 = (FIXTURES / "ab" / "ab_c10.txt").read_text()
AB1 = (FIXTURES / "ab" / "ab_c1.txt").read_text()
AB_HAPROXY = (FIXTURES / "ab" / "ab_haproxy_http.txt").read_text()
SIEGE = (FIXTURES / "siege" / "siege_plain_nginx_fast.txt").read_text()
N = "http://127.0.0.1:18080/"


def _commands(text: str) -> list:
    runs, _ = _parsed(text)
    return [r.get("command") for r in runs]


@pytest.mark.parametrize("joiner", [" && ", "; ", " || "])
def test_two_commands_on_one_line_are_two_commands(joiner):
    text = f"$ ab -n 1000 -c 10 {N}{joiner}ab -n 1000 -c 1 {N}\n{AB10}{AB1}"
    runs, _ = _parsed(text)
    assert [(r["command"], r["concurrency"]) for r in runs] == [
        (f"ab -n 1000 -c 10 {N}", 10),
        (f"ab -n 1000 -c 1 {N}", 1),
    ]


def test_a_result_after_a_heading_or_a_note_does_not_inherit_the_command():
    for between in ("## Second test\n\n", "Then with one connection only\n", "```\n\n```\n"):
        text = f"$ ab -n 1000 -c 10 {N}\n{AB10}\n{between}{AB1}"
        assert _commands(text) == [f"ab -n 1000 -c 10 {N}", None], between
    # nothing between: the second output is the same command's (a pasted repeat)
    assert _commands(f"$ ab -n 1000 -c 10 {N}\n{AB10}{AB1}") == [f"ab -n 1000 -c 10 {N}"] * 2


def test_a_result_naming_another_target_does_not_inherit_the_command():
    runs, _ = _parsed(f"$ ab -n 1000 -c 10 {N}\n{AB10}{AB_HAPROXY}")
    assert [r.get("command") for r in runs] == [f"ab -n 1000 -c 10 {N}", None]
    assert runs[1]["port"] == 18090 and runs[0]["port"] == 18080


@pytest.mark.parametrize(
    "line",
    [
        "1. Request: siege -c10 -t5S http://127.0.0.1:18080/",
        "- siege -c10 -t5S http://127.0.0.1:18080/",
        "* `siege -c10 -t5S http://127.0.0.1:18080/`",
        "2) siege -c10 -t5S http://127.0.0.1:18080/",
    ],
)
def test_list_items_are_commands(line):
    assert _commands(f"{line}\n{SIEGE}") == ["siege -c10 -t5S http://127.0.0.1:18080/"]


@pytest.mark.parametrize("note", ["   # ten at a time", "  // ten at a time", " #10 conns"])
def test_trailing_annotations_are_not_part_of_the_command(note):
    runs, _ = _parsed(f"$ ab -n 1000 -c 10 {N}{note}\n{AB10}")
    assert runs[0]["command"] == f"ab -n 1000 -c 10 {N}" and runs[0]["url"] == N


def test_prose_mentioning_a_command_mid_sentence_is_no_command():
    text = f"We first ran ab -n 5000 -c 99 http://example.com/ for a warm-up, then:\n{AB10}"
    runs, _ = _parsed(text)
    assert len(runs) == 1 and runs[0].get("command") is None and runs[0]["concurrency"] == 10


@pytest.mark.parametrize(
    ("lines", "done", "dedented"),
    [
        (["    a", "      b"], "plain", ["a", "  b"]),  # two lines indented by spaces: the short way
        (["  \ta", "    b"], "", ["  \ta", "    b"]),  # a TAB inside the first line's indent: the long way
        (["\ta", "\t\tb"], "mixed", ["a", "\tb"]),
        (["    a", "\tb"], "mixed", ["a", "    b"]),
        (["     a", "    \tb"], "mixed", ["a", "   b"]),
        (["x", "    a", "    b", "y", "      c", "    d"], "plain", ["x", "a", "b", "y", "  c", "d"]),
    ],
)
def test_a_two_line_block_is_dedented_as_any_block(lines, done, dedented):
    # the answers of the dedent before its short way for two lines indented by spaces (wrk's Latency and Req/Sec)
    from lbanalysis.text import _dedent

    got = list(lines)
    assert _dedent(got) == done and got == dedented
