"""Settings named by lines between the runs of a file (``podnum=4`` before a wrk run), as columns of the runs.

A transcript that sweeps a setting often says its value on a line of its own before each run. Each run gets
the last value of each key said before its output starts and after the output of the run before it began
(a value said before the first run holds until the file says another).

>>> import pandas as pd, tempfile, os
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "lb.log")
>>> _ = open(p, "w").write("podnum=1\\nwrk -c8 http://h/\\nout\\npodnum=2\\nwrk -c8 http://h/\\nout\\n")
>>> runs = pd.DataFrame({"source": [p, p], "line": [3, 6], "format": "wrk"})
>>> with_sections(runs, pd.Series([p, p]))[0]["podnum"].tolist()
[1.0, 2.0]
"""

from __future__ import annotations

import pandas as pd

from .tokens import section_lines

__all__ = ["with_sections"]

#: Formats whose files are whole documents (JSON, CSV, logs of one request per line): no section lines.
_WHOLE = ("json", "csv", "gnuplot", "log", "xml", "typed", "state")


def with_sections(runs: pd.DataFrame, paths: pd.Series) -> tuple[pd.DataFrame, list[str]]:
    """The runs with a column per key that lines of their files name (and those keys); files are read again
    only when they hold a text output (``paths``: each run's file, None for a buffer)."""
    if not len(runs) or "line" not in runs:
        return runs, []
    fmt = runs["format"].astype(str) if "format" in runs else pd.Series("", index=runs.index)
    text_run = ~fmt.str.contains("|".join(_WHOLE), regex=True)
    values: dict[str, dict[int, object]] = {}
    for path, idx in runs.index[text_run.to_numpy(bool)].groupby(paths[text_run].to_numpy()).items():
        if not isinstance(path, str) or not path:
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                found = section_lines(f.read())
        except OSError:
            continue
        if not found:
            continue
        mine = runs.loc[idx, "line"].astype(float).sort_values()
        for i, start in mine.items():
            for ln, key, val in found:
                if ln < start:
                    values.setdefault(key, {})[i] = val
    if not values:
        return runs, []
    runs = runs.copy()
    cols = []
    for key, per in values.items():
        col = key if key not in runs.columns else f"{key} (line)"
        cols.append(col)
        runs[col] = pd.Series(per, dtype=object).reindex(runs.index)
        num = pd.to_numeric(runs[col], errors="coerce")
        if num.notna().sum() == runs[col].notna().sum():
            runs[col] = num
    return runs, cols
