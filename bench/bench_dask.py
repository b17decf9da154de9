"""Per-request logs on pandas and on Dask: wall time and peak memory per process.

Generates ``--files`` ab ``-g`` files of ``--rows`` requests each (default 20
files of 2,000,000 rows, about 84 MB each) and computes, both ways, the
per-run p50/p99 latency and the requests-per-second series
(:mod:`lbanalysis.analysis.requests`):

* pandas: ``lbanalysis.read(files, table="requests")`` in one process;
* Dask: ``engine="dask"`` on a ``distributed.LocalCluster`` of 2 worker
  processes (one thread each).

Each side runs in a fresh process; peak memory is the largest resident set
of any of its processes (the client and, for Dask, each worker). Figures are
printed as ratios against the pandas baseline measured in the same run.
``--files 5,10,20,40`` prints one line per size, to show how the cost grows.

Run: ``python bench/bench_dask.py [--files 20] [--rows 2000000]`` (needs ``lbanalysis[dask]``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HEADER = "starttime\tseconds\tctime\tdtime\tttime\twait\n"


def make_files(folder: Path, files: int, rows: int) -> list[str]:
    """``files`` -g files of ``rows`` requests: 60 s of starts, times 0-80 ms, in ab's (total-time) order."""
    rng = np.random.default_rng(0)
    paths = []
    for i in range(files):
        p = folder / f"run-{i:02d}.tsv"
        if not p.exists():
            secs = 1_795_352_000 + i * 100 + np.sort(rng.integers(0, 60, rows))
            ms = rng.integers(0, 80, rows)
            order = np.argsort(ms, kind="stable")
            s, t = secs[order], ms[order]
            with open(p, "w") as fh:
                fh.write(HEADER)
                for a in range(0, rows, 500_000):
                    fh.writelines(
                        f"Sun Nov 22 12:53:44 2026\t{x}\t0\t{y}\t{y}\t{y}\n"
                        for x, y in zip(s[a : a + 500_000], t[a : a + 500_000], strict=True)
                    )
        paths.append(str(p))
    return paths


_PANDAS = """
import json, resource, sys, time
import lbanalysis
from lbanalysis.analysis.requests import latency_percentiles, per_second
t = time.perf_counter()
req = lbanalysis.read(sys.argv[1:], table="requests")
p = latency_percentiles(req, [50, 99]); s = per_second(req)
print(json.dumps({"s": time.perf_counter() - t, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "p99": float(p[p.percentile == 99].latency_s.mean()), "bins": len(s)}))
"""

_DASK = """
import json, resource, sys, time
import distributed
import lbanalysis
from lbanalysis.analysis.requests import latency_percentiles, per_second
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                              memory_limit="4GiB") as cluster, distributed.Client(cluster) as client:
    t = time.perf_counter()
    req = lbanalysis.read(sys.argv[1:], table="requests", engine="dask")
    p = latency_percentiles(req, [50, 99]); s = per_second(req)
    took = time.perf_counter() - t
    workers = max(client.run(rss).values())
print(json.dumps({"s": took, "peak_mib": max(workers, rss()), "p99": float(p[p.percentile == 99].latency_s.mean()),
                  "bins": len(s)}))
"""


def run(code: str, files: list[str]) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *files], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", default="20", help="number of files, or a list: 5,10,20,40")
    ap.add_argument("--rows", type=int, default=2_000_000, help="requests per file")
    ap.add_argument("--dir", help="folder for the generated files (default: a temporary one, kept between sizes)")
    ap.add_argument("--pandas-max-rows", type=int, default=40_000_000,
                    help="above this many rows the pandas side is not run (it needs about 260 bytes a row)")  # fmt: skip
    args = ap.parse_args()
    sizes = [int(x) for x in args.files.split(",")]
    folder = Path(args.dir or tempfile.mkdtemp(prefix="lbbench-dask-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{args.rows:,} requests per file; pandas in one process, Dask on 2 worker processes")
    print(
        f"{'files':>5} {'rows':>12} {'pandas s':>9} {'dask s':>8} {'time ratio':>10} {'pandas MiB':>10} {'dask MiB':>9} {'memory ratio':>12}"
    )
    for n in sizes:
        files = make_files(folder, n, args.rows)
        t0 = time.perf_counter()
        b = run(_DASK, files)
        if n * args.rows > args.pandas_max_rows:
            print(f"{n:>5} {n * args.rows:>12,} {'-':>9} {b['s']:>8.1f} {'-':>10} {'-':>10} {b['peak_mib']:>9.0f} "
                  f"{'-':>12}   (pandas not run: about {n * args.rows * 260 / 2**30:.0f} GiB)")  # fmt: skip
            continue
        a = run(_PANDAS, files)
        assert abs(a["p99"] - b["p99"]) < 1e-12 and a["bins"] == b["bins"], (a, b)  # the same numbers
        print(f"{n:>5} {n * args.rows:>12,} {a['s']:>9.1f} {b['s']:>8.1f} {b['s'] / a['s']:>9.2f}x "
              f"{a['peak_mib']:>10.0f} {b['peak_mib']:>9.0f} {b['peak_mib'] / a['peak_mib']:>11.2f}x"
              f"   ({time.perf_counter() - t0:.0f} s)")  # fmt: skip


if __name__ == "__main__":
    main()
