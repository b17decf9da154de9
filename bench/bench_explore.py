"""How long explore takes on a folder of about 250 mixed outputs, against explore on an empty folder.

The baseline, measured in the same run: the explore notebook executed and
exported over an empty folder (the kernel, the imports, every section saying
it has nothing to show, the HTML page): the floor no explore report goes
below. The measured side is the same notebook over some 250 outputs of every
kind, read in place from the test fixtures and the public corpus (a list of
folders, nothing copied). Both run as whole processes, alternately, and each
keeps its best of ``--rounds`` (the machines are noisy); the figures to read
are the ratio (target, issue #24: at most 2x) and the page's size before
images (target: under 600 KB).

Run: ``make bench`` (or ``.venv/bin/python bench/bench_explore.py``).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CORPUS = Path(os.environ.get("LBANALYSIS_CORPUS", ROOT.parent / "shared" / "corpus"))
#: Folders read in place: every kind of output (HTTP load tools, iperf, HAProxy statistics, published outputs).
MIXED = ["ab", "siege", "haproxy", "iperf3", "wrk", "hey", "gobench"]
IMAGE = re.compile(r"data:image/[a-z]+;base64,[A-Za-z0-9+/=]+")


def mixed_paths() -> list[str]:
    """The fixture folders and, where present, the public corpus folders."""
    paths = [str(FIXTURES / name) for name in MIXED]
    paths += [str(p) for p in sorted(CORPUS.glob("public*")) if p.is_dir()]
    return paths


def _count(paths: list[str]) -> int:
    return sum(1 for p in paths for f in Path(p).rglob("*") if f.is_file())


def _time(logs: list[str] | str, out: Path) -> float:
    code = (
        "import sys, json\nfrom lbanalysis import report\n"
        "report.run_notebook(report.EXPLORE_NOTEBOOK, {'logs': json.loads(sys.argv[1])}, sys.argv[2], name='explore')\n"
    )
    import json

    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, json.dumps(logs), str(out)], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    paths = mixed_paths()
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        (folder / "empty").mkdir()
        base, ours = [], []
        for i in range(args.rounds):
            base.append(_time(str(folder / "empty"), folder / f"empty-{i}"))
            ours.append(_time(paths, folder / f"mixed-{i}"))
        page = (folder / "mixed-0" / "explore.html").read_text(encoding="utf-8")
    text = IMAGE.sub("", page)
    b, o = min(base), min(ours)
    print(f"explore over {_count(paths)} files in {len(paths)} folders against explore over an empty folder")
    print(f"  empty folder   best {b:6.1f} s   (all: {', '.join(f'{x:.1f}' for x in base)})")
    print(f"  mixed folders  best {o:6.1f} s   (all: {', '.join(f'{x:.1f}' for x in ours)})")
    fast, small = o / b <= 2, len(text) < 600_000
    print(f"  ratio          {o / b:6.2f}x   (target: at most 2x) {'OK' if fast else 'MISSED'}")
    print(f"  page           {len(text) / 1e3:6.0f} KB of HTML before images, {len(page) / 1e3:.0f} KB with them "
          f"(target: under 600 KB before images) {'OK' if small else 'MISSED'}")  # fmt: skip
    return 0 if fast and small else 1


if __name__ == "__main__":
    raise SystemExit(main())
