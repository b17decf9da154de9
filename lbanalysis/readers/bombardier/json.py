"""bombardier's JSON result (``-o json``: alone with ``-p r``, else after the intro and progress bar).

::

    {"spec":{"numberOfConnections":10,"testType":"number-of-requests","numberOfRequests":2000,"method":"GET",
     "url":"http://127.0.0.1:18880/","body":"","stream":false,"timeoutSeconds":2,"client":"fasthttp"},
     "result":{"bytesRead":814000,"bytesWritten":126000,"timeTakenSeconds":0.312224072,"req1xx":0,"req2xx":2000,
     "req3xx":0,"req4xx":0,"req5xx":0,"others":0,"latency":{"mean":1555.968,"stddev":6507.19,"max":76634,
     "percentiles":{"50":219,"75":312,"90":3599,"95":6595,"99":19974}},"rps":{"mean":8219.47,"stddev":9679.81,
     "max":31052.42,"percentiles":{"50":3788.63,…}}}}

==========================================  ============================================  =========
key                                         column                                        unit
==========================================  ============================================  =========
spec numberOfConnections                    ``concurrency``
spec numberOfRequests / testDurationSeconds ``requests_planned`` / ``time_limit_s``        s
spec method, url, rate                      ``method``, ``url``…, ``rate_target_per_s``
result bytesRead, bytesWritten              ``bytes_total``, ``bytes_sent``               B
result timeTakenSeconds                     ``duration_s``                                s
result req1xx … req5xx, others, errors      the counts of :func:`~lbanalysis.readers.bombardier.text.count_fields`
latency mean, stddev, max, percentiles      ``latency_mean_s``, ``latency_stdev_s``,      µs
                                            ``latency_max_s``, percentiles table
rps mean, stddev, max, percentiles          ``interval_requests_per_s_*`` (``_p50`` …     1/s
                                            ``_p99``)
==========================================  ============================================  =========

``requests_per_s`` is responses over ``timeTakenSeconds`` (the text result
has no time, see :mod:`~lbanalysis.readers.bombardier.text`);
``bytes_per_s_total`` is read + written bytes over it, the text's
``Throughput``. When no response came, the latencies are those of the
failed attempts and are not kept (as for hey).

>>> doc = ('{"spec":{"numberOfConnections":2,"testType":"number-of-requests","numberOfRequests":20,'
...        '"url":"http://h:81/"},"result":{"bytesRead":0,"bytesWritten":0,"timeTakenSeconds":0.5,"req2xx":0,'
...        '"others":20,"errors":[{"description":"connection refused","count":20}],"latency":{"mean":67.55}}}')
>>> r = parse(Segment(doc)).runs[0]
>>> r["requests"], r["failed"], r["requests_per_s"], r["error"], r["concurrency"]
(0, 20, 0.0, 'connection refused (x20)', 2)
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...errors import ParseError
from ...text import Segment
from ..base import NO_RESULT_SHOWN, Format, Parsed, error_row
from ..fields import Field, documents, walk
from .text import CLASSES, count_fields, parse_command, target

__all__ = ["FORMATS", "detect", "parse"]

#: The percentiles of the sampled request rates bombardier's JSON prints ("rps": {"percentiles": …}).
RPS_PERCENTILES = (50, 75, 90, 95, 99)

_HINT_RE = re.compile(r'^\{\s*"spec"\s*:\s*\{\s*"numberOfConnections"|"result"\s*:\s*\{\s*"bytesRead"', re.M)
#: The keys one of which the hint holds (:attr:`~lbanalysis.readers.base.Format.json_words`)
JSON_WORDS = ("numberOfConnections", "bytesRead")
_HINT_WORDS = tuple(f'"{w}"' for w in JSON_WORDS)
_TOP_RE = re.compile(r'\{\s*"(?:spec|result)"\s*:')  # its first key (spec; result when the keys are sorted)
# what bombardier prints before its JSON result: the intro (-p i), the progress bar (-p p; its carriage
# returns read as line ends) and "Done!"
_PRELUDE_RE = re.compile(r"(?:Bombarding \S+ .*connections?(?:\(s\))?|Done!|[\s\d/.%=>\[\]smh-]*)")


def detect(text: str) -> bool:
    """True for bombardier's JSON result, alone or after its intro, progress bar and ``Done!``.

    >>> detect('{"spec":{"numberOfConnections":2}}'), detect('{"spec":{"a":1}}')
    (True, False)
    >>> detect('{"jobs": {"load": {"results": {"bombardier/raw": [{"spec": {"numberOfConnections": 2}}]}}}}')
    False
    >>> detect('Bombarding http://h/ with 20 request(s) using 2 connection(s)\\n 20 / 20  100.00% 97/s 0s\\n'
    ...        'Done!\\n{"spec":{"numberOfConnections":2}}')
    True
    """
    start = text.find("{")
    if start < 0 or not any(text.find(w, start, start + (1 << 14)) >= 0 for w in _HINT_WORDS):
        return False  # what the hint holds, looked for first (most documents are not bombardier's)
    if _HINT_RE.search(text, start, start + (1 << 14)) is None:
        return False
    if _TOP_RE.match(text, start) is None:  # a result inside another document (crank's bombardier/raw)
        return False
    return all(_PRELUDE_RE.fullmatch(line) for line in text[:start].split("\n"))


def _num(d: object, key: str) -> float | None:
    v = d.get(key) if isinstance(d, dict) else None
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _int(d: object, key: str) -> int | None:
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def _spec(spec: dict) -> dict:
    d: dict = {}
    if _int(spec, "numberOfConnections") is not None:
        d["concurrency"] = _int(spec, "numberOfConnections")
    if spec.get("testType") == "timed" and _num(spec, "testDurationSeconds") is not None:
        d["time_limit_s"] = _num(spec, "testDurationSeconds")
    elif _int(spec, "numberOfRequests") is not None:
        d["requests_planned"] = _int(spec, "numberOfRequests")
    if isinstance(spec.get("method"), str):
        d["method"] = spec["method"].upper()
    if isinstance(spec.get("url"), str):
        d.update(target(spec["url"]))
    if _num(spec, "rate") is not None:
        d["rate_target_per_s"] = _num(spec, "rate")
    return d


# The figures of "result" (key path -> column, unit as written); the counts go through count_fields.
# "answered": kept only when some request got a response (else they are the failed attempts').
RESULT_FIELDS = (
    Field("timeTakenSeconds", "duration_s", "s"),
    Field("bytesRead", "bytes_total", "B"),
    Field("bytesWritten", "bytes_sent", "B"),
    Field("latency.mean", "latency_mean_s", "us", kind="answered"),
    Field("latency.stddev", "latency_stdev_s", "us", kind="answered"),
    Field("latency.max", "latency_max_s", "us", kind="answered"),
    Field("rps.mean", "interval_requests_per_s_mean", "req/s"),
    Field("rps.stddev", "interval_requests_per_s_stdev", "req/s"),
    Field("rps.max", "interval_requests_per_s_max", "req/s"),
    *(Field(f"rps.percentiles.{q}", f"interval_requests_per_s_p{q}", "req/s") for q in RPS_PERCENTILES),
)


_CLASS_KEYS = tuple((c, f"req{c}") for c in CLASSES)
#: The columns of the "answered" fields: dropped when no request got a response (see :data:`RESULT_FIELDS`).
_ANSWERED = frozenset(f.column for f in RESULT_FIELDS if f.kind == "answered")


def _counts(res: dict) -> dict:
    """The status classes, others and errors of a result, as :func:`~lbanalysis.readers.bombardier.text.count_fields`.

    >>> _counts({"req2xx": 9, "req5xx": 1, "others": 2, "errors": [{"description": "timeout", "count": 2}]})
    {'requests': 10, 'requests_ok': 9, 'non_2xx': 1, 'status_codes': '2xx: 9; 5xx: 1', 'failed': 2, 'failed_network': 2, 'warnings': 'timeout (x2)'}
    """
    classes = {c: _int(res, k) or 0 for c, k in _CLASS_KEYS} if any(k in res for _, k in _CLASS_KEYS) else None
    errors = []
    for e in res.get("errors") or ():
        if type(e) is dict:
            msg, n = e.get("description"), e.get("count")
            if isinstance(msg, str) and isinstance(n, int):
                errors.append((msg, n))
    return count_fields(classes, _int(res, "others"), errors)


_QUANTILE_RE = re.compile(r"\d+(?:\.\d+)?")


@lru_cache(maxsize=256)
def _quantile(key: str) -> float | None:
    """A percentile as a key of ``latency.percentiles`` names it (``"99"``, ``"99.9"``), else None (once per key:
    every result names the same five).

    >>> _quantile(" 99.9"), _quantile("max")
    (99.9, None)
    """
    return float(key) if _QUANTILE_RE.fullmatch(key.strip()) else None


def _latency_percentiles(res: dict) -> list[dict]:
    """``latency.percentiles`` (µs) as percentile rows.

    >>> _latency_percentiles({"latency": {"percentiles": {"50": 219, "99": 19974, "x": 1, "90": "3599"}}})
    [{'percentile': 50.0, 'latency_s': 0.000219}, {'percentile': 99.0, 'latency_s': 0.019974}]
    """
    lat = res.get("latency")
    rows = []
    for k, v in ((lat.get("percentiles") or {}) if type(lat) is dict else {}).items():
        q = _quantile(k) if type(k) is str else None
        if q is not None and (type(v) is int or type(v) is float):  # a JSON number (no bool)
            rows.append({"percentile": q, "latency_s": v / 1e6})
    return rows


def _result(res: dict) -> tuple[dict, list[dict]]:
    d = _counts(res)
    d.update(walk(res, RESULT_FIELDS))  # one walk of every field; the answered ones dropped below when none was
    taken, read, written = d.get("duration_s"), d.get("bytes_total"), d.get("bytes_sent")
    if taken and d.get("requests") is not None:
        d["requests_per_s"] = d["requests"] / taken
    if taken and read is not None and written is not None:
        d["bytes_per_s_total"] = (read + written) / taken
    if d.get("requests") == 0:  # the times of attempts that got no answer
        d.setdefault("requests_per_s", 0.0)
        return {k: v for k, v in d.items() if k not in _ANSWERED}, []
    return d, _latency_percentiles(res)


def parse(seg: Segment) -> Parsed:
    """Read every bombardier JSON result in a segment (any layout, one after another; its intro passed over)."""
    cmd = parse_command(seg.command) if seg.command else {}
    out = Parsed()
    for doc, n, _ in documents(seg, "bombardier"):
        if not isinstance(doc, dict):
            raise ParseError("expected a bombardier JSON object", source=seg.source, line=seg.line - 1 + n)
        spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
        res = doc.get("result") if isinstance(doc.get("result"), dict) else {}
        d, pct = _result(res)
        row = {"tool": "bombardier", **cmd, **_spec(spec), **d, "line": n}
        if not res:
            row["error"], row["error_kind"] = "no result in the JSON", NO_RESULT_SHOWN
        out.add_run(row, percentiles=pct)
    if not out.runs:
        out.add_run(error_row("bombardier", "no bombardier result in the JSON", NO_RESULT_SHOWN, **cmd))
    return out


FORMATS = [
    Format(
        "bombardier-json",
        "bombardier",
        detect,
        parse,
        whole_file=True,
        json=True,
        json_words=JSON_WORDS,
        description="bombardier -o json result",
    )
]
