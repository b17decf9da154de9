"""vegeta's per-request results as CSV (``vegeta encode --to csv``): the requests table.

No header line; one result per line, not in start order::

    1795632279598066427,200,1252909,0,177,,PGh0bWw+…,,1,GET,http://127.0.0.1:18881/,Q29udGVudC1…
    1795632279490545367,0,301886655,0,0,"Get ""http://127.0.0.1:18881/hang"": context deadline exceeded …",,,0,GET,…

=============================  ===================  ===========
CSV field (vegeta's order)     requests column      unit
=============================  ===================  ===========
1 timestamp                    ``start``,           ns since the epoch (UTC)
                               ``start_s``
2 code (0: no response)        ``status``
3 latency                      ``latency_s``        ns
4 bytes out                    (summed into the run's ``bytes_sent``)
5 bytes in                     ``bytes``            B (body, at most -max-body)
6 error                        ``error``
7 body (base64)                (not kept)
8 attack name                  the run's ``label`` when one name
9 seq                          (``seq`` is the position in start order)
10 method, 11 URL              ``method``, ``url``
12 headers (base64)            (not kept)
=============================  ===================  ===========

v12.0 to v12.7 write the first 9 fields, older versions 6 or 7; every
layout from 6 fields on is read. The run row sums the results up as
``vegeta report`` does (:func:`lbanalysis.readers._vegeta.summarize`), so its
figures are those of a report of the same file (the percentiles aside:
vegeta estimates them, the requests table holds every latency).

>>> p = parse(Segment("1795632279598066427,200,1252909,0,177,,,,1,GET,http://h:81/,\\n"))
>>> p.runs[0]["requests"], p.tables["requests"][0]["latency_s"], p.tables["requests"][0]["url"]
(1, 0.001252909, 'http://h:81/')
"""

from __future__ import annotations

import csv
import io
import re

from ..errors import ParseError
from ..text import Segment
from . import _vegeta
from .base import Format, Parsed

__all__ = ["FIELDS", "FORMATS", "detect", "parse"]

# position -> (requests column, kind); None: not kept
FIELDS: tuple[tuple[str, str] | None, ...] = (
    ("_ns", "int"),
    ("status", "int"),
    ("latency_s", "ns"),
    ("_bytes_out", "int"),
    ("bytes", "int"),
    ("error", "str"),
    None,  # base64 body
    ("_attack", "str"),
    None,  # vegeta's seq
    ("method", "str"),
    ("url", "str"),
    None,  # base64 headers
)
_MIN_FIELDS = 6
_DETECT_RE = re.compile(r"\d{15,20},\d{1,3},\d+,\d+,\d+,")


def detect(text: str) -> bool:
    """True when the first line is a vegeta CSV result (ns timestamp, code, ns latency, bytes out, bytes in).

    >>> detect("1795632279598066427,200,1252909,0,177,,,,1,GET,http://h/,\\n"), detect("a,b,c\\n")
    (True, False)
    """
    first = text.lstrip("\ufeff\n").split("\n", 1)[0]
    return _DETECT_RE.match(first) is not None


def _result(fields: list[str], source: str, line: int) -> dict:
    if len(fields) < _MIN_FIELDS:
        raise ParseError(f"a vegeta result has at least {_MIN_FIELDS} fields, found {len(fields)}", source=source,
                         line=line, text=",".join(fields))  # fmt: skip
    row: dict = {}
    for spec, raw in zip(FIELDS, fields, strict=False):
        if spec is None:
            continue
        col, kind = spec
        if kind == "str":
            if raw:
                row[col] = raw
            continue
        if not raw.isdigit():
            raise ParseError(f"not a whole number in field {col.lstrip('_')!r}: {raw!r}", source=source, line=line,
                             text=",".join(fields))  # fmt: skip
        row[col] = int(raw) / 1e9 if kind == "ns" else int(raw)
    return row


def parse(seg: Segment) -> Parsed:
    """Read a vegeta CSV: one run, one requests row per result."""
    rows: list[dict] = []
    errors: dict[str, None] = {}
    for n, fields in enumerate(csv.reader(io.StringIO(seg.text.lstrip("\ufeff"))), 1):
        if not fields or not any(f.strip() for f in fields):
            continue
        row = _result(fields, seg.source, seg.line - 1 + n)
        if "error" in row:
            errors.setdefault(row["error"], None)
        rows.append(row)
    run = {"tool": "vegeta", "line": 1, **_vegeta.summarize(rows, list(errors))}
    attacks = {r.get("_attack") for r in rows}
    if len(attacks) == 1 and None not in attacks:
        run["label"] = attacks.pop()
    for key in ("url", "method"):
        values = {r.get(key) for r in rows}
        if len(values) == 1 and None not in values:
            run.update(_vegeta.target(values.pop()) if key == "url" else {key: values.pop()})
    out = Parsed()
    out.add_run(run, requests=_vegeta.request_rows(rows) if seg.wants("requests") else [])
    return out


FORMATS = [Format("vegeta-csv", "vegeta", detect, parse, whole_file=True, description="vegeta encode --to csv results")]
