"""``lbanalysis check``: a gate for CI: does every series meet the objective (and is none worse than a baseline)?

Exit status: 0 every series meets every clause at every load measured (and, with ``--baseline``, none is worse
beyond run-to-run noise by the compare bootstrap); 1 a series fails a clause (or is worse than the baseline); 2
the objective cannot be judged (a percentile the runs do not show, no run used, too few runs to compare with the
baseline) or a usage error. ``--junit FILE`` writes JUnit XML (one test case per series and clause, and per
series and metric compared with the baseline); ``--format markdown`` a summary for a pull-request comment.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any
from xml.etree import ElementTree as ET

import pandas as pd

from .common import PROG, CLIError, read_dataset
from .summary import format_markdown, format_table

__all__ = ["EPILOG", "add_parser", "check_table", "cmd_check", "junit_xml"]

#: Exit status of ``check`` for each outcome.
EXIT = {"met": 0, "failed": 1, "cannot judge": 2}
#: The compare metrics whose change counts as worse: (metric label, worse when the ratio B/A is ...).
_WORSE = {"req/s": "lower", "mean latency ms": "higher"}


def check_table(ds: Any, objective: Any, *, load: str = "concurrency", baseline: Any = None) -> pd.DataFrame:
    """The test cases of ``check``: one row per series and clause (:meth:`Study.clauses`), and with a
    ``baseline`` Dataset one per series and compared metric. Columns: ``series``, ``case``, ``status``
    (met, failed, cannot judge), ``message``, ``capacity`` (the series' capacity at the objective, in words)."""
    from ..analysis.engine import study

    st = study(ds, objective=objective, load=load)
    cases = st.clauses()
    cap = st.capacity().set_index("series") if len(st.verdicts) else pd.DataFrame()
    rows = [
        {"series": r.series, "case": r.clause, "status": r.status, "message": r.evidence,
         "capacity": _capacity_words(cap.loc[r.series]) if r.series in cap.index else ""}
        for r in cases.itertuples()
    ]  # fmt: skip
    if baseline is not None:
        rows += _baseline_rows(baseline.runs, ds.runs, load)
    return pd.DataFrame(rows, columns=["series", "case", "status", "message", "capacity"])


def _capacity_words(row: pd.Series) -> str:
    """A series' capacity at the objective, short: ``crossed at 29.5 (1,947 req/s)``."""
    if row["status"] == "crossed":
        ci = f", 95% {row['lower']:.4g}-{row['upper']:.4g}" if pd.notna(row["lower"]) else ""
        return f"{row['load']} {row['capacity_load']:.4g} ({row['capacity_requests_per_s']:,.0f} req/s{ci})"
    if row["status"] == "met at every load":
        return f"above {row['load']} {row['met_load']:.4g}"
    if row["status"] == "failed at the lowest load":
        return f"below {row['load']} {row['failed_load']:.4g}"
    return row["status"]


def _baseline_rows(base: pd.DataFrame, new: pd.DataFrame, load: str) -> list[dict[str, Any]]:
    """One case per series and metric compared with the baseline: failed when worse beyond noise (the 95%
    bootstrap interval of the ratio all on the worse side), cannot judge with too few runs."""
    from .compare import compare_table

    runs = pd.concat([base.assign(side="baseline"), new.assign(side="current")], ignore_index=True)
    table = compare_table(runs, "side", "baseline", "current", load=load)
    rows = []
    for r in table.itertuples():
        if r.metric not in _WORSE:
            continue
        case = f"{r.metric} against the baseline"
        if pd.isna(r.lower) or pd.isna(r.upper):
            rows.append({"series": r.series, "case": case, "status": "cannot judge", "message": str(r.verdict)})
            continue
        worse = r.upper < 1 if _WORSE[r.metric] == "lower" else r.lower > 1
        status = "failed" if worse else "met"
        rows.append({"series": r.series, "case": case, "status": status,
                     "message": f"{'worse than the baseline: ' if worse else ''}{r.verdict}"})  # fmt: skip
    return rows


def exit_status(table: pd.DataFrame) -> int:
    """1 when a case failed, else 2 when one cannot be judged (or there is none), else 0.

    >>> exit_status(pd.DataFrame({"status": ["met", "cannot judge"]})), exit_status(pd.DataFrame({"status": ["met"]}))
    (2, 0)
    """
    if not len(table):
        return 2
    statuses = set(table["status"])
    return 1 if "failed" in statuses else 2 if "cannot judge" in statuses else 0


def junit_xml(table: pd.DataFrame, objective: str, name: str = "lbanalysis check") -> str:
    """JUnit XML: one ``testsuite``, a ``testcase`` per row (classname: the series, name: the clause), a
    ``failure`` for a failed case and an ``error`` for one that cannot be judged.

    >>> t = pd.DataFrame({"series": ["ab h"], "case": ["p99 <= 50ms"], "status": ["failed"], "message": ["p99 62 ms"]})
    >>> print(junit_xml(t, "p99 <= 50ms"))  # doctest: +ELLIPSIS
    <?xml version="1.0" encoding="utf-8"?>
    <testsuites name="lbanalysis check" tests="1" failures="1" errors="0"><testsuite name="p99 &lt;= 50ms" ...
    """
    failures = int((table["status"] == "failed").sum())
    errors = int((table["status"] == "cannot judge").sum())
    top = ET.Element("testsuites", name=name, tests=str(len(table)), failures=str(failures), errors=str(errors))
    suite = ET.SubElement(top, "testsuite", name=objective, tests=str(len(table)), failures=str(failures),
                          errors=str(errors), skipped="0")  # fmt: skip
    for r in table.itertuples():
        case = ET.SubElement(suite, "testcase", classname=str(r.series), name=str(r.case))
        if r.status == "failed":
            ET.SubElement(case, "failure", message=str(r.message), type="objective failed").text = str(r.message)
        elif r.status == "cannot judge":
            ET.SubElement(case, "error", message=str(r.message), type="cannot judge").text = str(r.message)
        else:
            ET.SubElement(case, "system-out").text = str(r.message)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(top, encoding="unicode")


def _markdown(table: pd.DataFrame, objective: str, status: int) -> str:
    """The summary for a pull-request comment: the outcome, then one line per case."""
    head = {0: "passed", 1: "failed", 2: "cannot judge"}[status]
    mark = {"met": "✅", "failed": "❌", "cannot judge": "⚠️"}
    shown = pd.DataFrame(
        {
            "": [mark.get(s, "") for s in table["status"]],
            "series": table["series"].astype(str),
            "check": table["case"].astype(str),
            "capacity": table["capacity"].fillna("").astype(str),
            "why": table["message"].astype(str).str.replace("|", "\\|").str.split(". What bounds").str[0],
        }
    )
    n = {k: int((table["status"] == k).sum()) for k in mark}
    counts = f"{n['met']} met, {n['failed']} failed, {n['cannot judge']} cannot judge"
    return f"### lbanalysis check: {head}\n\nObjective: `{objective}` ({counts})\n\n{format_markdown(shown)}"


def cmd_check(args: argparse.Namespace) -> int:
    from ..analysis.objective import Objective, ObjectiveError

    try:
        objective = Objective(args.objective)
    except ObjectiveError as e:
        raise CLIError(f"--objective: {e}", 2) from None
    ds = read_dataset(argparse.Namespace(**{**vars(args), "paths": [args.dir]}), strict_paths=True)
    base = None
    if args.baseline:
        base = read_dataset(argparse.Namespace(**{**vars(args), "paths": [args.baseline]}), strict_paths=True)
    table = check_table(ds, objective, load=args.load, baseline=base)
    if not len(table):
        raise CLIError(f"{args.dir}: no HTTP load-test series to judge against {objective}", 2)
    status = exit_status(table)
    if args.junit:
        with open(args.junit, "w", encoding="utf-8") as fh:
            fh.write(junit_xml(table, str(objective)) + "\n")
    if args.format == "markdown":
        print(_markdown(table, str(objective), status))
    elif args.format == "csv":
        table.to_csv(sys.stdout, index=False)
    else:
        shown = table.assign(message=table["message"].str.split(". What bounds").str[0])
        print(format_table(shown[["series", "case", "status", "capacity", "message"]].fillna("").astype(str)))
        word = {0: "passed", 1: "failed", 2: "cannot judge"}[status]
        print(f"{PROG}: check {word}: {len(table)} cases, objective {objective}", file=sys.stderr)
    return status


EPILOG = """\
examples:
  lbanalysis check runs/ --objective 'p99 <= 50ms, errors <= 1%'
  lbanalysis check runs/ --objective 'p99 <= 50ms' --baseline main-runs/ --junit check.xml
  lbanalysis check runs/ --objective 'mean <= 20ms, rps >= 500' --format markdown > comment.md

Each series must meet every clause at every load measured (the mean of each
load's runs). A percentile is the one the tool printed, else one of the
per-request log, else the upper edge of a histogram bucket; never guessed.
With --baseline, each series is also compared with the same series there
(mean req/s and latency, 95% bootstrap interval of the ratio, 3 runs a side
or more): worse beyond run-to-run noise fails. Exit status: 0 met, 1 failed,
2 cannot judge (or a usage error).
"""


def add_parser(
    sub: Any, fmt: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
) -> argparse.ArgumentParser:
    """The ``check`` subcommand's parser and options."""
    p = sub.add_parser("check", help="a CI gate: every series meets the objective", epilog=EPILOG,
                       formatter_class=fmt)  # fmt: skip
    p.description = "Check that every series of a folder meets an objective (and is not worse than a baseline)."
    p.add_argument("dir", metavar="DIR", help="the folder of runs (a sweep's, or any that reads)")
    p.add_argument("--objective", required=True, metavar="TEXT", help="e.g. 'p99 <= 50ms, errors <= 1%%'")
    p.add_argument("--baseline", metavar="DIR", help="a folder of the same series to compare with")
    p.add_argument("--junit", metavar="FILE", help="write JUnit XML (a test case per series and clause)")
    p.add_argument("--format", choices=("text", "markdown", "csv"), default="text", help="output format")
    p.add_argument("--pattern", help="path pattern naming columns, e.g. '{setup}/{mode}'")
    p.add_argument("--manifest", metavar="FILE", help="manifest CSV (default: every manifest.csv in the folders)")
    p.add_argument("--load", default="concurrency", help="load column (default: concurrency)")
    p.set_defaults(tool=None, errors="skip", workers=1, where=None)
    return p
