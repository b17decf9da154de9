"""A section of the page and how it renders: :class:`Section` (heading, intro, lines, tables, figures) as HTML
in a notebook and as text in a terminal; :class:`Collapsed`, a table shown behind its summary line.

>>> print(Section("Demo").add("two runs"))
Demo
  two runs
"""

from __future__ import annotations

import base64
import html
import io
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

_MAX_ROWS = 200  # rows of a table shown in the notebook


OPEN_ROWS = 25  # a longer table is collapsed behind a summary line


@dataclass
class Section:
    """Text lines, tables and figures of one notebook section.

    In a notebook a section shows its own heading (``level``: 2 for a
    section, 3 in the appendix) and its ``intro``; a section whose data is
    absent shows nothing there (:func:`left_out_section` lists it, with its
    one line), and as text it prints that line.

    >>> s = Section("Demo").add("two runs").add(pd.DataFrame({"a": [1, 2]}))
    >>> s.text, len(s.tables), s.absent
    (['two runs'], 1, False)
    >>> Section.empty("Demo", "Nothing here.").absent, Section.empty("Demo", "Nothing here.")._repr_html_()
    (True, '')
    """

    title: str
    parts: list[Any] = field(default_factory=list)
    absent: bool = False
    intro: str = ""
    level: int = 2
    open_rows: int = 0  # a table up to this many rows is shown open (0: OPEN_ROWS)

    @classmethod
    def empty(cls, title: str, message: str) -> Section:
        """A section that says, in one line, that its data is absent."""
        return cls(title, [message], absent=True)

    def add(self, part: Any) -> Section:
        """Append a line of text, a DataFrame or a matplotlib Figure; returns self."""
        if part is not None:
            self.parts.append(part)
        return self

    @property
    def text(self) -> list[str]:
        return [p for p in self.parts if isinstance(p, str)]

    @property
    def tables(self) -> list[pd.DataFrame]:
        return [
            p.frame if isinstance(p, Collapsed) else p for p in self.parts if isinstance(p, (pd.DataFrame, Collapsed))
        ]

    @property
    def figures(self) -> list[Any]:
        return [p for p in self.parts if hasattr(p, "savefig")]

    def save(self, folder: str | os.PathLike | None, stem: str) -> list[Path]:
        """Write the figures as ``<stem>.png`` (``<stem>-2.png``, ...) into ``folder``."""
        if folder is None:
            return []
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for i, fig in enumerate(self.figures, 1):
            p = out / (f"{stem}.png" if i == 1 else f"{stem}-{i}.png")
            p.write_bytes(_png(fig))
            paths.append(p)
        return paths

    def _repr_html_(self) -> str:
        if self.absent:
            return ""
        h = min(self.level, 5)
        chunks = [_CSS]
        if self.title and h:
            chunks.append(f'<h{h} id="{_anchor(self.title)}">{html.escape(self.title)}</h{h}>')
        if self.intro:
            chunks.append(f'<p class="lb-intro">{_inline_html(self.intro)}</p>')
        for p in self.parts:
            if isinstance(p, str) and p.startswith("### "):
                chunks.append(f'<h{h + 1} id="{_anchor(p[4:])}">{_inline_html(p[4:])}</h{h + 1}>')
            elif isinstance(p, str):
                chunks.append(f"<p>{_inline_html(p)}</p>")
            elif isinstance(p, Collapsed):
                chunks.append(_table_html(p.frame, open_rows=-1))
            elif isinstance(p, pd.DataFrame):
                chunks.append(_table_html(p, open_rows=self.open_rows or OPEN_ROWS))
            elif hasattr(p, "savefig"):
                chunks.append(_figure_html(p, self.title))
        return "\n".join(chunks)

    def __repr__(self) -> str:
        lines = [self.title]
        for p in self.parts:
            if isinstance(p, str):
                lines.append(f"  {p}")
            elif isinstance(p, (pd.DataFrame, Collapsed)):
                frame = p.frame if isinstance(p, Collapsed) else p
                lines.extend("  " + ln for ln in frame.head(20).to_string().splitlines())
            else:
                lines.append("  <figure>")
        return "\n".join(lines)


def _anchor(title: str) -> str:
    """An element id from a heading, as nbconvert makes them (spaces as dashes).

    >>> _anchor("What bounded each series"), _anchor("ab 127.0.0.1:80/ [logs]")
    ('What-bounded-each-series', 'ab-127.0.0.1:80/-[logs]')
    """
    return html.escape("-".join(str(title).split()), quote=True)


def _inline_html(text: str) -> str:
    """Escape text; `backticks` become <code>.

    >>> _inline_html("column `a<b>` missing")
    'column <code>a&lt;b&gt;</code> missing'
    """
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def _table_html(df: pd.DataFrame, open_rows: int = 0) -> str:
    """A table in words and units (:func:`lbanalysis.formatting.humanize`), every value escaped, numbers
    right-aligned; one of more than ``open_rows`` rows (:data:`OPEN_ROWS`) is collapsed behind a summary line.

    Plain ``<table>`` markup with one small rule per table, not a rule per cell: a folder of hundreds
    of runs stays a page of a few hundred kilobytes.

    >>> html = _table_html(pd.DataFrame({"x": range(40)}))
    >>> html.startswith("<details><summary>40 rows (click to show)</summary>")
    True
    >>> "<th>p50 (ms)</th>" in _table_html(pd.DataFrame({"p50 (ms)": [1.5]}))
    True
    """
    from ...formatting import humanize

    open_rows = open_rows or OPEN_ROWS
    if open_rows < 0:
        open_rows = 0
        collapse = True
    else:
        collapse = len(df) > open_rows
    shown = df.head(_MAX_ROWS)
    if not isinstance(shown.index, pd.RangeIndex):
        shown = shown.reset_index()
    shown = _numbers_as_numbers(shown)
    text = humanize(shown, hide_index=True)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in text.columns)
    cells = [f'<td class="{k}">' if k else "<td>" for k in _cell_classes(shown, text)]
    body = "".join(
        "<tr>" + "".join(f"{c}{html.escape(str(v))}</td>" for c, v in zip(cells, row, strict=True)) + "</tr>"
        for row in text.itertuples(index=False, name=None)
    )
    many = " lb-many" if len(text.columns) > 12 else ""  # a wide table in a smaller type, to fit the page
    out = f'<table class="lb-explore{many}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    if len(df) > _MAX_ROWS:
        out += f"<p><i>first {_MAX_ROWS} of {len(df)} rows</i></p>"
    if collapse:
        out = f"<details><summary>{len(df)} rows (click to show)</summary>{out}</details>"
    return out


def _cell_classes(shown: pd.DataFrame, text: pd.DataFrame) -> list[str]:
    """Each column's cell class: ``n`` for numbers (right-aligned), ``w`` for long words (wrapped), else none.

    >>> _cell_classes(pd.DataFrame({"a": [1], "b": ["x"]}), pd.DataFrame({"a": ["1"], "b": ["x" * 41]}))
    ['n', 'w']
    """
    numeric = [i for i, c in enumerate(shown.columns) if pd.api.types.is_numeric_dtype(shown[c].dtype)
               and not pd.api.types.is_bool_dtype(shown[c].dtype)]  # fmt: skip
    wide = [i for i, c in enumerate(text.columns) if len(text) and text[c].astype(str).str.len().max() > 40]
    return ["n" if i in numeric else "w" if i in wide else "" for i in range(len(text.columns))]


def _numbers_as_numbers(df: pd.DataFrame) -> pd.DataFrame:
    """Object columns that hold only numbers (a table put together from rows with None) as numbers, so
    they are rounded like the others.

    >>> _numbers_as_numbers(pd.DataFrame({"r2": pd.Series([0.3416441708547435, None], dtype=object)}))["r2"].dtype
    dtype('float64')
    """
    out = df.copy()
    for col in out.columns:
        v = out[col]
        if v.dtype == object:
            values = [x for x in v if x is not None and not (isinstance(x, float) and math.isnan(x))]
            if values and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in values):
                out[col] = pd.to_numeric(v, errors="coerce")
    return out


#: The few rules explore's tables and notes need, once per section.
_CSS = (
    "<style>table.lb-explore td.n{text-align:right}table.lb-explore td.w{white-space:normal;min-width:14em;max-width:32em;overflow-wrap:anywhere}"
    "table.lb-explore th{text-align:left;white-space:normal;max-width:14em}p.lb-intro{color:#57606a}"
    ".lb-table table.lb-many{font-size:0.75em}table.lb-many th{max-width:8em}"
    "table.lb-explore td:first-child:not(.n){white-space:normal;min-width:10em;max-width:24em;overflow-wrap:anywhere}"
    "@media (max-width:700px){table.lb-explore td:first-child:not(.n){min-width:9em;max-width:12em}"
    "table.lb-explore td.w{min-width:12em}}</style>"
)


def _png(fig: Any) -> bytes:
    """The figure drawn once as PNG (kept on the figure: the file written and the page show the same bytes)."""
    cached = getattr(fig, "_lbanalysis_png", None)
    if cached is None:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100)
        cached = buf.getvalue()
        fig._lbanalysis_png = cached
    return cached


def _figure_html(fig: Any, section: str = "") -> str:
    """The figure as an inline PNG; its alt text is its axes' titles, else the section's name."""
    data = base64.b64encode(_png(fig)).decode("ascii")
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    alt = "; ".join(titles) if titles else (f"Chart: {section}" if section else "Chart")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt)}" style="max-width:100%"/>'


@dataclass
class Collapsed:
    """A table shown collapsed behind its summary line, however short."""

    frame: pd.DataFrame

    def __repr__(self) -> str:
        return self.frame.head(20).to_string()
