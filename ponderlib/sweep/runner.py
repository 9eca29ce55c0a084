"""Sweeps: one task trained over a grid of config values times a list of seeds, in this process, on
local worker processes, or on a Ray cluster, with every finished run appended to a results file.

A sweep is a task of :data:`~ponderlib.tasks.registry.TASKS`, a **grid** (``{field: [values]}``: every
combination is a grid point), the **fixed** fields every run shares (``{field: value}``) and the
**seeds**; each grid point is trained once per seed. :func:`make_spec` checks all of it before the
first run: the task, every field name, and every config the sweep will train (each is built and
validated), so a typing error in the last grid value fails in a second, not after an hour.

The results file holds one JSON object per line, one per finished run::

    {"task": "parity", "point": {"tau": 0.001}, "seed": 0, "config": {...}, "summary": {...}}

where ``config`` is the run's whole config as the sweep built it
(:meth:`~ponderlib.core.engine.TrainConfig.to_dict`, seed included) and ``summary`` the task result's
whole :meth:`~ponderlib.core.engine.TrainResult.summary` (metrics, device, training updates, seconds,
library version). A line is appended, flushed and synced to disk as each run ends. A run's identity
is its **key**: the task and its config (:func:`run_key`). Running the same sweep again skips
every run whose key is already in the file, so an interrupted sweep (Ctrl-C, a lost worker, a killed
machine) loses only the runs that were in flight; a last line cut short by a killed writer is
dropped. One sweep writes to a results file at a time.

Executors (``executor=``): ``"inprocess"`` (the chapters' default on a 2-core machine);
``"pool"``, local worker processes (started with ``spawn``, one torch thread each through the
configs' ``threads``); ``"ray"``, a Ray cluster (``pip install "ponderlib[ray]"``): a local one
started for the sweep, or an existing one at ``address`` (``"auto"`` or ``"host:port"``; every
node needs ``ponderlib`` installed). Every run seeds itself from its config
(:func:`~ponderlib.core.engine.start_run`), so the same sweep gives the same numbers under every executor.

:func:`summarize` turns records into the mean and spread over seeds per grid point;
:mod:`ponderlib.figures.sweep` draws them. :data:`PRESETS` are the papers' sweeps at their scale.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
import os
import re
import statistics
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import torch
from tqdm.auto import tqdm

from ponderlib.core.engine import TrainConfig
from ponderlib.tasks.registry import get_task
from ponderlib.core.validation import check_choice, check_int, check_non_negative

EXECUTORS = ("inprocess", "pool", "ray")

SPEC_KEYS = ("task", "grid", "seeds", "fixed")
"""The keys of a spec file (``fixed`` is optional)."""

NOT_SET_BY_SPEC = {"seed": "seeds are given as seeds, not as a field", "progress": "a sweep shows its own progress"}
"""Config fields a grid or the fixed fields must not set, and why."""

PLACEMENT_FIELDS = ("device", "threads")
"""Fields that say where a run runs, not what it is: not part of a run's key, so not a grid field."""

GPU_SHARE = 0.25
"""The share of a GPU each Ray task asks for when CUDA is available and ``num_gpus`` is not given:
the book's models are small, so four runs share one GPU."""

RUN_FIELDS = ("reached_target", "seconds_to_target", "seconds", "updates")
"""Summary entries every task has (how the run went, not what the task measured): listed last."""

NOT_METRICS = {"seed", "torch_threads", "interrupted"}
"""Numeric summary entries that describe a run rather than measure it (config fields are excluded too)."""


@dataclass(frozen=True)
class SweepSpec:
    """What a sweep trains: a task name, a grid ``{field: [values]}``, seeds, and fixed fields.

    :func:`make_spec` builds a checked one; :func:`load_spec` reads one from a file.
    """

    task: str
    grid: dict[str, list]
    seeds: list[int]
    fixed: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Run:
    """One run of a sweep: its grid point, its seed, its validated config and its key (:func:`run_key`)."""

    point: dict[str, Any]
    seed: int
    config: TrainConfig
    key: str


@dataclass
class SweepReport:
    """What :func:`sweep` did.

    Attributes:
        results_path: the results file.
        runs: runs in the sweep (grid points times seeds).
        skipped: runs already in the results file, not run again.
        finished: runs that ran now and were appended.
        failed: ``(point, seed, error)`` of the runs that raised or lost their worker.
        records: the sweep's records that are in the results file (earlier or now), in grid order.
    """

    results_path: Path
    runs: int
    skipped: int
    finished: int
    failed: list[tuple[dict, int, str]]
    records: list[dict]


class SweepIncomplete(RuntimeError):
    """Some runs of a sweep failed; the finished ones are in the results file. ``report`` says which."""

    def __init__(self, report: SweepReport) -> None:
        point, seed, error = report.failed[0]
        done = report.skipped + report.finished
        super().__init__(
            f"{len(report.failed)} of {report.runs} runs failed (first: point {point}, seed {seed}: {error}); "
            f"the {done} finished runs are in {report.results_path}: run the same sweep again to run the rest"
        )
        self.report = report


# --- the grid ----------------------------------------------------------------------------------


def expand_grid(grid: Mapping[str, Sequence]) -> list[dict[str, Any]]:
    """Every combination of the grid's values, as ``{field: value}`` dicts: the first field varies slowest.

    ``expand_grid({"method": ["act", "pondernet"], "tau": [0.1, 0.01]})`` gives 4 points, the two
    ``act`` ones first.
    """
    names = list(grid)
    return [dict(zip(names, values)) for values in itertools.product(*(grid[name] for name in names))]


def run_key(task: str, config: Mapping[str, Any]) -> str:
    """A run's identity: its task name and its whole config dict (seed included), as canonical JSON."""
    return json.dumps({"task": task, "config": dict(config)}, sort_keys=True)


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
            raise ValueError(f"{where} names {name!r}, which is not a field of {config_class.__name__}; fields: {', '.join(known)}")


def make_spec(
    task: str, grid: Mapping[str, Sequence], seeds: Sequence[int], fixed: Mapping[str, Any] | None = None
) -> SweepSpec:
    """A checked :class:`SweepSpec`: raises ``ValueError`` naming the first problem, before anything runs.

    Checks that ``task`` is a task of :data:`~ponderlib.tasks.registry.TASKS`; ``grid`` is a non-empty mapping
    of the task config's fields to non-empty lists of distinct values (not ``seed``, ``progress``,
    ``device`` or ``threads``); ``fixed`` maps other fields to single values; ``seeds`` is a non-empty
    list of distinct integers >= 0; and that the task's config accepts every combination (each is
    built and validated). Integers given for float fields become floats.
    """
    config_class = get_task(task).config
    fixed = {} if fixed is None else fixed
    if not isinstance(grid, Mapping) or not grid:
        raise ValueError(f"grid must be a non-empty mapping {{field: [values]}}, got {grid!r}")
    if not isinstance(fixed, Mapping):
        raise ValueError(f"fixed must be a mapping {{field: value}}, got {fixed!r}")
    _check_field_names("grid", grid, config_class)
    _check_field_names("fixed", fixed, config_class)
    for name in grid:
        if name in PLACEMENT_FIELDS:
            raise ValueError(f"grid must not vary {name!r}: it says where a run runs, not what it is; set it in fixed")
        if name in fixed:
            raise ValueError(f"{name!r} is in both grid and fixed; give it in one of them")
    float_fields = _float_fields(config_class)
    checked_grid = {}
    for name, values in grid.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
            raise ValueError(f"grid[{name!r}] must be a non-empty list of values, got {values!r}")
        values = [_normalise(name, value, float_fields) for value in values]
        repeated = [value for index, value in enumerate(values) if value in values[:index]]
        if repeated:
            raise ValueError(f"grid[{name!r}] lists {repeated[0]!r} more than once")
        checked_grid[name] = values
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence) or not seeds:
        raise ValueError(f"seeds must be a non-empty list of integers >= 0, got {seeds!r}")
    for seed in seeds:
        check_int("seed", seed, minimum=0)
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct, got {list(seeds)!r}")
    spec = SweepSpec(task, checked_grid, list(seeds), {name: _normalise(name, v, float_fields) for name, v in fixed.items()})
    plan(spec)
    return spec


def plan(spec: SweepSpec) -> list[Run]:
    """The runs of ``spec``, grid points in :func:`expand_grid` order, seeds innermost; every config
    is built and validated (``ValueError`` naming the grid point otherwise)."""
    config_class = get_task(spec.task).config
    runs = []
    for point in expand_grid(spec.grid):
        for seed in spec.seeds:
            config = config_class(**spec.fixed, **point, seed=seed, progress=False)
            try:
                config.validate()
            except ValueError as exc:
                raise ValueError(f"grid point {point}: {exc}") from None
            runs.append(Run(point, seed, config, run_key(spec.task, config.to_dict())))
    return runs


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
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"spec file {str(path)!r} cannot be read: {exc.strerror}") from None
    if suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"spec file {str(path)!r} is not valid JSON: {exc}") from None
    else:
        data = _load_yaml(path, text)
    if not isinstance(data, dict):
        raise ValueError(f"spec file {str(path)!r} must hold a mapping with keys {', '.join(SPEC_KEYS)}, got {type(data).__name__}")
    unknown = [key for key in data if key not in SPEC_KEYS]
    missing = [key for key in SPEC_KEYS[:3] if key not in data]
    if unknown or missing:
        problem = f"unknown key {unknown[0]!r}" if unknown else f"no {missing[0]!r}"
        raise ValueError(f"spec file {str(path)!r} has {problem}; its keys are task, grid, seeds and, optionally, fixed")
    kinds = {"task": (str, "a task name"), "grid": (dict, "a mapping {field: [values]}"),
             "seeds": (list, "a list of integers"), "fixed": (dict, "a mapping {field: value}")}
    for key, value in data.items():
        kind, what = kinds[key]
        if not isinstance(value, kind):
            raise ValueError(f"spec file {str(path)!r}: {key} must be {what}, got {value!r}")
    return SweepSpec(data["task"], data["grid"], data["seeds"], data.get("fixed", {}))


def _load_yaml(path: Path, text: str):
    """YAML with YAML 1.2's floats, so ``1e-3`` is a number (PyYAML alone reads it as a string)."""
    try:
        import yaml
    except ImportError:
        raise ValueError(f"reading the YAML spec {str(path)!r} needs PyYAML (pip install pyyaml); or write it as JSON") from None

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)$"),
        list("-+0123456789."),
    )
    try:
        return yaml.load(text, Loader=Loader)  # safe: a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise ValueError(f"spec file {str(path)!r} is not valid YAML: {' '.join(str(exc).split())}") from None


# --- the results file --------------------------------------------------------------------------

RECORD_KEYS = ("task", "point", "seed", "config", "summary")


def load_results(path: str | os.PathLike) -> list[dict]:
    """The records of a results file, in the order they were written (``[]`` if there is no file).

    A last line cut short (its writer was killed mid-line) is left out; any other line that is not a
    record raises ``ValueError`` naming the file and the line.
    """
    return _read_results(Path(path))[0]


def _read_results(path: Path) -> tuple[list[dict], int, bool]:
    """The records; the length in bytes of the file up to its last newline; whether the text after
    that newline is a whole record (written, but its newline was not)."""
    if not path.exists():
        return [], 0, False
    data = path.read_bytes()
    *lines, tail = data.split(b"\n")
    records = [_parse_record(path, number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if not tail.strip():
        return records, len(data), False
    try:
        records.append(_parse_record(path, len(lines) + 1, tail))
    except ValueError:
        return records, len(data) - len(tail), False
    return records, len(data), True


def _parse_record(path: Path, number: int, line: bytes) -> dict:
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    if not (
        isinstance(record, dict)
        and all(key in record for key in RECORD_KEYS)
        and isinstance(record["config"], dict)
        and isinstance(record["summary"], dict)
    ):
        raise ValueError(
            f"results file {str(path)!r}, line {number}: not a sweep record (a JSON object with "
            f"{', '.join(RECORD_KEYS)}); fix or remove that line"
        )
    return record


class _Appender:
    """Appends records to a results file, one JSON line each, flushed and synced to disk as it is written."""

    def __init__(self, path: Path, length: int, tail_is_record: bool) -> None:
        if path.exists() and path.stat().st_size > length:
            os.truncate(path, length)  # drop a line cut short by a killed writer
        self.file = open(path, "a")
        if tail_is_record:
            self.file.write("\n")

    def append(self, record: dict) -> None:
        self.file.write(json.dumps(record) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        self.file.close()


# --- executors ---------------------------------------------------------------------------------


def _run_one(train: Callable[[TrainConfig], Any], config: TrainConfig) -> dict:
    """Train one run and return its summary: what a worker sends back (the model stays behind)."""
    return train(config).summary()


Finish = Callable[[Run, dict], None]
Fail = Callable[[Run, BaseException], None]


def _execute_inprocess(train: Callable, runs: list[Run], finish: Finish, fail: Fail) -> None:
    for run in runs:
        try:
            summary = _run_one(train, run.config)
        except Exception as exc:  # one failed run does not stop the others
            fail(run, exc)
        else:
            finish(run, summary)


def _execute_pool(train: Callable, runs: list[Run], finish: Finish, fail: Fail, workers: int | None) -> None:
    workers = min(workers or os.cpu_count() or 1, len(runs))
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
    completed = False
    try:
        futures = {pool.submit(_run_one, train, run.config): run for run in runs}
        for future in as_completed(futures):
            try:
                summary = future.result()
            except Exception as exc:  # the run raised, or its worker died (BrokenProcessPool)
                fail(futures[future], exc)
            else:
                finish(futures[future], summary)
        completed = True
    finally:
        pool.shutdown(wait=completed, cancel_futures=True)


def _import_ray():
    try:
        import ray
    except ImportError:
        raise ValueError('executor="ray" needs Ray: pip install "ponderlib[ray]" (or "ray>=2.9")') from None
    return ray


def _execute_ray(
    train: Callable, runs: list[Run], finish: Finish, fail: Fail,
    workers: int | None, address: str | None, num_gpus: float | None,
) -> None:
    ray = _import_ray()
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, num_cpus=workers if address is None else None, include_dashboard=False)
    if num_gpus is None:
        num_gpus = GPU_SHARE if torch.cuda.is_available() else 0
    remote = ray.remote(num_cpus=1, num_gpus=num_gpus)(_run_one)
    refs = {remote.remote(train, run.config): run for run in runs}
    waiting = list(refs)
    try:
        while waiting:
            (ref,), waiting = ray.wait(waiting, num_returns=1)
            try:
                summary = ray.get(ref)
            except ray.exceptions.RayError as exc:  # the run raised (its error is the cause), or its worker died
                fail(refs[ref], getattr(exc, "cause", None) or exc)
            else:
                finish(refs[ref], summary)
    finally:
        for ref in waiting:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


# --- the sweep ---------------------------------------------------------------------------------


def sweep(
    task: str,
    grid: Mapping[str, Sequence],
    seeds: Sequence[int],
    results_path: str | os.PathLike,
    *,
    fixed: Mapping[str, Any] | None = None,
    executor: str = "inprocess",
    workers: int | None = None,
    address: str | None = None,
    num_gpus: float | None = None,
    progress: bool = True,
) -> SweepReport:
    """Train ``task`` at every grid point for every seed, appending each finished run to ``results_path``.

    Runs already in ``results_path`` (same task, same config, same seed) are skipped, so calling
    this again after an interruption runs only what is missing.

    Args:
        task: a name of :data:`~ponderlib.tasks.registry.TASKS` (``"parity"``, ``"sequence_parity"``, ``"sorting"``, ``"convex_hull"``, ``"chains"``).
        grid: ``{field: [values]}`` of the task's config; every combination is trained.
        seeds: the seeds each grid point is trained with.
        results_path: the JSON-lines results file (created if missing; its folder must exist).
        fixed: ``{field: value}`` shared by every run (the config's defaults otherwise).
        executor: ``"inprocess"``, ``"pool"`` (local processes) or ``"ray"``.
        workers: worker processes for ``"pool"`` (default: one per CPU core), or the CPUs of the
            local cluster ``"ray"`` starts (default: all); each run uses its config's ``threads``
            (1 unless set), so one run per core.
        address: ``"ray"`` only: an existing cluster (``"auto"``, ``"host:port"``); None starts a
            local one for the sweep and stops it after. If this process is already connected to Ray,
            that connection is used.
        num_gpus: ``"ray"`` only: the share of a GPU each run asks for (default :data:`GPU_SHARE`
            when CUDA is available here, else 0).
        progress: show a progress bar over runs (tqdm, on stderr).

    Everything is checked before the first run (:func:`make_spec`, the executor's options, the
    results file); problems raise ``ValueError``. Runs that raise or lose their worker do not stop
    the others; if any failed, :class:`SweepIncomplete` is raised after the rest have finished.
    ``KeyboardInterrupt`` stops the sweep; a run it interrupted is not recorded.

    Returns:
        a :class:`SweepReport`.
    """
    check_choice("executor", executor, EXECUTORS)
    if workers is not None:
        check_int("workers", workers, minimum=1)
        if executor == "inprocess":
            raise ValueError("workers applies to executor='pool' or 'ray', not 'inprocess'")
    for name, value in (("address", address), ("num_gpus", num_gpus)):
        if value is not None and executor != "ray":
            raise ValueError(f"{name} applies to executor='ray' only, got {name}={value!r} with executor={executor!r}")
    if num_gpus is not None:
        check_non_negative("num_gpus", num_gpus)
    runs = plan(make_spec(task, grid, seeds, fixed))
    path = Path(results_path)
    if path.is_dir() or not path.parent.is_dir():
        raise ValueError(f"results_path must be a file in an existing folder, got {str(path)!r}")
    records, length, tail_is_record = _read_results(path)
    done: dict[str, dict] = {}
    for record in records:
        done.setdefault(run_key(record["task"], record["config"]), record)
    pending = [run for run in runs if run.key not in done]
    if executor == "ray" and pending and _import_ray().is_initialized() and (address, workers) != (None, None):
        raise ValueError("this process is already connected to Ray: leave address and workers unset to use that connection")
    train = get_task(task).train
    new: dict[str, dict] = {}
    failed: list[tuple[dict, int, str]] = []
    bar = tqdm(total=len(runs), initial=len(runs) - len(pending), desc=f"sweep {task}", unit="run", disable=not progress)
    appender = _Appender(path, length, tail_is_record)

    def finish(run: Run, summary: dict) -> None:
        if summary.get("interrupted"):
            raise KeyboardInterrupt  # stopped by Ctrl-C: not a finished run, so not recorded
        record = {"task": task, "point": run.point, "seed": run.seed, "config": run.config.to_dict(), "summary": summary}
        appender.append(record)
        new[run.key] = record
        bar.update()

    def fail(run: Run, exc: BaseException) -> None:
        failed.append((run.point, run.seed, _one_line(exc)))
        bar.set_postfix(failed=len(failed), refresh=False)
        bar.update()

    execute = {
        "inprocess": lambda: _execute_inprocess(train, pending, finish, fail),
        "pool": lambda: _execute_pool(train, pending, finish, fail, workers),
        "ray": lambda: _execute_ray(train, pending, finish, fail, workers, address, num_gpus),
    }[executor]
    try:
        if pending:
            execute()
    finally:
        appender.close()
        bar.close()
    report = SweepReport(
        results_path=path,
        runs=len(runs),
        skipped=len(runs) - len(pending),
        finished=len(new),
        failed=failed,
        records=[done.get(run.key) or new[run.key] for run in runs if run.key in done or run.key in new],
    )
    if failed:
        raise SweepIncomplete(report)
    return report


# --- summaries ---------------------------------------------------------------------------------


def run_metrics(summary: Mapping[str, Any]) -> dict[str, float]:
    """The numbers one run measured, from its summary: every number (bools as 0 or 1, so their mean
    over seeds is a fraction) except the config's fields, the seed and the thread count; a nested
    mapping (``exact_match_by_length``) as ``name.key``; None (not measured) left out."""
    skip = NOT_METRICS | set(summary.get("config", {})) | {"config"}
    metrics: dict[str, float] = {}

    def collect(prefix: str, mapping: Mapping) -> None:
        for name, value in mapping.items():
            if isinstance(value, Mapping):
                collect(f"{prefix}{name}.", value)
            elif isinstance(value, (bool, int, float)) and not (isinstance(value, float) and math.isnan(value)):
                metrics[f"{prefix}{name}"] = float(value)

    collect("", {name: value for name, value in summary.items() if name not in skip})
    return metrics


def _spread(values: list[float]) -> dict[str, float | int | None]:
    return {
        "n": len(values),
        "mean": statistics.fmean(values),
        "std": statistics.stdev(values) if len(values) > 1 else None,
        "min": min(values),
        "max": max(values),
    }


def summarize(records: Iterable[Mapping]) -> list[dict]:
    """Mean and spread over seeds per grid point, for every metric the runs measured (:func:`run_metrics`).

    Runs are grouped by task and whole config but the seed, so sweeps with different fixed fields
    appended to one file stay apart; a run listed twice counts once.

    Returns:
        one row per group, in the order first seen: ``{"task", "point", "config", "seeds",
        "metrics": {name: {"n", "mean", "std", "min", "max"}}}``, where ``config`` is the config
        without the seed, ``std`` the sample standard deviation over seeds (None for one seed) and
        ``n`` the number of seeds that measured the metric (``seconds_to_target`` exists only where
        the target was reached).
    """
    groups: dict[str, dict] = {}
    seen: set[str] = set()
    for record in records:
        config = record["config"]
        key = run_key(record["task"], config)
        if key in seen:
            continue
        seen.add(key)
        setting = {name: value for name, value in config.items() if name != "seed"}
        group = groups.setdefault(
            run_key(record["task"], setting),
            {"task": record["task"], "point": record["point"], "config": setting, "seeds": [], "values": {}},
        )
        group["seeds"].append(record["seed"])
        for name, value in run_metrics(record["summary"]).items():
            group["values"].setdefault(name, []).append(value)
    return [
        {**{k: v for k, v in group.items() if k != "values"}, "metrics": {n: _spread(v) for n, v in group["values"].items()}}
        for group in groups.values()
    ]


def format_summary(rows: Sequence[Mapping], nested: bool = False) -> str:
    """:func:`summarize`'s rows as text: one table per metric, one line per grid point (the fields that
    differ between rows, the number of seeds, mean, std, min, max over seeds).

    Metrics inside a mapping (``accuracy_by_difficulty.7``: one per difficulty or length) get a table
    each only with ``nested=True``; otherwise a last line counts them.
    """
    if not rows:
        return "no runs"
    columns = ["task"] if len({row["task"] for row in rows}) > 1 else []
    for row in rows:
        for name in row["point"]:
            if name not in columns:
                columns.append(name)
    for name in rows[0]["config"]:
        if name not in columns and len({json.dumps(row["config"].get(name)) for row in rows}) > 1:
            columns.append(name)
    every_metric = dict.fromkeys(name for row in rows for name in row["metrics"])
    metrics = sorted((name for name in every_metric if nested or "." not in name), key=lambda name: name in RUN_FIELDS)
    blocks = []
    for metric in metrics:
        header = [*columns, "seeds", "mean", "std", "min", "max"]
        lines = [header]
        for row in rows:
            if metric not in row["metrics"]:
                continue
            stats = row["metrics"][metric]
            setting = [row["task"] if name == "task" else row["config"].get(name, row["point"].get(name)) for name in columns]
            numbers = [stats[k] for k in ("mean", "std", "min", "max")]
            lines.append([*map(_cell, setting), str(stats["n"]), *map(_cell, numbers)])
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        table = ["  ".join(cell.rjust(width) for cell, width in zip(line, widths)) for line in lines]
        blocks.append("\n".join([metric, *table]))
    if len(metrics) < len(every_metric):
        groups = sorted({name.split(".")[0] for name in every_metric if "." in name})
        blocks.append(f"and {len(every_metric) - len(metrics)} metrics per difficulty or length ({', '.join(groups)}): see --json")
    return "\n\n".join(blocks)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


# --- the papers' sweeps --------------------------------------------------------------------------


@dataclass(frozen=True)
class Preset:
    """A paper's sweep at the paper's scale: what it reproduces, and its task, grid, fixed fields,
    seeds and budget in training updates (``max_updates``)."""

    description: str
    task: str
    grid: dict[str, list]
    fixed: dict[str, Any]
    seeds: list[int]
    max_updates: int

    @property
    def runs(self) -> int:
        """Grid points times seeds."""
        return math.prod(len(values) for values in self.grid.values()) * len(self.seeds)

    def spec(self) -> SweepSpec:
        """The preset as a :class:`SweepSpec` (its budget in ``fixed``), for :func:`sweep`."""
        grid = {name: list(values) for name, values in self.grid.items()}
        return SweepSpec(self.task, grid, list(self.seeds), {**self.fixed, "max_updates": self.max_updates})


GRAVES_TAUS = sorted({float(f"{i}e-{j}") for i in range(1, 10) for j in range(1, 5)})
"""Graves' time penalties for parity: ``tau = i x 10^-j`` for i = 1..9, j = 1..4 (36 values, 1e-4 to 0.9)."""

PAPER_PARITY = {"n_elems": 64, "hidden": 128, "batch_size": 128, "target_accuracy": None, "eval_every": 1000}
"""What the three parity presets share: 64-element vectors, 128 units, 128 vectors per training
update, the whole budget trained (no early stop), held-out accuracy every 1000 training updates."""

BANINO_PARITY = {**PAPER_PARITY, "lr": 3e-4, "beta": 0.01, "max_ponder_steps": 20}
"""What Banino et al.'s two parity sweeps add: Adam at lr 3e-4, beta 0.01, at most 20 ponder steps."""

PRESETS: dict[str, Preset] = {
    "graves-parity-tau": Preset(
        description=(
            "Graves 2016, sec. 3.1 (fig. 3, 4): ACT on 64-element parity, 1 to 64 non-zero entries, "
            "error and ponder time against the time penalty tau = i x 10^-j (i = 1..9, j = 1..4), "
            "20 networks per tau; batch 128, Adam at lr 1e-4, at most M = 100 ponder steps. The paper's network is a simple RNN of "
            "128 tanh units; ours is a GRU cell of 128 units (the book's model for both methods)."
        ),
        task="parity",
        grid={"tau": GRAVES_TAUS},
        fixed={**PAPER_PARITY, "method": "act", "lr": 1e-4, "eps": 0.01, "max_ponder_steps": 100},
        seeds=list(range(20)),
        max_updates=100_000,
    ),
    "pondernet-parity-interpolation": Preset(
        description=(
            "Banino et al. 2021, sec. 3.1 (interpolation): PonderNet on 64-element parity, 1 to 64 "
            "non-zero entries in training and test, over the prior's lambda_p = 0.1..0.9, beta 0.01, "
            "at most 20 ponder steps, batch 128, Adam at lr 3e-4, 10 seeds; a GRU cell of 128 units."
        ),
        task="parity",
        grid={"lambda_p": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]},
        fixed={**BANINO_PARITY, "method": "pondernet"},
        seeds=list(range(10)),
        max_updates=100_000,
    ),
    "pondernet-parity-extrapolation": Preset(
        description=(
            "Banino et al. 2021, sec. 3.1 (extrapolation): ACT (tau 1e-3) and PonderNet (lambda_p 0.1, "
            "beta 0.01) on 96-element parity trained on 1 to 48 non-zero entries, at most 20 ponder "
            "steps, batch 128, Adam at lr 3e-4, 10 seeds; a GRU cell of 128 units. Each run reports "
            "interpolation_accuracy (1 to 48 entries), extrapolation_accuracy (49 to 96) and accuracy "
            "and ponder steps at every difficulty."
        ),
        task="parity",
        grid={"method": ["act", "pondernet"]},
        fixed={**BANINO_PARITY, "n_elems": 96, "min_nonzero": 1, "max_nonzero": 48, "tau": 1e-3, "lambda_p": 0.1},
        seeds=list(range(10)),
        max_updates=100_000,
    ),
}
"""The papers' parity sweeps at their scale, for ``python -m ponderlib sweep --preset NAME``. Budgets
are ours (100,000 training updates each); ``--set max_updates=...`` changes them."""
