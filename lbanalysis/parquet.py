"""Convert once, read fast: a table as a partitioned Parquet dataset, and back.

:func:`write_dataset` writes a table (pandas or Dask) to a folder of Parquet
files partitioned by ``source`` and ``run`` (hive layout,
``source=.../run=0/part-0.parquet``), with ``_lbanalysis.json`` at its root
holding the table's name and each column's dtype and unit from the schema.
:func:`read_dataset` (and ``lbanalysis.read`` of such a folder) gives the
same frame back, on pandas or on Dask.

>>> import pandas as pd, tempfile
>>> df = pd.DataFrame({"source": ["a.tsv"] * 3, "run": 0, "seq": [0, 1, 2], "latency_s": [0.1, 0.2, 0.3]})
>>> folder = tempfile.mkdtemp()
>>> _ = write_dataset(df, folder, "requests")
>>> back = read_dataset(folder)
>>> back["latency_s"].tolist(), str(back["source"].dtype), str(back["seq"].dtype)
([0.1, 0.2, 0.3], 'category', 'Int64')
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from . import schema
from .dask_engine import is_dask
from .errors import LBAnalysisError

__all__ = ["MARKER", "is_dataset", "read_dataset", "write_dataset"]

#: The file at the root of a dataset written here: table name, columns, dtypes and units.
MARKER = "_lbanalysis.json"
_PARTITIONS = ["source", "run"]


def is_dataset(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a folder written by :func:`write_dataset`."""
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, MARKER))


def write_dataset(df: Any, folder: str | os.PathLike, table: str = "requests") -> Path:
    """Write ``df`` (pandas or Dask) as a Parquet dataset partitioned by source and run; returns the folder."""
    if table not in schema.TABLES:
        raise LBAnalysisError(f"unknown table {table!r}")
    out = Path(folder)
    if out.exists() and any(out.iterdir()):
        raise LBAnalysisError(f"{out}: the folder is not empty; give a new or empty folder for the dataset")
    out.mkdir(parents=True, exist_ok=True)
    meta = {
        "table": table,
        "partitioned_by": _PARTITIONS,
        "columns": {name: {"dtype": c.dtype, "unit": c.unit} for name, c in schema.TABLES[table].items()},
    }
    df = df.assign(source=df["source"].astype(str), run=df["run"].astype("int64"))
    if is_dask(df):
        df.to_parquet(str(out), partition_on=_PARTITIONS, write_index=False, write_metadata_file=False)
    else:
        df.to_parquet(str(out), partition_cols=_PARTITIONS, index=False)
    (out / MARKER).write_text(json.dumps(meta, indent=1) + "\n")
    return out


def _conform(df: pd.DataFrame, table: str) -> pd.DataFrame:
    """Back to the schema's dtypes; ``source`` categorical in file order, rows by (source, run, seq)."""
    df = df.assign(source=df["source"].astype(str), run=df["run"].astype("int64"))
    keys = [k for k in ("source", "run", "seq") if k in df.columns]
    df = df.sort_values(keys, kind="stable").reset_index(drop=True)
    sources = list(dict.fromkeys(df["source"]))
    out = schema.conform(df, table)
    out["source"] = pd.Categorical(df["source"], categories=sources)
    return out


def read_dataset(folder: str | os.PathLike, *, engine: str = "pandas", table: str | None = None) -> Any:
    """A dataset written by :func:`write_dataset`, as the table it holds (pandas, or ``engine="dask"``)."""
    if not is_dataset(folder):
        raise LBAnalysisError(f"{folder}: not a dataset written by lbanalysis (no {MARKER})")
    meta = json.loads(Path(folder, MARKER).read_text())
    held = meta.get("table", "requests")
    if (table is not None and table not in (held, "runs")) or (table == "runs" and held != "runs"):
        raise LBAnalysisError(f"{folder}: this dataset holds the {held} table; read it with table={held!r}")
    table = held
    if engine == "dask":
        import dask.dataframe as dd

        ddf = dd.read_parquet(str(folder), dataset={"partitioning": "hive"})
        sample = _conform(ddf._meta.assign(source=pd.Series(dtype=str), run=pd.Series(dtype="int64")), table)
        return ddf.map_partitions(
            lambda p: schema.conform(p.assign(source=p["source"].astype(str)), table), meta=sample
        )
    df = pd.read_parquet(str(folder))
    return _conform(df, table)
