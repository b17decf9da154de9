"""lbanalysis: tidy frames, scaling fits and network-bound flags from load-test outputs.

Read ApacheBench, siege, gobench, iperf and iperf3 outputs (summaries,
per-request logs, JSON, terminal transcripts, pasted excerpts) into pandas
frames with SI units:

>>> import io, lbanalysis
>>> runs = lbanalysis.read(io.StringIO("ab -c 30 -n 1000000 http://web/\\nRequests per second:    20272.52 [#/sec] (mean)\\n"))
>>> runs.loc[0, ["tool", "concurrency", "requests_per_s"]].tolist()
['ab', 30, 20272.52]

``lbanalysis.sweep(...)`` runs a load tool over a list of loads into a folder
that reads back (see :mod:`lbanalysis.sweep`).

Analysis (fits, Little's law, saturation, network flags, comparisons) and
charts live in :mod:`lbanalysis.analysis` and :mod:`lbanalysis.plots`; they
are imported on first use, so ``import lbanalysis`` stays light (no
matplotlib, seaborn or scipy). So are the reader and the names it brings
(``read``, ``Dataset``, ``parse_text``, ``fmt``, ...): see ``_LAZY_NAMES``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import schema
from .errors import FitError, LBAnalysisError, ParseError, SkippedFileWarning, UnknownFormatError
from .schema import describe
from .sweep import sweep  # the function: `from lbanalysis.sweep import ...` still reaches the module

if TYPE_CHECKING:
    from .formatting import fmt, humanize, style
    from .pairing import pair_cpu
    from .reader import Dataset, read
    from .readers import detect, formats, parse_text
    from .units import parse_capacity

__version__ = "0.1.0"

__all__ = [
    "Dataset",
    "FitError",
    "LBAnalysisError",
    "Objective",
    "ParseError",
    "SkippedFileWarning",
    "UnknownFormatError",
    "__version__",
    "describe",
    "detect",
    "fmt",
    "formats",
    "humanize",
    "pair_cpu",
    "parse_capacity",
    "parse_text",
    "read",
    "schema",
    "style",
    "sweep",
]

# Heavy submodules and their public names, imported on first use.
_LAZY_MODULES = {"analysis", "plots", "capacity", "report", "cli", "explore", "paths"}

#: Public names of the package and the module each comes from, imported on first use (the reader, the
#: text rules and the patterns they compile load with the first ``lbanalysis.read``, not at import).
_LAZY_NAMES = {
    "Dataset": "reader",
    "read": "reader",
    "detect": "readers",
    "formats": "readers",
    "parse_text": "readers",
    "fmt": "formatting",
    "humanize": "formatting",
    "style": "formatting",
    "pair_cpu": "pairing",
    "parse_capacity": "units",
    "Objective": "analysis.objective",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(f".{_LAZY_NAMES[name]}", __name__), name)
        globals()[name] = value  # found directly from now on
        return value
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    for mod in ("analysis", "capacity"):
        try:
            m = importlib.import_module(f".{mod}", __name__)
        except ModuleNotFoundError:
            continue
        if name in getattr(m, "__all__", ()):
            return getattr(m, name)
    raise AttributeError(f"module 'lbanalysis' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The package's names, the ones imported on first use among them (for tab completion)."""
    return sorted(set(globals()) | set(__all__))
