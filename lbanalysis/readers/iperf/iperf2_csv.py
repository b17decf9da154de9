"""iperf 2 CSV reports (``-y C``): one line per interval and per total, no header.

Format (iperf 2.1.8; TCP has 9 fields, UDP 14)::

    20261122125358,127.0.0.1,54092,127.0.0.1,18991,1,0.0-1.0,2381971516,19055772128
    20261122125359,127.0.0.1,54092,127.0.0.1,18991,1,0.0-2.0,4588568636,18188216130
    20261122125408,127.0.0.1,45710,127.0.0.1,18991,1,0.0-2.0,267540,1060176,0.005,0,182,0.000,0

=== ====================== ======================= =========================
#   field                  column                  unit
=== ====================== ======================= =========================
1   timestamp              ``timestamp`` (run: first line)  local time, YYYYMMDDHHMMSS
2,3 source address, port   ``local_*`` (client) / ``remote_*`` (server)
4,5 destination address, port  ``remote_*`` (client) / ``local_*`` (server)
6   transfer id            ``stream`` (-1 in 2.0.x: the [SUM] line)
7   interval a-b           ``start_s``, ``end_s``  s
8   bytes                  ``bytes``, ``bytes_total``  B (plain integer)
9   bits per second        ``bits_per_s``          bit/s (plain integer)
10  jitter                 ``jitter_s``            ms -> s (UDP)
11  lost datagrams         ``lost_packets``
12  total datagrams        ``total_packets``       (-1: not counted, 2.1 client total)
13  lost percent           ``lost_percent``        %
14  out of order           ``out_of_order``
=== ====================== ======================= =========================

The last line of a stream whose interval starts at 0 is its total; the
others are intervals. Rows are one run per flow as in the text reader
(:mod:`lbanalysis.readers.iperf.shared`). Streams are connections (id and
addresses); a new stream joins the current test while some stream of it has
not printed its total yet (tests with intervals), or, when every stream so
far printed a single line, if it reports the same interval within a second
(``-P`` totals); otherwise a new test starts.

The CSV does not say which side wrote it: the role comes from the command
line when the file is a transcript (``iperf -c ... -y C``), else it stays
empty. A UDP file whose total counts ``-1`` datagrams is a client's (the
sender; its jitter and loss columns are placeholders and are dropped);
otherwise UDP lines are the receiver's (a 2.0.x client appends the server's
report as a second total line). A TCP total of unknown role has
``direction`` empty.

Known defects: 2.1.8 prints no ``SUM`` line with ``-P``: the per-stream
totals are added up (``warnings`` says so); a 2.1.8 UDP client's total
line has ``-1`` datagrams and no server report; 2.1.8 servers write
``19700101000000`` timestamps (read as empty). Limitation: in a server's log
without intervals, back-to-back tests that report the same rounded interval
(``0.0-3.0``) cannot be told from the streams of one ``-P`` test (no SUM
line, no clock): they are added up as one test, with the warning.

Versions checked: 2.1.8 (captured TCP, UDP, -P, client and server), the
2.0.5 layout (9/14 fields, SUM lines with id -1).

>>> t = "20140505120506,10.0.0.1,39432,10.0.0.2,5001,3,0.0-10.0,1312710,1049974\\n"
>>> r = parse(Segment(t, command="iperf -c 10.0.0.2 -y C")).runs[0]
>>> r["role"], r["direction"], r["bits_per_s"], r["local_host"], r["remote_port"]
('client', 'sender', 1049974.0, '10.0.0.1', 5001)
"""

from __future__ import annotations

import re
from datetime import datetime

from ...errors import ParseError
from ...text import Segment
from ..base import Format, Parsed
from .shared import (
    Flow,
    Side,
    command_fields,
    flow_fields,
    in_range,
    parse_command,
    stream_total,
    strip_v4mapped,
    sum_sides,
)

_N = r"-?\d+(?:\.\d+)?"
_ROW_RE = re.compile(
    rf"^(?P<ts>\d{{14}}(?:\.\d+)?),(?P<sh>[^,]*),(?P<sp>\d+),(?P<dh>[^,]*),(?P<dp>\d+),(?P<id>-?\d+),"
    rf"(?P<start>{_N})-(?P<end>{_N}),(?P<bytes>-?\d+),(?P<bps>{_N})"
    rf"(?:,(?P<jit>{_N}),(?P<lost>-?\d+),(?P<tot>-?\d+),(?P<pct>{_N}|-?nan|inf),(?P<ooo>-?\d+))?"
    r"(?:,[^\n]*)?$"
)


def detect(text: str) -> bool:
    """True when the first non-blank lines are iperf 2 ``-y C`` records.

    >>> detect("20261122125358,127.0.0.1,54092,127.0.0.1,18991,1,0.0-1.0,2381971516,19055772128\\n")
    True
    >>> detect("a,b,c\\n")
    False
    """
    seen = 0
    for line in text.split("\n", 6)[:6]:
        s = line.strip()
        if not s:
            continue
        if not _ROW_RE.match(s):
            return seen > 0 and seen >= 3
        seen += 1
    return seen > 0


def _when(ts: str) -> datetime | None:
    """Local time of a record; 2.1.8 servers write 19700101000000 (no clock): None."""
    try:
        when = datetime.strptime(ts[:14], "%Y%m%d%H%M%S")
    except ValueError:
        return None
    return None if when.year <= 1970 else in_range(when)


class _Test:
    def __init__(self, line: int):
        self.line = line
        self.streams: dict[str, list[tuple[Side, dict]]] = {}
        self.conn: dict[str, tuple] = {}
        self.order: list[str] = []
        self.timestamp: datetime | None = None
        self.udp = False
        self.role: str | None = None  # from the command line

        self.last: tuple[float, float, datetime | None] | None = None  # (start, end, time) of the last line

    def takes(self, key: str, conn: tuple, start: float, end: float, when: datetime | None) -> bool:
        """Whether a line of stream ``key`` belongs to this test (see the module docstring)."""
        if key == "SUM" or not self.order:
            return True
        if key in self.conn:
            return self.conn[key] == conn
        if any(len(r) >= 2 for r in self.streams.values()):
            # a test with intervals: a new stream joins until every stream printed its total
            return not all(r[-1][0].start == 0 for k, r in self.streams.items() if k != "SUM")
        # only single lines so far: -P streams report the same interval at the same time
        assert self.last is not None
        s0, e0, t0 = self.last
        if (start, end) != (s0, e0):
            return False
        return t0 is None or when is None or abs((when - t0).total_seconds()) <= 1


def _own_side(t: _Test, role: str | None, reverse: bool, protocol: str) -> str | None:
    """Which side's figures this file holds: "sender", "receiver", or None when it cannot tell."""
    own = None if role is None else ("sender" if (role == "client") != reverse else "receiver")
    if protocol == "udp" and own is None:
        # a UDP client's own total counts no datagrams (-1); every line of a server has them
        # (2.0.x: its lines without the five UDP fields)
        sides = [side for rows in t.streams.values() for side, _ in rows]
        client = any(x.total_packets is None or x.total_packets < 0 for x in sides)
        own = "sender" if client else "receiver"
    return own


def _stream_totals(t: _Test, key: str, sides: list[Side], own: str | None, flow: Flow) -> None:
    """A stream's own total (and the peer's report after it) as streams-table rows, with its ports."""
    conn = t.conn.get(key)
    ports: dict = {}
    if conn:  # as _endpoints: the source is the local side, except on a server
        ports = (
            {"local_port": conn[3], "remote_port": conn[1]}
            if t.role == "server"
            else {"local_port": conn[1], "remote_port": conn[3]}
        )
    other = {"sender": "receiver", "receiver": "sender"}.get(own or "")
    for side, direction in zip(sides, (own, other), strict=False):
        if own == "sender" and direction == own and t.udp:  # a UDP sender's loss columns are placeholders
            side = Side(start=side.start, end=side.end, bytes=side.bytes, bits_per_s=side.bits_per_s)
        flow.totals.append(stream_total(key, direction, side, **ports))


def _intervals_and_totals(t: _Test, own: str | None, flow: Flow) -> dict[str, list[Side]]:
    """Each stream's interval lines into ``flow``; returns its total lines (own total, then a peer report)."""
    totals: dict[str, list[Side]] = {}
    for key in t.order:
        rows = t.streams[key]
        n_tot = 1 if rows[-1][0].start == 0 else 0
        if n_tot and len(rows) >= 2 and rows[-2][0].start == 0:
            last, prev = rows[-1][0], rows[-2][0]
            if (last.total_packets or -1) >= 0 and (prev.total_packets is None or prev.total_packets < 0):
                n_tot = 2  # 2.0.x UDP client: its own total, then the server's report
        totals[key] = [r[0] for r in rows[len(rows) - n_tot :]]
        if key != "SUM":
            _stream_totals(t, key, totals[key], own, flow)
        for side, extra in rows[: len(rows) - n_tot]:
            iv = {"stream": key, "start_s": side.start, "end_s": side.end, "bytes": side.bytes,
                  "bits_per_s": side.bits_per_s, **extra}  # fmt: skip
            if own == "sender":  # a sender's jitter and loss columns are placeholders
                iv.pop("jitter_s", None)
                iv.pop("lost_packets", None)
            if own:
                iv["direction"] = own
            flow.intervals.append(iv)
    return totals


def _test_totals(totals: dict[str, list[Side]], ids: list[str], notes: list[str]) -> tuple[Side | None, Side | None]:
    """(own-side total, peer report) of the test: the SUM line, the one stream's, or the streams' added up."""

    def pick(key: str) -> tuple[Side | None, Side | None]:
        ts = totals.get(key) or []
        if len(ts) == 2:
            return ts[0], ts[1]
        return (ts[0], None) if ts else (None, None)

    if "SUM" in totals:
        return pick("SUM")
    if len(ids) == 1:
        return pick(ids[0])
    if ids and all(totals.get(i) for i in ids):
        parts = [pick(i) for i in ids]
        reps = [p[1] for p in parts if p[1] is not None]
        notes.append("no SUM line: per-stream totals added up")
        return sum_sides([p[0] for p in parts if p[0] is not None]), (sum_sides(reps) if reps else None)
    return None, None


def _set_totals(flow: Flow, mine: Side | None, report: Side | None, own: str | None, protocol: str) -> None:
    """The totals as the flow's sender and receiver sides (a UDP sender's loss figures are placeholders)."""
    if mine is None:
        return
    if protocol == "udp" and own == "sender":
        if mine.total_packets is None or mine.total_packets < 0:
            mine.total_packets = None
        mine.jitter_s = mine.lost_packets = mine.lost_percent = mine.out_of_order = None
    if own == "sender":
        flow.sender = mine
    else:
        flow.receiver = mine
    if report is not None:
        flow.receiver = report


def _endpoints(row: dict, conn: tuple | None, role: str | None) -> None:
    """Local and remote host and port, from the first stream's connection, as seen by this side."""
    if not conn:
        return
    sh, sp, dh, dp = conn
    local, remote = ((dh, dp), (sh, sp)) if role == "server" else ((sh, sp), (dh, dp))
    row["local_host"], row["local_port"], row["remote_host"], row["remote_port"] = *local, *remote


def _finish(t: _Test, cmd: dict) -> tuple[dict, list[dict], list[dict]]:
    role = cmd.get("role")
    protocol = "udp" if t.udp else (cmd.get("protocol") or "tcp")
    row: dict = {"tool": "iperf", "line": t.line, "protocol": protocol}
    for k in ("host", "port", "time_limit_s", "concurrency", "reverse"):
        if cmd.get(k) is not None:
            row[k] = cmd[k]
    if role:
        row["role"] = role
    if t.timestamp:
        row["timestamp"] = t.timestamp
    reverse = bool(cmd.get("reverse"))
    t.role = role
    own = _own_side(t, role, reverse, protocol)
    flow = Flow(reverse=reverse)
    ids = [k for k in t.order if k != "SUM"]
    flow.streams.update(ids)
    totals = _intervals_and_totals(t, own, flow)
    notes: list[str] = []
    mine, report = _test_totals(totals, ids, notes)
    _set_totals(flow, mine, report, own, protocol)
    row["reverse"] = reverse
    row["streams"] = len(ids) or None
    first = min(ids, key=lambda s: int(s)) if ids else None
    _endpoints(row, t.conn.get(first) if first else None, role)
    figures, more = flow_fields(flow, protocol)
    if figures and own is None and protocol != "udp":
        figures["direction"] = None
    row.update(figures)
    notes += more
    if not figures:
        row["error"] = "no total line (run interrupted?)"
    if notes:
        row["warnings"] = "; ".join(notes)
    return row, flow.intervals, flow.totals


def parse(seg: Segment) -> Parsed:
    """Read iperf 2 ``-y C`` records (several tests may follow each other)."""
    cmd = command_fields(parse_command(seg.command)) if seg.command else {}
    tests: list[_Test] = []
    cur: _Test | None = None
    for n, raw in enumerate(seg.text.split("\n"), start=1):
        s = raw.strip()
        if not s:
            continue
        m = _ROW_RE.match(s)
        if not m:
            if cur is None:
                raise ParseError("expected an iperf -y C record", source=seg.source, line=seg.line - 1 + n, text=s)
            continue  # trailing noise (a prompt, rc=0)
        sid = m.group("id")
        key = "SUM" if sid.startswith("-") else sid
        conn = (strip_v4mapped(m.group("sh")), int(m.group("sp")), strip_v4mapped(m.group("dh")), int(m.group("dp")))
        start, end = float(m.group("start")), float(m.group("end"))
        when = _when(m.group("ts"))
        if cur is None or not cur.takes(key, conn, start, end, when):
            cur = _Test(n)
            tests.append(cur)
        cur.last = (start, end, when)
        if cur.timestamp is None:
            cur.timestamp = when
        if key != "SUM":
            cur.conn.setdefault(key, conn)
        side = Side(
            start=start,
            end=end,
            bytes=float(m.group("bytes")),
            bits_per_s=float(m.group("bps")),
        )
        extra: dict = {}
        if m.group("jit") is not None:
            cur.udp = True
            side.jitter_s = float(m.group("jit")) / 1000.0
            side.lost_packets = int(m.group("lost"))
            side.total_packets = int(m.group("tot"))
            pct = m.group("pct")
            side.lost_percent = float("nan") if "nan" in pct else float(pct)
            side.out_of_order = int(m.group("ooo"))
            if side.total_packets >= 0:
                extra = {
                    "jitter_s": side.jitter_s,
                    "lost_packets": side.lost_packets,
                    "total_packets": side.total_packets,
                }
        if key not in cur.streams:
            cur.streams[key] = []
            cur.order.append(key)
        cur.streams[key].append((side, extra))
    out = Parsed()
    for t in tests:
        row, ivs, totals = _finish(t, cmd)
        out.add_run(row, intervals=ivs, streams=totals)
    if not out.runs:
        raise ParseError("no iperf -y C record found", source=seg.source, line=seg.line)
    return out


FORMATS = [
    Format("iperf2-csv", "iperf", detect, parse, whole_file=True, description="iperf 2 -y C CSV reports (TCP and UDP)")
]

__all__ = ["FORMATS", "detect", "parse"]
