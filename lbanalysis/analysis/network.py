"""Network-bound flags: bits on the wire against the capacity of the link.

For each run :func:`network_utilisation` estimates the bit rate on the wire
in the busier direction, divides it by the capacity of the run's path and
flags the run ``network_bound`` when that utilisation reaches ``threshold``
(0.8 by default: TCP rarely sustains more than 80-95% of a shared link, and
the other direction carries ACKs). Runs that are saturated (at or past the
knee of their group's throughput curve, :func:`~lbanalysis.analysis.find_knee`)
while the link is below the threshold are labelled as bound elsewhere.

What the tools count (``wire_source`` says it per run):

* ab: ``bytes_per_s`` is everything received, HTTP headers included;
* siege: ``bytes_per_s`` counts response bodies only (headers are missing,
  so the estimate is low for small pages);
* gobench: bytes as the tool reads them;
* iperf/iperf3: ``bits_per_s`` is the TCP (or UDP) payload rate.

Framing model (:class:`Framing`, the ``overhead=`` parameter): payload is
carried in segments of at most ``mss`` = 1448 bytes (1500-byte MTU minus 52
bytes); each segment costs ``tcpip_header`` = 52 bytes (IPv4 20 + TCP 20 +
timestamp option 12; 28 for UDP) plus ``ethernet`` = 38 bytes (header 14,
FCS 4, preamble and start delimiter 8, inter-frame gap 12). A full segment
takes 1538 bytes on the wire: 94.1% of a link is payload (941 Mbit/s on
1 Gbit/s, as iperf shows). For an HTTP response of ``b`` bytes the segments
are ``ceil(b / mss)``; a run without keep-alive (``keepalive`` false or
unknown) adds ``handshake_segments`` = 3 header-only segments per request
in the receiving direction (SYN-ACK, FIN, and the ACK of the client's FIN).
``overhead=None`` counts the payload only; a number multiplies it.

>>> import pandas as pd
>>> runs = pd.DataFrame({"tool": ["iperf"], "bits_per_s": [90e6]})
>>> out = network_utilisation(runs, "94 Mbit/s")
>>> round(out.loc[0, "utilisation"], 3), out.loc[0, "bound_by"], out.loc[0, "bound_reason"]
(1.017, 'network', '102% of 94 Mbit/s link (threshold 80%)')
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from lbanalysis import registry
from lbanalysis.units import parse_capacity

__all__ = ["Framing", "bits_used", "format_bits_per_s", "network_utilisation", "wire_bits_per_s"]

_CAPACITY_META = ("capacity_bits_per_s", "n_runs", "direction_used")


@dataclass(frozen=True)
class Framing:
    """Per-segment and per-connection costs of TCP/IP over Ethernet (bytes).

    >>> f = Framing()
    >>> f.segment_overhead(), round(f.efficiency(), 4)
    (90, 0.9415)
    """

    mss: int = 1448
    tcpip_header: int = 52
    udp_header: int = 28
    ethernet: int = 38
    handshake_segments: float = 3.0

    def segment_overhead(self, udp: bool = False) -> int:
        """Bytes added to each segment's payload on the wire."""
        return (self.udp_header if udp else self.tcpip_header) + self.ethernet

    def efficiency(self, udp: bool = False) -> float:
        """Share of the wire that is payload for full segments."""
        return self.mss / (self.mss + self.segment_overhead(udp))


def format_bits_per_s(bits: float) -> str:
    """A bit rate in words, decimal prefixes.

    >>> format_bits_per_s(94e6), format_bits_per_s(1e9), format_bits_per_s(1.6e8)
    ('94 Mbit/s', '1 Gbit/s', '160 Mbit/s')
    """
    if not math.isfinite(bits):
        return "unknown"
    for factor, unit in ((1e12, "Tbit/s"), (1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if abs(bits) >= factor:
            return f"{bits / factor:.3g} {unit}"
    return f"{bits:.3g} bit/s"


def _num(df: pd.DataFrame, col: str) -> pd.Series:
    if col not in df.columns:
        return pd.Series(np.nan, index=df.index, dtype=float)
    s = df[col]
    if isinstance(s.dtype, pd.BooleanDtype) or s.dtype == bool:
        s = s.astype("Float64")
    return pd.to_numeric(s, errors="coerce").astype("Float64").astype(float)


def _text(df: pd.DataFrame, col: str) -> pd.Series:
    if col not in df.columns:
        return pd.Series("", index=df.index, dtype=object)
    return df[col].astype("string").fillna("").str.lower().astype(object)


# ------------------------------------------------------------ wire bits ---
def _http_wire(payload: pd.Series, rps: pd.Series, closes: pd.Series, framing: Framing) -> pd.Series:
    """Wire bytes/s of responses: per-request segments, plus handshakes without keep-alive."""
    per_req = payload / rps.where(rps > 0)
    segments = np.ceil(per_req / framing.mss).clip(lower=1) + closes * framing.handshake_segments
    by_request = rps * (per_req + segments * framing.segment_overhead())
    fluid = payload * (1 + framing.segment_overhead() / framing.mss)  # no request rate: whole segments
    return by_request.where(by_request.notna(), fluid)


def wire_bits_per_s(runs: pd.DataFrame, overhead: Framing | float | None = Framing()) -> pd.DataFrame:
    """Estimated bits per second on the wire for each run, and what they were made from.

    Returns a frame (same index) with ``wire_bits_per_s``, ``payload_bits_per_s``
    and ``wire_source``. The larger of the received and sent directions is
    used. See the module docstring for the model.

    >>> import pandas as pd
    >>> runs = pd.DataFrame({"tool": ["ab"], "requests_per_s": [1000.0], "bytes_per_s": [2896e3],
    ...                      "keepalive": [True]})
    >>> wire_bits_per_s(runs).loc[0, "wire_bits_per_s"]  # 2 full segments per response
    24608000.0
    """
    tool = _text(runs, "tool")
    rps = _num(runs, "requests_per_s")
    duration = _num(runs, "duration_s").where(lambda d: d > 0)
    received = _num(runs, "bytes_per_s").fillna(_num(runs, "bytes_total") / duration)
    sent = _num(runs, "bytes_sent_per_s").fillna(_num(runs, "bytes_sent") / duration)
    iperf = tool.isin(registry.names(kind="network")) | (_num(runs, "bits_per_s").notna() & rps.isna())
    received = received.where(~iperf, _num(runs, "bits_per_s") / 8)
    sent = sent.where(~iperf, np.nan)
    keepalive = runs["keepalive"] if "keepalive" in runs.columns else pd.Series(pd.NA, index=runs.index)
    closes = (~keepalive.astype("boolean").fillna(False)).astype(float)  # unknown counts as 'not keep-alive'

    if overhead is None or overhead is False:
        wire_rx, wire_tx = received, sent
    elif isinstance(overhead, (int, float)):
        wire_rx, wire_tx = received * float(overhead), sent * float(overhead)
    else:
        udp = _text(runs, "protocol") == "udp"
        per_seg = np.where(udp, overhead.segment_overhead(udp=True), overhead.segment_overhead())
        stream = received * (1 + per_seg / overhead.mss)
        wire_rx = stream.where(iperf, _http_wire(received, rps, closes, overhead))
        wire_tx = sent * (1 + overhead.segment_overhead() / overhead.mss)

    use_tx = wire_tx.notna() & (wire_tx > wire_rx.fillna(-1))
    wire = wire_rx.where(~use_tx, wire_tx)
    payload = received.where(~use_tx, sent)
    source = [_source(t, i, tx, w) for t, i, tx, w in zip(tool, iperf, use_tx, wire, strict=True)]
    framing = "" if overhead is None or overhead is False else " + framing estimate"
    source = [s if s.startswith("no byte") else s + framing for s in source]
    return pd.DataFrame(
        {"wire_bits_per_s": wire * 8, "payload_bits_per_s": payload * 8, "wire_source": source}, index=runs.index
    )


def bits_used(runs: pd.DataFrame, basis: str, overhead: Framing | float | None = Framing()) -> pd.DataFrame:
    """The bits per second of each run to compare with a capacity of ``basis``, as :func:`wire_bits_per_s` returns.

    ``"payload"`` (a goodput, as iperf measures it): the payload alone, so
    framing is not counted twice; ``"wire"`` (a link's raw rate): payload
    plus the ``overhead`` framing estimate. The one computation behind
    :func:`network_utilisation` and the study's network verdict.

    >>> runs = pd.DataFrame({"tool": ["ab"], "requests_per_s": [1000.0], "bytes_per_s": [2896e3], "keepalive": [True]})
    >>> bits_used(runs, "payload").loc[0, "wire_bits_per_s"], bits_used(runs, "wire").loc[0, "wire_bits_per_s"]
    (23168000.0, 24608000.0)
    """
    if basis not in ("wire", "payload"):
        raise ValueError(f"capacity basis must be 'wire' or 'payload', not {basis!r}")
    return wire_bits_per_s(runs, None if basis == "payload" else overhead)


def _source(tool: str, iperf: bool, sent: bool, wire: float) -> str:
    if not math.isfinite(wire):
        return "no byte counts or rate: wire rate unknown"
    if iperf:
        return "iperf: payload rate (bits_per_s)"
    if sent:
        return "bytes sent by the client (sent direction larger)"
    known = {t.name: t.bytes_counted for t in registry.TOOLS if t.bytes_counted}
    if tool in known:
        return known[tool]
    return "bytes received as the tool counts them"


# ------------------------------------------------------------- capacity ---
def _capacity(runs: pd.DataFrame, capacity: Any, path: str | Sequence[str] | None) -> tuple[pd.Series, pd.Series]:
    """Capacity (bit/s) per run and a label of the path it belongs to."""
    blank = pd.Series("", index=runs.index, dtype=object)
    if isinstance(capacity, (int, float, str)) and not isinstance(capacity, bool):
        return pd.Series(parse_capacity(capacity), index=runs.index, dtype=float), blank
    if isinstance(capacity, pd.DataFrame):
        return _capacity_frame(runs, capacity, path)
    if isinstance(capacity, (Mapping, pd.Series)):
        if not isinstance(path, str):
            raise ValueError("a mapping of capacities needs path= naming the column that holds the path labels")
        if path not in runs.columns:
            raise ValueError(f"no column {path!r} (path=) in runs")
        table = {k: parse_capacity(v) for k, v in dict(capacity).items()}
        labels = runs[path].astype(object)
        caps = labels.map(lambda k: table.get(k, np.nan) if pd.notna(k) else np.nan).astype(float)
        return caps, labels.where(labels.notna(), "").astype(str)
    raise TypeError(f"capacity must be a number, a string like '94 Mbit/s', a mapping or a frame, not {type(capacity)}")


def _capacity_frame(runs: pd.DataFrame, table: pd.DataFrame, path: Any) -> tuple[pd.Series, pd.Series]:
    if "capacity_bits_per_s" not in table.columns:
        raise ValueError("a capacity frame needs a 'capacity_bits_per_s' column (as link_capacity() returns)")
    if path is None:
        keys = [c for c in table.columns if c not in _CAPACITY_META and c in runs.columns]
    else:
        keys = [path] if isinstance(path, str) else list(path)
    missing = [k for k in keys if k not in runs.columns or k not in table.columns]
    if not keys or missing:
        raise ValueError(f"cannot join capacities to runs: key columns {keys or '(none in common)'}; missing {missing}")
    caps = table[[*keys, "capacity_bits_per_s"]].copy()
    caps["capacity_bits_per_s"] = [parse_capacity(v) if isinstance(v, str) else float(v) for v in caps.iloc[:, -1]]
    if caps.duplicated(keys).any():
        raise ValueError(f"the capacity frame has more than one row for some {keys}")
    left = runs[keys].astype(object).where(runs[keys].notna(), None)
    right = caps.astype({k: object for k in keys})
    merged = left.merge(right, on=keys, how="left")
    merged.index = runs.index
    label = runs[keys].astype("string").fillna("?").agg(" ↔ ".join, axis=1).astype(object)
    return merged["capacity_bits_per_s"].astype(float), label


# ----------------------------------------------------------- saturation ---
def _saturated(runs: pd.DataFrame, saturated: Any, x: str, y: str, by: Any) -> tuple[pd.Series, pd.Series]:
    """Whether each run is at/after its group's knee, and the knee load (NaN if none)."""
    none = pd.Series(False, index=runs.index), pd.Series(np.nan, index=runs.index)
    if saturated is False:
        return none
    if isinstance(saturated, str):
        return runs[saturated].astype("boolean").fillna(False).astype(bool), none[1]
    if isinstance(saturated, pd.Series):
        return saturated.reindex(runs.index).astype("boolean").fillna(False).astype(bool), none[1]
    if x not in runs.columns or y not in runs.columns:
        return none
    from lbanalysis.analysis.saturation import find_knee

    group_cols = [] if by is None else ([by] if isinstance(by, str) else list(by))
    frame = runs.assign(_all=0)
    knees = find_knee(frame, x, y, by=group_cols or "_all", errors="coerce")
    if len(group_cols) > 1:
        key = frame[group_cols].apply(tuple, axis=1)
    else:
        key = frame[group_cols[0] if group_cols else "_all"]
    knee_x = key.map(knees["x"].where(knees["saturated"].fillna(False).astype(bool)))
    load = _num(runs, x)
    at_or_past = (load >= knee_x) & _num(runs, y).notna()
    return at_or_past.fillna(False).astype(bool), knee_x.astype(float)


# ----------------------------------------------------------- entry point ---
def network_utilisation(
    runs: pd.DataFrame,
    capacity: Any,
    *,
    threshold: float = 0.8,
    path: str | Sequence[str] | None = None,
    overhead: Framing | float | None = Framing(),
    saturated: Any = None,
    x: str = "concurrency",
    y: str = "requests_per_s",
    by: str | Sequence[str] | None = None,
    capacity_basis: str = "auto",
) -> pd.DataFrame:
    """Bits on the wire per run against the link capacity; flags network-bound runs.

    ``capacity_basis`` says what the capacity measures. ``"wire"``: the
    link's raw rate (a NIC's 1 Gbit/s), compared with the payload plus the
    ``overhead`` framing estimate. ``"payload"``: a goodput, as iperf
    measures it (a 100 Mbit/s Ethernet link shows about 94 Mbit/s), compared
    with the payload alone, so framing is not counted twice. ``"auto"``
    (default): ``"payload"`` for a frame from
    :func:`~lbanalysis.capacity.link_capacity` (iperf runs), ``"wire"`` for
    numbers and strings given by hand. The basis used is in the
    ``capacity_basis`` column.

    ``capacity``: a number (bit/s); a string (``"94 Mbit/s"``); a dict or
    Series mapping the values of column ``path`` to capacities; or a frame
    like ``link_capacity()``'s joined on its key columns (``path=`` to name
    them, otherwise the columns it shares with ``runs``).

    ``saturated``: ``None`` finds the knee of ``y`` against ``x`` per ``by``
    group (:func:`~lbanalysis.analysis.find_knee`) and takes the runs at or
    past it; a column name or boolean Series gives it; ``False`` skips it.

    Returns a copy of ``runs`` with ``wire_bits_per_s``, ``wire_source``,
    ``capacity_bits_per_s``, ``utilisation`` (wire / capacity),
    ``network_bound`` (utilisation >= threshold; NA when unknown),
    ``bound_by`` (``"network"``, ``"cpu/server/client (not network)"`` for
    saturated runs below the threshold, else ``""``) and ``bound_reason``.

    >>> import pandas as pd
    >>> runs = pd.DataFrame({"tool": "siege", "path": ["lan"] * 4, "concurrency": [10, 20, 40, 80],
    ...                      "requests_per_s": [500.0, 900.0, 905.0, 903.0],
    ...                      "bytes_per_s": [2.0e6, 3.6e6, 3.62e6, 3.61e6]})
    >>> out = network_utilisation(runs, {"lan": "100 Mbit/s"}, path="path")
    >>> out[["utilisation", "network_bound", "bound_by"]].round(2)  # doctest: +NORMALIZE_WHITESPACE
       utilisation  network_bound                         bound_by
    0         0.18          False
    1         0.33          False  cpu/server/client (not network)
    2         0.33          False  cpu/server/client (not network)
    3         0.33          False  cpu/server/client (not network)
    >>> print(out.loc[1, "bound_reason"])
    throughput at/after the knee (concurrency=20) with the link at only 33% of 100 Mbit/s link (lan)
    """
    if capacity_basis not in ("auto", "wire", "payload"):
        raise ValueError(f"capacity_basis must be 'auto', 'wire' or 'payload', not {capacity_basis!r}")
    if capacity_basis == "auto":
        from_iperf = isinstance(capacity, pd.DataFrame) and "capacity_bits_per_s" in capacity.columns
        capacity_basis = "payload" if from_iperf else "wire"
    out = runs.copy()
    wire = bits_used(runs, capacity_basis, overhead)
    cap, label = _capacity(runs, capacity, path)
    util = wire["wire_bits_per_s"] / cap.where(cap > 0)
    sat, knee_x = _saturated(runs, saturated, x, y, by)
    known = util.notna() & np.isfinite(util)
    bound = pd.array([bool(u >= threshold) if k else pd.NA for u, k in zip(util, known, strict=True)], "boolean")

    out["wire_bits_per_s"] = wire["wire_bits_per_s"]
    out["wire_source"] = pd.array(wire["wire_source"], dtype="string")
    out["capacity_bits_per_s"] = cap
    out["capacity_basis"] = pd.array([capacity_basis] * len(out), dtype="string")
    out["utilisation"] = util
    out["network_bound"] = bound
    by_list, reasons = [], []
    for i in range(len(out)):
        b, r = _verdict(
            util.iloc[i], cap.iloc[i], label.iloc[i], bool(sat.iloc[i]), knee_x.iloc[i], threshold, x, wire.iloc[i]
        )
        by_list.append(b)
        reasons.append(r)
    out["bound_by"] = pd.array(by_list, dtype="string")
    out["bound_reason"] = pd.array(reasons, dtype="string")
    return out


def _verdict(
    util: float, cap: float, label: str, sat: bool, knee: float, threshold: float, x: str, wire: pd.Series
) -> tuple[str, str]:
    link = f"{format_bits_per_s(cap)} link" + (f" ({label})" if label else "")
    knee_txt = f"at/after the knee ({x}={knee:g})" if math.isfinite(knee) else "saturated"
    if not math.isfinite(cap):
        why = f"no capacity known for path {label!r}" if label else "no capacity known"
        return "", (f"{knee_txt}; " if sat else "") + why
    if not math.isfinite(util):
        return "", (f"{knee_txt}; " if sat else "") + wire["wire_source"]
    if util >= threshold:
        return "network", f"{util:.0%} of {link} (threshold {threshold:.0%})"
    if sat:
        return "cpu/server/client (not network)", f"throughput {knee_txt} with the link at only {util:.0%} of {link}"
    return "", f"{util:.0%} of {link}: below {threshold:.0%}"
