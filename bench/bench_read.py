"""Speed and memory of lbanalysis.read(), as ratios against baselines measured in the same run.

Run with ``make bench`` (or ``python bench/bench_read.py [--rows N] [--files N]``).

1. A 1,000,000-row ``ab -g`` file: ``lbanalysis.read(path, table="requests")``
   against a bare ``pandas.read_csv(path, sep="\\t")`` of the same file,
   with a thread pool kept open across reads (``executor=pool``, the fast
   path for many large files) and without (threads started per file).
   Target: speed ratio (bare time / our time) >= 0.8 with the kept pool;
   the ratio without it is printed beside it.
2. 10,000 ab summary files (copies of real captures in tests/fixtures/ab):
   ``lbanalysis.read(folder)`` on one worker. Target: >= 5,000 files/s. The
   baseline is a bare loop that opens and reads the same files, so the
   machine's file-system speed is visible next to ours.
3. Peak Python memory (tracemalloc) of both reads of the ab -g file.

Machines are noisy: each timing is the best of ``--repeat`` runs, and the
two sides of each ratio run alternately so that drift hits both alike.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import lbanalysis  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "ab"
SUMMARIES = ["ab_c1.txt", "ab_c10.txt", "ab_keepalive.txt", "ab_post_json.txt", "ab_https_haproxy.txt"]


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def best_pair(a, b, repeat: int) -> tuple[float, float]:
    """Best times of ``a`` and ``b`` run alternately, so both see the same machine.

    On a shared machine speed drifts by tens of percent within a minute; timing
    one function after the other would fold that drift into the ratio.
    """
    ta, tb = [], []
    for _ in range(repeat):
        for fn, times in ((a, ta), (b, tb)):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return min(ta), min(tb)


def peak_mib(fn) -> float:
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def make_gnuplot(path: Path, rows: int, seed: int = 0) -> None:
    """Write an ab -g file shaped like a real capture (sorted by total time, as ab does)."""
    rng = np.random.default_rng(seed)
    start = 1_795_351_822 + np.sort(rng.integers(0, 60, rows))
    ctime = rng.integers(0, 3, rows)
    dtime = rng.gamma(2.0, 2.0, rows).astype(int)
    ttime = ctime + dtime
    wait = np.maximum(dtime - 1, 0)
    order = np.argsort(ttime, kind="stable")
    stamp = pd.to_datetime(start, unit="s").strftime("%a %b %d %H:%M:%S %Y")
    df = pd.DataFrame(
        {
            "starttime": np.asarray(stamp)[order],
            "seconds": start[order],
            "ctime": ctime[order],
            "dtime": dtime[order],
            "ttime": ttime[order],
            "wait": wait[order],
        }
    )
    df.to_csv(path, sep="\t", index=False)


def bench_gnuplot(tmp: Path, rows: int, repeat: int) -> dict:
    path = tmp / "ab-g.tsv"
    make_gnuplot(path, rows)
    with ThreadPoolExecutor(max(1, min(8, os.cpu_count() or 1))) as pool:
        bare, kept = best_pair(
            lambda: pd.read_csv(path, sep="\t"), lambda: lbanalysis.read(path, table="requests", executor=pool), repeat
        )
        got = lbanalysis.read(path, table="requests", executor=pool)
    bare2, fresh = best_pair(
        lambda: pd.read_csv(path, sep="\t"), lambda: lbanalysis.read(path, table="requests"), repeat
    )
    assert len(got) == rows and got["start"].is_monotonic_increasing
    assert got.equals(lbanalysis.read(path, table="requests"))
    return {
        "rows": rows,
        "file_mib": path.stat().st_size / 2**20,
        "bare_read_csv_s": bare,
        "lbanalysis_s": kept,
        "speed_ratio": bare / kept,
        "bare_read_csv_s_2": bare2,
        "lbanalysis_fresh_threads_s": fresh,
        "speed_ratio_fresh_threads": bare2 / fresh,
        "bare_peak_mib": peak_mib(lambda: pd.read_csv(path, sep="\t")),
        "lbanalysis_peak_mib": peak_mib(lambda: lbanalysis.read(path, table="requests")),
    }


def bench_summaries(tmp: Path, files: int, repeat: int) -> dict:
    folder = tmp / "summaries"
    folder.mkdir()
    srcs = [FIXTURES / n for n in SUMMARIES]
    for i in range(files):
        shutil.copy(srcs[i % len(srcs)], folder / f"run-{i:05d}.txt")
    paths = sorted(folder.iterdir())

    def bare() -> None:
        for p in paths:
            with open(p, "rb") as fh:
                fh.read()

    t_bare, t_ours = best_pair(bare, lambda: lbanalysis.read(folder, workers=1), repeat)
    runs = lbanalysis.read(folder, workers=1)
    assert len(runs) == files and runs["requests_per_s"].notna().all()
    return {
        "files": files,
        "bare_open_read_files_per_s": files / t_bare,
        "lbanalysis_files_per_s": files / t_ours,
        "ratio_to_bare_io": t_bare / t_ours,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        g = bench_gnuplot(tmp, args.rows, args.repeat)
        s = bench_summaries(tmp, args.files, args.repeat)
    cpu = best(lambda: sum(range(1_000_000)), 5)
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, pandas {pd.__version__}")
    print(f"CPU check: sum(range(10**6)) in {cpu * 1e3:.1f} ms (scale the absolute figures by it)")
    print(f"\n1. ab -g file, {g['rows']:,} rows ({g['file_mib']:.1f} MiB)")
    print(f"   bare pandas.read_csv : {g['bare_read_csv_s']:.3f} s  (peak {g['bare_peak_mib']:.0f} MiB)")
    print(f"   lbanalysis.read      : {g['lbanalysis_s']:.3f} s  (kept pool; peak {g['lbanalysis_peak_mib']:.0f} MiB)")
    ok1 = g["speed_ratio"] >= 0.8
    print(
        f"   speed ratio          : {g['speed_ratio']:.2f}x of bare read_csv, kept pool (target >= 0.8) "
        f"{'OK' if ok1 else 'MISSED'}"
    )
    print(
        f"   without the pool     : {g['lbanalysis_fresh_threads_s']:.3f} s against {g['bare_read_csv_s_2']:.3f} s, "
        f"{g['speed_ratio_fresh_threads']:.2f}x (threads started per file)"
    )
    print(f"\n2. {s['files']:,} ab summary files, one worker")
    print(f"   bare open+read       : {s['bare_open_read_files_per_s']:,.0f} files/s")
    ok2 = s["lbanalysis_files_per_s"] >= 5000
    print(
        f"   lbanalysis.read      : {s['lbanalysis_files_per_s']:,.0f} files/s (target >= 5,000) {'OK' if ok2 else 'MISSED'}"
    )
    print(f"   ratio to bare I/O    : {s['ratio_to_bare_io']:.3f}")
    return 0 if ok1 and ok2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
