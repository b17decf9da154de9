"""What every chart shares, and the drawing of one scaling fit: below the analysis, so a fit draws itself.

:mod:`lbanalysis.plots` draws the tidy tables and imports the analysis (a
fitted curve over the runs); a fit result's own ``.plot(ax=...)``
(:meth:`lbanalysis.analysis.fits.ScalingFit.plot`) draws through this
module, which imports no analysis and no plots: the library's layers stay a
line, with no circle between the fits and the charts. Every name here is
re-exported by :mod:`lbanalysis.plots` (``plots.scaling_fit``,
``plots.plain_ticks``).

>>> tick_label(120000.0), plain_number(22070.28)
('120,000', '22,100')
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes

from .formatting import header

__all__ = ["plain_number", "plain_ticks", "scaling_fit", "thousands_ticks", "tick_label"]


def tick_label(value: float, _pos: Any = None) -> str:
    """An axis tick in plain numbers: thousands separators, no e-notation.

    >>> tick_label(100000.0), tick_label(2500.0), tick_label(0.5), tick_label(0.000125)
    ('100,000', '2,500', '0.5', '0.000125')
    """
    if value == 0:
        return "0"
    if abs(value) >= 1000 or float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.6f}".rstrip("0").rstrip(".")


def thousands_ticks(ax: Axes, which: str = "xy") -> None:
    """Plain-number ticks (``100,000``, not ``1e5``) on the linear axes of ``ax`` named in ``which``."""
    from matplotlib.ticker import FuncFormatter, ScalarFormatter

    for name, axis, scale in (("x", ax.xaxis, ax.get_xscale()), ("y", ax.yaxis, ax.get_yscale())):
        if name in which and scale == "linear" and isinstance(axis.get_major_formatter(), ScalarFormatter):
            axis.set_major_formatter(FuncFormatter(tick_label))


def plain_ticks(ax: Axes | None = None) -> Axes:
    """Tick labels in plain numbers with thousands separators (``20,000``, never ``2e4``) on the
    linear numeric axes of ``ax``; category, log and fixed labels are left as they are.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], [0, 120000])
    >>> plain_ticks(ax).yaxis.get_major_formatter()(120000.0)
    '120,000'
    >>> plt.close(fig)
    """
    ax = ax or plt.gca()
    thousands_ticks(ax)
    return ax


def plain_number(x: float) -> str:
    """A number for a chart label, three significant digits, never in e-notation.

    >>> plain_number(22070.28), plain_number(49.739), plain_number(0.01234)
    ('22,100', '49.7', '0.0123')
    """
    if x == 0 or not np.isfinite(x):
        return f"{x:g}"
    digits = max(0, 2 - int(np.floor(np.log10(abs(x)))))
    return f"{round(x, digits - 0 if digits else -(int(np.floor(np.log10(abs(x)))) - 2)):,.{digits}f}"


def scaling_fit(
    fit: Any,
    *,
    band: bool = True,
    points: bool = True,
    peak: bool = True,
    color: str | None = None,
    label: str | None = None,
    num: int = 200,
    ax: Axes | None = None,
) -> Axes:
    """Draw one scaling fit: its runs (if ``points``), the curve, the band, the peak.

    Lines are added in that order: the runs (markers only), the curve, and
    (USL with a finite peak inside the drawn range) a star at ``(n_peak,
    x_peak)``; the 95% confidence band is a filled area in ``ax.collections``.
    The curve spans the measured loads only, smallest to largest: a model
    says nothing a run did not measure (a peak outside them is not drawn).
    Axis labels are the columns in words.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, pandas as pd
    >>> from lbanalysis.analysis import fit_scaling, usl_throughput
    >>> n = [1, 4, 8, 16, 32, 64]
    >>> fit = fit_scaling(pd.DataFrame({"concurrency": n, "requests_per_s": usl_throughput(n, 10, 0.02, 0.0005)}))
    >>> fig, ax = plt.subplots()
    >>> ax = scaling_fit(fit, ax=ax)
    >>> len(ax.lines), len(ax.collections)
    (3, 1)
    >>> plt.close(fig)
    """
    ax = ax or plt.gca()
    color = color or f"C{len(ax.lines) % 10}"
    data = fit.data
    if points:
        ax.plot(data[fit.x], data[fit.y], "o", color=color, label=label if label else None, alpha=0.8)
    left, right = float(data[fit.x].min()), float(data[fit.x].max())
    n_peak = fit.n_peak if fit.model.name == "usl" else np.inf
    grid = np.linspace(left, right, num)
    curve = fit.predict(grid, interval=True)
    curve_label = label if label and not points else None
    ax.plot(grid, curve["predicted"], "-", color=color, label=curve_label)
    if band:
        ax.fill_between(grid, curve["lower"], curve["upper"], color=color, alpha=0.2, linewidth=0)
    if peak and np.isfinite(n_peak) and left <= n_peak <= right:
        ax.plot([n_peak], [fit.x_peak], "*", color=color, markersize=14, markeredgecolor="black")
        ax.annotate(f"peak {plain_number(fit.x_peak)} at {plain_number(n_peak)}", (n_peak, fit.x_peak), textcoords="offset points",
                    xytext=(5, 8), fontsize="small")  # fmt: skip
    ax.set_xlabel(header(fit.x))
    ax.set_ylabel(header(fit.y))
    thousands_ticks(ax)
    return ax
