"""Deprecated: article 001's reference figures moved to ``articles.sizing``.

The general helpers moved into the library: ``ratio_table``, ``peak_bracket``
and ``closed_loop_rate`` to :mod:`lbanalysis.analysis`, ``fit_table`` to
``ScalingFit.summary_frame()``, ``plot_rates`` to :mod:`lbanalysis.plots`.
This module re-exports them all for one release, with a
:class:`DeprecationWarning`. An installed package has no ``articles``: the
library's names work from it; article 001's raise an AttributeError saying
where they went.
"""

from __future__ import annotations

import warnings
from typing import Any

warnings.warn(
    "lbanalysis.reference is deprecated: article figures are in articles.sizing; ratio_table, peak_bracket and "
    "closed_loop_rate in lbanalysis.analysis; fit_table is ScalingFit.summary_frame(); plot_rates in lbanalysis.plots",
    DeprecationWarning,
    stacklevel=2,
)

try:
    from articles.sizing import *  # noqa: F403
    from articles.sizing import __all__ as _sizing_all
except ImportError:  # an installed package: articles/ is a folder of the checkout, not of the wheel
    _sizing_all = []

    def __getattr__(name: str) -> object:
        raise AttributeError(
            f"lbanalysis.reference.{name}: article 001's figures moved to articles.sizing, which is in the "
            "lbanalysis checkout, not in the installed package"
        )


from .analysis.comparison import ratio_table  # noqa: E402
from .analysis.little import closed_loop_rate  # noqa: E402
from .analysis.saturation import peak_bracket  # noqa: E402
from .plots import plot_rates  # noqa: E402


def fit_table(fit: Any, alpha: float = 0.05) -> Any:
    """Deprecated: ``fit.summary_frame(alpha)``."""
    return fit.summary_frame(alpha)


__all__ = [*_sizing_all, "closed_loop_rate", "fit_table", "peak_bracket", "plot_rates", "ratio_table"]
