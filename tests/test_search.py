"""The search's choices without a tool: the next load from the loads judged so far (``sweep --search``).

What the live searches do against a server is in ``tests/test_search_live.py``; here the steps are chosen from
a table like the one the study gives after each run (:func:`lbanalysis.analysis.slo.load_table`).
"""

from __future__ import annotations

import pandas as pd
import pytest

from lbanalysis.sweep.search import _decide, _Plan, enough_load


def _table(*levels: tuple[float, object, str]) -> pd.DataFrame:
    """Loads judged: (level, met, failed clause); a run per load."""
    rows = [{"series": "s", "load": "rate_target_per_s", "level": float(lv), "runs": 1, "requests_per_s": lv,
             "met": met, "failed_clause": clause, "values": "", "why": ""} for lv, met, clause in levels]  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("load", "attempts", "expected"),
    [
        (45, 90, 55),  # a rate of 45 for 2 s: 90 requests; 55 gives 110 (a tenth over the 100 the study needs)
        (40, 80, 55),
        (20, 40, 40),  # at most twice: 55 would be proportional, the next run says more
        (1, 99, 2),  # at least one more
        (3, 0, 6),  # no request counted: twice
    ],
)
def test_a_load_with_too_few_requests_is_made_just_heavier_enough(load, attempts, expected):
    assert enough_load(load, attempts) == expected


def test_the_search_says_which_loads_it_could_not_judge_when_the_lowest_judged_fails():
    """CI: a first rate of 45 made 90 requests in 2 s (too few to judge), the next, 90, failed: "failed at the
    first load, 45" said the search of a load it never judged."""
    plan = _Plan("mean <= 93ms", 45, 0.1, 12, 600.0, None, 3)
    step, load, why = _decide(_table((90, False, "mean <= 93ms")), plan)
    assert (step, load) == ("", 0)
    assert "failed at 90, the lowest load with enough requests to judge" in why and "--duration" in why
    step, load, why = _decide(_table((45, False, "mean <= 93ms")), plan)
    assert why.endswith("failed at the first load, 45: start lower (--loads N)")


def test_the_search_doubles_then_bisects_then_repeats_at_the_boundary():
    plan = _Plan("mean <= 93ms", 50, 0.1, 12, 600.0, None, 3)
    assert _decide(_table((50, True, "")), plan)[:2] == ("doubling", 100)
    assert _decide(_table((50, True, ""), (100, False, "mean <= 93ms")), plan)[:2] == ("bisection", 75)
    step, load, _ = _decide(_table((50, True, ""), (70, True, ""), (75, False, "x")), plan)
    assert (step, load) == ("repeat", 70)  # within 10 % of 70: both loads of the bracket get three runs
