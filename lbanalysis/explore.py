"""Deprecated: the explore report's sections moved to ``lbanalysis.report.explore``.

Re-exported for one release, with a :class:`DeprecationWarning` (the report
machinery needs the ``report`` extra: ``pip install 'lbanalysis[report]'``).
"""

from __future__ import annotations

import warnings

warnings.warn(
    "lbanalysis.explore is deprecated: use lbanalysis.report.explore",
    DeprecationWarning,
    stacklevel=2,
)

from .report.explore import *  # noqa: E402,F403
from .report.explore import __all__  # noqa: E402,F401
from .report.explore import scaling_fits_table as fit_table  # noqa: E402,F401
