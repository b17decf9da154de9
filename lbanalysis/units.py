"""Unit conversions: every figure the tools print, turned into SI.

Conventions (documented in the README):

* bits are decimal: 1 Mbit = 10^6 bit (iperf, ``--format m``; capacities);
* iperf's byte prefixes are binary: 1 KByte = 1024 B, 1 MByte = 2^20 B;
* ab's ``Kbytes/sec`` is 1024 B/s (ab divides by 1024);
* siege's ``MB`` is 2^20 B (siege divides by 1048576).

>>> parse_bytes("2.00 MBytes")
2097152.0
>>> parse_bits_per_s("94 Mbits/sec")
94000000.0
>>> parse_capacity("1 Gbit/s")
1000000000.0
>>> parse_duration("1M")
60.0
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

__all__ = [
    "BINARY",
    "DECIMAL",
    "PRINTED",
    "end_times",
    "parse_bits_per_s",
    "parse_bytes",
    "parse_capacity",
    "parse_duration",
    "to_si",
]

BINARY = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
DECIMAL = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}

# The one table of printed units: a unit as a tool or a published table prints it (brackets
# and surrounding spaces removed) -> (SI unit of the schema, factor to multiply by).
PRINTED: dict[str, tuple[str, float]] = {
    "nombre": ("", 1.0),  # French "number": a count
    "count": ("", 1.0),
    "clients": ("", 1.0),
    "s": ("s", 1.0),
    "sec": ("s", 1.0),
    "secs": ("s", 1.0),
    "seconds": ("s", 1.0),
    "ms": ("s", 1e-3),
    "us": ("s", 1e-6),
    "µs": ("s", 1e-6),
    "m": ("s", 60.0),
    "min": ("s", 60.0),
    "h": ("s", 3600.0),
    "#/sec": ("1/s", 1.0),
    "req/s": ("1/s", 1.0),
    "conn/s": ("1/s", 1.0),  # httperf's Connection rate
    "replies/s": ("1/s", 1.0),  # httperf's Reply rate
    "trans/sec": ("1/s", 1.0),
    "B/s": ("B/s", 1.0),
    "bytes/sec": ("B/s", 1.0),
    "KB/s": ("B/s", BINARY["K"]),  # ab: Kbytes/sec = 1024 B/s
    "KB/sec": ("B/s", BINARY["K"]),
    "Kbytes/sec": ("B/s", BINARY["K"]),
    "MB/s": ("B/s", BINARY["M"]),  # siege: MB/sec = 2^20 B/s
    "MB/sec": ("B/s", BINARY["M"]),
    "MiB/s": ("B/s", BINARY["M"]),
    "Mo/s": ("B/s", BINARY["M"]),  # French mégaoctets: siege's MB, translated
    "Mo/sec": ("B/s", BINARY["M"]),
    "MO/s": ("B/s", BINARY["M"]),
    "MO/sec": ("B/s", BINARY["M"]),
    "B": ("B", 1.0),
    "bytes": ("B", 1.0),
    "KB": ("B", BINARY["K"]),
    "MB": ("B", BINARY["M"]),
    "GB": ("B", BINARY["G"]),
    "KiB": ("B", BINARY["K"]),
    "MiB": ("B", BINARY["M"]),
    "GiB": ("B", BINARY["G"]),
    "bit/s": ("bit/s", 1.0),
    "kbit/s": ("bit/s", 1e3),
    "Gbit/s": ("bit/s", 1e9),
    "Gbits/sec": ("bit/s", 1e9),
    "Kbits/sec": ("bit/s", 1e3),
    "Mbit/s": ("bit/s", 1e6),
    "Mbits/sec": ("bit/s", 1e6),
}


def to_si(value: float, unit: str) -> tuple[float, str]:
    """A value in a printed unit, in the schema's SI unit: (value, SI unit).

    Byte prefixes are binary, as the tools print them (see the module notes).

    >>> to_si(250, "ms"), to_si(4.12, "MB/sec"), to_si(94, "Mbits/sec")
    ((0.25, 's'), (4320133.12, 'B/s'), (94000000.0, 'bit/s'))
    """
    key = unit.strip().strip("()[]").strip()
    if key not in PRINTED:
        raise ValueError(f"unknown unit {unit!r}; known units: {', '.join(PRINTED)}")
    si, factor = PRINTED[key]
    return float(value) * factor, si


_BYTES_RE = re.compile(r"^\s*([-+]?[\d.]+(?:[eE][-+]?\d+)?)\s*([KMGT]?)i?(?:Bytes|Byte|B|bytes|byte)?\s*$")
_BITS_RE = re.compile(r"^\s*([-+]?[\d.]+(?:[eE][-+]?\d+)?)\s*([kKMGT]?)(?:bits?|b|bps)?\s*(?:/\s*s(?:ec)?|ps)?\s*$")


def parse_bytes(text: str, *, binary: bool = True) -> float:
    """Bytes from an iperf-style amount (``'177 KBytes'``, ``'1.05 GBytes'``).

    >>> parse_bytes("177 KBytes")
    181248.0
    >>> parse_bytes("0.00 Bytes")
    0.0
    """
    m = _BYTES_RE.match(text)
    if not m:
        raise ValueError(f"not an amount of bytes: {text!r}")
    table = BINARY if binary else DECIMAL
    return float(m.group(1)) * table[m.group(2).upper()]


def parse_bits_per_s(text: str) -> float:
    """Bits per second from ``'168 Mbits/sec'``, ``'1.2 Gbit/s'``, ``'94Mbps'``.

    >>> parse_bits_per_s("0.00 bits/sec")
    0.0
    >>> parse_bits_per_s("6.91 Gbits/sec")
    6910000000.0
    """
    m = _BITS_RE.match(text)
    if not m:
        raise ValueError(f"not a bit rate: {text!r}")
    return float(m.group(1)) * DECIMAL[m.group(2).upper()]


def parse_capacity(value: str | float | int) -> float:
    """A link capacity in bit/s, from a number (bit/s) or text like ``'94 Mbit/s'``.

    Accepts bits (``Mbit/s``, ``Mbits/sec``, ``Mbps``, ``Gb/s``) and bytes
    (``MB/s``, ``MByte/s`` are decimal here: 1 MB/s = 8*10^6 bit/s).

    >>> parse_capacity("100 Mbps")
    100000000.0
    >>> parse_capacity("12.5 MB/s")
    100000000.0
    >>> parse_capacity(1e9)
    1000000000.0
    """
    if isinstance(value, (int, float)):
        return float(value)
    s = value.strip()
    m = re.match(r"^([\d.]+(?:[eE][-+]?\d+)?)\s*([kKMGT]?)(?:i?)(B|Bytes?|o)\s*(?:/\s*s(?:ec)?|ps)$", s)
    if m:
        return float(m.group(1)) * DECIMAL[m.group(2).upper()] * 8
    try:
        return parse_bits_per_s(s)
    except ValueError:
        raise ValueError(
            f"not a link capacity: {value!r} (expected e.g. '94 Mbit/s', '1 Gbit/s', '100 Mbps' or a number in bit/s)"
        ) from None


def parse_duration(text: str) -> float:
    """Seconds from siege's ``-t`` forms (``'5S'``, ``'1M'``, ``'1H'``) or a plain number.

    >>> parse_duration("30s"), parse_duration("2H"), parse_duration("45")
    (30.0, 7200.0, 45.0)
    """
    m = re.match(r"^\s*([\d.]+)\s*([sSmMhH]?)\s*$", text)
    if not m:
        raise ValueError(f"not a duration: {text!r}")
    mult = {"": 1, "S": 1, "M": 60, "H": 3600}[m.group(2).upper()]
    return float(m.group(1)) * mult


def end_times(start: pd.Series, seconds: pd.Series | float) -> pd.Series:
    """``start`` plus ``seconds``, NaT where either is missing or the end falls outside the times pandas can hold
    (a duration of thousands of years is a misprint, not a run's window).

    >>> t = pd.Series(pd.to_datetime(["2026-11-27 10:00:00", "2026-11-27 10:00:00", None]))
    >>> end_times(t, pd.Series([1.5, 2.3e10, 1.0])).tolist()
    [Timestamp('2026-11-27 10:00:01.500000'), NaT, NaT]
    """
    if not (isinstance(start, pd.Series) and start.dtype == "datetime64[ns]"):
        start = pd.to_datetime(start, errors="coerce").astype("datetime64[ns]")
    secs = pd.to_numeric(pd.Series(seconds, index=start.index), errors="coerce").astype(float).to_numpy()
    t = start.to_numpy()
    end_ns = t.astype("int64").astype(float) + secs * 1e9
    ok = ~np.isnat(t) & np.isfinite(end_ns)
    ok &= (end_ns > pd.Timestamp.min.value) & (end_ns < pd.Timestamp.max.value)
    out = np.full(len(t), np.datetime64("NaT", "ns"))
    if ok.any():  # in NumPy: pandas' masked assignment cost a millisecond a call (one per read with CPU samples)
        out[ok] = t[ok] + pd.to_timedelta(secs[ok], unit="s").to_numpy()
    return pd.Series(out, index=start.index)
