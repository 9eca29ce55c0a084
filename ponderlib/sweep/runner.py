"""The sweep itself: :func:`sweep` checks everything, skips the runs already in the results file,
trains the rest on an executor and appends each as it ends; :class:`SweepReport` says what it did.

The order is fixed so that nothing runs on a bad sweep: the executor's options, then the spec and its
plan (:func:`~ponderlib.sweep.spec.make_spec`: every config built and validated, once), then the results
file (:mod:`ponderlib.sweep.results`: locked, read, not written to before a run finishes), then, on Ray,
the cluster's address (:func:`~ponderlib.sweep.executors.check_ray_connection`). Runs that raise or lose their worker do not stop the others; if
any failed, :class:`SweepIncomplete` is raised once the rest have finished, and the same sweep run
again trains only what is missing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ponderlib.core.provenance import source_revision
from ponderlib.core.validation import ensure_path, short
from ponderlib.sweep.executors import check_executor, check_ray_connection, execute
from ponderlib.sweep.results import ResultsAppender, run_key
from ponderlib.sweep.spec import Run, make_spec
from ponderlib.tasks.registry import get_task


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
        executor: ``"inprocess"``, ``"pool"`` (local processes) or ``"ray"``
            (:mod:`ponderlib.sweep.executors`).
        workers: worker processes for ``"pool"`` (default: one per CPU core), or the CPUs of the
            local cluster ``"ray"`` starts (default: all), at most
            :data:`~ponderlib.core.validation.MAX_WORKERS` (checked before any executor starts); each run
            uses its config's ``threads`` (1 unless set), so one run per core.
        address: ``"ray"`` only: an existing cluster (``"auto"``, ``"host:port"``); None starts a
            local one for the sweep and stops it after. If this process is already connected to Ray,
            that connection is used.
        num_gpus: ``"ray"`` only: the share of a GPU each run asks for (default
            :data:`~ponderlib.sweep.executors.GPU_SHARE` when CUDA is available here, else 0).
        progress: show a progress bar over runs (tqdm, on stderr).

    Everything is checked before the first run (:func:`~ponderlib.sweep.spec.make_spec`, the
    executor's options, the results file, a Ray cluster's address); problems raise ``ValueError``, and
    leave the results file byte for byte as it was; among them a results file holding another task's
    runs, or runs of another setting (:func:`check_same_sweep`). One sweep writes to a results file at a time: a
    second one on the same file raises ``ValueError`` at once. Runs that raise or lose
    their worker do not stop the others; if any failed, :class:`SweepIncomplete` is raised after the
    rest have finished. ``KeyboardInterrupt`` stops the sweep; a run it interrupted is not recorded.

    Returns:
        a :class:`SweepReport`.
    """
    check_executor(executor, workers, address, num_gpus)
    runs = make_spec(task, grid, seeds, fixed).runs
    ensure_path("results_path", results_path)
    path = Path(results_path)
    if path.is_dir() or not path.parent.is_dir():
        raise ValueError(f"results_path must be a file in an existing folder, got {str(path)!r}")
    # Then the file: refused if another sweep holds it or it is not a results file, and not written to
    # before a run finishes (a line cut short is dropped only then).
    appender = ResultsAppender(path).open()  # locked until the sweep ends: one sweep per results file
    bar = None
    try:  # closed on every way out, Ctrl-C between any two lines included (a file it created and never wrote goes)
        check_same_sweep(path, appender.records, task, runs, grid)
        done: dict[str, dict] = {}
        for record in appender.records:
            done.setdefault(run_key(record["task"], record["config"]), record)
        pending = [run for run in runs if run.key not in done]
        if executor == "ray" and pending:
            check_ray_connection(address, workers, num_gpus)
        train = get_task(task).train
        new: dict[str, dict] = {}
        failed: list[tuple[dict, int, str]] = []
        bar = tqdm(total=len(runs), initial=len(runs) - len(pending), desc=f"sweep {task}", unit="run", disable=not progress)
        source = source_revision()

        def finish(run: Run, summary: dict) -> None:
            if summary.get("interrupted"):
                raise KeyboardInterrupt  # stopped by Ctrl-C: not a finished run, so not recorded
            record = {
                "task": task, "point": run.point, "seed": run.seed, "config": run.config.to_dict(), "summary": summary,
                "source": source,
            }
            appender.append(record)
            new[run.key] = record
            bar.update()

        def fail(run: Run, exc: BaseException) -> None:
            failed.append((run.point, run.seed, _one_line(exc)))
            bar.set_postfix(failed=len(failed), refresh=False)
            bar.update()

        if pending:
            execute(executor, train, pending, finish, fail, workers=workers, address=address, num_gpus=num_gpus)
    finally:
        appender.close()
        if bar is not None:
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


def check_same_sweep(path: Path, records: list[dict], task: str, runs: list[Run], grid: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` naming the results file unless every record in it is a run of this sweep's
    ``task`` with this sweep's fixed fields: every field outside the ``grid`` (and the seed) that all
    the planned runs share, given in ``fixed`` or left at the config's default. A results file holds one
    sweep's runs, whose grid and seeds may grow from one call to the next, and never another task's or
    another setting's (another preset's), which a summary would mix in."""
    planned = [run.config.to_dict() for run in runs]
    shared = {
        name: value for name, value in planned[0].items()
        if name != "seed" and name not in grid and all(config.get(name) == value for config in planned)
    }
    for record in records:
        if record["task"] != task:
            raise ValueError(
                f"results file {str(path)!r} holds runs of the task {short(repr(record['task']))}, not {task!r}: "
                "a results file holds one sweep's runs; give another file"
            )
        config = record["config"]
        for name, value in shared.items():
            if name in config and config[name] != value:
                raise ValueError(
                    f"results file {str(path)!r} holds a run with {name}={short(repr(config[name]))} where this sweep "
                    f"fixes {name}={value!r}: a results file holds one sweep's runs; give another file"
                )


def _one_line(exc: BaseException) -> str:
    """An error as one line: its type and the first line of its message."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
