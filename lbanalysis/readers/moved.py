"""Old reader module paths, kept working with a :class:`DeprecationWarning` (readers are grouped by tool since 0.x).

The reader modules sat side by side in ``lbanalysis/readers/`` until they
were grouped in one folder per tool (``readers/k6/json.py`` was
``readers/k6_json.py``). :data:`MOVED` is the one table of the old names;
:class:`MovedFinder`, installed by ``lbanalysis.readers``, answers an import
of ``lbanalysis.readers.<old name>`` with the module at its new path (the same
object), warning once. An old name that is now a tool's folder
(``lbanalysis.readers.ab``) keeps its attributes through :func:`forward`.

>>> import warnings
>>> _ = sys.modules.pop("lbanalysis.readers.k6_json", None)  # as in a fresh process (a test may have imported it)
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     k6_json = importlib.import_module("lbanalysis.readers.k6_json")
>>> k6_json.__name__, str(caught[0].message)
('lbanalysis.readers.k6.json', 'lbanalysis.readers.k6_json moved to lbanalysis.readers.k6.json')
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

PACKAGE = "lbanalysis.readers"

# old module (lbanalysis.readers.<old>) -> its new path under lbanalysis.readers
MOVED: dict[str, str] = {
    "ab_csv": "ab.csv",
    "ab_gnuplot": "ab.gnuplot",
    "siege_json": "siege.json",
    "siege_log": "siege.log",
    "siege_fields": "siege.fields",
    "hey_csv": "hey.csv",
    "k6_json": "k6.json",
    "k6_points": "k6.points",
    "locust_csv": "locust.csv",
    "locust_json": "locust.json",
    "haproxy_stat": "haproxy.stat",
    "haproxy_info": "haproxy.info",
    "iperf2": "iperf.iperf2",
    "iperf2_csv": "iperf.iperf2_csv",
    "iperf3": "iperf.iperf3",
    "iperf3_json": "iperf.iperf3_json",
    "_iperf": "iperf.shared",
    "vegeta_csv": "vegeta.csv",
    "vegeta_json": "vegeta.json",
    "_vegeta": "vegeta.shared",
    "gatling_log": "gatling.log",
    "_gatling": "gatling.shared",
    "oha_json": "oha.json",
    "bombardier_json": "bombardier.json",
    "jmeter_csv": "jmeter.csv",
    "jmeter_xml": "jmeter.xml",
    "jmeter_json": "jmeter.json",
    "_jmeter": "jmeter.shared",
    "gnu_time": "cpu.gnu_time",
    "vmstat": "cpu.vmstat",
    "mpstat": "cpu.mpstat",
    "sar": "cpu.sar",
    "iostat": "cpu.iostat",
    "pidstat": "cpu.pidstat",
    "dstat": "cpu.dstat",
    "top": "cpu.top",
    "cpu_csv": "cpu.capture_csv",
    "_cpu": "cpu.shared",
    "_sysstat": "cpu.sysstat",
}


def _warn(old: str, new: str) -> None:
    warnings.warn(f"{old} moved to {new}", DeprecationWarning, stacklevel=3)


class _Alias(importlib.abc.Loader):
    """Loads an old name as the module at its new path (the same object)."""

    def __init__(self, new: str) -> None:
        self.new = new
        self.spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        _warn(spec.name, self.new)
        module = importlib.import_module(self.new)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at the new path is loaded; it keeps its own spec."""
        module.__spec__ = self.spec  # the import system set the old name's


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds ``lbanalysis.readers.<old name>`` of :data:`MOVED`, and nothing else.

    >>> MovedFinder().find_spec("lbanalysis.readers.k6_points").loader.new
    'lbanalysis.readers.k6.points'
    >>> MovedFinder().find_spec("lbanalysis.readers.k6") is None
    True
    """

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        package, _, old = fullname.rpartition(".")
        if package != PACKAGE or old not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(f"{PACKAGE}.{MOVED[old]}"))


def install() -> None:
    """Put :class:`MovedFinder` on ``sys.meta_path`` (once).

    >>> install(); sum(isinstance(f, MovedFinder) for f in sys.meta_path)
    1
    """
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedFinder())


def forward(package: str, module: str) -> Callable[[str], Any]:
    """A tool folder's ``__getattr__``: what the old module of the same name held, from ``module``, with a warning.

    ``lbanalysis.readers.ab`` was ab's text reader and is now the folder of
    ab's readers: ``ab.parse_command`` still resolves (to
    ``ab.text.parse_command``); the folder's own modules are imported as usual.

    >>> import warnings
    >>> from lbanalysis.readers import ab
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     ab.parse_command is importlib.import_module("lbanalysis.readers.ab.text").parse_command
    True
    """
    folder = Path(sys.modules[package].__file__ or "").parent

    def __getattr__(name: str) -> Any:
        if name.startswith("__") or (folder / f"{name}.py").exists():
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        _warn(f"{package}.{name}", f"{package}.{module}.{name}")
        return value

    return __getattr__
