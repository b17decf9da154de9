"""Batch reports: choosing notebooks, parameters, running them with papermill, failures."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import nbformat
import pytest

from articles.paths import NOTEBOOKS
from lbanalysis import cli, report
from lbanalysis.errors import LBAnalysisError


def make_notebook(
    path: Path, cells: list[str], params: str | None = 'x: int = 1  # a number\nlabel: str = "a"'
) -> Path:
    """A small notebook: a title, a tagged parameters cell, then ``cells``."""
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell(f"# {path.stem}"))
    if params is not None:
        p = nbformat.v4.new_code_cell(params)
        p.metadata["tags"] = ["parameters"]
        nb.cells.append(p)
    nb.cells.extend(nbformat.v4.new_code_cell(src) for src in cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


@pytest.fixture
def notebooks(tmp_path: Path) -> Path:
    """01 runs, 02 fails in its third cell (index 3), 03 runs, 00 is not an article."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    make_notebook(
        folder / "01-good.ipynb",
        [
            "y = x * 2\nprint(f'y is {y}')",
            "from pathlib import Path\nPath(output_dir, 'figure.txt').write_text(label)",
        ],
        params='x: int = 1  # a number\nlabel: str = "a"  # a text\noutput_dir: str = "."  # where files go',
    )
    make_notebook(
        folder / "02-bad.ipynb", ["y = x * 2", "z = 1 / (x - 2)  # fails for x = 2\nprint(z)", "print('never')"]
    )
    make_notebook(folder / "03-after.ipynb", ["print('after', x)"], params="x: int = 1  # a number")
    make_notebook(folder / "00-explore.ipynb", ["1"])
    return folder


# ------------------------------------------------------------ choosing ---
def test_article_notebooks_skip_explore(notebooks):
    assert [p.name for p in report.article_notebooks(notebooks)] == ["01-good.ipynb", "02-bad.ipynb", "03-after.ipynb"]


@pytest.mark.parametrize(
    "name, expected",
    [("02", "02-bad"), ("2", "02-bad"), ("bad", "02-bad"), ("02-bad", "02-bad"), ("02-bad.ipynb", "02-bad")],
)
def test_resolve_by_number_or_slug(name, expected, notebooks):
    assert [p.stem for p in report.resolve_notebooks([name], notebooks)] == [expected]


def test_resolve_unknown_lists_the_known(notebooks):
    with pytest.raises(
        LBAnalysisError, match=r"no article notebook called 'explore'; known: 01-good, 02-bad, 03-after"
    ):
        report.resolve_notebooks(["explore"], notebooks)


def test_resolve_all_and_dedup(notebooks):
    assert len(report.resolve_notebooks(None, notebooks)) == 3
    assert [p.stem for p in report.resolve_notebooks(["good", "01"], notebooks)] == ["01-good"]


def test_real_article_notebooks_resolve():
    articles = report.article_notebooks(NOTEBOOKS)
    if not articles:
        pytest.skip("no article notebooks yet")
    for p in articles:
        assert report.resolve_notebooks([p.name[:2]]) == [p]
        assert report.resolve_notebooks([report.slug_of(p)]) == [p]
        nb = nbformat.read(p, as_version=4)
        tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
        assert len(tagged) == 1, f"{p.name}: exactly one parameters cell"


# ---------------------------------------------------------- parameters ---
def test_parameters_declared(notebooks):
    params = report.notebook_parameters(notebooks / "01-good.ipynb")
    assert list(params) == ["x", "label", "output_dir"]
    assert params["x"]["inferred_type_name"] == "int"
    assert params["label"]["help"] == "a text"


def test_a_parameter_whose_default_holds_an_equals_sign_is_declared_and_settable(tmp_path):
    """papermill's inspection skipped ``objective: str = "p99 <= 50ms"`` (a second ``=``): it could not be set."""
    nb = make_notebook(tmp_path / "01-slo.ipynb", [], params='objective: str = "p99 <= 50ms"  # the objective\nn = 2')
    params = report.notebook_parameters(nb)
    assert list(params) == ["objective", "n"]
    assert params["objective"]["default"] == '"p99 <= 50ms"' and params["objective"]["help"] == "the objective"
    for p in report.article_notebooks(NOTEBOOKS):  # the articles' own objectives can be set with -p
        src = nbformat.read(p, as_version=4).cells
        cell = next(c.source for c in src if "parameters" in c.metadata.get("tags", []))
        if "objective" in cell:
            assert "objective" in report.notebook_parameters(p), p.name


@pytest.mark.slow
def test_a_report_with_such_a_parameter_runs_without_papermills_false_alarms(tmp_path, caplog):
    """papermill's own inspection, when a notebook runs with parameters, warned "Unable to parse line" on every
    report whose parameters cell holds an objective (articles 03 and 04 on `make report`)."""
    nb = make_notebook(tmp_path / "01-slo.ipynb", ["print(objective, n)"],
                       params='objective: str = "p99 <= 50ms"  # the objective\nn = 2')  # fmt: skip
    with caplog.at_level(logging.WARNING):
        report.run_notebook(nb, {"objective": "mean <= 5ms", "n": 3}, tmp_path / "out")
    said = [r.getMessage() for r in caplog.records if r.name.startswith("papermill")]
    assert not [m for m in said if "Unable to parse" in m or "unknown parameter" in m], said
    executed = nbformat.read(tmp_path / "out" / "slo.ipynb", as_version=4)
    assert executed.cells[-1].outputs[0]["text"] == "mean <= 5ms 3\n"


def test_load_parameters_yaml(tmp_path):
    f = tmp_path / "params.yaml"
    f.write_text("x: 3\nlabel: 1 Gbit/s\ngood:\n  x: 5\n")
    params = report.load_parameters(f)
    assert report.parameters_for(Path("01-good.ipynb"), params) == {"x": 5, "label": "1 Gbit/s"}
    assert report.parameters_for(Path("02-bad.ipynb"), params) == {"x": 3, "label": "1 Gbit/s"}


def test_load_parameters_errors(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("- a list\n- not a mapping\n")
    with pytest.raises(LBAnalysisError, match="expected a mapping"):
        report.load_parameters(f)
    with pytest.raises(LBAnalysisError, match="cannot read parameters"):
        report.load_parameters(tmp_path / "missing.yaml")


def test_unknown_parameter_is_refused_before_running(notebooks, tmp_path, capsys):
    with pytest.raises(report.UnknownParameterError, match="unknown parameter"):
        report.run_notebook(notebooks / "03-after.ipynb", {"nope": 1}, tmp_path / "out")
    status = cli.main(["report", "--all", "--notebooks", str(notebooks), "-p", "nope", "1", "-o", str(tmp_path)])
    assert status == 2
    assert "no chosen notebook declares parameter(s): nope" in capsys.readouterr().err


def test_unknown_notebook_is_a_usage_error(notebooks, capsys):
    assert cli.main(["report", "99", "--notebooks", str(notebooks)]) == 2
    assert "no article notebook called '99'" in capsys.readouterr().err


def test_list(notebooks, capsys):
    assert cli.main(["report", "--list", "--notebooks", str(notebooks)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["01", "good", "x,", "label,", "output_dir"]
    assert len(out) == 3


# ------------------------------------------------------------- running ---
@pytest.mark.slow
def test_a_report_with_the_users_parameters_keeps_its_tidy_tables_beside_it(tmp_path):
    """The project's data/processed holds what the article's own parameters give: ``-p objective ...`` elsewhere
    must not overwrite it."""
    project = tmp_path / "processed"
    params = f'x: int = 1  # a number\noutput_dir: str = "."  # figures\nprocessed_dir: str = "{project}"  # CSVs'
    nb = make_notebook(tmp_path / "01-tables.ipynb", ["from pathlib import Path\nPath(processed_dir).mkdir("
                       "parents=True, exist_ok=True)\nPath(processed_dir, 't.csv').write_text(str(x))"],
                       params=params)  # fmt: skip
    report.run_notebook(nb, {}, tmp_path / "own")
    assert (project / "t.csv").read_text() == "1"  # the notebook's own parameters: the project's folder
    report.run_notebook(nb, {"x": 5}, tmp_path / "mine")
    assert (project / "t.csv").read_text() == "1" and (tmp_path / "mine" / "processed" / "t.csv").read_text() == "5"


@pytest.mark.slow
def test_run_notebook_writes_notebook_html_and_figures(notebooks, tmp_path):
    out = tmp_path / "reports" / "good"
    html = report.run_notebook(notebooks / "01-good.ipynb", {"x": 21, "label": "hello"}, out)
    assert html == out / "good.html"
    text = html.read_text()
    assert "y is 42" in text
    assert 'class="highlight' not in text  # code cells left out by default (a report reads as a document)
    assert "Made with these parameters" in text and str(out.resolve()) not in text  # no absolute path
    assert (out / "figure.txt").read_text() == "hello"  # output_dir passed as a parameter
    shown = report.export_html(out / "good.ipynb", out / "with-code.html", no_input=False).read_text()
    assert 'class="highlight' in shown  # --show-code keeps them
    # a page that stands alone: no script or CDN, its own small stylesheet, the report's title
    assert "<script" not in text and "cdnjs" not in text and "jp-icon" not in text
    assert "<title>01-good</title>" in text and "@media print" in text
    assert len(text) < 20_000  # no 270 KB of JupyterLab theme
    # each cell's output reachable with the Tab key, as nbconvert's own exporter makes it (page.standalone does it)
    outputs = re.findall(r'<div class="([^"]*jp-OutputArea-output[^"]*)"([^>]*)>', text)
    assert outputs and all('tabindex="0"' in attrs for _, attrs in outputs), outputs
    inputs = re.findall(r'<div class="jp-Cell-inputWrapper"([^>]*)>', shown)
    assert inputs and all('tabindex="0"' in attrs for attrs in inputs), inputs
    executed = nbformat.read(out / "good.ipynb", as_version=4)
    recorded = executed.metadata["papermill"]["parameters"]
    assert recorded == {"x": 21, "label": "hello", "output_dir": str(out.resolve())}


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="Unix sockets")
def test_a_reports_kernel_listens_on_unix_sockets_that_no_other_process_can_take(tmp_path):
    """On TCP the kernel binds five ports its manager found free a moment before: a load test running
    beside it (thousands of connections) took one in a CI run, and the kernel died at start."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    cell = "import json\nfrom ipykernel.connect import get_connection_file\nc = json.load(open(get_connection_file()))"
    make_notebook(folder / "01-where.ipynb", [cell + "\nprint(c['transport'], c['ip'])"])
    report.run_notebook(folder / "01-where.ipynb", {}, tmp_path / "out")
    executed = nbformat.read(tmp_path / "out" / "where.ipynb", as_version=4)
    transport, where = executed.cells[-1].outputs[0]["text"].split()
    assert transport == "ipc"
    assert not Path(where).parent.exists()  # the sockets' folder is gone with the kernel


@pytest.mark.slow
def test_report_command_goes_on_after_a_failure(notebooks, tmp_path, capsys):
    params = tmp_path / "params.yaml"
    params.write_text("label: from-yaml\nafter:\n  x: 7\n")
    out = tmp_path / "reports"
    argv = ["report", "--all", "--notebooks", notebooks, "-f", params, "-p", "x", "2", "--no-input", "-o", out]
    status = cli.main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert status == 1
    lines = err.splitlines()
    done = [ln for ln in lines if ln.startswith("[")]
    assert [ln.split(":")[0] for ln in done] == ["[1/3] 01-good.ipynb", "[2/3] 02-bad.ipynb", "[3/3] 03-after.ipynb"]
    assert " ok in " in done[0] and " FAILED in " in done[1] and " ok in " in done[2]
    message = next(ln for ln in lines if ln.startswith("lbanalysis: error:"))
    assert message == (
        f"lbanalysis: error: {notebooks / '02-bad.ipynb'}: cell 3 `z = 1 / (x - 2)  # fails for x = 2` "
        "raised ZeroDivisionError: division by zero"
    )
    assert lines[-1].startswith("lbanalysis: 1 of 3 notebook(s) failed")
    # every notebook has its executed copy and HTML, the failing one too
    for slug in ("good", "bad", "after"):
        assert (out / slug / f"{slug}.ipynb").exists()
        assert (out / slug / f"{slug}.html").exists()
    good = (out / "good" / "good.html").read_text()
    assert "y is 4" in good  # -p x 2
    assert 'class="highlight' not in good  # --no-input
    assert (out / "good" / "figure.txt").read_text() == "from-yaml"
    assert "after 7" in (out / "after" / "after.html").read_text()  # the notebook's own section wins
    assert "ZeroDivisionError" in (out / "bad" / "bad.html").read_text()
