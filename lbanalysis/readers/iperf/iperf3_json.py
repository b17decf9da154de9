"""iperf3 JSON output: ``-J`` documents and ``--json-stream`` events.

Accepted layouts: one ``-J`` object; several objects one after the other
(``iperf3 -J ... >> all.json``); a JSON array of them; ``--json-stream``
(3.17+) lines ``{"event": "start"|"interval"|"end"|"error", "data": ...}``
(several tests may follow each other); any of these after a command prompt
inside a terminal transcript. Lines of plain text between objects (a
prompt, ``rc=0``) are skipped; broken JSON raises
:class:`~lbanalysis.errors.ParseError` with the line.

Format (iperf 3.12 client, abridged)::

    {"start": {"connected": [{"socket": 5, "local_host": "127.0.0.1", "local_port": 52496,
                              "remote_host": "127.0.0.1", "remote_port": 18990}],
               "version": "iperf 3.12", "timestamp": {"time": "Sun, 22 Nov 2026 12:52:48 GMT", ...},
               "connecting_to": {"host": "127.0.0.1", "port": 18990},        (server: "accepted_connection")
               "test_start": {"protocol": "TCP", "num_streams": 1, "omit": 0, "duration": 2,
                              "bytes": 0, "reverse": 0, "bidir": 0, ...}},
     "intervals": [{"streams": [{"socket": 5, "start": 0, "end": 1.00083, "bytes": 1167851520,
                                 "bits_per_second": 9335063550.5, "retransmits": 1, "snd_cwnd": 2357388,
                                 "omitted": false, "sender": true}, ...],
                    "sum": {...}, "sum_bidir_reverse": {...}}, ...],
     "end": {"streams": [...], "sum_sent": {..., "retransmits": 2}, "sum_received": {...},
             "sum_sent_bidir_reverse": ..., "sum_received_bidir_reverse": ...,
             "sum": {... "jitter_ms", "lost_packets", "packets", "lost_percent"},     (UDP)
             "cpu_utilization_percent": {"host_total": 20.3, "remote_total": 18.7, ...}},
     "server_output_json": {...} | "server_output_text": "...",   (--get-server-output)
     "error": "unable to connect to server: Connection refused"}     (failed or interrupted runs)

================================== ========================= ==================
JSON                               column                    unit
================================== ========================= ==================
end.sum_received                   ``bits_per_s``, ``bytes_total``, ``duration_s`` (receiver)
end.sum_sent                       ``sender_*``, ``retransmits``  (sender)
bits_per_second                    ``bits_per_s``            bit/s (as is)
bytes                              ``bytes``, ``bytes_total`` B (as is)
start/end (seconds)                ``start_s``, ``end_s``, ``duration_s`` = end - start  s
jitter_ms                          ``jitter_s``              ms -> s
lost_packets, packets, lost_percent ``lost_packets``, ``total_packets``, ``lost_percent`` (%)
cpu_utilization_percent            ``cpu_local_pct`` (host_total), ``cpu_remote_pct`` (remote_total), ``cpu_*_user_pct``, ``cpu_*_system_pct``
snd_cwnd                           ``cwnd_bytes``            B
rtt (intervals), min/max/mean_rtt  ``rtt_s``; ``rtt_min_s``, ``rtt_max_s``, ``rtt_mean_s``  us -> s
end.streams (each stream)          ``streams`` table         as above
test_start.num_streams, duration   ``streams``/``concurrency``, ``time_limit_s`` (0 = byte-limited: empty)
================================== ========================= ==================

Rows are the same as the text reader's (:mod:`lbanalysis.readers.iperf.shared`):
one per flow, receiver figures first (``direction``), the sender's in
``sender_*``; ``--bidir`` gives two rows. Intervals: every stream, plus the
``sum`` as stream ``SUM`` when there are several streams (as the text
output prints it); ``direction`` is the measuring side (the ``sender`` flag
of 3.7+, else from the role and ``-R``).

Known defects of real files: server-side documents (and interrupted
clients) carry ``sum_sent`` (or ``sum_received``) of 0 bytes: not a
measurement, left empty (see ``warnings`` when it is the receiver's);
server-side ``remote_total`` CPU of 0 (not reported) is left empty; old UDP
documents (3.0/3.1) have only ``sum``: the sender's bytes with the
receiver's jitter and loss (read as the sender side); a document cut
short (a truncated file) is closed after its last complete member and read:
its run has ``error`` "JSON document cut short at line N (no summary)" and
keeps its intervals; a server's ``-J`` log ends with the stub of its own
SIGTERM (``interrupt - the server has terminated``), dropped; some files are
re-indented (spaces, not tabs) or have CRLF line ends; ``iperf 3.7+`` style
version strings are kept as ``3.7+``.

Versions checked: 3.12 (captured: TCP, UDP, -P, -R, --bidir,
--get-server-output, server side, errors), 3.6, 3.7+ and 3.9 files of the
public corpus. ``--json-stream`` is newer than Debian 12's 3.12: the
fixture is a 3.12 ``-J`` document re-emitted as events (see
tests/fixtures/iperf3/extra).

>>> doc = '{"start": {"connecting_to": {"host": "h", "port": 5201}, "version": "iperf 3.12",'\\
...       ' "test_start": {"protocol": "TCP", "num_streams": 1, "duration": 10, "reverse": 0}},'\\
...       ' "intervals": [], "end": {"sum_sent": {"start": 0, "end": 10, "bytes": 1250000000,'\\
...       ' "bits_per_second": 1e9, "retransmits": 3}, "sum_received": {"start": 0, "end": 10.04,'\\
...       ' "bytes": 1240000000, "bits_per_second": 9.88e8}}}'
>>> r = parse(Segment(doc)).runs[0]
>>> r["direction"], r["bits_per_s"], r["sender_bits_per_s"], r["retransmits"], r["duration_s"]
('receiver', 988000000.0, 1000000000.0, 3, 10.04)
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from ...errors import ParseError
from ...text import Segment
from ..base import Format, Parsed
from ..fields import documents, first_char
from . import iperf3 as _text
from .shared import (
    Flow,
    Side,
    command_fields,
    flow_fields,
    http_date,
    in_range,
    parse_command,
    stream_total,
    strip_v4mapped,
)

_HINT_RE = re.compile(
    r'"(?:connecting_to|accepted_connection|test_start|sum_sent|sum_received|cpu_utilization_percent|intervals)"\s*:'
    r'|"version"\s*:\s*"iperf|"event"\s*:\s*"(?:start|interval|end|error)"|\{\s*"start"\s*:\s*\{'
)

#: The keys one of which every hint holds (:attr:`~lbanalysis.readers.base.Format.json_words`)
JSON_WORDS = (
    "connecting_to", "accepted_connection", "test_start", "sum_sent", "sum_received", "cpu_utilization_percent",
    "intervals", "version", "event", "start",
)  # fmt: skip
# the quoted key every hint holds: one pattern that starts with a quote (a search far faster than the hints')
_HINT_KEY_RE = re.compile('"(?:' + "|".join(JSON_WORDS) + ')"')


def detect(text: str) -> bool:
    """True when text starts with JSON that looks like iperf3's.

    >>> detect('{"start": {"version": "iperf 3.12"}}'), detect('{"a": 1}'), detect("Connecting to host x")
    (True, False, False)
    """
    if first_char(text) not in ("{", "["):
        return False
    if _HINT_KEY_RE.search(text, 0, 1 << 16) is None:  # what every hint holds, looked for first
        return False
    return _HINT_RE.search(text, 0, 1 << 16) is not None


# -------------------------------------------------------------- decoding ---
def _values(seg: Segment) -> list[tuple[object, int]]:
    """Top-level JSON values of a text with their 1-based line; arrays are opened; a document cut short is
    closed after its last whole member and marked ``_truncated`` (the line the text ends on)."""
    out: list[tuple[object, int]] = []
    for value, line, cut in documents(seg, "iperf3", starts="{[", arrays=True, repair=True):
        if cut is not None and isinstance(value, dict):
            value["_truncated"] = cut
        out.append((value, line))
    return out


def _documents(seg: Segment) -> list[tuple[dict, int]]:
    """``-J`` documents, with ``--json-stream`` events gathered into documents."""
    docs: list[tuple[dict, int]] = []
    stream: dict | None = None
    for obj, line in _values(seg):
        if not isinstance(obj, dict):
            raise ParseError("expected an iperf3 JSON object", source=seg.source, line=seg.line - 1 + line)
        ev = obj.get("event")
        if isinstance(ev, str) and "data" in obj:
            data = obj["data"]
            if ev == "start" or stream is None:
                stream = {"start": {}, "intervals": [], "_stream": True}
                docs.append((stream, line))
            if ev == "start":
                stream["start"] = data if isinstance(data, dict) else {}
            elif ev == "interval":
                stream["intervals"].append(data)
            elif ev == "end":
                stream["end"] = data
            elif ev == "error":
                stream["error"] = data if isinstance(data, str) else json.dumps(data)
            elif ev in ("server_output_json", "server_output_text"):
                stream[ev] = data
            continue
        stream = None
        docs.append((obj, line))
    return docs


# ---------------------------------------------------------------- rows ---
def _d(x: object) -> dict:
    """x when it is a JSON object, else an empty one (odd documents read as missing fields)."""
    return x if isinstance(x, dict) else {}


def _l(x: object) -> list:
    """x when it is a JSON array, else an empty one."""
    return x if isinstance(x, list) else []


def _num(d: dict, k: str) -> float | None:
    v = d.get(k)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _int(d: dict, k: str) -> int | None:
    v = d.get(k)
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not abs(v) < 2**63:
        return None
    return int(v)


def _side(d: dict | None) -> Side | None:
    if not isinstance(d, dict) or ("bytes" not in d and "bits_per_second" not in d):
        return None
    s = Side(
        start=_num(d, "start"),
        end=_num(d, "end"),
        bytes=_num(d, "bytes"),
        bits_per_s=_num(d, "bits_per_second"),
        retransmits=_int(d, "retransmits"),
        lost_packets=_int(d, "lost_packets"),
        total_packets=_int(d, "packets"),
        lost_percent=_num(d, "lost_percent"),
        out_of_order=_int(d, "out_of_order"),
    )
    j = _num(d, "jitter_ms")
    if j is not None:
        s.jitter_s = j / 1000.0
    return s


def _interval(d: dict, stream: str) -> dict:
    row = {
        "stream": stream,
        "start_s": _num(d, "start"),
        "end_s": _num(d, "end"),
        "bytes": _num(d, "bytes"),
        "bits_per_s": _num(d, "bits_per_second"),
        "omitted": bool(d.get("omitted", False)),
    }
    for src, dst in (("retransmits", "retransmits"), ("lost_packets", "lost_packets"), ("packets", "total_packets")):
        v = _int(d, src)
        if v is not None:
            row[dst] = v
    if _num(d, "lost_percent") is not None:
        row["lost_percent"] = _num(d, "lost_percent")
    if _num(d, "snd_cwnd") is not None:
        row["cwnd_bytes"] = _num(d, "snd_cwnd")
    if _num(d, "rtt") is not None:
        row["rtt_s"] = _us(_num(d, "rtt"))
    if _num(d, "jitter_ms") is not None:
        row["jitter_s"] = _num(d, "jitter_ms") / 1000.0  # type: ignore[operator]
    return row


def _us(v: float | None) -> float | None:
    """Seconds from iperf3's microseconds (``rtt``, ``mean_rtt``...), without binary noise.

    >>> _us(272), _us(None)
    (0.000272, None)
    """
    return None if v is None else round(v * 1e-6, 12)


def _stream_totals(end: dict, keys: list[bool], bidir: bool, role: str | None) -> dict[bool, list[dict]]:
    """``end.streams``: each stream's sender and receiver summaries (with TCP RTT and cwnd), by flow."""
    out: dict[bool, list[dict]] = {k: [] for k in keys}
    for st in _l(end.get("streams")):
        if not isinstance(st, dict):
            continue
        for name in ("sender", "receiver", "udp"):
            part = st.get(name)
            side = _side(part)
            if side is None or not isinstance(part, dict):
                continue
            is_sender = part.get("sender")
            if bidir and (not isinstance(is_sender, bool) or role is None):
                continue
            k = (is_sender != (role == "client")) if bidir else keys[0]
            direction = name if name != "udp" else {True: "sender", False: "receiver"}.get(is_sender)
            extra = {"cwnd_bytes": _num(part, "max_snd_cwnd"), "rtt_min_s": _us(_num(part, "min_rtt")),
                     "rtt_max_s": _us(_num(part, "max_rtt")), "rtt_mean_s": _us(_num(part, "mean_rtt"))}  # fmt: skip
            out[k].append(stream_total(str(part.get("socket", "")), direction, side, **extra))
    return out


def _timestamp(start: dict) -> datetime | None:
    ts = start.get("timestamp")
    if not isinstance(ts, dict):
        return None
    secs = ts.get("timesecs")
    if isinstance(secs, (int, float)) and not isinstance(secs, bool) and 0 < secs < 1e11:
        return in_range(datetime.fromtimestamp(secs, UTC).replace(tzinfo=None))
    return http_date(str(ts.get("time", "")))


def _stream_rows(
    iv: dict, keys: list[bool], bidir: bool, role: str | None, default_sender: bool | None
) -> dict[bool, list[dict]]:
    """One interval's stream rows, by flow (the reverse flag), with the side that measured them."""
    per_flow: dict[bool, list[dict]] = {k: [] for k in keys}
    for st in _l(iv.get("streams")):
        if not isinstance(st, dict):
            continue
        is_sender = st.get("sender", default_sender)
        if bidir and (is_sender is None or role is None):
            continue
        k = is_sender != (role == "client") if bidir else keys[0]
        row = _interval(st, str(st.get("socket", "")))
        if isinstance(is_sender, bool):
            row["direction"] = "sender" if is_sender else "receiver"
        per_flow[k].append(row)
    return per_flow


def _add_interval(
    flows: dict[bool, Flow], iv: dict, per_flow: dict[bool, list[dict]], keys: list[bool], bidir: bool
) -> None:
    """An interval's rows into their flows, with the [SUM] row where there are several streams."""
    sums = [("sum", False if bidir else keys[0])] + ([("sum_bidir_reverse", True)] if bidir else [])
    for name, k in sums:
        rows = per_flow[k]
        flows[k].streams.update(r["stream"] for r in rows)
        if len(rows) > 1 and isinstance(iv.get(name), dict):
            srow = _interval(iv[name], "SUM")
            if rows[0].get("direction"):
                srow["direction"] = rows[0]["direction"]
            rows.append(srow)
        flows[k].intervals.extend(rows)


def _summaries(flows: dict[bool, Flow], end: dict, keys: list[bool], bidir: bool) -> None:
    """Each flow's sender and receiver summaries (3.0/3.1 UDP: one mixed summary)."""
    for k in keys:
        suffix = "_bidir_reverse" if (bidir and k) else ""
        flows[k].sender = _side(end.get("sum_sent" + suffix))
        flows[k].receiver = _side(end.get("sum_received" + suffix))
        if flows[k].sender is None and flows[k].receiver is None and not suffix:
            old = _side(end.get("sum"))
            if old is not None:
                old.mixed = True
                flows[k].sender = old


def _end_streams(flows: dict[bool, Flow], end: dict, keys: list[bool], bidir: bool) -> None:
    """``end.streams``: stream ids when there were no intervals; UDP out-of-order counts."""
    ooo: list[int] = []
    for st in _l(end.get("streams")):
        if not isinstance(st, dict):
            continue
        for part in st.values():
            if isinstance(part, dict) and "socket" in part and not bidir:
                flows[keys[0]].streams.add(str(part["socket"]))
        udp = st.get("udp")
        if isinstance(udp, dict) and _int(udp, "out_of_order") is not None:
            ooo.append(_int(udp, "out_of_order"))  # type: ignore[arg-type]
    f0 = flows[keys[0]]
    if ooo and not bidir and f0.receiver is not None and f0.receiver.out_of_order is None:
        f0.receiver.out_of_order = sum(ooo)


def _flows(doc: dict, role: str | None) -> dict[bool, Flow]:
    """The flows of a document: intervals (with direction) and summary sides."""
    start = _d(doc.get("start"))
    end = _d(doc.get("end"))
    ts = _d(start.get("test_start"))
    reverse = bool(ts.get("reverse"))
    intervals = [iv for iv in _l(doc.get("intervals")) if isinstance(iv, dict)]
    bidir = (
        bool(ts.get("bidir")) or "sum_sent_bidir_reverse" in end or any("sum_bidir_reverse" in iv for iv in intervals)
    )
    keys = [False, True] if bidir else [reverse]
    flows = {k: Flow(reverse=k) for k in keys}
    default_sender = None if role is None else (role == "client") != reverse
    for iv in intervals:
        _add_interval(flows, iv, _stream_rows(iv, keys, bidir, role, default_sender), keys, bidir)
    _summaries(flows, end, keys, bidir)
    _end_streams(flows, end, keys, bidir)
    for k, rows in _stream_totals(end, keys, bidir, role).items():
        flows[k].totals.extend(rows)
    return flows


def _role(start: dict, cmd: dict) -> str | None:
    """client or server: what the document shows, else the command line."""
    if "connecting_to" in start:
        return "client"
    if "accepted_connection" in start:
        return "server"
    return cmd.get("role")


def _test_fields(base: dict, start: dict, ts: dict, cmd: dict) -> None:
    """Version, time, target, protocol, streams and duration from ``start`` (the document wins over the command)."""
    version = start.get("version")
    if isinstance(version, str) and version:
        base["tool_version"] = version.removeprefix("iperf ").strip()
    when = _timestamp(start)
    if when is not None:
        base["timestamp"] = when
    ct = start.get("connecting_to")
    if isinstance(ct, dict):
        if isinstance(ct.get("host"), str):
            base["host"] = ct["host"]
        if isinstance(ct.get("port"), int) and not isinstance(ct.get("port"), bool):
            base["port"] = ct["port"]
    proto = ts.get("protocol")
    if isinstance(proto, str):
        base["protocol"] = proto.lower()
    elif cmd.get("protocol"):
        base["protocol"] = cmd["protocol"]
    if _int(ts, "num_streams") is not None:
        base["concurrency"] = _int(ts, "num_streams")
    if _num(ts, "duration") is not None and ts["duration"] > 0:
        base["time_limit_s"] = float(ts["duration"])


def _cpu_fields(base: dict, end: dict) -> None:
    """Local and remote CPU use (the remote figure only when the peer sent one)."""
    cpu = end.get("cpu_utilization_percent")
    if not isinstance(cpu, dict):
        return
    if _num(cpu, "host_total") is not None:
        base["cpu_local_pct"] = _num(cpu, "host_total")
        for k, col in (("host_user", "cpu_local_user_pct"), ("host_system", "cpu_local_system_pct")):
            if _num(cpu, k) is not None:
                base[col] = _num(cpu, k)
    remote = [_num(cpu, k) for k in ("remote_total", "remote_user", "remote_system")]
    if remote[0] is not None and any(v for v in remote if v):
        base["cpu_remote_pct"] = remote[0]
        base["cpu_remote_user_pct"], base["cpu_remote_system_pct"] = remote[1], remote[2]


def _connections(start: dict) -> dict[str, tuple]:
    """Socket id -> (local host, local port, remote host, remote port)."""
    conns = {}
    for c in _l(start.get("connected")):
        if isinstance(c, dict):
            lh, rh = c.get("local_host"), c.get("remote_host")
            conns[str(c.get("socket", ""))] = (
                strip_v4mapped(lh) if isinstance(lh, str) else None,
                _int(c, "local_port"),
                strip_v4mapped(rh) if isinstance(rh, str) else None,
                _int(c, "remote_port"),
            )
    return conns


def _flow_row(base: dict, k: bool, flow: Flow, ts: dict, conns: dict[str, tuple], error: str | None) -> dict:
    """The run row of one flow: streams, endpoints, figures, or the error when it has none."""
    row = dict(base)
    if ts or flow.intervals:
        row["reverse"] = k
    if flow.streams:
        row["streams"] = len(flow.streams)
    elif _int(ts, "num_streams") is not None:
        row["streams"] = _int(ts, "num_streams")
    first = min(flow.streams, key=lambda s: (len(s), s)) if flow.streams else None
    conn = conns.get(first) if first else None
    if conn is None and conns:
        conn = next(iter(conns.values()))
    if conn:
        row["local_host"], row["local_port"], row["remote_host"], row["remote_port"] = conn
    figures, notes = flow_fields(flow, row.get("protocol"))
    row.update(figures)
    if not figures:
        if error:
            row["error"] = error if not flow.intervals else f"{error} (no summary)"
        elif flow.intervals:
            row["error"] = "no summary (run interrupted?)"
        else:
            row["error"] = "no data"
    elif error:
        notes.insert(0, error)
    if notes:
        row["warnings"] = "; ".join(notes)
    return row


def _doc_rows(doc: dict, line: int, cmd: dict, seg: Segment) -> list[tuple[dict, list[dict], list[dict]]]:
    start = _d(doc.get("start"))
    end = _d(doc.get("end"))
    ts = _d(start.get("test_start"))
    role = _role(start, cmd)
    base: dict = {"tool": "iperf3", "line": line}
    for k in ("host", "port", "time_limit_s", "concurrency"):
        if cmd.get(k) is not None:
            base[k] = cmd[k]
    if role:
        base["role"] = role
    _test_fields(base, start, ts, cmd)
    _cpu_fields(base, end)
    conns = _connections(start)
    if role == "server" and "port" not in base and conns:
        base["port"] = next(iter(conns.values()))[1]
    error = doc.get("error") if isinstance(doc.get("error"), str) else None
    if doc.get("_truncated"):
        error = f"JSON document cut short at line {seg.line - 1 + doc['_truncated']}"
    flows = _flows(doc, role)
    for flow in flows.values():
        for t in flow.totals:
            conn = conns.get(t["stream"])
            if conn:
                t["local_port"], t["remote_port"] = conn[1], conn[3]
    _merge_server_output(doc, flows, seg)
    return [(_flow_row(base, k, flow, ts, conns, error), flow.intervals, flow.totals) for k, flow in flows.items()]


def _merge_server_output(doc: dict, flows: dict[bool, Flow], seg: Segment) -> None:
    """Add the server's intervals (``--get-server-output``) and fill missing sides."""
    sj = doc.get("server_output_json")
    if not isinstance(sj, dict):
        sj = _d(doc.get("end")).get("server_output_json")
    if isinstance(sj, dict):
        for k, f in _flows(sj, "server").items():
            if k in flows:
                flows[k].intervals.extend(f.intervals)
                flows[k].sender = flows[k].sender or f.sender
                flows[k].receiver = flows[k].receiver or f.receiver
        return
    st = doc.get("server_output_text")
    if isinstance(st, str) and st.strip():
        p = _text.parse(Segment(st, seg.source, seg.line))
        ivs = p.tables.get("intervals") or []
        for i, r in enumerate(p.runs):
            k = bool(r.get("reverse"))
            if k in flows:
                flows[k].intervals.extend(
                    {kk: v for kk, v in iv.items() if kk != "run"} for iv in ivs if iv["run"] == i
                )


def _server_stop_stub(doc: dict) -> bool:
    err = doc.get("error")
    return isinstance(err, str) and "server has terminated" in err and not doc.get("intervals")


def parse(seg: Segment) -> Parsed:
    """Read every iperf3 JSON document or event stream in a segment."""
    cmd = command_fields(parse_command(seg.command)) if seg.command else {}
    out = Parsed()
    docs = _documents(seg)
    if len(docs) > 1:  # a server -J log ends with the stub of its own SIGTERM: not a test
        docs = [(d, n) for d, n in docs if not _server_stop_stub(d)] or docs[:1]
    for doc, line in docs:
        try:
            rows = _doc_rows(doc, line, cmd, seg)
        except (TypeError, AttributeError, ValueError, KeyError) as e:
            raise ParseError(
                f"unexpected iperf3 JSON layout ({type(e).__name__}: {e})", source=seg.source, line=seg.line - 1 + line
            ) from None
        for row, ivs, totals in rows:
            out.add_run(row, intervals=ivs, streams=totals)
    if not out.runs:
        raise ParseError("no iperf3 JSON document found", source=seg.source, line=seg.line)
    return out


FORMATS = [
    Format(
        "iperf3-json",
        "iperf3",
        detect,
        parse,
        whole_file=True,
        json=True,
        json_words=JSON_WORDS,
        description="iperf3 -J JSON (one, several, or an array of documents) and --json-stream events",
    )
]

__all__ = ["FORMATS", "detect", "parse"]
