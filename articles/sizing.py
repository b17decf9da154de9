"""Article 001 (haproxy-sizing): the HAProxy sizing guide's reference figures.

The HAProxy management guide, section 3.5 "Sizing", gives orders of
magnitude for one well tuned core (Core i7 at 3.7 GHz, HAProxy 1.6, Linux
3.10): request and connection rates, bandwidths, connections per GB of RAM,
and three rules of thumb. ``data/raw/haproxy-sizing/reference.csv`` holds
every figure, one row each; this module reads it into a tidy frame,
recomputes the rules of thumb from the figures, and places measured rates
against them.

=============================  ================================================
function                       what it does
=============================  ================================================
``read_reference``             reference.csv → metric, value, unit, mode, kind
``reference_value``            one figure by metric and mode
``reference_rates``            the per-second figures, largest first, labelled
``rules_of_thumb``             the guide's ratios recomputed from its rates
``memory_per_connection``      bytes per connection from connections per GB
``memory_for_connections``     GB of RAM for n saturated connections
``against_reference``          measured rates as fractions of a reference rate
``best_runs``                  the best run of each of several run frames
=============================  ================================================

General helpers the notebooks also use live in the library:
:func:`lbanalysis.analysis.ratio_table`, :func:`lbanalysis.analysis.peak_bracket`,
:func:`lbanalysis.analysis.closed_loop_rate`, ``ScalingFit.summary_frame()`` and
:func:`lbanalysis.plots.plot_rates`.

>>> ref = read_reference()
>>> reference_value(ref, "http_requests_per_s", "end-to-end keep-alive")
243000.0
>>> round(float(rules_of_thumb(ref).loc["tls resume / tls renegotiation", "recomputed"]), 2)
10.08
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import paths

__all__ = [
    "KINDS",
    "REFERENCE_FILE",
    "RULES",
    "against_reference",
    "best_runs",
    "memory_for_connections",
    "memory_per_connection",
    "read_reference",
    "reference_rates",
    "reference_value",
    "rules_of_thumb",
]

# ------------------------------------------------------------ the format ---
#: The reference figures of the sizing guide (see data/raw/haproxy-sizing/SOURCE.md).
REFERENCE_FILE = paths.raw("haproxy-sizing", "reference.csv")

#: What a figure measures, from its unit.
KINDS: dict[str, str] = {
    "1/s": "rate",
    "bit/s": "bandwidth",
    "1/GB": "connections per memory",
    "%": "cpu share",
    "1": "ratio",
    "servers": "servers",
}

#: The guide's rules of thumb: name → (numerator (metric, mode), denominator (metric, mode), stated ratio's mode).
#: "Divided by 3 between HTTP keep-alive and HTTP close" has two readings of "close": server-close requests
#: (97000/s, keep-alive with the client) and one request per connection (82000 HTTP connections/s).
RULES: dict[str, tuple[tuple[str, str], tuple[str, str], str]] = {
    "http keep-alive / server-close": (
        ("http_requests_per_s", "end-to-end keep-alive"),
        ("http_requests_per_s", "server-close"),
        "http keep-alive / http close",
    ),
    "http keep-alive / http close": (
        ("http_requests_per_s", "end-to-end keep-alive"),
        ("http_connections_per_s", "http close"),
        "http keep-alive / http close",
    ),
    "tls keep-alive / tls resume": (
        ("https_requests_per_s", "tls keep-alive"),
        ("https_requests_per_s", "tls resume"),
        "tls keep-alive / tls resume",
    ),
    "tls resume / tls renegotiation": (
        ("https_requests_per_s", "tls resume"),
        ("https_connections_per_s", "tls renegotiation rsa2048"),
        "tls resume / tls renegotiation",
    ),
}

#: The guide's metrics in words, for the reference table.
METRIC_WORDS: dict[str, str] = {
    "cpu_share_haproxy": "CPU share in HAProxy",
    "cpu_share_kernel": "CPU share in the kernel",
    "max_bandwidth": "maximum bandwidth",
    "tcp_connections_per_s": "TCP connections per second",
    "http_connections_per_s": "HTTP connections per second",
    "http_requests_per_s": "HTTP requests per second",
    "filtered_tcp_connections_per_s": "filtered TCP connections per second",
    "https_requests_per_s": "HTTPS requests per second",
    "https_connections_per_s": "HTTPS connections per second",
    "concurrent_connections_per_gb": "concurrent connections per GB",
    "aes_gcm_bandwidth_per_core": "AES-GCM bandwidth per core",
    "rate_ratio": "rate ratio (a rule of thumb)",
    "saturable_servers_low": "servers one core can saturate, low",
    "saturable_servers_high": "servers one core can saturate, high",
}

_COLUMNS = ["metric", "value", "unit", "mode", "note"]


# ------------------------------------------------------------- reading ---
def read_reference(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """The sizing guide's figures as a tidy frame, one row per figure.

    Columns: ``metric``, ``value`` (float, SI: bit/s, 1/s), ``unit``,
    ``mode``, ``note`` (empty string when none) and ``kind`` (rate,
    bandwidth, connections per memory, cpu share, ratio, servers; from the
    unit via :data:`KINDS`). ``path`` defaults to :data:`REFERENCE_FILE`.

    >>> ref = read_reference()
    >>> ref.shape
    (28, 6)
    >>> float(ref.loc[ref["kind"] == "rate", "value"].max())
    300000.0
    >>> ref.loc[4, ["metric", "value", "unit"]].tolist()
    ['max_bandwidth', 20000000000.0, 'bit/s']
    """
    src = REFERENCE_FILE if path is None else path
    frame = pd.read_csv(src, dtype={"metric": str, "unit": str, "mode": str, "note": str}, keep_default_na=False)
    missing = [c for c in _COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{src}: missing column(s) {', '.join(missing)}; expected {', '.join(_COLUMNS)}")
    out = frame[_COLUMNS].copy()
    out["value"] = pd.to_numeric(out["value"], errors="raise").astype(float)
    unknown = sorted(set(out["unit"]) - set(KINDS))
    if unknown:
        raise ValueError(f"{src}: unknown unit(s) {', '.join(unknown)}; known units: {', '.join(KINDS)}")
    out["kind"] = out["unit"].map(KINDS)
    return out


def reference_value(ref: pd.DataFrame, metric: str, mode: str) -> float:
    """The one figure with this ``metric`` and ``mode``.

    >>> ref = read_reference()
    >>> reference_value(ref, "https_requests_per_s", "tls resume")
    13100.0
    >>> reference_value(ref, "https_requests_per_s", "tls")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    KeyError: "no figure https_requests_per_s / 'tls'; its modes are: 'tls keep-alive', 'tls resume'"
    """
    rows = ref[(ref["metric"] == metric) & (ref["mode"] == mode)]
    if len(rows) != 1:
        modes = ", ".join(repr(m) for m in ref.loc[ref["metric"] == metric, "mode"])
        if not modes:
            raise KeyError(f"no metric {metric!r}; metrics are: {', '.join(dict.fromkeys(ref['metric']))}")
        raise KeyError(f"no figure {metric} / {mode!r}; its modes are: {modes}")
    return float(rows["value"].iloc[0])


def reference_rates(ref: pd.DataFrame) -> pd.DataFrame:
    """The per-second figures (unit ``1/s``), largest first, with a ``label``.

    >>> rates = reference_rates(read_reference())
    >>> rates[["label", "value"]].head(2).to_dict("records")
    [{'label': 'filtered tcp connections (anti-ddos filtering)', 'value': 300000.0}, \
{'label': 'http requests (end-to-end keep-alive)', 'value': 243000.0}]
    >>> len(rates)
    8
    """
    rates = ref[ref["unit"] == "1/s"].copy()
    what = rates["metric"].str.removesuffix("_per_s").str.replace("_", " ")
    rates["label"] = what + " (" + rates["mode"] + ")"
    return rates.sort_values("value", ascending=False, kind="stable").reset_index(drop=True)


# ------------------------------------------------------- rules of thumb ---
def rules_of_thumb(ref: pd.DataFrame) -> pd.DataFrame:
    """The guide's rate ratios recomputed from its own figures, beside the stated ones.

    One row per rule of :data:`RULES` (index ``rule``): ``numerator`` and
    ``denominator`` (labels), their rates, ``recomputed`` (their ratio),
    ``stated`` (the guide's rule: 3 or 10) and ``recomputed_over_stated``.

    >>> rules = rules_of_thumb(read_reference())
    >>> rules["recomputed"].round(2).to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'http keep-alive / server-close': 2.51, 'http keep-alive / http close': 2.96,
     'tls keep-alive / tls resume': 12.21, 'tls resume / tls renegotiation': 10.08}
    >>> rules["stated"].tolist()
    [3.0, 3.0, 10.0, 10.0]
    """
    rows = []
    for rule, ((m1, mode1), (m2, mode2), stated_mode) in RULES.items():
        num, den = reference_value(ref, m1, mode1), reference_value(ref, m2, mode2)
        stated = reference_value(ref, "rate_ratio", stated_mode)
        rows.append(
            {
                "rule": rule,
                "numerator": f"{m1} ({mode1})",
                "denominator": f"{m2} ({mode2})",
                "numerator_per_s": num,
                "denominator_per_s": den,
                "recomputed": num / den,
                "stated": stated,
                "recomputed_over_stated": num / den / stated,
            }
        )
    return pd.DataFrame(rows).set_index("rule")


def memory_per_connection(ref: pd.DataFrame, gb: float = 1e9) -> pd.DataFrame:
    """Bytes of RAM per connection implied by the connections-per-GB figures.

    ``gb`` is the size of the guide's "GB" in bytes (it does not say; 1e9 by
    default, ``2**30`` for GiB). Columns: ``mode``, ``connections_per_gb``,
    ``bytes_per_connection``, ``kb_per_connection`` (10^3 bytes).

    >>> mem = memory_per_connection(read_reference())
    >>> mem[["mode", "kb_per_connection"]].to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'mode': 'saturated connections', 'kb_per_connection': 50.0},
     {'mode': 'tls client-side only', 'kb_per_connection': 125.0},
     {'mode': 'tls end-to-end', 'kb_per_connection': 200.0}]
    """
    rows = ref[ref["metric"] == "concurrent_connections_per_gb"]
    out = pd.DataFrame({"mode": rows["mode"].to_numpy(), "connections_per_gb": rows["value"].to_numpy()})
    out["bytes_per_connection"] = gb / out["connections_per_gb"]
    out["kb_per_connection"] = out["bytes_per_connection"] / 1e3
    return out


def memory_for_connections(connections: Any, per_gb: float = 20000.0) -> Any:
    """GB of RAM that ``connections`` saturated connections need at ``per_gb`` connections per GB.

    Works on numbers, arrays and Series (element-wise).

    >>> memory_for_connections(20000)
    1.0
    >>> memory_for_connections(300)
    0.015
    """
    if per_gb <= 0:
        raise ValueError(f"per_gb must be > 0, not {per_gb!r}")
    return connections / per_gb


# ------------------------------------------------ measured vs reference ---
def against_reference(
    measured: pd.DataFrame,
    reference_per_s: float,
    *,
    y: str = "requests_per_s",
) -> pd.DataFrame:
    """Measured rates as fractions of a reference rate; returns a copy with added columns.

    ``reference_per_s`` (the reference), ``fraction`` (``y / reference``) and
    ``times_below`` (``reference / y``: how many times the reference is
    larger).

    >>> m = pd.DataFrame({"article": ["000", "002"], "requests_per_s": [29331.99, 20928.0]})
    >>> against_reference(m, 243000)[["fraction", "times_below"]].round(4).to_dict("list")
    {'fraction': [0.1207, 0.0861], 'times_below': [8.2845, 11.6112]}
    """
    if not reference_per_s > 0:
        raise ValueError(f"reference_per_s must be > 0, not {reference_per_s!r}")
    if y not in measured.columns:
        raise ValueError(f"no column {y!r}; the frame has: {', '.join(map(str, measured.columns))}")
    out = measured.copy()
    rate = pd.to_numeric(out[y], errors="coerce").astype(float)
    out["reference_per_s"] = float(reference_per_s)
    out["fraction"] = rate / reference_per_s
    out["times_below"] = reference_per_s / rate
    return out


def best_runs(
    frames: Mapping[str, pd.DataFrame],
    *,
    y: str = "requests_per_s",
    columns: Sequence[str] = ("source", "tool", "concurrency", "keepalive"),
    label: str = "article",
) -> pd.DataFrame:
    """The run with the largest ``y`` of each frame, one row per frame (keyed by ``label``).

    ``columns`` that a frame lacks are left empty; a frame without any
    number in ``y`` is left out.

    >>> a = pd.DataFrame({"tool": "ab", "requests_per_s": [1.0, 3.0, 2.0], "concurrency": [1, 2, 3]})
    >>> b = pd.DataFrame({"tool": "gobench", "requests_per_s": [5.0]})
    >>> best_runs({"x": a, "y": b}, columns=["tool", "concurrency"]).to_dict("records")
    [{'article': 'x', 'tool': 'ab', 'concurrency': 2.0, 'requests_per_s': 3.0}, \
{'article': 'y', 'tool': 'gobench', 'concurrency': nan, 'requests_per_s': 5.0}]
    """
    rows = []
    for key, frame in frames.items():
        values = pd.to_numeric(frame[y], errors="coerce").astype(float) if y in frame.columns else None
        if values is None or values.isna().all():
            continue
        best = frame.loc[values.idxmax()]
        row: dict[str, Any] = {label: key}
        row.update({c: best[c] if c in frame.columns else np.nan for c in columns})
        row[y] = float(values.max())
        rows.append(row)
    return pd.DataFrame(rows, columns=[label, *columns, y])
