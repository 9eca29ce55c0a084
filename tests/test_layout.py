"""The library's layering, read off its folders: imports run only downwards (the README, "The
library").

    core  <  mechanisms  <  tasks  <  sweep, experiments  <  figures  <  cli

The engine (``core``) knows no paper and no task; a mechanism knows no task; a task knows no other
task. A task may be a few modules, ``X.py`` with its data ``X_data.py``, its networks ``X_models.py`` or
its scoring ``X_eval.py``;
``tasks/parity_data.py``, data both parity tasks draw, and ``tasks/registry.py``, which lists every
task, are the two exceptions; data imports no task. Nothing imports the package root, which
re-exports upward.
Every import form counts: ``import ponderlib.x``, ``from ponderlib.x import y``, ``from ponderlib
import x``, relative imports, and imports inside functions.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ponderlib"

LAYERS = {
    "_version": 0, "core": 0, "mechanisms": 1, "tasks": 2, "sweep": 3, "experiments": 3,
    "figures": 4, "presentation": 4, "cli": 5, "__main__": 5,
}
"""Each top-level module or package of ``ponderlib`` and its layer: a module may import its own layer and
those below it. ``presentation`` (the tables, sentences and captions a chapter builds from results) has
its place beside ``figures`` for the chapter-presentation work."""

TASK_EXCEPTIONS = {"ponderlib.tasks.parity_data", "ponderlib.tasks.registry"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every ``ponderlib`` module that ``source`` (the module ``module``) imports, in any form and at
    any depth (inside functions too). ``from ponderlib.a import b`` counts as ``ponderlib.a.b`` when
    ``b`` is a module of the package, else as ``ponderlib.a``."""
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == "ponderlib"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "ponderlib":
                continue
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                exists = (PACKAGE.parent / candidate.replace(".", "/")).with_suffix(".py").exists() or (
                    PACKAGE.parent / candidate.replace(".", "/") / "__init__.py"
                ).exists()
                found.add(candidate if exists else target)
    return found


def layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1:  # the package root re-exports from every layer
        return max(LAYERS.values()) + 1
    return LAYERS[parts[1]]


MODULES = sorted(module_name(path) for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)
LIBRARY = [m for m in MODULES if m != "ponderlib"]


def imports_of(module: str) -> set[str]:
    path = PACKAGE.parent / module.replace(".", "/")
    is_package = (path / "__init__.py").exists()
    source = (path / "__init__.py" if is_package else path.with_suffix(".py")).read_text()
    return imported_modules(source, module, is_package)


def test_every_module_sits_in_a_layer():
    top = {m.split(".")[1] for m in LIBRARY}
    assert top <= set(LAYERS), top - set(LAYERS)
    assert {"core", "mechanisms", "tasks", "sweep", "experiments", "figures"} <= top


@pytest.mark.parametrize("module", LIBRARY)
def test_imports_run_only_downwards(module):
    upward = sorted(i for i in imports_of(module) if layer(i) > layer(module))
    assert not upward, f"{module} imports {upward} from a higher layer"


def task_of(module: str) -> str:
    """The task a module of ``tasks/`` belongs to: ``ponderlib.tasks.sorting_data`` to ``sorting``."""
    name = module.rsplit(".", 1)[1]
    return name.removesuffix("_data").removesuffix("_eval").removesuffix("_models")


@pytest.mark.parametrize("module", [m for m in LIBRARY if m.startswith("ponderlib.tasks.") and m not in TASK_EXCEPTIONS])
def test_a_task_imports_no_other_task(module):
    tasks = {i for i in imports_of(module) if i.startswith("ponderlib.tasks.")} - {"ponderlib.tasks.parity_data"}
    others = {i for i in tasks if task_of(i) != task_of(module)}
    assert not others, f"{module} imports the tasks {sorted(others)}"


def test_task_of_reads_the_module_name():
    assert task_of("ponderlib.tasks.sorting_data") == task_of("ponderlib.tasks.sorting") == "sorting"
    assert task_of("ponderlib.tasks.parity_eval") == "parity" != task_of("ponderlib.tasks.sequence_parity")


@pytest.mark.parametrize("module", [m for m in LIBRARY if m.startswith("ponderlib.tasks.") and m.endswith("_data")])
def test_data_is_data_not_a_task(module):
    assert not {i for i in imports_of(module) if i.startswith("ponderlib.tasks.")} - {module}


def test_the_layering_sees_every_import_form():
    source = """
import ponderlib.figures.style
from ponderlib import cli
from ponderlib.tasks import parity
from ponderlib.sweep.presets import PRESETS
from .. import experiments
from ..figures.widgets import figure_switcher
from . import seeds


def late():
    from ponderlib import __version__
"""
    found = imported_modules(source, "ponderlib.core.engine")
    assert found == {
        "ponderlib.figures.style", "ponderlib.cli", "ponderlib.tasks.parity", "ponderlib.sweep.presets",
        "ponderlib.experiments", "ponderlib.figures.widgets", "ponderlib.core.seeds", "ponderlib",
    }
    assert {i for i in found if layer(i) > layer("ponderlib.core.engine")} == found - {"ponderlib.core.seeds"}


def test_parity_data_is_data_not_a_task():
    assert not {i for i in imports_of("ponderlib.tasks.parity_data") if layer(i) > layer("ponderlib.core")}
