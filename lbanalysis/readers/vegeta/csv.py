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
``vegeta report`` does (:func:`lbanalysis.readers.vegeta.shared.summarize`), so its
figures are those of a report of the same file (the percentiles aside:
vegeta estimates them, the requests table holds every latency).

>>> p = parse(Segment("1795632279598066427,200,1252909,0,177,,,,1,GET,http://h:81/,\\n"))
>>> p.runs[0]["requests"], p.tables["requests"].loc[0, "latency_s"], p.tables["requests"].loc[0, "url"]
(1, 0.001252909, 'http://h:81/')
"""

from __future__ import annotations

import csv
import io
import re

from ...errors import ParseError
from ...text import Segment
from ..base import Format, Parsed
from . import shared

__all__ = ["FIELDS", "FORMATS", "detect", "parse"]

# position -> (what the field holds, whether it is a whole number); None: not kept
FIELDS: tuple[tuple[str, bool] | None, ...] = (
    ("timestamp", True),
    ("code", True),
    ("latency", True),
    ("bytes out", True),
    ("bytes in", True),
    ("error", False),
    None,  # base64 body
    ("attack", False),
    None,  # vegeta's seq
    ("method", False),
    ("url", False),
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


def _bad(fields: list[str], source: str, line: int) -> ParseError:
    """The error for a line that is not a vegeta result: too few fields, or a number that is not one."""
    text = ",".join(fields)
    if len(fields) < _MIN_FIELDS:
        return ParseError(f"a vegeta result has at least {_MIN_FIELDS} fields, found {len(fields)}", source=source,
                          line=line, text=text)  # fmt: skip
    name, raw = next((spec[0], raw) for spec, raw in zip(FIELDS, fields, strict=False)
                     if spec and spec[1] and not raw.isdecimal())  # fmt: skip
    return ParseError(f"not a whole number in field {name!r}: {raw!r}", source=source, line=line, text=text)


def parse(seg: Segment) -> Parsed:
    """Read a vegeta CSV: one run, one requests row per result."""
    res = shared.Results()
    add = res.add
    for n, fields in enumerate(csv.reader(io.StringIO(seg.text.lstrip("\ufeff"))), 1):
        if not fields or not any(f.strip() for f in fields):
            continue
        try:
            if len(fields) < _MIN_FIELDS:
                raise ValueError
            ts, code, lat, b_out, b_in = fields[0], fields[1], fields[2], fields[3], fields[4]
            if not (ts.isdecimal() and code.isdecimal() and lat.isdecimal() and b_out.isdecimal() and b_in.isdecimal()):
                raise ValueError
            more = len(fields)
            add(int(ts), int(lat) / 1e9, int(code), int(b_in), int(b_out), fields[5],
                fields[9] if more > 9 else None, fields[10] if more > 10 else None, fields[7] if more > 7 else None)  # fmt: skip
        except ValueError:
            raise _bad(fields, seg.source, seg.line - 1 + n) from None
    out = Parsed([{"tool": "vegeta", "line": 1, **shared.summarize(res)}])
    if len(res) and seg.wants("requests"):
        out.tables["requests"] = shared.requests_frame(res)
    return out


FORMATS = [Format("vegeta-csv", "vegeta", detect, parse, whole_file=True, description="vegeta encode --to csv results")]
