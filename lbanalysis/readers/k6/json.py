"""k6 summary JSON: ``--summary-export``, ``handleSummary()`` data, and the v1 machine-readable summary.

Three layouts of the same figures (trend values in milliseconds, data in bytes):

``--summary-export FILE`` (k6 0.x and 1.x)::

    {"metrics": {"http_reqs": {"count": 200, "rate": 152.32},
                 "http_req_duration": {"avg": 62.3, "min": 22.4, "med": 63.8, "max": 68.2,
                                       "p(90)": 67.6, "p(95)": 67.8, "thresholds": {"p(95)<500": false}},
                 "http_req_failed": {"passes": 0, "fails": 200, "value": 0}, ...},
     "root_group": {"checks": {"status is 200": {"passes": 200, "fails": 0}}, "groups": {...}}}

``handleSummary(data)`` (what a script gets; ``JSON.stringify(data)``)::

    {"metrics": {"http_req_duration": {"type": "trend", "values": {"avg": …}, "thresholds": {"p(95)<500": {"ok": true}}}},
     "state": {"testRunDurationMs": 506.86}, "options": {...}, "root_group": {"checks": [...], "groups": [...]}}

``--new-machine-readable-summary`` (k6 1.x)::

    {"version": "1.0.0", "metadata": {"k6_version": "1.8.1"}, "config": {"duration": 0.4968, "script": "…"},
     "results": {"metrics": [{"name": "http_reqs", "type": "counter", "values": {"count": 30}}, …],
                 "checks": {"metrics": [{"name": "checks_succeeded", "values": {"matches": 30, "total": 30}}, …]}}}

A rate metric counts its true samples: ``http_req_failed``'s ``passes``
(``matches``) are the failed requests. In the export, a threshold's
``true`` means it failed; in ``handleSummary`` data, ``ok`` says it passed.
The columns are those of the text summary (:mod:`lbanalysis.readers.k6.text`),
and every metric's figures go to the metrics table as there (trend times in
seconds: the JSON's milliseconds / 1000);
``duration_s`` is the run's duration where the JSON holds it
(``testRunDurationMs``, ``config.duration``), else http_reqs count / rate.
The JSON does not tell requests without a response from failed ones: with
failures and any byte received, ``requests`` stays empty.

>>> p = parse(Segment('{"metrics": {"http_reqs": {"count": 10, "rate": 5}, "http_req_failed": {"passes": 0, "fails": 10}}}'))
>>> p.runs[0]["requests"], p.runs[0]["duration_s"], p.runs[0]["requests_per_s"]
(10, 2.0, 5.0)
"""

from __future__ import annotations

import re

from ...errors import ParseError
from ...text import Segment
from ..base import NO_ANSWER, Format, Parsed
from ..fields import Field, documents, walk
from .text import PHASES

__all__ = ["FORMATS", "detect", "parse"]


def _num(v: object) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _percentile(key: str) -> float | None:
    """``med`` -> 50, ``p(99.9)`` or ``p99.9`` -> 99.9.

    >>> _percentile("med"), _percentile("p(95)"), _percentile("p99.9"), _percentile("avg")
    (50.0, 95.0, 99.9, None)
    """
    if key == "med":
        return 50.0
    m = re.fullmatch(r"p\(?([\d.]+)\)?", key)
    return float(m.group(1)) if m else None


def _raw_metrics(doc: dict) -> dict:
    """Metric name -> its object as the layout holds it."""
    raw = doc.get("metrics")
    if isinstance(doc.get("results"), dict):  # the new machine-readable summary
        raw = {}
        results = doc["results"]
        for m in (results.get("metrics") or []) + ((results.get("checks") or {}).get("metrics") or []):
            if isinstance(m, dict) and isinstance(m.get("name"), str):
                raw[m["name"]] = m
    return raw if isinstance(raw, dict) else {}


_RATE_KEYS = {"passes", "fails", "matches"}


def metric_rows(name: str, m: dict) -> list[dict]:
    """The rows of the metrics table for one metric object: trend times in s (the JSON's ms), data in B.

    >>> [(r["stat"], r["value"], r["unit"]) for r in metric_rows("iteration_duration", {"avg": 50.5, "p(95)": 61.5})]
    [('avg', 0.0505, 's'), ('p(95)', 0.0615, 's')]
    >>> [(r["stat"], r["value"], r["unit"]) for r in metric_rows("checks", {"passes": 9, "fails": 1, "value": 0.9})]
    [('passes', 9.0, ''), ('fails', 1.0, ''), ('rate', 90.0, '%')]
    """
    values = m.get("values") if isinstance(m.get("values"), dict) else m
    values = {k: float(v) for k, v in values.items() if _num(v) is not None}
    kind, contains = m.get("type"), m.get("contains")
    is_rate = kind == "rate" or bool(_RATE_KEYS & set(values))
    is_trend = kind == "trend" or (kind is None and ("avg" in values or "med" in values))
    is_data = contains == "data" or name.startswith("data_")
    rows = []
    for key, v in values.items():
        if is_rate and key in ("value", "rate"):
            stat, v, unit = "rate", v * 100.0, "%"
        elif is_rate:
            stat, unit = {"matches": "passes"}.get(key, key), ""
        elif is_trend and contains != "default":
            stat, v, unit = key, v / 1e3, "s"
        elif key == "rate":
            stat, unit = key, "B/s" if is_data else "1/s"
        else:
            stat, unit = key, "B" if is_data and key == "count" else ""
        rows.append({"metric": name, "stat": stat, "value": v, "unit": unit})
    return rows


def _metrics(doc: dict) -> tuple[dict[str, dict], list[str]]:
    """Metric name -> its figures (one flat dict), and the thresholds as 'metric expr: ok|failed'."""
    out: dict[str, dict] = {}
    thresholds: list[str] = []
    raw = _raw_metrics(doc)
    for name, m in raw.items():
        if not isinstance(m, dict):
            continue
        values = m.get("values") if isinstance(m.get("values"), dict) else m
        out[name] = {k: v for k, v in values.items() if _num(v) is not None}
        for expr, verdict in (m.get("thresholds") or {}).items():
            failed = (not verdict.get("ok", True)) if isinstance(verdict, dict) else bool(verdict)
            thresholds.append(f"{name} {expr}: {'failed' if failed else 'ok'}")
    return out, thresholds


def _true_count(m: dict) -> int | None:
    """A rate metric's true samples: ``passes`` (export, handleSummary) or ``matches`` (new summary)."""
    v = _num(m.get("passes", m.get("matches")))
    return None if v is None else round(v)


def _checks(root: object) -> tuple[int, int] | None:
    """Passed and failed checks summed over the group tree (lists or name-keyed objects)."""
    if not isinstance(root, dict):
        return None
    passed = failed = 0
    seen = False
    stack = [root]
    while stack:
        g = stack.pop()
        checks = g.get("checks") or []
        for c in checks.values() if isinstance(checks, dict) else checks:
            if isinstance(c, dict):
                passed += round(_num(c.get("passes")) or 0)
                failed += round(_num(c.get("fails")) or 0)
                seen = True
        groups = g.get("groups") or []
        stack.extend(x for x in (groups.values() if isinstance(groups, dict) else groups) if isinstance(x, dict))
    return (passed, failed) if seen else None


def _check_rows(root: object) -> list[dict]:
    """Each check's passes and fails over the group tree, as k6 names them (``checks{check:status is 200}``).

    >>> [(r["metric"], r["stat"], r["value"]) for r in _check_rows({"checks": {"ok": {"passes": 9, "fails": 1}}})]
    [('checks{check:ok}', 'passes', 9.0), ('checks{check:ok}', 'fails', 1.0)]
    """
    rows: list[dict] = []
    stack = [root] if isinstance(root, dict) else []
    while stack:
        g = stack.pop(0)
        checks = g.get("checks") or []
        for key, c in checks.items() if isinstance(checks, dict) else ((None, c) for c in checks):
            if isinstance(c, dict) and isinstance(c.get("name", key), str):
                metric = f"checks{{check:{c.get('name', key)}}}"
                rows += [{"metric": metric, "stat": k, "value": float(c[k]), "unit": ""} for k in ("passes", "fails")
                         if _num(c.get(k)) is not None]  # fmt: skip
        groups = g.get("groups") or []
        stack.extend(x for x in (groups.values() if isinstance(groups, dict) else groups) if isinstance(x, dict))
    return rows


def _duration(doc: dict) -> float | None:
    state, config = doc.get("state"), doc.get("config")
    if isinstance(state, dict) and _num(state.get("testRunDurationMs")):
        return _num(state["testRunDurationMs"]) / 1e3  # type: ignore[operator]
    if isinstance(config, dict) and _num(config.get("duration")):
        return _num(config["duration"])
    return None


def _requests(d: dict, m: dict[str, dict], duration: float | None) -> None:
    reqs = m.get("http_reqs", {})
    count, rate = _num(reqs.get("count")), _num(reqs.get("rate"))
    if count is None:
        return
    sent = round(count)
    failed = _true_count(m.get("http_req_failed", {}))
    if failed is not None:
        d["failed"], d["requests_ok"] = failed, sent - failed
    if failed == 0:
        d["requests"], d["failed_network"] = sent, 0
    elif d.get("bytes_total") == 0:
        d["requests"], d["failed_network"] = 0, sent  # not one byte came back: no response at all
    if duration is None and rate:
        duration = count / rate
    if duration:
        d["duration_s"] = duration
        if "requests" in d:
            d["requests_per_s"] = rate if rate is not None and failed == 0 else d["requests"] / duration


# The run's figures, as paths into the flat metrics (metric.stat -> column, unit as written).
FIELDS = (
    Field("data_received.count", "bytes_total", "B"),
    Field("data_received.rate", "bytes_per_s", "B/s"),
    Field("data_sent.count", "bytes_sent", "B"),
    Field("data_sent.rate", "bytes_sent_per_s", "B/s"),
    Field("http_req_duration.avg", "latency_mean_s", "ms"),
    Field("http_req_duration.min", "latency_min_s", "ms"),
    Field("http_req_duration.max", "latency_max_s", "ms"),
    Field("iterations.count", "iterations", cast=round),
    Field("dropped_iterations.count", "iterations_dropped", cast=round),
    Field("iterations.rate", "iterations_per_s", "req/s"),  # iterations per second (converts as any per second)
    Field("iteration_duration.avg", "iteration_mean_s", "ms"),
)
# A phase's figures (a PHASES metric's stat -> phases column, ms as written)
PHASE_FIELDS = (
    Field("avg", "mean_s", "ms", kind="phases"),
    Field("min", "min_s", "ms", kind="phases"),
    Field("med", "median_s", "ms", kind="phases"),
    Field("max", "max_s", "ms", kind="phases"),
)


def _percentiles(trend: dict) -> list[dict]:
    """A trend's percentile stats (``med``, ``p(95)``, ``p95``) as percentile rows, in order."""
    rows = [{"percentile": p, "latency_s": v / 1e3} for key, v in trend.items() if (p := _percentile(key)) is not None]
    return sorted(rows, key=lambda x: x["percentile"])


def _phases(m: dict[str, dict]) -> list[dict]:
    """The request phases (blocked, connecting, …) k6 times, each a row of the phases table."""
    return [{"phase": phase, **walk(m[name], PHASE_FIELDS)} for name, phase in PHASES.items() if m.get(name)]


def _per_s(d: dict) -> None:
    """Bytes per second from the counts and the duration, where the JSON has no rate."""
    if "duration_s" in d and "bytes_total" in d and "bytes_per_s" not in d:
        d["bytes_per_s"] = d["bytes_total"] / d["duration_s"]
    if "duration_s" in d and "bytes_sent" in d and "bytes_sent_per_s" not in d:
        d["bytes_sent_per_s"] = d["bytes_sent"] / d["duration_s"]


def _counts(d: dict, doc: dict, m: dict[str, dict], thresholds: list[str]) -> None:
    """Checks, virtual users and thresholds."""
    checks = _checks(doc.get("root_group"))
    if checks is None and "checks_succeeded" in m:
        checks = (_true_count(m["checks_succeeded"]) or 0, _true_count(m.get("checks_failed", {})) or 0)
    if checks is not None:
        d["checks_passed"], d["checks_failed"] = checks
    vus = m.get("vus_max", {})
    vus_max = _num(vus.get("max")) if _num(vus.get("max")) is not None else _num(vus.get("value"))
    if vus_max is not None:
        d["vus_max"] = d["concurrency"] = round(vus_max)
    if thresholds:
        d["thresholds"] = "; ".join(sorted(thresholds))
        d["thresholds_failed"] = sum(1 for t in thresholds if t.endswith(": failed"))


def _row(doc: dict) -> tuple[dict, list[dict], list[dict]]:
    m, thresholds = _metrics(doc)
    d: dict = {"tool": "k6"}
    meta = doc.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("k6_version"), str):
        d["tool_version"] = meta["k6_version"]
    fields = walk(m, FIELDS)
    d.update({k: v for k, v in fields.items() if k in ("bytes_total", "bytes_sent")})
    if "bytes_total" in d and "bytes_per_s" in fields:
        d["bytes_per_s"] = fields["bytes_per_s"]
    if "bytes_sent" in d and "bytes_sent_per_s" in fields:
        d["bytes_sent_per_s"] = fields["bytes_sent_per_s"]
    _requests(d, m, _duration(doc))
    _per_s(d)
    d.update(
        {k: v for k, v in fields.items() if k not in ("bytes_total", "bytes_sent", "bytes_per_s", "bytes_sent_per_s")}
    )
    _counts(d, doc, m, thresholds)
    if d.get("requests") == 0:
        d["error"] = "no response: every request failed without a response (no byte received)"
        d["error_kind"] = NO_ANSWER
    return d, _percentiles(m.get("http_req_duration", {})), _phases(m)


_DETECT_RE = re.compile(r'^\s*\{\s*"(?:metrics|root_group|results|config|version|metadata|options|state)"\s*:')
#: k6's metrics one of which a summary holds (:attr:`~lbanalysis.readers.base.Format.json_words`)
JSON_WORDS = ("http_reqs", "iterations", "vus_max")
_QUOTED_WORDS = tuple(f'"{w}"' for w in JSON_WORDS)


def detect(text: str) -> bool:
    """True for a k6 summary JSON document (its k6 metric names at the top level's ``metrics``).

    >>> detect('{"metrics": {"http_reqs": {"count": 1}}}'), detect('{"metrics": {}}')
    (True, False)
    """
    if not _DETECT_RE.match(text[:200]):
        return False
    head = text[:200_000]
    return any(w in head for w in _QUOTED_WORDS) and (
        '"root_group"' in head or '"results"' in head or '"metrics"' in head
    )


def parse(seg: Segment) -> Parsed:
    """Read every k6 summary JSON document of a segment (any layout; several, one after another, each a run)."""
    out = Parsed()
    for doc, n, _ in documents(seg, "k6 summary"):
        if not isinstance(doc, dict):
            raise ParseError("expected a k6 summary JSON object", source=seg.source, line=seg.line - 1 + n)
        row, percentiles, phases = _row(doc)
        rows = [r for name, m in _raw_metrics(doc).items() if isinstance(m, dict) for r in metric_rows(name, m)]
        rows += _check_rows(doc.get("root_group"))
        out.add_run({**row, "line": n}, percentiles=percentiles, phases=phases, metrics=rows)
    if not out.runs:
        raise ParseError("no k6 summary JSON object", source=seg.source, line=seg.line)
    return out


FORMATS = [
    Format(
        "k6-summary-json",
        "k6",
        detect,
        parse,
        whole_file=True,
        json=True,
        json_words=JSON_WORDS,
        description="k6 --summary-export JSON, handleSummary() data, --new-machine-readable-summary",
    )
]
