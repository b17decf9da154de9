"""The memory of the frames a read returns, each buffer counted once (used by ``bench_read`` and ``bench_repos``).

``DataFrame.memory_usage(deep=True)`` counts each column's buffer, but the
columns a reader leaves absent share one NumPy array of NaN (or NaT)
through pandas' copy-on-write (``lbanalysis.schema.absent_columns``): a
million-row ab ``-g`` frame holds ten such columns, 76 MiB that
``memory_usage`` counts and memory does not hold. A peak against that
count would look better than it is.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd


def frames_mib(frames: Iterable[pd.DataFrame]) -> float:
    """Memory of the frames, MiB: each column's ``memory_usage(deep=True)``, a NumPy buffer that several columns
    share counted once.

    >>> import numpy as np
    >>> nan = pd.Series(np.full(2**17, np.nan))
    >>> df = pd.DataFrame({"a": nan, "b": nan}, copy=False)
    >>> round(frames_mib([df]), 2), round(float(df.memory_usage(deep=True).sum()) / 2**20, 2)
    (1.0, 2.0)
    """
    total, seen = 0, set()
    for frame in frames:
        for name, size in frame.memory_usage(deep=True, index=False).items():
            data = getattr(frame[name].array, "_ndarray", None)  # a NumPy-backed column: its buffer
            key = (data.__array_interface__["data"][0], data.nbytes) if data is not None and data.size else None
            if key is None or key not in seen:
                total += size
            if key is not None:
                seen.add(key)
        total += frame.index.memory_usage(deep=True)
    return total / 2**20
