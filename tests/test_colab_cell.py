"""Every chapter starts with the set-up cell (book/_setup_cell.ipy): what it installs on Colab, and
that it is a no-op here. The cell holds IPython syntax (%pip), so it runs through IPython's
transformer or in a real InteractiveShell, each time in a fresh interpreter.

tests/test_colab_start.py runs the cell for real, in a kernel that starts the way Colab's does."""

import json
import pathlib
import re
import subprocess
import sys

import pytest
import tomllib
import tqdm
import yaml
from IPython.core.inputtransformer2 import TransformerManager

import ponderlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
CELL = ROOT / "book" / "_setup_cell.ipy"
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))


def _cell() -> str:
    return CELL.read_text(encoding="utf-8")


def _first_code_cell(notebook: pathlib.Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = [cell for cell in cells if cell["cell_type"] == "code"]
    assert code, f"{notebook.name} has no code cell"
    source = code[0]["source"]
    return source if isinstance(source, str) else "".join(source)


def test_cell_installs_from_the_repository_url_in_config():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    (url,) = re.findall(r'^REPOSITORY_URL = "(.*)"$', _cell(), flags=re.M)
    assert url == config["repository"]["url"]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[chapter.name for chapter in CHAPTERS])
def test_chapter_starts_with_the_setup_cell(chapter):
    assert _first_code_cell(chapter).strip() == _cell().strip(), (
        f"the first code cell of {chapter.name} must be the content of book/_setup_cell.ipy"
    )


def test_cell_checks_every_runtime_dependency_of_ponderlib_for_a_restart():
    (names,) = re.findall(r"for name in \(([^)]*)\)", _cell())
    checked = {name.strip().strip('"') for name in names.split(",")}
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    dependencies = {re.match(r"[\w.-]+", dependency)[0] for dependency in pyproject["project"]["dependencies"]}
    assert checked == dependencies


# A fresh interpreter that runs the cell in a real InteractiveShell, as if on Colab: google.colab is
# imported (a stand-in that records enable_custom_widget_manager) and %pip records what it is given.
# PIP_EFFECT runs inside the stand-in %pip: what pip would have changed.
_COLAB_PROBE = """
import json, sys, types
import tqdm
from IPython.core.interactiveshell import InteractiveShell

calls = {"pip": [], "widget_manager": 0}
output = types.ModuleType("google.colab.output")
output.enable_custom_widget_manager = lambda: calls.__setitem__("widget_manager", calls["widget_manager"] + 1)
colab = types.ModuleType("google.colab")
colab.output = output
google = types.ModuleType("google")
google.colab = colab
sys.modules.update({"google": google, "google.colab": colab, "google.colab.output": output})

def pip(line):
    calls["pip"].append(line)
    exec(PIP_EFFECT)

shell = InteractiveShell.instance()
shell.register_magic_function(pip, "line", "pip")
shell.run_cell(open(CELL).read()).raise_error()
print(json.dumps(calls))
"""


def _run_on_colab(pip_effect: str = "") -> tuple[dict, list[str]]:
    """Run the cell as on Colab; return the calls it made and the lines it printed."""
    probe = f"CELL = {str(CELL)!r}\nPIP_EFFECT = {pip_effect!r}\n" + _COLAB_PROBE
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT / "book", capture_output=True, text=True, check=True
    )
    *printed, calls = result.stdout.splitlines()
    return json.loads(calls), printed


def test_cell_on_colab_installs_the_tag_of_this_version_and_enables_widgets():
    calls, printed = _run_on_colab()
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    tag = f"v{ponderlib.__version__}"
    assert calls["pip"] == [f"install --quiet git+{config['repository']['url']}@{tag}"]
    assert calls["widget_manager"] == 1
    assert printed == [], "nothing to say when pip replaced nothing the session had imported"


def test_cell_on_colab_asks_for_a_restart_when_pip_replaced_an_imported_package():
    # As if pip had upgraded tqdm, which this session imported at an older version.
    calls, printed = _run_on_colab(pip_effect="sys.modules['tqdm'].__version__ = '4.0.0'")
    assert calls["widget_manager"] == 1
    assert printed == [
        "Restart the runtime (Runtime > Restart session), then run this cell again: this session "
        f"still runs tqdm 4.0.0 (pip just installed {tqdm.__version__})."
    ]


def _run_here(cwd: pathlib.Path, *python_flags: str) -> dict:
    """Run the cell, through IPython's transformer, in a fresh interpreter outside Colab (no
    get_ipython: a magic would fail); report what it added to sys.path."""
    code = TransformerManager().transform_cell(_cell())
    probe = (
        "import sys\n"
        "path_before = list(sys.path)\n"
        f"exec(compile({code!r}, 'setup_cell', 'exec'))\n"
        "import json, importlib.util\n"
        "print(json.dumps({'added': [p for p in sys.path if p not in path_before],\n"
        "                  'importable': importlib.util.find_spec('ponderlib') is not None}))\n"
    )
    result = subprocess.run(
        [sys.executable, *python_flags, "-c", probe], cwd=cwd, capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def test_cell_is_a_no_op_outside_colab_when_ponderlib_is_installed():
    assert _run_here(ROOT / "book") == {"added": [], "importable": True}


def test_cell_finds_the_repository_from_a_chapter_folder_when_not_installed():
    # -S: no site-packages, so ponderlib is not installed; the cell must find the checkout.
    assert _run_here(ROOT / "book", "-S") == {"added": [str(ROOT)], "importable": True}
