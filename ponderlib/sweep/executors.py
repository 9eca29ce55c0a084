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
import signal
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

import torch

from ponderlib.core.config import TrainConfig
from ponderlib.core.validation import MAX_WORKERS, check_choice, check_int, check_non_negative, short
from ponderlib.sweep.spec import Run

EXECUTORS = ("inprocess", "pool", "ray")

GPU_SHARE = 0.25
"""The share of a GPU each Ray task asks for when CUDA is available and ``num_gpus`` is not given:
the book's models are small, so four runs share one GPU."""

RAY_CONNECT_SECONDS = 5.0
"""How long a sweep waits for a Ray cluster's address (``address``, ``RAY_ADDRESS``, or the cluster
``ray start`` recorded) to answer before it gives up with an error: an address where nothing listens,
or something that is not a Ray cluster, fails in at most this long instead of Ray's minutes of retries."""

RAY_WAIT_SECONDS = 0.5
"""How long a sweep on Ray waits for a run at a time before it checks again, so Ctrl-C ends it promptly."""

HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
"""What a gRPC client sends first (HTTP/2's preface and an empty SETTINGS frame): a Ray cluster's
GCS (a gRPC server) answers with a SETTINGS frame of its own."""

Finish = Callable[[Run, dict], None]
"""``finish(run, summary)``: a run ended; ``summary`` is its result's summary."""

Fail = Callable[[Run, BaseException], None]
"""``fail(run, error)``: a run raised, or its worker died."""


def check_executor(executor: str, workers: int | None, address: str | None, num_gpus: float | None) -> None:
    """Raise ``ValueError`` for an unknown executor or an option it does not take (see
    :func:`~ponderlib.sweep.runner.sweep`)."""
    check_choice("executor", executor, EXECUTORS)
    if workers is not None:
        check_int("workers", workers, minimum=1, maximum=MAX_WORKERS)
        if executor == "inprocess":
            raise ValueError("workers applies to executor='pool' or 'ray', not 'inprocess'")
    for name, value in (("address", address), ("num_gpus", num_gpus)):
        if value is not None and executor != "ray":
            raise ValueError(f"{name} applies to executor='ray' only, got {name}={value!r} with executor={executor!r}")
    if address is not None and not isinstance(address, str):
        raise TypeError(f"address must be a Ray cluster's address (a str: auto or HOST:PORT) or None, got {type(address).__name__}")
    if num_gpus is not None:
        check_non_negative("num_gpus", num_gpus)


def check_ray_connection(address: str | None, workers: int | None, num_gpus: float | None = None) -> None:
    """Raise ``ValueError`` if Ray is not installed; if this process is already connected to Ray and
    ``address`` or ``workers`` asks for another cluster; if the cluster to connect to (``address``,
    else ``RAY_ADDRESS``, else the one ``ray start`` recorded; none: a local one is started) is not a
    valid address, or does not answer like a Ray cluster within :data:`RAY_CONNECT_SECONDS`; or if
    ``num_gpus`` asks for more GPUs than the cluster has, where that is known before it starts (the
    local cluster has this machine's CUDA devices; an existing one is checked once connected, before
    any run is submitted): Ray would wait for a placement forever."""
    ray = _import_ray()
    if ray.is_initialized():
        if (address, workers) != (None, None):
            raise ValueError("this process is already connected to Ray: leave address and workers unset to use that connection")
        check_cluster_gpus(num_gpus, ray.cluster_resources().get("GPU", 0), "the Ray cluster this process is connected to")
        return
    target = _cluster_address(address)
    if target is not None:
        _check_answers(address, target)
    else:
        check_cluster_gpus(num_gpus, _local_gpus(), "the local Ray cluster a sweep starts (this machine's CUDA devices)")


def _local_gpus() -> int:
    """The CUDA devices this machine has, 0 without CUDA: the GPUs of a local Ray cluster."""
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def check_cluster_gpus(num_gpus: float | None, gpus: float, cluster: str) -> None:
    """Raise ``ValueError`` naming ``num_gpus`` if each run asks for more of a GPU than ``cluster``
    has (``gpus`` in all): no run could ever be placed, and the sweep would wait forever."""
    if num_gpus is not None and num_gpus > gpus:
        raise ValueError(
            f"num_gpus={num_gpus!r} asks each run for more GPUs than {cluster} has ({gpus:g}), "
            f"so no run could ever start: leave num_gpus unset, or ask for at most {gpus:g}"
        )


def _cluster_address(address: str | None) -> str | None:
    """The ``host:port`` Ray will connect to for ``address``, as Ray resolves it; None when it will start
    a local cluster."""
    if address is not None and address.startswith("ray://"):
        return address.removeprefix("ray://")  # the Ray Client server, also gRPC
    try:
        from ray._private.services import canonicalize_bootstrap_address
    except ImportError:  # another Ray: take the address as given
        return address if address not in (None, "auto") else None
    try:
        return canonicalize_bootstrap_address(address)
    except ValueError as exc:
        raise ValueError(f"{_named(address)} is not a Ray cluster's address ({short(str(exc))}): give auto or HOST:PORT") from None
    except ConnectionError as exc:
        raise ValueError(f"{_named(address)}: {short(str(exc), 200)}") from None


def _named(address: str | None, target: str = "") -> str:
    """Where the address to connect to came from, as an error names it."""
    if address is not None:
        return f"address={short(repr(address))}"
    if os.environ.get("RAY_ADDRESS"):
        return f"RAY_ADDRESS={short(repr(os.environ['RAY_ADDRESS']))}"
    return f"the Ray cluster recorded by ray start ({short(target)})"


def _check_answers(address: str | None, target: str) -> None:
    """Raise ``ValueError`` unless a gRPC server (a Ray cluster's GCS) answers at ``target`` within
    :data:`RAY_CONNECT_SECONDS`. The probe runs in a thread, so a name lookup that hangs hangs only it."""
    host, _, port = target.rpartition(":")
    where = _named(address, target)
    if not host or not port.isdigit():
        raise ValueError(f"{where} is not a Ray cluster's address: give auto or HOST:PORT")
    outcome: list[str] = []

    def probe() -> None:
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_CONNECT_SECONDS) as connection:
                connection.sendall(HTTP2_PREFACE)
                answer = connection.recv(9)
            outcome.append("" if len(answer) == 9 and answer[3] == 4 else "it does not answer like a Ray cluster")
        except TimeoutError:
            outcome.append(f"no answer within {RAY_CONNECT_SECONDS:g} s")
        except (OSError, ValueError, OverflowError) as exc:
            outcome.append(short(str(getattr(exc, "strerror", None) or exc), 120))

    thread = threading.Thread(target=probe, name="ray-address-probe", daemon=True)
    thread.start()
    thread.join(RAY_CONNECT_SECONDS + 1)
    problem = outcome[0] if outcome else f"no answer within {RAY_CONNECT_SECONDS:g} s"
    if problem:
        raise ValueError(f"{where}: no Ray cluster there ({problem}); start one (ray start --head) or give its address")


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
    held = _hold_interrupts() if started else None
    refs: dict = {}
    waiting: list = []
    try:
        if started:
            try:
                ray.init(address=address, num_cpus=workers if address is None else None, include_dashboard=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise ValueError(f"Ray did not start or connect (address={short(repr(address))}): {short(str(exc), 200)}") from None
            if held is not None:
                held.release()  # a Ctrl-C held while Ray started is raised here, its cluster running
            # an existing cluster's GPUs are known only now; no run is submitted yet
            check_cluster_gpus(num_gpus, ray.cluster_resources().get("GPU", 0), f"the Ray cluster (address={short(repr(address))})")
        if num_gpus is None:
            num_gpus = GPU_SHARE if torch.cuda.is_available() else 0
        remote = ray.remote(num_cpus=1, num_gpus=num_gpus)(_run_one)
        refs = {remote.remote(train, run.config): run for run in runs}
        waiting = list(refs)
        while waiting:
            ready, waiting = ray.wait(waiting, num_returns=1, timeout=RAY_WAIT_SECONDS)
            for ref in ready:
                try:
                    summary = ray.get(ref)
                except ray.exceptions.RayError as exc:  # the run raised (its error is the cause), or its worker died
                    fail(refs[ref], getattr(exc, "cause", None) or exc)
                else:
                    finish(refs[ref], summary)
    finally:
        try:
            if held is not None:
                held.release()
        finally:
            for ref in waiting:
                ray.cancel(ref, force=True)
            if started and ray.is_initialized():
                ray.shutdown()


class _HeldInterrupts:
    """Ctrl-C held while Ray starts a local cluster: SIGINT blocked in this (the main) thread, and
    recorded, not raised, if another thread receives it, until :meth:`release`.

    Ray starts its daemons (GCS, raylet, dashboard, log monitor) from this thread, in this process
    group, where a terminal's Ctrl-C reaches every process. They inherit the blocked signal, so Ctrl-C
    interrupts only the sweep, whose clean-up then cancels the runs and stops a cluster that still
    answers (a daemon killed by the same Ctrl-C left Ray's shutdown retrying a dead GCS, or crashing),
    and ``ray.init`` is never interrupted half-way (which left the daemons it had started running).
    """

    def __init__(self) -> None:
        self.pressed = False
        self.handler = signal.signal(signal.SIGINT, self._press)
        self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        self.held = True

    def _press(self, signum, frame) -> None:
        self.pressed = True

    def release(self) -> None:
        """Restore Ctrl-C (once; again does nothing) and raise ``KeyboardInterrupt`` if it came while held."""
        if not self.held:
            return
        self.held = False
        signal.signal(signal.SIGINT, self.handler)
        if signal.SIGINT not in self.mask:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a Ctrl-C pending here is raised now
        if self.pressed:
            raise KeyboardInterrupt


def _hold_interrupts() -> _HeldInterrupts | None:
    """Hold Ctrl-C (:class:`_HeldInterrupts`), where signals can be held: in the main thread, with
    ``pthread_sigmask``; None elsewhere."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        return None
    return _HeldInterrupts()
