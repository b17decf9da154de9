"""The study's verdict on each labelled scenario (tests/fixtures/scenarios, LABELS.csv), where they are present.

A wrong confident verdict fails; "cannot tell" passes only where the label allows it.
"""

from __future__ import annotations

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.analysis.engine import study
from tests.conftest import FIXTURES

SCENARIOS = FIXTURES / "scenarios"
LABELS = SCENARIOS / "LABELS.csv"
ROWS = (
    pd.read_csv(LABELS, dtype={"series": str, "expected_resource": str})
    .fillna({"series": "", "expected_resource": ""})
    .to_dict("records")
    if LABELS.exists()
    else []
)


@pytest.mark.skipif(not ROWS, reason="no labelled scenarios in this tree")
@pytest.mark.parametrize("row", ROWS, ids=[f"{r['folder']} {r['series']}".strip() for r in ROWS])
def test_each_labelled_series_gets_its_true_verdict_and_resource(row):
    s = study(lbanalysis.read(SCENARIOS / row["folder"], table="all", errors="skip"))
    frame = s.summary_frame()
    mine = frame[[_names(n, row["series"]) for n in frame["series"]]].reset_index(drop=True)
    assert len(mine) == 1, frame["series"].tolist()
    got = (mine.loc[0, "verdict"], mine.loc[0, "resource"])
    if str(row["cannot_tell_allowed"]).lower() == "true" and got[0] == "cannot tell":
        return
    assert got == (row["expected_verdict"], row["expected_resource"]), mine.loc[0, "evidence"]


def _names(name: str, series: str) -> bool:
    """Whether a series name is the one a label names (empty: any; else its tool, or a part of its name)."""
    return not series or name.split(" ", 1)[0] == series or series in name


@pytest.mark.skipif(not ROWS, reason="no labelled scenarios in this tree")
def test_the_whole_lab_at_once_keeps_each_scenario_apart():
    s = study(lbanalysis.read(SCENARIOS, table="all", errors="skip"))
    for row in ROWS:
        mine = s.verdicts[(s.verdicts["origin"] == row["folder"]).to_numpy(bool)]
        mine = mine[[_names(n, row["series"]) for n in mine["series"]]]
        assert len(mine) == 1, (row["folder"], mine["series"].tolist())
        allowed = {row["expected_verdict"]} | (
            {"cannot tell"} if str(row["cannot_tell_allowed"]).lower() == "true" else set()
        )
        assert mine["verdict"].iloc[0] in allowed, row["folder"]
