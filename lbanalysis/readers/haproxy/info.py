"""HAProxy ``show info`` (text and ``json``) and ``show servers state``.

``show info`` prints ``Name: value`` lines (``Version``, ``Nbthread``,
``Uptime_sec``, ``Maxconn``, ``CurrConns``, ``CumConns``, ``CumReq`` …);
``show info json`` the same fields as ``{"field": {"name"}, "value":
{"value"}}`` objects. They fill the snapshot's run row (tool ``haproxy``).
``show servers state`` prints a format version line (``1``), a ``# be_id
be_name srv_id srv_name srv_addr srv_op_state …`` header and one line per
server: into the ``servers`` table (proxy, server, address, port, weight,
status from ``srv_op_state``: 0 stopped, 1 starting, 2 running, 3 stopping).

>>> p = parse_info(Segment("Name: HAProxy\\nVersion: 2.6.12-1+deb12u4\\nNbthread: 2\\nUptime_sec: 79\\n"))
>>> r = p.runs[0]
>>> r["tool_version"], r["nbthread"], r["uptime_s"]
('2.6.12-1+deb12u4', 2, 79.0)
"""

from __future__ import annotations

import json
import re

from ...errors import ParseError
from ...text import Segment
from ..base import Format, LineKind, Parsed, scan, to_float, to_int

__all__ = ["FORMATS", "INFO", "LINE_KINDS", "STATE_OP", "parse_info", "parse_state"]

# show info field -> (runs column, kind)
INFO: dict[str, tuple[str, str]] = {
    "Version": ("tool_version", "str"),
    "Uptime_sec": ("uptime_s", "float"),
    "Nbthread": ("nbthread", "int"),
    "Maxconn": ("maxconn", "int"),
    "CurrConns": ("connections_current", "int"),
    "CumConns": ("connections_total", "int"),
    "CumReq": ("requests_total", "int"),
    "Idle_pct": ("idle_pct", "float"),
    "Run_queue": ("run_queue", "int"),
    "ConnRate": ("conn_rate_per_s", "float"),
    "SessRate": ("sess_rate_per_s", "float"),
}
#: show info fields of the ``cpu`` row (HAProxy's process: its busy share is 100 - Idle_pct)
CPU_INFO: dict[str, tuple[str, str]] = {"Pid": ("pid", "int"), "node": ("host", "str"), "Nbthread": ("cores", "float")}
#: srv_op_state in words
STATE_OP = {"0": "STOPPED", "1": "STARTING", "2": "RUNNING", "3": "STOPPING"}

_INFO_LINE_RE = re.compile(r"^([A-Za-z_]+):\s?(.*)$")


def _field(fields: dict[str, str], n: int, m: re.Match) -> None:
    fields[m.group(1)] = m.group(2)
    fields.setdefault(f"line {m.group(1)}", str(n))


#: The one kind of line ``show info`` prints (see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [LineKind("field", ":", _INFO_LINE_RE, _field)]


def _info_row(fields: dict[str, object]) -> dict:
    row: dict = {"tool": "haproxy", "line": 1}
    for name, (col, kind) in INFO.items():
        raw = fields.get(name)
        if raw is None or str(raw).strip() == "":
            continue
        row[col] = str(raw).strip() if kind == "str" else (to_int(str(raw)) if kind == "int" else to_float(str(raw)))
    return row


def _cpu_row(fields: dict[str, object]) -> list[dict]:
    """HAProxy's process as a ``cpu`` row from ``Idle_pct`` (none without it): its busy share, pid, node, threads.

    >>> _cpu_row({"Idle_pct": "37", "Pid": "18904", "node": "lb-1", "Nbthread": "2"})[0]["busy_pct"]
    63.0
    """
    idle = to_float(str(fields.get("Idle_pct") or "")) if fields.get("Idle_pct") is not None else None
    if idle is None:
        return []
    line = int(str(fields.get("line Idle_pct") or 1))
    row = {
        "run": None,
        "tool": "haproxy",
        "line": line,
        "scope": "process",
        "command": "haproxy",
        "role": "load balancer",
    }
    for name, (col, kind) in CPU_INFO.items():
        raw = str(fields.get(name) or "").strip()
        if raw:
            row[col] = raw if kind == "str" else (to_int(raw) if kind == "int" else to_float(raw))
    row["busy_pct"] = 100.0 - idle
    return [row]


def parse_info(seg: Segment) -> Parsed:
    """``show info`` text or JSON into the snapshot's run row (and HAProxy's ``cpu`` row, from ``Idle_pct``)."""
    text = seg.text.lstrip()
    if text.startswith("["):
        try:
            fields = {f["field"]["name"]: f["value"].get("value") for f in json.loads(text) if "field" in f}
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            raise ParseError(f"not HAProxy 'show info json' output ({e})", source=seg.source) from None
    else:
        fields = scan(text, LINE_KINDS, {})
    out = Parsed()
    out.add_run(_info_row(fields))
    if cpu := _cpu_row(fields):
        out.tables["cpu"] = cpu
    return out


def parse_state(seg: Segment) -> Parsed:
    """``show servers state`` into the ``servers`` table."""
    lines = [ln for ln in seg.text.split("\n") if ln.strip()]
    header = next((ln.lstrip("#").split() for ln in lines if ln.startswith("#")), None)
    if header is None:
        raise ParseError("no '# be_id be_name …' header in 'show servers state' output", source=seg.source)
    rows = []
    for ln in lines:
        if ln.startswith("#") or re.fullmatch(r"\d+", ln.strip()):
            continue
        rec = dict(zip(header, ln.split(), strict=False))
        rows.append({
            "proxy": rec.get("be_name"), "server": rec.get("srv_name"), "type": "server",
            "address": rec.get("srv_addr"), "port": to_int(rec.get("srv_port")),
            "weight": to_float(rec.get("srv_uweight")), "status": STATE_OP.get(rec.get("srv_op_state", ""), None),
        })  # fmt: skip
    out = Parsed()
    out.add_run({"tool": "haproxy", "line": 1}, servers=rows)
    return out


def _detect_info(text: str) -> bool:
    t = text.lstrip()
    if t.startswith("Name: HAProxy\n"):
        return True
    return t.startswith("[") and '"name":"Name"' in t[:300].replace(" ", "") and "HAProxy" in t[:600]


def _detect_state(text: str) -> bool:
    lines = text.lstrip().split("\n", 2)
    return len(lines) > 1 and lines[0].strip().isdigit() and lines[1].startswith("# be_id be_name srv_id srv_name")


FORMATS = [
    Format("haproxy-info", "haproxy", _detect_info, parse_info, whole_file=True, json=True,
           description="HAProxy 'show info' (text and json)"),
    Format("haproxy-servers-state", "haproxy", _detect_state, parse_state, whole_file=True,
           description="HAProxy 'show servers state'"),
]  # fmt: skip
