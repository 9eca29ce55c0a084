"""What the chapters' code cells may and may not do, so that editing the library never breaks a chapter
and every random number comes from a run's seed."""

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
CHAPTERS = sorted(BOOK.glob("ch*.ipynb"))


def code_cells(chapter: Path) -> list[dict]:
    return [cell for cell in json.loads(chapter.read_text())["cells"] if cell["cell_type"] == "code"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_library_source_is_shown_without_pinning_it(chapter):
    for cell in code_cells(chapter):
        text = source(cell)
        assert "getsource" not in text, f"{chapter.name}: use ponderlib.figures.source.show_source, not inspect.getsource"
        if "show_source(" in text:
            assert "nbval-ignore-output" in cell["metadata"].get("tags", []), (
                f"{chapter.name}: a cell showing library source must be tagged nbval-ignore-output: {text[:60]!r}"
            )


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_no_literal_seeds_or_seed_offsets(chapter):
    for cell in code_cells(chapter):
        text = source(cell)
        for pattern in (r"manual_seed\(\s*\d", r"torch\.Generator\(", r"seed\s*\+\s*\d", r"make_generator"):
            assert not re.search(pattern, text), f"{chapter.name}: {pattern!r} in {text[:80]!r}; use config.generator(stream)"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_chapters_import_the_layers_not_the_old_flat_modules(chapter):
    flat = r"ponderlib\.(engine|device|validation|data|halting|losses|act|pondernet|attention|pointer|universal_transformer|parity|sorting|convex_hull|chains|plots|pointer_plots|transformer_plots|sweep_plots|widgets)\b(?!\.)"
    for cell in code_cells(chapter):
        assert not re.search(r"from " + flat + r" import|import " + flat, source(cell)), source(cell)[:120]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_no_control_characters_in_any_cell(chapter):
    """A TeX command written through a Python string without ``r`` (``"\\bar"``) becomes a backspace and
    ``\\bar N`` reaches MathJax as ``ar N``: caught here, not by the browser after a 17-minute build."""
    for index, cell in enumerate(json.loads(chapter.read_text())["cells"]):
        found = re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", source(cell))
        assert found is None, f"{chapter.name}, cell {index}: control character {found.group()!r} in {source(cell)[max(0, found.start() - 30):found.end() + 10]!r}"
