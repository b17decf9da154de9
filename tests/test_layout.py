"""The package's shape: layers, the registry as the only list of tools, no import cycles, moved names."""

from __future__ import annotations

import ast
import importlib
import re
import sys
import warnings
from pathlib import Path

import pytest

from lbanalysis import registry

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "lbanalysis"
SHIMS = {"lbanalysis.paths", "lbanalysis.reference", "lbanalysis.explore"}  # deprecated re-exports


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """lbanalysis modules a file imports anywhere (top level or inside functions)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    modules = {_module_name(p) for p in PKG.rglob("*.py")}
    return {m for m in found if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in PKG.rglob("*.py") if _module_name(p) not in SHIMS}


def test_no_import_cycles():
    graph = _graph()
    # a package's __init__ importing its own submodules is not a cycle between modules
    edges = {m: {d for d in deps if not m.startswith(d + ".") and not (d.startswith(m + ".") and m != "lbanalysis")}
             for m, deps in graph.items()}  # fmt: skip
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(edges.get(node, ())):
            if state.get(dep) == 1:
                cycles.append([*stack[stack.index(dep) :], dep])
            elif dep not in state:
                visit(dep, [*stack, dep])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_the_library_knows_no_article_or_checkout():
    for path in PKG.rglob("*.py"):
        name = _module_name(path)
        if name in SHIMS or name.startswith("lbanalysis.tables"):
            continue  # deprecated names point at the articles package on purpose
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("articles"):
                pytest.fail(f"{name} imports the articles package")
            if isinstance(node, ast.Import) and any(a.name.startswith("articles") for a in node.names):
                pytest.fail(f"{name} imports the articles package")


def test_analysis_and_readers_do_not_import_plots_or_reports():
    for name, deps in _graph().items():
        if name.startswith(("lbanalysis.analysis", "lbanalysis.readers")):
            assert not {d for d in deps if d.startswith(("lbanalysis.plots", "lbanalysis.report"))}, name


def test_every_reader_module_is_in_the_registry():
    listed = {m for t in registry.TOOLS for m in t.readers}
    modules = {
        ".".join(p.relative_to(PKG / "readers").with_suffix("").parts)
        for p in (PKG / "readers").glob("*/*.py")  # readers/<tool>/<shape>.py: "k6.json"
        if not p.stem.startswith("_")
    }
    helpers = {m for m in modules if not hasattr(importlib.import_module(f"lbanalysis.readers.{m}"), "FORMATS")}
    assert modules - helpers <= listed, "a reader module no registry line names"
    assert listed <= modules, "a registry line names a module that does not exist"


def test_tool_knowledge_derives_from_the_registry():
    from lbanalysis import cli, readers, text

    assert tuple(readers.TOOLS) == registry.names()
    assert set(text.TOOL_COMMANDS) == {e for t in registry.TOOLS for e in t.executables}
    parser = cli.build_parser()
    read = parser._subparsers._group_actions[0].choices["read"]
    tool_opt = next(a for a in read._actions if "--tool" in a.option_strings)
    assert tuple(tool_opt.choices) == registry.names()


@pytest.mark.parametrize(
    ("old", "attr", "new"),
    [
        ("lbanalysis.reference", "ratio_table", "lbanalysis.analysis.comparison"),
        ("lbanalysis.reference", "peak_bracket", "lbanalysis.analysis.saturation"),
        ("lbanalysis.reference", "closed_loop_rate", "lbanalysis.analysis.little"),
        ("lbanalysis.reference", "read_reference", "articles.sizing"),
        ("lbanalysis.paths", "ROOT", "articles.paths"),
        ("lbanalysis.explore", "read_summary", "lbanalysis.report.explore"),
    ],
)
def test_moved_names_still_import_with_a_deprecation_warning(old, attr, new):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=old.replace(".", r"\.")):
        module = importlib.import_module(old)
    assert getattr(module, attr) is getattr(importlib.import_module(new), attr)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("lbanalysis.readers.k6_json", "lbanalysis.readers.k6.json"),
        ("lbanalysis.readers.ab_gnuplot", "lbanalysis.readers.ab.gnuplot"),
        ("lbanalysis.readers.iperf3", "lbanalysis.readers.iperf.iperf3"),
        ("lbanalysis.readers._iperf", "lbanalysis.readers.iperf.shared"),
        ("lbanalysis.readers.cpu_csv", "lbanalysis.readers.cpu.capture_csv"),
        ("lbanalysis.readers.haproxy_stat", "lbanalysis.readers.haproxy.stat"),
    ],
)
def test_moved_reader_modules_still_import_with_a_deprecation_warning(old, new):
    """An old reader path (readers/k6_json.py before the folders per tool) is the module at its new path."""
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=re.escape(f"{old} moved to {new}")):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert module.__name__ == new and module.__spec__.name == new


@pytest.mark.parametrize(("tool", "names"), [("ab", ("FORMATS", "LINE_KINDS", "parse_command")), ("k6", ("PHASES",))])
def test_a_tool_folder_still_holds_what_its_old_module_did(tool, names):
    """``lbanalysis.readers.ab`` was ab's text reader; now the folder, its names resolve from ab/text.py, warned."""
    from lbanalysis import readers

    folder = getattr(readers, tool)
    text = importlib.import_module(f"lbanalysis.readers.{tool}.text")
    for name in names:
        with pytest.warns(
            DeprecationWarning, match=rf"readers\.{tool}\.{name} moved to lbanalysis\.readers\.{tool}\.text"
        ):
            assert getattr(folder, name) is getattr(text, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from lbanalysis.readers.ab import csv  # the folder's own modules: no warning

        assert csv.__name__ == "lbanalysis.readers.ab.csv"
    with pytest.raises(AttributeError):
        folder.no_such_name  # noqa: B018


def test_moved_table_spec_and_fit_table_still_work():
    import pandas as pd

    from articles import haproxy_apache_siege
    from lbanalysis import tables
    from lbanalysis.analysis import fit_scaling

    with pytest.warns(DeprecationWarning):
        assert tables.HAPROXY_APACHE_SIEGE is haproxy_apache_siege.TABLE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from lbanalysis import reference
    runs = pd.DataFrame({"concurrency": [1, 2, 3], "requests_per_s": [1.0, 2.1, 2.9]})
    fit = fit_scaling(runs, model="linear")
    pd.testing.assert_frame_equal(reference.fit_table(fit), fit.summary_frame())


def _private_reader_imports(path: Path) -> list[str]:
    """``module.name`` of every private name (``_x``) a file imports from a reader module (lbanalysis.readers.*)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base.startswith("lbanalysis.readers."):
                found += [f"{base}.{a.name}" for a in node.names if a.name.startswith("_")]
    return found


def test_engines_and_the_library_import_no_private_name_of_a_reader():
    """Abilities of a format (byte ranges for the Dask engine) go through Format, not a reader's private names."""
    outside = [p for p in PKG.rglob("*.py") if "readers" not in p.relative_to(PKG).parts]
    assert {str(p.relative_to(ROOT)): _private_reader_imports(p) for p in outside if _private_reader_imports(p)} == {}


def _private_names_through_modules(path: Path) -> list[str]:
    """``alias._x`` of every private name a file reads through a reader module it imported (``from . import m``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = {
        a.asname or a.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 1 and not node.module
        for a in node.names
    }
    return [
        f"{node.value.id}.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
        if node.attr.startswith("_")
    ]


def test_readers_use_no_private_name_of_another_reader():
    """What two readers share is public (a shared module such as readers/iperf/shared.py), not one reader's private name."""
    readers = sorted((PKG / "readers").rglob("*.py"))
    found = {str(p.relative_to(ROOT)): _private_reader_imports(p) + _private_names_through_modules(p) for p in readers}
    assert {k: v for k, v in found.items() if v} == {}


def test_readers_share_one_line_grammar():
    """No reader finds its handlers by name (globals()/getattr): line kinds hold them (readers.base.LineKind)."""
    from lbanalysis.readers.base import LineKind

    names = (
        "ab.text",
        "hey.text",
        "wrk.text",
        "gobench.text",
        "siege.text",
        "siege.log",
        "iperf.iperf2",
        "iperf.iperf3",
    )
    names += ("haproxy.stat", "k6.text", "locust.text", "oha.text", "bombardier.text", "vegeta.text")
    readers = [importlib.import_module(f"lbanalysis.readers.{name}") for name in names]
    for module in readers:
        assert module.LINE_KINDS and all(isinstance(k, LineKind) for k in module.LINE_KINDS)
        text = Path(module.__file__).read_text(encoding="utf-8")
        assert "globals()" not in text and "getattr(" not in text, module.__name__


def test_import_loads_no_reader_module_until_one_is_needed():
    """`import lbanalysis` imports no reader (nor compiles their patterns): the registry's modules load on first use."""
    code = (
        "import sys, lbanalysis\n"
        "from lbanalysis import registry\n"
        "names = {f'lbanalysis.readers.{m}' for t in registry.TOOLS for m in t.readers}\n"
        "print(len(names & set(sys.modules)), 'urllib.request' in sys.modules, 'multiprocessing' in sys.modules)\n"
        "from lbanalysis.readers import FORMATS\n"
        "print(len(names - set(sys.modules)), len(FORMATS) >= len(registry.TOOLS))\n"
        "import lbanalysis.readers as r\n"
        "print(r.ab.text.FORMATS[0].name, r.all_formats() is FORMATS)\n"
    )
    assert _printed_by_fresh_python(code)[:3] == ["0 False False", "0 True", "ab True"]


def _printed_by_fresh_python(code: str) -> list[str]:
    """The lines ``code`` prints in a fresh interpreter (nothing of this process imported)."""
    import subprocess

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")


def test_import_loads_the_reader_on_first_use_and_every_public_name_answers():
    """`import lbanalysis` leaves the reader, the text rules and the formatting unloaded; each public name still
    answers (``lbanalysis.read``, ``from lbanalysis import read``), and tab completion lists it."""
    code = (
        "import sys, lbanalysis\n"
        "print(sorted(m for m in ('lbanalysis.reader', 'lbanalysis.text', 'lbanalysis.formatting',"
        " 'lbanalysis.pairing') if m in sys.modules))\n"
        "from lbanalysis import read\n"
        "print(read is lbanalysis.read, 'lbanalysis.reader' in sys.modules, set(lbanalysis.__all__) <= set(dir(lbanalysis)))\n"
        "print(all(callable(getattr(lbanalysis, n)) for n in lbanalysis.__all__ if n not in ('schema', '__version__')))\n"
    )
    assert _printed_by_fresh_python(code)[:3] == ["[]", "True True True", "True"]


# --- Rooms a newcomer can live in (issue 33) -------------------------------------------------------------------------
# What is still above a limit while the rooms are being rebuilt. Each list only shrinks: a new entry fails the test.
MAX_COMPLEXITY = 25  # cyclomatic complexity of one function, as radon counts it
MAX_LINES = 1000  # lines of one module
ALLOWED_COMPLEX: set[str] = set()
ALLOWED_LONG: set[str] = set()
ALLOWED_PRIVATE: set[str] = set()
ALLOWED_CYCLES: set[str] = set()
PACKAGES = ("lbanalysis", "articles")


def _our_files() -> dict[str, Path]:
    """Every module of the library and of the articles package, by dotted name."""
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _base(name: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module an ``from … import`` names, relative imports resolved."""
    base = node.module or ""
    if node.level:
        anchor = (name if path.name == "__init__.py" else name.rpartition(".")[0]).split(".")
        anchor = anchor[: len(anchor) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    return base


def _every_import(name: str, path: Path, modules: set[str]) -> set[str]:
    """Our modules a file imports: top level, inside functions, and ``importlib.import_module("literal")``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _base(name, path, node)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.add(node.args[0].value)
    return {m for m in found if m in modules and m != name}


def _cycles(graph: dict[str, set[str]]) -> set[str]:
    """Import circles, each as ``a -> b -> a``; a package importing its own submodules is not one."""
    edges = {
        m: {d for d in deps if not m.startswith(d + ".") and not d.startswith(m + ".")} for m, deps in graph.items()
    }
    found: set[str] = set()
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(edges.get(node, ())):
            if state.get(dep) == 1:
                found.add(" -> ".join([*stack[stack.index(dep) :], dep]))
            elif dep not in state:
                visit(dep, [*stack, dep])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return found


def test_no_import_circle_among_the_library_and_the_articles():
    files = _our_files()
    graph = {m: _every_import(m, p, set(files)) for m, p in files.items()}
    assert _cycles(graph) <= ALLOWED_CYCLES


def _private_imports(name: str, path: Path, modules: set[str]) -> set[str]:
    """``importer <- module._name`` for each private name a file takes from another of our modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases: dict[str, str] = {}
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _base(name, path, node)
            for a in node.names:
                if f"{base}.{a.name}" in modules:
                    aliases[a.asname or a.name] = f"{base}.{a.name}"
                elif base in modules and base != name and a.name.startswith("_") and not a.name.startswith("__"):
                    found.add(f"{name} <- {base}.{a.name}")
        elif isinstance(node, ast.Import):
            aliases.update({a.asname: a.name for a in node.names if a.asname and a.name in modules})
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            if node.attr.startswith("_") and not node.attr.startswith("__"):
                found.add(f"{name} <- {aliases[node.value.id]}.{node.attr}")
    return found


def test_no_private_name_is_imported_from_another_module():
    """What two modules share is a public helper in the lower one."""
    files = _our_files()
    found = set().union(*(_private_imports(m, p, set(files)) for m, p in files.items()))
    assert found <= ALLOWED_PRIVATE


def test_no_function_above_the_complexity_limit():
    from radon.complexity import cc_visit

    found = set()
    for path in sorted(PKG.rglob("*.py")):
        for block in cc_visit(path.read_text(encoding="utf-8")):
            for item in [block, *getattr(block, "methods", [])]:
                if item.complexity > MAX_COMPLEXITY:
                    found.add(f"{path.relative_to(ROOT)}:{item.name}")
    assert found <= ALLOWED_COMPLEX


def test_no_module_above_the_line_limit():
    found = {
        str(p.relative_to(ROOT))
        for p in PKG.rglob("*.py")
        if len(p.read_text(encoding="utf-8").splitlines()) > MAX_LINES
    }
    assert found <= ALLOWED_LONG


def test_a_function_named_as_its_module_stays_the_function():
    """``lbanalysis.analysis.balance`` is the function even after its module was imported by name."""
    import subprocess

    code = (
        "import importlib\n"
        "m = importlib.import_module('lbanalysis.analysis.balance')\n"
        "from lbanalysis.analysis import balance\n"
        "print(callable(balance), balance is m.balance)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "True"]
