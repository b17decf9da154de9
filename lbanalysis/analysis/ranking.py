"""Setups compared where they ran at one load: a ranking per workload.

The commonest published benchmark runs several servers (frameworks, load balancers) at one load and ranks them.
:func:`ranking` takes a study's runs (each with its ``workload``, ``setup`` and the load it ran at) and, for each
workload and load that two or more setups share, orders the setups by mean requests/s, with the 95 % interval of
each mean from its repeats (bootstrap; "too few runs to tell" below three), the mean latency beside it, whether
each differs from the next beyond run-to-run noise (:func:`~lbanalysis.analysis.comparison.compare`), and a
caveat where the evidence has one (errors, client and server on one host).

>>> import pandas as pd
>>> runs = pd.DataFrame({"workload": "wrk h/", "setup": ["nginx"] * 3 + ["haproxy"] * 3, "concurrency": 100,
...     "requests_per_s": [9585.0, 9637, 9611, 14825, 15754, 15290], "latency_mean_s": 0.01, "used": True,
...     "host": "10.0.0.2"})
>>> r = ranking(runs)
>>> r[["setup", "rank", "runs", "differs_from_next"]].values.tolist()
[['haproxy', 1, 3, 'yes'], ['nginx', 2, 3, '']]
>>> round(r.loc[0, "lower"]), round(r.loc[0, "upper"])
(14825, 15754)
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pandas as pd

from ..schema.design import RANKING
from .comparison import MIN_RUNS, compare
from .series import as_floats

__all__ = ["LOCAL_HOSTS", "ranking"]

#: The columns a ranking reads: the runs are cut to these first (cutting the whole runs table, 180 columns in 100
#: blocks, per setup and pair was most of a ranking's time).
READ = ("workload", "setup", "requests_per_s", "latency_used_s", "latency_mean_s", "error_share", "host",
        "rate_target_per_s", "concurrency", "used", "axis")  # fmt: skip

#: Targets on the client's own machine: the client and the server shared its CPUs.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0", "ip6-localhost", "ip6-loopback")


def _load_of(g: pd.DataFrame) -> tuple[str, pd.Series]:
    """The load column the runs vary (the rate for a fixed-rate tool), and its values."""
    rate = as_floats(g, "rate_target_per_s")
    if rate.notna().all() and len(rate):
        return "rate", rate
    return "concurrency", as_floats(g, "concurrency")


def _interval(values: np.ndarray, n_boot: int, rng: np.random.Generator) -> tuple[float, float]:
    if len(values) < MIN_RUNS:
        return np.nan, np.nan
    means = values[rng.integers(0, len(values), size=(n_boot, len(values)))].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


def _note(g: pd.DataFrame) -> str:
    """The caveats of one setup's runs: too few runs, errors, the client on the server's host."""
    notes = []
    if len(g) < MIN_RUNS:
        notes.append(f"too few runs to tell ({len(g)}; an interval needs {MIN_RUNS})")
    share = as_floats(g, "error_share").max()
    if pd.notna(share) and share > 0.01:
        notes.append(f"{share:.1%} of attempts failed or were not 2xx")
    if "host" in g and g["host"].astype(str).str.lower().isin(LOCAL_HOSTS).any():
        notes.append("the client ran on the same host: its CPU taken from the server's is not ruled out")
    return "; ".join(notes)


def ranking(runs: pd.DataFrame, *, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """One row per setup, workload and load that two or more setups share (columns: :data:`~lbanalysis.schema.
    design.RANKING`), best first within each."""
    cols = list(RANKING)
    need = {"workload", "setup", "requests_per_s"}
    if not len(runs) or not need <= set(runs.columns):
        return pd.DataFrame(columns=cols)
    data = runs[[c for c in READ if c in runs]]
    if "used" in data:
        data = data[data["used"].astype("boolean").fillna(False).to_numpy(bool)]
    if "axis" in data:
        data = data[data["axis"].fillna("").eq("").to_numpy(bool)]
    data = data[
        data["setup"].fillna("").ne("").to_numpy(bool) & as_floats(data, "requests_per_s").notna().to_numpy(bool)
    ]
    rng = np.random.default_rng(seed)
    rows: list[dict] = []
    for workload, w in data.groupby("workload", sort=True):
        kind, load = _load_of(w)
        for value, g in w.groupby(load.fillna(-1.0), sort=True):
            if g["setup"].nunique() < 2:
                continue
            rows += _rank_one(str(workload), f"{kind} {value:,.10g}" if value >= 0 else "load not shown", g, n_boot,
                              rng)  # fmt: skip
    out = pd.DataFrame(rows, columns=cols)
    return out.astype({"rank": "Int64", "runs": "Int64"}) if len(out) else out


def _rank_one(workload: str, load: str, g: pd.DataFrame, n_boot: int, rng: np.random.Generator) -> list[dict]:
    """The ranked rows of the setups of one workload at one load."""
    y = as_floats(g, "requests_per_s")
    lat = as_floats(g, "latency_used_s") if "latency_used_s" in g else as_floats(g, "latency_mean_s")
    lat = lat.fillna(as_floats(g, "latency_mean_s"))
    order = y.groupby(g["setup"]).mean().sort_values(ascending=False)
    rows = []
    for rank, (setup, mean) in enumerate(order.items(), 1):
        mine = g[g["setup"] == setup]
        lo, hi = _interval(y[mine.index].to_numpy(float), n_boot, rng)
        rows.append({"workload": workload, "load": load, "setup": setup, "rank": rank, "runs": len(mine),
                     "requests_per_s": float(mean), "lower": lo, "upper": hi,
                     "latency_mean_s": float(lat[mine.index].mean()) if lat[mine.index].notna().any() else np.nan,
                     "error_share": as_floats(mine, "error_share").mean(), "note": _note(mine),
                     "differs_from_next": ""})  # fmt: skip
    for a, b in pairwise(rows):
        pair = g[g["setup"].isin([a["setup"], b["setup"]])].assign(_y=y)
        res = compare(pair, by="setup", a=b["setup"], b=a["setup"], y="_y", n_boot=n_boot, seed=int(rng.integers(1e9)))
        sig = res.loc["overall", "significant"]
        a["differs_from_next"] = "too few runs to tell" if pd.isna(sig) else ("yes" if sig else "no")
    return rows
