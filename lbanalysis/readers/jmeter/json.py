"""The ``statistics.json`` of JMeter's HTML dashboard (``jmeter -n … -e -o DIR``, JMeter 3.0+).

One object per sampler label and one for ``Total``::

    {
      "Total" : {
        "transaction" : "Total", "sampleCount" : 10, "errorCount" : 0, "errorPct" : 0.0,
        "meanResTime" : 3359.4, "medianResTime" : 3048.0, "minResTime" : 2659.0, "maxResTime" : 4663.0,
        "pct1ResTime" : 4642.5, "pct2ResTime" : 4663.0, "pct3ResTime" : 4663.0,
        "throughput" : 1.447596988998263, "receivedKBytesPerSec" : 52.34674697814128,
        "sentKBytesPerSec" : 0.18943163723219456
      },
      "home" : { "transaction" : "home", … }
    }

Debian's JMeter (2.13) has no dashboard: the shape is taken from files
published in public repositories (``tests/fixtures/jmeter/published/SHAPES.md``).
``Total`` is the run; every object (``Total`` too) goes to the metrics
table (``metric`` = its transaction; ``requests``, ``failures``,
``failures_pct``, ``avg``, ``med``, ``min``, ``max``, ``pct1`` … ``pct3``,
``rate``, ``received``, ``sent`` in s, %, 1/s and B/s). ``pct1ResTime`` …
``pct3ResTime`` are the percentiles set by ``aggregate_rpt_pct1`` …
``pct3`` (90, 95 and 99 by default), which the file does not name: they are
kept as JMeter names them, only the median goes to the percentiles table.

==================  ==============================================  ======
field of Total      runs column                                     unit
==================  ==============================================  ======
sampleCount         ``requests_attempted``; ``requests`` when no
                    error (the file does not say which samples got
                    no answer)
errorCount          ``failed``
meanResTime …       ``latency_mean_s``, ``_min_s``, ``_max_s``      ms
throughput          ``requests_attempted_per_s`` (``requests_per_s``  1/s
                    when no error); ``duration_s`` = count / rate
receivedKBytes…     ``bytes_per_s``                                 KiB/s
sentKBytesPerSec    ``bytes_sent_per_s``                            KiB/s
==================  ==============================================  ======

>>> p = parse(Segment('{"Total": {"transaction": "Total", "sampleCount": 10, "errorCount": 0, "errorPct": 0.0, '
...                   '"meanResTime": 3359.4, "throughput": 2.0, "receivedKBytesPerSec": 1.0}}'))
>>> r = p.runs[0]
>>> r["requests"], r["duration_s"], r["latency_mean_s"], r["bytes_per_s"]
(10, 5.0, 3.3594, 1024.0)
"""

from __future__ import annotations

import json
import math
import re

from ...errors import ParseError
from ...text import Segment
from ..base import Format, Parsed
from ..locust.text import name_rows

__all__ = ["FIELDS", "FORMATS", "detect", "parse"]

# field -> (metrics stat, unit, factor to SI)
FIELDS: dict[str, tuple[str, str, float]] = {
    "sampleCount": ("requests", "", 1.0),
    "errorCount": ("failures", "", 1.0),
    "errorPct": ("failures_pct", "%", 1.0),
    "meanResTime": ("avg", "s", 1e-3),
    "medianResTime": ("med", "s", 1e-3),
    "minResTime": ("min", "s", 1e-3),
    "maxResTime": ("max", "s", 1e-3),
    "pct1ResTime": ("pct1", "s", 1e-3),
    "pct2ResTime": ("pct2", "s", 1e-3),
    "pct3ResTime": ("pct3", "s", 1e-3),
    "throughput": ("rate", "1/s", 1.0),
    "receivedKBytesPerSec": ("received", "B/s", 1024.0),
    "sentKBytesPerSec": ("sent", "B/s", 1024.0),
}
_DETECT_RE = re.compile(r'^\s*\{\s*"[^"]*"\s*:\s*\{\s*"transaction"\s*:')


def detect(text: str) -> bool:
    """True for a dashboard ``statistics.json``: an object of objects that start with ``"transaction"``.

    >>> detect('{\\n  "Total" : {\\n    "transaction" : "Total",\\n    "sampleCount" : 3'), detect('{"a": 1}')
    (True, False)
    """
    return bool(_DETECT_RE.match(text.lstrip("\ufeff")[:300]))


def _number(obj: dict, key: str, seg: Segment) -> float | None:
    v = obj.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ParseError(f"not a number in {key!r}: {v!r}", source=seg.source, line=1, text=str(v)[:100])
    return float(v) if math.isfinite(v) else None  # JMeter writes NaN where there is nothing to divide


def parse(seg: Segment) -> Parsed:
    """Read a dashboard ``statistics.json``: its ``Total`` as the run, every transaction as metrics rows."""
    try:
        doc = json.loads(seg.text.lstrip("\ufeff"))
    except ValueError as e:
        raise ParseError(f"broken statistics.json: {e}", source=seg.source, line=getattr(e, "lineno", 1)) from None
    if not isinstance(doc, dict) or not all(isinstance(v, dict) for v in doc.values()):
        raise ParseError("statistics.json is not an object of transactions", source=seg.source, line=1)
    total = doc.get("Total")
    if total is None:
        raise ParseError("statistics.json without its 'Total'", source=seg.source, line=1)
    metrics = []
    for name, obj in doc.items():
        items = [(stat, v * factor, unit) for key, (stat, unit, factor) in FIELDS.items()
                 if (v := _number(obj, key, seg)) is not None]  # fmt: skip
        metrics += name_rows(str(obj.get("transaction", name)), items)
    count, errors = _number(total, "sampleCount", seg), _number(total, "errorCount", seg)
    rate = _number(total, "throughput", seg)
    run: dict = {"tool": "jmeter", "line": 1}
    if count is not None:
        run["requests_attempted"] = round(count)
    if errors is not None:
        run["failed"] = round(errors)
    for key, col in (("meanResTime", "latency_mean_s"), ("minResTime", "latency_min_s"),
                     ("maxResTime", "latency_max_s")):  # fmt: skip
        if (v := _number(total, key, seg)) is not None:
            run[col] = v / 1e3
    if rate is not None:
        run["requests_attempted_per_s"] = rate
        if rate > 0 and count is not None:
            run["duration_s"] = count / rate
    for key, col in (("receivedKBytesPerSec", "bytes_per_s"), ("sentKBytesPerSec", "bytes_sent_per_s")):
        if (v := _number(total, key, seg)) is not None:
            run[col] = v * 1024.0
    if errors == 0 and count is not None:
        run.update(requests=round(count), requests_ok=round(count), failed_network=0)
        if rate is not None:
            run["requests_per_s"] = rate
    percentiles = []
    if (med := _number(total, "medianResTime", seg)) is not None:
        percentiles.append({"percentile": 50.0, "latency_s": med / 1e3})
    out = Parsed()
    out.add_run(run, metrics=metrics, percentiles=percentiles)
    return out


FORMATS = [
    Format("jmeter-statistics-json", "jmeter", detect, parse, whole_file=True,
           description="JMeter HTML dashboard statistics.json (JMeter 3.0+)"),
]  # fmt: skip
