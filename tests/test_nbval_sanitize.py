"""nbval compares the code a reader reads, not Pygments' CSS (tests/nbval_sanitize.cfg).

A notebook showing code through ``IPython.display.Code`` is executed for real; its stored output is
then edited as a new Pygments release would change it (other colours, renamed token classes), or as a
real change would (other code, another non-Pygments style), and nbval is run on it in a subprocess.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
CODE_CELL = 'from IPython.display import Code\nCode("def f(x):\\n    return x + 1\\n", language="python")'
HTML_CELL = 'from IPython.display import HTML\nHTML("<style>p.note { color: red }</style><p class=\\"note\\">Five steps</p>")'


@pytest.fixture(scope="module")
def executed() -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CODE_CELL), nbformat.v4.new_code_cell(HTML_CELL)])
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    return notebook


def _html(notebook: nbformat.NotebookNode, cell: int) -> str:
    return notebook.cells[cell].outputs[0]["data"]["text/html"]


def _nbval(notebook: nbformat.NotebookNode, folder: pathlib.Path, sanitize: bool) -> subprocess.CompletedProcess:
    path = folder / "shown.ipynb"
    nbformat.write(notebook, path)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "--nbval",
               "--nbval-current-env", str(path)]
    if sanitize:
        command += ["--nbval-sanitize-with", str(SANITIZE)]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


def _edited(notebook, cell, old, new):
    edited = nbformat.from_dict(notebook)
    html = _html(edited, cell)
    assert old in html, f"{old!r} is not in the output: the test no longer edits anything"
    edited.cells[cell].outputs[0]["data"]["text/html"] = html.replace(old, new)
    return edited


def test_the_code_output_embeds_pygments_css(executed):
    html = _html(executed, 0)
    assert html.startswith("<style>") and ".output_html .k {" in html and '<span class="k">def</span>' in html


def test_another_pygments_release_does_not_fail_an_unchanged_chapter(executed, tmp_path):
    # New colours in the style sheet and a renamed token class, as between two Pygments releases.
    edited = _edited(executed, 0, ".output_html .k {", ".output_html .k { font-weight: bold; ")
    edited = _edited(edited, 0, '<span class="k">def</span>', '<span class="kd">def</span>')
    assert _nbval(edited, tmp_path, sanitize=False).returncode != 0, "nbval no longer compares HTML at all"
    result = _nbval(edited, tmp_path, sanitize=True)
    assert result.returncode == 0, result.stdout[-3000:]


def test_the_code_itself_is_still_compared(executed, tmp_path):
    edited = _edited(executed, 0, '<span class="mi">1</span>', '<span class="mi">2</span>')
    result = _nbval(edited, tmp_path, sanitize=True)
    assert result.returncode != 0 and "1 failed" in result.stdout, result.stdout[-3000:]


def test_other_html_keeps_its_comparison_styles_included(executed, tmp_path):
    edited = _edited(executed, 1, "color: red", "color: blue")
    result = _nbval(edited, tmp_path, sanitize=True)
    assert result.returncode != 0 and "1 failed" in result.stdout, result.stdout[-3000:]


def test_make_test_uses_the_sanitize_file():
    import tomllib

    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]["addopts"]
    assert "--nbval-sanitize-with tests/nbval_sanitize.cfg" in addopts
