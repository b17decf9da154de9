"""Deprecated: the checkout's folders moved to ``articles.paths``.

The library no longer knows where a checkout keeps its data; the article
notebooks use :mod:`articles.paths`. This module re-exports it for one
release, with a :class:`DeprecationWarning`.
"""

from __future__ import annotations

import warnings

warnings.warn(
    "lbanalysis.paths is deprecated: the checkout's folders are in articles.paths (article notebooks), "
    "and lbanalysis.report.project finds a report project",
    DeprecationWarning,
    stacklevel=2,
)

from articles.paths import *  # noqa: E402,F403
from articles.paths import __all__  # noqa: E402,F401
