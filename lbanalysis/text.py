"""Text clean-up and transcript splitting, shared by every reader.

Real files are messy: byte-order marks, CRLF line ends, ANSI colours,
``siege  | `` prefixes from docker compose, outputs quoted as JSON strings in
Ansible logs, and terminal transcripts holding several runs, each after a
shell prompt line. :func:`normalize` cleans the text without changing its
line count (so line numbers stay true), and :func:`split_transcript` cuts it
into :class:`Segment` objects, one per command shown.

>>> segs = split_transcript("$ ab -c 2 -n 10 http://h/\\nRequests per second:    5.00 [#/sec] (mean)\\n")
>>> [(s.tool, s.command, s.line) for s in segs]
[('ab', 'ab -c 2 -n 10 http://h/', 2)]
"""

from __future__ import annotations

import itertools
import json
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from . import registry

__all__ = ["TOOL_COMMANDS", "Segment", "as_printed", "command_argv", "decode", "normalize", "split_transcript"]

# Executable name -> tool, from the registry (longest names first, for alternations).
TOOL_COMMANDS = registry.executables()
_SUBCOMMANDS = registry.subcommands()  # executable -> words that may follow it ('k6 run')
_EXE_ALTERNATION = "|".join(re.escape(exe) for exe in TOOL_COMMANDS)

# ANSI escapes; and application program commands (ESC _ ... BEL), which Buildkite's raw logs put before each line
# to stamp it (`\x1b_bk;t=1704164645123\x07`)
_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]|\x1b_[^\x07\x1b\n]*(?:\x07|\x1b\\)")
# A shell prompt: oh-my-zsh's or starship's arrow and up to three words (`➜  dir git:(main) ✗ `), or any
# text without a TAB (a TAB is a table's cell, not a prompt) ending in a prompt character.
_PROMPT = r"""\s*[➜❯λ]\s+(?:\S+\s+){0,3}?|[^\n\t]*?(?:[$#%>❯➜»λ]|\]\s*[$#%>])\s*"""
# Commands that run the tool they are given (with their own options): the command is still the tool's.
# sudo [-u USER] [-E], time [-p] [-v] [-f FMT] (a path: /usr/bin/time), taskset [-a] -c LIST | MASK, nice [-n N],
# timeout [-k T] [-s SIG] DURATION, env [-i] [-u NAME] [NAME=VALUE...], nohup, command, exec, docker run/exec.
WRAPPERS = {
    "sudo": r"sudo(?:\s+-[ugCDhpr]\s*(?!-)\S+|\s+-[A-Za-z]+|\s+--[\w-]+(?:=\S+)?)*",
    "time": r"(?:/[\w./-]*/)?time(?:\s+-[pvqa]+|\s+-[fo]\s*(?:'[^']*'|\"[^\"]*\"|\S+)|\s+--[\w-]+(?:=\S+)?)*",
    "taskset": r"(?:/[\w./-]*/)?taskset(?:\s+-[ap]+)*(?:\s+(?:-c|--cpu-list)\s*\S+|\s+(?:0x)?[0-9a-fA-F]+)",
    "nice": r"(?:/[\w./-]*/)?nice(?:\s+-n\s*-?\d+|\s+--adjustment=-?\d+|\s+-\d+)?",
    "timeout": r"(?:/[\w./-]*/)?timeout(?:\s+-[ks]\s*\S+|\s+--[\w-]+(?:=\S+)?)*\s+\d+(?:\.\d+)?[smhd]?",
    "env": r"(?:/[\w./-]*/)?env(?:\s+-i|\s+-u\s*\S+|\s+[A-Za-z_]\w*=(?:'[^']*'|\"[^\"]*\"|\S*))*",
    "nohup": r"nohup",
    "command": r"command",
    "exec": r"exec",
    "docker": r"docker\s+(?:compose\s+)?(?:run|exec)(?:\s+-\S+)*\s+\S+",
}
_WRAPPERS = "(?:" + "|".join(f"(?:{w})" for w in WRAPPERS.values()) + ")"
# One command invocation: optional prompt (or list item), optional wrappers,
# then a tool executable (maybe with a path or .exe) and arguments.
_CMD_RE = re.compile(
    r"""^(?P<prompt>"""
    + _PROMPT
    + r"""
        |\s*(?:\d{1,3}[.)]|[-*+])\s+(?:[A-Za-z][\w ]{0,30}:\s+)?`?|\s*)
        (?P<cmd>(?:"""
    + _WRAPPERS
    + r"""\s+)*
        (?:[\w.~:\\/-]*[\\/])?(?P<exe>"""
    + _EXE_ALTERNATION
    + r""")(?:\.exe)?
        (?P<args>(?:[ \t]+[^\n]*)?))$""",
    re.MULTILINE | re.VERBOSE,
)
# Command lines other than a tool's executable that start its output (registry.command_patterns),
# after the same prompts; one named group per tool.
_TOOL_PATTERNS = registry.command_patterns()
_PATTERN_RE = re.compile(
    r"""^(?P<prompt>"""
    + _PROMPT
    + r"""|\s*)(?P<cmd>"""
    + "|".join(f"(?P<{name}>{'|'.join(pats)})" for name, pats in _TOOL_PATTERNS.items())
    + r")\s*$",
    re.MULTILINE,
)
# A word that every such command line holds, to skip the patterns on texts without one (HAProxy's
# stats commands say "show"; the other tools' patterns name their executable).
_PATTERN_WORDS = ("show", *(exe for name in _TOOL_PATTERNS for exe in registry.get_tool(name).executables))
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def longest_of(words: Iterable[str]) -> str:
    """A pattern that finds, at a position, the longest of ``words`` standing there: the words as a tree of their
    common beginnings, so that a search tries one branch a first letter, not every word (a third faster than the
    words one after another, longest first, which find the same).

    >>> longest_of(["ab", "ab2", "wrk", "wrk2", "k6"])
    '(?:ab(?:2)?|k6|wrk(?:2)?)'
    >>> re.findall(longest_of(["ab", "ab2"]), "ab2 ab")
    ['ab2', 'ab']
    """
    words = list(words)
    if not words:
        return "(?!)"
    ends = "" in words
    by_first: dict[str, list[str]] = {}
    for w in words:
        if w:
            by_first.setdefault(w[0], []).append(w[1:])
    if not by_first:
        return ""
    alts = [re.escape(ch) + longest_of(rest) for ch, rest in sorted(by_first.items())]
    if ends:
        return "(?:" + "|".join(alts) + ")?"
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


def _top_level_bar(pattern: str) -> bool:
    """Whether a regular expression has a ``|`` outside every group and character class.

    >>> _top_level_bar("^a|b"), _top_level_bar(r"^(?:a|b)[|]\\|")
    (True, False)
    """
    depth, klass, i = 0, False, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if klass:
            klass = c != "]"
        elif c == "[":
            klass = True
            i += 2 if pattern.startswith("]", i + 1) else 3 if pattern.startswith("^]", i + 1) else 1
            continue  # a ] first in a class stands for itself
        elif c in "()":
            depth += 1 if c == "(" else -1
        elif c == "|" and depth == 0:
            return True
        i += 1
    return False


def at_line_start(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    """Whether a pattern of the form ``^…`` (MULTILINE: a line's start) matches in a text, sought from the line ends.

    Python's engine tries a pattern that starts with ``^`` at every position of the text; one that starts with a
    newline only where a newline stands (a search ten times faster on a long transcript). The answer is the
    pattern's own: it matches at the text's start, or after a newline.

    >>> found = at_line_start(re.compile(r"^(?:Requests per second:|Complete requests:)", re.M))
    >>> found("notes\\nRequests per second: 5"), found("Complete requests: 5"), found("x Requests per second:")
    (True, True, False)
    """
    body = pattern.pattern
    if not (pattern.flags & re.MULTILINE and body.startswith("^")) or _top_level_bar(body):
        raise ValueError(f"not a pattern anchored at a line's start as a whole: {body!r}")
    first = re.compile(body[1:], pattern.flags)
    after = re.compile("\n(?:" + body[1:] + ")", pattern.flags)
    return lambda text: first.match(text) is not None or after.search(text) is not None


#: Every executable name (at a position the longest name that stands there is found): one search of the text for
#: all of them, not one ``str.find`` pass for each (26 of them).
_NAMES_RE = re.compile(longest_of(TOOL_COMMANDS))


def _tool_line_starts(text: str) -> list[int]:
    """Starts of lines where a tool executable name stands as a word.

    >>> _tool_line_starts("notes on table\\n$ ab -c 1 http://h/\\nthey said\\n  wrk.exe -t1 http://h/\\n")
    [15, 45]
    """
    starts: set[int] = set()
    n = len(text)
    for m in _NAMES_RE.finditer(text):
        i, j = m.span()
        if text.startswith(".exe", j):
            j += 4
        if (i == 0 or text[i - 1] not in _WORD_CHARS) and (j >= n or text[j] not in _WORD_CHARS):
            starts.add(text.rfind("\n", 0, i) + 1)
    return sorted(starts)


# fish/zsh right prompts (a clock) stand far to the right of the command.
_RIGHT_PROMPT_RE = re.compile(r"\s{8,}")
_COMPOSE_RE = re.compile(r"^([A-Za-z][\w.-]*)\s*\|( |$)", re.MULTILINE)
_ANSIBLE_START_RE = re.compile(r'"[\w.]*stdout_lines"\s*:\s*\[\s*$')

#: Prefixes a log writes before each line of what a step printed (see :func:`_strip_log_prefixes`): a step's
#: name and a TAB (``argo logs``), and an ISO 8601 time stamp in UTC as CI systems print it, GitHub Actions
#: (``2024-01-02T03:04:05.1234567Z ``, after ``job<TAB>step<TAB>`` in ``gh run view --log``), GitLab
#: (``2024-01-02T03:04:05.123456Z 00O ``: stream, O or E, ``+`` for a continued line), ``docker logs -t``
#: (RFC 3339 with up to nine decimals), Jenkins' Timestamper (``[2024-01-02T03:04:05.123Z] `` in a Pipeline,
#: ``03:04:05 `` in a freestyle job's console text).
LOG_PREFIXES: tuple[re.Pattern, ...] = (
    re.compile(r"^[A-Za-z][\w.-]*:\t(?=[^\t]|$)"),  # one TAB: siege's labels stand before two
    re.compile(r"^(?:[^\t\n]+\t[^\t\n]+\t)?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z(?: [0-9a-f]{2}[OE]\+?)?(?: |$)"),
    # Jenkins Pipeline's timestamps() (the Timestamper plugin): `[2024-01-02T03:04:05.123Z] `
    re.compile(r"^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\](?: |$)"),
    # the Timestamper's clock in a freestyle job's console text: `03:04:05 ` then the line (taken only from a
    # text whose first line is so stamped, :data:`_CLOCK_FIRST_RE`: sysstat's tables start their rows with times)
    re.compile(r"^\d\d:\d\d:\d\d(?: (?!AM\b|PM\b)| ?$)"),
)
#: A first line stamped with the Timestamper's clock: one space, then text (sysstat's times are followed by AM/PM or
#: by several spaces before a column).
_CLOCK_FIRST_RE = re.compile(r"\A\d\d:\d\d:\d\d (?!AM\b|PM\b)\S")
_LOG_PREFIX_HINT_RE = re.compile(
    r"^(?:[A-Za-z][\w.-]*:\t(?!\t)|(?:[^\t\n]+\t[^\t\n]+\t)?\d{4}-\d\d-\d\dT\d)", re.MULTILINE
)
# Jenkins: a Pipeline's own lines (`[Pipeline] sh`) carry no stamp, so a stamped line is looked for anywhere; a
# freestyle job's clock stands on its first line
_JENKINS_HINT_RE = re.compile(r"^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\] |\A\d\d:\d\d:\d\d (?!AM\b|PM\b)\S", re.M)
#: Travis CI's markers (travis-build's bash functions ``travis_fold``, ``travis_time_start``, ``travis_time_finish``):
#: in a raw log each ends in a CR and ``ESC[0K`` (``travis_time:start:0a3f9c2e\r\x1b[0K$ ab ...``); in a copy that
#: lost them it runs into the text after it (``travis_time:start:0a3f9c2e$ ab ...``, ``...,event=scriptThe command``):
#: there a fold's name and an event are lowercase words (Travis's own: ``script.1``, ``after_success``).
TRAVIS_MARKER_RE = re.compile(
    r"travis_(?:fold|time):[^\r\n]*\r(?!\n)(?:\x1b\[0K)?"  # a CR not a CRLF line end
    r"|travis_fold:(?:start|end):(?:(?!travis_)[a-z0-9_.-])+"
    r"|travis_time:start:[0-9a-f]+"
    r"|travis_time:end:[0-9a-f]+:start=\d+,finish=\d+,duration=\d+(?:,event=[a-z_]+)?"
)
#: A step's header in ``circleci local execute`` (``====>> `` and the step's name: for a run step without a name,
#: its command): no command typed, although it ends in a prompt's ``>``.
_STEP_HEADER = "====>>"

# Quoting that pasted outputs carry, one level at a time: prefix pattern, and the bare marker that
# stands for an empty quoted line. A block is a run of at least two lines that all carry the prefix
# (or are empty); it loses one level, and nested quotes (`> > `) lose the next one on the next pass.
_QUOTES: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"^> ?"), ">"),  # mail quote
    (re.compile(r"^# "), "#"),  # shell / Python comment
    (re.compile(r"^// ?"), "//"),  # C-style comment
)
_QUOTE_LINE_RE = re.compile(r"\n(?:>|# |//|\t| {4})")  # a line that may carry a prefix (after the first)
_INDENT_RE = re.compile(r"^(?:\t| {4,})")


@dataclass
class Segment:
    """A piece of a file: the output of one command (or the whole file).

    ``text`` excludes the command line itself; ``line`` is the 1-based line
    of the file where ``text`` starts; ``command`` is the command as shown
    (without prompt, trailing comment or the other commands of a
    ``cmd1 && cmd2`` line), ``tool`` the tool it names; ``commands`` every
    command of the tool's on that line, in order (their outputs follow one
    another in ``text``); ``command_line`` the line the command starts on
    (it may continue over several lines ending in ``\\``). ``tables`` names the detail
    tables the caller will use (None: all), so a reader may skip building
    rows nobody asked for (:meth:`wants`).

    >>> Segment("x", tables=frozenset({"phases"})).wants("percentiles"), Segment("x").wants("percentiles")
    (False, True)
    """

    text: str
    source: str = "<buffer>"
    line: int = 1
    command: str | None = None
    tool: str | None = None
    prompt: str | None = None
    tables: frozenset[str] | None = None
    commands: tuple[str, ...] = ()
    command_line: int | None = None

    def wants(self, table: str) -> bool:
        """Whether the rows of detail table ``table`` will be used."""
        return self.tables is None or table in self.tables


def decode(data: bytes) -> str:
    """Bytes to text: UTF-8 with the BOM stripped; bytes that are not UTF-8
    (e.g. a GBK label in a siege.log header) become U+FFFD, nothing else is lost.

    >>> decode(b"\\xef\\xbb\\xbfhello"), decode(b"caf\\xe9 ok")
    ('hello', 'caf\\ufffd ok')
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        # Keep valid UTF-8 parts; replace only undecodable bytes.
        return data.decode("utf-8", errors="replace")


def _unquote_ansible(text: str) -> str:
    """Turn Ansible ``stdout_lines`` JSON string arrays back into plain lines."""
    if "stdout_lines" not in text:
        return text
    lines = text.split("\n")
    inside = False
    for i, line in enumerate(lines):
        if not inside:
            inside = bool(_ANSIBLE_START_RE.search(line))
            continue
        s = line.strip()
        if s.startswith("]"):
            inside = False
            continue
        if s.endswith(","):
            s = s[:-1]
        if s.startswith('"') and s.endswith('"'):
            try:
                lines[i] = json.loads(s)
            except ValueError:
                pass
    return "\n".join(lines)


def _strip_compose(text: str) -> str:
    """Strip ``name  | `` prefixes when most lines carry the same one."""
    found = _COMPOSE_RE.findall(text)
    if not found:
        return text
    names = [f[0] for f in found]
    name = max(set(names), key=names.count)
    nonblank = sum(1 for ln in text.split("\n") if ln.strip())
    if names.count(name) < max(3, nonblank // 3):
        return text
    return re.sub(rf"^{re.escape(name)}\s*\|( |$)", "", text, flags=re.MULTILINE)


def _strip_log_prefixes(text: str) -> str:
    """Outputs inside logs read as the bare output: a block of lines that all carry a log prefix loses it.

    The prefixes (:data:`LOG_PREFIXES`): a step's name and a TAB (``argo logs``: ``run-benchmark:\\t{...}``),
    a time stamp as CI systems print them (GitHub Actions, GitLab with its stream marker, ``gh run view
    --log`` with the job and step before it; :func:`normalize` looks for them in a text whose first line
    has one, a log). A block is two lines or more carrying the same kind of prefix (empty lines may sit
    between them), or a text of one line.

    >>> print(_strip_log_prefixes("2024-01-02T03:04:05.1234567Z Requests/sec: 5.00\\n2024-01-02T03:04:05.1Z bye"))
    Requests/sec: 5.00
    bye
    >>> _strip_log_prefixes("run-benchmark:\\t{\\"requests\\":5}")
    '{"requests":5}'
    >>> print(_strip_log_prefixes("[2024-01-02T03:04:05.123Z] + ab -n 10 http://h/\\n[2024-01-02T03:04:05.200Z] This"))
    + ab -n 10 http://h/
    This
    >>> print(_strip_log_prefixes("03:04:05 Complete requests: 10\\n03:04:05 \\n03:04:06 Failed requests: 0"))
    Complete requests: 10
    <BLANKLINE>
    Failed requests: 0
    >>> _strip_log_prefixes("12:00:01 AM  all  1.00\\n12:00:02 AM  all  2.00")  # sar's times stay
    '12:00:01 AM  all  1.00\\n12:00:02 AM  all  2.00'
    >>> _strip_log_prefixes("12:00:01     CPU  %user\\n12:00:02     all  2.00")
    '12:00:01     CPU  %user\\n12:00:02     all  2.00'
    >>> _strip_log_prefixes("Transactions:\\t\\t5 hits\\nConcurrency:\\t\\t1.00")  # siege's labels stay
    'Transactions:\\t\\t5 hits\\nConcurrency:\\t\\t1.00'
    """
    lines = text.split("\n")
    changed = False
    for pattern in LOG_PREFIXES:
        if pattern is LOG_PREFIXES[-1] and not _CLOCK_FIRST_RE.match(text):
            continue  # a clock only where the text starts with one (not a sysstat table's times)
        for a, b in _blocks(lines, pattern.match):
            for k in range(a, b):
                lines[k] = pattern.sub("", lines[k], count=1)
            changed = True
    return "\n".join(lines) if changed else text


def _blocks(lines: list[str], carries, lead: str | tuple[str, ...] = "") -> list[tuple[int, int]]:
    """(start, end) of runs of >= 2 non-empty lines for which ``carries(line)`` holds (empty lines may sit inside).

    A single carrying line counts when it is the only non-empty line of the text (a one-line output pasted).
    ``lead``: what every carrying line starts with (only those lines are asked; the others end a block
    unless empty).

    >>> _blocks(["  x", "    a", "", "\\tb", "c", "    d", "    e"], _INDENT_RE.match, ("\\t", "    "))
    [(1, 4), (5, 7)]
    """
    nonempty = list(itertools.islice((i for i, ln in enumerate(lines) if ln.strip()), 2))  # the first two
    if len(nonempty) == 1 and carries(lines[nonempty[0]]):
        return [(nonempty[0], nonempty[0] + 1)]
    out = []
    first = last = -1  # the block being read: its first and last carrying lines
    count = 0
    # only lines starting with ``lead`` are asked (a list comprehension finds them at C speed)
    candidates = [i for i, ln in enumerate(lines) if ln.startswith(lead)] if lead else range(len(lines))
    for i in candidates:
        ln = lines[i]
        if not ln.strip() or not carries(ln):
            continue
        if count and i > last + 1 and any(map(str.strip, lines[last + 1 : i])):  # a line between ends the block
            if count >= 2:
                out.append((first, last + 1))
            count = 0
        if not count:
            first = i
        last, count = i, count + 1
    if count >= 2:
        out.append((first, last + 1))
    return out


def _dedent(lines: list[str]) -> str:
    """Remove the common indentation (a TAB, or four spaces or more) of each indented block.

    Returns what was done: ``""`` (nothing), ``"plain"``, or ``"mixed"`` when
    a block indented by TABs on some lines and spaces on others (an output
    re-indented in source code) was read with a TAB as eight columns, or is
    left by the block around it (its lines are indented still):

    >>> lines = ["\\tSummary:", "          Total:\\t0.03 secs"]
    >>> _dedent(lines), lines
    ('mixed', ['Summary:', '  Total:\\t0.03 secs'])
    """
    done = ""
    for a, b in _blocks(lines, _INDENT_RE.match, ("\t", "    ")):
        if b - a == 2:  # two lines (wrk's Latency and Req/Sec rows in every run): indented by spaces, no TAB
            first, second = lines[a], lines[a + 1]  # (a block starts and ends on a line that is not blank)
            bare1, bare2 = first.lstrip(" "), second.lstrip(" ")
            if bare1[0] != "\t" and bare2[0] != "\t":  # then the steps below come to this
                width = min(len(first) - len(bare1), len(second) - len(bare2))
                lines[a], lines[a + 1] = first[width:], second[width:]
                done = done or "plain"
                continue
        body = [ln for ln in lines[a:b] if ln.strip()]
        width = min(len(ln) - len(ln.lstrip(" \t")) for ln in body)
        if all(ln.startswith("\t") for ln in body):
            width = 1
        elif any(ln[:width].strip(" ") for ln in body):  # spaces and TABs mixed: a TAB is eight columns
            _dedent_mixed(lines, a, b)
            done = "mixed"
            continue
        lines[a:b] = [ln[width:] for ln in lines[a:b]]
        tabbed = [ln.startswith("\t") for ln in lines[a:b] if ln.strip()]
        if any(tabbed) and not all(tabbed):
            done = "mixed"  # a TAB-indented output inside the block: its lines are indented still
        done = done or "plain"
    return done


def _dedent_mixed(lines: list[str], a: int, b: int) -> None:
    """Remove the common indentation of lines ``a:b``, their leading TABs taken as eight columns."""
    leads = [len(ln) - len(ln.lstrip(" \t")) for ln in lines[a:b]]
    width = min(len(ln[:n].expandtabs(8)) for ln, n in zip(lines[a:b], leads, strict=True) if ln.strip())
    for k, n in zip(range(a, b), leads, strict=True):
        lines[k] = lines[k][:n].expandtabs(8)[width:] + lines[k][n:]


def _unquote_once(lines: list[str], quotes: tuple[tuple[re.Pattern, str], ...]) -> bool:
    """Strip one level of `> `, `# ` or `// ` quoting from each quoted block."""
    changed = False
    for pattern, bare in quotes:

        def carries(line: str, pattern: re.Pattern = pattern, bare: str = bare) -> bool:
            return bool(pattern.match(line)) or line.rstrip() == bare

        for a, b in _blocks(lines, carries):
            for k in range(a, b):
                lines[k] = "" if lines[k].rstrip() == bare else pattern.sub("", lines[k], count=1)
            changed = True
    return changed


def _unquote(text: str) -> str:
    """Outputs pasted as quotes, comments or indented code read as the bare output.

    Blocks of two or more lines quoted with `> ` (mail, nested too), commented
    with `# ` or `// `, or indented by a TAB or four spaces or more (a
    Markdown code block, a list item) lose that prefix; single lines among
    others keep theirs (a root prompt `# ab ...`, HAProxy's `# pxname,...`
    header); a text of one line loses it.

    >>> print(_unquote("> > Requests per second: 5.00\\n> > Time per request: 2.000 [ms]\\nbye"))
    Requests per second: 5.00
    Time per request: 2.000 [ms]
    bye
    """
    # fast exit: a block needs two prefixed lines, or one that is the whole text
    hits = _QUOTE_LINE_RE.findall(text)
    if text.startswith((">", "# ", "//", "\t", "    ")):
        hits.append("\n" + text[:4])
    if not hits or (len(hits) == 1 and text.strip().count("\n") > 0):
        return text
    lines = text.split("\n")
    marks = {h[1:3] for h in hits}
    quotes = tuple(q for q in _QUOTES if any(m.startswith(q[1]) for m in marks))
    indented = any(m[:1] in ("\t", " ") for m in marks)
    for _ in range(4):  # quotes inside quotes: `> ` around an indented block, `> > `
        changed = _unquote_once(lines, quotes) if quotes else False
        dedented = _dedent(lines) if indented else ""
        if not (changed or dedented):
            break
        if not quotes:
            if dedented != "mixed":
                break  # a dedented block has no common indent left (a mixed one may: a TAB-indented output, quoted)
            continue
        quotes = _QUOTES  # what the first level hid may be any quote
        indented = True
    return "\n".join(lines)


def as_printed(text: str) -> bool:
    """True when a text holds none of what :func:`normalize` takes out whatever the lines around it (a BOM, CRs,
    ANSI escapes, Travis CI's markers, an Ansible array): what is left to clean up is quoting and line prefixes,
    which a text that one output's whole pattern matches line for line does not carry (``tests/test_plain.py``).

    >>> as_printed("Complete requests: 10\\n"), as_printed("Complete requests: 10\\r\\n")
    (True, False)
    """
    return not (
        text.startswith("\ufeff") or "\r" in text or "\x1b" in text or "travis_" in text or "stdout_lines" in text
    )


def normalize(text: str) -> str:
    """Clean text without changing its line count.

    Strips a BOM and Travis CI's fold and timer markers (:data:`TRAVIS_MARKER_RE`), turns CRLF and lone CR
    into LF, removes ANSI escapes and
    docker-compose prefixes, unquotes Ansible ``stdout_lines`` arrays,
    takes off the quoting of pasted outputs (see :func:`_unquote`) and the
    prefixes logs put on every line (a step's name, CI time stamps: see
    :func:`_strip_log_prefixes`).

    >>> normalize("\\ufeffa\\r\\nb\\x1b[0;34mc\\x1b[0m\\r\\n")
    'a\\nbc\\n'
    >>> normalize("\\x1b_bk;t=1704164645123\\x07Requests per second: 5\\n")  # Buildkite's time stamp
    'Requests per second: 5\\n'
    >>> normalize("travis_fold:start:script.1\\r\\x1b[0Ktravis_time:start:0a3f9c2e\\r\\x1b[0K$ ab -n 5 http://h/\\n")
    '$ ab -n 5 http://h/\\n'
    >>> normalize("travis_time:end:0a3f9c2e:start=1,finish=3,duration=2,event=scriptThe command exited with 0.")
    'The command exited with 0.'
    >>> normalize("siege  | Transactions: 5 hits\\nsiege  | x\\nsiege  | y\\n")
    'Transactions: 5 hits\\nx\\ny\\n'
    """
    # the steps up to the Ansible array's are what as_printed() looks for: a new step of that kind goes there too
    if text.startswith("\ufeff"):
        text = text[1:]
    if "travis_" in text:  # Travis CI's fold and timer markers (with the CR and escape that end them in a raw log)
        text = TRAVIS_MARKER_RE.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in text:
        text = _ANSI_RE.sub("", text)
    if "stdout_lines" in text:
        text = _unquote_ansible(text)
    text = _unquote(text)
    # prefixes of a log around the output (maybe quoted itself): what is left reads as a bare output does
    if "|" in text and (bare := _strip_compose(text)) is not text:
        text = _unquote(bare)
    # a step's name and a TAB on any line (a TAB first: a one-character test is cheap), a CI time stamp on the first
    if (
        ("\t" in text and ":\t" in text and _LOG_PREFIX_HINT_RE.search(text))
        or _LOG_PREFIX_HINT_RE.match(text)
        or (("Z] " in text or text[2:3] == ":") and _JENKINS_HINT_RE.search(text))
    ):
        if (bare := _strip_log_prefixes(text)) is not text:
            text = _unquote(bare)
    return text


_ECHOES = {exe: re.compile("|".join(pats)) for exe, pats in registry.echo_patterns().items()}
# zsh's report of a command's time names the command first: `hey -c 4 http://h/  0.02s user 0.04s system 45% cpu
# 0.149 total` is no command line
_TIMED_RE = re.compile(r"\s\d+\.\d+s user \d+\.\d+s system \S+% cpu [\d:.]+ total$")


def _plausible(m: re.Match) -> bool:
    """A matched line is a command, not prose: it has options or a URL/host (and is no report of its time, nor a
    tool's echo of its options, nor a CI step's header naming it).

    >>> [_plausible(_CMD_RE.match(c)) for c in ("$ hey -c 4 http://h/", "hey -c 4 http://h/  0.02s user 0.04s system 45% cpu 0.149 total")]
    [True, False]
    >>> _plausible(_CMD_RE.match("httperf --client=0/1 --server=h --port=80 --uri=/ --num-conns=1"))
    False
    >>> _plausible(_CMD_RE.match("====>> hey -n 200 http://h/"))  # circleci local execute: the step's name
    False
    """
    args = m.group("args").strip()
    if _TIMED_RE.search(args) or m.group("prompt").lstrip().startswith(_STEP_HEADER):
        return False
    exe = m.group("exe")
    echo = _ECHOES.get(exe)
    if echo is not None and not m.group("prompt").strip() and echo.fullmatch(m.group("cmd").strip()):
        return False
    if not args:
        return exe == "siege" and bool(m.group("prompt").strip())
    first = args.split()[0]
    if first.startswith(("-", "http://", "https://", "/")) or first in _SUBCOMMANDS.get(exe, ()):
        return True
    return exe == "siege" and bool(re.match(r"^[\w.-]+(:\d+)?(/\S*)?$", first)) and bool(m.group("prompt").strip())


def split_transcript(text: str, source: str = "<buffer>") -> list[Segment]:
    """Cut normalized text into segments, one per command line shown.

    Text before the first command becomes a segment with ``command=None``
    (it may be a whole output without a prompt, or notes).

    >>> t = "notes\\nroot@lb:~# ab -k -c 10 http://x/\\nout1\\n$ siege -c 5 -t 5S http://y/\\nout2\\n"
    >>> [(s.tool, s.line, s.text) for s in split_transcript(t)]
    [(None, 1, 'notes\\n'), ('ab', 3, 'out1\\n'), ('siege', 5, 'out2\\n')]
    """
    # Cheap pre-filter: only lines naming a tool executable can be commands. Each hit: (start, end, match), the
    # match of a command line made on the line alone (once per line: a sweep's log repeats its command)
    hits = []
    for start in _tool_line_starts(text):
        end = text.find("\n", start)
        m = _command_line(text[start : len(text) if end < 0 else end])
        if m is not None:
            hits.append((start, start + m.end(), m))
    if _TOOL_PATTERNS and any(word in text for word in _PATTERN_WORDS):
        hits = sorted([*hits, *((m.start(), m.end(), m) for m in _PATTERN_RE.finditer(text))], key=lambda h: h[0])
    return _cut_at(text, source, hits)


def _cut_at(text: str, source: str, hits: list[tuple[int, int, re.Match]]) -> list[Segment]:
    """The segments of ``text`` cut at its command lines (``hits``: start, end and match of each, in order)."""
    segments: list[Segment] = []
    if not hits:
        return [Segment(text, source, 1)]
    # line numbers by counting newlines up to each match start
    first = hits[0][0]
    if first > 0 and text[:first].strip():
        segments.append(Segment(text[:first], source, 1))
    line = text.count("\n", 0, first) + 1
    pos = first
    cmd_end = -1
    for i, (start, stop, m) in enumerate(hits):
        if start <= cmd_end:
            continue  # a line continuing the command before
        line += text.count("\n", pos, start)
        pos = start
        shown, cmd_end = m.group("cmd"), stop
        if shown.rstrip().endswith("\\"):  # (most commands are one line: no call)
            shown, cmd_end = _continued(text, shown, stop)
        nxt = i + 1  # the next match beyond the command's lines (an index: no copy of the list per command)
        while nxt < len(hits) and hits[nxt][0] <= cmd_end:
            nxt += 1
        end = hits[nxt][0] if nxt < len(hits) else len(text)
        body_start = cmd_end + 1 if cmd_end < len(text) else cmd_end
        named = m.re is _CMD_RE  # found by an executable's name, else by a registry pattern
        command, commands = _commands_shown(shown, named)
        segments.append(
            Segment(
                text[body_start:end],
                source,
                line + 1 + text.count("\n", stop, cmd_end),
                command,
                TOOL_COMMANDS[m.group("exe")] if named else _tool_of(m),
                m.group("prompt").rstrip() or None,
                None,
                commands,
                line,
            )
        )
    return segments


#: A line of notes in a sweep's log (``podnum=4``, ``Start time: 1505451110``, a host's name): any line the clean-up
#: leaves as it is, no quote, comment or indented block starting it (:data:`_QUOTE_LINE_RE`; the text holds none of
#: :data:`_CLEANED`). That none is a command line is checked (:func:`_no_command`).
_SWEEP_NOTE = r"(?!>|#|//| {4})[^\n]*"
#: The most lines of notes before a run, or after its command (ktaka's: four): a text with more is left to the full
#: path, and one that is no sweep is not searched beyond them
_SWEEP_NOTES = 16
_SWEEP_TAIL_RE = re.compile(rf"(?:{_SWEEP_NOTE}\n){{0,{_SWEEP_NOTES}}}{_SWEEP_NOTE}")
#: What the clean-up (:func:`normalize`) acts on beyond the start of a line: no free line of a sweep's log read
#: without it holds one (nor a word of a registry command pattern: :data:`_PATTERN_WORDS`)
_CLEANED = ("\r", "\x1b", "\t", "|", "\ufeff", "travis_", "stdout_lines", "Z] ")


def sweep_unit(executables: Iterable[str], run: re.Pattern[str]) -> re.Pattern[str]:
    """One run of a sweep's log as a pattern: lines of notes, maybe the command (an executable and plain
    arguments: no quotes, no shell) and notes after it, then the run's output as ``run`` matches it, from the
    group ``run`` (:attr:`~lbanalysis.readers.base.Format.sweep`).

    >>> unit = sweep_unit(["wrk"], re.compile(r"Requests/sec: \\d+\\n"))
    >>> m = unit.match("podnum=4\\nwrk -c8 http://h/\\nRequests/sec: 5\\n")
    >>> m.group("command"), m.start("run"), unit.match("Start: 1\\nRequests/sec: 5\\n").group("command")
    ('wrk -c8 http://h/', 27, None)
    """
    return re.compile(
        rf"(?:{_SWEEP_NOTE}\n){{0,{_SWEEP_NOTES}}}?(?:(?P<command>{longest_of(executables)}(?:[ ]+[\w./:=%,@+-]+)+)"
        rf"[ ]*\n(?P<after>(?:{_SWEEP_NOTE}\n){{0,{_SWEEP_NOTES}}}?))?(?P<run>)(?:{run.pattern})",
        run.flags,
    )


class Sweep(NamedTuple):
    """A sweep's log cut (:func:`cut_sweep`): its segments; where its notes and commands stand, as (start, end)
    offsets, in order; the run after each command, as the groups of the run's pattern and where it starts and
    ends in its segment's text; and the runs before any command so."""

    segments: list[Segment]
    outside: list[tuple[int, int]]
    runs: list[tuple[tuple, int, int]]
    #: the runs before the first command (in the first segment, which starts the text), as ``runs``
    bare: list[tuple[tuple, int, int]]


def cut_sweep(text: str, source: str, unit: re.Pattern[str]) -> Sweep | None:
    """A sweep's log cut as :func:`split_transcript` cuts it cleaned up (:func:`normalize`), without the clean-up
    or the search of every line for commands; None unless the text is, line for line, runs as ``unit`` matches
    them (:func:`sweep_unit`: each maybe after its command) and notes.

    Such a text holds nothing the clean-up acts on but indented lines of the runs' output (wrk's Latency and
    Req/Sec rows), which it dedents: the segments are the same but for that indentation. Each line of the notes,
    and the first of a run's output (wrk's ``Running 30s test @ URL``), that names an executable is checked to be
    no command line; the other lines of the output hold no free text (``tests/test_sweep_log.py``).

    >>> unit = sweep_unit(["wrk"], re.compile(r"Requests/sec: \\d+\\n"))
    >>> segs = cut_sweep("n=1\\nwrk -c8 http://h/\\nRequests/sec: 5\\nn=2\\nwrk -c9 http://h/\\nRequests/sec: 6\\n", "f", unit)
    >>> [(s.line, s.command, s.text) for s in segs.segments]
    [(1, None, 'n=1\\n'), (3, 'wrk -c8 http://h/', 'Requests/sec: 5\\nn=2\\n'), (6, 'wrk -c9 http://h/', 'Requests/sec: 6\\n')]
    >>> cut_sweep("n=1\\nwrk -c8 http://h/\\nRequests/sec: 5\\n> quoted\\n> twice\\n", "f", unit) is None
    True
    """
    if "\t" in text:  # (the runs' output may hold TABs between its columns)
        return None
    if _LOG_PREFIX_HINT_RE.match(text) or (text[2:3] == ":" and _JENKINS_HINT_RE.match(text)):
        return None  # a CI log's prefixes on the first line (:func:`normalize`)
    hits, outside, runs, bare = [], [], [], []
    groups = unit.groupindex["run"]  # the unit's own groups: the run's pattern's follow
    free = []  # the notes and the first line of each run: their lines may name an executable
    commands = []
    pos = 0
    while (m := unit.match(text, pos)) is not None:
        run = m.start("run")
        start, stop = m.span("command")
        if start < 0:
            if hits:  # a run without a command after a command's run: the full path scopes the two
                return None
            free += (text[pos:run], text[run : text.find("\n", run) + 1])
            bare.append((m.groups()[groups:], run, m.end()))
        else:
            free += (text[pos:start], text[m.start("after") : text.find("\n", run) + 1])
            shown = text[start : text.find("\n", stop)]
            c = _command_line(shown)
            if c is None:
                return None
            hits.append((start, start + c.end(), c))
            commands.append(shown)
            body = m.start("after")  # where the command's segment starts
            runs.append((m.groups()[groups:], run - body, m.end() - body))
        outside.append((pos, run))
        pos = m.end()
    free.append(text[pos:])
    if not outside or _SWEEP_TAIL_RE.fullmatch(text, pos) is None:
        return None
    # the lines of free text (each part of ``free`` ends at a line's end: joined, they are the same lines) and the
    # commands: the runs' other lines are the pattern's words and figures, which hold none of these
    notes = "".join(free)
    shown = notes + "\n".join(commands)
    if any(c in shown for c in _CLEANED) or any(word in shown for word in _PATTERN_WORDS) or not _no_command(notes):
        return None
    outside.append((pos, len(text)))
    return Sweep(_cut_at(text, source, hits), outside, runs, bare)


def _no_command(part: str) -> bool:
    """Whether no line of ``part`` is a command line as :func:`split_transcript` finds them.

    >>> _no_command("Start time: 1\\npodnum=2\\n"), _no_command("x\\nwrk -c1 http://h/\\n")
    (True, False)
    """
    for start in _tool_line_starts(part):
        end = part.find("\n", start)
        if _command_line(part[start : len(part) if end < 0 else end]) is not None:
            return False
    return True


@lru_cache(maxsize=4096)
def _commands_shown(shown: str, named: bool) -> tuple[str, tuple[str, ...]]:
    """A segment's command and every command of the tool's on its line, from the command as shown (with the lines
    it continues on); ``named``: found by an executable's name (else by a registry pattern, whose line is one
    command). Once per line: a sweep's log repeats its command.

    >>> _commands_shown("ab -n 1 http://h/ && ab -n 2 http://h/  # two", True)
    ('ab -n 1 http://h/', ('ab -n 1 http://h/', 'ab -n 2 http://h/'))
    """
    command = _shown_command(shown)
    commands = _tool_commands(command) if named else ()
    return commands[0] if commands else command, tuple(commands) or (command,)


@lru_cache(maxsize=4096)
def _command_line(line: str) -> re.Match | None:
    """The match of the command a line shows (made on the line alone), else None.

    >>> _command_line("root@lb:~# ab -k -c 10 http://x/").group("exe"), _command_line("ab is a tool") is None
    ('ab', True)
    """
    m = _CMD_RE.match(line)
    return m if m is not None and _plausible(m) else None


@lru_cache(maxsize=4096)
def _shown_command(shown: str) -> str:
    """A command as shown, without a right prompt (a clock far to its right) or a trailing note.

    >>> _shown_command("ab -c 10 http://h/        [10:42:01]"), _shown_command("ab -c 1 http://h/  # one")
    ('ab -c 10 http://h/', 'ab -c 1 http://h/')
    """
    return _drop_note(_RIGHT_PROMPT_RE.split(shown.strip(), 1)[0])


def _continued(text: str, command: str, end: int) -> tuple[str, int]:
    """A command with the lines it continues on (each before ending in a backslash), and where it ends.

    >>> _continued("hey -n 10 \\\\\\n    -m POST \\\\\\n    http://h/\\nout", "hey -n 10 \\\\", 11)
    ('hey -n 10 -m POST http://h/', 39)
    """
    while command.rstrip().endswith("\\") and end < len(text):
        nxt = text.find("\n", end + 1)
        nxt = len(text) if nxt < 0 else nxt
        command = command.rstrip()[:-1].rstrip() + " " + text[end + 1 : nxt].strip()
        end = nxt
    return command, end


# `cmd1 && cmd2`, `cmd1; cmd2`, `cmd1 || cmd2` outside quotes; a trailing `# note` or `// note`.
_COMPOUND_RE = re.compile(r"""("[^"]*"|'[^']*')|\s*(?:&&|\|\||;)\s*""")
# `//` starts a note when a space, the end or a letter beyond ASCII follows (`//必须在后方指定…`), never a URL.
_TRAILING_NOTE_RE = re.compile(r"""("[^"]*"|'[^']*')|\s+(?:\#.*|//(?:(?:\s|[^\x00-\x7f]).*)?)$""")


def _split_compound(command: str) -> list[str]:
    """The commands of one shell line, split at ``&&``, ``||`` and ``;`` outside quotes.

    >>> _split_compound("ab -n 1 'http://h/?a;b' && ab -n 2 http://h/; echo done")
    ["ab -n 1 'http://h/?a;b'", 'ab -n 2 http://h/', 'echo done']
    """
    parts, start = [], 0
    for m in _COMPOUND_RE.finditer(command):
        if m.group(1) is None:
            parts.append(command[start : m.start()])
            start = m.end()
    parts.append(command[start:])
    return [p.strip() for p in parts if p.strip()]


def _drop_note(command: str) -> str:
    """A command without its trailing ``# comment`` or ``// comment`` (quotes respected).

    >>> _drop_note("ab -c 10 http://h/   # ten at a time"), _drop_note("ab -H 'X: #1' http://h/ // x")
    ('ab -c 10 http://h/', "ab -H 'X: #1' http://h/")
    >>> _drop_note("ab -k http://h/42.html  //必须在后方指定相应文件")
    'ab -k http://h/42.html'
    """
    if command.endswith("`") and command.count("`") == 1:  # `ab ...` in Markdown, opened before the command
        command = command[:-1].rstrip()
    for m in _TRAILING_NOTE_RE.finditer(command):
        if m.group(1) is None:
            return command[: m.start()].rstrip()
    return command


@lru_cache(maxsize=4096)
def _tool_commands(command: str) -> tuple[str, ...]:
    """The parts of a shell line that start a known tool (once per command: a sweep's log repeats it)."""
    out = []
    for part in _split_compound(command):
        m = _CMD_RE.match(part)
        if m and _plausible(m):
            out.append(m.group("cmd").strip())
    return tuple(out)


def _tool_of(m: re.Match) -> str:
    """The tool a command match names: its executable, or the registry pattern that matched."""
    if "exe" in m.re.groupindex:
        return TOOL_COMMANDS[m.group("exe")]
    return next(name for name in _TOOL_PATTERNS if m.group(name))


_REDIRECT_RE = re.compile(r"\s(?:\d?>>?|&>|\||;|&&|\|\|)\s*.*$")


def command_argv(command: str) -> list[str]:
    """The tool's arguments from a command line, without wrappers or redirections.

    >>> command_argv("sudo ab -k -c 10 -n 100 'http://h/a b' 2>&1 | tee out.txt")
    ['-k', '-c', '10', '-n', '100', 'http://h/a b']
    """
    return list(_argv(command))  # a list of its own: the caller may change it


@lru_cache(maxsize=4096)
def _argv(command: str) -> tuple[str, ...]:
    """:func:`command_argv`, once per command (a sweep's log repeats its command for every run it shows)."""
    m = _CMD_RE.match(command)
    args = m.group("args") if m else command
    args = _REDIRECT_RE.sub("", " " + args).strip()
    try:
        return tuple(shlex.split(args, posix=True))
    except ValueError:
        return tuple(args.split())


def getopt(
    argv: list[str],
    with_arg: str | set[str],
    long: Mapping[str, str] | Callable[[str], str | None] | None = None,
    optional_arg: str | set[str] = "",
) -> tuple[dict[str, str | bool], list[str]]:
    """POSIX-style option parsing shared by the tools' command-line readers.

    Short options cluster (``-kc10``); an option in ``with_arg`` takes the
    rest of its token or the next one; an option in ``optional_arg`` takes
    only an attached value. ``long`` maps a long name (without ``--``) to
    its short key; ``--name=value`` and ``--name value`` both work; unknown
    long options are passed over. ``--`` ends the options. Flags map to
    ``True``.

    >>> getopt(["-kc10", "-n", "100", "http://h/"], "nc")
    ({'k': True, 'c': '10', 'n': '100'}, ['http://h/'])
    >>> getopt(["--concurrent=5", "--time", "1M", "-l", "-lfile", "x"], "ct", {"concurrent": "c", "time": "t"}, "l")
    ({'c': '5', 't': '1M', 'l': 'file'}, ['x'])
    """
    opts: dict[str, str | bool] = {}
    positional: list[str] = []
    lookup = long if callable(long) else (long or {}).get
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            positional.extend(argv[i + 1 :])
            break
        if tok.startswith("--") and len(tok) > 2:
            name, eq, val = tok[2:].partition("=")
            key = lookup(name)
            if key is not None:
                if key in with_arg:
                    if not eq and i + 1 < len(argv):
                        i += 1
                        val = argv[i]
                    opts[key] = val
                elif key in optional_arg:
                    opts[key] = val if eq else opts.get(key, True)
                else:
                    opts[key] = True
        elif tok.startswith("-") and len(tok) > 1:
            for j in range(1, len(tok)):
                ch = tok[j]
                rest = tok[j + 1 :]
                if ch in with_arg:
                    if not rest and i + 1 < len(argv):
                        i += 1
                        rest = argv[i]
                    opts[ch] = rest
                    break
                if ch in optional_arg:
                    opts[ch] = rest or opts.get(ch, True)
                    break
                opts[ch] = True
        else:
            positional.append(tok)
        i += 1
    return opts, positional
