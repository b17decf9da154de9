"""The tokens of an experiment's design: what a path, a file name or a line inside a file says of a run.

Authors name their experiments in folder and file names (``bc0/n1-highcpu-8-haproxy/c6000.json``,
``9000-conc-300/ab_report.txt``, ``2nd_try/rss_rps_rfs_0_1_0/ipvs_cpu16_3.log``) and in lines between the runs
of a file (``podnum=4``, ``1000 concurrent``, ``iteration 3``). :func:`path_tokens` cuts a path into
:class:`Token` s (a name and a value: ``c`` = 6000, ``try`` = 2, and the words left: ``haproxy``);
:func:`section_lines` finds the lines that name a setting inside a transcript.

Rules, as data below: a segment is split on ``_ - . /`` and at letter-digit boundaries; a number joins the word
it touches (``c6000``, ``cpu16``, ``node05``), a unit word after it (``8cpu``, ``16cores``), the word after an
ordinal (``2nd_try``), or a known name across a separator (``conc-3000``, ``haproxy-4``, ``run_2``);
``key=value`` is a name and its value; ``1K``, ``10k``, ``2M`` are numbers; a date or time stamp is dropped (it
says when, not what); several numbers in a row (``0_1_0``, ``1.2.3``) stay one word (a setting or a version).

>>> [(t.key, t.value) for t in path_tokens("bc0/benchmark-result/n1-highcpu-8-haproxy/c6000.json")]
[(None, 'bc0'), (None, 'benchmark-result'), ('n', 1.0), (None, 'highcpu-haproxy'), (None, 8.0), ('c', 6000.0)]
>>> [(t.position, t.key, t.value) for t in path_tokens("2nd_try/rss_rps_rfs_0_1_0/ipvs_cpu16_3.log")]
[('path[0]', 'try', 2.0), ('path[1]', None, 'rss_rps_rfs_0_1_0'), ('file', None, 'ipvs'), ('file', 'cpu', 16.0), ('file', None, 3.0)]
>>> [(t.key, t.value) for t in path_tokens("tests/suite-root-url-test/9000-conc-300/ab_report.txt")][2:]
[(None, 9000.0), ('conc', 300.0), (None, 'ab-report')]
>>> section_lines("podnum=4\\nStart time: 1505447679\\nwrk -c800 http://h/\\n  Requests/sec: 1.0\\n1000 concurrent\\n")
[(1, 'podnum', 4.0), (5, 'concurrent', 1000.0)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["KNOWN_NAMES", "LOAD_NAMES", "REPEAT_NAMES", "SCALE_NAMES", "Token", "number", "path_tokens",
           "section_lines"]  # fmt: skip

#: Names that read as the load (a token that equals the load the tool printed is a load whatever its name).
LOAD_NAMES = frozenset(
    {"c", "conc", "concurrency", "concurrent", "connections", "conn", "conns", "con", "users", "user", "vus", "vu",
     "clients", "client", "rate", "qps", "rps", "r", "load", "n", "requests", "reqs", "threads", "t"}
)  # fmt: skip
#: Names that read as a repeat of the same test.
REPEAT_NAMES = frozenset(
    {"run", "runs", "rep", "reps", "repeat", "repetition", "try", "trial", "iteration", "iter", "attempt", "round",
     "pass", "take", "sample", "measurement", "times", "r"}
)  # fmt: skip
#: Names that read as a numeric setup parameter: what is scaled.
SCALE_NAMES = frozenset(
    {"server", "servers", "backend", "backends", "node", "nodes", "pod", "pods", "podnum", "replica", "replicas",
     "instance", "instances", "worker", "workers", "process", "processes", "proc", "procs", "core", "cores", "cpu",
     "cpus", "vcpu", "vcpus", "maxconn", "front", "fronts", "frontend", "frontends", "shard", "shards", "haproxy",
     "nginx", "envoy", "lb", "lbs", "upstream", "upstreams", "app", "apps", "container", "containers", "vm", "vms"}
)  # fmt: skip
#: Every name a number joins across a separator (``conc-3000``): the names above, whose meaning is known.
KNOWN_NAMES = LOAD_NAMES | REPEAT_NAMES | SCALE_NAMES
#: Words that name a count when they follow the number (``8cpu``, ``16cores``, ``8instances``, ``10times``).
_UNIT_AFTER = frozenset(
    {"cpu", "cpus", "core", "cores", "vcpu", "vcpus", "instances", "nodes", "pods", "servers", "backends", "workers",
     "procs", "threads", "conns", "users", "times", "clients", "connections", "replicas", "c", "vu", "vus"}
)  # fmt: skip
_ORDINAL = frozenset({"st", "nd", "rd", "th"})
#: Stamps of date and time (dropped: they say when a run ran, not what it was).
_STAMP_RE = re.compile(
    r"(?<![0-9])(?:(?:19|20)\d\d-?[01]\d-?[0-3]\d(?:[-_T ]?[0-2]\d:?[0-5]\d(?::?[0-5]\d)?(?:\.\d+)?Z?)?"
    r"|1[0-9]{9}(?:\.\d+)?)(?![0-9])"
)
_SEP_RE = re.compile(r"[_\-./\s,+]+")
_PIECE_RE = re.compile(r"\d+(?:\.\d+)?[kKmM]?(?![a-zA-Z0-9])|\d+|[^\W\d_]+", re.UNICODE)
_KV_RE = re.compile(r"(?<![\w.])([A-Za-z][\w]*)=([A-Za-z0-9.:]+)")
_NUM_RE = re.compile(r"^(\d+(?:\.\d+)?)([kKmM]?)$")
_EXTENSIONS = re.compile(r"\.(?:txt|log|out|json|csv|tsv|jtl|xml|md|html?|dat|res|result|results|ndjson|gz)$", re.I)


@dataclass(frozen=True)
class Token:
    """One thing a path or a line says: a ``key`` (None: an unnamed number or the words of a segment) and a
    ``value`` (a float for numbers, else text), where it was read (``position``: ``path[0]``, ``file``, or
    ``line``) and ``source`` (``path segment``, ``file-name token``, ``a line inside the file``)."""

    position: str
    key: str | None
    value: float | str
    source: str


def number(text: str) -> float | None:
    """A number as authors write it in names: ``6000``, ``1K`` (1,000), ``2m`` (2,000,000), ``05`` (5).

    >>> number("10k"), number("05"), number("x")
    (10000.0, 5.0, None)
    """
    m = _NUM_RE.match(text)
    if not m:
        return None
    return float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6}[m.group(2).lower()]


_Piece = tuple[str, int]  # a piece of a segment and the index of the part it was cut from


def _name_of(pieces: list[_Piece], j: int, used: list[bool]) -> tuple[str | None, list[int], bool]:
    """The name of the number at ``j`` (None: unnamed), the pieces it takes, and whether the number stays in its
    word (``h3``: a name with a digit whose meaning is not known)."""
    part = pieces[j][1]
    nxt = pieces[j + 1] if j + 1 < len(pieces) else None
    prev = pieces[j - 1] if j > 0 else None
    if nxt and nxt[0].lower() in _ORDINAL and nxt[1] == part:  # 2nd_try: the word after the ordinal
        after = pieces[j + 2] if j + 2 < len(pieces) else None
        if after and number(after[0]) is None:
            return after[0].lower(), [j + 1, j + 2], False
        return None, [j + 1], False
    if nxt and nxt[1] == part and nxt[0].lower() in _UNIT_AFTER:
        return nxt[0].lower(), [j + 1], False  # 8cpu, 16cores
    if prev and number(prev[0]) is None and not used[j - 1] and prev[0].lower() in KNOWN_NAMES:
        return prev[0].lower(), [j - 1], False  # c6000, cpu16, conc-3000
    if prev and number(prev[0]) is None and prev[1] == part:
        return None, [], True  # h3, bc0, lv02
    if nxt and nxt[0].lower() in _UNIT_AFTER:
        return nxt[0].lower(), [j + 1], False  # 10k-users
    return None, [], False


def _words(pieces: list[_Piece], used: list[bool]) -> list[str]:
    """The pieces no number took, as words (the digits of ``h3`` joined to their word)."""
    words: list[str] = []
    last = -1
    for (p, part), u in zip(pieces, used, strict=True):
        if u:
            continue
        if words and number(p) is not None and part == last:
            words[-1] += p
        else:
            words.append(p)
        last = part
    return words


def _segment_tokens(segment: str, position: str, source: str) -> list[Token]:
    """The tokens of one path segment (a folder or the file's stem)."""
    out: list[Token] = []
    for m in _KV_RE.finditer(segment):
        v = number(m.group(2))
        out.append(Token(position, m.group(1).lower(), v if v is not None else m.group(2), source))
    rest = _STAMP_RE.sub(" ", _KV_RE.sub(" ", segment))
    parts = [p for p in _SEP_RE.split(rest) if p]
    # several numbers in a row (0_1_0, a version 1.2.3): the segment is one word, not numbers to pair
    if re.search(r"(?:^|[_\-.])\d+[_\-.]\d+(?:[_\-.]\d+)+(?:$|[_\-.])", rest) or re.search(r"\d+\.\d+\.\d+", rest):
        word = "_".join(parts) if len(parts) > 1 else rest.strip()
        return out + ([Token(position, None, word, source)] if word else [])
    pieces: list[_Piece] = [(p, i) for i, part in enumerate(parts) for p in _PIECE_RE.findall(part)]
    used = [False] * len(pieces)
    for j, (p, _) in enumerate(pieces):
        v = number(p)
        if v is None or used[j]:
            continue
        key, taken, in_word = _name_of(pieces, j, used)
        if in_word:
            continue
        for k in (*taken, j):
            used[k] = True
        out.append(Token(position, key, v, source))
    words = _words(pieces, used)
    if words:
        out.append(Token(position, None, "-".join(words), source))
    return sorted(out, key=lambda t: _order(segment, t))


def _order(segment: str, t: Token) -> int:
    """Where a token stands in its segment (tokens are returned in reading order)."""
    text = t.value if isinstance(t.value, str) else (t.key or f"{t.value:g}")
    i = segment.lower().find(str(text).split("-")[0].lower())
    return i if i >= 0 else len(segment)


def path_tokens(rel_path: str) -> list[Token]:
    """The tokens of a file's path relative to the folder read: each folder (``path[0]``, ``path[1]``, …) and the
    file's stem (``file``), in reading order (see the module text for the rules)."""
    parts = [p for p in re.split(r"[\\/]+", rel_path) if p and p != "."]
    if not parts:
        return []
    stem = _EXTENSIONS.sub("", parts[-1])
    out: list[Token] = []
    for i, seg in enumerate(parts[:-1]):
        out += _segment_tokens(seg, f"path[{i}]", "path segment")
    out += _segment_tokens(stem, "file", "file-name token")
    return out


#: A line inside a file that names a setting of the runs after it: ``podnum=4`` (one or more ``key=value``
#: alone on the line), ``1000 concurrent`` / ``concurrency 1000``, ``iteration 3``, ``run 2 of 5``,
#: ``=== servers: 4 ===``. Keys that are times (``start``, ``end``, ``date``) are not settings. Else a
#: Markdown heading of level 2 to 6 (``### NGINX with FastCGI cache``: a README's section of results) names
#: the runs under it, as ``heading`` (a single ``#`` is also a root shell's prompt, so it is not one).
_COUNTED = "concurrent|connections|clients|users|servers|backends|pods|nodes|workers|processes"
_REPEATED = ("iteration|run|round|try|trial|repeat|attempt|pass|concurrency|connections|clients|users|servers|backends"
             "|pods|nodes|workers|processes")  # fmt: skip
_SECTION_RES = (
    re.compile(r"^[#=\-*\s\[]*((?:[A-Za-z][\w]*\s*=\s*[\w.]+[\s,;]*)+)[#=\-*\s\]]*$"),
    re.compile(rf"^[#=\-*\s\[]*(\d+(?:\.\d+)?[kK]?)\s+({_COUNTED})(?:\s+(?:users|connections|clients|requests))?"
               r"\s*:?[#=\-*\s\]]*$", re.I),
    re.compile(rf"^[#=\-*\s\[]*({_REPEATED})\s*[:#]?\s*(\d+)(?:\s+of\s+\d+)?[#=\-*\s\]]*$", re.I),
)  # fmt: skip
#: A Markdown heading: its text starts with a letter or digit (``#### ---- next run ---- ####``, a banner a
#: script echoes between runs, is none).
_HEADING_RE = re.compile(r"^#{2,6}[ \t]+(\w.*?)(?:[ \t]+#+)?[ \t]*$")
_NOT_SETTINGS = frozenset({"start", "end", "date", "time", "timestamp", "elapsed", "started", "ended", "now"})


#: A quick look for the lines :data:`_SECTION_RES` may match (one multiline search over the whole text, not a
#: loop over its lines): a key=, a number and a count word, or a repeat or count word and a number. Each line is
#: sought from the line end before it (searched in the text after a newline): a pattern that starts with a
#: character is looked for by that character, one that starts with ``^`` is tried at every position (a third
#: slower).
_SECTION_CANDIDATE = re.compile(
    # possessive (``*+``): what a run of one class took is never given back to the next, which cannot start with
    # it (a backtracking "Latency" tried "Latenc", "Laten"... against "=" on every line: twice the time)
    r"\n(?:(?=[ \t#=\-*\[]*+(?:[A-Za-z]\w*+[ \t]*+=|\d++(?:\.\d+)?[kK]?[ \t]++[A-Za-z]|[A-Za-z]++[ \t]*+[:#]?[ \t]*\d)"
    r"[^\n]{0,76}$)"
    # and the words of :data:`_SECTION_RES` where they stand (wrk's "Latency 87.00ms" lines are no candidates)
    rf"[ \t#=\-*\[]*+(?:[A-Za-z]\w*+[ \t]*+=|\d++(?:\.\d+)?[kK]?[ \t]++(?i:{_COUNTED})|(?i:{_REPEATED})[ \t]*[:#]?[ \t]*\d)"
    r"[^\n]*"
    # or a Markdown heading (:data:`_HEADING_RE`)
    r"|[ \t]{0,3}#{2,6}[ \t]+\w[^\n]{0,76}$)",
    re.M,
)


_PAIR_RE = re.compile(r"([A-Za-z][\w]*)\s*=\s*([\w.]+)")


@lru_cache(maxsize=4096)
def _section(s: str) -> tuple[tuple[str, float | str], ...]:
    """The settings one stripped line names (empty: none), once per line (a sweep's log repeats ``podnum=4``)."""
    m = _SECTION_RES[0].match(s)
    if m:
        pairs = _PAIR_RE.findall(m.group(1))
        return tuple((k.lower(), n if (n := number(v)) is not None else v) for k, v in pairs
                     if k.lower() not in _NOT_SETTINGS)  # fmt: skip
    m = _SECTION_RES[1].match(s)
    if m:
        return ((m.group(2).lower(), number(m.group(1)) or 0.0),)
    m = _SECTION_RES[2].match(s)
    if m:
        return ((m.group(1).lower(), float(m.group(2))),)
    m = _HEADING_RE.match(s)
    return (("heading", m.group(1)),) if m else ()


def section_lines(text: str) -> list[tuple[int, str, float | str]]:
    """The lines of ``text`` that name a setting (line number from 1, key, value), in order.

    >>> section_lines("=== run 2 of 5 ===\\nservers=4 cpu=8\\nRequests/sec: 9\\nStart=1\\n")
    [(1, 'run', 2.0), (2, 'servers', 4.0), (2, 'cpu', 8.0)]
    >>> section_lines("### NGINX with FastCGI cache\\n# ab -c 10 http://h/\\n## Run 2\\n")
    [(1, 'heading', 'NGINX with FastCGI cache'), (3, 'run', 2.0)]
    """
    out: list[tuple[int, str, float | str]] = []
    text = "\n" + text  # each line after a newline (:data:`_SECTION_CANDIDATE`): line N starts after the Nth
    line, pos = 0, 0
    for m in _SECTION_CANDIDATE.finditer(text):
        found = _section(m.group(0).strip())
        if found:
            line += text.count("\n", pos, m.start() + 1)
            pos = m.start() + 1
            out += [(line, k, v) for k, v in found]
    return out
