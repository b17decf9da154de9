"""crank's JSON results: ``crank … --json FILE`` (or ``--output``), and the document it stores with ``--sql`` / ``--es``.

One object per job the scenario ran (``load``: the load tool; ``application``: the server, or the proxy when a
``downstream`` job stands behind it; ``proxy``, ``downstream``, ``db``…), each with the figures crank computed::

    {"returnCode": 0, "jobResults": {"jobs": {
      "application": {"results": {"benchmarks/cpu": 67.0, "benchmarks/cpu/raw": 533.0, "benchmarks/working-set": 358.0},
                      "measurements": [[{"timestamp": "2021-11-24T08:12:02.65Z", "name": "benchmarks/cpu", "value": 0.0},
                                        …]], "environment": {"os": "Linux", "arch": "X64", "proc": 8}},
      "load": {"results": {"benchmarks/cpu": 7.0, "bombardier/requests": 676855.0, "bombardier/rps/mean": 11281.04,
                           "bombardier/latency/mean": 353.29, "bombardier/raw": [{"spec": …, "result": …}], …}}},
      "properties": {"scenario": "…"}}}

A job whose results hold a load tool's figures (:data:`LOAD_TOOLS`) is a run;
``bombardier/raw``, bombardier's own JSON result, is read as
:mod:`lbanalysis.readers.bombardier.json` reads it (connections, URL, duration,
counts, percentiles), crank's figures filling what it lacks.

==============================================  ==========================================================  =====
result of the load job                          runs column                                                 unit
==============================================  ==========================================================  =====
``<tool>/requests``                             ``requests``
``<tool>/rps/mean``                             ``requests_per_s`` (bombardier: the mean of its 10-ms        1/s
                                                rates, also ``interval_requests_per_s_mean``)
``<tool>/latency/mean``, ``/max``               ``latency_mean_s``, ``latency_max_s``                       µs (bombardier), ms
``wrk/latency/50`` … ``/99``                    percentiles table                                           ms
``bombardier/badresponses``,                    ``non_2xx_3xx`` (responses of 400 or more)
``wrk/errors/badresponses``,
``http/requests/badresponses``
``wrk/errors/socketerrors``,                    ``failed`` (socket errors, every kind together)
``http/requests/errors``
``wrk/throughput``, ``bombardier/throughput``   ``bytes_per_s`` (read), ``bytes_per_s_total`` (read+written)  MiB/s
==============================================  ==========================================================  =====

Each job's CPU and memory go to the ``cpu`` table (scope ``process``, its
host the job's name, ``tool`` crank), its role from :data:`JOB_ROLES`:
``benchmarks/cpu`` (the process's CPU over every core of its machine, the
highest of its one-second samples) is ``busy_pct``, ``benchmarks/cpu/raw``
(the same in percent of one core) ``cpu_pct``, ``benchmarks/working-set``
(MiB) ``max_rss_bytes``, with ``summary`` 'max'; ``environment.proc`` is
``cores``. Its ``measurements`` of these three, one a second, are samples
(``time``); those of the other jobs before the load job's first or after
its last (their build and start-up) belong to no run (``paired_by``
'folder'). crank's other figures (build and start times, published sizes,
runtime and Kestrel counters, ``http/firstrequest``) are not kept.

>>> doc = ('{"jobResults": {"jobs": {"load": {"results": {"wrk/rps/mean": 4681.5, "wrk/requests": 70689.0,'
...        ' "wrk/latency/mean": 1.14, "wrk/latency/99": 4.01, "benchmarks/cpu": 30.0, "benchmarks/cpu/raw": 842.0},'
...        ' "environment": {"proc": 28}}}}}')
>>> p = parse(Segment(doc))
>>> r = p.runs[0]
>>> r["requests"], r["requests_per_s"], r["latency_mean_s"], p.tables["percentiles"][0]["latency_s"]
(70689, 4681.5, 0.00114, 0.00401)
>>> c = p.tables["cpu"][0]
>>> c["role"], c["busy_pct"], c["cpu_pct"], c["cores"], c["summary"]
('client', 30.0, 842.0, 28.0, 'max')
"""

from __future__ import annotations

import json
import re

import pandas as pd

from ...errors import ParseError
from ...text import Segment
from ..base import Format, Parsed
from ..bombardier import json as bombardier_json
from ..fields import Field, documents, has_keys, walk

__all__ = ["FORMATS", "JOB_ROLES", "LOAD_TOOLS", "detect", "parse"]

#: The role of a job by its name (crank's scenarios name them so); ``application`` is the load balancer when a
#: ``downstream`` job stands behind it (the proxy scenarios), and a job with a load tool's figures is the client.
JOB_ROLES = {"load": "client", "proxy": "load balancer", "downstream": "server", "application": "server",
             "server": "server", "db": "server"}  # fmt: skip
#: The load tools whose figures crank writes (prefix of their keys), and the unit of their latencies.
LOAD_TOOLS = {"bombardier": "us", "wrk": "ms", "http": "ms"}
MIB = 1024.0 * 1024.0


def _load_fields(tool: str, unit: str) -> tuple[Field, ...]:
    """The field table of one load tool's figures (keys ``<tool>/…``; latencies in ``unit``)."""
    bad = {"bombardier": "bombardier/badresponses", "wrk": "wrk/errors/badresponses",
           "http": "http/requests/badresponses"}[tool]  # fmt: skip
    return (
        Field(f"{tool}/requests", "requests", cast=round),
        Field(f"{tool}/rps/mean", "requests_per_s", "req/s"),
        Field(f"{tool}/latency/mean", "latency_mean_s", unit),
        Field(f"{tool}/latency/max", "latency_max_s", unit),
        Field(bad, "non_2xx_3xx", cast=round),
        Field(f"{tool}/errors/socketerrors", "failed", cast=round),
        Field(f"{tool}/requests/errors", "failed", cast=round),
        Field(f"{tool}/throughput", "bytes_per_s_total" if tool == "bombardier" else "bytes_per_s", "MB"),
    )


# the CPU and memory of every job: key -> cpu column, unit as written (working set in MiB)
CPU_FIELDS = (
    Field("benchmarks/cpu", "busy_pct", "%", kind="cpu"),
    Field("benchmarks/cpu/raw", "cpu_pct", "%", kind="cpu"),
    Field("benchmarks/working-set", "max_rss_bytes", "MB", kind="cpu"),
)
_PERCENTILE_KEY = re.compile(r"^(?P<tool>\w+)/latency/(?P<p>\d+(?:\.\d+)?)$")
_TOOL_KEY = re.compile(r'"(?:benchmarks|bombardier|wrk|http)/[\w/-]+"\s*:')


def detect(text: str) -> bool:
    """True for a crank result (``jobResults``, or the stored document's ``jobs``, with crank's figures).

    >>> detect('{"returnCode": 0, "jobResults": {"jobs": {"load": {"results": {"wrk/rps/mean": 1.0}}}}}')
    True
    >>> detect('{"jobs": {"a": {"results": {"x": 1}}}}')
    False
    """
    return has_keys(text, ("jobs", "results")) and _TOOL_KEY.search(text, 0, 1 << 16) is not None


def _jobs(doc: dict) -> tuple[dict, dict]:
    """The jobs of a result or of a stored document, and its properties."""
    inner = doc.get("jobResults") if isinstance(doc.get("jobResults"), dict) else doc
    jobs = inner.get("jobs") if isinstance(inner.get("jobs"), dict) else {}
    props = inner.get("properties") if isinstance(inner.get("properties"), dict) else {}
    return {k: v for k, v in jobs.items() if isinstance(v, dict)}, props


def _results(job: dict) -> dict:
    return job["results"] if isinstance(job.get("results"), dict) else {}


def _tool_of(results: dict) -> str | None:
    """The load tool whose figures a job's results hold (bombardier or wrk before crank's generic ``http``)."""
    for tool in LOAD_TOOLS:
        if any(k.startswith(f"{tool}/") and k != "http/firstrequest" for k in results):
            return tool
    return None


def _run(results: dict, tool: str) -> tuple[dict, list[dict]]:
    """A load job's run row and percentiles: bombardier's own result where crank kept it, crank's figures besides."""
    unit = LOAD_TOOLS[tool]
    row: dict = {}
    pct: list[dict] = []
    raw = results.get("bombardier/raw")
    if isinstance(raw, list) and raw and isinstance(raw[0], dict):
        part = bombardier_json.parse(Segment(json.dumps(raw[0])))
        row = {k: v for k, v in part.runs[0].items() if k not in ("tool", "line")}
        pct = [{k: v for k, v in p.items() if k != "run"} for p in part.tables.get("percentiles", [])]  # type: ignore[union-attr]
    figures = walk(results, _load_fields(tool, unit))
    if tool == "bombardier" and "requests_per_s" in figures:
        figures["interval_requests_per_s_mean"] = figures["requests_per_s"]
    for k, v in figures.items():
        row.setdefault(k, v)
    if not pct:
        for key, v in results.items():
            m = _PERCENTILE_KEY.match(key)
            if m and m["tool"] == tool and isinstance(v, (int, float)):
                pct.append({"percentile": float(m["p"]), "latency_s": walk({"v": v}, [Field("v", "x", unit)])["x"]})
    return row, pct


def _role(name: str, results: dict, jobs: dict) -> str | None:
    """A job's role: the client when it holds a load tool's figures, else by its name (:data:`JOB_ROLES`)."""
    if _tool_of(results) is not None:
        return "client"
    if name == "application" and "downstream" in jobs:
        return "load balancer"
    return JOB_ROLES.get(name)


def _samples(job: dict) -> dict[str, dict]:
    """A job's measurements of CPU and memory, by time stamp: the cpu columns of each one-second sample."""
    by_time: dict[str, dict] = {}
    for batch in job.get("measurements") or []:
        for m in batch if isinstance(batch, list) else []:
            if not isinstance(m, dict) or not isinstance(m.get("timestamp"), str):
                continue
            row = walk({m.get("name"): m.get("value")} if isinstance(m.get("name"), str) else {}, CPU_FIELDS)
            if row:
                by_time.setdefault(m["timestamp"], {}).update(row)
    return by_time


def _cpu_rows(jobs: dict, line_of: dict[str, int], source: str) -> list[dict]:
    """Every job's CPU and memory: its highest (results) and its samples (measurements)."""
    load = next((j for j in jobs.values() if _tool_of(_results(j)) is not None), None)
    window = sorted(_samples(load)) if load is not None else []
    rows = []
    for name, job in jobs.items():
        results = _results(job)
        env = job.get("environment") if isinstance(job.get("environment"), dict) else {}
        base: dict = {"host": name, "role": _role(name, results, jobs), "scope": "process", "tool": "crank",
                      "command": name, "run_source": source, "paired_by": "same file", "line": line_of.get(name)}  # fmt: skip
        if isinstance(env.get("proc"), int) and env["proc"] > 0:
            base["cores"] = float(env["proc"])
        most = walk(results, CPU_FIELDS)
        if most:
            rows.append({**base, **most, "summary": "max"})
        for stamp, sample in sorted(_samples(job).items()):
            row = {**base, **sample, "time": pd.Timestamp(stamp).tz_convert(None)}
            if job is not load and window and not window[0] <= stamp <= window[-1]:
                row.update(run=None, run_source=None, paired_by="folder")  # before the load or after it: no run's
            rows.append(row)
    return rows


def _line_of(text: str, start: int, names: list[str]) -> dict[str, int]:
    """The line (1-based, in the segment) where each job's object begins, after ``start``."""
    out = {}
    for name in names:
        m = re.compile(rf'"{re.escape(name)}"\s*:\s*\{{').search(text, start)
        if m:
            out[name] = text.count("\n", 0, m.start()) + 1
    return out


def parse(seg: Segment) -> Parsed:
    """Read every crank result of a segment: one run per load job, every job's CPU and memory."""
    out = Parsed()
    for doc, n, _ in documents(seg, "crank"):
        if not isinstance(doc, dict):
            raise ParseError("expected a crank JSON object", source=seg.source, line=seg.line - 1 + n)
        jobs, props = _jobs(doc)
        if not jobs:
            raise ParseError("a crank result without jobs", source=seg.source, line=seg.line - 1 + n)
        start = sum(len(x) + 1 for x in seg.text.split("\n")[: n - 1])
        line_of = _line_of(seg.text, start, list(jobs))
        cpu = _cpu_rows(jobs, line_of, seg.source)
        loads = [(name, job) for name, job in jobs.items() if _tool_of(_results(job)) is not None]
        if not loads:
            raise ParseError("a crank result without a load job (no bombardier, wrk or http figures)",
                             source=seg.source, line=seg.line - 1 + n)  # fmt: skip
        for i, (name, job) in enumerate(loads):
            row, pct = _run(_results(job), _tool_of(_results(job)) or "http")
            row = {"tool": "crank", **row, "line": line_of.get(name, n)}
            if isinstance(props.get("scenario"), str):
                row["label"] = props["scenario"]
            if isinstance(doc.get("returnCode"), int) and doc["returnCode"] != 0:
                row["error"] = f"crank returned {doc['returnCode']}"
            out.add_run(row, percentiles=pct, cpu=[c for c in cpu if "run" not in c] if i == 0 else [])
        out.tables.setdefault("cpu", []).extend(c for c in cpu if "run" in c)  # type: ignore[union-attr]
    return out


FORMATS = [
    Format("crank-json", "crank", detect, parse, whole_file=True, json=True, json_words=("jobs",),
           description="crank --json results (load job into runs; every job's CPU and memory into cpu)"),
]  # fmt: skip
