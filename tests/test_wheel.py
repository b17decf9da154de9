"""The package as a user installs it: a wheel, in a fresh virtual environment, outside the checkout.

The wheel is built from this checkout and installed with ``--no-deps`` into a
new virtual environment in a temporary folder; its dependencies come from the
test environment's site-packages, added after the new environment's own (so
``lbanalysis`` is the wheel's copy, and nothing of the checkout is on the
path: no ``articles`` package, no notebooks folder). The commands then run
from a folder that is not a checkout.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("wheel"),
]  # one build at a time: setuptools writes build/ in the checkout


def _run(cmd: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LBANALYSIS_ROOT", "VIRTUAL_ENV")}
    # the new environment's own kernel first; nbconvert's templates came with the dependencies,
    # in this environment's share/jupyter (after it, so its kernel is not the one found)
    venv = Path(cmd[0]).parent.parent if "venv" in cmd[0] else None
    own = [str(venv / "share" / "jupyter")] if venv is not None else []
    env["JUPYTER_PATH"] = os.pathsep.join([*own, str(Path(sys.prefix) / "share" / "jupyter")])
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    # build from a copy of what the wheel is made of: setuptools writes build/ into the source folder
    src = tmp / "src"
    shutil.copytree(ROOT / "lbanalysis", src / "lbanalysis", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(src)],
        tmp,
    )
    wheel = next(dist.glob("lbanalysis-*.whl"))
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp)
    py = venv / "bin" / "python"
    purelib = Path(
        _run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp).stdout.strip()
    )
    # the dependencies: this environment's site-packages, after the new environment's own
    deps = [p for p in {*site.getsitepackages(), sysconfig.get_paths()["purelib"]} if Path(p).is_dir()]
    (purelib / "zz-test-dependencies.pth").write_text("\n".join(deps) + "\n")
    _run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(purelib), str(wheel)], tmp)
    _run([str(py), "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3"], tmp)
    work = tmp / "elsewhere"
    work.mkdir()
    return wheel, py


def test_wheel_holds_the_library_and_the_explore_notebook_but_no_article(installed):
    wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert "lbanalysis/report/notebooks/explore.ipynb" in names
    assert "lbanalysis/registry.py" in names
    assert not [n for n in names if n.startswith(("articles/", "notebooks/", "data/", "tests/"))]


def test_installed_library_imports_from_the_wheel_without_notebook_machinery(installed):
    _, py = installed
    code = (
        "import sys, lbanalysis\n"
        "print(lbanalysis.__file__)\n"
        "print(sorted(m for m in ('papermill', 'nbconvert', 'jupyterlab', 'matplotlib', 'scipy') if m in sys.modules))\n"
        "import importlib.util; print(importlib.util.find_spec('articles'))"
    )
    out = _run([str(py), "-c", code], py.parent).stdout.splitlines()
    assert str(ROOT) not in out[0] and "site-packages" in out[0]
    assert out[1] == "[]"
    assert out[2] == "None"


def test_installed_commands_read_summary_and_explore_a_folder(installed, tmp_path):
    _, py = installed
    cli = [str(py), "-m", "lbanalysis"]
    logs = FIXTURES / "ab"
    out = _run([*cli, "read", str(logs / "ab_c10.txt"), "-o", "-"], tmp_path).stdout
    assert out.splitlines()[0].startswith("source,run,line,tool")
    summary = _run([*cli, "summary", str(logs / "ab_c1.txt"), str(logs / "ab_c10.txt")], tmp_path).stdout
    assert "ab_c10.txt" in summary
    report = tmp_path / "explore"
    _run([*cli, "explore", str(logs / "ab_c1.txt"), str(logs / "ab_c10.txt"), "-o", str(report)], tmp_path)
    assert "<html" in (report / "explore.html").read_text()


def test_deprecated_shims_import_from_the_wheel_and_say_where_article_names_went(installed):
    """lbanalysis.paths and lbanalysis.reference import from an installed package (with their warning);
    the library's names work, and a name that moved to the checkout's articles package says so."""
    _, py = installed
    code = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    import lbanalysis.paths as paths, lbanalysis.reference as reference\n"
        "print(sorted({str(x.category.__name__) for x in w}))\n"
        "from lbanalysis.analysis.comparison import ratio_table\n"
        "print(reference.ratio_table is ratio_table, callable(reference.fit_table))\n"
        "for module, name in ((paths, 'ROOT'), (reference, 'read_reference')):\n"
        "    try:\n"
        "        getattr(module, name)\n"
        "    except AttributeError as e:\n"
        "        print('articles.' in str(e) and 'checkout' in str(e))\n"
    )
    out = _run([str(py), "-c", code], py.parent).stdout.splitlines()
    assert out == ["['DeprecationWarning']", "True True", "True", "True"]
