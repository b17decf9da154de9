"""iperf 2 text output (2.0.x and 2.1.x), client and server side.

Format (iperf 2.1.8 client, ``-P 2``; 2.0.x prints ``[  3]  0.0- 1.0 sec``)::

    ------------------------------------------------------------
    Client connecting to 127.0.0.1, TCP port 18991
    TCP window size: 16.0 KByte (default)
    ------------------------------------------------------------
    [  1] local 127.0.0.1 port 33656 connected with 127.0.0.1 port 18991 (icwnd/mss/irtt=319/32741/10)
    [  2] local 127.0.0.1 port 33666 connected with 127.0.0.1 port 18991 (icwnd/mss/irtt=319/32741/14)
    [ ID] Interval       Transfer     Bandwidth
    [  2] 0.0000-1.0000 sec  1.73 GBytes  14.9 Gbits/sec
    [  1] 0.0000-1.0000 sec  1.87 GBytes  16.1 Gbits/sec
    [SUM] 0.0000-1.0000 sec  3.61 GBytes  31.0 Gbits/sec
    [  1] 0.0000-2.0118 sec  3.99 GBytes  17.0 Gbits/sec
    [  2] 0.0000-2.0125 sec  3.93 GBytes  16.8 Gbits/sec
    [SUM] 0.0000-2.0030 sec  7.92 GBytes  34.0 Gbits/sec

UDP adds, on the client, ``[  1] Sent 183 datagrams``, ``[  1] Server Report:``
and the server's figures; on the server every line carries them::

    [ ID] Interval       Transfer     Bandwidth        Jitter   Lost/Total Datagrams
    [  1] 0.0000-2.0191 sec   261 KBytes  1.06 Mbits/sec   0.002 ms 0/182 (0%)
    [  3]  0.0-10.0 sec  1 datagrams received out-of-order

============================ ======================= ============================
printed                      column                  unit
============================ ======================= ============================
Interval a-b sec             ``start_s``, ``end_s``; b-a = ``duration_s``   s
Transfer                     ``bytes``, ``bytes_total``  B, binary: 1 MByte = 2^20 B
Bandwidth                    ``bits_per_s``          bit/s, decimal: 1 Mbit = 10^6 bit
(-f M: MBytes/sec)           ``bits_per_s``          x 8, binary bytes
Jitter                       ``jitter_s``            ms printed, stored in s
Lost/Total Datagrams         ``lost_packets``, ``total_packets``, ``lost_percent`` (%)
datagrams received out-of-order ``out_of_order`` (0 when a receiver's loss figures are
                             printed without it: iperf prints it only when non-zero)
Sent N datagrams             ``total_packets`` (when no Server Report)
-e: Write/Err Rtry Cwnd/RTT  ``retransmits``, ``cwnd_bytes`` (K = 1024 B), ``rtt_s`` (us printed)
local/connected with         ``local_host``/``local_port``, ``remote_host``/``remote_port``
-e: ``on 2026-11-22 12:53:39 (UTC)`` ``timestamp``
============================ ======================= ============================

Rows: one run row per flow (see :mod:`lbanalysis.readers.iperf.shared`). The
last line of a stream whose interval starts at 0 is its total (the
summary, and a ``streams`` table row with its ``-e`` cwnd and RTT); every
other line is an interval. ``rtt_mean_s`` is the mean of the streams'
total-line RTTs. ``[SUM]`` gives the figures
with ``-P``; without a ``[SUM]`` total the per-stream totals are added up
(noted in ``warnings``). A TCP client's total is the sender's, a server's
the receiver's; ``-R`` (``[ *1]`` ids, ``(reverse)`` on the connect line)
swaps them. A server log holding several connections gives one test per
connection (or per group of ``-P`` connections). Full-duplex and dual tests
(``--full-duplex``, ``-d``: ``[ *1]`` ids, or a connection to the client's
own listener) give one row per direction, and their ``[SUM]`` (both
directions added) is not used; ``--sum-only`` prints ``[SUM-3]`` lines only
(``streams`` = 3).

Known defects of real files: runs killed before their total (hundreds of
``0.00 Bytes  0.00 bits/sec`` intervals, no summary: ``error`` "no summary
line (run interrupted?)", intervals kept); a banner with no data (a UDP
server that never got a client: ``error`` "no data"); bare interval lines
without a header, a BOM and CRLF (read, role unknown); ``tcp connect
failed: Connection refused`` (``error``; the dummy ``local 0.0.0.0 port 0``
line that follows is ignored); ``TCP window size: ... (WARNING: requested
...)`` (``warnings``); connect lines printed by another thread before the
client banner; a 2.1.8 server ``[SUM]`` spanning two tests of the same
client (a one-stream test keeps its own total); a UDP client without a
server repeats ``read failed`` (kept once in ``warnings``). A single line starting at 0 is taken as the total,
even when the run was killed after its first interval.

Versions checked: 2.1.8 (Debian 12, captured: TCP, UDP, -P, -R, -e, -f),
2.0.x outputs of the public corpus (mininet, 2015).

>>> t = '''------------------------------------------------------------
... Client connecting to 10.0.0.2, TCP port 5001
... TCP window size: 85.0 KByte (default)
... ------------------------------------------------------------
... [  3] local 10.0.0.1 port 56591 connected with 10.0.0.2 port 5001
... [ ID] Interval       Transfer     Bandwidth
... [  3]  0.0- 1.0 sec  20.0 MBytes   168 Mbits/sec
... [  3]  1.0- 2.0 sec  19.0 MBytes   159 Mbits/sec
... [  3]  0.0- 2.0 sec  39.0 MBytes   163 Mbits/sec
... '''
>>> p = parse(Segment(t))
>>> r = p.runs[0]
>>> r["role"], r["direction"], r["bits_per_s"], r["bytes_total"] == 39 * 2**20, len(p.tables["intervals"])
('client', 'sender', 163000000.0, True, 2)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from ...text import Segment
from ..base import Format, LineKind, Parsed, scan
from .shared import (
    AMOUNT,
    NUM,
    RATE,
    Flow,
    Side,
    amount_m,
    bare_host,
    command_fields,
    flow_fields,
    in_range,
    ms,
    number,
    parse_command,
    rate_m,
    stream_total,
    strip_v4mapped,
    sum_sides,
)

_ID = r"\[\s*(?P<star>\*?)\s*(?P<id>\d+|SUM(?:-\d+)?)\]"
_DATA_RE = re.compile(rf"{_ID}\s+(?P<start>{NUM})\s*-\s*(?P<end>{NUM})\s+sec\s+{AMOUNT}\s+{RATE}(?P<rest>.*)$")
_UDP_RE = re.compile(rf"(?:(?P<jit>{NUM})\s+ms\s+)?(?P<lost>-?\d+)\s*/\s*(?P<tot>-?\d+)\s+\((?P<pct>[^)%]*)%\)")
_ENH_RE = re.compile(
    r"^\s+(?P<writes>\d+)/(?P<errs>\d+)\s+(?P<retr>\d+)(?!\s*pps)"
    r"(?:\s+(?P<cwnd>-?\d+)K/(?:(?P<rtt>\d+)(?:\(\d+\))?\s*us)?)?"
)
_CLIENT_RE = re.compile(r"Client connecting to (?P<host>\S+?), (?P<proto>TCP|UDP|SCTP) port (?P<port>\d+)")
_SERVER_RE = re.compile(r"Server listening on (?P<proto>TCP|UDP|SCTP) port (?P<port>\d+)")
_CONN_RE = re.compile(
    rf"{_ID}\s+local (?P<lh>\S+) port (?P<lp>\d+) connected with (?P<rh>\S+) port (?P<rp>\d+)(?P<rest>.*)$"
)
_WHEN_RE = re.compile(r"\son (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)")
_SENT_RE = re.compile(rf"{_ID}\s+Sent (?P<n>\d+) datagrams")
_REPORT_RE = re.compile(rf"{_ID}\s+Server Report:")
_OOO_RE = re.compile(rf"{_ID}\s+{NUM}\s*-\s*{NUM}\s+sec\s+(?P<n>\d+)\s+datagrams received out-of-order")
_HEADER_RE = re.compile(r"\[ ID\]\s+Interval\s+Transfer\s+Bandwidth(?P<cols>.*)$")
_VERSION_RE = re.compile(r"iperf version (2\.[\w.+-]*)")
_FAIL_RE = re.compile(
    r"^(?:(?:tcp|udp) )?(?:connect|write|read|recv|send|shutdown)\w* failed: .*|"
    r"^(?:\[\s*\*?\d+\]\s+)?WARNING: did not receive ack of last datagram.*|^error: .*|^.*: Name or service not known.*|"
    r"^(?:tcp |udp )?connect(?:ion)? timed out.*"
)
_MSG_RE = re.compile(r"^iperf: (.*)$")
_WARN_RE = re.compile(r"^(?:TCP window size: .*\(WARNING: .*\)|WARN(?:ING)?: .*)$")

_HINTS2 = ("iperf: ", "connect failed", "Client connecting to", "Server listening on", " connected with ", " sec ")
_MARK_RE = re.compile(
    r"^iperf: |^(?:tcp |udp )?connect failed: |Client connecting to \S+, (?:TCP|UDP|SCTP) port|Server listening on (?:TCP|UDP|SCTP) port|"
    r"local \S+ port \d+ connected with \S+ port \d+|"
    rf"^\s*\[\s*\*?\s*(?:\d+|SUM)\]\s+\d+\.\d(?:\d{{3}})?\s*-\s*\d+\.\d(?:\d{{3}})?\s+sec\s+{AMOUNT}\s+{RATE}",
    re.MULTILINE,
)


def detect(text: str) -> bool:
    """True when text looks like iperf 2 text output.

    >>> detect("[  3]  0.0- 1.0 sec  2.00 MBytes  16.8 Mbits/sec\\n")
    True
    >>> detect("Server listening on UDP port 5001\\n"), detect("Connecting to host x, port 5201\\n")
    (True, False)
    """
    if not any(k in text for k in _HINTS2):  # cheap guard before the position-by-position regex
        return False
    return _MARK_RE.search(text) is not None


@dataclass
class _Entry:
    side: Side
    extra: dict
    enhanced_sender: bool  # -e Write/Err columns: the sending side printed it


@dataclass
class _Test2:
    line: int
    role: str | None = None
    host: str | None = None
    port: int | None = None
    protocol: str | None = None
    version: str | None = None
    timestamp: datetime | None = None
    conns: dict = field(default_factory=dict)  # id -> (lh, lp, rh, rp)
    reverse_ids: set = field(default_factory=set)  # ids whose connection is reversed (-R, -d back-connection)
    sum_count: int | None = None  # --sum-only: [SUM-3]
    lines: dict = field(default_factory=dict)  # id -> [_Entry]
    order: list = field(default_factory=list)  # ids in order of appearance
    sent: dict = field(default_factory=dict)
    reports: dict = field(default_factory=dict)  # id -> Side (client: the server's report)
    report_next: set = field(default_factory=set)
    ooo: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    header_cols: str = ""

    def has_data(self) -> bool:
        return bool(self.lines or self.reports)

    def has_content(self) -> bool:
        return bool(self.lines or self.reports or self.conns or self.errors or self.host)


def _sid(m: re.Match) -> str:
    """Stream key: the id, ``*`` first for the reverse half of a full-duplex/-R test, ``SUM``."""
    i = m.group("id")
    if i.startswith("SUM"):
        return "SUM"
    return ("*" if m.group("star") else "") + i


def _entry(m: re.Match, protocol: str | None) -> _Entry:
    s = Side(start=number(m.group("start")), end=number(m.group("end")), bytes=amount_m(m), bits_per_s=rate_m(m))
    rest = m.group("rest")
    extra: dict = {}
    u = _UDP_RE.search(rest) if "%)" in rest else None
    if u:
        if u.group("jit") is not None:
            s.jitter_s = ms(u.group("jit"))
        s.lost_packets = int(u.group("lost"))
        s.total_packets = int(u.group("tot"))
        try:
            s.lost_percent = number(u.group("pct").strip())
        except ValueError:
            pass
        return _Entry(s, extra, False)
    e = _ENH_RE.match(rest)
    if e and protocol != "udp":
        s.retransmits = int(e.group("retr"))
        if e.group("cwnd") and int(e.group("cwnd")) >= 0:
            extra["cwnd_bytes"] = float(e.group("cwnd")) * 1024.0
        if e.group("rtt"):
            extra["rtt_s"] = float(e.group("rtt") + "e-6")  # printed in us
        return _Entry(s, extra, True)
    return _Entry(s, extra, bool(re.match(r"^\s+\d+/\d+\s", rest)))


def _is_total(entries: list[_Entry]) -> bool:
    """The last line of a stream is its total when its interval starts at 0."""
    last = entries[-1].side
    return last.start is not None and abs(last.start) < 1e-9


def _interval_row(sid: str, e: _Entry) -> dict:
    s = e.side
    row = {"stream": sid, "start_s": s.start, "end_s": s.end, "bytes": s.bytes, "bits_per_s": s.bits_per_s}
    figures = vars(s)  # (a loop over the names: the most lines of a file are intervals)
    for k in ("retransmits", "jitter_s", "lost_packets", "total_packets", "lost_percent"):
        v = figures[k]
        if v is not None:
            row[k] = v
    row.update(e.extra)
    return row


def _ports(t: _Test2, sid: str) -> dict:
    """A stream's local and remote port, from its connection line."""
    conn = t.conns.get(sid.lstrip("*"))
    return {"local_port": conn[1], "remote_port": conn[3]} if conn else {}


def _join(msgs: list[str]) -> str:
    """Messages joined once each (a UDP client may print the same failure ten times)."""
    return "; ".join(dict.fromkeys(msgs))


def _protocol(t: _Test2, cmd: dict) -> str | None:
    """TCP or UDP: as printed, else from the command, else from the columns a UDP test prints."""
    protocol = t.protocol or cmd.get("protocol")
    if protocol is None and (
        "Jitter" in t.header_cols or any(e.side.jitter_s is not None for es in t.lines.values() for e in es)
    ):
        protocol = "udp"
    if protocol is None and t.has_data():
        protocol = "tcp"
    return protocol


def _base_row(t: _Test2, role: str | None, protocol: str | None, cmd: dict) -> dict:
    """The fields every run row of a test shares: the command's, then what the output printed."""
    base: dict = {"tool": "iperf", "line": t.line}
    for k in ("host", "port", "time_limit_s", "concurrency"):
        if cmd.get(k) is not None:
            base[k] = cmd[k]
    for k, v in (("role", role), ("protocol", protocol), ("host", t.host), ("port", t.port)):
        if v is not None:
            base[k] = v
    if t.version:
        base["tool_version"] = t.version
    if t.timestamp:
        base["timestamp"] = t.timestamp
    return base


def _no_data_row(t: _Test2, base: dict, cmd: dict) -> dict:
    """The run row of a test that printed no figures: its error and warnings."""
    row = dict(base)
    if cmd.get("reverse") is not None:
        row["reverse"] = cmd["reverse"]
    row["error"] = _join(t.errors) or "no data"
    if t.warnings:
        row["warnings"] = _join(t.warnings)
    return row


def _reverse_of(t: _Test2, role: str | None, cmd: dict) -> Callable[[str], bool]:
    """Whether a stream key's data flows from server to client (``*`` ids, reversed connections, ``-R``)."""
    cmd_rev = bool(cmd.get("reverse"))
    explicit = bool(t.reverse_ids) or any(k.startswith("*") for k in t.order)

    def rev_of(key: str) -> bool:
        if key.startswith("*") or key in t.reverse_ids:
            return True
        return cmd_rev and role == "client" and not explicit

    return rev_of


def _own_side(t: _Test2, role: str | None, reverse: bool, keys: list[str]) -> str | None:
    """Which side printed a flow's lines: sender or receiver; None when neither role nor columns tell."""
    if role is not None:
        return "sender" if (role == "client") != reverse else "receiver"
    entries = [e for sid in keys for e in t.lines.get(sid, [])]
    if any(e.side.jitter_s is not None for e in entries):
        return "receiver"
    if any(e.enhanced_sender for e in entries):
        return "sender"
    return None


def _split_totals(t: _Test2, keys: list[str], own: str | None, flow: Flow) -> dict[str, Side]:
    """Each stream's total line (its last, when it starts at 0); the other lines become ``flow`` intervals.

    Each stream's own total (not [SUM]) also goes to ``flow.totals`` (the streams table).
    """
    totals: dict[str, Side] = {}
    for sid in keys:
        es = t.lines.get(sid, [])
        if not es:
            continue
        if _is_total(es):
            totals[sid] = es[-1].side
            if sid != "SUM":
                sent = t.sent.get(sid) if own == "sender" else None  # '[  1] Sent 1342 datagrams'
                flow.totals.append(
                    stream_total(
                        sid.lstrip("*"), own, es[-1].side, total_packets=sent, **es[-1].extra, **_ports(t, sid)
                    )
                )
            es = es[:-1]
        for e in es:
            flow.intervals.append({**_interval_row(sid.lstrip("*"), e), "direction": own})
    return totals


def _flow_total(ids: list[str], totals: dict[str, Side], notes: list[str]) -> Side | None:
    """The flow's total: one stream's own, the [SUM] line, or the streams' totals added up (noted)."""
    if len(ids) == 1:
        # one stream: its own total (a 2.1.8 server may print a [SUM] spanning two tests)
        return totals.get(ids[0], totals.get("SUM"))
    if "SUM" in totals:
        total = totals["SUM"]
        jit = [totals[i].jitter_s for i in ids if i in totals and totals[i].jitter_s is not None]
        if total.jitter_s is None and jit:
            total.jitter_s = max(jit)  # iperf 2's [SUM] prints no jitter: the worst stream's, as when adding up
        return total
    if ids and all(i in totals for i in ids):
        notes.append("no [SUM] total: per-stream totals added up")
        return sum_sides([totals[i] for i in ids])
    return None


def _add_total(t: _Test2, ids: list[str], own: str | None, total: Side, flow: Flow) -> None:
    """The printing side's total, with the datagrams it sent or the out-of-order ones it received."""
    if own == "sender" and ids and any(i in t.sent for i in ids):
        total.total_packets = sum(t.sent.get(i, 0) for i in ids)
    if own == "receiver" and any(i in t.ooo for i in [*ids, "SUM"]):
        total.out_of_order = sum(t.ooo.get(i, 0) for i in [*ids, "SUM"])
    elif own == "receiver" and total.lost_packets is not None:
        total.out_of_order = 0  # printed after the loss figures, and only when non-zero
    if own == "sender":
        flow.sender = total
    else:
        flow.receiver = total


def _add_report(t: _Test2, ids: list[str], own: str | None, flow: Flow, notes: list[str]) -> None:
    """The other side's figures from a UDP ``Server Report`` ([SUM], one stream's, or added up)."""
    reps = [t.reports["SUM"]] if "SUM" in t.reports else [t.reports[i] for i in ids if i in t.reports]
    if not reps:
        return
    rep = reps[0] if len(reps) == 1 else sum_sides(reps)
    if len(reps) > 1:
        notes.append("no [SUM] server report: per-stream reports added up")
    if any(i in t.ooo for i in ids):
        rep.out_of_order = sum(t.ooo.get(i, 0) for i in ids)
    elif rep.lost_packets is not None:
        rep.out_of_order = 0  # printed after the report, and only when non-zero
    if len(ids) > 1:
        other = "receiver" if own == "sender" else "sender"
        for i in ids:
            if i in t.reports:
                r = t.reports[i]
                ooo = t.ooo.get(i, 0 if r.lost_packets is not None else None)
                flow.totals.append(stream_total(i.lstrip("*"), other, r, out_of_order=ooo, **_ports(t, i)))
    if own == "sender":
        flow.receiver = rep
    else:
        flow.sender = flow.sender or rep


def _flow_row(
    t: _Test2, base: dict, protocol: str | None, ids: list[str], own: str | None, flow: Flow, notes: list[str]
) -> dict:
    """The run row of one flow: streams, endpoints, figures, and its error or warnings."""
    row = dict(base)
    row["reverse"] = flow.reverse
    row["streams"] = len(ids) or t.sum_count
    first = min((i.lstrip("*") for i in ids), key=int) if ids else None
    conn = t.conns.get(first) or next(iter(t.conns.values()), None)
    if conn:
        row["local_host"], row["local_port"], row["remote_host"], row["remote_port"] = conn
    figures, more = flow_fields(flow, protocol)
    if figures and own is None:
        figures["direction"] = None
    row.update(figures)
    notes = t.warnings + notes + more
    if not figures:
        msg = _join(t.errors)
        row["error"] = f"{msg} (no summary line)" if msg else "no summary line (run interrupted?)"
    elif t.errors:
        notes = t.errors + notes
    if notes:
        row["warnings"] = _join(notes)
    return row


def _finish(t: _Test2, cmd: dict) -> list[tuple[dict, list[dict], list[dict]]]:
    """Run rows (with their interval and stream-total rows) of one test: one per direction of data."""
    role = t.role or cmd.get("role")
    protocol = _protocol(t, cmd)
    base = _base_row(t, role, protocol, cmd)
    if not t.has_data():
        return [(_no_data_row(t, base, cmd), [], [])]
    rev_of = _reverse_of(t, role, cmd)
    directions = list(dict.fromkeys(rev_of(key) for key in t.order if key != "SUM"))
    if not directions:
        directions = [bool(cmd.get("reverse")) or bool(t.reverse_ids)]
    # [SUM] adds both directions up in full-duplex and dual tests: only used with one flow.
    use_sum = len(directions) == 1 and "SUM" in t.lines
    out = []
    for k in directions:
        ids = [key for key in t.order if key != "SUM" and rev_of(key) == k]
        keys = ids + (["SUM"] if use_sum else [])
        own = _own_side(t, role, k, keys)
        flow = Flow(reverse=k)
        flow.streams.update(i.lstrip("*") for i in ids)
        totals = _split_totals(t, keys, own, flow)
        notes: list[str] = []
        total = _flow_total(ids, totals, notes)
        if total is not None:
            _add_total(t, ids, own, total, flow)
        _add_report(t, ids, own, flow, notes)
        out.append((_flow_row(t, base, protocol, ids, own, flow, notes), flow.intervals, flow.totals))
    return out


# ---------------------------------------------------------------- tests ---
def _starts_test(kind: str, cur: _Test2 | None) -> bool:
    """Whether a line of ``kind`` begins a new test rather than continuing ``cur``.

    The one place that decides where a test starts: a connection after data
    (a server's next client), a client or server banner after content.

    >>> _starts_test("data", None), _starts_test("data", _Test2(line=1))
    (True, False)
    >>> _starts_test("server", _Test2(line=1, host="h"))
    True
    """
    if cur is None:
        return True
    if kind == "connected":
        return cur.has_data() and cur.role != "client"
    if kind == "client":
        # connect lines printed before the banner by another thread belong to this test
        stray = cur.role is None and cur.conns and not cur.has_data() and not cur.errors
        return cur.has_content() and not stray
    if kind == "server":
        return cur.has_content()
    return False  # data, header, failures and warnings go to the current test


def _carried(kind: str, cur: _Test2 | None) -> dict:
    """What a new test started by a line of ``kind`` keeps of the test before (a server's next client)."""
    if kind != "connected" or cur is None:
        return {}
    return {"role": cur.role, "protocol": cur.protocol, "port": cur.port}


def _conn_time(rest: str) -> datetime | None:
    """The ``on 2024-01-02 10:11:12`` time a 2.1 connection line ends with."""
    w = _WHEN_RE.search(rest)
    if w:
        try:
            return in_range(datetime.fromisoformat(w.group(1)))
        except ValueError:
            pass
    return None


class _Reader:
    """The tests of one segment, built line by line: one handler per line kind (see :data:`LINE_KINDS`).

    Handlers are called as ``handler(reader, n, m)`` (:func:`~lbanalysis.readers.base.scan`); the
    match's ``string`` is the line, stripped.
    """

    def __init__(self, cmd: dict) -> None:
        self.cmd = cmd
        self.tests: list[_Test2] = []
        self.cur: _Test2 | None = None
        self.version: str | None = None
        self.listen_port: int | None = None  # a client's own listener (-d, -r)
        self.pending: list[str] = []

    def test_for(self, kind: str, n: int) -> _Test2:
        """The test a line of ``kind`` belongs to: the current one, or one it starts."""
        if _starts_test(kind, self.cur):
            self.cur = _Test2(line=n, version=self.version, **_carried(kind, self.cur))
            self.tests.append(self.cur)
        assert self.cur is not None
        return self.cur

    def data(self, n: int, m: re.Match) -> None:
        t = self.test_for("data", n)
        sid = _sid(m)
        if sid == "SUM" and m.group("id") != "SUM":
            t.sum_count = int(m.group("id")[4:])
        e = _entry(m, t.protocol or self.cmd.get("protocol"))
        if sid in t.report_next:
            t.report_next.discard(sid)
            t.reports[sid] = e.side
            return
        if sid not in t.lines:
            t.lines[sid] = []
            t.order.append(sid)
        t.lines[sid].append(e)

    def out_of_order(self, n: int, m: re.Match) -> None:
        if self.cur is not None:
            self.cur.ooo[_sid(m)] = int(m.group("n"))

    def connected(self, n: int, m: re.Match) -> None:
        t = self.test_for("connected", n)
        sid, lp, rp, rest = m.group("id"), int(m.group("lp")), int(m.group("rp")), m.group("rest")
        if lp == 0:  # the dummy line after a failed connect
            return
        if "(reverse)" in rest and not m.group("star"):
            t.reverse_ids.add(sid)
        if t.role == "client" and lp in (self.listen_port, t.port) and rp != t.port:
            t.reverse_ids.add(sid)  # -d/-r: the server connected back to our listener
        lh, rh = strip_v4mapped(bare_host(m.group("lh"))), strip_v4mapped(bare_host(m.group("rh")))
        t.conns.setdefault(sid, (lh, lp, rh, rp))
        if t.timestamp is None:
            t.timestamp = _conn_time(rest)

    def client(self, n: int, m: re.Match) -> None:
        cur = self.cur
        if cur is not None and cur.role == "server" and cur.conns and not cur.has_data():
            return  # a server of a dual test connecting back to the client
        t = self.test_for("client", n)
        t.role, t.host, t.port = "client", m.group("host"), int(m.group("port"))
        t.protocol = m.group("proto").lower()

    def server(self, n: int, m: re.Match) -> None:
        t = self.test_for("server", n)
        t.role, t.port, t.protocol = "server", int(m.group("port")), m.group("proto").lower()
        self.listen_port = t.port

    def header(self, n: int, m: re.Match) -> None:
        self.test_for("header", n).header_cols = m.group("cols")

    def report(self, n: int, m: re.Match) -> None:
        if self.cur is not None:
            self.cur.report_next.add(_sid(m))

    def sent(self, n: int, m: re.Match) -> None:
        if self.cur is not None:
            self.cur.sent[_sid(m)] = int(m.group("n"))

    def version_line(self, n: int, m: re.Match) -> None:
        self.version = m.group(1)
        if self.cur is not None:
            self.cur.version = self.version

    def message(self, n: int, m: re.Match) -> None:
        line = m.string
        if self.cur is not None and self.cur.has_content():
            self.cur.errors.append(line)
        else:
            self.pending.append(line)  # iperf goes on after e.g. an unknown option

    def failure(self, n: int, m: re.Match) -> None:
        line = m.string
        self.test_for("failure", n).errors.append(line)

    def warning(self, n: int, m: re.Match) -> None:
        line = m.string
        self.test_for("warning", n).warnings.append(line)

    def finished(self, text: str, command: str | None) -> list[_Test2]:
        """The tests read, messages before any test given to the first as warnings."""
        tests = self.tests
        if self.pending:
            if tests:
                tests[0].warnings[:0] = self.pending
            else:
                tests.append(_Test2(line=1, version=self.version, errors=self.pending))
        if not tests and command:
            msg = "no test in the output (version or usage text)" if text.strip() else "no output after the command"
            tests.append(_Test2(line=1, version=self.version, errors=[msg]))
        return tests


#: The lines iperf 2 prints, in the order they are tried (first match wins; see :class:`LineKind`).
#: Every pattern is searched in the stripped line.
LINE_KINDS: list[LineKind] = [
    LineKind("data", "sec", _DATA_RE, _Reader.data, search=True),
    LineKind("out_of_order", "out-of-order", _OOO_RE, _Reader.out_of_order, search=True),
    LineKind("connected", " connected with ", _CONN_RE, _Reader.connected, search=True),
    LineKind("client", "Client connecting to ", _CLIENT_RE, _Reader.client, search=True),
    LineKind("server", "Server listening on ", _SERVER_RE, _Reader.server, search=True),
    LineKind("header", "Interval", _HEADER_RE, _Reader.header, search=True),
    LineKind("report", "Server Report:", _REPORT_RE, _Reader.report, search=True),
    LineKind("sent", "Sent ", _SENT_RE, _Reader.sent, search=True),
    LineKind("version", "iperf version 2", _VERSION_RE, _Reader.version_line, search=True),
    LineKind("message", "iperf: ", _MSG_RE, _Reader.message, search=True),
    LineKind("failure", "", _FAIL_RE, _Reader.failure, search=True),
    LineKind("warning", "WARN", _WARN_RE, _Reader.warning, search=True),
]
#: Line kind -> pattern (the grammar is :data:`LINE_KINDS`).
LINES: dict[str, re.Pattern] = {k.name: k.pattern for k in LINE_KINDS}


def _strip(n: int, line: str) -> str:
    """Lines are read stripped (indented pastes, a BOM or stray spaces before the id).

    >>> _strip(1, "  [  3]  0.0- 1.0 sec")
    '[  3]  0.0- 1.0 sec'
    """
    return line.strip()


def parse(seg: Segment) -> Parsed:
    """Read every iperf 2 test in a segment (client, server log, bare intervals)."""
    cmd = command_fields(parse_command(seg.command)) if seg.command else {}
    reader = scan(seg.text, LINE_KINDS, _Reader(cmd), prepare=_strip)
    out = Parsed()
    for t in reader.finished(seg.text, seg.command):
        for row, ivs, totals in _finish(t, cmd):
            out.add_run(row, intervals=ivs, streams=totals)
    return out


FORMATS = [
    Format(
        "iperf2",
        "iperf",
        detect,
        parse,
        description="iperf 2 text output (2.0.x, 2.1.x; client or server; -P, -R, -e, UDP, -f)",
    )
]

__all__ = ["FORMATS", "LINES", "LINE_KINDS", "detect", "parse"]
