"""What every article report shares: sentences from computed values, figure captions, one chart style.

The report notebooks state numbers only through :func:`say` (Markdown
built from computed values, so a sentence cannot drift from the data) and
put a :class:`Captions` sentence under each figure. :data:`STYLE` is the
matplotlib look of every report's charts; a notebook applies it to its own
kernel with ``plt.rcParams.update(STYLE)``.

>>> caption = Captions()
>>> caption.text("Rates fall after 30 clients."), caption.text("Second.")
('*Figure 1.* Rates fall after 30 clients.', '*Figure 2.* Second.')
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

__all__ = ["STYLE", "Captions", "files_beside", "plain_ticks", "say"]

#: One look for every report's charts: light grid, no top/right frame, readable sizes, no e-notation.
STYLE: dict[str, Any] = {
    "figure.dpi": 100,
    "savefig.dpi": 110,
    "axes.grid": True,
    "grid.alpha": 0.35,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": "medium",
    "axes.labelsize": "medium",
    "legend.fontsize": "small",
    "legend.framealpha": 0.9,
    "axes.formatter.useoffset": False,
    "axes.formatter.limits": (-6, 9),
    "axes.formatter.use_locale": False,
}


def say(text: str) -> None:
    """Show ``text`` (Markdown built from computed values) in the report."""
    from IPython.display import Markdown, display

    display(Markdown(text))


def plain_ticks(fig: Any) -> Any:
    """Every numeric linear axis of ``fig`` labelled in plain numbers with thousands separators."""
    from lbanalysis.plots import plain_ticks as on_axes

    for ax in fig.axes:
        on_axes(ax)
    return fig


def files_beside(
    out: str | os.PathLike, processed: str | os.PathLike, tables: Mapping[str, str], figures: Sequence[str] = ()
) -> str:
    """Copy the CSVs a report names from ``processed`` into its folder ``out`` and list them, linked.

    ``tables`` maps each CSV's name to what it holds; ``figures`` are PNGs
    already in ``out``. The links are relative: the files travel with the page.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
    ...     _ = (Path(b) / "runs.csv").write_text("x\\n1\\n")
    ...     print(files_beside(a, b, {"runs.csv": "every run"}, ["chart.png"]))
    ...     (Path(a) / "runs.csv").is_file()
    Beside this report, in its folder: [runs.csv](runs.csv) (every run), [chart.png](chart.png).
    True
    """
    out, processed = Path(out), Path(processed)
    items = []
    for name, what in tables.items():
        src, dest = processed / name, out / name
        if src.is_file() and src.resolve() != dest.resolve():
            shutil.copyfile(src, dest)
        elif not dest.is_file():
            raise FileNotFoundError(f"{name}: in neither {processed} nor {out}")
        items.append(f"[{name}]({quote(name)}) ({what})" if what else f"[{name}]({quote(name)})")
    items += [f"[{name}]({quote(name)})" for name in figures]
    return "Beside this report, in its folder: " + ", ".join(items) + "."


class Captions:
    """Numbered figure captions: ``caption("what to see")`` shows *Figure n.* and the sentence."""

    def __init__(self) -> None:
        self.count = 0

    def text(self, sentence: str) -> str:
        """The next caption as Markdown."""
        self.count += 1
        return f"*Figure {self.count}.* {sentence}"

    def __call__(self, sentence: str) -> None:
        say(self.text(sentence))
