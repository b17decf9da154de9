"""Deprecated: the checkout's folders moved to ``articles.paths``.

The library no longer knows where a checkout keeps its data; the article
notebooks use :mod:`articles.paths`. In a checkout this module re-exports it
for one release, with a :class:`DeprecationWarning`. An installed package has
no checkout: it imports (with the warning), and each of those names raises an
AttributeError saying where it went.
"""

from __future__ import annotations

import warnings

warnings.warn(
    "lbanalysis.paths is deprecated: the checkout's folders are in articles.paths (article notebooks), "
    "and lbanalysis.report.project finds a report project",
    DeprecationWarning,
    stacklevel=2,
)

try:
    from articles.paths import *  # noqa: F403
    from articles.paths import __all__
except ImportError:  # an installed package: articles/ is a folder of the checkout, not of the wheel
    __all__: list[str] = []

    def __getattr__(name: str) -> object:
        raise AttributeError(
            f"lbanalysis.paths.{name}: the checkout's folders moved to articles.paths, which is in the lbanalysis "
            "checkout, not in the installed package; lbanalysis.report.project finds a report project"
        )
