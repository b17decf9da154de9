"""The user's objective (an SLO): what a run must show to count as carrying its load.

An :class:`Objective` is a few clauses joined by commas (or ``and``)::

    p99 <= 50ms, errors <= 1%
    p95 < 0.2 s and mean <= 80 ms
    rps >= 1000, max <= 2s

* **latency**: ``p50`` ... ``p99.99`` (any percentile), ``median`` (p50), ``mean`` (``avg``), ``max``; a time
  in ``us``, ``ms``, ``s`` (a bare number: seconds);
* **errors**: ``errors`` (the study's error share of each run: failures and non-2xx answers among the
  attempts), in ``%`` or as a fraction;
* **throughput floors**: ``rps`` (``req/s``, ``throughput``), requests per second.

Latency and errors are ceilings (``<=``, ``<``), throughput a floor (``>=``, ``>``). Keywords say the same:
``Objective(p99="50ms", errors="1%")``, ``Objective(rps=1000)``.

Each run is judged on the values its files hold (:func:`run_values`), never a guessed one: a percentile
is the one the tool printed (the ``percentiles`` table), else the nearest-rank one of the run's per-request
log (``requests``), else the upper edge of the histogram bucket it falls in (``histogram``: an upper
bound); a run that has none of them cannot be judged on it, and the reason says what it has (siege prints
no percentiles; ab prints 50 ... 100 but not 99.9; wrk prints them only with ``--latency``).

>>> o = Objective("p99 <= 50ms, errors <= 1%")
>>> str(o), [c.metric for c in o.clauses]
('p99 <= 50ms, errors <= 1%', ['latency', 'errors'])
>>> o.clauses[0].limit, o.clauses[1].limit
(0.05, 0.01)
>>> str(Objective(p99_9="200ms", rps=1000))
'p99.9 <= 200ms, rps >= 1000'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .series import as_floats

__all__ = ["Clause", "Objective", "ObjectiveError", "run_values"]


class ObjectiveError(ValueError):
    """An objective that does not read: says the clause and what was expected."""


#: The names of a clause, as written, and what they measure: (metric, statistic).
NAMES: dict[str, tuple[str, str]] = {
    "mean": ("latency", "mean"), "avg": ("latency", "mean"), "average": ("latency", "mean"),
    "median": ("latency", "p50"), "max": ("latency", "max"), "maximum": ("latency", "max"),
    "errors": ("errors", "share"), "error": ("errors", "share"), "error_rate": ("errors", "share"),
    "error_share": ("errors", "share"), "rps": ("rps", "rps"), "req/s": ("rps", "rps"),
    "requests/s": ("rps", "rps"), "requests_per_s": ("rps", "rps"), "throughput": ("rps", "rps"),
}  # fmt: skip
#: Time units of a latency limit, in seconds.
TIME_UNITS = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6}
#: Units of a throughput floor, in requests per second.
RATE_UNITS = {"": 1.0, "/s": 1.0, "rps": 1.0, "req/s": 1.0, "k": 1e3, "k/s": 1e3, "krps": 1e3}
_OPS = {"<=": "<=", "=<": "<=", "≤": "<=", "<": "<", ">=": ">=", "=>": ">=", "≥": ">=", ">": ">"}
_CLAUSE_RE = re.compile(
    r"^\s*(?P<name>p\d+(?:[._]\d+)?|[a-z_/]+)\s*(?P<op><=|=<|≤|>=|=>|≥|<|>)\s*"
    r"(?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(?P<unit>[a-zµ/%]*)\s*$",
    re.IGNORECASE,
)
_SPLIT_RE = re.compile(r"\s*(?:,|;|\band\b)\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Clause:
    """One clause of an objective: ``metric`` (latency, errors, rps), ``stat`` (p99, mean, max, share, rps),
    ``op`` and ``limit`` in SI units (seconds, a share 0-1, requests/s), and its text.

    >>> c = Clause.parse("p99.9 <= 250ms")
    >>> c.percentile, c.meets(0.2), c.meets(0.3), round(c.margin(0.3), 3)
    (99.9, True, False, 0.2)
    """

    metric: str
    stat: str
    op: str
    limit: float
    text: str

    @property
    def percentile(self) -> float | None:
        """The percentile a ``pNN`` clause asks for (0-100), else None."""
        return float(self.stat[1:]) if self.stat.startswith("p") and self.stat != "p" else None

    @property
    def part(self) -> str:
        """``latency``, ``errors`` or ``throughput``: the part of the objective, as a sentence names it."""
        return {"rps": "throughput"}.get(self.metric, self.metric)

    def meets(self, value: float) -> bool:
        """Whether ``value`` meets the clause (False for a missing value)."""
        if value is None or pd.isna(value):
            return False
        return {"<=": value <= self.limit, "<": value < self.limit, ">=": value >= self.limit,
                ">": value > self.limit}[self.op]  # fmt: skip

    def margin(self, value: float) -> float:
        """How far ``value`` is past the limit, relative to it: 0 or below meets, above fails (a ceiling:
        value / limit - 1; a floor: 1 - value / limit). Linear in the value, so a crossing interpolates."""
        if self.limit == 0:
            return float(value) if self.op in ("<=", "<") else -float(value)
        ratio = float(value) / self.limit
        return ratio - 1.0 if self.op in ("<=", "<") else 1.0 - ratio

    @classmethod
    def parse(cls, text: str) -> Clause:
        """One clause from its text (see the module docstring)."""
        m = _CLAUSE_RE.match(text)
        if not m:
            raise ObjectiveError(
                f"not an objective clause: {text.strip()!r} (expected e.g. 'p99 <= 50ms', 'errors <= 1%', "
                "'rps >= 1000')"
            )
        return cls.of(m["name"], _OPS[m["op"]], m["num"], m["unit"], text)

    @classmethod
    def of(cls, name: str, op: str, num: str | float, unit: str = "", text: str = "") -> Clause:
        """A clause from its parts: a name (``p99``, ``mean``, ``errors``, ``rps``...), an operator, a number
        and its unit."""
        name = name.lower()
        metric, stat = _name(name)
        value, unit = float(num), unit.lower().replace("µ", "u") if unit else ""
        if metric == "latency":
            if unit not in TIME_UNITS:
                raise ObjectiveError(f"{text or name}: a latency is in us, ms or s, not {unit!r}")
            limit, shown = value * TIME_UNITS[unit], f"{_num(value)}{unit or 's'}"
        elif metric == "errors":
            if unit not in ("", "%"):
                raise ObjectiveError(f"{text or name}: errors are a share, in % or a fraction, not {unit!r}")
            limit = value / 100 if unit == "%" else value
            shown = f"{_num(limit * 100)}%"
            if not 0 <= limit <= 1:
                raise ObjectiveError(f"{text or name}: an error share is between 0 and 100 %")
        else:
            if unit not in RATE_UNITS:
                raise ObjectiveError(f"{text or name}: a throughput is in requests/s (rps, k), not {unit!r}")
            limit, shown = value * RATE_UNITS[unit], _num(value * RATE_UNITS[unit])
        ceiling = metric != "rps"
        if (op in ("<=", "<")) != ceiling:
            want = "a ceiling (<=, <)" if ceiling else "a floor (>=, >)"
            raise ObjectiveError(f"{text or name}: {metric} is {want}")
        return cls(metric, stat, op, limit, f"{stat if metric == 'latency' else _label(metric)} {op} {shown}")


def _name(name: str) -> tuple[str, str]:
    """(metric, statistic) of a clause's name.

    >>> _name("p99_9"), _name("median"), _name("rps")
    (('latency', 'p99.9'), ('latency', 'p50'), ('rps', 'rps'))
    """
    m = re.fullmatch(r"p(\d+)(?:[._](\d+))?", name)
    if m:
        p = float(f"{m[1]}.{m[2] or 0}")
        if not 0 < p <= 100:
            raise ObjectiveError(f"{name}: a percentile is above 0 and at most 100")
        return "latency", f"p{_num(p)}"
    if name not in NAMES:
        known = ", ".join(["pNN (p50, p99, p99.9)", *dict.fromkeys(NAMES)])
        raise ObjectiveError(f"unknown objective name {name!r}; known: {known}")
    return NAMES[name]


def _label(metric: str) -> str:
    return {"errors": "errors", "rps": "rps"}[metric]


def _num(x: float) -> str:
    """A number as a person writes it: ``50``, ``0.5``, ``99.9``."""
    return f"{x:.10g}"


class Objective:
    """What the user asks of a run: clauses that each run meets or fails (see the module docstring).

    ``Objective("p99 <= 50ms, errors <= 1%")``, ``Objective(p99="50ms", errors="1%")``, or both (the
    keywords added). Keywords: ``p99``, ``p99_9``, ``median``, ``mean``, ``max`` (a time: ``"50ms"`` or
    seconds), ``errors`` (``"1%"`` or a fraction), ``rps`` (a floor, requests/s).

    >>> Objective("p95<50ms;errors<=0.5%").clauses[1].text
    'errors <= 0.5%'
    >>> Objective("p99 <= fast")
    Traceback (most recent call last):
    ...
    lbanalysis.analysis.objective.ObjectiveError: not an objective clause: 'p99 <= fast' (expected e.g. 'p99 <= 50ms', 'errors <= 1%', 'rps >= 1000')
    """

    def __init__(self, text: str | Objective | None = None, **keywords: Any):
        if isinstance(text, Objective):
            clauses = list(text.clauses)
        else:
            parts = [p for p in _SPLIT_RE.split(text or "") if p.strip()]
            clauses = [Clause.parse(p) for p in parts]
        for name, value in keywords.items():
            metric, _ = _name(name.lower())
            op = ">=" if metric == "rps" else "<="
            num, unit = _split_value(value, metric)
            clauses.append(Clause.of(name, op, num, unit))
        if not clauses:
            raise ObjectiveError("an objective needs at least one clause, e.g. 'p99 <= 50ms, errors <= 1%'")
        self.clauses: tuple[Clause, ...] = tuple(clauses)

    @classmethod
    def of(cls, value: str | Objective | Mapping[str, Any]) -> Objective:
        """An objective from a text, a mapping of keywords or an Objective."""
        if isinstance(value, Mapping):
            return cls(**value)
        return value if isinstance(value, Objective) else cls(value)

    def __str__(self) -> str:
        return ", ".join(c.text for c in self.clauses)

    def __repr__(self) -> str:
        return f"Objective({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Objective) and self.clauses == other.clauses

    def __hash__(self) -> int:
        return hash(self.clauses)

    def judge(self, values: Mapping[str, float]) -> list[Clause]:
        """The clauses that ``values`` (a clause's text -> its value) fail; a missing value is no failure here
        (:func:`run_values` says why it is missing).

        >>> o = Objective("p99 <= 50ms, errors <= 1%")
        >>> [c.text for c in o.judge({"p99 <= 50ms": 0.08, "errors <= 1%": 0.0})]
        ['p99 <= 50ms']
        """
        return [c for c in self.clauses if pd.notna(values.get(c.text)) and not c.meets(values[c.text])]


def _split_value(value: Any, metric: str) -> tuple[str, str]:
    """A keyword's value as (number, unit): ``"50ms"`` -> ("50", "ms"), ``0.05`` -> ("0.05", "")."""
    if isinstance(value, (int, float)):
        return str(value), ""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*([a-zµ/%]*)\s*", str(value), re.IGNORECASE)
    if not m:
        raise ObjectiveError(f"not a {metric} limit: {value!r}")
    return m[1], m[2]


# ------------------------------------------------------------ per run ---
def _keys(frame: pd.DataFrame) -> pd.Series:
    """``source`` and ``run`` of each row as one hashable key."""
    return pd.Series(list(zip(frame["source"].astype(str), pd.to_numeric(frame["run"]).astype("Int64"), strict=True)),
                     index=frame.index, dtype=object)  # fmt: skip


def _owners(runs: pd.DataFrame) -> dict[tuple, Any]:
    """Each (source, run) of the runs -> the label of the row it stands for (a log: the summary it is twin of)."""
    if not {"source", "run"} <= set(runs.columns):
        return {}
    twin = runs["twin_of"] if "twin_of" in runs else pd.Series(np.nan, index=runs.index)
    return {k: (t if pd.notna(t) else i) for i, k, t in zip(runs.index, _keys(runs), twin, strict=True)}


def _printed(percentiles: pd.DataFrame | None, owners: dict[tuple, Any]) -> dict[Any, pd.Series]:
    """Per row label: the percentiles its tool printed (index: the percentile, values: seconds)."""
    from .latency import recorded_percentiles

    if percentiles is None or not len(percentiles) or not owners:
        return {}
    pct = recorded_percentiles(percentiles, printed=True)
    out: dict[Any, pd.Series] = {}
    for key, g in pct.groupby(_keys(pct), sort=False):
        label = owners.get(key)
        if label is not None:
            s = pd.Series(g["latency_s"].to_numpy(float), index=g["percentile"].to_numpy(float))
            out[label] = s if label not in out else pd.concat([out[label], s])
    return out


def _logged(requests: pd.DataFrame | None, owners: dict[tuple, Any]) -> dict[Any, np.ndarray]:
    """Per row label: the latencies of its per-request log, sorted."""
    if requests is None or not isinstance(requests, pd.DataFrame) or not len(requests) or not owners:
        return {}
    if "latency_s" not in requests:
        return {}
    out: dict[Any, np.ndarray] = {}
    for key, g in requests.groupby(_keys(requests), sort=False):
        label = owners.get(key)
        lat = g["latency_s"].to_numpy(dtype=float, na_value=np.nan)
        lat = lat[np.isfinite(lat)]
        if label is not None and len(lat):
            out[label] = np.sort(lat)
    return out


def _binned(histogram: pd.DataFrame | None, owners: dict[tuple, Any]) -> dict[Any, pd.DataFrame]:
    """Per row label: its histogram (bucket upper edge, count), ascending."""
    if histogram is None or not len(histogram) or not owners:
        return {}
    out = {}
    for key, g in histogram.groupby(_keys(histogram), sort=False):
        label = owners.get(key)
        if label is not None:
            out[label] = g[["latency_s", "count"]].astype(float).sort_values("latency_s")
    return out


def _from_histogram(h: pd.DataFrame, p: float) -> float:
    """The upper edge of the bucket the ``p`` th percentile falls in (an upper bound of it).

    >>> _from_histogram(pd.DataFrame({"latency_s": [0.01, 0.02, 0.05], "count": [90.0, 9, 1]}), 99)
    0.02
    """
    total = h["count"].sum()
    if not total > 0:
        return math.nan
    cum = h["count"].cumsum().to_numpy()
    i = int(np.searchsorted(cum, p / 100 * total - 1e-9))
    return float(h["latency_s"].iloc[min(i, len(h) - 1)])


def _missing(tool: str, printed: pd.Series | None, p: float) -> str:
    """Why a run's ``p`` th percentile cannot be judged: what the run has instead."""
    what = "the longest request (max)" if p == 100 else f"p{_num(p)}"
    name = tool or "the tool"
    if printed is not None and len(printed):
        shown = ", ".join(_num(x) for x in sorted(set(printed.index)))
        return f"{name} printed the percentiles {shown} %, not {_num(p)}, and no per-request log was read"
    hints = {"siege": "siege prints no percentiles", "wrk": "wrk prints percentiles only with --latency"}
    hint = hints.get(tool, f"{name} printed no percentiles")
    return f"{hint} and no per-request log or histogram was read: {what} is not guessed"


def run_values(
    runs: pd.DataFrame,
    objective: Objective,
    *,
    percentiles: pd.DataFrame | None = None,
    requests: pd.DataFrame | None = None,
    histogram: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each run's value for each clause (columns: the clauses' texts; NaN where the run cannot be judged on
    it), and beside it where each value came from, or why it is missing (same shape, text).

    ``runs``: a study's runs (``error_share``, ``latency_used_s`` ...) or a runs table; the detail tables are
    joined by ``source`` and ``run`` (a per-request log that is the twin of a summary counts for the summary).

    >>> runs = pd.DataFrame({"source": ["a", "b"], "run": 0, "tool": ["ab", "siege"],
    ...                      "latency_mean_s": [0.02, 0.03], "error_share": [0.0, 0.02]})
    >>> pct = pd.DataFrame({"source": "a", "run": 0, "percentile": [50.0, 99.0], "latency_s": [0.018, 0.045]})
    >>> v, why = run_values(runs, Objective("p99 <= 50ms, errors <= 1%"), percentiles=pct)
    >>> v.to_dict("list")
    {'p99 <= 50ms': [0.045, nan], 'errors <= 1%': [0.0, 0.02]}
    >>> why.iloc[1, 0]
    'siege prints no percentiles and no per-request log or histogram was read: p99 is not guessed'
    """
    owners = _owners(runs)
    printed, logged, binned = _printed(percentiles, owners), _logged(requests, owners), _binned(histogram, owners)
    values = pd.DataFrame(index=runs.index, dtype=float)
    basis = pd.DataFrame(index=runs.index, dtype=object)
    tools = runs["tool"].astype(str) if "tool" in runs else pd.Series("", index=runs.index)
    for c in objective.clauses:
        v = pd.Series(np.nan, index=runs.index, dtype=float)
        b = pd.Series("", index=runs.index, dtype=object)
        if c.metric == "errors":
            v = as_floats(runs, "error_share")
            b[:] = "error share"
            b[v.isna().to_numpy(bool)] = "no error count shown"
        elif c.metric == "rps":
            v = as_floats(runs, "requests_per_s")
            b[:] = "requests/s"
            b[v.isna().to_numpy(bool)] = "no throughput shown"
        elif c.stat == "mean":
            v = as_floats(runs, "latency_used_s").fillna(as_floats(runs, "latency_mean_s"))
            b[:] = "mean latency"
            little = _little_means(runs)
            for i in runs.index[v.isna().to_numpy(bool)]:
                if i in logged:
                    v[i], b[i] = float(logged[i].mean()), "mean of the per-request log"
                elif pd.notna(little[i]):
                    v[i], b[i] = little[i], LITTLE_BASIS
                else:
                    b[i] = "no mean latency shown"
        else:
            p = 100.0 if c.stat == "max" else float(c.percentile or 0)
            if c.stat == "max":
                v = as_floats(runs, "latency_max_s")
                b[:] = "longest request printed"
            for i in runs.index[v.isna().to_numpy(bool)]:
                v[i], b[i] = _percentile_of(i, p, printed, logged, binned, tools[i])
        values[c.text] = v.to_numpy(float)
        basis[c.text] = b.to_numpy(object)
    return values, basis


#: The basis of a mean latency computed as the concurrency over the rate (:func:`_little_means`).
LITTLE_BASIS = "concurrency / requests per second (Little's law: what ab prints as its Time per request)"


def _little_means(runs: pd.DataFrame) -> pd.Series:
    """The mean latency of closed-loop runs of a tool that prints it as concurrency x time / requests (ab:
    ``latency_is_little`` in the registry) and asks for no think time: concurrency / requests per second, the
    very figure the tool prints, for an excerpt that quotes only the rate.

    >>> _little_means(pd.DataFrame({"tool": ["ab", "siege"], "concurrency": [30, 30],
    ...                             "requests_per_s": [20272.52, 100.0]})).round(6).tolist()
    [0.00148, nan]
    """
    from .. import registry

    tools = runs["tool"] if "tool" in runs else pd.Series("", index=runs.index)
    little = tools.map(lambda t: bool(registry.get_tool(t).latency_is_little) if t in registry.names() else False)
    rate = as_floats(runs, "rate_target_per_s")
    delay = as_floats(runs, "delay_s").fillna(0.0)
    ok = little.astype(bool) & rate.isna() & delay.eq(0)
    x = as_floats(runs, "requests_per_s")
    return (as_floats(runs, "concurrency") / x.where(x > 0)).where(ok.to_numpy(bool))


def _percentile_of(i: Any, p: float, printed: dict, logged: dict, binned: dict, tool: str) -> tuple[float, str]:
    """One run's ``p`` th percentile and its basis: printed, from the log, from the histogram, or why not."""
    shown = printed.get(i)
    if shown is not None:
        hit = shown[np.isclose(shown.index.to_numpy(float), p, rtol=0, atol=1e-9)]
        if len(hit):
            return float(hit.iloc[0]), "printed by the tool"
    lat = logged.get(i)
    if lat is not None:
        return float(np.percentile(lat, p, method="inverted_cdf")), "nearest rank of the per-request log"
    h = binned.get(i)
    if h is not None:
        return _from_histogram(h, p), "upper edge of its histogram bucket (an upper bound)"
    return math.nan, _missing(tool, shown, p)
