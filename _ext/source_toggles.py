"""A toggle over printed library source says whose source it opens.

A chapter prints a piece of ``ponderlib`` with a cell ``show_source(act_halting)`` tagged
``remove-input`` and ``hide-output``: the page shows only a toggle, which MyST-NB labels "Show code
cell outputs". This extension reads the cell's own source in the notebook and, for a cell that calls
``show_source(<name>)``, labels its toggle "Show the source of ``<name>``" (and "Hide the source of
``<name>``" when open), the name set as code. Nothing in the notebooks changes: a new ``show_source``
cell is labelled as it is built. Every other toggle keeps MyST-NB's label.
"""

from __future__ import annotations

import ast
import functools
import json
import pathlib
import re
from html import escape

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

try:  # MyST-NB's toggle node, whose HTML this extension writes with the name set as code
    from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput
except ImportError:  # pragma: no cover - MyST-NB is always there when Jupyter Book builds
    HideCodeCellNode = None

CALL = "show_source"


@functools.lru_cache(maxsize=64)
def _cell_sources(path: str, mtime: float) -> tuple[str, ...]:
    notebook = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    return tuple("".join(cell.get("source", "")) if cell.get("cell_type") == "code" else "" for cell in notebook["cells"])


def shown_names(source: str) -> list[str]:
    """The dotted names a cell passes to ``show_source``, in order: ``["act_halting", "Model.step"]``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a cell with IPython magics: fall back to the text
        return re.findall(rf"\b{CALL}\(\s*([A-Za-z_][\w.]*)\s*\)", source)
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == CALL and node.args:
            try:
                names.append(ast.unparse(node.args[0]))
            except Exception:  # noqa: BLE001 - an argument ast cannot write back: no label
                continue
    return names


class LabelSourceToggles(SphinxPostTransform):
    """Before MyST-NB wraps hidden outputs in toggles (priority 199), set the labels of show_source cells."""

    default_priority = 198
    formats = ("html",)

    def run(self, **kwargs):
        source = pathlib.Path(self.document.get("source", ""))
        if source.suffix != ".ipynb" or not source.is_file():
            return
        cells = _cell_sources(str(source), source.stat().st_mtime)
        for node in self.document.findall(nodes.container):
            if node.get("nb_element") != "cell_code" or not node.get("hide_mode"):
                continue
            index = node.get("cell_index")
            if not isinstance(index, int) or index >= len(cells):
                continue
            names = shown_names(cells[index])
            if names:
                listed = ", ".join(f"`{name}`" for name in names)
                node["prompt_show"] = f"Show the source of {listed}"
                node["prompt_hide"] = f"Hide the source of {listed}"


def _code_spans(text: str) -> str:
    """Escaped text whose `backticked` parts are set as code."""
    return re.sub(r"`([^`]+)`", r'<code class="docutils literal notranslate">\1</code>', escape(text))


def visit_toggle(self, node):
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n')
    self.body.append(f'<summary aria-label="{escape(node["prompt_show"].replace("`", ""))}">\n')
    self.body.append(f'<p class="collapsed admonition-title">{_code_spans(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{_code_spans(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def setup(app):
    app.add_post_transform(LabelSourceToggles)
    if HideCodeCellNode is not None:
        app.add_node(HideCodeCellNode, override=True, html=(visit_toggle, depart_HideCellInput))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
