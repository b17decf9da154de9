"""iperf3 text output, client and server side (iperf 3.0 to 3.17).

Format (iperf 3.12 client; ``-V`` adds the lines marked *)::

    iperf 3.12                                                         *
    Time: Sun, 22 Nov 2026 12:52:39 GMT                                *
    Connecting to host 127.0.0.1, port 18990
    Reverse mode, remote host 127.0.0.1 is sending                     (-R)
    [  5] local 127.0.0.1 port 54180 connected to 127.0.0.1 port 18990
    Starting Test: protocol: TCP, 1 streams, 131072 byte blocks, ...   *
    [ ID] Interval           Transfer     Bitrate         Retr  Cwnd
    [  5]   0.00-1.00   sec  2.35 GBytes  20.2 Gbits/sec    2   2.50 MBytes
    [  5]   1.00-2.00   sec  2.04 GBytes  17.6 Gbits/sec    3   1.87 MBytes
    - - - - - - - - - - - - - - - - - - - - - - - - -
    [ ID] Interval           Transfer     Bitrate         Retr
    [  5]   0.00-2.00   sec  4.39 GBytes  18.9 Gbits/sec    5             sender
    [  5]   0.00-2.00   sec  4.39 GBytes  18.8 Gbits/sec                  receiver
    CPU Utilization: local/sender 46.4% (1.0%u/45.4%s), remote/receiver 41.2% (...)  *

    iperf Done.

A server prints ``Server listening on 5201 (test #N)`` (no ``(test #N)``
before 3.17-ish builds), ``Accepted connection from ...``, its own
intervals and (3.2 on) only its own side's summary line.

===================== ===================== ================================
printed               column                unit
===================== ===================== ================================
Interval a-b sec      ``start_s``/``end_s`` s (intervals); b-a = ``duration_s``
Transfer              ``bytes`` / ``bytes_total``  B, binary: 1 MByte = 2^20 B
Bitrate / Bandwidth   ``bits_per_s``        bit/s, decimal: 1 Mbit = 10^6 bit
Retr                  ``retransmits``       TCP segments (sender side only)
Cwnd                  ``cwnd_bytes``        B (intervals)
Jitter                ``jitter_s``          ms printed, stored in s
Lost/Total Datagrams  ``lost_packets``, ``total_packets``, ``lost_percent`` (%)
Total Datagrams       ``total_packets``     UDP sender intervals
(omitted)             ``omitted``           ``-O`` warm-up interval
CPU Utilization       ``cpu_local_pct``, ``cpu_remote_pct``  % (``-V``; ``cpu_*_user_pct``, ``cpu_*_system_pct``)
===================== ===================== ================================

Rows: one run row per flow, receiver figures first, sender figures in
``sender_*`` columns — see :mod:`lbanalysis.readers.iperf.shared`. ``[SUM]`` lines
give the run figures with ``-P``, each stream's own summary lines go to the
``streams`` table; ``--bidir`` (``[  5][TX-C]``) gives one row
per direction; ``--get-server-output`` adds the server's intervals
(``direction`` ``receiver``) and fills a missing summary side.

Also read: ``Bandwidth`` (before 3.2) and ``Bitrate`` headers; Windows
builds without ``Retr``/``Cwnd``; ``--timestamps`` prefixes (any format: the
lines are searched, and the default ``%c`` prefix gives ``timestamp``);
``-T title`` prefixes; several tests in one text (a server log, pasted
outputs, Ansible ``stdout_lines``); ``iperf3: error - ...`` messages
(a run with ``error`` set when nothing was measured, else a ``warnings``
note; iperf3 writes them to stderr, so with ``2>&1`` they often come first).

Known defects of real files: an interrupted client (``iperf3: interrupt -
the client has terminated``) and old servers (3.0/3.1) print a ``receiver``
line of ``0.00 Bytes``: ignored, see ``warnings``; a client killed before
its summary leaves intervals only: the run has ``error`` "no summary line
(run interrupted?)" and no figures; 3.12 servers print a last
``2.00-2.00 sec`` sliver interval, and sometimes repeat an interval line.

Versions checked: 3.12 (Debian 12, captured), 3.0-3.9 outputs of the public
corpus (Windows 3.1 builds, 0.1-s intervals, ``-O``, 600-s server logs).

>>> t = '''Connecting to host 10.0.0.13, port 5201
... [  5] local 10.0.0.1 port 39600 connected to 10.0.0.13 port 5201
... [ ID] Interval           Transfer     Bitrate         Retr  Cwnd
... [  5]   0.00-1.00   sec  6.86 MBytes  57.5 Mbits/sec    0   69.3 KBytes
... - - - - - - - - - - - - - - - - - - - - - - - - -
... [ ID] Interval           Transfer     Bitrate         Retr
... [  5]   0.00-10.00  sec  53.9 MBytes  45.2 Mbits/sec    0             sender
... [  5]   0.00-10.00  sec  52.0 MBytes  43.6 Mbits/sec                  receiver
... '''
>>> r = parse(Segment(t)).runs[0]
>>> r["role"], r["direction"], r["bits_per_s"], r["sender_bits_per_s"], r["bytes_total"] == 52 * 2**20
('client', 'receiver', 43600000.0, 45200000.0, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ...text import Segment
from ..base import Format, LineKind, Parsed, scan
from .shared import (
    AMOUNT,
    NUM,
    RATE,
    Flow,
    Side,
    amount,
    command_fields,
    ctime_prefix,
    flow_fields,
    http_date,
    ms,
    number,
    parse_command,
    rate,
    stream_total,
    strip_v4mapped,
)

# ---------------------------------------------------------------- lines ---
_DATA_RE = re.compile(
    rf"\[\s*(?P<id>\d+|SUM)\s*\](?:\[(?P<tag>[TR]X-[CS])\])?\s+(?P<start>{NUM})\s*-\s*(?P<end>{NUM})\s+sec"
    rf"\s+{AMOUNT}\s+{RATE}(?P<rest>.*)$"
)
_LABEL_RE = re.compile(r"\s(sender|receiver)\s*$")
_UDP_RE = re.compile(rf"(?P<jit>{NUM})\s+ms\s+(?P<lost>-?\d+)\s*/\s*(?P<tot>-?\d+)\s+\((?P<pct>[^)%]*)%\)")
_TCP_RE = re.compile(rf"^\s+(?P<retr>\d+)(?:\s+(?P<cwnd>{NUM})\s*(?P<cwnd_p>[KMGT]?)(?P<cwnd_k>Bytes|bits))?")
_COUNT_RE = re.compile(r"^\s+(?P<n>\d+)\s*$")
_HEADER_RE = re.compile(r"\[ ID ?\](?:\[Role\])?\s+Interval\s+Transfer\s+(?:Bitrate|Bandwidth)(?P<cols>.*)$")
_SEP_RE = re.compile(r"(?:^|\s)-(?: -){4,}\s*$")
_CONNECTING_RE = re.compile(r"Connecting to host (?P<host>\S+?),? port (?P<port>\d+)")
_REVERSE_RE = re.compile(r"Reverse mode, remote host \S+ is sending")
_LISTEN_RE = re.compile(r"Server listening on (?P<port>\d+)(?: \(test #(?P<test>\d+)\))?\s*$")
_ACCEPT_RE = re.compile(r"Accepted connection from (?P<host>\S+?),? port (?P<port>\d+)")
_CONNECTED_RE = re.compile(
    r"\[\s*(?P<id>\d+)\s*\](?:\[[TR]X-[CS]\])?\s+local (?P<lh>\S+) port (?P<lp>\d+) connected to (?P<rh>\S+) port (?P<rp>\d+)"
)
_VERSION_RE = re.compile(r"^\s*iperf (3\.[\w.+-]*)")
_TIME_RE = re.compile(r"^\s*Time: (.+?)\s*$")
_STARTING_RE = re.compile(
    r"Starting Test: protocol: (?P<proto>\w+), (?P<n>\d+) streams,.*?"
    r"(?:(?P<t>[\d.]+) second test|(?P<bytes>\d+) bytes to send|(?P<blocks>\d+) blocks to send)"
)
_CPU_RE = re.compile(
    rf"CPU Utilization: local/\w+ (?P<local>{NUM})%(?: \((?P<lu>{NUM})%u/(?P<ls>{NUM})%s\))?.*?"
    rf"remote/\w+ (?P<remote>{NUM})%(?: \((?P<ru>{NUM})%u/(?P<rs>{NUM})%s\))?"
)
_CPU_PARTS = {"lu": "cpu_local_user_pct", "ls": "cpu_local_system_pct", "ru": "cpu_remote_user_pct",
              "rs": "cpu_remote_system_pct"}  # fmt: skip
_MSG_RE = re.compile(r"(?:^|\s)iperf3: (?P<msg>.+?)\s*$")
_DONE_RE = re.compile(r"(?:^|\s)iperf Done\.\s*$")
_SERVER_OUTPUT_RE = re.compile(r"(?:^|\s)Server output:\s*$")

# detect(): iperf3-only markers, and bare interval lines with 2-decimal times.
_MARK3_RE = re.compile(
    r"Connecting to host \S+,? port \d+|Server listening on \d+|Accepted connection from \S+,? port \d+|"
    r"local \S+ port \d+ connected to \S+ port \d+|^iperf Done\.|^iperf3: |\ssec\s.*\s(?:sender|receiver)\s*$|"
    r"^\[ ID ?\](?:\[Role\])? Interval {5,}Transfer {5}Bit",
    re.MULTILINE,
)
_MARK2_RE = re.compile(
    r"Client connecting to \S+, (?:TCP|UDP) port|Server listening on (?:TCP|UDP|SCTP) port|connected with \S+ port \d+|"
    r"^\[ *\*?\d+\] Server Report:|^iperf version 2",
    re.MULTILINE,
)
_HINTS3 = (
    "Connecting to host",
    "Server listening on",
    "Accepted connection",
    " connected to ",
    "iperf Done",
    "iperf3: ",
    "sender",
    "receiver",
    "[ ID",
    "bits/sec",
    "Bytes/sec",
)
_BARE3_RE = re.compile(rf"^\s*\[\s*(?:\d+|SUM)\s*\]\s+\d+\.\d\d-\s*\d+\.\d\d\s+sec\s+{AMOUNT}\s+{RATE}", re.MULTILINE)


def detect(text: str) -> bool:
    """True when text looks like iperf3 text output (not iperf 2).

    >>> detect("Connecting to host 10.0.0.13, port 5201\\n")
    True
    >>> detect("[  3]  0.0- 1.0 sec  2.00 MBytes  16.8 Mbits/sec\\n")
    False
    """
    # Cheap guard first (this runs on every file another format did not claim):
    # the regexes below scan every position of the text.
    if not any(k in text for k in _HINTS3):
        return False
    if _MARK2_RE.search(text):
        return False
    return bool(_MARK3_RE.search(text) or _BARE3_RE.search(text))


# ---------------------------------------------------------------- state ---
@dataclass
class _Summary:
    tag: str | None
    section: str
    id: str
    label: str | None  # sender, receiver, or None (unlabeled, old UDP)
    side: Side


@dataclass
class _Interval:
    tag: str | None  # TX-C, RX-C, TX-S, RX-S (--bidir) or None
    section: str  # main, or server (--get-server-output)
    sender_cols: bool  # printed with a sender's columns (Retr, Cwnd, Total Datagrams)
    row: dict


@dataclass
class _Test:
    line: int
    role: str | None = None
    host: str | None = None
    port: int | None = None
    reverse_seen: bool = False
    version: str | None = None
    timestamp: datetime | None = None
    protocol: str | None = None
    streams_cfg: int | None = None
    time_limit_s: float | None = None
    server_test: int | None = None
    role_carried: bool = False  # the role is the test before's (a server's), not shown by this test's lines
    conns: dict = field(default_factory=dict)  # (section, id) -> (lh, lp, rh, rp)
    intervals: list[_Interval] = field(default_factory=list)
    summaries: list[_Summary] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    cpu: tuple[float, float] | None = None
    cpu_parts: dict = field(default_factory=dict)  # user/system split of the CPU line
    header_cols: str = ""
    section: str = "main"
    sep: bool = False
    in_summary: bool = False
    done: bool = False

    def has_content(self) -> bool:
        return bool(self.intervals or self.summaries or self.conns or self.host or self.done)


def _side(m: re.Match, rest: str, header_cols: str) -> tuple[Side, dict]:
    """Figures of a data line: a Side, plus interval-only extras (cwnd, omitted)."""
    g = m.group("start", "end", "amt", "amt_p", "amt_k", "rate", "rate_p", "rate_k")
    s = Side(start=number(g[0]), end=number(g[1]), bytes=amount(*g[2:5]), bits_per_s=rate(*g[5:8]))
    extra: dict = {}
    u = _UDP_RE.search(rest) if " ms" in rest else None
    if u:
        s.jitter_s = ms(u.group("jit"))
        s.lost_packets = int(u.group("lost"))
        s.total_packets = int(u.group("tot"))
        pct = u.group("pct").strip()
        try:
            s.lost_percent = number(pct)
        except ValueError:
            s.lost_percent = None
        return s, extra
    t = _TCP_RE.match(rest)
    udp_cols = "Datagrams" in header_cols
    if t and not udp_cols:
        s.retransmits = int(t.group("retr"))
        if t.group("cwnd"):
            extra["cwnd_bytes"] = amount(t.group("cwnd"), t.group("cwnd_p"), t.group("cwnd_k"))
        return s, extra
    c = _COUNT_RE.match(rest)
    if c:
        s.total_packets = int(c.group("n"))
    return s, extra


def _interval_row(sid: str, s: Side, extra: dict, omitted: bool) -> dict:
    row = {
        "stream": sid,
        "start_s": s.start,
        "end_s": s.end,
        "bytes": s.bytes,
        "bits_per_s": s.bits_per_s,
        "omitted": omitted,
    }
    figures = vars(s)  # (a loop over the names: the most lines of a file are intervals)
    for k in ("retransmits", "jitter_s", "lost_packets", "total_packets", "lost_percent"):
        v = figures[k]
        if v is not None:
            row[k] = v
    row.update(extra)
    return row


def _tag_reverse(tag: str) -> bool:
    return tag in ("RX-C", "TX-S")


def _protocol(t: _Test, cmd: dict) -> str | None:
    """TCP or UDP: as printed, else from the command, else from the columns a UDP test prints."""
    protocol = t.protocol or cmd.get("protocol")
    if protocol is None and ("Jitter" in t.header_cols or "Datagrams" in t.header_cols):
        protocol = "udp"
    if protocol is None and any(x.row.get("jitter_s") is not None for x in t.intervals):
        protocol = "udp"
    if protocol is None and (t.intervals or t.summaries):
        protocol = "tcp"
    return protocol


def _base_reverse(t: _Test, role: str | None, cmd: dict) -> bool | None:
    """Whether the printing side sent the data of the (non-bidir) flow; None when it cannot tell."""
    if role == "client":
        return t.reverse_seen or bool(cmd.get("reverse"))
    if role == "server":
        own = [s.label for s in t.summaries if s.section == "main" and s.label]
        sender_cols = any(x.sender_cols for x in t.intervals if x.section == "main")
        return bool((own and set(own) == {"sender"}) or sender_cols)
    return None


def _flow_intervals(t: _Test, k: bool | None, flow_rev: Any, role: str | None, flow: Flow) -> list[dict]:
    """The interval rows of flow ``k``, each with the side that measured it; its stream ids into ``flow``."""
    ivs = []
    for x in t.intervals:
        if flow_rev(x.tag) != k:
            continue
        if role is None or k is None:
            by_sender = x.sender_cols if (x.sender_cols or x.row.get("jitter_s") is not None) else None
        else:
            by_sender = ((role == "client") != k) != (x.section == "server")
        ivs.append({**x.row, "direction": None if by_sender is None else ("sender" if by_sender else "receiver")})
        if x.section == "main" and x.row["stream"] != "SUM":
            flow.streams.add(x.row["stream"])
    return ivs


def _flow_summaries(sums: list, flow: Flow, conns: dict) -> None:
    """The flow's sender and receiver totals: the SUM line of each section, or its one stream's.

    Each stream's own summary lines also go to ``flow.totals`` (the streams table).
    """
    for s in sums:
        if s.section == "main" and s.id != "SUM":
            flow.streams.add(s.id)
            conn = conns.get(("main", s.id))
            ports = {"local_port": conn[1], "remote_port": conn[3]} if conn else {}
            flow.totals.append(stream_total(s.id, s.label, s.side, **ports))
    for section in ("main", "server"):
        sec = [s for s in sums if s.section == section]
        ids = {s.id for s in sec}
        pick = [s for s in sec if s.id == "SUM"] if "SUM" in ids else (sec if len(ids) == 1 else [])
        for s in pick:
            label = s.label
            if label is None:  # unlabeled (old UDP): the sender's bytes and the receiver's loss
                label = "sender"
                s.side.mixed = True
            if label == "sender" and flow.sender is None:
                flow.sender = s.side
            elif label == "receiver" and flow.receiver is None:
                flow.receiver = s.side


def _flow_row(t: _Test, role: str | None, protocol: str | None, cmd: dict, k: bool | None, flow: Flow) -> dict:
    """The run row of one flow: streams, endpoints, its figures, or the error when it has none."""
    row = _base_row(t, role, protocol, cmd, k)
    n = len(flow.streams) or None
    row["streams"] = t.streams_cfg if t.streams_cfg and not n else n
    first = min(flow.streams, key=int) if flow.streams else None
    conn = t.conns.get(("main", first)) if first else None
    if conn is None and t.conns:
        conn = next((v for (sec, _), v in t.conns.items() if sec == "main"), None)
    if conn:
        row["local_host"], row["local_port"], row["remote_host"], row["remote_port"] = conn
    figures, notes = flow_fields(flow, protocol)
    row.update(figures)
    if not figures:
        msg = "; ".join(t.messages)
        row["error"] = f"{msg} (no summary line)" if msg else "no summary line (run interrupted?)"
    else:
        notes = t.messages + notes
    if notes:
        row["warnings"] = "; ".join(notes)
    return row


def _shown_role(t: _Test) -> str | None:
    """The role a test's figures show when its ``Connecting to host`` line is missing.

    A UDP sender's interval columns (``Total Datagrams``, no jitter) with a
    ``receiver`` summary row are a client's: a server sending for ``-R``
    prints only its own ``sender`` row. This outweighs a server's role
    carried over from the test before (a client's output pasted after the
    server's).

    >>> t = _Test(line=1, header_cols="Transfer     Bitrate         Total Datagrams")
    >>> t.summaries.append(_Summary(None, "main", "5", "receiver", Side()))
    >>> _shown_role(t)
    'client'
    """
    udp_sender = "Total Datagrams" in t.header_cols and "Jitter" not in t.header_cols
    if udp_sender and any(s.label == "receiver" and s.section == "main" for s in t.summaries):
        return "client"
    return None


def _finish(t: _Test, cmd: dict) -> list[tuple[dict, list[dict], list[dict]]]:
    """Run rows (with their interval and stream-total rows) of one test: one per flow (two for --bidir)."""
    role = t.role or cmd.get("role")
    if role is None or t.role_carried:
        role = _shown_role(t) or role
    protocol = _protocol(t, cmd)
    base_rev = _base_reverse(t, role, cmd)

    def flow_rev(tag: str | None) -> bool | None:
        return _tag_reverse(tag) if tag else base_rev

    keys: list = list(dict.fromkeys([flow_rev(x.tag) for x in t.intervals] + [flow_rev(s.tag) for s in t.summaries]))
    if not keys:
        row = _base_row(t, role, protocol, cmd, base_rev)
        row["error"] = "; ".join(t.messages) or "no data"
        return [(row, [], [])]
    out = []
    for k in keys:
        flow = Flow(reverse=k)
        ivs = _flow_intervals(t, k, flow_rev, role, flow)
        _flow_summaries([s for s in t.summaries if flow_rev(s.tag) == k], flow, t.conns)
        out.append((_flow_row(t, role, protocol, cmd, k, flow), ivs, flow.totals))
    return out


def _base_row(t: _Test, role, protocol, cmd: dict, reverse) -> dict:
    row: dict = {"tool": "iperf3", "line": t.line}
    for k in ("time_limit_s", "concurrency", "host", "port"):
        if cmd.get(k) is not None:
            row[k] = cmd[k]
    if role:
        row["role"] = role
    if protocol:
        row["protocol"] = protocol
    if reverse is not None:
        row["reverse"] = reverse
    if t.host:
        row["host"] = t.host
    if t.port is not None:
        row["port"] = t.port
    if t.version:
        row["tool_version"] = t.version
    if t.timestamp:
        row["timestamp"] = t.timestamp
    if t.time_limit_s is not None and "time_limit_s" not in row:
        row["time_limit_s"] = t.time_limit_s
    if t.streams_cfg and "concurrency" not in row:
        row["concurrency"] = t.streams_cfg
    if t.cpu:
        row["cpu_local_pct"], row["cpu_remote_pct"] = t.cpu
        row.update(t.cpu_parts)
    return row


# ---------------------------------------------------------------- tests ---
def _starts_test(kind: str, cur: _Test | None, label: str | None = None) -> bool:
    """Whether a line of ``kind`` begins a new test rather than continuing ``cur``.

    The one place that decides where a test starts: a data line after the
    summary, a client's ``Connecting``, a server's ``Accepted`` after data...

    >>> _starts_test("connecting", None), _starts_test("connecting", _Test(line=1))
    (True, False)
    >>> _starts_test("data", _Test(line=1, done=True))
    True
    """
    if cur is None:
        return True
    main_summarised = bool(cur.summaries) and cur.section == "main"
    if kind == "data":  # an unlabelled data line after the summary: the next test's interval
        return cur.done or (main_summarised and not cur.in_summary and label is None)
    if kind == "header":
        return main_summarised and not cur.sep and not cur.in_summary
    if kind == "connected":
        return cur.done or main_summarised
    if kind == "connecting":
        return cur.has_content() or cur.role == "server"
    if kind == "accept":
        return bool(cur.intervals or cur.summaries or cur.done)
    return cur.has_content()  # listen, time


def _carried(kind: str, cur: _Test | None) -> dict:
    """What a new test started by a line of ``kind`` keeps of the test before: a server's role and port."""
    if cur is None or cur.role != "server":
        return {}
    if kind in ("data", "connected"):
        return {"role": "server", "role_carried": True}
    return {"port": cur.port} if kind == "accept" else {}


def _sender_cols(side: Side, extra: dict) -> bool:
    """Whether an interval line shows a sender's columns (Retr, Cwnd, or UDP Total Datagrams)."""
    return (
        side.retransmits is not None
        or "cwnd_bytes" in extra
        or (side.total_packets is not None and side.jitter_s is None)
    )


def _stamp(t: _Test, ts: datetime | None) -> None:
    if ts and t.timestamp is None:
        t.timestamp = ts


class _Reader:
    """The tests of one segment, built line by line: one handler per line kind (see :data:`LINE_KINDS`).

    Handlers are called as ``handler(reader, n, m)`` (:func:`~lbanalysis.readers.base.scan`); a
    handler returns False when the line is not its kind after all, and the
    next kind is tried. ``ts`` is the ``--timestamps`` time of the line being read.
    """

    def __init__(self) -> None:
        self.tests: list[_Test] = []
        self.cur: _Test | None = None
        self.pending: list[str] = []
        self.version: str | None = None
        self.ts: datetime | None = None

    def prepare(self, n: int, line: str) -> str:
        """The line without its ``--timestamps`` prefix (kept in ``ts``); a blank line ends a summary block."""
        if line and not line[0].isalnum():  # no prefix (most lines start with '[' or a space)
            self.ts = None
            return line
        line, self.ts = ctime_prefix(line)
        if not line.strip():
            self.blank()
            return ""
        return line

    def test_for(self, kind: str, n: int, label: str | None = None) -> _Test:
        """The test a line of ``kind`` belongs to: the current one, or one it starts."""
        if _starts_test(kind, self.cur, label):
            self.cur = _Test(line=n, version=self.version, **_carried(kind, self.cur))
            self.tests.append(self.cur)
        assert self.cur is not None
        return self.cur

    def data(self, n: int, m: re.Match) -> None:
        rest = m.group("rest")
        omitted = "(omitted)" in rest
        if omitted:
            rest = rest.replace("(omitted)", " ")
        lab = _LABEL_RE.search(rest)
        label = lab.group(1) if lab else None
        t = self.test_for("data", n, label)
        _stamp(t, self.ts)
        side, extra = _side(m, rest, t.header_cols)
        if label is not None or t.in_summary:
            t.in_summary = True
            t.summaries.append(_Summary(m.group("tag"), t.section, m.group("id"), label, side))
        else:
            t.sep = False
            row = _interval_row(m.group("id"), side, extra, omitted)
            t.intervals.append(_Interval(m.group("tag"), t.section, _sender_cols(side, extra), row))

    def header(self, n: int, m: re.Match) -> None:
        t = self.test_for("header", n)
        if t.sep:
            t.in_summary = True
        if (t.section == "main" and not t.in_summary) or not t.header_cols:
            t.header_cols = m.group("cols")

    def separator(self, n: int, m: re.Match) -> None:
        if self.cur is not None:
            self.cur.sep = True

    def connected(self, n: int, m: re.Match) -> None:
        t = self.test_for("connected", n)
        t.in_summary = False
        lh, rh = strip_v4mapped(m.group("lh")), strip_v4mapped(m.group("rh"))
        t.conns.setdefault((t.section, m.group("id")), (lh, int(m.group("lp")), rh, int(m.group("rp"))))
        _stamp(t, self.ts)

    def connecting(self, n: int, m: re.Match) -> None:
        t = self.test_for("connecting", n)
        t.role, t.host, t.port = "client", m.group("host"), int(m.group("port"))
        _stamp(t, self.ts)

    def reverse(self, n: int, m: re.Match) -> None:
        if self.cur is not None:
            self.cur.reverse_seen = True

    def listen(self, n: int, m: re.Match) -> None:
        if self.cur is not None and self.cur.section == "server":
            return  # the server's own banner inside --get-server-output
        t = self.test_for("listen", n)
        t.role, t.port, t.role_carried = "server", int(m.group("port")), False
        if m.group("test"):
            t.server_test = int(m.group("test"))

    def accept(self, n: int, m: re.Match) -> None:
        if self.cur is not None and self.cur.section == "server":
            return
        t = self.test_for("accept", n)
        t.role, t.role_carried = "server", False
        _stamp(t, self.ts)

    def server_output(self, n: int, m: re.Match) -> None:
        if self.cur is not None:
            self.cur.section, self.cur.in_summary, self.cur.sep = "server", False, False

    def done(self, n: int, m: re.Match) -> None:
        if self.cur is not None:
            self.cur.done, self.cur.in_summary = True, False

    def version_line(self, n: int, m: re.Match) -> None:
        self.version = m.group(1)
        if self.cur is not None and not self.cur.has_content():
            self.cur.version = self.version

    def time(self, n: int, m: re.Match) -> None:
        self.test_for("time", n).timestamp = http_date(m.group(1))

    def starting(self, n: int, m: re.Match) -> bool:
        if self.cur is None:
            return False
        self.cur.protocol = m.group("proto").lower()
        self.cur.streams_cfg = int(m.group("n"))
        if m.group("t"):
            self.cur.time_limit_s = float(m.group("t"))
        return True

    def cpu(self, n: int, m: re.Match) -> bool:
        if self.cur is None:
            return False
        self.cur.cpu = (number(m.group("local")), number(m.group("remote")))
        self.cur.cpu_parts = {col: number(m.group(g)) for g, col in _CPU_PARTS.items() if m.group(g) is not None}
        return True

    def message(self, n: int, m: re.Match) -> None:
        msg = m.group("msg").removeprefix("error - ")
        cur = self.cur
        if "server has terminated" in msg and (cur is None or cur.summaries or not cur.intervals):
            return  # the server process stopped between tests: nothing to say about a test
        if cur is not None and (cur.intervals or cur.summaries) and not cur.done:
            cur.messages.append(msg)
        else:
            self.pending.append(msg)

    def blank(self) -> None:
        if self.cur is not None:
            self.cur.in_summary = False

    def finished(self, command: str | None) -> list[_Test]:
        """The tests read: trailing banners dropped, messages before any test given to the first."""
        tests = self.tests
        if len(tests) > 1:
            tests = [t for t in tests if t.intervals or t.summaries or t.conns] or tests[:1]
        if self.pending:
            if tests:
                tests[0].messages[:0] = self.pending
            else:
                tests.append(_Test(line=1, version=self.version, messages=self.pending))
        if not tests and command:
            tests.append(_Test(line=1, messages=["no output after the command"]))
        return tests


#: The lines iperf3 prints, in the order they are tried (first match wins; see :class:`LineKind`).
#: Every pattern is searched in the line (after its ``--timestamps`` prefix).
LINE_KINDS: list[LineKind] = [
    LineKind("data", "sec", _DATA_RE, _Reader.data, search=True),
    LineKind("header", "Interval", _HEADER_RE, _Reader.header, search=True),
    LineKind("separator", "- -", _SEP_RE, _Reader.separator, search=True),
    LineKind("connected", " connected to ", _CONNECTED_RE, _Reader.connected, search=True),
    LineKind("connecting", "Connecting to host ", _CONNECTING_RE, _Reader.connecting, search=True),
    LineKind("reverse", "Reverse mode", _REVERSE_RE, _Reader.reverse, search=True),
    LineKind("listen", "Server listening on ", _LISTEN_RE, _Reader.listen, search=True),
    LineKind("accept", "Accepted connection from ", _ACCEPT_RE, _Reader.accept, search=True),
    LineKind("server_output", "Server output:", _SERVER_OUTPUT_RE, _Reader.server_output, search=True),
    LineKind("done", "iperf Done.", _DONE_RE, _Reader.done, search=True),
    LineKind("version", "iperf 3", _VERSION_RE, _Reader.version_line, search=True),
    LineKind("time", "Time: ", _TIME_RE, _Reader.time, search=True),
    LineKind("starting", "Starting Test: ", _STARTING_RE, _Reader.starting, search=True),
    LineKind("cpu", "CPU Utilization: ", _CPU_RE, _Reader.cpu, search=True),
    LineKind("message", "iperf3: ", _MSG_RE, _Reader.message, search=True),
]
#: Line kind -> pattern (the grammar is :data:`LINE_KINDS`).
LINES: dict[str, re.Pattern] = {k.name: k.pattern for k in LINE_KINDS}


def parse(seg: Segment) -> Parsed:
    """Read every iperf3 test in a segment (client, server, several pasted)."""
    cmd = command_fields(parse_command(seg.command)) if seg.command else {}
    reader = _Reader()
    scan(seg.text, LINE_KINDS, reader, prepare=reader.prepare)
    out = Parsed()
    for t in reader.finished(seg.command):
        for row, ivs, totals in _finish(t, cmd):
            out.add_run(row, intervals=ivs, streams=totals)
    return out


FORMATS = [
    Format(
        "iperf3",
        "iperf3",
        detect,
        parse,
        description="iperf3 text output (client or server; -P, -R, --bidir, UDP, -O, --timestamps, -V)",
    )
]

__all__ = ["FORMATS", "LINES", "LINE_KINDS", "detect", "parse"]
