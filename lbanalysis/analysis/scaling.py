"""A series along a scale factor (servers, pods, processes, cores at one load): what each added unit gave and
where adding stops paying.

:func:`along` reads the curve of a series (one row per value of the factor, :func:`~lbanalysis.analysis.
evidence.loads.per_load`) and says it in one sentence with its figures: the throughput at the first and the
best value, the gain of each added unit between neighbours, and the value from which throughput stays within
``flat_gain`` of its best (the knee along the factor), with the gain per added unit past it.

>>> import pandas as pd
>>> curve = pd.DataFrame({"x": [11500.0, 37600, 76300, 82900, 89200, 89800, 90100], "runs": 5},
...                      index=pd.Index([1.0, 2, 4, 6, 8, 10, 12], name="podnum"))
>>> said = along(curve, "podnum")
>>> said.sentence
'requests/s 11,500 at podnum 1 to 90,100 at podnum 12 (7.8x); from podnum 8, +0.3% per podnum added: adding stops paying'
>>> said.figures["stops_at"], round(said.figures["gain_per_unit_past"], 4)
(8.0, 0.0025)
>>> gains(curve).round(3).tolist()[:3]
[2.27, 0.515, 0.043]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["Along", "along", "gains"]


@dataclass
class Along:
    """What a curve along a scale factor says: ``sentence`` and its ``figures`` (``first``, ``best``, ``stops_at``:
    the value from which adding stops paying, NaN when it never does, ``gain_per_unit_past``)."""

    sentence: str
    figures: dict[str, Any] = field(default_factory=dict)


def gains(curve: pd.DataFrame) -> pd.Series:
    """The relative gain in requests/s of each added unit, between neighbouring values (index: the upper value).

    >>> gains(pd.DataFrame({"x": [100.0, 200, 220]}, index=[1.0, 2, 4])).round(3).tolist()
    [1.0, 0.05]
    """
    x = curve["x"].astype(float)
    n = pd.Series(curve.index.astype(float), index=curve.index)
    return ((x / x.shift(1) - 1) / (n - n.shift(1))).iloc[1:]


def along(curve: pd.DataFrame, factor: str, flat_gain: float = 0.05) -> Along:
    """The sentence and figures of a curve along ``factor`` (see the module text)."""
    curve = curve[curve["x"].notna()] if "x" in curve else curve
    if not len(curve):
        return Along(f"no run along {factor} carries a throughput")
    n0, n1 = float(curve.index.min()), float(curve.index.max())
    x = curve["x"].astype(float)
    if len(curve) < 2:
        return Along(f"requests/s {x.iloc[0]:,.0f} at {factor} {n0:g} only: one value, no curve",
                     {"first": n0, "best": n0, "stops_at": math.nan})  # fmt: skip
    best = float(x.idxmax())
    head = (f"requests/s {x.loc[n0]:,.0f} at {factor} {n0:g} to {x.loc[best]:,.0f} at {factor} {best:g}"
            f" ({x.loc[best] / x.loc[n0]:.1f}x)" if x.loc[n0] > 0 else f"requests/s up to {x.max():,.0f}")  # fmt: skip
    knee = float(x.index[x >= (1 - flat_gain) * x.max()].min())
    figures: dict[str, Any] = {"first": n0, "best": best, "stops_at": math.nan, "gain_per_unit_past": math.nan}
    if knee < n1:
        past = (x.loc[n1] / x.loc[knee] - 1) / (n1 - knee)
        figures.update(stops_at=knee, gain_per_unit_past=past)
        tail = f"from {factor} {knee:g}, {past * 100:+.1f}% per {factor} added: adding stops paying"
    else:
        last = gains(curve).iloc[-1]
        figures["gain_per_unit_past"] = last
        tail = f"still {last * 100:+.1f}% per {factor} added at the top: adding still pays"
    noise = "" if (curve["runs"] >= 2).any() else " (one run per value: the noise is unknown)"
    return Along(f"{head}; {tail}{noise}", figures)
