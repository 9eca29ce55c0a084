"""Where a sweep's runs train: in this process, on local worker processes, or on a Ray cluster.

Executors (``executor=`` of :func:`~ponderlib.sweep.runner.sweep`): ``"inprocess"`` (the chapters'
default on a 2-core machine); ``"pool"``, local worker processes (started with ``spawn``, one torch
thread each through the configs' ``threads``); ``"ray"``, a Ray cluster (``pip install
"ponderlib[ray]"``): a local one started for the sweep, or an existing one at ``address`` (``"auto"``
or ``"host:port"``; every node needs ``ponderlib`` installed). Every run seeds itself from its config
(:func:`~ponderlib.core.engine.start_run`), so the same sweep gives the same numbers under every
executor. A worker gets the config the sweep validated, so the run does not validate it again.

Each executor reports every run back as it ends, through ``finish(run, summary)`` or
``fail(run, error)``; a run that raises or loses its worker does not stop the others.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

import torch

from ponderlib.core.engine import TrainConfig
from ponderlib.core.validation import check_choice, check_int, check_non_negative
from ponderlib.sweep.spec import Run

EXECUTORS = ("inprocess", "pool", "ray")

GPU_SHARE = 0.25
"""The share of a GPU each Ray task asks for when CUDA is available and ``num_gpus`` is not given:
the book's models are small, so four runs share one GPU."""

Finish = Callable[[Run, dict], None]
"""``finish(run, summary)``: a run ended; ``summary`` is its result's summary."""

Fail = Callable[[Run, BaseException], None]
"""``fail(run, error)``: a run raised, or its worker died."""


def check_executor(executor: str, workers: int | None, address: str | None, num_gpus: float | None) -> None:
    """Raise ``ValueError`` for an unknown executor or an option it does not take (see
    :func:`~ponderlib.sweep.runner.sweep`)."""
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


def check_ray_connection(address: str | None, workers: int | None) -> None:
    """Raise ``ValueError`` if this process is already connected to Ray and ``address`` or ``workers``
    asks for another cluster (or Ray is not installed)."""
    if _import_ray().is_initialized() and (address, workers) != (None, None):
        raise ValueError("this process is already connected to Ray: leave address and workers unset to use that connection")


def execute(
    executor: str, train: Callable[[TrainConfig], Any], runs: list[Run], finish: Finish, fail: Fail, *,
    workers: int | None = None, address: str | None = None, num_gpus: float | None = None,
) -> None:
    """Train every run with ``executor`` (its options checked by :func:`check_executor`), reporting
    each to ``finish`` or ``fail`` as it ends."""
    if executor == "inprocess":
        _execute_inprocess(train, runs, finish, fail)
    elif executor == "pool":
        _execute_pool(train, runs, finish, fail, workers)
    else:
        _execute_ray(train, runs, finish, fail, workers, address, num_gpus)


def _run_one(train: Callable[[TrainConfig], Any], config: TrainConfig) -> dict:
    """Train one run and return its summary: what a worker sends back (the model stays behind)."""
    return train(config).summary()


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
