"""Run metadata from path segments (patterns) and from manifest files.

A *pattern* names path segments: ``"{setup}/{mode}"`` applied to
``shared-1-cpu-1-ram/haproxy-2/run.txt`` gives ``setup='shared-1-cpu-1-ram'``
and ``mode='haproxy-2'``. ``*`` matches one segment without naming it and
``**`` any number of segments. The pattern is matched against the path
relative to the folder that was read (or the path as given), from its
start; where that fails, at any later segment boundary.

A *manifest* is a CSV whose first column ``file`` names a file (relative to
the manifest's folder; a glob is allowed) and whose other columns are
attached to that file's runs; an optional ``run`` column targets one run of
a multi-run file.

>>> match_pattern("{setup}/{mode}", "shared-1-cpu-1-ram/haproxy-2/x.txt")
{'setup': 'shared-1-cpu-1-ram', 'mode': 'haproxy-2'}
>>> match_pattern("{size}/rep-{rep}/x", "data/4_ab/rep-2/ab-1.txt") is None
True
>>> match_pattern("{procs}_ab/rep-{rep}", "data/4_ab/rep-2/ab-1.txt")
{'procs': '4', 'rep': '2'}
"""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd

from .errors import LBAnalysisError

__all__ = ["apply_manifest", "coerce_numeric", "match_pattern", "read_manifest"]

_FIELD_RE = re.compile(r"\{(\w+)\}|\*\*|\*|[^{*]+")


@lru_cache(maxsize=64)
def compile_pattern(pattern: str) -> tuple[re.Pattern, re.Pattern]:
    """A path pattern as two regexes: anchored at the path's end, and found anywhere in it (cached).

    >>> compile_pattern("{setup}/c{concurrency}")[0].match("lb/c8").group("setup", "concurrency")
    ('lb', '8')
    """
    parts = []
    for m in _FIELD_RE.finditer(pattern.strip("/")):
        tok = m.group(0)
        if m.group(1):
            parts.append(f"(?P<{m.group(1)}>[^/]+?)")
        elif tok == "**":
            parts.append(".*?")
        elif tok == "*":
            parts.append("[^/]*?")
        else:
            parts.append(re.escape(tok))
    body = "".join(parts)
    return re.compile(f"^{body}(?:/|$)"), re.compile(f"(?:^|/){body}(?:/|$)")


def match_pattern(pattern: str, path: str) -> dict[str, str] | None:
    """Named fields of ``pattern`` found in ``path`` (POSIX or Windows), else None."""
    p = PurePosixPath(str(path).replace("\\", "/")).as_posix()
    anchored, anywhere = compile_pattern(pattern)
    m = anchored.search(p) or anywhere.search(p)
    return m.groupdict() if m else None


def coerce_numeric(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Turn text columns that hold only numbers into numbers (ints stay ints).

    >>> coerce_numeric(pd.DataFrame({"a": ["1", "2"], "b": ["x", "2"]}), ["a", "b"])["a"].tolist()
    [1, 2]
    """
    for c in columns:
        if c not in df.columns or df[c].dtype.kind in "biuf":
            continue
        s = df[c]
        num = pd.to_numeric(s, errors="coerce")
        if num.notna().sum() == s.notna().sum() and s.notna().any():
            df[c] = num.astype("Int64") if (num.dropna() % 1 == 0).all() else num
    return df


def read_manifest(path: str | Path) -> pd.DataFrame:
    """Read a manifest CSV; the ``file`` column is required.

    Paths in ``file`` stay relative to the manifest's folder; ``_dir`` holds
    that folder.
    """
    path = Path(path)
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except FileNotFoundError:
        raise LBAnalysisError(f"{path}: manifest not found") from None
    except Exception as e:
        raise LBAnalysisError(f"{path}: unreadable manifest CSV ({e})") from None
    if "file" not in df.columns:
        raise LBAnalysisError(f"{path}: a manifest needs a 'file' column (found: {', '.join(df.columns)})")
    df = df.replace({"": None})
    df["_dir"] = str(path.parent.resolve())
    df.attrs["source"] = str(path)  # the manifest's own path: the file of the cpu rows read from its columns
    return df


def _agree(shown: pd.Series, given: pd.Series) -> pd.Series:
    """Where a manifest value says the same as the output: equal, or a time within what the output printed.

    A time printed to the second (Locust, k6) agrees with a manifest time in
    that second or the next (the output may round), not only with the same text.

    >>> shown = pd.Series(pd.to_datetime(["2026-01-01 10:00:05", "2026-01-01 10:00:05"]))
    >>> _agree(shown, pd.Series(["2026-01-01 10:00:04.6", "2026-01-01 10:00:07"])).tolist()
    [True, False]
    """
    same = shown.astype(str) == given.astype(str)
    if not pd.api.types.is_datetime64_any_dtype(shown):
        return same
    try:
        g = pd.to_datetime(given, errors="coerce")
        whole = shown == shown.dt.floor("s")
        near = (shown - g).abs() < pd.Timedelta(seconds=1)
        return same | (shown == g) | (whole & near).fillna(False)
    except (TypeError, ValueError):  # one side with a time zone, the other without: compared as text
        return same


def _within(shown: pd.Series, start: pd.Series, end: pd.Series) -> pd.Series:
    """Where a time the output shows lies between a run's start and end as the manifest gives them.

    >>> t = pd.Series(pd.to_datetime(["2026-01-01 10:00:03", "2026-01-01 10:00:09"]))
    >>> _within(t, pd.Series(["2026-01-01 10:00:00"] * 2), pd.Series(["2026-01-01 10:00:05"] * 2)).tolist()
    [True, False]
    """
    try:
        low, high = pd.to_datetime(start, errors="coerce"), pd.to_datetime(end, errors="coerce")
        return ((shown >= low) & (shown <= high)).fillna(False).astype(bool)
    except (TypeError, ValueError):  # one side with a time zone, the other without
        return pd.Series(False, index=shown.index)


def _positions(files: pd.Series) -> dict[str, list[int]]:
    """Each file's rows (their positions), by the file's path as text.

    >>> _positions(pd.Series(["a.txt", "b.txt", "a.txt"]))
    {'a.txt': [0, 2], 'b.txt': [1]}
    """
    at: dict[str, list[int]] = {}
    for i, f in enumerate(files.astype(str).tolist()):
        at.setdefault(f, []).append(i)
    return at


def _files_matching(pattern: str, at: dict[str, list[int]]) -> list[int]:
    """The rows of the files a manifest's ``file`` names (:func:`_positions`): the one file of that path, or
    every file its glob matches (``fnmatchcase``: the same on every system); in the rows' order.

    >>> at = _positions(pd.Series(["/d/a1.txt", "/d/b.txt", "/d/a2.txt"]))
    >>> _files_matching("/d/b.txt", at), _files_matching("/d/a*.txt", at), _files_matching("/d/c.txt", at)
    ([1], [0, 2], [])
    """
    if not _GLOB.search(pattern):  # no *, ? or [: only the file of that very path
        return list(at.get(pattern, ()))
    match = _glob_re(pattern).match
    return sorted(i for f, rows in at.items() if f == pattern or match(f) for i in rows)


_GLOB = re.compile(r"[*?\[]")


@lru_cache(maxsize=256)
def _glob_re(pattern: str) -> re.Pattern:
    """The regular expression of a glob, as :func:`fnmatch.fnmatchcase` compiles it."""
    return re.compile(fnmatch.translate(pattern))


def _manifest_values(runs: pd.DataFrame, manifest: pd.DataFrame, cols: list[str]) -> dict[str, list]:
    """Each manifest column's value for each run (None where no row names the run's file, NaN where the rows
    that name it leave the cell empty): a later row's value over an earlier one's, an empty cell over none."""
    values: dict[str, list] = {c: [None] * len(runs) for c in cols}
    at = _positions(runs["_abs"] if "_abs" in runs.columns else runs["source"])
    numbers = runs["run"].astype("Int64").tolist() if "run" in manifest.columns and "run" in runs else None
    for row in manifest.to_dict("records"):
        hits = _files_matching(str(Path(row["_dir"]) / row["file"]).replace("\\", "/"), at)
        if numbers is not None and row.get("run") is not None:
            number = int(row["run"])
            hits = [i for i in hits if numbers[i] is not pd.NA and numbers[i] == number]
        for c in cols:
            column = values[c]
            for i in hits:
                if row[c] is not None:
                    column[i] = row[c]
                elif column[i] is None:  # an empty cell: missing, never over what another row gave
                    column[i] = np.nan
    return values


def apply_manifest(runs: pd.DataFrame, manifest: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Attach manifest columns to runs; returns the frame and notes on conflicts.

    A manifest value fills a run column that is empty; where the output
    shows a different value, the output wins and a note says so (a time the output
    shows within the run's manifest timestamp and end_time is no conflict).
    """
    notes: list[str] = []
    cols = [c for c in manifest.columns if c not in ("file", "run", "_dir")]
    if runs.empty or not cols:
        return runs, notes
    add = coerce_numeric(pd.DataFrame(_manifest_values(runs, manifest, cols), index=runs.index), cols)
    for c in cols:
        if c in runs.columns:
            shown = runs[c]
            filled = add[c]
            both = shown.notna() & filled.notna()
            if both.any():
                diff = both & ~_agree(shown, filled)
                if c == "timestamp" and "end_time" in add:  # a time the tool printed while it ran (JMeter's start)
                    diff &= ~_within(shown, filled, add["end_time"])
                for i in diff[diff].index:
                    notes.append(
                        f"{runs.at[i, 'source']} run {runs.at[i, 'run']}: manifest says {c}={filled[i]!r}, "
                        f"the output shows {shown[i]!r}; kept the output's value"
                    )
            try:
                runs[c] = shown.where(shown.notna(), filled.astype(shown.dtype))
            except (TypeError, ValueError):
                runs[c] = shown.astype(object).where(shown.notna(), filled)
        else:
            runs[c] = add[c]
    return runs, notes
