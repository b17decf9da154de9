"""Where a report project keeps its notebooks and reports.

A report project is a folder holding numbered notebooks (``notebooks/NN-slug.ipynb``)
and getting their reports (``reports/<slug>/``). It is found from the working
directory upwards: the first folder whose ``pyproject.toml`` has a
``[tool.lbanalysis.report]`` table, or else that holds a ``notebooks/``
folder. ``LBANALYSIS_ROOT`` in the environment names it directly. The table
may set other folders::

    [tool.lbanalysis.report]
    notebooks = "notebooks"   # the numbered notebooks
    reports = "reports"       # where reports/<slug>/ are written

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     _ = (Path(d) / "pyproject.toml").write_text('[tool.lbanalysis.report]\\nnotebooks = "nb"\\n')
...     (Path(d) / "sub").mkdir()
...     p = find_project(Path(d) / "sub")
...     p.notebooks.name, p.reports.name, p.root == Path(d).resolve()
('nb', 'reports', True)
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Project", "find_project"]


@dataclass(frozen=True)
class Project:
    """A report project's folders (absolute)."""

    root: Path
    notebooks: Path
    reports: Path

    def relative(self, path: str | os.PathLike) -> str:
        """``path`` relative to the project root when inside it, else as given.

        >>> Project(Path("/p"), Path("/p/notebooks"), Path("/p/reports")).relative("/p/data/raw")
        'data/raw'
        >>> Project(Path("/p"), Path("/p/notebooks"), Path("/p/reports")).relative("/elsewhere/x")
        '/elsewhere/x'
        """
        p = Path(path)
        try:
            return p.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(path)


def _settings(folder: Path) -> dict | None:
    """The ``[tool.lbanalysis.report]`` table of ``folder/pyproject.toml``, if any."""
    toml = folder / "pyproject.toml"
    if not toml.is_file():
        return None
    try:
        data = tomllib.loads(toml.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    table = data.get("tool", {}).get("lbanalysis", {}).get("report")
    return table if isinstance(table, dict) else None


def _project(root: Path, settings: dict | None) -> Project:
    settings = settings or {}
    return Project(
        root,
        (root / settings.get("notebooks", "notebooks")).resolve(),
        (root / settings.get("reports", "reports")).resolve(),
    )


def find_project(start: str | os.PathLike | None = None) -> Project:
    """The report project around ``start`` (default: the working directory).

    Without a configured folder above ``start``, the working directory itself
    is the project (its ``notebooks/`` and ``reports/``).
    """
    env = os.environ.get("LBANALYSIS_ROOT")
    if env:
        root = Path(env).resolve()
        return _project(root, _settings(root))
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        settings = _settings(folder)
        if settings is not None or (folder / "notebooks").is_dir():
            return _project(folder, settings)
    return _project(here, None)
