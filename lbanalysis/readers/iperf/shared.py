"""What the iperf 2 and iperf3 readers share: units, command lines, run rows.

One run row per **flow** (one direction of traffic of one test)
----------------------------------------------------------------
An iperf test can print a summary for each side of its flow: iperf3's
``sender`` and ``receiver`` lines, iperf 2's UDP client line and its
``Server Report``. Every reader here gives **one run row per flow**:

* ``bits_per_s``, ``bytes_total``, ``duration_s`` hold the **receiver's**
  figures when the output has them (what got through the path), else the
  sender's; ``direction`` says which (``"receiver"`` or ``"sender"``);
* ``sender_bits_per_s``, ``sender_bytes_total``, ``sender_duration_s``
  hold the sender's own summary whenever it is printed (so both sides stay
  side by side in one row); ``retransmits`` is the sender's (TCP);
  ``jitter_s``, ``lost_packets``, ``lost_percent``, ``out_of_order`` are the
  receiver's (UDP); ``total_packets`` is the receiver's count, else the
  sender's;
* ``role`` is the side that printed the output (``client``/``server``),
  ``reverse`` is True when the server sent the data (``-R``; the
  ``RX-C``/``TX-S`` half of ``--bidir``; the ``[ *1]`` half of an iperf 2
  full-duplex or dual test), so such a test gives two rows, one per flow;
  the rows of one test share ``source`` and ``line`` (where the test
  starts), the grouping key when one is needed;
* the intervals of a run are the periodic reports of its flow, every
  stream plus ``SUM``; each carries ``direction``, the side that measured
  it (a client's ``--get-server-output`` block adds the server's own).

A summary side that reads 0 bytes while the other side's does not is not a
measurement when it cannot be one: a sender total of 0 under a receiver
total above 0 (server-side ``-J`` documents), or, for TCP, a receiver total
of 0 under a sender total above 0 (an interrupted client, old 3.0/3.1
servers: the peer's figures were never exchanged). It is left empty, and a
note goes to ``warnings`` when it was the receiver's. A UDP receiver total of
0 is kept: every datagram can be lost.

Why one row and not two: a path's capacity is what its receiver got, and
a table of runs reads best with one row per measurement. Keeping the
sender's figures beside the receiver's (not in a second row) lets
``lbanalysis.capacity.link_capacity`` take ``bits_per_s`` as it is and lets
users compare ``bits_per_s`` with ``sender_bits_per_s`` (UDP loss, TCP
buffering) without a self-join. Text and JSON readers fill the same
columns the same way.

Units: ``bits/sec`` prefixes are decimal (1 Mbit = 10^6 bit); ``Bytes``
prefixes are binary as iperf computes them (1 MByte = 2^20 B); rates printed
in bytes (``-f M``: ``MBytes/sec``) are binary bytes, times 8.

>>> amount("1.45", "G", "Bytes"), rate("6.23", "G", "bits")
(1556925644.8, 6230000000.0)
>>> rate("2", "M", "Bytes")
16777216.0
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from ...text import command_argv, getopt
from ..base import to_float, to_int

# A number as iperf prints it (also nan/inf for degenerate intervals).
NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+|nan|inf)"
AMOUNT = rf"(?P<amt>{NUM})\s*(?P<amt_p>[kKMGT]?)(?P<amt_k>Bytes|Byte|bits|bit)"
RATE = rf"(?P<rate>{NUM})\s*(?P<rate_p>[kKMGT]?)(?P<rate_k>bits|Bytes)/sec"

_BIN = {"": 1.0, "K": 1024.0, "M": 1024.0**2, "G": 1024.0**3, "T": 1024.0**4}
_DEC = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_EXP = {"": "", "K": "e3", "M": "e6", "G": "e9", "T": "e12"}


def number(text: str) -> float:
    """A number as iperf prints it; ``-nan`` is nan."""
    try:
        return float(text)
    except ValueError:
        if "nan" in text.lower():
            return float("nan")
        raise


def ms(value: str) -> float:
    """Seconds from milliseconds as printed, without binary rounding noise.

    >>> ms("0.018"), 0.018 / 1000
    (1.8e-05, 1.7999999999999997e-05)
    """
    try:
        return float(value + "e-3")
    except ValueError:
        return number(value) / 1000.0


def amount(value: str, prefix: str, kind: str) -> float:
    """Bytes from an iperf Transfer column (binary byte prefixes; bits are decimal)."""
    p = prefix.upper()
    if kind.startswith("bit"):
        return (float(value + _EXP[p]) if "n" not in value.lower() else number(value)) / 8.0
    return number(value) * _BIN[p]


def rate(value: str, prefix: str, kind: str) -> float:
    """Bits per second from an iperf rate column (``Mbits/sec``; ``MBytes/sec`` x 8, binary)."""
    p = prefix.upper()
    if kind == "Bytes":
        return number(value) * _BIN[p] * 8.0
    if "n" in value.lower() or not p:  # nan, inf
        return number(value)
    return float(value + _EXP[p])  # exact decimal scaling: '8.45' G -> 8450000000.0


def amount_m(m: re.Match) -> float:
    return amount(*m.group("amt", "amt_p", "amt_k"))


def rate_m(m: re.Match) -> float:
    return rate(*m.group("rate", "rate_p", "rate_k"))


@dataclass
class Side:
    """One summary line (or JSON sum): the figures of one side of a flow."""

    start: float | None = None
    end: float | None = None
    bytes: float | None = None
    bits_per_s: float | None = None
    retransmits: int | None = None
    jitter_s: float | None = None
    lost_packets: int | None = None
    total_packets: int | None = None
    lost_percent: float | None = None
    out_of_order: int | None = None
    mixed: bool = False  # old UDP summary: sender's bytes with the receiver's loss report

    @property
    def duration(self) -> float | None:
        if self.start is None or self.end is None:
            return None
        return round(self.end - self.start, 9)


def sum_sides(sides: list[Side]) -> Side:
    """Streams' totals added up (when no ``[SUM]``/SUM line was printed): the worst jitter, loss recomputed.

    >>> s = sum_sides([Side(0.0, 2.0, 10.0, 40.0, lost_packets=1, total_packets=10),
    ...                Side(0.0, 2.1, 20.0, 80.0, lost_packets=0, total_packets=10)])
    >>> s.end, s.bytes, s.bits_per_s, s.lost_packets, s.lost_percent
    (2.1, 30.0, 120.0, 1, 5.0)
    """
    out = Side(
        start=min(s.start for s in sides if s.start is not None) if any(s.start is not None for s in sides) else None,
        end=max(s.end for s in sides if s.end is not None) if any(s.end is not None for s in sides) else None,
        bytes=sum(s.bytes or 0 for s in sides),
        bits_per_s=sum(s.bits_per_s or 0 for s in sides),
    )
    for k in ("retransmits", "lost_packets", "total_packets", "out_of_order"):
        vals = [getattr(s, k) for s in sides if getattr(s, k) is not None]
        if vals:
            setattr(out, k, sum(vals))
    jit = [s.jitter_s for s in sides if s.jitter_s is not None]
    if jit:
        out.jitter_s = max(jit)
    if out.lost_packets is not None and out.total_packets:
        out.lost_percent = 100.0 * out.lost_packets / out.total_packets
    return out


@dataclass
class Flow:
    """One direction of traffic of one test, as the reader accumulates it."""

    reverse: bool | None = None
    sender: Side | None = None
    receiver: Side | None = None
    intervals: list[dict] = field(default_factory=list)
    totals: list[dict] = field(default_factory=list)  # each stream's own summary lines (the streams table)
    streams: set[str] = field(default_factory=set)
    local: tuple[str | None, int | None] = (None, None)
    remote: tuple[str | None, int | None] = (None, None)


def stream_total(stream: str, direction: str | None, side: Side, **extra: object) -> dict:
    """A streams-table row: one stream's own summary line (or JSON ``end.streams`` part).

    >>> stream_total("4", "sender", Side(start=0.0, end=3.01, bytes=1.0, bits_per_s=8.0), rtt_s=None)
    {'stream': '4', 'direction': 'sender', 'start_s': 0.0, 'end_s': 3.01, 'bytes': 1.0, 'bits_per_s': 8.0}
    """
    row: dict = {"stream": stream, "direction": direction, "start_s": side.start, "end_s": side.end,
                 "bytes": side.bytes, "bits_per_s": side.bits_per_s}  # fmt: skip
    for k in ("retransmits", "jitter_s", "lost_packets", "total_packets", "lost_percent", "out_of_order"):
        v = getattr(side, k)
        if v is not None:
            row[k] = v
    row.update((k, v) for k, v in extra.items() if v is not None)
    return row


def rtt_fields(totals: list[dict]) -> dict:
    """Run-row TCP round-trip times from the senders' stream summaries.

    ``rtt_mean_s``: the mean over the streams of their mean (iperf3 JSON) or
    printed (iperf 2 -e) RTT; ``rtt_min_s``/``rtt_max_s``: the extremes.

    >>> rtt_fields([{"direction": "sender", "rtt_mean_s": 2e-4, "rtt_min_s": 1e-4, "rtt_max_s": 3e-4},
    ...             {"direction": "sender", "rtt_mean_s": 4e-4, "rtt_min_s": 2e-4, "rtt_max_s": 5e-4}])
    {'rtt_mean_s': 0.0003, 'rtt_min_s': 0.0001, 'rtt_max_s': 0.0005}
    """
    sent = [t for t in totals if t.get("direction") != "receiver"]
    means = [t.get("rtt_mean_s", t.get("rtt_s")) for t in sent]
    means = [v for v in means if v is not None]
    out: dict = {}
    if means:
        out["rtt_mean_s"] = round(sum(means) / len(means), 12)
    lows = [t["rtt_min_s"] for t in sent if t.get("rtt_min_s") is not None]
    highs = [t["rtt_max_s"] for t in sent if t.get("rtt_max_s") is not None]
    if lows:
        out["rtt_min_s"] = min(lows)
    if highs:
        out["rtt_max_s"] = max(highs)
    return out


# the loss report of a UDP side (the receiver's, or an old summary's sender's) -> the run's columns
_LOSS = ("jitter_s", "lost_packets", "lost_percent", "out_of_order")


def _trusted(s: Side | None, r: Side | None, protocol: str | None, notes: list[str]) -> tuple[Side | None, Side | None]:
    """The sides whose figures hold: a side reading 0 bytes against the other's data was not told them."""
    if s is not None and r is not None:
        if s.bytes == 0 and (r.bytes or 0) > 0:
            s = None  # nothing received can exceed nothing sent: the sender's figures were not known
        elif protocol != "udp" and r.bytes == 0 and (s.bytes or 0) > 0:
            notes.append("receiver summary reads 0 bytes while the sender's does not (figures not exchanged): ignored")
            r = None
    return s, r


def _sender_fields(s: Side, protocol: str | None) -> dict:
    """The sender's own figures (``sender_*``, its packets for UDP, TCP retransmits)."""
    d = {"sender_bits_per_s": s.bits_per_s, "sender_bytes_total": s.bytes, "sender_duration_s": s.duration}
    if s.total_packets is not None and protocol == "udp":
        d["sender_total_packets"] = s.total_packets
    if s.retransmits is not None:
        d["retransmits"] = s.retransmits
    return d


def _loss_fields(s: Side | None, r: Side | None) -> dict:
    """Jitter, loss and packets: the receiver's, else an old UDP summary's (the sender's line with the loss)."""
    if r is not None:
        d = {k: v for k in (*_LOSS[:2], "total_packets", *_LOSS[2:]) if (v := getattr(r, k)) is not None}
    elif s is not None and s.mixed:
        d = {k: v for k in _LOSS if (v := getattr(s, k)) is not None}
    else:
        d = {}
    return d


def flow_fields(flow: Flow, protocol: str | None) -> tuple[dict, list[str]]:
    """Run-row figures of a flow (see the module docstring) and warnings."""
    notes: list[str] = []
    s, r = _trusted(flow.sender, flow.receiver, protocol, notes)
    main = r if r is not None else s
    if main is None:
        return {}, notes
    d: dict = {"direction": "receiver" if main is r else "sender", "bits_per_s": main.bits_per_s,
               "bytes_total": main.bytes, "duration_s": main.duration}  # fmt: skip
    if main.bits_per_s is not None and main.bits_per_s == main.bits_per_s:
        d["bytes_per_s"] = main.bits_per_s / 8.0
    if s is not None:
        d.update(_sender_fields(s, protocol))
    d.update(_loss_fields(s, r))
    if d.get("total_packets") is None and s is not None and s.total_packets is not None:
        d["total_packets"] = s.total_packets
    d.update(rtt_fields(flow.totals))
    return d, notes


# ------------------------------------------------------------ commands ---
# Short options taking a value (iperf 2 and iperf3); every other letter is a flag.
_WITH_ARG = set("bcfiklnptwxyABFILMOPSTX")
_LONG = {
    "--client": "c",
    "--port": "p",
    "--time": "t",
    "--parallel": "P",
    "--bandwidth": "b",
    "--bitrate": "b",
    "--format": "f",
    "--interval": "i",
    "--len": "l",
    "--window": "w",
    "--bytes": "n",
    "--num": "n",
    "--blockcount": "k",
    "--omit": "O",
    "--reportstyle": "y",
    "--title": "T",
    "--bind": "B",
    "--udp": "u",
    "--reverse": "R",
    "--server": "s",
    "--json": "J",
    "--json-stream": "json-stream",
    "--bidir": "bidir",
    "--enhanced": "e",
    "--enhancedreports": "e",
    "--get-server-output": "get-server-output",
    "--verbose": "V",
    "--dualtest": "d",
    "--tradeoff": "r",
    "--daemon": "D",
}


def parse_command(command: str | None) -> dict:
    """Options of an iperf / iperf3 command line, by short name (flags are True).

    >>> o = parse_command("iperf3 -c 10.0.0.2 -p 5202 -t 30 -P 4 -R -J")
    >>> o["c"], o["p"], o["t"], o["P"], o["R"], o["J"]
    ('10.0.0.2', '5202', '30', '4', True, True)
    >>> o = parse_command("iperf -s -u -i1 -yC --port=5003")
    >>> o["s"], o["u"], o["i"], o["y"], o["p"]
    (True, True, '1', 'C', '5003')
    """
    if not command:
        return {}
    opts, _ = getopt(command_argv(command), _WITH_ARG, lambda name: _LONG.get("--" + name))
    return opts


def command_fields(opts: dict) -> dict:
    """Run fields from parsed options (role, protocol, target, -t, -P, -R).

    >>> command_fields(parse_command("iperf3 -c h -u -t 5 -P 2 -R"))["role"]
    'client'
    """
    d: dict = {}
    if opts.get("c"):
        d["role"] = "client"
        d["host"] = opts["c"]
    elif opts.get("s"):
        d["role"] = "server"
    if opts.get("u"):
        d["protocol"] = "udp"
    if opts.get("p"):
        d["port"] = to_int(opts["p"])
    if opts.get("t") and d.get("role") != "server":
        d["time_limit_s"] = to_float(opts["t"])
    if opts.get("P") and d.get("role") != "server":
        d["concurrency"] = to_int(opts["P"])
    if opts.get("R") and d.get("role") == "client":
        d["reverse"] = True
    return d


# ---------------------------------------------------------- timestamps ---
_CTIME_RE = re.compile(r"^([A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}) ")
_ISO_RE = re.compile(r"^(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d)(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)? ")


def ctime_prefix(line: str) -> tuple[str, datetime | None]:
    """Strip an iperf3 ``--timestamps`` prefix (default ``%c`` format, or ISO 8601).

    >>> ctime_prefix("Sun Nov 22 12:52:42 2026 iperf Done.")
    ('iperf Done.', datetime.datetime(2026, 11, 22, 12, 52, 42))
    >>> ctime_prefix("2026-11-22T13:18:07 iperf Done.")[1]
    datetime.datetime(2026, 11, 22, 13, 18, 7)
    """
    if not line or not line[0].isalnum():
        return line, None
    m = _CTIME_RE.match(line)
    if not m:
        m = _ISO_RE.match(line)
        if m:
            try:
                return line[m.end() :], in_range(datetime.fromisoformat(m.group(1).replace(" ", "T")))
            except ValueError:
                return line, None
        return line, None
    try:
        ts = datetime.strptime(m.group(1).replace("  ", " "), "%a %b %d %H:%M:%S %Y")
    except ValueError:
        return line, None
    return line[m.end() :], in_range(ts)


def in_range(dt: datetime | None) -> datetime | None:
    """A timestamp pandas can hold (1678-2261), else None (a garbled date is not a date).

    >>> in_range(datetime(2726, 11, 22)) is None, in_range(datetime(2026, 11, 22)).year
    (True, 2026)
    """
    if dt is None or not 1678 <= dt.year <= 2261:
        return None
    return dt


def http_date(text: str) -> datetime | None:
    """A ``Time:`` line's date (RFC 2822, as iperf3 prints it), in UTC without a zone; None if it is none.

    >>> http_date("Sun, 22 Nov 2026 12:52:42 GMT"), http_date("yesterday")
    (datetime.datetime(2026, 11, 22, 12, 52, 42), None)
    """
    try:
        dt = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if dt.tzinfo is not None:
        try:
            dt = dt.astimezone(UTC).replace(tzinfo=None)
        except (OverflowError, ValueError):
            return None
    return in_range(dt)


def bare_host(h: str | None) -> str | None:
    """Address without an interface suffix (``127.0.0.1%lo``) or IPv6 brackets."""
    if h is None:
        return None
    h = h.split("%", 1)[0]
    return h[1:-1] if h.startswith("[") and h.endswith("]") else h


def strip_v4mapped(h: str | None) -> str | None:
    """``::ffff:10.0.0.1`` -> ``10.0.0.1`` (iperf prints dual-stack peers so)."""
    if h and h.lower().startswith("::ffff:") and "." in h:
        return h[7:]
    return h
