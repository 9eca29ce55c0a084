"""The config every task's config extends: the fields every run shares, checked once, and its random streams.

A task's config (:class:`~ponderlib.tasks.parity.ParityConfig`, ...) is a dataclass that extends
:class:`TrainConfig` with its own fields, each declared with :func:`option` (or :func:`default`, for a
shared field with a task's own default) so that the CLI builds its options and help from them.
:meth:`TrainConfig.validate_once` checks every field once, where a run starts
(:func:`~ponderlib.core.engine.start_run`); :meth:`TrainConfig.generator` gives each random stream
of a run (:mod:`~ponderlib.core.seeds`).
"""

from __future__ import annotations

import numbers
import os
import typing
from collections.abc import Mapping
from dataclasses import asdict, astuple, dataclass, field, fields
from functools import cache
from typing import Any

import torch

from ponderlib.core.device import get_device
from ponderlib.core.seeds import SEED_MAX, stream_generator
from ponderlib.core.validation import (
    MAX_BATCH,
    MAX_THREADS,
    check_counts,
    check_fraction,
    check_int,
    check_positive,
    check_sizes,
    ensure_type,
    short,
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


def option(default, help: str, choices: tuple | None = None, methods: tuple[str, ...] | None = None):
    """A config field with its help text (and allowed values): the CLI builds its options from these.

    ``methods``: the values of the config's ``method`` field that use this field (None: every method).
    A run of another method leaves it out of its key and record (:meth:`TrainConfig.to_dict`), and
    :meth:`TrainConfig.validate` refuses it set away from its default there."""
    metadata = {"help": help}
    if choices is not None:
        metadata["choices"] = choices
    if methods is not None:
        metadata["methods"] = methods
    return field(default=default, metadata=metadata)


METHOD_NAMES = {"act": "ACT", "pondernet": "PonderNet", "fixed": "the fixed depth"}
"""How an error names a halting method."""

ACT_ONLY = ("act",)
""":func:`option`'s ``methods`` for a field of ACT's alone."""

PONDERNET_ONLY = ("pondernet",)
""":func:`option`'s ``methods`` for a field of PonderNet's alone."""


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
        self._check_unused_fields()

    def unused_fields(self) -> tuple[str, ...]:
        """The fields that belong to other methods than this config's ``method`` (none for a config
        without one): :func:`option`'s ``methods``."""
        return self.fields_unused_by(getattr(self, "method", None))

    @classmethod
    def fields_unused_by(cls, method: str | None) -> tuple[str, ...]:
        """The fields of this config class that ``method`` does not use (none for ``None``)."""
        return tuple(
            item.name for item in fields(cls)
            if method is not None and method not in item.metadata.get("methods", (method,))
        )

    @classmethod
    def method_fields(cls, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` (field -> value) less the fields their ``method`` (or the class's default method)
        does not use: how a sweep builds a run from a grid that crosses ``method`` with one method's
        fields, so that ACT's run at ``kl_direction="reverse"`` is its run at ``"paper"``, trained once."""
        method = values.get("method", getattr(cls, "method", None))
        unused = cls.fields_unused_by(method)
        return {name: value for name, value in values.items() if name not in unused}

    def _check_unused_fields(self) -> None:
        """Raise ``ValueError`` for a field of another method set away from its default: the run would
        not use it, and its record would not hold it."""
        unused = self.unused_fields()
        for item in fields(self):
            if item.name in unused and getattr(self, item.name) != item.default:
                owners = " and ".join(METHOD_NAMES.get(name, name) for name in item.metadata["methods"])
                raise ValueError(
                    f"{item.name} is {owners}'s setting, which method={self.method!r} does not use: "
                    f"leave it at its default {item.default!r}, got {short(repr(getattr(self, item.name)))}"
                )

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
        """The fields that define the run (not where or how verbosely it runs, nor the fields of other
        methods than its own: :meth:`unused_fields`), with the resolved ``lr``. A run's key and record."""
        left_out = {"progress", "device", "threads", *self.unused_fields()}
        values = {k: v for k, v in asdict(self).items() if k not in left_out}
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


