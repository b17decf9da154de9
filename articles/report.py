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

from typing import Any

__all__ = ["STYLE", "Captions", "say"]

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
