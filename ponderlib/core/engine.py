"""The training engine every task shares: one base config, one loop, one history, one result.

It knows no paper and no task. A task (:mod:`~ponderlib.tasks.parity`, :mod:`~ponderlib.tasks.sequence_parity`,
:mod:`~ponderlib.tasks.sorting`, ...) extends :class:`TrainConfig` with its own fields, and its ``train_*``
function reads top to bottom: :func:`start_run` (validate the config once, set threads, seed, choose the
device), build the model on that device, draw its held-out data, then
``fit(model, next_batch, loss_fn, evaluate, config, on_evaluate=...)``, which returns a :class:`FitResult`.

Two kinds of step never share a name here: a **training update** is one optimizer step on one batch;
a **ponder step** (in the mechanisms) is one application of a network's step function to one input.
Budgets are counted in training updates (``max_updates``), so a run gives the same numbers on a fast
or a slow machine; ``max_seconds`` exists only as a safety net.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from tqdm.auto import tqdm

from ponderlib._version import __version__
from ponderlib.core.config import TrainConfig, progress_enabled
from ponderlib.core.device import get_device
from ponderlib.core.provenance import device_name
from ponderlib.core.records import RunSummary
from ponderlib.core.seeds import SEED_MAX
from ponderlib.core.stats import round_or_none
from ponderlib.core.validation import (
    check_int,
    ensure_type,
    short,
)


def start_run(config: TrainConfig) -> torch.device:
    """Validate ``config`` (here, never in the training loop; not again if it was validated with these
    values, :meth:`TrainConfig.validate_once`), set its CPU threads, seed torch; return its device."""
    config.validate_once()
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    return get_device(config.device)


def setup_chapter(seed: int = 0) -> torch.device:
    """The preamble every chapter runs: seed torch, one CPU thread, print the device once.

    One thread, because the book's models are small: on a 2-core CPU a second thread gains little,
    and when other processes share the cores the threads wait on each other.
    """
    check_int("seed", seed, minimum=0, maximum=SEED_MAX)
    torch.manual_seed(seed)
    device = get_device()
    if device.type == "cpu":
        torch.set_num_threads(1)
    print(f"device: {device}")
    return device


@dataclass
class History:
    """What :func:`fit` records at every evaluation: one list entry per evaluation."""

    update: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    metrics: dict[str, list[float]] = field(default_factory=dict)

    def record(self, update: int, seconds: float, loss: float, metrics: dict[str, float]) -> None:
        self.update.append(update)
        self.seconds.append(seconds)
        self.loss.append(loss)
        for name, value in metrics.items():
            self.metrics.setdefault(name, []).append(value)

    def last(self, name: str) -> float | None:
        """The latest value of a metric, or None before the first evaluation."""
        values = self.metrics.get(name)
        return values[-1] if values else None

    def curve(self) -> dict[str, list]:
        """The learning curve, JSON-ready: ``update`` (training updates done at each evaluation),
        ``loss`` and every held-out metric, one entry per evaluation, rounded to 4 decimals."""
        return {
            "update": list(self.update),
            "loss": [round_or_none(value) for value in self.loss],
            **{name: [round_or_none(value) for value in values] for name, values in self.metrics.items()},
        }


@contextmanager
def evaluating(model: nn.Module) -> Iterator[nn.Module]:
    """``model`` in eval mode with gradients off inside the ``with`` block, its training mode restored
    after: how a trained (or training) model is scored outside :func:`fit`."""
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            yield model
    finally:
        model.train(was_training)


@dataclass
class FitResult:
    """What :func:`fit` returns. ``seconds_to_target`` is None when the target was not reached."""

    history: History
    updates: int
    seconds: float
    reached_target: bool
    seconds_to_target: float | None
    interrupted: bool
    checkpoint_update: int | None = None


@dataclass
class _Best:
    """The network of the evaluation where ``metric`` was highest so far (the first, on a tie; NaN never
    counts); nothing is kept where ``metric`` is None."""

    metric: str | None
    value: float | None = None
    update: int | None = None
    weights: dict[str, torch.Tensor] | None = None

    def offer(self, metrics: Mapping[str, float], update: int, model: nn.Module) -> None:
        value = None if self.metric is None else metrics[self.metric]
        if value is None or math.isnan(value) or (self.value is not None and value <= self.value):
            return
        self.value, self.update = value, update
        self.weights = {name: tensor.detach().clone() for name, tensor in model.state_dict().items()}


def fit(
    model: nn.Module,
    next_batch: Callable[[], Any],
    loss_fn: Callable[[nn.Module, Any], torch.Tensor],
    evaluate: Callable[[nn.Module], dict[str, float]],
    config: TrainConfig,
    *,
    target_metric: str,
    desc: str,
    on_evaluate: Callable[[int, nn.Module], None] | None = None,
) -> FitResult:
    """Train ``model`` with Adam until the target metric is reached or the budget runs out.

    Every training update: ``loss_fn(model, next_batch())``, backward, gradients clipped to
    ``config.grad_clip``, one Adam step at ``config.learning_rate``, one step of
    :meth:`~TrainConfig.lr_scheduler`. Every ``config.eval_every`` updates and at the end:
    ``evaluate(model)`` (the model in eval mode) returns the held-out metrics, which go into the
    :class:`History`, then ``on_evaluate(update, model)`` is called when given (e.g. to score the model
    at several points of its training). Training stops once ``metrics[target_metric]`` reaches
    ``config.target_accuracy`` (None: never), after ``config.max_updates`` updates or
    ``config.max_seconds`` seconds, or on ``KeyboardInterrupt`` (the result has ``interrupted=True``
    and the history so far). Where :meth:`~TrainConfig.checkpoint_metric` names a metric, the network of
    the evaluation where it was highest is restored after training and ``checkpoint_update`` says
    which update it was (None, and the final network stays, where no evaluation gave it a number).

    Checked once, here: ``model`` (a module with parameters), the callables, ``config`` (validated as
    :func:`start_run` validates it, not again if it was), ``target_metric`` and ``desc``; at the first
    evaluation, that ``evaluate`` returns a mapping holding ``target_metric`` (when the config sets a
    target) and the checkpoint's metric; at the first training update, that the loss is a scalar tensor.
    A loss that is NaN or infinite raises ``ValueError`` naming the training update, from the value the
    loop reads for its log anyway (no extra synchronisation).
    """
    _check_fit_arguments(model, next_batch, loss_fn, evaluate, on_evaluate, config, target_metric, desc)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    scheduler = config.lr_scheduler(optimizer)
    target, history, best = config.target_accuracy, History(), _Best(config.checkpoint_metric())
    bar = tqdm(total=config.max_updates, desc=desc, disable=not progress_enabled(config.progress), leave=False,
               unit="update")
    start = time.perf_counter()
    update, running_loss, losses_seen, interrupted = 0, 0.0, 0, False

    def evaluate_and_record() -> bool:
        """Score, record and maybe keep the model; True when it reached the target."""
        nonlocal running_loss, losses_seen
        model.eval()
        metrics = evaluate(model)
        if not history.update:  # the first evaluation: what it returns, once
            _check_metrics(metrics, [name for name in (target is not None and target_metric, best.metric) if name])
        best.offer(metrics, update, model)
        if on_evaluate is not None:
            on_evaluate(update, model)
        model.train()
        mean_loss = running_loss / losses_seen if losses_seen else float("nan")
        history.record(update, time.perf_counter() - start, mean_loss, metrics)
        running_loss, losses_seen = 0.0, 0
        bar.set_postfix({k: f"{v:.3f}" for k, v in metrics.items()}, refresh=False)
        return target is not None and metrics[target_metric] >= target

    reached = False
    model.train()
    try:
        while not reached:
            loss = loss_fn(model, next_batch())
            if not update:
                _check_loss(loss)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            update += 1
            running_loss += _finite_loss(loss.item(), update)  # the one sync per training update, for the log
            losses_seen += 1
            bar.update(1)
            reached = update % config.eval_every == 0 and evaluate_and_record()
            if config.max_seconds is not None and time.perf_counter() - start >= config.max_seconds:
                break
            if config.max_updates is not None and update >= config.max_updates:
                break
    except KeyboardInterrupt:
        interrupted = True
    bar.close()
    reached_at = history.seconds[-1] if reached else None
    if not history.update or history.update[-1] != update:  # the last updates' evaluation
        if evaluate_and_record() and not reached:
            reached, reached_at = True, history.seconds[-1]
    if best.weights is not None:
        model.load_state_dict(best.weights)
    model.eval()
    return FitResult(
        history=history,
        updates=update,
        seconds=time.perf_counter() - start,
        reached_target=reached,
        seconds_to_target=reached_at,
        interrupted=interrupted,
        checkpoint_update=best.update,
    )


def _finite_loss(value: float, update: int) -> float:
    if not math.isfinite(value):
        raise ValueError(
            f"loss_fn returned a loss of {value} at training update {update}: training diverged "
            "(try a lower lr or grad_clip), or the loss is computed wrong"
        )
    return value


def _check_fit_arguments(model, next_batch, loss_fn, evaluate, on_evaluate, config, target_metric, desc) -> None:
    """:func:`fit`'s arguments, checked once at its entry."""
    ensure_type("model", model, nn.Module)
    if next(model.parameters(), None) is None:
        raise ValueError("model must have parameters to train, got none")
    calls = (("next_batch", next_batch, "next_batch()"), ("loss_fn", loss_fn, "loss_fn(model, batch)"),
             ("evaluate", evaluate, "evaluate(model)"), ("on_evaluate", on_evaluate, "on_evaluate(update, model)"))
    for name, function, usage in calls:
        if not callable(function) and not (name == "on_evaluate" and function is None):
            raise TypeError(f"{name} must be callable as {usage}, got {type(function).__name__}")
    ensure_type("config", config, TrainConfig)
    config.validate_once()
    for name, text in (("target_metric", target_metric), ("desc", desc)):
        ensure_type(name, text, str)


def _check_metrics(metrics: object, names: list[str]) -> None:
    """What ``evaluate`` returned at :func:`fit`'s first evaluation: a mapping whose ``names`` are numbers."""
    if not isinstance(metrics, Mapping):
        raise TypeError(f"evaluate must return a mapping of metric names to numbers, returned {type(metrics).__name__}")
    for name in names:
        if name not in metrics:
            raise ValueError(f"evaluate must return the metric {name!r}, returned {short(', '.join(map(str, metrics)))}")
        if not isinstance(metrics[name], numbers.Real) or isinstance(metrics[name], bool):
            raise ValueError(f"evaluate's metric {name!r} must be a number, got {short(repr(metrics[name]))}")


def _check_loss(loss: object) -> None:
    """The first loss :func:`fit` gets: a tensor of one value (a mean, not a batch of them)."""
    ensure_type("loss_fn's loss", loss, torch.Tensor)
    if loss.dim() != 0:
        raise ValueError(f"loss_fn must return a scalar loss (a mean), got shape {tuple(loss.shape)}")


@dataclass
class TrainResult:
    """A trained model with its config, its :class:`FitResult` and the device it ran on.

    Task results extend it with their metrics and override :meth:`metrics`; :meth:`summary` is the
    JSON-ready record the CLI prints and a sweep stores.
    """

    task = "task"

    model: nn.Module
    config: TrainConfig
    fit: FitResult
    device: torch.device

    @property
    def history(self) -> History:
        return self.fit.history

    def metrics(self) -> dict:
        """The task's measured numbers (JSON-ready); tasks override it."""
        return {}

    def summary(self) -> RunSummary:
        """The run's :class:`~ponderlib.core.records.RunSummary`, JSON-ready: what, where (device, CPU model or
        GPU name, the CPU instruction set torch used, threads, torch and ponderlib versions), how long, the
        task's metrics, the learning curve (:meth:`History.curve`), the config; what a results file keeps."""
        return RunSummary({
            "task": self.task,
            "seed": self.config.seed,
            "device": str(self.device),
            "reached_target": self.fit.reached_target,
            "seconds_to_target": round_or_none(self.fit.seconds_to_target),
            "seconds": round_or_none(self.fit.seconds),
            "updates": self.fit.updates,
            "interrupted": self.fit.interrupted,
            **({} if self.fit.checkpoint_update is None else {"checkpoint_update": self.fit.checkpoint_update}),
            **self.metrics(),
            "curve": self.history.curve(),
            "config": self.config.to_dict(),
            "torch_threads": torch.get_num_threads(),
            "ponderlib_version": __version__,
            "torch_version": torch.__version__,
            "device_name": device_name(self.device),
            "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        })


@dataclass
class PonderingResult(TrainResult):
    """A result whose held-out evaluation reports ``accuracy`` and ``ponder_steps`` (the mean ponder
    steps per input), as both parity tasks do."""

    @property
    def final_accuracy(self) -> float | None:
        """Held-out accuracy at the last evaluation."""
        return self.history.last("accuracy")

    @property
    def mean_ponder_steps(self) -> float | None:
        """Mean ponder steps per held-out input at the last evaluation."""
        return self.history.last("ponder_steps")

    def metrics(self) -> dict:
        return {
            "final_accuracy": round_or_none(self.final_accuracy),
            "mean_ponder_steps": round_or_none(self.mean_ponder_steps),
        }


