"""The checkout's folders, built from this package's own location.

Notebooks and scripts use these instead of relative paths, so they run the
same from any working directory (JupyterLab, papermill, ``make report``).

========================  ====================================================
name                      folder
========================  ====================================================
``ROOT``                  the project checkout (parent of ``articles/``)
``DATA_RAW``              ``data/raw``: immutable inputs, one folder per article
``DATA_PROCESSED``        ``data/processed``: frames rebuilt from ``raw``
``NOTEBOOKS``             ``notebooks``: the explore and article notebooks
``REPORTS``               ``reports``: executed notebooks and HTML (not committed)
``FIXTURES``              ``tests/fixtures``: small real tool outputs
========================  ====================================================

``LBANALYSIS_ROOT`` in the environment overrides ``ROOT`` (for an installed,
non-editable package that should still find a checkout).

>>> (ROOT / "articles" / "paths.py").exists()
True
>>> DATA_RAW.relative_to(ROOT).as_posix()
'data/raw'
>>> raw("haproxy-wordpress-ab").name
'haproxy-wordpress-ab'
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DATA_PROCESSED", "DATA_RAW", "FIXTURES", "NOTEBOOKS", "REPORTS", "ROOT", "raw", "relative"]

ROOT: Path = Path(os.environ.get("LBANALYSIS_ROOT") or Path(__file__).resolve().parent.parent)
DATA_RAW: Path = ROOT / "data" / "raw"
DATA_PROCESSED: Path = ROOT / "data" / "processed"
NOTEBOOKS: Path = ROOT / "notebooks"
REPORTS: Path = ROOT / "reports"
FIXTURES: Path = ROOT / "tests" / "fixtures"


def raw(*parts: str) -> Path:
    """A path inside ``data/raw``.

    >>> raw("lbbench", "manifest.csv").relative_to(ROOT).as_posix()
    'data/raw/lbbench/manifest.csv'
    """
    return DATA_RAW.joinpath(*parts)


def relative(path: str | os.PathLike, start: str | os.PathLike | None = None) -> str:
    """``path`` relative to ``start`` (default ``ROOT``) when inside it, else as given.

    >>> relative(ROOT / "data" / "raw")
    'data/raw'
    >>> relative("/elsewhere/x.txt")
    '/elsewhere/x.txt'
    """
    p = Path(path)
    try:
        return p.resolve().relative_to(Path(start or ROOT).resolve()).as_posix()
    except ValueError:
        return str(path)
