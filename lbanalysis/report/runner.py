"""Batch reports: execute the article notebooks with papermill, export HTML.

Every article notebook ``notebooks/NN-<slug>.ipynb`` (``NN`` from 01; ``00-explore``
is not an article) is run with the ``python3`` kernel and written, executed,
with an HTML copy to ``reports/<slug>/<slug>.ipynb`` and ``.html``.
Parameters come from the caller (``-p name value`` on the command line, or a
YAML file); a notebook that declares ``output_dir`` gets its report folder
there, so its figures land next to the HTML. papermill records the
parameters in the executed notebook's metadata.

A failing notebook does not stop the batch: the failure is recorded (notebook,
cell index and first line, exception line), its partial HTML is still written,
and the remaining notebooks run.

>>> slug_of("notebooks/03-haproxy-apache-siege.ipynb")
'haproxy-apache-siege'
>>> parse_value("0.9"), parse_value("1 Gbit/s"), parse_value("null"), parse_value("[1, 2]")
(0.9, '1 Gbit/s', None, [1, 2])
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import LBAnalysisError
from .page import standalone
from .project import find_project

__all__ = [
    "NotebookError",
    "ReportResult",
    "UnknownParameterError",
    "article_notebooks",
    "export_html",
    "kernel_sockets",
    "load_parameters",
    "notebook_parameters",
    "parameters_table",
    "parse_value",
    "resolve_notebooks",
    "run_notebook",
    "run_reports",
    "slug_of",
    "write_index",
]

KERNEL = "python3"
#: The longest temporary folder (in bytes) a kernel's sockets are made in: theirs, <folder>/lbk-XXXXXXXX/k-1 .. k-5,
#: must stay within the 107 bytes of a Unix socket's path (Linux's sun_path)
_SOCKET_FOLDER_MAX = 80
_ARTICLE_RE = re.compile(r"^(\d\d)-(.+)\.ipynb$")


class NotebookError(LBAnalysisError):
    """A notebook raised while executing: names the notebook, the cell and the exception.

    >>> e = NotebookError("notebooks/03-x.ipynb", 7, "fit = fit_scaling(runs)\\nfit", "FitError", "too few loads")
    >>> print(e)
    notebooks/03-x.ipynb: cell 7 `fit = fit_scaling(runs)` raised FitError: too few loads
    """

    def __init__(self, notebook: str, cell: int | None, source: str, ename: str, evalue: str):
        self.notebook = notebook
        self.cell = cell
        self.source = source
        self.ename = ename
        self.evalue = evalue
        super().__init__(str(self))

    @property
    def first_line(self) -> str:
        """First non-blank line of the failing cell's source."""
        return next((ln.strip() for ln in self.source.splitlines() if ln.strip()), "")

    @property
    def exception(self) -> str:
        """``Name: message`` (first line of the message)."""
        msg = (self.evalue or "").strip().splitlines()
        return f"{self.ename}: {msg[0]}" if msg else self.ename

    def __str__(self) -> str:
        where = f"cell {self.cell}" if self.cell is not None else "a cell"
        return f"{self.notebook}: {where} `{self.first_line[:100]}` raised {self.exception}"

    def __reduce__(self):
        return (type(self), (self.notebook, self.cell, self.source, self.ename, self.evalue))


class UnknownParameterError(LBAnalysisError):
    """A parameter that the notebook (or no chosen notebook) declares."""


@dataclass
class ReportResult:
    """What running one notebook produced.

    >>> r = ReportResult(Path("notebooks/01-a.ipynb"), "a", Path("reports/a"), None, None, 1.5)
    >>> r.ok, r.status
    (True, 'ok')
    """

    notebook: Path
    slug: str
    output_dir: Path
    executed: Path | None
    html: Path | None
    seconds: float
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def status(self) -> str:
        return "ok" if self.ok else "FAILED"


# ------------------------------------------------------------ notebooks ---
def slug_of(path: str | os.PathLike) -> str:
    """Notebook name without its ``NN-`` prefix and ``.ipynb``.

    >>> slug_of("00-explore.ipynb"), slug_of("scratch.ipynb")
    ('explore', 'scratch')
    """
    name = Path(path).name
    if name.endswith(".ipynb"):
        name = name[: -len(".ipynb")]
    return re.sub(r"^\d+-", "", name)


def article_notebooks(folder: str | os.PathLike | None = None) -> list[Path]:
    """The article notebooks in ``folder`` (``01-…`` upwards, sorted; ``00-`` excluded).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for n in ("00-explore", "02-b", "01-a", "notes"):
    ...         _ = (Path(d) / f"{n}.ipynb").write_text("{}")
    ...     [p.name for p in article_notebooks(d)]
    ['01-a.ipynb', '02-b.ipynb']
    """
    folder = Path(folder) if folder is not None else find_project().notebooks
    if not folder.is_dir():
        return []
    found = []
    for p in sorted(folder.glob("*.ipynb")):
        m = _ARTICLE_RE.match(p.name)
        if m and m.group(1) != "00":
            found.append(p)
    return found


def _matches(name: str, path: Path) -> bool:
    m = _ARTICLE_RE.match(path.name)
    stem = path.name[: -len(".ipynb")]
    if name in (path.name, stem, slug_of(path)):
        return True
    if m and name.isdigit():
        return int(name) == int(m.group(1))
    return False


def resolve_notebooks(names: Iterable[str] | None = None, folder: str | os.PathLike | None = None) -> list[Path]:
    """Notebooks named by number (``3``, ``03``), slug, file name or path; all articles when ``names`` is empty.

    An unknown name raises :class:`LBAnalysisError` listing the known ones.
    """
    folder = Path(folder) if folder is not None else find_project().notebooks
    available = article_notebooks(folder)
    names = list(names or [])
    if not names:
        if not available:
            raise LBAnalysisError(f"no article notebooks (NN-name.ipynb) in {folder}")
        return available
    chosen: list[Path] = []
    for name in names:
        p = Path(name)
        if name.endswith(".ipynb") and p.is_file():
            hits = [p]
        else:
            hits = [a for a in available if _matches(name.removesuffix(".ipynb"), a)]
        if not hits:
            known = ", ".join(a.name[: -len(".ipynb")] for a in available) or "none"
            raise LBAnalysisError(f"no article notebook called {name!r}; known: {known}")
        chosen.extend(h for h in hits if h not in chosen)
    return chosen


def notebook_parameters(path: str | os.PathLike) -> dict[str, dict[str, Any]]:
    """The parameters the notebook's ``parameters`` cell declares, in order.

    Each value is a dict with ``name``, ``inferred_type_name`` (the annotation,
    ``None`` without one), ``default`` (as source text) and ``help`` (the trailing
    comment), as papermill's inspection gives them. The cell is read with
    Python's own parser: papermill's skips, with a warning, a line holding a
    second ``=`` (``objective: str = "p99 <= 50ms"``), so such a parameter
    could not be set.
    """
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    cell = next((c for c in nb.cells if "parameters" in c.metadata.get("tags", [])), None)
    return parameters_of(cell.source, str(path)) if cell is not None else {}


def parameters_of(src: str, where: str = "<cell>") -> dict[str, dict[str, Any]]:
    """The parameters one cell's source declares (see :func:`notebook_parameters`).

    >>> p = parameters_of('objective: str = "p99 <= 50ms"  # the objective\\nn = 3\\n')
    >>> p["objective"]["default"], p["objective"]["help"], p["n"]["inferred_type_name"]
    ('"p99 <= 50ms"', 'the objective', 'None')
    """
    import ast
    import io
    import tokenize

    try:
        tree = ast.parse(src)
        comments = {t.start[0]: t.string.lstrip("#").strip()
                    for t in tokenize.generate_tokens(io.StringIO(src).readline) if t.type == tokenize.COMMENT}  # fmt: skip
    except (SyntaxError, tokenize.TokenError) as e:
        raise LBAnalysisError(f"{where}: its parameters cell is not Python: {e}") from None
    out: dict[str, dict[str, Any]] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name, kind = node.target.id, ast.get_source_segment(src, node.annotation) or "None"
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, kind = node.targets[0].id, "None"
        else:
            continue
        out[name] = {"name": name, "inferred_type_name": kind, "default": ast.get_source_segment(src, node.value),
                     "help": comments.get(node.end_lineno or node.lineno, "")}  # fmt: skip
    return out


# ------------------------------------------------------------ parameters ---
def parse_value(text: str) -> Any:
    """A ``-p`` value read as a YAML scalar (numbers, booleans, null, lists); text otherwise.

    >>> parse_value("42"), parse_value("true"), parse_value("haproxy")
    (42, True, 'haproxy')
    """
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def load_parameters(path: str | os.PathLike) -> dict[str, Any]:
    """Parameters from a YAML file: a mapping of name to value.

    A key naming a notebook (its number or slug) whose value is a mapping
    holds parameters for that notebook only:

    .. code-block:: yaml

        threshold: 0.9            # every notebook that declares it
        haproxy-apache-siege:     # only this one
          link_capacity: 1 Gbit/s
    """
    import yaml

    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except OSError as e:
        raise LBAnalysisError(f"{path}: cannot read parameters ({e.strerror or e})") from None
    except yaml.YAMLError as e:
        raise LBAnalysisError(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise LBAnalysisError(f"{path}: expected a mapping of parameter names to values")
    return data


def parameters_for(path: Path, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Global parameters plus the ones in the section named after the notebook.

    A value that is a mapping is a section for the notebook its key names
    (number or slug); other notebooks ignore it.

    >>> parameters_for(Path("03-x.ipynb"), {"a": 1, "x": {"a": 2, "b": 3}, "04": {"a": 9}})
    {'a': 2, 'b': 3}
    """
    out = {k: v for k, v in parameters.items() if not isinstance(v, Mapping)}
    for key, value in parameters.items():
        if isinstance(value, Mapping) and _matches(str(key), path):
            out.update(value)
    return out


# ------------------------------------------------------------- running ---


def _shown_value(value: Any, root: Path) -> str:
    """A parameter value as a reader should see it: paths relative to the project, never absolute.

    >>> _shown_value("/p/data/raw/x", Path("/p")), _shown_value("/elsewhere/logs", Path("/p")), _shown_value(0.9, Path("/p"))
    ('data/raw/x', '…/logs', '0.9')
    """
    if isinstance(value, (list, tuple)):
        return ", ".join(_shown_value(v, root) for v in value)
    text = str(value)
    if isinstance(value, str) and os.path.isabs(text):
        try:
            return Path(text).resolve().relative_to(root.resolve()).as_posix() or "."
        except ValueError:
            return "…/" + Path(text).name
    return text


def parameters_table(parameters: Mapping[str, Any], root: str | os.PathLike | None = None) -> str:
    """The parameters a report was made with, as a small escaped HTML table (paths relative to ``root``).

    >>> print(parameters_table({"raw_dir": "/p/data/raw/a", "alpha": 0.05}, "/p"))  # doctest: +ELLIPSIS
    <details><summary>Made with these parameters</summary><table class="lb-parameters">...raw_dir</td><td>data/raw/a</td>...
    """
    import html as _html

    base = Path(root) if root is not None else find_project().root
    rows = "".join(
        f"<tr><td>{_html.escape(str(k))}</td><td>{_html.escape(_shown_value(v, base))}</td></tr>"
        for k, v in parameters.items()
    )
    return (
        '<details><summary>Made with these parameters</summary><table class="lb-parameters">'
        f"<tr><th>parameter</th><th>value</th></tr>{rows}</table></details>"
    )


def _page_exporter() -> Any:
    """nbconvert's lab-template HTML exporter, without the pass over the whole page it makes after the template.

    That pass (nbconvert 7.7 and later) parses the page with BeautifulSoup to give an image without alt text a
    placeholder and each cell's input and output ``tabindex="0"``; :func:`lbanalysis.report.page.standalone`
    parses the page anyway and does both (an alt text from the chart's caption). On explore's page of 250
    outputs the pass took 1.1 s of the export's 2.4. Its steps before the template (the code highlighter, the
    widgets' data filter) are nbconvert's ``HTMLExporter.from_notebook_node``'s, made the same way.
    """
    from nbconvert import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

    class PageExporter(HTMLExporter):
        def from_notebook_node(self, nb: Any, resources: Any = None, **kw: Any) -> Any:
            langinfo = nb.metadata.get("language_info", {})
            lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
            highlight = self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self))
            resources = self._init_resources(resources)
            data_type = WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources)
            self.register_filter("highlight_code", highlight)
            self.register_filter("filter_data_type", data_type)
            return TemplateExporter.from_notebook_node(self, nb, resources, **kw)

    return PageExporter(template_name="lab")


def export_html(
    notebook: str | os.PathLike,
    html: str | os.PathLike,
    no_input: bool = True,
    *,
    root: str | os.PathLike | None = None,
) -> Path:
    """Write ``notebook`` as standalone HTML (figures embedded) that reads as a document.

    Code cells are left out unless ``no_input=False``; the parameters papermill
    recorded are shown as a small table under the title, with paths relative
    to the project ``root`` (never an absolute path of the build machine).
    The page stands alone (:func:`lbanalysis.report.page.standalone`): no
    script or request leaves it, its own small stylesheet, the report's title,
    a table of contents, charts described by their captions.
    """
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    params = nb.metadata.get("papermill", {}).get("parameters") or {}
    exporter = _page_exporter()
    if no_input:
        exporter.exclude_input = True
        exporter.exclude_input_prompt = True
        exporter.exclude_output_prompt = True
        # the injected parameters cell and the parameters cell print nothing: drop them whole
        nb.cells = [
            c
            for c in nb.cells
            if not ({"injected-parameters", "parameters"} & set(c.metadata.get("tags", [])) and not c.get("outputs"))
        ]
    if params:
        table = parameters_table(params, root)
        first = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"), None)
        cell = nbformat.v4.new_markdown_cell(table)
        nb.cells.insert(0 if first is None else first + 1, cell)
    body, _ = exporter.from_notebook_node(nb)
    body = standalone(body)
    html = Path(html)
    html.write_text(body, encoding="utf-8")
    return html


def _original_cell_index(path: Path, source: str, fallback: int) -> int:
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.source == source:
            return i
    return fallback


def _display(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


class _FalseAlarms(logging.Filter):
    """papermill's warnings about a parameters cell that :func:`notebook_parameters` reads right: its inspection
    cannot parse a line holding a second ``=`` (``Unable to parse line 7 'objective: str = "errors <= 1%"'``) and
    then calls the parameter set unknown, though :func:`run_notebook` checked it against the declared ones."""

    def __init__(self, declared: Iterable[str]) -> None:
        super().__init__()
        self.declared = set(declared)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        unknown = message.removeprefix("Passed unknown parameter: ")
        return not (message.startswith("Unable to parse line") or (unknown != message and unknown in self.declared))


@contextlib.contextmanager
def _quiet_about(declared: Iterable[str]) -> Iterator[None]:
    """papermill's false alarms (:class:`_FalseAlarms`) left out while the block runs."""
    quiet = _FalseAlarms(declared)
    loggers = [logging.getLogger(name) for name in ("papermill", "papermill.translators")]
    for log in loggers:
        log.addFilter(quiet)
    try:
        yield
    finally:
        for log in loggers:
            log.removeFilter(quiet)


@contextlib.contextmanager
def kernel_sockets() -> Iterator[dict[str, Any]]:
    """Keyword arguments for ``papermill.execute_notebook`` that start its kernel on Unix sockets.

    A kernel on TCP is given five ports that its manager found free and closed;
    the kernel binds them a moment later. Any process binding a port in between
    takes one (a load test opening thousands of connections does), and the kernel
    dies before it answers ("Address already in use"). Sockets in a private
    temporary folder cannot be taken; the folder goes when the block ends. Where
    Unix sockets are not available (Windows) or the temporary folder's path is
    too long for one, the arguments are empty and the kernel uses TCP.

    >>> with kernel_sockets() as kwargs:
    ...     sorted(kwargs) in ([], ["config"])
    True
    """
    if os.name != "posix" or len(os.fsencode(tempfile.gettempdir())) > _SOCKET_FOLDER_MAX:
        yield {}
        return
    from traitlets.config import Config

    with tempfile.TemporaryDirectory(prefix="lbk-") as folder:
        yield {"config": Config({"KernelManager": {"transport": "ipc", "ip": os.path.join(folder, "k")}})}


def run_notebook(
    path: str | os.PathLike,
    parameters: Mapping[str, Any] | None = None,
    output_dir: str | os.PathLike | None = None,
    no_input: bool = True,
    *,
    kernel: str = KERNEL,
    progress: bool | None = None,
    name: str | None = None,
    cwd: str | os.PathLike | None = None,
) -> Path:
    """Execute one notebook with papermill; write ``<name>.ipynb`` and ``<name>.html`` to ``output_dir``.

    ``parameters`` must be declared by the notebook's ``parameters`` cell (an
    unknown one raises :class:`LBAnalysisError`); ``output_dir`` is passed as
    the ``output_dir`` parameter when the notebook declares one; with any other
    parameter set, a declared ``processed_dir`` not given is ``output_dir/processed``
    (the project's ``data/processed`` keeps the article's own results). ``name``
    defaults to the slug, ``output_dir`` to ``reports/<slug>``. ``progress``
    shows papermill's bar (default: when stderr is a terminal).

    Returns the HTML path. A failing cell raises :class:`NotebookError`
    after the executed notebook and its HTML have been written.
    """
    import papermill
    from jupyter_client.kernelspec import NoSuchKernel
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from papermill.exceptions import PapermillExecutionError

    path = Path(path)
    if not path.is_file():
        raise LBAnalysisError(f"{path}: no such notebook")
    slug = slug_of(path)
    name = name or slug
    out = Path(output_dir) if output_dir is not None else find_project().reports / slug
    out.mkdir(parents=True, exist_ok=True)
    declared = notebook_parameters(path)
    params = dict(parameters or {})
    unknown = sorted(set(params) - set(declared))
    if unknown:
        known = ", ".join(declared) or "none"
        raise UnknownParameterError(
            f"{_display(path)}: unknown parameter(s) {', '.join(unknown)}; it declares: {known}"
        )
    if "output_dir" in declared and "output_dir" not in params:
        params["output_dir"] = str(out.resolve())
    if "processed_dir" in declared and "processed_dir" not in params and set(params) - {"output_dir"}:
        # a report with the user's own parameters writes its tidy tables beside it: the project's
        # data/processed holds what the article's own parameters give, and stays so
        params["processed_dir"] = str((out / "processed").resolve())
    executed = out / f"{name}.ipynb"
    html = out / f"{name}.html"
    if progress is None:
        progress = sys.stderr.isatty()
    try:
        with kernel_sockets() as sockets, _quiet_about(declared):
            papermill.execute_notebook(
                str(path),
                str(executed),
                parameters=params,
                kernel_name=kernel,
                progress_bar=progress,
                log_output=False,
                # written once at the end (and on failure), not after every cell: rewriting a notebook of
                # embedded charts after each cell cost explore's page about 0.9 s of its 9
                request_save_on_cell_execute=False,
                cwd=str(cwd) if cwd is not None else None,
                # the kernel's own start-up warnings (e.g. about TCP transport) are noise here
                extra_arguments=["--IPKernelApp.log_level=CRITICAL"],
                **sockets,
            )
    except NoSuchKernel:
        raise LBAnalysisError(
            f"no Jupyter kernel named {kernel!r}; install one with: "
            f"python -m ipykernel install --sys-prefix --name {kernel}"
        ) from None
    except (DeadKernelError, CellTimeoutError) as e:
        if executed.exists():
            export_html(executed, html, no_input=no_input)
        raise LBAnalysisError(f"{_display(path)}: {type(e).__name__}: {str(e).strip().splitlines()[0]}") from None
    except PapermillExecutionError as e:
        if executed.exists():
            export_html(executed, html, no_input=no_input)
        cell = _original_cell_index(path, e.source, e.cell_index)
        raise NotebookError(_display(path), cell, e.source, e.ename, e.evalue) from None
    export_html(executed, html, no_input=no_input)
    return html


def run_reports(
    names: Iterable[str] | None = None,
    parameters: Mapping[str, Any] | None = None,
    output_dir: str | os.PathLike | None = None,
    no_input: bool = True,
    *,
    notebooks: str | os.PathLike | None = None,
    kernel: str = KERNEL,
    progress: bool | None = None,
    on_start: Callable[[int, int, Path], None] | None = None,
    on_done: Callable[[int, int, ReportResult], None] | None = None,
) -> list[ReportResult]:
    """Run the article notebooks (all, or the ones named) into ``output_dir/<slug>/``.

    Each notebook gets the parameters it declares among ``parameters``
    (global ones plus those under its number or slug, see
    :func:`load_parameters`); a parameter no chosen notebook declares raises
    :class:`LBAnalysisError` before anything runs. A failing notebook is
    recorded in its :class:`ReportResult` (``error``) and the others still
    run. ``on_start(i, n, path)`` and ``on_done(i, n, result)`` report
    progress.
    """
    paths = resolve_notebooks(names, notebooks)
    root = Path(output_dir) if output_dir is not None else find_project().reports
    parameters = dict(parameters or {})
    per_nb = {p: parameters_for(p, parameters) for p in paths}
    declared = {p: notebook_parameters(p) for p in paths}
    wanted = {k for params in per_nb.values() for k in params}
    nowhere = sorted(k for k in wanted if not any(k in declared[p] for p in paths))
    if nowhere:
        raise UnknownParameterError(f"no chosen notebook declares parameter(s): {', '.join(nowhere)}")
    results: list[ReportResult] = []
    for i, p in enumerate(paths, 1):
        slug = slug_of(p)
        out = root / slug
        params = {k: v for k, v in per_nb[p].items() if k in declared[p]}
        if on_start:
            on_start(i, len(paths), p)
        t0 = time.perf_counter()
        error = None
        try:
            run_notebook(p, params, out, no_input, kernel=kernel, progress=progress)
        except LBAnalysisError as e:
            error = str(e)
        executed, html = out / f"{slug}.ipynb", out / f"{slug}.html"
        result = ReportResult(
            notebook=p,
            slug=slug,
            output_dir=out,
            executed=executed if executed.exists() else None,
            html=html if html.exists() else None,
            seconds=time.perf_counter() - t0,
            error=error,
        )
        results.append(result)
        if on_done:
            on_done(i, len(paths), result)
    return results


# --------------------------------------------------------------- index ---
def _heading(executed: Path) -> str | None:
    """The notebook's title: the first Markdown heading it has, if any."""
    import nbformat

    nb = nbformat.read(str(executed), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip().replace("`", "").replace("**", "") or None
    return None


def _first_image(executed: Path) -> bytes | None:
    """The first PNG a notebook displayed (its key chart), or None."""
    import base64

    import nbformat

    nb = nbformat.read(str(executed), as_version=4)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "image/png" in data:
                return base64.b64decode(data["image/png"])
    return None


def _ledger_counts(folder: Path) -> dict[str, dict[str, int]]:
    """Rows per verdict from ``folder/ledger.csv`` (a report's findings), if it wrote one, grouped by
    its ``kind`` column when it has one (claims apart from transcription checks)."""
    import pandas as pd

    ledger = folder / "ledger.csv"
    if not ledger.is_file():
        return {}
    frame = pd.read_csv(ledger)
    if "verdict" not in frame:
        return {}
    kinds = frame["kind"] if "kind" in frame else pd.Series("", index=frame.index)
    return {
        str(kind): {str(k): int(v) for k, v in rows["verdict"].value_counts().items()}
        for kind, rows in frame.groupby(kinds, sort=False)
    }


def write_index(results: Iterable[ReportResult], output_dir: str | os.PathLike, title: str = "Reports") -> Path:
    """``output_dir/index.html``: a link to each report, its key chart as a thumbnail, its ledger's counts.

    A report's key chart is the first chart it shows; its counts come from the
    ``ledger.csv`` it wrote next to its HTML (a ``verdict`` column, grouped by
    a ``kind`` column when there is one), if any.
    Every text is HTML-escaped.
    """
    import html as _html

    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    items = []
    for r in results:
        name = _html.escape(r.slug)
        heading = _heading(r.executed) if r.executed is not None else None
        title_text = _html.escape(heading) if heading else name
        thumb = ""
        png = _first_image(r.executed) if r.executed is not None else None
        if png is not None:
            (r.output_dir / "thumbnail.png").write_bytes(png)
            rel = (r.output_dir / "thumbnail.png").resolve().relative_to(out.resolve()).as_posix()
            thumb = f'<img src="{_html.escape(rel)}" alt="key chart of {name}">'
        counts = _ledger_counts(r.output_dir)
        ledger = (
            "; ".join(
                (f"{_html.escape(kind)}: " if kind and len(counts) > 1 else "")
                + ", ".join(f"{n} {_html.escape(k)}" for k, n in verdicts.items())
                for kind, verdicts in counts.items()
            )
            or "no claims ledger"
        )
        link = (
            f'<a href="{_html.escape(r.html.resolve().relative_to(out.resolve()).as_posix())}">{title_text}</a>'
            if r.html is not None
            else title_text
        )
        status = "" if r.ok else f'<p class="failed">failed: {_html.escape(str(r.error))}</p>'
        items.append(f'<li>{thumb}<div><h2>{link}</h2><p class="slug">{name}</p><p>{ledger}</p>{status}</div></li>')
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{_html.escape(title)}</title>
<style>
  body {{ font-family: sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }}
  ul {{ list-style: none; padding: 0; }}
  li {{ display: flex; gap: 1.5em; align-items: center; border-bottom: 1px solid #ddd; padding: 1em 0; }}
  img {{ width: 320px; height: auto; border: 1px solid #eee; }}
  h2 {{ font-size: 1.2em; margin: 0 0 0.3em 0; }}
  .failed {{ color: #a00; }}
  .slug {{ color: #777; font-size: 0.85em; margin: 0; }}
</style></head>
<body><h1>{_html.escape(title)}</h1><ul>
{chr(10).join(items)}
</ul></body></html>
"""
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
