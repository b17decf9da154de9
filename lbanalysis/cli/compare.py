"""``lbanalysis compare``: the change in throughput and latency between two setups, series by series."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import pandas as pd

from .common import CLIError, check_paths, read_dataset
from .summary import format_markdown, format_table

__all__ = ["EPILOG", "add_parser", "cmd_compare", "compare_table"]

_COMPARE_METRICS = (("requests_per_s", "req/s"), ("latency_mean_s", "mean latency ms"))


def compare_table(runs: pd.DataFrame, side: str, a: str, b: str, load: str = "concurrency") -> pd.DataFrame:
    """For each series run on both sides, the change of throughput and latency from ``a`` to ``b``.

    Uses :func:`lbanalysis.analysis.compare` (bootstrap interval of the
    ratio of means, stratified by load when both sides ran several loads);
    with fewer than its minimum runs on a side the verdict says "too few runs
    to tell". Series run on one side only are listed with their side. The
    processes of one test (run at once: :mod:`lbanalysis.analysis.tests`)
    count as one run, with their summed figures.
    ``bound_a``/``bound_b``: what bounded the series on each side, as the
    study of that side says.
    """
    from ..analysis.comparison import compare
    from ..analysis.series import assign_series
    from ..analysis.tests import fold

    bound = _bounds(runs, side, (a, b), load)
    runs = fold(runs)[0]  # processes run at once are one test: compared by the test's summed figures
    data = runs.assign(series=assign_series(runs, exclude=[side, "_origin"])).dropna(subset=["series"])
    data = data[data[side].astype(str).isin([a, b])].assign(**{side: lambda d: d[side].astype(str)})
    rows = []
    for name, g in data.groupby("series", sort=True):
        present = set(g[side])
        sides = {v: ", ".join(sorted({bound.get(k, "") for k in zip(g.loc[g[side] == v, "source"].astype(str),
                                                                      g.loc[g[side] == v, "run"], strict=True)}
                                     - {""})) for v in (a, b)}  # fmt: skip
        if present != {a, b}:
            rows.append({"series": name, "metric": "", "verdict": f"run on {', '.join(sorted(present))} only",
                         "bound_a": sides[a], "bound_b": sides[b]})  # fmt: skip
            continue
        loads = {k: pd.to_numeric(v[load], errors="coerce").nunique() for k, v in g.groupby(side)} if load in g else {}
        at = load if loads and min(loads.values()) > 1 else None
        for col, label in _COMPARE_METRICS:
            if col not in g or g[col].notna().groupby(g[side]).sum().min() == 0:
                continue
            res = compare(g.dropna(subset=[col]), by=side, a=a, b=b, y=col, at=at, n_boot=2000)
            o = res.loc["overall"]
            rows.append({"series": name, "metric": label, "n_a": o["n_a"], "n_b": o["n_b"], "mean_a": o["mean_a"],
                         "mean_b": o["mean_b"], "change_pct": o["change_pct"], "lower": o["lower"],
                         "upper": o["upper"], "verdict": o["verdict"], "bound_a": sides[a], "bound_b": sides[b]})  # fmt: skip
    return pd.DataFrame(rows, columns=["series", "metric", "n_a", "n_b", "mean_a", "mean_b", "change_pct", "lower",
                                       "upper", "verdict", "bound_a", "bound_b"])  # fmt: skip


def _bounds(runs: pd.DataFrame, side: str, values: tuple[str, str], load: str) -> dict[tuple[str, object], str]:
    """(source, run) -> what bounded its series on its side, as the study of that side says."""
    from ..analysis.engine import study

    out: dict[tuple[str, object], str] = {}
    for v in values:
        mine = runs[(runs[side].astype(str) == v).to_numpy(bool)] if side in runs else runs.iloc[:0]
        if not len(mine) or load not in mine:
            continue
        st = study(mine, load=load, exclude=[side, "_origin"])
        verdict = dict(zip(st.verdicts["series"], st.verdicts["verdict"], strict=True)) if len(st.verdicts) else {}
        known = st.runs.dropna(subset=["series"])
        for src, r, name in zip(known["source"].astype(str), known["run"], known["series"], strict=True):
            out[(src, r)] = verdict.get(name, "")
    return out


def _compare_strings(table: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """The comparison table as display strings."""

    def fmt(v: Any, spec: str) -> str:
        return "" if v is None or pd.isna(v) else format(v, spec)

    scale = [1e3 if str(m).endswith(" ms") else 1.0 for m in table["metric"]]
    out = pd.DataFrame(
        {
            "series": table["series"].astype(str),
            "metric": table["metric"].astype(str),
            f"runs {a}": [fmt(v, ".0f") for v in table["n_a"]],
            f"runs {b}": [fmt(v, ".0f") for v in table["n_b"]],
            f"mean {a}": [fmt(v * k, ".4g") for v, k in zip(table["mean_a"], scale, strict=True)],
            f"mean {b}": [fmt(v * k, ".4g") for v, k in zip(table["mean_b"], scale, strict=True)],
            "change": [fmt(v, "+.1f") + ("%" if pd.notna(v) else "") for v in table["change_pct"]],
            "verdict": table["verdict"].astype(str),
            "bound": [
                f"{x or '?'} → {y or '?'}" if (x or y) else ""
                for x, y in zip(table["bound_a"].fillna(""), table["bound_b"].fillna(""), strict=True)
            ],
        }
    )
    return out


def cmd_compare(args: argparse.Namespace) -> int:
    if args.by:
        ns = argparse.Namespace(**{**vars(args), "paths": args.within or ["."]})
        ds = read_dataset(ns, strict_paths=True)
        runs, side, a, b = ds.runs, args.by, args.a, args.b
        if side not in runs.columns:
            raise CLIError(f"--by {side!r} is not a column of the runs (add it with --pattern or a manifest)", 2)
        values = set(runs[side].dropna().astype(str))
        for v in (a, b):
            if v not in values:
                raise CLIError(f"no runs with {side} == {v!r}; values: {', '.join(sorted(values)) or 'none'}", 2)
    else:
        frames = []
        for path in (args.a, args.b):
            if check_paths([path]):
                raise CLIError(f"{path}: no such folder or file (to compare two values of a column, use --by)", 2)
            ns = argparse.Namespace(**{**vars(args), "paths": [path]})
            frames.append(read_dataset(ns, strict_paths=True).runs)
        names = [os.path.basename(os.path.normpath(p)) for p in (args.a, args.b)]
        a, b = names if names[0] != names[1] else (args.a, args.b)
        frames = [f.assign(side=n) for f, n in zip(frames, (a, b), strict=True)]
        runs, side = pd.concat(frames, ignore_index=True), "side"
    table = compare_table(runs, side, a, b, load=args.load)
    if not len(table):
        raise CLIError("no HTTP load-test runs to compare", 1)
    shown = _compare_strings(table, a, b)
    if args.format == "csv":
        table.to_csv(sys.stdout, index=False)
    elif args.format == "markdown":
        print(format_markdown(shown))
    else:
        print(format_table(shown))
    return 0


EPILOG = """\
examples:
  lbanalysis compare before/ after/                      # two folders
  lbanalysis compare haproxy-2 haproxy-4 --by setup --in logs/ --pattern '{setup}/*'
  lbanalysis compare before/ after/ --format markdown    # a table for a pull request

For each series (same tool, target and settings) present on both sides: the
change of mean throughput and of mean latency from A to B, with a 95%
bootstrap interval of the ratio when each side has 3 runs or more (by load
when both ran several loads), else "too few runs to tell".
"""


def add_parser(
    sub: Any, fmt: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
) -> argparse.ArgumentParser:
    """The ``compare`` subcommand's parser and options."""
    p = sub.add_parser(
        "compare",
        help="change in throughput and latency between two setups",
        epilog=EPILOG,
        formatter_class=fmt,
    )
    p.description = "Compare two folders (or two values of a column) series by series."
    p.add_argument("a", metavar="A", help="first folder (or value of --by)")
    p.add_argument("b", metavar="B", help="second folder (or value of --by)")
    p.add_argument("--by", metavar="COLUMN", help="compare two values of this runs column instead of two folders")
    p.add_argument("--in", dest="within", nargs="+", metavar="PATH", help="what to read with --by (default: .)")
    p.add_argument("--pattern", help="path pattern naming columns, e.g. '{setup}/{mode}'")
    p.add_argument("--manifest", metavar="FILE", help="manifest CSV (default: every manifest.csv in the folders)")
    p.add_argument("--load", default="concurrency", help="load column (default: concurrency)")
    p.add_argument("--format", choices=("text", "markdown", "csv"), default="text", help="output format")
    p.set_defaults(tool=None, errors="skip", workers=1, where=None)
    return p
