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
              (a bound), ``between`` (``value`` … ``high``), ``shown``
              (a statement: the notebook says whether it holds) or ``table``
              (a transcription check: the article's own table or chart rebuilt
              from its figures, counted apart from the claims)
value         the article's figure (SI units), empty for ``shown``
high          upper end for ``between``
unit          unit of ``value`` for display (``1/s``, ``bit/s``, ``B/s``, ``B``,
              ``s``, ``%``, empty for a plain number, or a word like ``MB``,
              ``clients``, ``processes`` shown as is)
tolerance     relative tolerance of ``≈`` (0.05 = 5 %; 0 for a printed figure),
              applied to the quantity the article states: a gain of 50 % is
              written ``≈ 50 %`` (checked as a gain), not as a ratio of 1.5
reason        why it cannot be checked, when the published data cannot
============  ================================================================

Verdicts (:data:`VERDICTS`): ``reproduced`` (within tolerance, or the bound
or statement holds), ``close`` (within twice the tolerance, at least 5 %),
``differs``, and ``not reproducible`` (the published data does not carry
it; ``reason`` says why). A transcription check is ``table shown`` or
``table differs`` (:data:`TRANSCRIPTIONS`). Each row shows its rule
(:func:`rule`) beside its verdict.

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
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from lbanalysis.formatting import LABELS, fmt

from . import paths

__all__ = ["TRANSCRIPTIONS", "VERDICTS", "Claim", "Ledger", "load_claims", "rule", "show", "verdict"]

VERDICTS: tuple[str, ...] = ("reproduced", "close", "differs", "not reproducible")
#: The verdicts of a transcription check (relation ``table``), counted apart from the claims.
TRANSCRIPTIONS: tuple[str, ...] = ("table shown", "table differs")
RELATIONS: tuple[str, ...] = ("≈", "<", ">", "between", "shown", "table")
#: Units :func:`lbanalysis.style.fmt` scales and labels itself; any other unit is printed after the number.
FMT_UNITS: tuple[str, ...] = ("s", "ms", "bit/s", "B/s", "B", "bit", "%", "1/s", "")
COLUMNS: tuple[str, ...] = ("claim", "section", "says", "relation", "value", "high", "unit", "tolerance", "reason")
#: The ledger's columns (``ledger.csv``): the verdict beside the claim, its rule, and the section holding its evidence.
FRAME_COLUMNS: tuple[str, ...] = ("claim", "verdict", "rule", "article says", "our data gives", "why", "section")


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
    ``shown``: ``got`` is True (holds), False (differs) or None; ``table``
    (a transcription check): True is "table shown", False "table differs".
    A missing ``got`` is "not reproducible".

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
    if relation == "table":
        return TRANSCRIPTIONS[0] if bool(got) else TRANSCRIPTIONS[1]
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


def rule(c: Claim) -> str:
    """The verdict rule of one claim, in words, shown beside its verdict.

    >>> rule(Claim("H3", "s", "improves by 50 %", "≈", 50.0, unit="%", tolerance=0.05))
    'within 5 % of 50 %; close within 10 %'
    >>> rule(Claim("H5", "s", "less than 200 MB", "<", 200.0, unit="MB"))
    'below 200 MB; close within 5 % above'
    >>> rule(Claim("T1", "s", "the table", "table"))
    "the article's figures, rebuilt"
    """
    v = _rule_value(c.value, c.unit)
    if c.relation == "≈":
        close = max(2 * c.tolerance, 0.05)
        if c.tolerance:
            return f"within {_pct(c.tolerance)} of {v}; close within {_pct(close)}"
        return f"{v} as printed; close within {_pct(close)}"
    if c.relation == "<":
        return f"below {v}; close within 5 % above"
    if c.relation == ">":
        return f"above {v}; close within 5 % below"
    if c.relation == "between":
        return f"from {v} to {_rule_value(c.high, c.unit)}; close within 5 %"
    if c.relation == "shown":
        return "holds when the data shows it"
    return "the article's figures, rebuilt"


def _pct(x: float) -> str:
    return f"{x * 100:.0f} %"


def _rule_value(x: float | None, unit: str) -> str:
    """A claim's figure as the article gives it: no more decimals than it has.

    >>> _rule_value(50.0, "%"), _rule_value(20272.52, "requests_per_s"), _rule_value(1.5, "times")
    ('50 %', '20,272.52 requests/s', '1.5 times')
    """
    if x is None:
        return "–"
    text = f"{x:,.6f}".rstrip("0").rstrip(".")
    if unit in ("requests_per_s", "1/s"):
        return f"{text} requests/s"
    if unit in ("bit/s", "B/s", "B", "s"):
        return show(x, unit)
    return f"{text} {unit}".strip() if unit != "%" else f"{text} %"


def load_claims(slug: str | None = None, path: str | os.PathLike | None = None) -> list[Claim]:
    """The claims of article ``slug`` from ``data/raw/<slug>/claims.csv`` (or ``path``).

    >>> claims = load_claims("haproxy-wordpress-ab")
    >>> claims[0].claim, claims[0].relation
    ('T1', 'table')
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
        """One row per claim: claim, verdict, rule, article says, our data gives, why, section (its evidence)."""
        rows = [self._row(c) for c in self.claims]
        return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))

    def _row(self, c: Claim) -> dict[str, str]:
        e = self.entries.get(c.claim)
        if e is None:
            v, shown, why = "not reproducible", "not computed", c.reason or "not computed by the notebook"
        else:
            v = verdict(c.value, e.got, c.tolerance, relation=c.relation, high=c.high)
            shown = e.text if e.text is not None else ("" if c.relation in ("shown", "table") else show(e.got, c.unit))
            why = e.note or (c.reason if v == "not reproducible" else "")
        return {
            "claim": c.claim,
            "verdict": v,
            "rule": rule(c),
            "article says": c.says,
            "our data gives": shown,
            "why": why,
            "section": c.section,
        }

    def counts(self) -> dict[str, int]:
        """Claims per verdict, in the order of :data:`VERDICTS` then :data:`TRANSCRIPTIONS` (none left out)."""
        got = self.frame()["verdict"].value_counts()
        return {v: int(got[v]) for v in (*VERDICTS, *TRANSCRIPTIONS) if v in got}

    def summary(self) -> str:
        """One sentence: how many claims and their verdicts (transcription checks apart).

        >>> led = Ledger([Claim("A", "s", "x", "≈", 1.0), Claim("B", "s", "y", "≈", 2.0), Claim("T", "s", "t", "table")])
        >>> led.record("A", 1.0); led.record("B", None); led.record("T", True)
        >>> led.summary()
        'The article makes 2 checked claims: 1 reproduced, 1 not reproducible; 1 table rebuilt from its figures, checked apart: it matches the article.'
        """
        counts = self.counts()
        n = sum(counts.get(v, 0) for v in VERDICTS)
        parts = ", ".join(f"{counts[v]} {v}" for v in VERDICTS if v in counts) or "none"
        text = f"The article makes {n} checked claim{'s' if n != 1 else ''}: {parts}"
        k = sum(counts.get(v, 0) for v in TRANSCRIPTIONS)
        if k:
            same, other = counts.get(TRANSCRIPTIONS[0], 0), counts.get(TRANSCRIPTIONS[1], 0)
            shown = (
                ("all match the article" if k > 1 else "it matches the article")
                if not other
                else (f"{same} match{'es' if same == 1 else ''} the article, {other} differ{'s' if other == 1 else ''}")
            )
            text += f"; {k} table{'s' if k != 1 else ''} rebuilt from its figures, checked apart: {shown}"
        return text + "."

    def conclusion(self) -> str:
        """The report's opening, in Markdown: the verdict counts, then what holds, what does not, and
        what cannot be checked, each claim linked to its row of the ledger.

        >>> led = Ledger([Claim("A", "Peak", "about 20K", "≈", 1.0), Claim("B", "Gain", "+50 %", "≈", 2.0),
        ...               Claim("C", "Site", "25K", "≈", 3.0, reason="not published")])
        >>> led.record("A", 1.0); led.record("B", 1.5); led.record("C", None)
        >>> print(led.conclusion())
        **The article makes 3 checked claims: 1 reproduced, 1 differs, 1 not reproducible.**
        <BLANKLINE>
        - **What holds:** Peak ([A](#claim-A)).
        - **What does not:** [B](#claim-B) +50 %: our data gives 1.50 (differs).
        - **What cannot be checked:** Site ([C](#claim-C)): the published data does not carry it; the ledger says why.
        """
        f = self.frame()
        claims = f[f["verdict"].isin(VERDICTS)]

        def link(cid: str) -> str:
            return f"[{cid}](#claim-{cid})"

        def by_section(rows: pd.DataFrame) -> str:
            groups = rows.groupby("section", sort=False)["claim"].apply(lambda ids: ", ".join(map(link, ids)))
            return "; ".join(f"{_md(section)} ({ids})" for section, ids in groups.items())

        holds = claims[claims["verdict"] == "reproduced"]
        fails = claims[claims["verdict"].isin(("close", "differs"))]
        unknown = claims[claims["verdict"] == "not reproducible"]
        held = f"**What holds:** {by_section(holds)}." if len(holds) else "**What holds:** no claim the data can check."
        if len(fails):
            items = [
                f"{link(r['claim'])} {_md(r['article says'])}: our data gives {_md(r['our data gives'])} ({r['verdict']})"
                for _, r in fails.iterrows()
            ]
            failed = "**What does not:** " + "; ".join(items) + "."
        else:
            failed = "**What does not:** every claim the data can check holds."
        if len(unknown):
            it = "it" if len(unknown) == 1 else "them"
            missing = (
                f"**What cannot be checked:** {by_section(unknown)}: the published data does not carry {it}; "
                "the ledger says why."
            )
        else:
            missing = "**What cannot be checked:** nothing; the published data carries every claim."
        return f"**{self.summary()}**\n\n- {held}\n- {failed}\n- {missing}"

    def style(self, caption: str | None = None) -> Any:
        """:meth:`frame` as a report table (:func:`lbanalysis.style`): the verdict beside the claim, in its
        colour, its rule beside it; each claim an anchor (``#claim-<id>``), each section a link to its evidence."""
        import html
        from urllib.parse import quote

        import lbanalysis

        colours = dict(
            zip(
                (*VERDICTS, *TRANSCRIPTIONS),
                ("#1a7f37", "#7d6608", "#b42318", "#57606a", "#1a7f37", "#b42318"),
                strict=True,
            )
        )
        styled = lbanalysis.style(self.frame(), caption=caption, labels={"section": "evidence"})
        styled = styled.set_properties(**{"text-align": "left", "white-space": "normal", "vertical-align": "top"})
        styled = styled.set_properties(subset=["article says", "why"], **{"min-width": "16em", "max-width": "28em"})
        styled = styled.set_properties(subset=["rule"], **{"min-width": "9em", "max-width": "14em", "color": "#57606a"})
        styled = styled.map(lambda v: f"color: {colours.get(v, 'inherit')}; font-weight: bold", subset=["verdict"])
        styled = styled.format(lambda v: f'<span id="claim-{v}">{v}</span>', subset=["claim"])
        styled = styled.format(
            lambda v: f'<a href="#{quote(html.unescape(v).replace(" ", "-"), safe="?/:@!$&()*+,;=")}">{v}</a>',
            subset=["evidence"],
        )
        return styled.set_table_styles([{"selector": "th", "props": "text-align: left"}], overwrite=False)

    def to_csv(self, path: str | os.PathLike) -> None:
        """Write :meth:`frame` (with a ``verdict`` column) to ``path``, and a ``kind`` column: ``claims``,
        or ``tables`` for a transcription check (the report index counts them apart)."""
        frame = self.frame()
        frame["kind"] = frame["verdict"].map(lambda v: "tables" if v in TRANSCRIPTIONS else "claims")
        frame.to_csv(path, index=False)


def _md(text: str) -> str:
    """Text set in Markdown as is: its emphasis and link characters escaped.

    >>> _md("maxconn=100*3 [x]")
    'maxconn=100\\\\*3 \\\\[x\\\\]'
    """
    return re.sub(r"([\\`*_\[\]<>])", r"\\\1", str(text))


def sentences(parts: Iterable[str]) -> str:
    """Join sentence fragments into a paragraph, skipping empty ones.

    >>> sentences(["One.", "", "Two."])
    'One. Two.'
    """
    return " ".join(p for p in parts if p)
