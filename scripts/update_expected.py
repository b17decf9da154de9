"""Write the expected whole frames of every fixture family (tests/expected/<family>.json).

tests/test_frames.py reads each family's folder (``lbanalysis.read(folder,
table="all", errors="skip")``) and compares what it gets with these files:
every runs row with every column (a column not in a row's record must be
empty), and for each detail table its rows per run, its first rows whole,
and per column the count of values and their sum. A reader change that moves
any value, fills a column that must stay empty, or drops a row fails there.

After an intended change: ``python scripts/update_expected.py``, then review
``git diff tests/expected`` line by line before committing it.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import lbanalysis  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
EXPECTED = ROOT / "tests" / "expected"
FAMILIES = (
    "ab",
    "ab-quoted",
    "siege",
    "gobench",
    "wrk",
    "hey",
    "k6",
    "locust",
    "iperf2",
    "iperf3",
    "haproxy",
    "stall",
    "compare",
    "hostile",
    "pasted",
    "vegeta",
    "bombardier",
    "oha",
    "parallel",
    "httperf",
    "gatling",
    "jmeter",
    "cpu",
    "sweep",
    "taurus",
    "fortio",
    "crank",
    "autobench",
)
FIRST_ROWS = 3


def _plain(v: Any) -> Any:
    """A JSON value for a cell: numbers to 12 significant digits, times as ISO text."""
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, float) or (
        hasattr(v, "dtype") and getattr(v, "dtype", None) is not None and "float" in str(v.dtype)
    ):
        v = float(v)
        return None if math.isnan(v) else float(f"{v:.12g}")
    if isinstance(v, pd.Timestamp):
        return v.isoformat()
    if hasattr(v, "item"):
        return _plain(v.item())
    return v


def _record(row: pd.Series) -> dict:
    return {k: _plain(v) for k, v in row.items() if not (v is None or (not isinstance(v, str) and pd.isna(v)))}


def digest(folder: Path) -> dict:
    """What test_frames compares for one folder of fixtures."""
    ds = lbanalysis.read(folder, table="all", errors="skip")
    rel = lambda s: Path(str(s)).relative_to(FIXTURES).as_posix()  # noqa: E731
    runs = ds.runs.assign(source=ds.runs["source"].map(rel))
    out: dict = {"columns": list(ds.runs.columns), "runs": [_record(r) for _, r in runs.iterrows()]}
    for name, df in ds.tables.items():
        if name == "runs" or not len(df):
            continue
        df = df.assign(source=df["source"].astype(str).map(rel))
        if "run_source" in df:  # the cpu table names its run's file as well
            df = df.assign(run_source=df["run_source"].map(lambda s: rel(s) if isinstance(s, str) else s))
        part: dict = {
            "rows": len(df),
            "rows per run": {
                f"{s}#{r}": int(n) for (s, r), n in df.groupby(["source", "run"], observed=True).size().items()
            },
        }
        part["first rows"] = [_record(r) for _, r in df.head(FIRST_ROWS).iterrows()]
        cols = {}
        for c in df.columns:
            if c in ("source", "run"):
                continue
            values = df[c]
            entry: dict = {"values": int(values.notna().sum())}
            if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
                entry["sum"] = _plain(float(pd.to_numeric(values, errors="coerce").sum()))
            cols[c] = entry
        part["columns"] = cols
        out[name] = part
    out["skipped"] = sorted(rel(s) for s in ds.skipped["source"])
    out["not runs"] = [{**_record(r), "source": rel(r["source"])} for _, r in ds.not_runs.iterrows()]
    return out


def main() -> None:
    EXPECTED.mkdir(exist_ok=True)
    for family in FAMILIES:
        path = EXPECTED / f"{family}.json"
        path.write_text(json.dumps(digest(FIXTURES / family), indent=1, sort_keys=True, ensure_ascii=False) + "\n")
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
