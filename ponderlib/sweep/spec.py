"""What a sweep trains, checked before anything runs: the spec, its plan of runs, a named sweep
(:class:`Preset`), and spec files.

A sweep is a task of :data:`~ponderlib.tasks.registry.TASKS`, a **grid** (``{field: [values]}``: every
combination is a grid point), the **fixed** fields every run shares (``{field: value}``) and the
**seeds**; each grid point is trained once per seed. :func:`make_spec` checks all of it before the
first run: the task, every field name, and every config the sweep will train (each is built and
validated once, and carried in the spec's ``runs``), so a typing error in the last grid value fails in
a second, not after an hour. :func:`load_spec` reads a spec from a YAML or JSON file.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import stat
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from ponderlib.core.config import TrainConfig
from ponderlib.core.seeds import SEED_MAX
from ponderlib.core.validation import check_int, short
from ponderlib.sweep.results import OPEN_FLAGS, run_key
from ponderlib.tasks.registry import TASKS, get_task

SPEC_KEYS = ("task", "grid", "seeds", "fixed")
"""The keys of a spec file (``fixed`` is optional)."""

SPEC_MAX_BYTES = 1_000_000
"""The largest spec file read, in bytes (a spec is a few lines; a bigger file is a mistake): a larger
one is refused before it is read."""

MAX_RUNS = 100_000
"""The most runs one sweep plans (grid points times seeds): the papers' sweeps have a few hundred, so a
larger count is a typing error (``--seeds 0-1000000000``), refused before anything is built."""

NOT_SET_BY_SPEC = {"seed": "seeds are given as seeds, not as a field", "progress": "a sweep shows its own progress"}
"""Config fields a grid or the fixed fields must not set, and why."""

PLACEMENT_FIELDS = ("device", "threads")
"""Fields that say where a run runs, not what it is: not part of a run's key, so not a grid field."""


@dataclass(frozen=True)
class Run:
    """One run of a sweep: its grid point, its seed, its validated config and its key (:func:`~ponderlib.sweep.results.run_key`)."""

    point: dict[str, Any]
    seed: int
    config: TrainConfig
    key: str


@dataclass(frozen=True)
class SweepSpec:
    """What a sweep trains: a task name, a grid ``{field: [values]}``, seeds, and fixed fields.

    :func:`make_spec` builds a checked one, whose ``runs`` are its plan: every run in grid order
    (:func:`expand_grid`), seeds innermost, each config built and validated. A spec read from a file
    (:func:`load_spec`) or a preset is not checked yet: its ``runs`` are None.
    """

    task: str
    grid: dict[str, list]
    seeds: list[int]
    fixed: dict[str, Any] = field(default_factory=dict)
    runs: tuple[Run, ...] | None = field(default=None, repr=False, compare=False)


def expand_grid(grid: Mapping[str, Sequence]) -> list[dict[str, Any]]:
    """Every combination of the grid's values, as ``{field: value}`` dicts: the first field varies slowest.

    ``expand_grid({"method": ["act", "pondernet"], "tau": [0.1, 0.01]})`` gives 4 points, the two
    ``act`` ones first.
    """
    names = list(grid)
    return [dict(zip(names, values)) for values in itertools.product(*(grid[name] for name in names))]


def _float_fields(config_class: type[TrainConfig]) -> set[str]:
    hints = typing.get_type_hints(config_class)
    return {name for name, hint in hints.items() if hint is float or float in typing.get_args(hint)}


def _normalise(name: str, value: Any, float_fields: set[str]) -> Any:
    """An integer given for a float field as a float, so ``tau=1`` and ``tau=1.0`` are the same run."""
    if name in float_fields and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _check_field_names(where: str, names: Iterable[str], config_class: type[TrainConfig]) -> None:
    known = [f.name for f in fields(config_class) if f.name not in NOT_SET_BY_SPEC]
    for name in names:
        if name in NOT_SET_BY_SPEC:
            raise ValueError(f"{where} must not set {name!r}: {NOT_SET_BY_SPEC[name]}")
        if name not in known:
            raise ValueError(f"{where} names {short(repr(name))}, which is not a field of {config_class.__name__}; fields: {', '.join(known)}")


def make_spec(
    task: str, grid: Mapping[str, Sequence], seeds: Sequence[int], fixed: Mapping[str, Any] | None = None
) -> SweepSpec:
    """A checked :class:`SweepSpec`, with its plan in ``runs``: raises ``ValueError`` naming the first
    problem, before anything runs.

    Checks that ``task`` is a task of :data:`~ponderlib.tasks.registry.TASKS`; ``grid`` is a non-empty mapping
    of the task config's fields to non-empty lists of distinct values (not ``seed``, ``progress``,
    ``device`` or ``threads``); ``fixed`` maps other fields to single values; ``seeds`` is a non-empty
    list of distinct integers >= 0; and that the task's config accepts every combination (each is
    built and validated, once: :func:`~ponderlib.core.engine.start_run` does not validate it again).
    Integers given for float fields become floats.
    """
    try:
        config_class = get_task(task).config
    except (ValueError, TypeError):  # the message would print the name whole
        raise ValueError(f"task must be one of {', '.join(map(repr, TASKS))}; got {short(repr(task))}") from None
    fixed = {} if fixed is None else fixed
    if not isinstance(grid, Mapping) or not grid:
        raise ValueError(f"grid must be a non-empty mapping {{field: [values]}}, got {short(repr(grid))}")
    if not isinstance(fixed, Mapping):
        raise ValueError(f"fixed must be a mapping {{field: value}}, got {short(repr(fixed))}")
    _check_field_names("grid", grid, config_class)
    _check_field_names("fixed", fixed, config_class)
    for name in grid:
        if name in PLACEMENT_FIELDS:
            raise ValueError(f"grid must not vary {name!r}: it says where a run runs, not what it is; set it in fixed")
        if name in fixed:
            raise ValueError(f"{name!r} is in both grid and fixed; give it in one of them")
    for name, values in grid.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
            raise ValueError(f"grid[{name!r}] must be a non-empty list of values, got {short(repr(values))}")
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence) or not seeds:
        raise ValueError(f"seeds must be a non-empty list of integers >= 0, got {short(repr(seeds))}")
    runs = math.prod(len(values) for values in grid.values()) * len(seeds)
    if runs > MAX_RUNS:
        raise ValueError(f"a sweep runs at most {MAX_RUNS:,} runs (grid points times seeds); this one has {runs:,}")
    for seed in seeds:
        check_int("seed", seed, minimum=0, maximum=SEED_MAX)
    _check_distinct("seeds", seeds)
    float_fields = _float_fields(config_class)
    checked_grid = {name: [_normalise(name, value, float_fields) for value in values] for name, values in grid.items()}
    for name, values in checked_grid.items():
        _check_distinct(f"grid[{name!r}]", values)
    checked_fixed = {name: _normalise(name, value, float_fields) for name, value in fixed.items()}
    runs = _plan(task, config_class, checked_grid, list(seeds), checked_fixed)
    return SweepSpec(task, checked_grid, list(seeds), checked_fixed, runs)


def _check_distinct(name: str, values: Iterable) -> None:
    """Raise ``ValueError`` naming the first value listed twice in ``values``."""
    repeated = _first_repeated(values)
    if repeated is not None:
        raise ValueError(f"{name} must be distinct: it lists {short(repeated)} more than once")


def _first_repeated(values: Iterable) -> str | None:
    """The ``repr`` of the first value met a second time in ``values``, or None: one pass (compared by
    ``repr``, so unhashable values too), so a spec's 100,000 keys take no longer than reading them."""
    seen: set[str] = set()
    for value in values:
        text = repr(value)
        if text in seen:
            return text
        seen.add(text)
    return None


def _plan(
    task: str, config_class: type[TrainConfig], grid: dict[str, list], seeds: list[int], fixed: dict[str, Any]
) -> tuple[Run, ...]:
    """The runs: grid points in :func:`expand_grid` order, seeds innermost; every config built and
    validated (``ValueError`` naming the grid point otherwise).

    A run holds the fields its method uses (:meth:`~ponderlib.core.config.TrainConfig.method_fields`): in
    a grid that crosses ``method`` with one method's fields, another method's point leaves those fields
    out, and its run, the same at every value of them, is planned once, at its first point. ``fixed``
    fields of another method are left out too (one ``fixed`` may serve every method of the grid); a
    grid field that no run uses is refused."""
    runs, keys = [], set()
    for grid_point in expand_grid(grid):
        used = config_class.method_fields({**fixed, **grid_point})
        point = {name: value for name, value in grid_point.items() if name in used}
        for seed in seeds:
            config = config_class(**used, seed=seed, progress=False)
            try:
                config.validate_once()
            except ValueError as exc:
                raise ValueError(f"grid point {short(repr(grid_point))}: {short(str(exc), 300)}") from None
            key = run_key(task, config.to_dict())
            if key not in keys:
                keys.add(key)
                runs.append(Run(point, seed, config, key))
    unused = set(grid) - {name for run in runs for name in run.point}
    if unused:  # every point the same run: a grid of another method's field
        name = sorted(unused)[0]
        raise ValueError(
            f"grid varies {name!r}, which no run of this sweep uses (its method: "
            f"{', '.join(sorted({repr(getattr(run.config, 'method', None)) for run in runs}))}): the runs would all be the same"
        )
    return tuple(runs)


# --- named sweeps ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Preset:
    """A named sweep (a chapter's live setting over 20 seeds, or a paper's sweep at the paper's scale):
    what it runs and why, and its task, grid, fixed fields, seeds and budget in training updates
    (``max_updates``). The book's are :data:`~ponderlib.sweep.presets.PRESETS`."""

    description: str
    task: str
    grid: dict[str, list]
    fixed: dict[str, Any]
    seeds: list[int]
    max_updates: int

    @cached_property
    def runs(self) -> int:
        """The runs a sweep of it plans: grid points times seeds, less the repeats of a run at values of a
        field its method does not use (:func:`make_spec`)."""
        spec = self.spec()
        return len(make_spec(spec.task, spec.grid, spec.seeds, spec.fixed).runs)

    def config(self, seed: int, *, max_updates: int | None = None, device: str | None = None, **point: Any) -> TrainConfig:
        """The config of this preset's run at the grid point ``point`` (every grid field named, each at one of
        the grid's values) with ``seed``: what a chapter trains live to be a run of its evidence. It is built
        as the sweep builds its runs (:func:`make_spec`), so it has the run key the sweep gives that run, and
        is validated; unlike a sweep's run, it shows its progress bar (``progress`` unset).

        ``max_updates``: another budget in training updates (the preset's when None), which makes it a run
        of another setting; ``device``: where it trains (None: CUDA if available, else the CPU), which no
        run key holds.

        Raises:
            ValueError: ``point`` does not name exactly the grid fields, or a value is not in the grid, or
                ``seed`` is not an integer in ``[0, SEED_MAX]``, or ``max_updates`` not one >= 1, or
                ``device`` is not one torch has here.
        """
        check_int("seed", seed, minimum=0, maximum=SEED_MAX)
        self.check_point(point)
        if max_updates is not None:
            check_int("max_updates", max_updates, minimum=1)
        fixed = {**self.fixed, "max_updates": self.max_updates if max_updates is None else max_updates}
        if device is not None:
            fixed["device"] = device
        used = get_task(self.task).config.method_fields({**fixed, **point})  # a point's run, as the sweep plans it
        grid = {name: [value] for name, value in point.items() if name in used}
        (run,) = make_spec(self.task, grid, [seed], fixed).runs
        return replace(run.config, progress=None)  # a sweep's runs show no progress bar; a chapter's do

    def check_point(self, point: Mapping[str, Any], of: str = "") -> None:
        """``ValueError`` unless ``point`` names exactly the grid fields (``of``: more of the message, e.g. the
        preset's name), each at one of the grid's values."""
        if set(point) != set(self.grid):
            raise ValueError(f"point must name the grid fields {sorted(self.grid)}{of}, got {sorted(point)}")
        for name, value in point.items():
            if value not in self.grid[name]:
                raise ValueError(f"{name} must be one of the grid's values {self.grid[name]}{of}, got {value!r}")

    def spec(self) -> SweepSpec:
        """The preset as a :class:`SweepSpec` (its budget in ``fixed``), not yet checked:
        :func:`~ponderlib.sweep.runner.sweep` takes its fields and checks them (:func:`make_spec`)."""
        grid = {name: list(values) for name, values in self.grid.items()}
        return SweepSpec(self.task, grid, list(self.seeds), {**self.fixed, "max_updates": self.max_updates})


# --- spec files ------------------------------------------------------------------------------


def load_spec(path: str | os.PathLike) -> SweepSpec:
    """Read a spec file: JSON (``.json``) or YAML (``.yaml``, ``.yml``) holding a mapping with the keys
    ``task``, ``grid``, ``seeds`` and, optionally, ``fixed``. Example (YAML)::

        task: parity
        fixed: {method: act, n_elems: 8, max_updates: 2000}
        grid: {tau: [1e-3, 1e-2, 1e-1]}
        seeds: [0, 1, 2]

    The content is checked by :func:`make_spec`; a file that cannot be read or parsed, or is not such a
    mapping, raises ``ValueError`` naming it.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".json", ".yaml", ".yml"):
        raise ValueError(f"spec file must end in .json, .yaml or .yml, got {str(path)!r}")
    text = _read_spec_text(path)
    if suffix == ".json":
        try:
            data = json.loads(text, object_pairs_hook=_no_duplicate_keys)
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"spec file {str(path)!r} is not valid JSON: {short(str(exc), 300)}") from None
    else:
        data = _load_yaml(path, text)
    if not isinstance(data, dict):
        raise ValueError(f"spec file {str(path)!r} must hold a mapping with keys {', '.join(SPEC_KEYS)}, got {type(data).__name__}")
    unknown = [key for key in data if key not in SPEC_KEYS]
    missing = [key for key in SPEC_KEYS[:3] if key not in data]
    if unknown or missing:
        problem = f"unknown key {short(repr(unknown[0]))}" if unknown else f"no {missing[0]!r}"
        raise ValueError(f"spec file {str(path)!r} has {problem}; its keys are task, grid, seeds and, optionally, fixed")
    kinds = {"task": (str, "a task name"), "grid": (dict, "a mapping {field: [values]}"),
             "seeds": (list, "a list of integers"), "fixed": (dict, "a mapping {field: value}")}
    for key, value in data.items():
        kind, what = kinds[key]
        if not isinstance(value, kind):
            raise ValueError(f"spec file {str(path)!r}: {key} must be {what}, got {short(repr(value))}")
    return SweepSpec(data["task"], data["grid"], data["seeds"], data.get("fixed", {}))


def _read_spec_text(path: Path) -> str:
    """The text of a spec file, refused unread (``ValueError``) when it is not a regular file (a pipe
    would block the read) or is larger than :data:`SPEC_MAX_BYTES`: checked by ``stat`` before it is
    opened, and again on the opened file (the path may have changed in between)."""
    try:
        _check_spec_file(path, os.stat(path))
        with open(os.open(path, os.O_RDONLY | OPEN_FLAGS), "rb") as file:
            _check_spec_file(path, os.fstat(file.fileno()))
            data = file.read(SPEC_MAX_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"spec file {str(path)!r} cannot be read: {exc.strerror}") from None
    if len(data) > SPEC_MAX_BYTES:
        raise ValueError(f"spec file {str(path)!r} has more than {SPEC_MAX_BYTES} bytes; a spec holds at most {SPEC_MAX_BYTES}")
    try:
        return data.decode()
    except UnicodeDecodeError as exc:
        raise ValueError(f"spec file {str(path)!r} is not UTF-8 text (byte {exc.start} is not)") from None


def _check_spec_file(path: Path, info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"spec file {str(path)!r} is not a regular file (a folder, a pipe or a device)")
    if info.st_size > SPEC_MAX_BYTES:
        raise ValueError(f"spec file {str(path)!r} has {info.st_size} bytes; a spec holds at most {SPEC_MAX_BYTES}")


def _load_yaml(path: Path, text: str):
    """YAML with YAML 1.2's floats, so ``1e-3`` is a number (PyYAML alone reads it as a string); no
    aliases (a few bytes of nested aliases expand to gigabytes) and no key given twice."""
    try:
        import yaml
    except ImportError:
        raise ValueError(f"reading the YAML spec {str(path)!r} needs PyYAML (pip install pyyaml); or write it as JSON") from None

    class Loader(yaml.SafeLoader):
        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                raise yaml.YAMLError("it uses a YAML alias (*name): write the values out")
            return super().compose_node(parent, index)

        def construct_mapping(self, node, deep=False):
            repeated = _first_repeated(self.construct_object(key, deep=True) for key, _ in node.value)
            if repeated is not None:
                raise yaml.YAMLError(f"it gives the key {short(repeated)} twice")
            return super().construct_mapping(node, deep)

    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)$"),
        list("-+0123456789."),
    )
    try:
        return yaml.load(text, Loader=Loader)  # safe: a SafeLoader subclass
    except RecursionError:
        raise ValueError(f"spec file {str(path)!r} nests too deeply") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"spec file {str(path)!r} is not valid YAML: {short(' '.join(str(exc).split()), 300)}") from None


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    repeated = _first_repeated(key for key, _ in pairs)
    if repeated is not None:
        raise ValueError(f"the key {short(repeated)} is given twice")
    return dict(pairs)
