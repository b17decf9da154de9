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
``Total`` is the run (wherever it stands among the labels); every object
(``Total`` too) goes to the metrics table (``metric`` = its transaction;
``requests``, ``failures``, ``failures_pct``, ``avg``, ``med``, ``min``,
``max``, ``pct1`` … ``pct3``, ``rate``, ``received``, ``sent`` in s, %, 1/s
and B/s, as JMeter names them). ``pct1ResTime`` … ``pct3ResTime`` are the
percentiles set by ``aggregate_rpt_pct1`` … ``pct3`` in
``jmeter.properties``, which the file does not name: JMeter's defaults, 90,
95 and 99 (:data:`PERCENTS`), go to the percentiles table with the median
(a run that changed them is not told apart by the file).

==================  ==============================================  ======
field of Total      runs column                                     unit
==================  ==============================================  ======
sampleCount         ``requests_attempted``; ``requests`` when no
                    error (the file does not say which failed
                    samples got an answer)
errorCount          ``failed``
meanResTime …       ``latency_mean_s``, ``_min_s``, ``_max_s``      ms
medianResTime,      percentiles table: 50, 90, 95, 99               ms
pct1ResTime …
throughput          ``requests_per_s`` and ``requests_attempted_per_s`` 1/s
                    (samples per second, answered or not, as the
                    dashboard's Throughput); ``duration_s`` = count /
                    rate
receivedKBytes…     ``bytes_per_s``                                 KiB/s
sentKBytesPerSec    ``bytes_sent_per_s``                            KiB/s
==================  ==============================================  ======

JMeter's ``throughput`` counts every sample, failed ones too (a ``Non HTTP
response code`` got no answer): with errors, ``requests_per_s`` is the
tool's own rate of samples, and ``failed`` says how many of them failed
(the error share's basis is the samples, see
:data:`lbanalysis.analysis.evidence.errors.ERROR_COUNTERS`).

Several documents one after another (a loop appending to one file) are
one run each; any indentation and line ends read.

>>> p = parse(Segment('{"Total": {"transaction": "Total", "sampleCount": 10, "errorCount": 0, "errorPct": 0.0, '
...                   '"meanResTime": 3359.4, "throughput": 2.0, "receivedKBytesPerSec": 1.0}}'))
>>> r = p.runs[0]
>>> r["requests"], r["duration_s"], r["latency_mean_s"], r["bytes_per_s"], r["requests_per_s"]
(10, 5.0, 3.3594, 1024.0, 2.0)
"""

from __future__ import annotations

import math
import re

from ...errors import ParseError
from ...text import Segment
from ..base import Format, Parsed
from ..fields import documents, has_keys
from ..locust.text import name_rows

__all__ = ["FIELDS", "FORMATS", "KEYS", "PERCENTS", "detect", "parse"]

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
#: The percentile of each time field in the percentiles table: the median, and JMeter's default
#: aggregate_rpt_pct1 ... pct3 (jmeter.properties), which the file does not name.
PERCENTS = {"medianResTime": 50.0, "pct1ResTime": 90.0, "pct2ResTime": 95.0, "pct3ResTime": 99.0}
#: The keys of a transaction's object, in whatever order and layout they are written.
KEYS = ("transaction", "sampleCount", "meanResTime")
_DETECT_RE = re.compile(r'^\s*\{\s*"[^"]*"\s*:\s*\{\s*"transaction"\s*:')


def detect(text: str) -> bool:
    """True for a dashboard ``statistics.json``: an object of objects with ``transaction`` and its figures.

    >>> detect('{\\n  "Total" : {\\n    "transaction" : "Total",\\n    "sampleCount" : 3'), detect('{"a": 1}')
    (True, False)
    >>> detect('{"Total": {"errorCount": 0, "meanResTime": 1.0, "sampleCount": 3, "transaction": "Total"}}')
    True
    """
    if '"transaction"' not in text:
        return False  # what the pattern and the keys hold, looked for first (most documents are not JMeter's)
    text = text.lstrip("\ufeff")
    return bool(_DETECT_RE.match(text[:300])) or has_keys(text, KEYS, within=4096)


def _number(obj: dict, key: str, seg: Segment, line: int) -> float | None:
    v = obj.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ParseError(f"not a number in {key!r}: {v!r}", source=seg.source, line=line, text=str(v)[:100])
    return float(v) if math.isfinite(v) else None  # JMeter writes NaN where there is nothing to divide


def parse(seg: Segment) -> Parsed:
    """Read a dashboard ``statistics.json``: its ``Total`` as the run, every transaction as metrics rows (several
    documents one after another: a run each)."""
    out = Parsed()
    for doc, n, _ in documents(seg, "statistics.json"):
        _document(out, doc, seg.line - 1 + n, seg)
    if not out.runs:
        raise ParseError("no statistics.json object", source=seg.source, line=seg.line)
    return out


def _document(out: Parsed, doc: object, line: int, seg: Segment) -> None:
    """One ``statistics.json`` object as a run of ``out`` (its line in the file: ``line``)."""
    if not isinstance(doc, dict) or not all(isinstance(v, dict) for v in doc.values()):
        raise ParseError("statistics.json is not an object of transactions", source=seg.source, line=line)
    total = doc.get("Total")
    if total is None:
        raise ParseError("statistics.json without its 'Total'", source=seg.source, line=line)
    metrics = []
    for name, obj in doc.items():
        items = [(stat, v * factor, unit) for key, (stat, unit, factor) in FIELDS.items()
                 if (v := _number(obj, key, seg, line)) is not None]  # fmt: skip
        metrics += name_rows(str(obj.get("transaction", name)), items)
    count, errors = _number(total, "sampleCount", seg, line), _number(total, "errorCount", seg, line)
    rate = _number(total, "throughput", seg, line)
    run: dict = {"tool": "jmeter", "line": line - seg.line + 1}
    if count is not None:
        run["requests_attempted"] = round(count)
    if errors is not None:
        run["failed"] = round(errors)
    for key, col in (("meanResTime", "latency_mean_s"), ("minResTime", "latency_min_s"),
                     ("maxResTime", "latency_max_s")):  # fmt: skip
        if (v := _number(total, key, seg, line)) is not None:
            run[col] = v / 1e3
    if rate is not None:
        run["requests_attempted_per_s"] = run["requests_per_s"] = rate
        if rate > 0 and count is not None:
            run["duration_s"] = count / rate
    for key, col in (("receivedKBytesPerSec", "bytes_per_s"), ("sentKBytesPerSec", "bytes_sent_per_s")):
        if (v := _number(total, key, seg, line)) is not None:
            run[col] = v * 1024.0
    if errors == 0 and count is not None:
        run.update(requests=round(count), requests_ok=round(count), failed_network=0)
    percentiles = [{"percentile": p, "latency_s": v / 1e3} for key, p in PERCENTS.items()
                   if (v := _number(total, key, seg, line)) is not None]  # fmt: skip
    out.add_run(run, metrics=metrics, percentiles=percentiles)


FORMATS = [
    Format("jmeter-statistics-json", "jmeter", detect, parse, whole_file=True, json=True, json_words=("transaction",),
           description="JMeter HTML dashboard statistics.json (JMeter 3.0+)"),
]  # fmt: skip
