"""What a reader downloads: the README's table of the chapters' notebook sizes stays true.

The published site offers each chapter's notebook (the theme's download button, checked on the built
pages by tests/test_book_browser.py); the README says how big each one is and how much of that is the
widget state (one PNG per position of every slider or picker). This checks that table against
``book/*.ipynb``: every notebook listed, each size within 10 %.
"""

import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
ROW = re.compile(r"^[ \t]*\| `(book/[\w.]+\.ipynb)` \| ([\d.]+) MB \| (?:([\d.]+) MB|none) \|$", re.M)
TOLERANCE = 0.10


def _widget_state_bytes(notebook: pathlib.Path) -> int:
    widgets = json.loads(notebook.read_text(encoding="utf-8"))["metadata"].get("widgets", {})
    state = widgets.get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    return len(json.dumps(widgets)) if state else 0


def test_the_readme_gives_every_notebooks_size_and_its_widget_state():
    rows = {path: (float(size), float(state) if state else 0.0) for path, size, state in ROW.findall(README)}
    notebooks = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "book").glob("*.ipynb"))
    assert sorted(rows) == notebooks, "the README's table of notebook sizes lists other notebooks than book/ holds"
    problems = []
    for path, (size, state) in rows.items():
        actual = (ROOT / path).stat().st_size / 1e6
        actual_state = _widget_state_bytes(ROOT / path) / 1e6
        if abs(actual - size) > TOLERANCE * actual:
            problems.append(f"{path}: the README says {size} MB, it is {actual:.2f} MB")
        if abs(actual_state - state) > max(TOLERANCE * actual_state, 0.01):
            problems.append(f"{path}: the README says {state} MB of widget state, it holds {actual_state:.2f} MB")
    assert not problems, "update the README's table of notebook sizes:\n" + "\n".join(problems)
