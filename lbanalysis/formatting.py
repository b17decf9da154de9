"""Tables and numbers for people: headers in words with units, rounding that suits each quantity.

One formatting layer for every frame the library returns (and frames built
from them): a column's unit comes from :mod:`lbanalysis.schema` when the
column is defined there, else from its name (``_s`` seconds, ``_per_s``
rates, ``bits_per_s``, ``bytes``, ``_pct``, ``ratio``). Each column then
gets a display unit chosen from its values (ms or s, Mbit/s or Gbit/s, KiB
or MiB), thousands separators, no scientific notation, and one convention
for a missing value: an empty cell.

:func:`humanize` returns the formatted table as strings (for text, Markdown
or a CSV meant for reading); :func:`style` returns a pandas ``Styler`` for
notebooks and HTML reports, every cell and header HTML-escaped (values read
from logs may hold markup); :func:`fmt` formats one number for a sentence.

>>> import pandas as pd
>>> runs = pd.DataFrame({"concurrency": [10, 150], "requests_per_s": [12570.77, 17088.43],
...                      "latency_mean_s": [0.000796, 0.00878], "bits_per_s": [9.4e7, None]})
>>> humanize(runs)  # doctest: +NORMALIZE_WHITESPACE
  concurrency requests/s mean latency (ms) rate (Mbit/s)
0          10     12,571              0.80          94.0
1         150     17,088              8.78
>>> fmt(20272.52, "requests_per_s"), fmt(0.0123, "s"), fmt(9.4e8, "bits_per_s"), fmt(None, "s")
('20,273 requests/s', '12.3 ms', '940 Mbit/s', '–')
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Display", "display_of", "fmt", "header", "humanize", "style"]

MISSING = ""  # what a missing value shows in a table
MISSING_IN_TEXT = "–"  # and in a sentence

# Headers in words for the columns people see most; others are derived from the name.
LABELS: dict[str, str] = {
    "requests_per_s": "requests/s",
    "requests": "requests",
    "requests_ok": "successful requests",
    "requests_planned": "requests asked for",
    "rate_target_per_s": "rate asked (requests/s)",
    "rate_sent_per_s": "rate sent (requests/s)",
    "non_2xx": "non-2xx",
    "keepalive": "keep-alive",
    "bits_per_s": "rate",
    "capacity_bits_per_s": "link",
    "wire_bits_per_s": "on the wire",
    "payload_bits_per_s": "payload",
    "bytes_per_s": "transfer",
    "bytes_total": "bytes received",
    "bytes_sent": "bytes sent",
    "bytes_sent_per_s": "sent",
    "duration_s": "duration",
    "time_limit_s": "time limit",
    "latency_mean_all_s": "mean latency, all clients",
    "change_pct": "change",
    "tool_version": "version",
    "url": "URL",
    "max_min": "busiest / least busy",
    "jain": "Jain's index",
    "share_ratio": "share / weight share",
    "limit_reached": "maxconn reached",
}

# unit of a column -> (display units by size: (label, factor, threshold)); the largest threshold <= |median| wins
_SCALES: dict[str, tuple[tuple[str, float, float], ...]] = {
    "s": (("µs", 1e6, 0.0), ("ms", 1e3, 1e-3), ("s", 1.0, 1.0)),
    "bit/s": (("bit/s", 1.0, 0.0), ("kbit/s", 1e-3, 1e3), ("Mbit/s", 1e-6, 1e6), ("Gbit/s", 1e-9, 1e9)),
    "B/s": (("B/s", 1.0, 0.0), ("KiB/s", 2**-10, 2**10), ("MiB/s", 2**-20, 2**20), ("GiB/s", 2**-30, 2**30)),
    "B": (("B", 1.0, 0.0), ("KiB", 2**-10, 2**10), ("MiB", 2**-20, 2**20), ("GiB", 2**-30, 2**30)),
    "bit": (("bit", 1.0, 0.0),),
    "%": (("%", 1.0, 0.0),),
    "1/s": (("/s", 1.0, 0.0),),
}
#: Words for the tokens of fit and statistics columns (``sigma_lower`` -> "σ lower", ``r2`` -> "R²").
_TOKEN_WORDS: dict[str, str] = {
    "lambda": "λ",
    "sigma": "σ",
    "kappa": "κ",
    "r2": "R²",
    "aic": "AIC",
    "bic": "BIC",
    "dof": "residual degrees of freedom",
    "bse": "standard error",
    "n": "runs",
    "gb": "GB",
    "mb": "MB",
    "kb": "kB",
    "cpu": "CPU",
    "rep": "repeat",
    "ram": "RAM",
}
_STAT_WORDS = ("mean", "min", "max", "median", "std", "stdev", "p50", "p90", "p95", "p99", "p999")


@dataclass(frozen=True)
class Display:
    """How one column shows: header in words, display unit, factor from SI, decimals, kind.

    >>> display_of(pd.Series([0.0012, 0.0031]), "latency_mean_s")
    Display(header='mean latency (ms)', unit='ms', factor=1000.0, decimals=2, kind='number')
    """

    header: str
    unit: str
    factor: float
    decimals: int
    kind: str  # number, count, bool, datetime, text

    def format(self, value: Any) -> str:
        """One value as the column shows it (missing: an empty string)."""
        if _missing(value):
            return MISSING
        if self.kind == "bool":
            return "yes" if bool(value) else "no"
        if self.kind == "datetime":
            return str(pd.Timestamp(value)).removesuffix(" 00:00:00")
        if self.kind == "text":
            return str(value)
        if self.kind == "count":
            return f"{int(value):,}"
        return _number(float(value) * self.factor, self.decimals)


def _missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _number(x: float, decimals: int) -> str:
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    text = f"{x:,.{decimals}f}"
    return "0" if re.fullmatch(r"-?0(\.0*)?", text) and x == 0 else text


def schema_unit(column: str) -> str | None:
    """The unit :mod:`lbanalysis.schema` declares for ``column`` (any table), else None.

    >>> schema_unit("latency_mean_s"), schema_unit("concurrency"), schema_unit("nope") is None
    ('s', '', True)
    """
    from . import schema

    for table in schema.TABLES.values():
        col = table.get(column)
        if col is not None:
            return col.unit
    return None


def unit_of(column: str) -> str:
    """The SI unit of a column: from the schema, else from its name ('' when unitless).

    >>> [unit_of(c) for c in ("wire_bits_per_s", "p99_s", "throughput_bytes_per_s", "loss_pct", "ratio", "n")]
    ['bit/s', 's', 'B/s', '%', '', '']
    """
    declared = schema_unit(column)
    if declared is not None:
        return declared
    name = column.lower()
    for suffix, unit in (
        ("bits_per_s", "bit/s"),
        ("bytes_per_s", "B/s"),
        ("_per_s", "1/s"),
        ("_pct", "%"),
        ("_bytes", "B"),
        ("bytes", "B"),
        ("_ms", "ms"),
        ("_s", "s"),
    ):
        if name.endswith(suffix):
            return unit
    return ""


def _words(column: str, unit: str) -> str:
    """A column name in words, without its unit suffix: 'latency_mean_s' -> 'mean latency'."""
    if column in LABELS:
        return LABELS[column]
    name = column
    for suffix in ("_bits_per_s", "_bytes_per_s", "_per_s", "_pct", "_bytes", "_ms", "_s"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            if suffix == "_per_s" and unit == "1/s":
                name += "/s"
            break
    tokens = name.split("_")
    if len(tokens) > 1 and tokens[-1] in _STAT_WORDS:
        tokens = [tokens[-1], *tokens[:-1]]
    return " ".join(_TOKEN_WORDS.get(t, t) for t in tokens)


def header(column: str, unit_label: str = "") -> str:
    """A header in words with its unit in brackets.

    >>> header("latency_mean_s", "ms"), header("requests_per_s", "/s"), header("bits_per_s", "Mbit/s")
    ('mean latency (ms)', 'requests/s', 'rate (Mbit/s)')
    >>> header("sigma_lower"), header("r2"), header("ram_gb"), header("other_cpu_pct", "%")
    ('σ lower', 'R²', 'RAM GB', 'other CPU (%)')
    """
    words = _words(str(column), unit_of(str(column)))
    if not unit_label or unit_label == "/s" or (words.endswith("/s") and unit_label in ("/s", "1/s")):
        return words
    return f"{words} ({unit_label})"


def _scale(unit: str, values: np.ndarray) -> tuple[str, float]:
    scales = _SCALES.get(unit)
    if scales is None:
        return unit, 1.0
    finite = np.abs(values[np.isfinite(values)])
    finite = finite[finite > 0]
    typical = float(np.median(finite)) if finite.size else 0.0
    label, factor = scales[0][0], scales[0][1]
    for name, f, threshold in scales:
        if typical >= threshold:
            label, factor = name, f
    return label, factor


def _decimals(values: np.ndarray) -> int:
    """Decimals so that typical values show about three significant digits (none past 100), and the smallest
    value that is not 0 shows one at least (a 0.7 ms latency among seconds is no ``0.00``).

    >>> _decimals(np.array([2.31, 2.59])), _decimals(np.array([2.31, 2.59, 0.0007])), _decimals(np.array([250.0]))
    (2, 4, 0)
    """
    finite = np.abs(values[np.isfinite(values)])
    finite = finite[finite > 0]
    if not finite.size:
        return 0
    typical = float(np.median(finite))
    if typical >= 100:
        typical_decimals = 0
    elif typical >= 10:
        typical_decimals = 1
    elif typical >= 1:
        typical_decimals = 2
    else:
        typical_decimals = 2 - math.floor(math.log10(typical))
    smallest = float(finite.min())
    shown = -math.floor(math.log10(smallest)) if smallest < 1 else 0
    return min(6, max(typical_decimals, shown))


def display_of(values: pd.Series, column: str, *, precision: int | None = None) -> Display:
    """How column ``column`` with these values should show (see :class:`Display`).

    A column already in milliseconds keeps its values when they read well in ms:

    >>> d = display_of(pd.Series([602.0, 35.0]), "latency_max_ms")
    >>> d.header, d.factor, display_of(pd.Series([0.4, 0.6]), "latency_max_ms").header
    ('max latency (ms)', 1.0, 'max latency (µs)')
    """
    s = values
    if pd.api.types.is_bool_dtype(s.dtype):
        return Display(header(column), "", 1.0, 0, "bool")
    if pd.api.types.is_datetime64_any_dtype(s.dtype):
        return Display(header(column), "", 1.0, 0, "datetime")
    numeric = pd.api.types.is_numeric_dtype(s.dtype)
    if not numeric:
        return Display(header(column), "", 1.0, 0, "text")
    unit = unit_of(column)
    arr = pd.to_numeric(s, errors="coerce").astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    pre = 1.0  # a column already in ms is scaled as seconds: the factor applies to its own values
    if unit == "ms":
        arr, unit, pre = arr / 1e3, "s", 1e-3
    label, factor = _scale(unit, arr)
    whole = np.isfinite(arr) & (arr != np.round(arr))
    if pd.api.types.is_integer_dtype(s.dtype) or (not whole.any() and unit in ("", "bit") and np.isfinite(arr).any()):
        if factor == 1.0:
            return Display(header(column, label), label, 1.0, 0, "count")
    decimals = precision if precision is not None else _decimals(arr * factor)
    return Display(header(column, label), label, factor * pre, decimals, "number")


def humanize(
    df: pd.DataFrame,
    *,
    labels: Mapping[str, str] | None = None,
    precision: int | Mapping[str, int] | None = None,
    hide_index: bool = False,
) -> pd.DataFrame:
    """The frame as strings people read: headers in words with units, values rounded.

    ``labels`` overrides headers (by column name); ``precision`` fixes the
    decimals (one number, or per column). The index is kept unless
    ``hide_index``.

    >>> humanize(pd.DataFrame({"failed": [0, 1200], "change_pct": [1.4567, -12.0]}))
      failed change (%)
    0      0       1.46
    1  1,200     -12.00
    """
    out = {}
    for col in df.columns:
        prec = precision.get(col) if isinstance(precision, Mapping) else precision
        disp = display_of(df[col], str(col), precision=prec)
        name = (labels or {}).get(col, disp.header)
        out[name] = [disp.format(v) for v in df[col]]
    frame = pd.DataFrame(out, index=df.index)
    if len(set(frame.columns)) < len(frame.columns):  # two columns with the same words: keep them apart
        frame.columns = [f"{c} [{orig}]" for c, orig in zip(frame.columns, df.columns, strict=True)]
    return frame.reset_index(drop=True) if hide_index else frame


def style(
    df: pd.DataFrame,
    *,
    labels: Mapping[str, str] | None = None,
    precision: int | Mapping[str, int] | None = None,
    hide_index: bool = True,
    caption: str | None = None,
) -> Any:
    """A pandas ``Styler`` of :func:`humanize`'s table, every value and header HTML-escaped.

    Numbers are right-aligned, text left-aligned, and sentences (a column with
    values over 40 characters) wrap; the index is hidden unless
    ``hide_index=False`` (a named index is then shown in words too).

    >>> html_text = style(pd.DataFrame({"server_software": ["<script>x</script>"], "requests": [5]})).to_html()
    >>> "<script>" in html_text, "&lt;script&gt;x&lt;/script&gt;" in html_text
    (False, True)
    """
    shown = df
    if not hide_index:
        names = [n if n is not None else "" for n in df.index.names]
        shown = df.reset_index(names=[n or f"level_{i}" for i, n in enumerate(names)])
    table = humanize(shown, labels=labels, precision=precision, hide_index=True)
    numeric = [table.columns[i] for i, c in enumerate(shown.columns) if pd.api.types.is_numeric_dtype(shown[c].dtype)]
    safe = table.map(html.escape)
    safe.columns = [html.escape(str(c)) for c in table.columns]
    numeric = [html.escape(str(c)) for c in numeric]
    styler = safe.style.hide(axis="index")
    if numeric:
        styler = styler.set_properties(subset=numeric, **{"text-align": "right"})
    text = [c for c in safe.columns if c not in numeric]
    if text:
        styler = styler.set_properties(subset=text, **{"text-align": "left"})
    longest = {c: safe[c].astype(str).str.len().max() for c in text} if len(safe) else {}
    for c, n in longest.items():  # sentences (evidence, reasons) wrap instead of running off the page
        if n > 40:
            styler = styler.set_properties(
                subset=[c], **{"white-space": "normal", "min-width": "24em" if n > 80 else "12em"}
            )
    styler = styler.set_table_styles(
        [
            {"selector": "th", "props": "text-align: left; white-space: normal; max-width: 14em;"},
            {"selector": "td", "props": "padding: 0.15em 0.6em;"},
        ]
    )
    if caption:
        styler = styler.set_caption(html.escape(caption))
    return styler


def fmt(value: Any, column_or_unit: str, *, decimals: int | None = None) -> str:
    """One number for a sentence, with its unit: a column name or an SI unit.

    >>> fmt(0.0796, "latency_mean_s"), fmt(1.5, "s"), fmt(2.5e6, "B/s"), fmt(37.456, "%"), fmt(12, "")
    ('79.6 ms', '1.50 s', '2.38 MiB/s', '37.5 %', '12')
    """
    if _missing(value):
        return MISSING_IN_TEXT
    unit = column_or_unit if column_or_unit in _SCALES or column_or_unit in ("", "ms") else unit_of(column_or_unit)
    x = float(value)
    if unit == "ms":
        x, unit = x / 1e3, "s"
    label, factor = _scale(unit, np.array([x]))
    shown = x * factor
    d = decimals if decimals is not None else _decimals(np.array([shown]))
    if unit == "" and decimals is None and float(shown).is_integer():
        d = 0
    text = _number(shown, d)
    if column_or_unit in LABELS and unit in ("1/s", ""):
        return f"{text} {LABELS[column_or_unit]}"
    if not label:
        return text
    return f"{text}{label}" if label == "/s" else f"{text} {label}"
