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
ROWS = pd.read_csv(LABELS).to_dict("records") if LABELS.exists() else []


@pytest.mark.skipif(not ROWS, reason="no labelled scenarios in this tree")
@pytest.mark.parametrize("row", ROWS, ids=[r["folder"] for r in ROWS])
def test_each_labelled_series_gets_its_true_verdict(row):
    s = study(lbanalysis.read(SCENARIOS / row["folder"], table="all", errors="skip"))
    frame = s.summary_frame()
    assert len(frame) == 1, frame["series"].tolist()
    got = frame.loc[0, "verdict"]
    allowed = {row["expected_verdict"]} | (
        {"cannot tell"} if str(row["cannot_tell_allowed"]).lower() == "true" else set()
    )
    assert got in allowed, frame.loc[0, "evidence"]


@pytest.mark.skipif(not ROWS, reason="no labelled scenarios in this tree")
def test_the_whole_lab_at_once_keeps_each_scenario_apart():
    s = study(lbanalysis.read(SCENARIOS, table="all", errors="skip"))
    by_origin = s.verdicts.set_index("origin")["verdict"]
    for row in ROWS:
        allowed = {row["expected_verdict"]} | (
            {"cannot tell"} if str(row["cannot_tell_allowed"]).lower() == "true" else set()
        )
        assert by_origin[row["folder"]] in allowed, row["folder"]
