"""ApacheBench ``-e`` CSV (percentage served) into the percentiles table.

Format::

    Percentage served,Time in ms
    0,0.123
    1,0.456
    ...
    99,5.012
    100,6.000

ab writes one line per whole percentage (ab 2.3 writes 0 to 100); times are
in ms (converted to s). The run row holds only what the file shows: the
latency of the 0 % line as ``latency_min_s`` and of the 100 % line as
``latency_max_s`` when present.
"""

from __future__ import annotations

from ...errors import ParseError
from ...text import Segment
from ..base import Format, Parsed

HEADER = "Percentage served,Time in ms"


def detect(text: str) -> bool:
    """True for ab's -e CSV header.

    >>> detect("Percentage served,Time in ms\\n0,1.0\\n")
    True
    """
    return text.lstrip().startswith(HEADER)


def parse(seg: Segment) -> Parsed:
    """Read the CSV's percentage rows."""
    rows = []
    lines = seg.text.split("\n")
    for n, line in enumerate(lines[1:], start=2):
        line = line.strip()
        if not line:
            continue
        parts = line.split(",")
        try:
            pct, ms = float(parts[0]), float(parts[1])
        except (ValueError, IndexError):
            raise ParseError("expected 'percentage,milliseconds'", source=seg.source, line=n, text=line) from None
        rows.append({"run": 0, "percentile": pct, "latency_s": ms / 1000.0})
    if not rows:
        raise ParseError("ab -e CSV holds no percentage line", source=seg.source, line=1)
    run: dict = {"tool": "ab", "line": 1}
    by = {r["percentile"]: r["latency_s"] for r in rows}
    if 0.0 in by:
        run["latency_min_s"] = by[0.0]
    if 100.0 in by:
        run["latency_max_s"] = by[100.0]
    return Parsed([run], {"percentiles": rows})


FORMATS = [Format("ab-csv", "ab", detect, parse, whole_file=True, description="ApacheBench -e percentiles CSV")]
