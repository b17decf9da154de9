"""autobench's results table: one row per rate, the figures httperf printed for each host tested at that rate.

autobench (Julian T. J. Midgley's Perl wrapper around httperf; 2.1.2, its last release) runs
``httperf --rate R --num-call C --num-conn N --timeout T ...`` once per rate R, from ``--low_rate`` to
``--high_rate`` by ``--rate_step`` (on one host, or on two one after the other), picks a few figures out of
each summary and writes one row per rate, tab-separated (``output_fmt = tsv``) or with commas (``csv``), to
``--file`` or stdout; ``bench2graph`` draws it::

    dem_req_rate	req_rate_127.0.0.1	con_rate_127.0.0.1	min_rep_rate_127.0.0.1	...	errors_127.0.0.1
    20	20.2	10.1	20.0	20.0	20.0	0.0	1.2	9.3	0

People paste it into a README as a Markdown pipe table (``|dem_req_rate|req_rate|...``, often without the
``_<host>`` after each name) or in columns aligned with spaces: every layout reads the same. A blank line, or
a line that is no row, ends a table. Each name but the first is followed by ``_<host>`` for each host tested
(:data:`FIELDS`); each host gives a run per row:

===================  ===============================  ===============================================  ====
autobench            httperf's line                   column                                           unit
===================  ===============================  ===============================================  ====
``dem_req_rate``     (C x R: requests/s asked for)    ``rate_target_per_s``                            1/s
``req_rate``         ``Request rate``                 ``requests_attempted_per_s``; ``requests_per_s``  1/s
                                                      too when ``errors`` is 0 (every request answered),
                                                      else the mean reply rate below (replies/s)
``con_rate``         ``Connection rate``              ``connection_rate_per_s``                        1/s
``min_rep_rate``     ``Reply rate`` min, avg, max,    ``interval_requests_per_s_min``, ``_mean``,      1/s
... ``stddev_``      stddev (5-s samples)             ``_max``, ``_stdev``; empty when all four are 0
                                                      (a run under 5 s has no sample: httperf prints 0)
``resp_time``        ``Reply time`` response          phases ``response``; ``latency_mean_s`` (to the  ms
                                                      reply's first byte: the transfer time is not in
                                                      the table)
``net_io``           ``Net I/O``                      ``bytes_per_s_total`` (sent + received, 1024 B)  KB/s
``errors``           100 x ``Errors`` total / replies ``errors_per_reply_pct``; 101, autobench's mark  %
                                                      for no reply, is the run's ``error`` (no answer,
                                                      ``requests`` 0)
===================  ===============================  ===============================================  ====

Its runs are autobench's (``tool`` autobench), as Taurus's are Taurus's: autobench measures with httperf, but
its rows are not httperf's runs. They keep ten of httperf's figures, the rate asked for is in requests/s (httperf's
``--rate`` is in connections/s), and its errors are a share of the replies, so a folder holding both keeps them
in series of their own. Lines httperf or autobench print on stderr (``httperf: warning ...``, ``Zero replies
received``) when both streams went to one file do not end a table; httperf's warnings go to ``warnings``.

>>> text = "dem_req_rate\\treq_rate_h\\tcon_rate_h\\tresp_time_h\\terrors_h\\n20\\t20.2\\t10.1\\t1.2\\t0\\n"
>>> r = parse(Segment(text)).runs[0]
>>> r["host"], r["rate_target_per_s"], r["requests_per_s"], r["latency_mean_s"], r["errors_per_reply_pct"]
('h', 20.0, 20.2, 0.0012, 0.0)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...text import Segment
from ..base import NO_ANSWER, Format, LineKind, Parsed, ParseError, scan
from ..fields import Field, walk

__all__ = ["FIELDS", "FORMATS", "LINE_KINDS", "NO_REPLY", "RATE", "detect", "parse"]

#: The rate asked for: the first column, once per row (calls per connection x connections per second).
RATE = Field("dem_req_rate", "rate_target_per_s", "req/s")
#: A host's columns (each named ``<source>_<host>``), in the order autobench writes them, in httperf's units.
#: ``kind``: ``runs`` always kept, ``rps`` (the reply-rate samples) kept unless all four are 0 (no sample),
#: ``answered`` kept when some reply came.
FIELDS: tuple[Field, ...] = (
    Field("req_rate", "requests_attempted_per_s", "req/s"),
    Field("con_rate", "connection_rate_per_s", "conn/s"),
    Field("min_rep_rate", "interval_requests_per_s_min", "replies/s", kind="rps"),
    Field("avg_rep_rate", "interval_requests_per_s_mean", "replies/s", kind="rps"),
    Field("max_rep_rate", "interval_requests_per_s_max", "replies/s", kind="rps"),
    Field("stddev_rep_rate", "interval_requests_per_s_stdev", "replies/s", kind="rps"),
    Field("resp_time", "latency_mean_s", "ms", kind="answered"),
    Field("net_io", "bytes_per_s_total", "KB/s"),
    Field("errors", "errors_per_reply_pct", "%", kind="answered"),
)
#: What autobench writes in ``errors`` when httperf got no reply (it cannot divide by the replies).
NO_REPLY = 101.0

_NAME_RE = re.compile(r"^(" + "|".join(f.source for f in (RATE, *FIELDS)) + r")(?:_(\S+))?$")
_HEADER_RE = re.compile(r"^\s*\|?\s*dem_req_rate(?:[\t,| ]|$)")
_RULE_RE = re.compile(r"^\s*\|?(?:\s*:?-{3,}:?\s*\|)+(?:\s*:?-{3,}:?\s*)?$")
_ROW_RE = re.compile(r"^\s*\|?\s*\d")
_HTTPERF_RE = re.compile(r"^httperf: (.*)$")
_ZERO_RE = re.compile(r"^Zero replies received, test invalid: rate \d+$")
_DETECT_RE = re.compile(r"^\s*\|?\s*dem_req_rate\s*[\t,| ]\s*\|?\s*req_rate(?:_\S+?)?\s*[\t,|\s]", re.M)


@dataclass
class _Table:
    """A table being read: its separator, width, the rate's cell and each host's cells by name."""

    sep: str  # "\t", ",", "|" or " " (columns aligned with spaces)
    width: int
    rate: int | None
    hosts: dict[str | None, dict[str, int]]
    rows: int = 0


@dataclass
class _Reader:
    seg: Segment
    out: Parsed = field(default_factory=Parsed)
    table: _Table | None = None
    warnings: list[str] = field(default_factory=list)


def _cells(line: str, sep: str) -> list[str]:
    """A line's cells, stripped (a pipe table's outer pipes are no cells).

    >>> _cells("|200|60.0| |", "|"), _cells("20\\t\\t1.0", "\\t"), _cells(" 20   1.0 ", " ")
    (['200', '60.0', ''], ['20', '', '1.0'], ['20', '1.0'])
    """
    if sep == " ":
        return line.split()
    if sep == "|":
        line = line.strip()
        line = line[1:] if line.startswith("|") else line
        line = line[:-1] if line.endswith("|") else line
    return [c.strip() for c in line.split(sep)]


def _separator(line: str) -> str:
    """The separator a header line uses: a TAB, a pipe, a comma, or spaces.

    >>> _separator("dem_req_rate\\treq_rate"), _separator("|dem_req_rate|req_rate|"), _separator("dem_req_rate  x")
    ('\\t', '|', ' ')
    """
    for sep in ("\t", "|", ","):
        if sep in line:
            return sep
    return " "


def _header(rd: _Reader, n: int, m: re.Match) -> bool | None:
    line = m.string
    sep = _separator(line)
    cells = _cells(line, sep)
    names = [_NAME_RE.match(c) for c in cells]
    if not all(names):
        return False  # a line that only begins like the header
    hosts: dict[str | None, dict[str, int]] = {}
    rate = None
    for i, name in enumerate(names):
        assert name is not None
        if name[1] == RATE.source:
            rate = i
        else:
            hosts.setdefault(name[2], {})[name[1]] = i
    rd.table = _Table(sep, len(cells), rate, hosts)
    return None


def _rule(rd: _Reader, n: int, m: re.Match) -> bool | None:
    if rd.table is None or rd.table.sep != "|" or rd.table.rows:
        return False
    return None


def _number(cell: str, rd: _Reader, n: int) -> float | None:
    if not cell:
        return None  # autobench writes nothing where httperf did not print the figure
    try:
        return float(cell)
    except ValueError:
        raise ParseError(
            f"autobench table: not a number: {cell!r}", source=rd.seg.source, line=rd.seg.line + n - 1
        ) from None


def _row(rd: _Reader, n: int, m: re.Match) -> bool | None:
    t = rd.table
    if t is None:
        return False
    cells = _cells(m.string, t.sep)
    if len(cells) != t.width:
        raise ParseError(
            f"autobench table: {len(cells)} cells where its header names {t.width}",
            source=rd.seg.source,
            line=rd.seg.line + n - 1,
            text=m.string,
        )
    values = [_number(c, rd, n) for c in cells]
    rate = values[t.rate] if t.rate is not None else None
    for host, cols in t.hosts.items():
        doc = {name: values[i] for name, i in cols.items() if values[i] is not None}
        run = _run(doc, host, rate, n)
        phases = [{"phase": "response", "mean_s": run["latency_mean_s"]}] if "latency_mean_s" in run else []
        rd.out.add_run(run, phases=phases)
    t.rows += 1
    return None


def _run(doc: dict[str, float], host: str | None, rate: float | None, n: int) -> dict:
    """One host's run at one rate from its cells (name -> number).

    >>> _run({"req_rate": 0.0, "con_rate": 11.1, "resp_time": 0.0, "errors": 101.0}, "h", 10.0, 2)["error_kind"]
    'no answer'
    """
    d: dict = {"tool": "autobench", "line": n, **({"host": host} if host else {}), **walk(doc, FIELDS, "runs")}
    if rate is not None:
        d[RATE.column] = rate
    if doc.get("errors") == NO_REPLY:
        d.update(requests=0, error=f"no reply (autobench's errors {NO_REPLY:g}: its mark for zero replies)",
                 error_kind=NO_ANSWER)  # fmt: skip
        return d
    samples = walk(doc, FIELDS, "rps")
    if any(samples.values()):  # all 0: no 5-s sample (httperf prints zeros)
        d.update(samples)
    d.update(walk(doc, FIELDS, "answered"))
    if d.get("errors_per_reply_pct") == 0 and "requests_attempted_per_s" in d:
        d["requests_per_s"] = d["requests_attempted_per_s"]  # no error: every request sent got its reply
    elif d.get("interval_requests_per_s_mean") is not None:
        d["requests_per_s"] = d["interval_requests_per_s_mean"]  # errors: the replies that came, per second
    return d


def _httperf(rd: _Reader, n: int, m: re.Match) -> None:
    if m[1].startswith("warning") and m[1] not in rd.warnings:
        rd.warnings.append(m[1])


def _zero(rd: _Reader, n: int, m: re.Match) -> None:
    return None  # autobench's stderr for a rate with no reply: its row says so (101)


#: The lines of a table and what may come between them (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("header", "dem_req_rate", _HEADER_RE, _header),
    LineKind("rule", "---", _RULE_RE, _rule),
    LineKind("row", "", _ROW_RE, _row),
    LineKind("httperf message", "httperf: ", _HTTPERF_RE, _httperf),
    LineKind("no reply", "Zero replies", _ZERO_RE, _zero),
]


def parse(seg: Segment) -> Parsed:
    """Read every autobench table in a segment (one run per row and host)."""
    rd = _Reader(seg)

    def blank_ends(n: int, line: str) -> str:
        if not line.strip():
            rd.table = None
        return line

    def ends(n: int, line: str) -> None:
        rd.table = None

    scan(seg.text, LINE_KINDS, rd, prepare=blank_ends, other=ends)
    if rd.warnings:
        for run in rd.out.runs:
            run["warnings"] = "; ".join(rd.warnings)
    return rd.out


def detect(text: str) -> bool:
    """True for a text holding autobench's header (``dem_req_rate`` then ``req_rate``), in any layout.

    >>> detect("|dem_req_rate|req_rate|con_rate|\\n|----|----|----|\\n"), detect("dem_req_rate is the rate")
    (True, False)
    """
    return "dem_req_rate" in text and bool(_DETECT_RE.search(text))


FORMATS = [
    Format(
        "autobench",
        "autobench",
        detect,
        parse,
        description="autobench results (TSV, CSV, or pasted as a Markdown table or in columns): one run per rate"
        " and host",
    )
]
