"""Claims ledgers: every claim of an article, what our data gives, and a verdict.

Each article folder ``data/raw/<slug>/`` holds a ``claims.csv``, one row per
numeric claim, table or chart of the article (the article's words and
figure, typed once, as data beside the raw files). A report computes "what
our data gives" for every row and opens with the resulting ledger as its
findings.

``claims.csv`` columns:

============  ================================================================
column        meaning
============  ================================================================
claim         short id (``A1``, ``T1`` …), unique in the file
section       the report section that shows the evidence
says          what the article says, in its words (a short quote)
relation      ``≈`` (the figure, within ``tolerance``), ``<`` / ``>``
              (a bound), ``between`` (``value`` … ``high``), or ``shown``
              (a table, chart or statement: the notebook says whether it holds)
value         the article's figure (SI units), empty for ``shown``
high          upper end for ``between``
unit          unit of ``value`` for display (``1/s``, ``bit/s``, ``B/s``, ``B``,
              ``s``, ``%``, empty for a plain number, or a word like ``MB``,
              ``clients``, ``processes`` shown as is)
tolerance     relative tolerance of ``≈`` (0.05 = 5 %; 0 for a printed figure)
reason        why it cannot be checked, when the published data cannot
============  ================================================================

Verdicts (:data:`VERDICTS`): ``reproduced`` (within tolerance, or the bound
or statement holds), ``close`` (within twice the tolerance, at least 5 %),
``differs``, and ``not reproducible`` (the published data does not carry
it; ``reason`` says why).

>>> verdict(20000, 20272.52, tolerance=0.05)
'reproduced'
>>> verdict(200, 99.0, relation="<"), verdict(8500, 7800, relation=">")
('reproduced', 'differs')
>>> verdict(30000, None)
'not reproducible'
>>> led = Ledger([Claim("A1", "peak", "about 20K req/s", "≈", 20000.0, unit="requests_per_s", tolerance=0.05)])
>>> led.record("A1", 20272.52)
>>> led.frame()[["claim", "article says", "our data gives", "verdict"]].to_dict("records")
[{'claim': 'A1', 'article says': 'about 20K req/s', 'our data gives': '20,273 requests/s', 'verdict': 'reproduced'}]
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from lbanalysis.formatting import LABELS, fmt

from . import paths

__all__ = ["VERDICTS", "Claim", "Ledger", "load_claims", "show", "verdict"]

VERDICTS: tuple[str, ...] = ("reproduced", "close", "differs", "not reproducible")
RELATIONS: tuple[str, ...] = ("≈", "<", ">", "between", "shown")
#: Units :func:`lbanalysis.style.fmt` scales and labels itself; any other unit is printed after the number.
FMT_UNITS: tuple[str, ...] = ("s", "ms", "bit/s", "B/s", "B", "bit", "%", "1/s", "")
COLUMNS: tuple[str, ...] = ("claim", "section", "says", "relation", "value", "high", "unit", "tolerance", "reason")


@dataclass(frozen=True)
class Claim:
    """One claim of an article, as ``claims.csv`` holds it."""

    claim: str
    section: str
    says: str
    relation: str = "≈"
    value: float | None = None
    high: float | None = None
    unit: str = ""
    tolerance: float = 0.0
    reason: str = ""


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def show(value: Any, unit: str = "") -> str:
    """A value for the ledger: numbers with their unit (via :func:`lbanalysis.style.fmt`), text as is.

    >>> show(20272.52, "1/s"), show(99, "MB"), show("8 rows", ""), show(None, "1/s")
    ('20,273/s', '99 MB', '8 rows', '–')
    """
    if isinstance(value, str):
        return value
    if _missing(value):
        return fmt(None, "")
    if unit in FMT_UNITS or unit in LABELS or unit.endswith(("_s", "_pct", "_bytes")):
        return fmt(value, unit)
    return f"{fmt(value, '')} {unit}"


def verdict(
    said: float | None,
    got: Any,
    tolerance: float = 0.0,
    *,
    relation: str = "≈",
    high: float | None = None,
) -> str:
    """The verdict of one claim: what the article ``said`` against what we ``got``.

    ``≈``: reproduced within ``tolerance`` (relative), close within
    ``max(2 × tolerance, 5 %)``, else differs. ``<``, ``>``, ``between``:
    reproduced when the bound holds, close when it misses by less than 5 %.
    ``shown``: ``got`` is True (holds), False (differs) or None. A missing
    ``got`` is "not reproducible".

    >>> verdict(30000, 29331.99, 0.05), verdict(30000, 29000, 0.02), verdict(35000, 29331.99, 0.05)
    ('reproduced', 'close', 'differs')
    >>> verdict(6000, 6500, relation="between", high=7000), verdict(None, True, relation="shown")
    ('reproduced', 'reproduced')
    """
    if relation not in RELATIONS:
        raise ValueError(f"unknown relation {relation!r}; known: {', '.join(RELATIONS)}")
    if _missing(got) or got is pd.NA:
        return "not reproducible"
    if relation == "shown":
        return "reproduced" if bool(got) else "differs"
    if _missing(said):
        raise ValueError(f"relation {relation!r} needs the article's value")
    g, s = float(got), float(said)
    lo, hi = {"≈": (s, s), "<": (-math.inf, s), ">": (s, math.inf), "between": (s, high if high is not None else s)}[
        relation
    ]
    if lo <= g <= hi and relation != "≈":
        return "reproduced"
    ref = abs(s) if relation != "between" else max(abs(lo), abs(hi))
    miss = min(abs(g - lo), abs(g - hi)) / ref if ref else math.inf
    if relation == "≈" and miss <= tolerance:
        return "reproduced"
    close = max(2 * tolerance, 0.05) if relation == "≈" else 0.05
    return "close" if miss <= close else "differs"


def load_claims(slug: str | None = None, path: str | os.PathLike | None = None) -> list[Claim]:
    """The claims of article ``slug`` from ``data/raw/<slug>/claims.csv`` (or ``path``).

    >>> claims = load_claims("haproxy-wordpress-ab")
    >>> claims[0].claim, claims[0].relation
    ('T1', 'shown')
    """
    src = paths.raw(slug, "claims.csv") if path is None else path
    frame = pd.read_csv(src, dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{src}: missing column(s) {', '.join(missing)}; expected {', '.join(COLUMNS)}")
    claims = []
    for line, row in enumerate(frame.to_dict("records"), start=2):
        try:
            claims.append(_claim(row))
        except ValueError as err:
            raise ValueError(f"{src}, line {line}: {err}") from None
    ids = [c.claim for c in claims]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"{src}: claim id(s) {', '.join(dup)} used twice")
    return claims


def _claim(row: dict[str, str]) -> Claim:
    if row["relation"] not in RELATIONS:
        raise ValueError(f"relation {row['relation']!r} is not one of {', '.join(RELATIONS)}")

    def num(key: str) -> float | None:
        return float(row[key]) if row[key].strip() else None

    return Claim(
        claim=row["claim"],
        section=row["section"],
        says=row["says"],
        relation=row["relation"],
        value=num("value"),
        high=num("high"),
        unit=row["unit"],
        tolerance=num("tolerance") or 0.0,
        reason=row["reason"],
    )


@dataclass
class _Entry:
    got: Any = None
    text: str | None = None
    note: str = ""


@dataclass
class Ledger:
    """The claims of one article and what our data gives for each.

    Fill it with :meth:`record` (one call per claim); :meth:`frame` is the
    table a report opens with; :meth:`counts` the claims per verdict.
    """

    claims: list[Claim]
    entries: dict[str, _Entry] = field(default_factory=dict)

    @classmethod
    def for_article(cls, slug: str) -> Ledger:
        """The ledger of article ``slug`` (its ``claims.csv``), nothing recorded yet."""
        return cls(load_claims(slug))

    def claim(self, claim_id: str) -> Claim:
        """One claim by id."""
        for c in self.claims:
            if c.claim == claim_id:
                return c
        raise KeyError(f"no claim {claim_id!r}; claims: {', '.join(c.claim for c in self.claims)}")

    def record(self, claim_id: str, got: Any, *, text: str | None = None, note: str = "") -> None:
        """What our data gives for ``claim_id``: a number (SI, the claim's unit), or True/False
        for a ``shown`` claim, or None when the data does not carry it; ``text`` replaces the
        shown value, ``note`` says how it was computed or why it differs."""
        self.claim(claim_id)
        self.entries[claim_id] = _Entry(got, text, note)

    def unrecorded(self) -> list[str]:
        """Claim ids nothing was recorded for."""
        return [c.claim for c in self.claims if c.claim not in self.entries]

    def frame(self) -> pd.DataFrame:
        """One row per claim: claim, section, article says, our data gives, verdict, why."""
        rows = [self._row(c) for c in self.claims]
        return pd.DataFrame(rows, columns=["claim", "section", "article says", "our data gives", "verdict", "why"])

    def _row(self, c: Claim) -> dict[str, str]:
        e = self.entries.get(c.claim)
        if e is None:
            return {
                "claim": c.claim,
                "section": c.section,
                "article says": c.says,
                "our data gives": "not computed",
                "verdict": "not reproducible",
                "why": c.reason or "not computed by the notebook",
            }
        v = verdict(c.value, e.got, c.tolerance, relation=c.relation, high=c.high)
        shown = e.text if e.text is not None else ("" if c.relation == "shown" else show(e.got, c.unit))
        why = e.note or (c.reason if v == "not reproducible" else "")
        return {
            "claim": c.claim,
            "section": c.section,
            "article says": c.says,
            "our data gives": shown,
            "verdict": v,
            "why": why,
        }

    def counts(self) -> dict[str, int]:
        """Claims per verdict, in the order of :data:`VERDICTS` (verdicts with no claim left out)."""
        got = self.frame()["verdict"].value_counts()
        return {v: int(got[v]) for v in VERDICTS if v in got}

    def summary(self) -> str:
        """One sentence: how many claims and their verdicts.

        >>> led = Ledger([Claim("A", "s", "x", "≈", 1.0), Claim("B", "s", "y", "≈", 2.0)])
        >>> led.record("A", 1.0); led.record("B", None)
        >>> led.summary()
        'The article makes 2 checked claims: 1 reproduced, 1 not reproducible.'
        """
        n = len(self.claims)
        parts = ", ".join(f"{count} {name}" for name, count in self.counts().items())
        return f"The article makes {n} checked claim{'s' if n != 1 else ''}: {parts}."

    def style(self, caption: str | None = None) -> Any:
        """:meth:`frame` as a report table (:func:`lbanalysis.style`): text left-aligned and wrapped,
        each verdict in its own colour."""
        import lbanalysis

        colours = dict(zip(VERDICTS, ("#1a7f37", "#7d6608", "#b42318", "#57606a"), strict=True))
        styled = lbanalysis.style(self.frame(), caption=caption)
        styled = styled.set_properties(**{"text-align": "left", "white-space": "normal", "vertical-align": "top"})
        styled = styled.set_properties(subset=["article says", "why"], **{"min-width": "16em", "max-width": "28em"})
        styled = styled.map(lambda v: f"color: {colours.get(v, 'inherit')}; font-weight: bold", subset=["verdict"])
        return styled.set_table_styles([{"selector": "th", "props": "text-align: left"}], overwrite=False)

    def to_csv(self, path: str | os.PathLike) -> None:
        """Write :meth:`frame` (with a ``verdict`` column) to ``path``."""
        self.frame().to_csv(path, index=False)


def sentences(parts: Iterable[str]) -> str:
    """Join sentence fragments into a paragraph, skipping empty ones.

    >>> sentences(["One.", "", "Two."])
    'One. Two.'
    """
    return " ".join(p for p in parts if p)
