"""Report machinery: parameterized notebooks run with papermill, exported as HTML.

Needs the ``report`` extra (``pip install 'lbanalysis[report]'``): papermill,
nbconvert, ipykernel, PyYAML. The library itself (:func:`lbanalysis.read`,
analysis, plots) does not import this package.

========================  =====================================================
module                    what it holds
========================  =====================================================
:mod:`.runner`            run notebooks (batch), export HTML, record failures
:mod:`.project`           find a report project's notebooks and reports folders
:mod:`.explore`           the explore report, one module per part of the page
``notebooks/``            the explore notebook, shipped as package data
========================  =====================================================

>>> EXPLORE_NOTEBOOK.name
'explore.ipynb'
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from .project import Project, find_project
from .runner import (
    NotebookError,
    ReportResult,
    UnknownParameterError,
    article_notebooks,
    export_html,
    kernel_sockets,
    load_parameters,
    notebook_parameters,
    parameters_for,
    parameters_table,
    parse_value,
    resolve_notebooks,
    run_notebook,
    run_reports,
    slug_of,
    write_index,
)

#: The explore notebook (package data), run by ``lbanalysis explore``.
EXPLORE_NOTEBOOK: Path = Path(str(files(__name__) / "notebooks" / "explore.ipynb"))

__all__ = [
    "EXPLORE_NOTEBOOK",
    "NotebookError",
    "Project",
    "ReportResult",
    "UnknownParameterError",
    "article_notebooks",
    "export_html",
    "find_project",
    "kernel_sockets",
    "load_parameters",
    "notebook_parameters",
    "parameters_for",
    "parameters_table",
    "parse_value",
    "resolve_notebooks",
    "run_notebook",
    "run_reports",
    "slug_of",
    "write_index",
]
