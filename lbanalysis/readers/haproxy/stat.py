"""HAProxy statistics: ``show stat`` CSV (and the stats page's ``;csv``), ``show stat json``, ``show stat typed``.

One snapshot file is one run (tool ``haproxy``); its proxies and servers go
to the ``servers`` table, one row each. The three forms carry the same
fields; each is turned into records (field name -> value) and one table,
:data:`FIELDS`, maps them to the schema (every field of the 1.4 ... 2.x CSV
that a stats collector reads: counters, rates, health checks, downtime,
``lastchg`` and ``lastsess`` in seconds, ``check_duration`` in ms)::

    # pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,...
    app,s1,0,0,0,2,2,762,66132,89154,,0,,0,0,0,0,no check,1,1,0,...

``show stat typed`` prints ``F.2.0.4.scur.1:MGP:u32:0`` (object type,
proxy id, object id, field position, name, process : tags : type : value);
``show stat json`` an array per object of ``{"field": {"name": ...},
"value": {"value": ...}}``. Column sets differ by version (1.4 stops at
``hrsp_other``-era fields; 2.x and 3.x add many): unknown fields are passed
over, missing ones stay empty. Times (``qtime``, ``ctime``, ``rtime``,
``ttime``) are milliseconds in HAProxy, seconds here. A snapshot says
nothing of when it was taken: ``timestamp`` comes from a manifest.

Versions checked: HAProxy 2.6.12 (Debian 12, captured); the 1.4 (52
fields), 1.5 (57) and 2.9 (200-odd, module counters after a ``-`` column)
column sets as those versions print them, with the captured values
(``tests/fixtures/haproxy/shapes``).

>>> p = parse(Segment("# pxname,svname,qcur,qmax,scur,smax,slim,stot,weight,lbtot,qtime,type\\n"
...                   "app,s1,0,3,1,2,2,762,1,759,12,2\\n"))
>>> row = p.tables["servers"][0]
>>> row["proxy"], row["server"], row["type"], row["queue_max"], row["lbtot"], row["queue_time_s"]
('app', 's1', 'server', 3, 759, 0.012)
"""

from __future__ import annotations

import csv
import io
import json
import re

from ...errors import ParseError
from ...text import Segment
from ..base import Format, LineKind, Parsed, scan, to_float, to_int

__all__ = ["FIELDS", "FORMATS", "LINE_KINDS", "TYPES", "records_csv", "records_json", "records_typed", "split_addr"]

# HAProxy field -> (servers column, kind): kind int, float, ms (milliseconds -> s), age (seconds; -1, never,
# is empty) or str
FIELDS: dict[str, tuple[str, str]] = {
    "pxname": ("proxy", "str"), "svname": ("server", "str"), "status": ("status", "str"),
    "weight": ("weight", "float"), "scur": ("sessions_current", "int"), "smax": ("sessions_max", "int"),
    "slim": ("sessions_limit", "int"), "stot": ("sessions_total", "int"), "qcur": ("queue_current", "int"),
    "qmax": ("queue_max", "int"), "qlimit": ("queue_limit", "int"), "lbtot": ("lbtot", "int"),
    "bin": ("bytes_in", "float"), "bout": ("bytes_out", "float"), "hrsp_1xx": ("hrsp_1xx", "int"),
    "hrsp_2xx": ("hrsp_2xx", "int"), "hrsp_3xx": ("hrsp_3xx", "int"), "hrsp_4xx": ("hrsp_4xx", "int"),
    "hrsp_5xx": ("hrsp_5xx", "int"), "hrsp_other": ("hrsp_other", "int"), "ereq": ("errors_request", "int"),
    "econ": ("errors_connect", "int"), "eresp": ("errors_response", "int"), "dreq": ("denied_request", "int"),
    "dresp": ("denied_response", "int"), "wretr": ("retries", "int"), "wredis": ("redispatches", "int"),
    "rate": ("rate", "float"), "rate_max": ("rate_max", "float"), "qtime": ("queue_time_s", "ms"),
    "ctime": ("connect_time_s", "ms"), "rtime": ("response_time_s", "ms"), "ttime": ("total_time_s", "ms"),
    "addr": ("address", "str"), "type": ("type", "type"),
    "act": ("active_servers", "int"), "bck": ("backup_servers", "int"), "chkfail": ("check_failures", "int"),
    "chkdown": ("check_downs", "int"), "lastchg": ("last_change_s", "float"), "downtime": ("downtime_s", "float"),
    "pid": ("process_id", "int"), "iid": ("proxy_id", "int"), "sid": ("server_id", "int"),
    "throttle": ("throttle_pct", "float"), "tracked": ("tracked", "str"), "rate_lim": ("rate_limit", "float"),
    "check_status": ("check_status", "str"), "check_code": ("check_code", "int"),
    "check_duration": ("check_duration_s", "ms"), "hanafail": ("check_failed_details", "int"),
    "req_rate": ("request_rate", "float"), "req_rate_max": ("request_rate_max", "float"),
    "req_tot": ("requests_total", "int"), "cli_abrt": ("aborts_client", "int"), "srv_abrt": ("aborts_server", "int"),
    "comp_in": ("compressed_in", "float"), "comp_out": ("compressed_out", "float"),
    "comp_byp": ("compression_bypassed", "float"), "comp_rsp": ("compressed_responses", "int"),
    "lastsess": ("last_session_s", "age"), "last_chk": ("last_check", "str"), "last_agt": ("last_agent_check", "str"),
    "check_rise": ("check_rise", "int"), "check_fall": ("check_fall", "int"), "check_health": ("check_health", "int"),
    "mode": ("mode", "str"), "algo": ("algorithm", "str"), "conn_rate": ("connection_rate", "float"),
    "conn_rate_max": ("connection_rate_max", "float"), "conn_tot": ("connections_total", "int"),
    "intercepted": ("intercepted", "int"), "dcon": ("denied_connection", "int"), "dses": ("denied_session", "int"),
    "wrew": ("rewrite_failures", "int"), "connect": ("connect_attempts", "int"), "reuse": ("connection_reuses", "int"),
    "cache_lookups": ("cache_lookups", "int"), "cache_hits": ("cache_hits", "int"),
    "srv_icur": ("idle_connections_current", "int"), "src_ilim": ("idle_connections_limit", "int"),
    "qtime_max": ("queue_time_max_s", "ms"), "ctime_max": ("connect_time_max_s", "ms"),
    "rtime_max": ("response_time_max_s", "ms"), "ttime_max": ("total_time_max_s", "ms"),
    "eint": ("errors_internal", "int"), "idle_conn_cur": ("unsafe_idle_connections", "int"),
    "safe_conn_cur": ("safe_idle_connections", "int"), "used_conn_cur": ("used_connections", "int"),
    "need_conn_est": ("needed_connections", "int"), "uweight": ("weight_user", "float"),
    "agg_server_status": ("aggregated_server_status", "int"),
    "agg_server_check_status": ("aggregated_server_check_status", "int"),
    "agg_check_status": ("aggregated_check_status", "int"), "check_desc": ("check_description", "str"),
    "agent_status": ("agent_status", "str"), "agent_code": ("agent_code", "int"),
    "agent_duration": ("agent_duration_s", "ms"), "agent_desc": ("agent_description", "str"),
    "agent_rise": ("agent_rise", "int"), "agent_fall": ("agent_fall", "int"), "agent_health": ("agent_health", "int"),
    "cookie": ("cookie", "str"),
}  # fmt: skip
#: HAProxy's ``type`` field (0-3) and the typed form's object letter, in words.
TYPES = {"0": "frontend", "1": "backend", "2": "server", "3": "listener",
         "F": "frontend", "B": "backend", "S": "server", "L": "listener"}  # fmt: skip

_TYPED_RE = re.compile(r"^([FBSL])\.(\d+)\.(\d+)\.(\d+)\.(\w+)\.(\d+):(\w*):(\w+):(.*)$")


def records_csv(text: str) -> list[dict[str, str]]:
    """``show stat`` CSV (header ``# pxname,svname,...``) into one record per line.

    The table ends where HAProxy ends it, at an empty line, or at the first
    line that is not a row (a Markdown fence or a note after a pasted
    snapshot).

    >>> records_csv("# pxname,svname,stot,\\napp,s1,5,\\n```\\nnext,note\\n")
    [{'pxname': 'app', 'svname': 's1', 'stot': '5'}]
    """
    lines = text.lstrip("\ufeff").lstrip("\r\n").split("\n")  # the stats page's ;csv may start with an empty line
    header = lines[0].lstrip("#").strip().rstrip(",").split(",")
    out = []
    for values in csv.reader(io.StringIO("\n".join(lines[1:]))):
        if len(values) < 3:  # an empty line, a fence, prose: the table has ended
            break
        out.append(dict(zip(header, values, strict=False)))
    return out


def records_json(text: str) -> list[dict[str, str]]:
    """``show stat json``: an array per object of field/value objects."""
    data = json.loads(text)
    out = []
    for obj in data:
        rec = {f["field"]["name"]: f["value"].get("value") for f in obj if "field" in f and "value" in f}
        if obj:
            rec.setdefault("type", obj[0].get("objType", "")[:1].upper())
        out.append(rec)
    return out


def _field(objects: dict[tuple[str, str, str], dict[str, str]], n: int, m: re.Match) -> None:
    obj = objects.setdefault((m.group(1), m.group(2), m.group(3)), {"type": m.group(1)})
    obj[m.group(5)] = m.group(9)


#: The one kind of line ``show stat typed`` prints (see :class:`LineKind`); the CSV and JSON forms are documents.
LINE_KINDS: list[LineKind] = [LineKind("field", ":", _TYPED_RE, _field)]


def records_typed(text: str) -> list[dict[str, str]]:
    """``show stat typed``: one ``F.proxy.obj.pos.name.proc:tags:type:value`` line per field.

    >>> records_typed("F.2.0.0.pxname.1:KNSV:str:app\\nS.3.1.1.svname.1:KNSV:str:s1\\nF.2.0.4.scur.1:MGP:u32:0\\n")
    [{'type': 'F', 'pxname': 'app', 'scur': '0'}, {'type': 'S', 'svname': 's1'}]
    """
    return list(scan(text, LINE_KINDS, {}, prepare=lambda n, line: line.strip()).values())


def _value(raw: object, kind: str) -> object:
    text = "" if raw is None else str(raw).strip()
    if text == "":
        return None
    if kind == "str":
        return text
    if kind == "type":
        return TYPES.get(text, text)
    if kind == "int":
        return to_int(text)
    v = to_float(text)
    if v is None or (kind == "age" and v < 0):  # lastsess -1: no session yet
        return None
    return v / 1000.0 if kind == "ms" else v


_ADDR_RE = re.compile(r"\[([0-9A-Fa-f:.]+)\]:(\d+)|([^:\s]+):(\d+)")


def split_addr(addr: str) -> tuple[str, int | None]:
    """HAProxy's ``addr`` field (``host:port``, ``[v6]:port``) as the address and the port.

    >>> split_addr("127.0.0.1:18310"), split_addr("[::1]:8080"), split_addr("unix@/run/app.sock")
    (('127.0.0.1', 18310), ('::1', 8080), ('unix@/run/app.sock', None))
    """
    m = _ADDR_RE.fullmatch(addr)
    if not m:
        return addr, None
    host, port = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return host, int(port)


def _parsed(records: list[dict], source: str) -> Parsed:
    rows = []
    for rec in records:
        row = {col: _value(rec.get(name), kind) for name, (col, kind) in FIELDS.items() if name in rec}
        if row.get("proxy") is None:
            continue
        if row.get("address"):
            row["address"], port = split_addr(row["address"])
            if port is not None:
                row["port"] = port
        rows.append(row)
    if not rows:
        raise ParseError("HAProxy statistics without any proxy line", source=source)
    out = Parsed()
    out.add_run({"tool": "haproxy", "line": 1}, servers=rows)
    return out


def _parse_csv(seg: Segment) -> Parsed:
    return _parsed(records_csv(seg.text), seg.source)


def _parse_json(seg: Segment) -> Parsed:
    try:
        return _parsed(records_json(seg.text), seg.source)
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise ParseError(f"not HAProxy 'show stat json' output ({e})", source=seg.source) from None


def _parse_typed(seg: Segment) -> Parsed:
    return _parsed(records_typed(seg.text), seg.source)


def parse(seg: Segment) -> Parsed:
    """Read a snapshot in whichever of the three forms it is."""
    for f in FORMATS:
        if f.detect(seg.text):
            return f.parse(seg)
    raise ParseError("not HAProxy statistics", source=seg.source)


def _detect_csv(text: str) -> bool:
    """The ``# pxname,svname,`` header first, after empty lines (a saved stats page starts with one).

    >>> _detect_csv("\\n# pxname,svname,qcur\\n"), _detect_csv("note\\n# pxname,svname,qcur\\n")
    (True, False)
    """
    return text.lstrip("\ufeff").lstrip("\r\n").startswith("# pxname,svname,")


def _detect_json(text: str) -> bool:
    head = text.lstrip()[:200]
    return head.startswith("[") and '"objType"' in head and '"field"' in text[:2000]


def _detect_typed(text: str) -> bool:
    return bool(_TYPED_RE.match(text.lstrip().split("\n", 1)[0]))


FORMATS = [
    Format("haproxy-stat-csv", "haproxy", _detect_csv, _parse_csv, whole_file=True,
           description="HAProxy 'show stat' CSV and the stats page's ;csv"),
    Format("haproxy-stat-json", "haproxy", _detect_json, _parse_json, whole_file=True, json=True,
           json_words=("objType",),
           description="HAProxy 'show stat json'"),
    Format("haproxy-stat-typed", "haproxy", _detect_typed, _parse_typed, whole_file=True,
           description="HAProxy 'show stat typed'"),
]  # fmt: skip
