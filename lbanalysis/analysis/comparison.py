"""Comparison of two setups: is B really faster than A, or is it run-to-run noise?

:func:`compare` takes the runs of setup ``a`` and setup ``b`` (values of the
``by`` column), the ratio of their mean ``y`` (B / A), and a percentile
bootstrap interval of that ratio: runs are resampled with replacement within
each setup (and within each load level when ``at=`` is given), ``n_boot``
times, seeded. The difference is "larger than run-to-run noise" when the
interval excludes 1. The overall row, with ``at=``, compares the average
over the load levels both setups ran (stratified bootstrap), so a level run
more often does not weigh more.

No interval, ratio test or planning figure comes from fewer than
``min_runs`` (3) runs a side, at every level the overall row pools: the
verdict then says "too few runs to tell", in words.

>>> import pandas as pd
>>> runs = pd.DataFrame({"servers": ["one"] * 3 + ["two"] * 3,
...                      "requests_per_s": [9585, 9637, 9611, 14825, 15754, 15290]})
>>> res = compare(runs, by="servers", a="one", b="two", n_boot=500)
>>> round(res.loc["overall", "ratio"], 4), res.loc["overall", "significant"]
(1.5909, True)
>>> print(res.loc["overall", "verdict"])
two is 59% higher than one (95% CI +55% to +64%): larger than run-to-run noise
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["MIN_RUNS", "compare", "ratio_table", "runs_needed"]

_COLUMNS = [
    "n_a", "n_b", "mean_a", "mean_b", "ratio", "lower", "upper", "change_pct", "significant", "verdict", "runs_needed"
]  # fmt: skip
#: Fewest runs a side for a bootstrap interval: with two runs a resample has only three possible means
#: and the interval is about half as wide as it should be.
MIN_RUNS = 3
_Z_POWER = 0.8416212335729143  # standard normal quantile of 0.8: 80 % power


def runs_needed(va: np.ndarray, vb: np.ndarray, alpha: float = 0.05, min_runs: int = MIN_RUNS) -> float:
    """Runs a side that would show a difference of means this size at level ``alpha`` with 80 % power.

    From the pooled standard deviation of the runs (``min_runs`` or more a
    side; NaN otherwise: two runs do not estimate a spread, or when the means
    are equal): ``n = 2 (z + z_power)^2 s^2 / d^2``, at least ``min_runs``. An
    estimate from few runs: a planning figure, not a guarantee.

    >>> runs_needed(np.array([100.0, 104.0, 102.0]), np.array([150.0, 151.0, 149.0]))
    3.0
    >>> runs_needed(np.array([100.0, 110.0, 105.0]), np.array([104.0, 112.0, 108.0]))
    36.0
    >>> runs_needed(np.array([100.0, 104.0]), np.array([150.0, 151.0]))
    nan
    """
    if len(va) < max(2, min_runs) or len(vb) < max(2, min_runs):
        return float("nan")
    d = abs(float(vb.mean()) - float(va.mean()))
    var = ((len(va) - 1) * va.var(ddof=1) + (len(vb) - 1) * vb.var(ddof=1)) / (len(va) + len(vb) - 2)
    if d == 0:
        return float("nan")
    z = float(_norm_ppf(1 - alpha / 2))
    return float(max(min_runs, int(np.ceil(2 * (z + _Z_POWER) ** 2 * var / d**2))))


def _norm_ppf(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


def _boot_means(values: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    idx = rng.integers(0, len(values), size=(n_boot, len(values)))
    return values[idx].mean(axis=1)


def _row(
    ma: float,
    mb: float,
    na: int,
    nb: int,
    boot: np.ndarray | None,
    alpha: float,
    a: Any,
    b: Any,
    needed: float = float("nan"),
    min_runs: int = MIN_RUNS,
) -> dict[str, Any]:
    ratio = mb / ma if ma != 0 else np.nan
    row: dict[str, Any] = {"n_a": na, "n_b": nb, "mean_a": ma, "mean_b": mb, "ratio": ratio, "runs_needed": needed}
    row["change_pct"] = (ratio - 1.0) * 100.0
    conf = f"{1 - alpha:.0%}"
    if ma == 0 or not np.isfinite(ratio):
        row.update(lower=np.nan, upper=np.nan, significant=pd.NA, verdict=f"mean of {a} is 0: no ratio")
        return row
    if boot is None:
        row.update(lower=np.nan, upper=np.nan, significant=pd.NA)
        row["verdict"] = _too_few(a, b, na, nb, min_runs)
        return row
    lo, hi = np.nanquantile(boot, [alpha / 2, 1 - alpha / 2])
    significant = bool(lo > 1 or hi < 1)
    row.update(lower=float(lo), upper=float(hi), significant=significant)
    if significant:
        word = "higher" if ratio > 1 else "lower"
        row["verdict"] = (
            f"{b} is {abs(ratio - 1):.0%} {word} than {a} ({conf} CI {lo - 1:+.0%} to {hi - 1:+.0%}): "
            "larger than run-to-run noise"
        )
    else:
        interval = f"{conf} CI {lo:.3f} to {hi:.3f}"
        row["verdict"] = f"no difference beyond run-to-run noise: {b}/{a} = {ratio:.3f} ({interval})"
    return row


def _too_few(a: Any, b: Any, na: int, nb: int, min_runs: int) -> str:
    """The verdict when a side has fewer than ``min_runs`` runs, in words.

    >>> _too_few("one server", "two servers", 2, 1, 3)
    'too few runs to tell (one server: 2 runs, two servers: 1 run; run-to-run noise needs 3 or more a side)'
    """

    def runs(n: int) -> str:
        return f"{n} run{'s' if n != 1 else ''}"

    return f"too few runs to tell ({a}: {runs(na)}, {b}: {runs(nb)}; run-to-run noise needs {min_runs} or more a side)"


def _values(frame: pd.DataFrame, y: str) -> np.ndarray:
    v = pd.to_numeric(frame[y], errors="coerce").astype("Float64").astype(float).to_numpy()
    return v[np.isfinite(v)]


def compare(
    runs: pd.DataFrame,
    by: str,
    a: Any,
    b: Any,
    y: str = "requests_per_s",
    at: str | None = None,
    n_boot: int = 2000,
    seed: int = 0,
    *,
    alpha: float = 0.05,
    min_runs: int = MIN_RUNS,
) -> pd.DataFrame:
    """Ratio of mean ``y`` of setup ``b`` over setup ``a`` with a bootstrap interval.

    One row per load level of ``at`` (when given; levels only one setup ran
    are listed with no ratio) and a final ``"overall"`` row. Columns:
    ``n_a``, ``n_b`` (runs), ``mean_a``, ``mean_b``, ``ratio`` (B/A),
    ``lower``/``upper`` (``1 - alpha`` percentile interval of the ratio),
    ``change_pct``, ``significant`` (interval excludes 1; NA with fewer than
    ``min_runs`` runs on a side: "too few runs to judge"), ``verdict`` in
    plain words and ``runs_needed`` (runs a side that would show a change of
    this size, from the runs' spread: :func:`runs_needed`). The overall row
    pools the levels: it needs ``min_runs`` runs a side at every level.

    >>> import pandas as pd
    >>> runs = pd.DataFrame({"mode": ["ka"] * 6 + ["close"] * 6, "concurrency": [10, 10, 10, 20, 20, 20] * 2,
    ...                      "requests_per_s": [300, 310, 305, 320, 305, 312, 100, 104, 99, 98, 101, 97]})
    >>> res = compare(runs, by="mode", a="ka", b="close", at="concurrency", n_boot=200)
    >>> res[["n_a", "ratio", "significant"]].round(3)  # doctest: +NORMALIZE_WHITESPACE
                 n_a  ratio  significant
    concurrency
    10             3  0.331         True
    20             3  0.316         True
    overall        6  0.323         True
    >>> print(compare(runs[runs["requests_per_s"] != 310], by="mode", a="ka", b="close", at="concurrency",
    ...               n_boot=200).loc[10, "verdict"])
    too few runs to tell (ka: 2 runs, close: 3 runs; run-to-run noise needs 3 or more a side)
    """
    for col in (by, y) + ((at,) if at else ()):
        if col not in runs.columns:
            raise ValueError(f"no column {col!r}; the frame has: {', '.join(map(str, runs.columns))}")
    values = set(runs[by].dropna().unique())
    for name in (a, b):
        if name not in values:
            known = ", ".join(map(str, sorted(values, key=str)))
            raise ValueError(f"no runs with {by} == {name!r}; values are: {known}")
    rng = np.random.default_rng(seed)
    ra, rb = runs[runs[by] == a], runs[runs[by] == b]
    rows, index = [], []
    if at is None:
        rows.append(_compare_all(_values(ra, y), _values(rb, y), n_boot, rng, alpha, a, b, min_runs))
    else:
        per_level, boots = _compare_levels(ra, rb, y, at, n_boot, rng, alpha, a, b, min_runs)
        for level, row in per_level.items():
            index.append(level)
            rows.append(row)
        rows.append(_overall(per_level, boots, alpha, a, b, min_runs))
    index.append("overall")
    out = pd.DataFrame(rows, index=pd.Index(index, name=at), columns=_COLUMNS)
    out["significant"] = out["significant"].astype("boolean")
    out.attrs.update(
        {
            "by": by,
            "a": a,
            "b": b,
            "y": y,
            "at": at,
            "alpha": alpha,
            "n_boot": n_boot,
            "seed": seed,
            "min_runs": min_runs,
        }
    )
    return out


def _compare_all(
    va: np.ndarray, vb: np.ndarray, n_boot: int, rng: np.random.Generator, alpha: float, a, b, min_runs: int
) -> dict:
    if len(va) == 0 or len(vb) == 0:
        return {"n_a": len(va), "n_b": len(vb), "verdict": f"no {'runs of ' + str(a) if len(va) == 0 else b}"}
    boot = None
    if len(va) >= min_runs and len(vb) >= min_runs:
        with np.errstate(divide="ignore", invalid="ignore"):
            boot = _boot_means(vb, n_boot, rng) / _boot_means(va, n_boot, rng)
    needed = runs_needed(va, vb, alpha, min_runs)
    return _row(va.mean(), vb.mean(), len(va), len(vb), boot, alpha, a, b, needed, min_runs)


def _compare_levels(ra, rb, y, at, n_boot, rng, alpha, a, b, min_runs) -> tuple[dict, dict]:
    levels = sorted(set(ra[at].dropna().unique()) | set(rb[at].dropna().unique()))
    rows, boots = {}, {}
    for level in levels:
        va, vb = _values(ra[ra[at] == level], y), _values(rb[rb[at] == level], y)
        if len(va) == 0 or len(vb) == 0:
            who = a if len(va) == 0 else b
            rows[level] = {"n_a": len(va), "n_b": len(vb), "verdict": f"no runs of {who} at {at}={level}"}
            rows[level]["mean_a" if len(va) else "mean_b"] = (va if len(va) else vb).mean()
            continue
        ma, mb = _boot_means(va, n_boot, rng), _boot_means(vb, n_boot, rng)
        boots[level] = (ma, mb, len(va) >= min_runs and len(vb) >= min_runs)
        with np.errstate(divide="ignore", invalid="ignore"):
            boot = mb / ma if len(va) >= min_runs and len(vb) >= min_runs else None
        needed = runs_needed(va, vb, alpha, min_runs)
        rows[level] = _row(va.mean(), vb.mean(), len(va), len(vb), boot, alpha, a, b, needed, min_runs)
    return rows, boots


def _overall(per_level: dict, boots: dict, alpha: float, a: Any, b: Any, min_runs: int = MIN_RUNS) -> dict:
    if not boots:
        return {"verdict": f"{a} and {b} share no load level"}
    common = [per_level[level] for level in boots]
    ma = float(np.mean([r["mean_a"] for r in common]))
    mb = float(np.mean([r["mean_b"] for r in common]))
    boot = None
    total_a, total_b = sum(r["n_a"] for r in common), sum(r["n_b"] for r in common)
    if all(ok for *_, ok in boots.values()):
        sa = np.mean([m for m, _, _ in boots.values()], axis=0)
        sb = np.mean([m for _, m, _ in boots.values()], axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            boot = sb / sa
    row = _row(ma, mb, total_a, total_b, boot, alpha, a, b, min_runs=min_runs)
    short = [level for level, (*_, ok) in boots.items() if not ok]
    if boot is None and np.isfinite(row["ratio"]):
        row["verdict"] = (
            f"too few runs to tell ({len(short)} of {len(boots)} load levels have fewer than {min_runs} runs "
            "on a side; run-to-run noise needs them at every level)"
        )
    return row


def ratio_table(
    frame: pd.DataFrame,
    *,
    y: str = "requests_per_s",
    baseline: Any = None,
    columns: Sequence[str] = (),
) -> pd.DataFrame:
    """Each row's ``y`` and its ratio to the ``baseline`` row (an index label; default the first row).

    Returns ``columns`` (kept as they are), ``y``, ``ratio`` (``y / baseline
    y``) and ``change_pct`` (``(ratio - 1) × 100``), with the frame's index.
    One run per row: this is arithmetic, not a test of noise (use
    :func:`compare` with repeated runs).

    >>> runs = pd.DataFrame({"test": [27, 28, 29], "requests_per_s": [28130.55, 28542.19, 28359.73]}).set_index("test")
    >>> ratio_table(runs)["ratio"].round(4).tolist()
    [1.0, 1.0146, 1.0081]
    >>> ratio_table(runs, baseline=28)["change_pct"].round(2).tolist()
    [-1.44, 0.0, -0.64]
    """
    if y not in frame.columns:
        raise ValueError(f"no column {y!r}; the frame has: {', '.join(map(str, frame.columns))}")
    if frame.empty:
        raise ValueError("ratio_table: empty frame, no baseline")
    values = pd.to_numeric(frame[y], errors="coerce").astype(float)
    if baseline is None:
        base = values.iloc[0]
    elif baseline in frame.index:
        base = values.loc[baseline]
    else:
        raise KeyError(f"no row {baseline!r} to use as baseline; rows are: {', '.join(map(str, frame.index))}")
    out = frame[list(columns)].copy()
    out[y] = values
    out["ratio"] = values / base
    out["change_pct"] = (out["ratio"] - 1.0) * 100.0
    return out
