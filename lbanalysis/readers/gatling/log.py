"""Gatling's ``simulation.log``: the tab-separated text of Gatling 2.0 to 3.12; the binary log of 3.13+ refused.

Every line is one record; its kind and the place of each field changed
between versions (the layouts are data below, :data:`LAYOUTS`)::

    RUN	OneRequest	onerequest	1795790352697	 	3.7.6
    USER	one request	START	1795790354513
    REQUEST	pages	index	1795790511001	1795790511352	OK
    REQUEST	pages	missing	1795790511458	1795790511459	KO	status.find.in([200, 209], 304), found 404
    GROUP	pages	1795790511201	1795790511497	113	KO
    USER	one request	END	1795790356235

===========  =====================================================================
layout       where the fields stand
===========  =====================================================================
``3.4``      3.4 to 3.12: ``REQUEST groups name start end status message``
``3.0``      3.0 to 3.3: ``REQUEST user groups name start end status message``
``2.2``      2.2 and 2.3 (RUN with 7 fields, format "2.0"): ``REQUEST scenario
             user groups name start end status message``
``2.0``      2.0 and 2.1 (the kind third): ``scenario user REQUEST groups name
             request-start request-end response-start response-end status message``
===========  =====================================================================

One run per file (the ``RUN`` record: ``label`` is the simulation, ``timestamp``
its start, ``tool_version`` what 3.x writes); one ``requests`` row per
``REQUEST``: ``start`` (UTC, from epoch ms), ``latency_s`` (end - start; 2.0
and 2.1: response end - request start), ``label`` (groups and name as the
console shows them, ``pages / index``), ``success`` (OK), ``error`` (a KO's
message), ``client`` (the user, where the layout has it). The run's
``requests_attempted`` counts every REQUEST, ``failed`` the KO,
``failed_network`` the KO whose message says no answer came (refused, reset,
timed out), ``non_2xx`` the KO whose status check found a status outside 2xx
(``status.find.in(200,...), but actually found 503``: also the ``status`` of
its request row), ``requests`` the rest; ``duration_s`` is the first start to the
last end, ``requests_per_s`` the requests over it. GROUP, USER and ERROR
records are not requests: a group's times are its requests'.

>>> p = parse(Segment("RUN\\tSim\\tsim\\t1000\\t \\t3.7.6\\nREQUEST\\t\\tget\\t1000\\t1010\\tOK\\t \\n"
...                   "REQUEST\\t\\tget\\t1500\\t2000\\tKO\\tj.n.ConnectException: Connection refused\\n"))
>>> r = p.runs[0]
>>> r["requests"], r["failed"], r["failed_network"], r["duration_s"], r["tool_version"]
(1, 1, 1, 1.0, '3.7.6')
"""

from __future__ import annotations

import math
import re
from collections import Counter
from datetime import UTC, datetime

from ...errors import ParseError
from ...schema import NO_ANSWER
from ...text import Segment
from ..base import Format, Parsed
from .shared import no_answer, non_2xx, status_found

__all__ = ["FORMATS", "LAYOUTS", "detect", "parse"]

#: Layout -> the place of each REQUEST field (``kind``: where the record's kind stands; ``user``: None where
#: the record has none; ``start``/``end``: the times a request's latency spans).
LAYOUTS: dict[str, dict[str, int | None]] = {
    "3.4": {"kind": 0, "user": None, "groups": 1, "name": 2, "start": 3, "end": 4, "status": 5, "message": 6},
    "3.0": {"kind": 0, "user": 1, "groups": 2, "name": 3, "start": 4, "end": 5, "status": 6, "message": 7},
    "2.2": {"kind": 0, "user": 2, "groups": 3, "name": 4, "start": 5, "end": 6, "status": 7, "message": 8},
    "2.0": {"kind": 2, "user": 1, "groups": 3, "name": 4, "start": 5, "end": 8, "status": 9, "message": 10},
}
#: RUN record layout -> the place of (simulation, start, version); 2.x write the log format ("2.0"), not Gatling's.
RUN_FIELDS: dict[str, tuple[int, int, int | None]] = {
    "3.4": (1, 3, 5),
    "3.0": (1, 3, 5),
    "2.2": (1, 4, None),
    "2.0": (0, 3, None),
}
_RUN_RE = re.compile(r"^(?:ASSERTION\t[^\n]*\n)*(?:RUN\t[^\t\n]*\t[^\t\n]*\t|[^\t\n]*\t[^\t\n]*\tRUN\t\d)", re.M)
#: The binary simulation.log of Gatling 3.13 and later: four zero bytes, then Gatling's version as a string
#: with its length in one byte (``\x00\x00\x00\x00\x063.13.1``), then the simulation's class.
_BINARY_RE = re.compile(r"^\x00\x00\x00\x00[\x01-\x1f](\d+\.\d+(?:\.\d+)*)")


def _layout(fields: list[str], source: str) -> str:
    """The layout of a log from its RUN record's fields.

    >>> _layout(["RUN", "S", "s", "1", " ", "3.7.6"], "x"), _layout(["RUN", "S", "s", "d", "1", " ", "2.0"], "x")
    ('3.4', '2.2')
    """
    if len(fields) > 2 and fields[2] == "RUN":
        return "2.0"
    if len(fields) >= 7:
        return "2.2"
    version = fields[5] if len(fields) > 5 else ""
    if re.match(r"3\.[0-3]\b", version):
        return "3.0"
    if re.match(r"3\.\d+", version):
        return "3.4"
    raise ParseError(f"a Gatling simulation.log of an unknown layout (RUN record: {fields!r})", source=source, line=1)


def _ms(text: str, source: str, n: int) -> int:
    try:
        return int(text)
    except ValueError:
        raise ParseError(f"a Gatling time stamp that is no number: {text!r}", source=source, line=n) from None


def parse(seg: Segment) -> Parsed:
    """Read one ``simulation.log`` (text) into a run and its requests."""
    binary = _BINARY_RE.match(seg.text)
    if binary:
        raise ParseError(
            f"a binary Gatling simulation.log, written by Gatling {binary.group(1)} (3.13 and later write it in "
            "binary; up to 3.12 it was tab-separated text): lbanalysis cannot read it; read the console output "
            "Gatling printed (its Global Information), or its HTML report's figures",
            source=seg.source,
            line=1,
        )
    layout: str | None = None
    run: dict = {"tool": "gatling", "line": 1}
    rows: list[dict] = []
    for n, line in enumerate(seg.text.split("\n"), 1):
        if not line.strip():
            continue
        fields = line.rstrip("\r").split("\t")
        if layout is None:
            if fields[0] == "ASSERTION":
                continue
            layout = _layout(fields, seg.source)
            name_at, start_at, version_at = RUN_FIELDS[layout]
            run.update(label=fields[name_at], timestamp=_time(_ms(fields[start_at], seg.source, n)), line=n)
            if version_at is not None:
                run["tool_version"] = fields[version_at]
            continue
        at = LAYOUTS[layout]
        if len(fields) <= at["status"] or fields[at["kind"]] != "REQUEST":
            continue  # USER, GROUP, ERROR, ASSERTION records
        start = _ms(fields[at["start"]], seg.source, n)
        end = _ms(fields[at["end"]], seg.source, n)
        ok = fields[at["status"]] == "OK"
        message = fields[at["message"]].strip() if len(fields) > at["message"] else ""
        groups = fields[at["groups"]].replace(",", " / ") if fields[at["groups"]].strip() else ""
        user = fields[at["user"]] if at["user"] is not None else None
        rows.append({"start_ms": start, "latency_s": (end - start) / 1000.0, "label": " / ".join(
            p for p in (groups, fields[at["name"]]) if p), "success": ok, "error": None if ok else message or "KO",
            "client": int(user) if user and user.isdigit() else None})  # fmt: skip
    if layout is None:
        raise ParseError("a Gatling simulation.log without its RUN record", source=seg.source, line=1)
    out = Parsed()
    out.add_run({**run, **_summary(rows)}, requests=_requests(rows))
    return out


def _time(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000.0, UTC).replace(tzinfo=None)


def _summary(rows: list[dict]) -> dict:
    """The run's counts, duration, rate and latencies from its requests."""
    if not rows:
        return {"requests_attempted": 0, "requests": 0, "error": "no request in the log", "error_kind": NO_ANSWER}
    ko = [r for r in rows if not r["success"]]
    lost = sum(1 for r in ko if no_answer(r["error"]))
    first = min(r["start_ms"] for r in rows)
    last = max(r["start_ms"] + round(r["latency_s"] * 1000) for r in rows)
    answered = [r["latency_s"] for r in rows if r["success"] or not no_answer(r["error"])]
    d: dict = {"requests_attempted": len(rows), "requests": len(rows) - lost, "requests_ok": len(rows) - len(ko),
               "failed": len(ko), "failed_network": lost, "duration_s": (last - first) / 1000.0,
               "non_2xx": non_2xx(Counter(r["error"] for r in ko))}  # fmt: skip
    if d["duration_s"] > 0:
        d["requests_per_s"] = d["requests"] / d["duration_s"]
        d["requests_attempted_per_s"] = len(rows) / d["duration_s"]
    if answered:
        mean = sum(answered) / len(answered)
        d.update(latency_mean_s=mean, latency_min_s=min(answered), latency_max_s=max(answered),
                 latency_stdev_s=math.sqrt(sum((x - mean) ** 2 for x in answered) / len(answered)))  # fmt: skip
    if ko:
        messages = Counter(r["error"] for r in ko)
        text = "; ".join(f"{m} (x{c})" for m, c in messages.items())
        if lost == len(rows):
            d["error"], d["error_kind"] = text, NO_ANSWER
        else:
            d["warnings"] = text
    return d


def _requests(rows: list[dict]) -> list[dict]:
    """The requests table's rows, in start order."""
    if not rows:
        return []
    first = min(r["start_ms"] for r in rows)
    order = sorted(range(len(rows)), key=lambda i: rows[i]["start_ms"])
    out = []
    for seq, i in enumerate(order):
        r = rows[i]
        row = {"seq": seq, "start": _time(r["start_ms"]), "start_s": (r["start_ms"] - first) / 1000.0,
               **{k: r[k] for k in ("latency_s", "label", "success", "error", "client") if r[k] is not None}}  # fmt: skip
        if r["error"] and (code := status_found(r["error"])) is not None:
            row["status"] = code  # the status a failed check names (an OK request's is not written)
        out.append(row)
    return out


def detect(text: str) -> bool:
    """True for a Gatling ``simulation.log``: text (a RUN record first) or the binary log of 3.13+.

    >>> detect("RUN\\tSim\\tsim\\t1795790352697\\t \\t3.7.6\\nUSER\\tscn\\tSTART\\t1795790354513\\n")
    True
    """
    head = text[:2000]
    return bool(_RUN_RE.match(head)) or bool(_BINARY_RE.match(head))


FORMATS = [
    Format(
        "gatling-log",
        "gatling",
        detect,
        parse,
        whole_file=True,
        description="Gatling simulation.log (text of 2.0-3.12: one request per REQUEST record); binary 3.13+ refused",
    )
]
