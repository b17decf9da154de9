"""How long building the five article reports takes, against papermill's floor.

The baseline, measured in the same run: papermill executes five notebooks
that only import the libraries the reports import (pandas, matplotlib,
lbanalysis, its analysis and plots, the articles package) and draw one
chart: the cost of five kernels and their imports, below which no report
can go. The measured side is ``lbanalysis report --all`` (execute and export
HTML, write the index). Both run as whole processes, alternately, and each
keeps its best of ``--rounds`` (the machines are noisy); the figure to read
is the ratio. The target (issue #13): at most 3x.

Run: ``make bench`` (or ``.venv/bin/python bench/bench_reports.py``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
IMPORTS = (
    "import pandas as pd\nimport matplotlib.pyplot as plt\nimport lbanalysis\n"
    "from lbanalysis import analysis, plots\nimport articles"
)
CHART = "fig, ax = plt.subplots()\nax.plot([1, 2, 3], [1, 4, 9])\nplt.show()"


def _baseline_script(folder: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(IMPORTS), nbformat.v4.new_code_cell(CHART)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / "floor.ipynb"
    nbformat.write(nb, path)
    script = folder / "floor.py"
    script.write_text(
        "import papermill\n"
        f"for i in range(5):\n"
        f"    papermill.execute_notebook({str(path)!r}, {str(folder)!r} + f'/out{{i}}.ipynb', progress_bar=False,\n"
        "                               log_output=False, kernel_name='python3',\n"
        "                               extra_arguments=['--IPKernelApp.log_level=CRITICAL'])\n"
    )
    return script


def _time(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        floor = [sys.executable, str(_baseline_script(folder))]
        reports = [sys.executable, "-m", "lbanalysis", "report", "--all", "-o", str(folder / "reports")]
        base, ours = [], []
        for _ in range(args.rounds):
            base.append(_time(floor))
            ours.append(_time(reports))
    b, o = min(base), min(ours)
    print("five article reports (execute + HTML + index) against papermill running five import-and-chart notebooks")
    print(f"  papermill floor    best {b:6.1f} s   (all: {', '.join(f'{x:.1f}' for x in base)})")
    print(f"  lbanalysis report  best {o:6.1f} s   (all: {', '.join(f'{x:.1f}' for x in ours)})")
    ok = o / b <= 3
    print(f"  ratio              {o / b:6.2f}x   (target: at most 3x) {'OK' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
