"""Whole frames per fixture family: every runs column, every detail table, against tests/expected/.

The expected files are written by ``python scripts/update_expected.py`` from
the readers and reviewed by eye against the raw fixtures. Any reader change
that moves a value, fills a column that must stay empty, or drops a row or a
file fails here. After an intended change, re-run the script and review
``git diff tests/expected`` before committing it.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("update_expected", ROOT / "scripts" / "update_expected.py")
update_expected = importlib.util.module_from_spec(spec)
spec.loader.exec_module(update_expected)

HINT = "re-run `python scripts/update_expected.py` and review `git diff tests/expected` if the change is intended"


def test_every_fixture_family_has_expected_frames():
    # scenarios/: labelled series for the verdicts (tests/test_scenarios.py), not a reader family
    skip = {"capture", "scenarios"}
    families = {p.name for p in (ROOT / "tests" / "fixtures").iterdir() if p.is_dir() and p.name not in skip}
    assert families == set(update_expected.FAMILIES)


@pytest.mark.parametrize("family", update_expected.FAMILIES)
def test_whole_frames(family):
    expected = json.loads((ROOT / "tests" / "expected" / f"{family}.json").read_text())
    got = json.loads(json.dumps(update_expected.digest(update_expected.FIXTURES / family), sort_keys=True))
    assert got["columns"] == expected["columns"], HINT
    assert len(got["runs"]) == len(expected["runs"]), HINT
    for g, e in zip(got["runs"], expected["runs"], strict=True):
        # a key missing from one side is a column that is empty there and not in the other
        assert g == e, (
            f"{e.get('source')} run {e.get('run')}: {sorted(set(g.items()) ^ set(e.items()), key=str)}; {HINT}"
        )
    for key in sorted(set(got) | set(expected)):
        if key in ("columns", "runs"):
            continue
        assert got.get(key) == expected.get(key), f"{family}: {key} differs; {HINT}"
