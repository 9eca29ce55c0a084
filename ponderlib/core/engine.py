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
import os
import sys
import time
import typing
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, astuple, dataclass, field, fields
from functools import cache
from typing import Any

import torch
from torch import nn
from tqdm.auto import tqdm

from ponderlib._version import __version__
from ponderlib.core.device import get_device
from ponderlib.core.provenance import device_name
from ponderlib.core.seeds import SEED_MAX, stream_generator
from ponderlib.core.stats import round_or_none
from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_THREADS,
    check_counts,
    check_fraction,
    check_int,
    check_not_empty,
    check_positive,
    check_sizes,
    ensure_type,
)

PROGRESS_VARIABLE = "PONDERLIB_PROGRESS"
"""Environment variable: ``0`` turns off the progress bars of runs that leave ``progress`` unset.
``make book``, ``make execute`` and the tests set it, so executed chapters keep clean outputs, while a
reader who runs a chapter in Jupyter, Colab or Binder sees a bar in every training cell."""


PROGRESS_VALUES = {"0": False, "false": False, "no": False, "off": False, "1": True, "true": True, "yes": True, "on": True}
"""What :data:`PROGRESS_VARIABLE` may say (any case), and what it means."""


def progress_enabled(progress: bool | None) -> bool:
    """Whether a run shows its progress bar: ``progress`` when given, else per :data:`PROGRESS_VARIABLE`
    (unset: yes); a value it does not know raises ``ValueError`` naming the variable."""
    if progress is not None:
        return bool(progress)
    value = os.environ.get(PROGRESS_VARIABLE, "").strip().lower() or "1"  # unset or empty: yes
    if value not in PROGRESS_VALUES:
        raise ValueError(f"{PROGRESS_VARIABLE} must be one of {', '.join(PROGRESS_VALUES)}, got {value[:40]!r}")
    return PROGRESS_VALUES[value]


FIELD_KINDS = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
"""The scalar types a config field may have, as an error names them."""


def short(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters (``...`` marks the cut): an error message never prints an
    unbounded value."""
    return text if len(text) <= limit else text[: limit - 4] + " ..."


def _accepts(kind: type, value: Any) -> bool:
    """Whether ``value`` is of a config field's scalar ``kind`` (a bool is not a number here; an
    integer is a float's value)."""
    if kind is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind is int:
        return isinstance(value, numbers.Integral)
    if kind is float:
        return isinstance(value, numbers.Real)
    return isinstance(value, kind)


@cache
def _field_kinds(config_class: type) -> dict[str, tuple[type, bool]]:
    """Each field of ``config_class`` whose type is a scalar of :data:`FIELD_KINDS`: its type and
    whether it may be None (``int | None``)."""
    hints = typing.get_type_hints(config_class)
    kinds = {}
    for item in fields(config_class):
        args = typing.get_args(hints[item.name]) or (hints[item.name],)
        scalar = [arg for arg in args if arg is not type(None)]
        if len(scalar) == 1 and scalar[0] in FIELD_KINDS:
            kinds[item.name] = (scalar[0], len(args) > len(scalar))
    return kinds


def check_field_types(config: TrainConfig) -> None:
    """Raise ``ValueError`` naming the first field of ``config`` whose value is not of the field's type
    (``bidirectional="no"`` for a bool field, ``tau="0.1"`` for a float one)."""
    for name, (kind, optional) in _field_kinds(type(config)).items():
        value = getattr(config, name)
        if not (_accepts(kind, value) or (optional and value is None)):
            allowed = FIELD_KINDS[kind] + (" or None" if optional else "")
            raise ValueError(f"{name} must be {allowed}, got {short(repr(value))} ({type(value).__name__})")


def option(default, help: str, choices: tuple | None = None):
    """A config field with its help text (and allowed values): the CLI builds its options from these."""
    metadata = {"help": help}
    if choices is not None:
        metadata["choices"] = choices
    return field(default=default, metadata=metadata)


@dataclass
class TrainConfig:
    """The training fields every task shares. Task configs extend it and add their own fields.

    Defaults train the book's small models on a 2-core CPU. ``threads`` is passed to
    ``torch.set_num_threads``: these models are small enough that a second CPU thread gains little,
    and on a busy 2-core CPU two threads wait on each other.
    """

    # Where validate_once records what it validated: a slot, so it is in no field list and not in the
    # instance's __dict__ (``Config(**vars(config))`` still copies a config), yet pickled with it.
    __slots__ = ("__dict__", "__weakref__", "_validated")

    batch_size: int = option(128, "samples per training update")
    lr: float | None = option(None, "Adam's learning rate (None: the task's default)")
    grad_clip: float = option(1.0, "maximum global gradient norm")
    target_accuracy: float | None = option(None, "stop once the held-out target metric reaches this, in (0, 1]")
    max_updates: int | None = option(2000, "budget in training updates (optimizer steps)")
    max_seconds: float | None = option(None, "safety net on wall time in seconds (None: none)")
    eval_every: int = option(50, "training updates between held-out evaluations")
    eval_size: int = option(1024, "held-out samples")
    seed: int = option(0, "seeds the model, the data and every random stream")
    device: str | None = option(None, "cpu, cuda, cuda:1 ... (None: CUDA if available, else CPU)")
    threads: int | None = option(1, "torch CPU threads (None: torch's choice)")
    progress: bool | None = option(
        None, "show a progress bar (None: yes, unless the environment sets PONDERLIB_PROGRESS=0)"
    )

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first field outside its allowed range.

        Task configs extend this with their own fields and call ``super().validate()``.
        """
        check_counts(MAX_BATCH, batch_size=self.batch_size)
        if self.lr is not None:
            check_positive("lr", self.lr)
        check_positive("grad_clip", self.grad_clip)
        if self.target_accuracy is not None and not (
            isinstance(self.target_accuracy, (int, float)) and 0.0 < self.target_accuracy <= 1.0
        ):
            raise ValueError(f"target_accuracy must be in (0, 1], got {self.target_accuracy!r}")
        if self.max_updates is not None:
            check_int("max_updates", self.max_updates, minimum=1)
        if self.max_seconds is not None:
            check_positive("max_seconds", self.max_seconds)
        if self.target_accuracy is None and self.max_updates is None and self.max_seconds is None:
            raise ValueError("set at least one of target_accuracy, max_updates, max_seconds, or training never stops")
        check_sizes(eval_every=self.eval_every)
        check_counts(MAX_BATCH, eval_size=self.eval_size)
        check_int("seed", self.seed, minimum=0, maximum=SEED_MAX)
        if self.threads is not None:
            check_counts(MAX_THREADS, threads=self.threads)
        get_device(self.device)

    def validate_once(self) -> None:
        """:func:`check_field_types` and :meth:`validate`, unless this config was already validated
        with the values it has now.

        It records the values it validated on the config (``_validated``, a slot, not a field: not in
        ``fields``, ``asdict``, ``vars`` or :meth:`to_dict`, so not in a run's key; pickled with the
        config to a worker process). A config a sweep validated before its run starts is not
        validated again by :func:`start_run`; one changed since (an attribute assigned) is, and a
        config that :meth:`validate` rejects records nothing.
        """
        values = self._field_values()
        if getattr(self, "_validated", None) != values:
            check_field_types(self)
            self.validate()
            object.__setattr__(self, "_validated", values)

    def _field_values(self) -> tuple:
        """The fields' values with their types, so that ``8`` and ``8.0``, or ``1`` and ``True``, differ."""
        return tuple((type(value), value) for value in astuple(self))

    @property
    def learning_rate(self) -> float:
        """``lr``, or the task's default (:meth:`default_lr`) when ``lr`` is None."""
        return self.default_lr() if self.lr is None else self.lr

    def default_lr(self) -> float:
        """The learning rate used when ``lr`` is None; tasks override it."""
        return 1e-3

    def lr_scheduler(self, optimizer: torch.optim.Optimizer) -> torch.optim.lr_scheduler.LRScheduler | None:
        """The schedule of ``optimizer``'s learning rate, which :func:`fit` steps once after every
        training update; None (here, and so in every task that does not override it): the learning rate
        stays :attr:`learning_rate` throughout. A hook, not a field, so that no task's runs change: a
        config with a schedule overrides it (:class:`DecayingLRConfig`'s ``lr_decay``)."""
        return None

    def checkpoint_metric(self) -> str | None:
        """The held-out metric whose best evaluation :func:`fit` keeps the network of, restoring it after
        training; None (here, and so in every task that does not override it): the run ends with its final
        network. A hook, not a field, for the same reason as :meth:`lr_scheduler` (parity's ``checkpoint``)."""
        return None

    def generator(self, stream: str, device: torch.device | str | None = None) -> torch.Generator:
        """The generator of one of :data:`~ponderlib.core.seeds.STREAMS` for this run's ``seed``, on ``device``."""
        return stream_generator(self.seed, stream, device)

    @classmethod
    def from_overrides(cls, config: TrainConfig | None, overrides: dict):
        """``config`` itself, or ``cls(**overrides)``; both at once is an error, and so is a ``config`` that
        is not a ``cls`` (``TypeError``: another task's config, or a string, has not this task's fields)."""
        if config is None:
            return cls(**overrides)
        ensure_type("config", config, cls)
        if overrides:
            raise ValueError(f"pass either a {cls.__name__} or keyword overrides, not both")
        return config

    def to_dict(self) -> dict:
        """The fields that define the run (not where or how verbosely it runs), with the resolved ``lr``."""
        values = {k: v for k, v in asdict(self).items() if k not in ("progress", "device", "threads")}
        return {**values, "lr": self.learning_rate}


LR_DECAY_UPDATES = 1000
"""The training updates over which a decaying learning rate falls by the factor ``lr_decay``."""


def exponential_decay(optimizer: torch.optim.Optimizer, lr_decay: float) -> torch.optim.lr_scheduler.LambdaLR | None:
    """An exponentially decaying learning rate: training update ``k + 1`` (after ``k`` updates) runs at

    ``lr_k = lr * lr_decay ** (k / LR_DECAY_UPDATES)``,

    smoothly (TensorFlow's ``exponential_decay`` without a staircase), computed from ``k`` each time
    rather than multiplied up, so it is the closed form to rounding. ``lr_decay = 1`` returns None: no
    scheduler at all, so a run is bit-identical to one that never had the option. ``lr_decay`` must
    be in (0, 1] (:class:`DecayingLRConfig` checks it once, in its ``validate``; this function
    too, once per run: NaN would train at a NaN learning rate).
    """
    check_fraction("lr_decay", lr_decay, include_zero=False)
    if lr_decay == 1.0:
        return None
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda updates: lr_decay ** (updates / LR_DECAY_UPDATES))


@dataclass
class DecayingLRConfig(TrainConfig):
    """The training fields every task shares, and a learning rate that decays exponentially
    (:func:`exponential_decay`), for the tasks whose configs extend this one instead of
    :class:`TrainConfig` (sorting and convex hulls). ``lr_decay = 1`` (the default) trains at a
    constant rate, exactly as :class:`TrainConfig` does."""

    lr_decay: float = option(
        1.0, f"the learning rate's factor every {LR_DECAY_UPDATES:,} training updates, smoothly, in (0, 1] (1: constant)"
    )

    def validate(self) -> None:
        check_fraction("lr_decay", self.lr_decay, include_zero=False)
        super().validate()

    def lr_scheduler(self, optimizer: torch.optim.Optimizer) -> torch.optim.lr_scheduler.LambdaLR | None:
        """Adam's learning rate times ``lr_decay`` every 1,000 training updates (:func:`exponential_decay`)."""
        return exponential_decay(optimizer, self.lr_decay)


def default(name: str, value):
    """A task config's own default for one of :class:`TrainConfig`'s fields (same help text)."""
    return field(default=value, metadata=TrainConfig.__dataclass_fields__[name].metadata)


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

    def summary(self) -> dict:
        """The JSON-ready summary of the run: what, where (device, CPU model or GPU name, the CPU
        instruction set torch used, threads, torch and ponderlib versions), how long, the task's
        metrics, the learning curve (:meth:`History.curve`), the config."""
        return {
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
        }


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


def finite_numbers(name: str, values: Any, what: str = "number") -> list[float]:
    """``values`` as a list of at least one float, none NaN or infinite, naming ``name``: ``TypeError`` for what
    is not a collection of numbers (a str included), ``ValueError`` for none, a NaN or an infinity."""
    check_not_empty(name, values, what)
    if any(isinstance(v, (str, bytes)) for v in values):  # float("1") would read a text as a number
        raise TypeError(f"{name} must hold numbers, got {short(repr(list(values)))}")
    try:
        values = [float(v) for v in values]
    except (TypeError, ValueError):
        raise TypeError(f"{name} must hold numbers, got {short(repr(list(values)))}") from None
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"{name} must hold no NaN or infinity, got {short(repr(values))}")
    return values


def run_summary(run: Any) -> Mapping[str, Any]:
    """A run's JSON summary: ``run.summary()`` for a trained result, ``run`` itself when it is already a
    summary (a record of a sweep's results, such as the committed evidence)."""
    if hasattr(run, "summary"):
        return run.summary()
    if isinstance(run, Mapping):
        return run
    raise ValueError(f"run must be a trained result or its summary (a mapping), got {type(run).__name__}")


def summary_value(summary: Mapping[str, Any], name: str, where: str = "run's summary") -> Any:
    """``summary[name]``; ``ValueError`` naming ``where`` and the entry when ``summary`` is no mapping, or
    the entry is missing or None (a record written before the entry existed, or a run that never measured it)."""
    if not isinstance(summary, Mapping):
        raise TypeError(f"{where} must be a mapping (a run's summary), got {type(summary).__name__}")
    value = summary.get(name)
    if value is None:
        raise ValueError(f"{where} must have the entry {name!r}; it has {short(', '.join(map(str, summary)))}")
    return value


def _number_in(value: Any, low: float, high: float) -> bool:
    # NaN is not; nor an infinity, or an integer too large for a float (10**400 in a JSON file: float() overflows)
    number = isinstance(value, numbers.Real) and not isinstance(value, bool)
    return number and low <= value <= high and abs(value) <= sys.float_info.max


def summary_number(
    summary: Mapping[str, Any], name: str, low: float = -math.inf, high: float = math.inf, where: str = "run's summary"
) -> float:
    """:func:`summary_value`, which must be a number in ``[low, high]`` (NaN refused), naming the entry."""
    value = summary_value(summary, name, where)
    if not _number_in(value, low, high):
        raise ValueError(f"{where} entry {name!r} must be a number in [{low:g}, {high:g}], got {short(repr(value))}")
    return float(value)


def summary_numbers(
    summary: Mapping[str, Any],
    name: str,
    low: float = -math.inf,
    high: float = math.inf,
    where: str = "run's summary",
    keyed: bool = False,
) -> Any:
    """:func:`summary_value`, which must be a non-empty list of numbers (``keyed``: a mapping to numbers,
    one per difficulty), each in ``[low, high]`` (NaN refused), naming the entry; returned as it is."""
    value = summary_value(summary, name, where)
    container = "mapping" if keyed else "list"
    values = list(value.values()) if keyed and isinstance(value, Mapping) else value
    if not isinstance(values, list) or not values or not all(_number_in(v, low, high) for v in values):
        raise ValueError(
            f"{where} entry {name!r} must be a non-empty {container} of numbers in [{low:g}, {high:g}], "
            f"got {short(repr(value))}"
        )
    return value
