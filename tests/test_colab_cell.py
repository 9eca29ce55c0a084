"""Every chapter starts with the Colab set-up cell, its URL is the book's, and it is a no-op here."""

import json
import pathlib
import re
import subprocess
import sys

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
CELL = ROOT / "book" / "_colab_cell.py"
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))


def _first_code_cell(notebook: pathlib.Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = [cell for cell in cells if cell["cell_type"] == "code"]
    assert code, f"{notebook.name} has no code cell"
    source = code[0]["source"]
    return source if isinstance(source, str) else "".join(source)


def test_cell_installs_from_the_repository_url_in_config():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    (url,) = re.findall(r'^REPOSITORY_URL = "(.*)"$', CELL.read_text(encoding="utf-8"), flags=re.M)
    assert url == config["repository"]["url"]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[chapter.name for chapter in CHAPTERS])
def test_chapter_starts_with_the_colab_cell(chapter):
    assert _first_code_cell(chapter).strip() == CELL.read_text(encoding="utf-8").strip(), (
        f"the first code cell of {chapter.name} must be the content of book/_colab_cell.py"
    )


def _run_cell(cwd: pathlib.Path, *python_flags: str) -> dict:
    """Run the cell in a fresh interpreter; report what it changed and whether it ran pip."""
    probe = (
        "import subprocess, sys\n"
        "calls = []\n"
        "subprocess.run = lambda *args, **kwargs: calls.append(args)\n"
        "path_before = list(sys.path)\n"
        f"exec(compile(open({str(CELL)!r}).read(), 'colab_cell', 'exec'))\n"
        "import json, importlib.util\n"
        "print(json.dumps({'calls': len(calls), 'added': [p for p in sys.path if p not in path_before],\n"
        "                  'importable': importlib.util.find_spec('ponderlib') is not None}))\n"
    )
    result = subprocess.run(
        [sys.executable, *python_flags, "-c", probe], cwd=cwd, capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def test_cell_is_a_no_op_outside_colab_when_ponderlib_is_installed():
    assert _run_cell(ROOT / "book") == {"calls": 0, "added": [], "importable": True}


def test_cell_finds_the_repository_from_a_chapter_folder_when_not_installed():
    # -S: no site-packages, so ponderlib is not installed; the cell must find the checkout.
    assert _run_cell(ROOT / "book", "-S") == {"calls": 0, "added": [str(ROOT)], "importable": True}
