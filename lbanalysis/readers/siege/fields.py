"""siege's JSON object fields: the key map shared by the siege text and JSON readers.

siege's ``-j`` object (see :mod:`lbanalysis.readers.siege.json`) may stand
alone or inside a transcript the text reader splits; both read it with
:func:`fields_from_json` from the one table :data:`FIELDS`. Keeping it here
lets the text reader use it without importing the JSON format's module
(which delegates to the text reader).

>>> fields_from_json('{ "transactions": 4, "availability": 100.00, "data_transferred": 1.50, "response_time": -nan }')
{'requests': 4, 'availability_pct': 100.0, 'bytes_total': 1572864.0, 'latency_mean_s': nan}
"""

from __future__ import annotations

import re

from ...units import BINARY
from ..base import printed_step, to_float, to_int

__all__ = ["FIELDS", "OBJECT_START_RE", "fields_from_json"]

MB = float(BINARY["M"])  # siege's MB: bytes / (1024.0 * 1024.0)

# key -> (column, kind, factor); kind "int" or "float".
FIELDS: dict[str, tuple[str, str, float]] = {
    "transactions": ("requests", "int", 1.0),
    "availability": ("availability_pct", "float", 1.0),
    "elapsed_time": ("duration_s", "float", 1.0),
    "data_transferred": ("bytes_total", "float", MB),
    "response_time": ("latency_mean_s", "float", 1.0),
    "transaction_rate": ("requests_per_s", "float", 1.0),
    "throughput": ("bytes_per_s", "float", MB),
    "concurrency": ("concurrency_achieved", "float", 1.0),
    "successful_transactions": ("requests_ok", "int", 1.0),
    "http_ok_received": ("http_ok", "int", 1.0),
    "failed_transactions": ("failed", "int", 1.0),
    "longest_transaction": ("latency_max_s", "float", 1.0),
    "shortest_transaction": ("latency_min_s", "float", 1.0),
}

_PAIR_RE = re.compile(r'"(\w+)"\s*:\s*("(?:[^"\\]|\\.)*"|[^,\s}]+)')
# The start of a siege JSON object: "{" then (maybe on the next line) "transactions".
OBJECT_START_RE = re.compile(r'^\s*\{\s*(?:"transactions"\s*:.*)?$')


def fields_from_json(text: str) -> dict | None:
    """Run fields from the text of one siege JSON object (None if it is not one).

    Unknown keys are ignored; ``nan``/``-nan``/``inf`` become NaN (floats)
    or None (counts).
    """
    out: dict = {}
    for key, raw in _PAIR_RE.findall(text):
        spec = FIELDS.get(key)
        if spec is None:
            continue
        col, kind, factor = spec
        if kind == "int":
            out[col] = to_int(raw)
        else:
            v = to_float(raw)
            out[col] = None if v is None else v * factor
            step = printed_step(raw) if col == "latency_mean_s" else None
            if step is not None:
                out["latency_mean_step_s"] = step * factor
    return out if "requests" in out or len(out) >= 3 else None
