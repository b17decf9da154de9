"""The experiment's design, said first: what was compared, what was the load, what was a repeat (the study's
``design``), and the answer the design asks for: a ranking of setups that ran at one load, or a curve along a
scale factor (servers, pods) at one load.
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from ...design import sentence
from .charts import along_chart
from .render import Collapsed, Section
from .study import http_runs, study_of
from .words import plural

#: The design table as the page shows it.
_DESIGN_COLUMNS = ["factor", "role", "values", "source", "evidence"]
#: Most series drawn in one chart along a scale factor.
_MOST_DRAWN = 8
#: The ranking as the page shows it.
_RANKING_COLUMNS = ["rank", "setup", "runs", "requests_per_s", "lower", "upper", "latency_mean_s",
                    "differs_from_next", "note"]  # fmt: skip


def _override_hint(design: pd.DataFrame) -> str:
    """How to say otherwise: the read's ``design=`` (or a pattern), with a factor of this folder."""
    guessed = design[design["source"].isin(["path segment", "file-name token"])]
    if not len(guessed):
        return ""
    f = str(guessed["factor"].iloc[0])
    return (f" Read from the folder and file names: to say otherwise, give a path pattern (`pattern=`) or a role "
            f"(`read(..., design={{'{f}': 'repeat'}})`).")  # fmt: skip


def design_section(
    ds: Any,
    link_capacity: str | float | None = None,
    iperf: str | os.PathLike | None = None,
    threshold: float = 0.8,
    load: str = "concurrency",
    group: str | None = None,
) -> Section:
    """What the runs compare, in one sentence and a table, then the answer the design asks for: each workload's
    setups ranked where they ran at one load, and the series that run along a scale factor.

    >>> import io
    >>> from lbanalysis.report.explore.study import load as load_
    >>> ds = load_(io.StringIO("ab -c 10 -n 100 http://web/\\nRequests per second:    1000.5 [#/sec] (mean)\\n"))
    >>> print(design_section(ds).text[0])
    No factor varies between the runs: one setup, one load (concurrency 10).
    """
    title = "What was compared"
    if not len(http_runs(ds.runs)):
        return Section.empty(title, "No HTTP load-test runs: no design to read.")
    st = study_of(ds, link_capacity, iperf, threshold, load, group)
    design = st.design
    s = Section(title)
    s.add(sentence(design) + "." + (_override_hint(design) if len(design) else ""))
    if len(design):
        s.add(Collapsed(design[[c for c in _DESIGN_COLUMNS if c in design]].reset_index(drop=True)))
    ranking = st.ranking()
    if len(ranking):
        first = ranking.groupby(["workload", "load"], sort=False).size().iloc[0]
        s.open_rows = max(s.open_rows, int(first) + 1)  # the first ranking open, however many setups
        _add_ranking(s, ranking)
    along = st.verdicts[st.verdicts["load"].isin(design.loc[design["role"] == "scale", "factor"])] if len(
        design) and len(st.verdicts) else pd.DataFrame()  # fmt: skip
    if len(along):
        s.add(f"{plural(len(along), 'series')} run along a scale factor at one load: what each added unit gave, "
              "and the bound at its top value by the same rules as any series.")  # fmt: skip
        s.add(along[["series", "load", "loads", "runs", "scaling", "verdict", "resource"]].reset_index(drop=True))
        for axis, g in along.groupby("load", sort=False):
            shown = g.sort_values("requests_per_s", ascending=False)["series"].head(_MOST_DRAWN).tolist()
            if len(g) > len(shown):
                s.add(f"The chart draws the {len(shown)} series along {axis} of highest throughput, of {len(g)}.")
            s.add(along_chart(st.runs, str(axis), shown))
    return s


def _add_ranking(s: Section, ranking: pd.DataFrame) -> None:
    """Each workload's setups ranked at the loads they shared: the first open, the rest behind a line."""
    groups = list(ranking.groupby(["workload", "load"], sort=False))
    s.add(f"Setups ranked by requests/s where two or more ran at one load ({plural(len(groups), 'workload')} and "
          "load): the interval is the 95% interval of the mean from the repeats; 'differs from next' says whether "
          "the gap to the next setup is beyond run-to-run noise.")  # fmt: skip
    for i, ((workload, load), g) in enumerate(groups):
        best = g.iloc[0]
        s.add(f"{workload} at {load}: {best['setup']} first, {best['requests_per_s']:,.0f} requests/s, of "
              f"{plural(len(g), 'setup')}.")  # fmt: skip
        table = g[_RANKING_COLUMNS].reset_index(drop=True)
        s.add(table if i == 0 else Collapsed(table))
